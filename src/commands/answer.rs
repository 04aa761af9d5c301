//! `answer`: answer a question (or a Mastra server's `other` item, with `--json`), in this
//! store or on `--server`'s, then advance the run (drive the leg it resumes, or stream the
//! server's; prompt on at a terminal).

use anyhow::Result;
use serde_json::{json, Value};

use crate::cli::AnswerArgs;
use crate::context::Ctx;
use crate::domain::{ItemKind, Via};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::input::{parse_json_flag, read_stdin};
use crate::items::question::question_of;
use crate::items::{Answer, Item};
use crate::output::format;
use crate::policy::Deciding;
use crate::runner::{Advance, Picked, Place};
use crate::store::Who;
use crate::tools::ask_user::Mode;

/// How `answer` is used, for the hint of a usage error.
fn usage(ctx: &Ctx) -> String {
    format!(
        "{} answer RUN ANSWER (free text or a label; - reads stdin), or RUN --multi LABEL..., or RUN --json VALUE",
        ctx.program()
    )
}

/// What `answer` answers.
const KINDS: [ItemKind; 2] = [ItemKind::Question, ItemKind::Other];

pub fn run(ctx: &Ctx, args: AnswerArgs) -> Result<Exit> {
    let picked = Picked::of(ctx)?;
    let deciding = Deciding::claiming(args.item.as_.is_some());
    let place = picked.place(ctx, deciding, args.agent.clone(), None);
    let who = Who::this_process(args.item.as_.clone());
    let mut advance =
        Advance::acting(ctx, place, args.item.no_resume, who)?.next_within(args.item.timeout);
    let (run, call) = (args.item.run.as_deref(), args.item.tool_call.as_deref());
    let (given, via) = match given(&args)? {
        Some(given) => given,
        None if ctx.interactive() => {
            let kinds = kinds_to_prompt(advance.place(), run, call);
            return advance.prompt_chosen(run, call, kinds);
        }
        None => return fail(missing_answer(ctx, advance.place(), run)),
    };
    if run.is_none() {
        return fail(which_run(ctx, advance.place(), &args));
    }
    let item = advance.target(run, &KINDS, call)?;
    if args.multi.is_some() {
        only_multi_select(&item)?;
    }
    advance.answer(&item, Answer::Data(given), via)
}

/// The answer given on the command line (ANSWER, `-` for stdin, `--multi`, `--json`) and
/// how; `None` when none was.
fn given(args: &AnswerArgs) -> Result<Option<(Value, Via)>> {
    Ok(Some(match (&args.answer, &args.multi, &args.json) {
        (Some(a), _, _) if a == "-" => (json!(read_stdin("the answer")?), Via::Flag),
        (Some(a), _, _) => (json!(a), Via::Flag),
        (_, Some(labels), _) => (json!(labels), Via::Flag),
        (_, _, Some(j)) => (parse_json_flag(j)?, Via::Json),
        _ => match &args.other {
            Some(text) => (json!({ "other": text }), Via::Flag),
            None => return Ok(None),
        },
    }))
}

/// `--multi` is for a multi-select question only.
fn only_multi_select(item: &Item) -> Result<()> {
    if item.kind() != ItemKind::Question || question_of(item)?.mode == Mode::Multi {
        return Ok(());
    }
    fail(Error::usage(format!(
        "--multi is for multi-select questions; tool call {} takes one answer: pass it as ANSWER",
        format::shell_quote(item.call_id())
    )))
}

/// What `answer RUN` at a terminal prompts for: a question, or, when the run waits for
/// approvals and for no question, the approval menu (the one command that reopens it after
/// it was left).
fn kinds_to_prompt(
    place: &mut dyn Place,
    run: Option<&str>,
    call: Option<&str>,
) -> &'static [ItemKind] {
    let approvals_only = run.is_some_and(|r| place.load(r).is_ok())
        && place.pending().is_ok_and(|items| {
            let mut kinds = items
                .iter()
                .filter(|i| call.is_none_or(|c| i.call_id() == c))
                .map(|i| i.kind())
                .peekable();
            kinds.peek().is_some() && kinds.all(|k| k == ItemKind::Approval)
        });
    if approvals_only {
        &[ItemKind::Approval]
    } else {
        &KINDS
    }
}

/// No answer given, and no terminal to ask at. A lone positional is RUN (SPEC §5): say so
/// when it names no run.
fn missing_answer(ctx: &Ctx, place: &mut dyn Place, run: Option<&str>) -> Error {
    match run {
        Some(r) if place.load(r).is_err() => Error::usage(format!(
            "\"{r}\" names no run: a lone argument is taken as RUN, and no answer was given"
        ))
        .with_hint(usage(ctx)),
        _ => Error::usage("no answer given").with_hint(usage(ctx)),
    }
}

/// `--multi a b RUN` takes RUN as a label: say so when the last label names a run.
fn which_run(ctx: &Ctx, place: &mut dyn Place, args: &AnswerArgs) -> Error {
    let label = args.multi.as_ref().and_then(|l| l.last());
    match label.filter(|l| place.load(l).is_ok()) {
        Some(label) => {
            let id = place.run_id();
            Error::usage(format!(
                "which run? --multi took every value after it as a label, \"{label}\" too, which names run {id}"
            ))
            .with_hint(format!(
                "put RUN first: {} answer {id} --multi LABEL...",
                ctx.program()
            ))
        }
        None => Error::usage("which run? pass RUN").with_hint(usage(ctx)),
    }
}
