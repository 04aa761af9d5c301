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
            return prompt_chosen(ctx, run, call, policy, kind_to_prompt(ctx, run, call));
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
    Advance::new(ctx, store.as_ref(), &run.id, policy).resolve(&run, &item, &resolution)
}

/// What `answer RUN` at a terminal prompts for: a question, or, when the run waits for
/// approvals and for no question, the approval menu (the one command that reopens it after
/// it was left).
fn kind_to_prompt(ctx: &Ctx, run: Option<&str>, call: Option<&str>) -> ItemKind {
    let waits_for_approval_only = || -> Option<bool> {
        let store = ctx.existing_store().ok()??;
        let run = find_run(store.as_ref(), run?).ok()?;
        let kinds: Vec<ItemKind> = store
            .pending(Some(&run.id))
            .ok()?
            .into_iter()
            .filter(|p| call.is_none_or(|c| p.call.call_id == c))
            .map(|p| p.call.kind())
            .collect();
        Some(!kinds.is_empty() && kinds.iter().all(|k| *k == ItemKind::Approval))
    };
    match waits_for_approval_only() {
        Some(true) => ItemKind::Approval,
        _ => ItemKind::Question,
    }
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
