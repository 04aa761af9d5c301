//! `answer`: answer an ask_user question, then drive the run on when that resumes it.

use anyhow::Result;
use serde_json::{json, Value};

use super::flow::resolve_and_continue;
use super::items::question_of;
use super::{inline, parse_json_flag, read_stdin, target, who, Ctx};
use crate::cli::AnswerArgs;
use crate::domain::{Resolution, Via, ASK_USER};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::tools::ask_user;

pub fn run(ctx: &Ctx, args: AnswerArgs) -> Result<Exit> {
    let (given, via) = match (&args.answer, &args.multi, &args.json) {
        (Some(a), _, _) if a == "-" => (json!(read_stdin("the answer")?), Via::Flag),
        (Some(a), _, _) => (json!(a), Via::Flag),
        (_, Some(labels), _) => (json!(labels), Via::Flag),
        (_, _, Some(j)) => (parse_json_flag(j)?, Via::Json),
        _ if ctx.interactive() => return ask_here(ctx, &args),
        _ => return fail(missing_answer()),
    };
    let (store, run, item) = target(
        ctx,
        args.run.as_deref(),
        ASK_USER,
        args.tool_call.as_deref(),
    )?;
    let question = question_of(&item)?;
    if args.multi.is_some() && question.mode != ask_user::Mode::Multi {
        return fail(Error::usage(format!(
            "--multi is for multi-select questions; tool call {} takes one answer: pass it as ANSWER",
            item.call_id
        )));
    }
    let resume_data: Value = question.check_answer(&given).map_err(Error::invalid)?;
    let resolution = Resolution {
        result: ask_user::result(&resume_data),
        resume_data,
        by: who(args.as_),
        via,
    };
    resolve_and_continue(
        ctx,
        store.as_ref(),
        &run,
        &item,
        &resolution,
        args.no_resume,
    )
}

/// No answer given, at a terminal: prompt for it (choosing the question when RUN is absent).
fn ask_here(ctx: &Ctx, args: &AnswerArgs) -> Result<Exit> {
    let (run, tool_call) = (args.run.as_deref(), args.tool_call.as_deref());
    inline::resolve_chosen(ctx, run, tool_call, ASK_USER, &who(args.as_.clone()))
}

fn missing_answer() -> Error {
    Error::usage("no answer given").with_hint(
        "pass ANSWER (free text or a label; - reads stdin), --multi LABEL... or --json VALUE",
    )
}
