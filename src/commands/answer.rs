//! `answer`: answer an ask_user question, then advance the run (drive the leg it resumes,
//! prompt on at a terminal).

use anyhow::Result;

use crate::cli::AnswerArgs;
use crate::context::Ctx;
use crate::domain::ItemKind;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::input::who;
use crate::items::question::{answered, checked, given, question_of, USAGE};
use crate::policy::claim;
use crate::runner::advance::prompt_chosen;
use crate::runner::target::{find_run, target_of};
use crate::runner::{Advance, Policy};

pub fn run(ctx: &Ctx, args: AnswerArgs) -> Result<Exit> {
    let item_args = &args.item;
    let by = who(item_args.as_.clone());
    let policy = Policy::acting(ctx, !item_args.no_resume, &by);
    let (given, via) = match given(&args)? {
        Some(given) => given,
        None if ctx.interactive() => {
            let (run, call) = (item_args.run.as_deref(), item_args.tool_call.as_deref());
            return prompt_chosen(ctx, run, call, policy, ItemKind::Question, claim(item_args));
        }
        None => return fail(missing_answer(ctx, item_args.run.as_deref())),
    };
    if item_args.run.is_none() {
        return fail(which_run(ctx, &args));
    }
    let (store, run, item) = target_of(ctx, item_args, ItemKind::Question)?;
    let question = question_of(&item)?;
    let resume_data = checked(&question, &item.call_id, &given, args.multi.is_some())?;
    let resolution = answered(resume_data, &by, via);
    Advance::new(ctx, store.as_ref(), &run.id, policy)
        .deciding(claim(item_args))
        .resolve(&run, &item, &resolution)
}

/// No answer given, and no terminal to ask at. A lone positional is RUN (SPEC §5): say so
/// when it names no run.
fn missing_answer(ctx: &Ctx, run: Option<&str>) -> Error {
    let names_a_run = run.is_some_and(|r| {
        ctx.existing_store()
            .ok()
            .flatten()
            .is_some_and(|s| find_run(s.as_ref(), r).is_ok())
    });
    match run {
        Some(r) if !names_a_run => Error::usage(format!(
            "\"{r}\" names no run: a lone argument is taken as RUN, and no answer was given"
        ))
        .with_hint(USAGE),
        _ => Error::usage("no answer given").with_hint(USAGE),
    }
}

/// `--multi a b RUN` takes RUN as a label: say so when the last label names a run.
fn which_run(ctx: &Ctx, args: &AnswerArgs) -> Error {
    let named = args
        .multi
        .as_ref()
        .and_then(|l| l.last())
        .and_then(|label| {
            let store = ctx.existing_store().ok().flatten()?;
            find_run(store.as_ref(), label).ok().map(|r| (label, r.id))
        });
    match named {
        Some((label, id)) => Error::usage(format!(
            "which run? --multi took every value after it as a label, \"{label}\" too, which names run {id}"
        ))
        .with_hint(format!(
            "put RUN first: {} answer {id} --multi LABEL...",
            ctx.program()
        )),
        None => Error::usage("which run? pass RUN").with_hint(USAGE),
    }
}
