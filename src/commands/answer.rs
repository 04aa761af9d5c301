//! `answer`: answer an ask_user question, then advance the run (drive the leg it resumes,
//! prompt on at a terminal).

use anyhow::Result;
use serde_json::{json, Value};

use super::Ctx;
use crate::cli::AnswerArgs;
use crate::domain::{ItemKind, Resolution, Via};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::runner::advance::{self, Advance, Policy};
use crate::runner::input::{parse_json_flag, read_stdin, who};
use crate::runner::target::{find_run, target_of};
use crate::runner::view::question_of;
use crate::tools::ask_user::{self, Question};

pub fn run(ctx: &Ctx, args: AnswerArgs) -> Result<Exit> {
    let item_args = &args.item;
    let (given, via) = match given(&args)? {
        Some(given) => given,
        None if ctx.interactive() => {
            return advance::prompt_chosen(ctx, item_args, ItemKind::Question)
        }
        None => return fail(missing_answer(ctx, item_args.run.as_deref())),
    };
    if item_args.run.is_none() {
        return fail(which_run(ctx, &args));
    }
    let (store, run, item) = target_of(ctx, item_args, ItemKind::Question)?;
    let question = question_of(&item)?;
    let resume_data = checked(&question, &item.call_id, &given, args.multi.is_some())?;
    let resolution = Resolution {
        result: Some(ask_user::result(&resume_data)),
        resume_data,
        by: who(item_args.as_.clone()),
        via,
    };
    let policy = Policy::acting(ctx, item_args, &resolution.by);
    Advance::new(ctx, store.as_ref(), &run.id, policy).resolve(&item, &resolution)
}

/// The answer given on the command line (ANSWER, `-` for stdin, `--multi`, `--json`) and
/// how; `None` when none was.
pub fn given(args: &AnswerArgs) -> Result<Option<(Value, Via)>> {
    Ok(Some(match (&args.answer, &args.multi, &args.json) {
        (Some(a), _, _) if a == "-" => (json!(read_stdin("the answer")?), Via::Flag),
        (Some(a), _, _) => (json!(a), Via::Flag),
        (_, Some(labels), _) => (json!(labels), Via::Flag),
        (_, _, Some(j)) => (parse_json_flag(j)?, Via::Json),
        _ => return Ok(None),
    }))
}

/// The resume data of an answer to `question` (SPEC §5.4): checked against its options, and
/// `--multi` only for a multi-select question.
pub fn checked(question: &Question, call_id: &str, given: &Value, multi: bool) -> Result<Value> {
    if multi && question.mode != ask_user::Mode::Multi {
        return fail(Error::usage(format!(
            "--multi is for multi-select questions; tool call {call_id} takes one answer: pass it as ANSWER"
        )));
    }
    Ok(question.check_answer(given).map_err(Error::invalid)?)
}

pub const USAGE: &str = "mastra-ask answer RUN ANSWER (free text or a label; - reads stdin), or RUN --multi LABEL..., or RUN --json VALUE";

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
