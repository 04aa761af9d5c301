//! Answering at a terminal (SPEC §5.2): which item a person is asked about, the prompt for
//! it, and what leaving a prompt means. It turns what the person chose into a `Resolution`;
//! it never records one and never decides what happens to the run next (`advance` does).

use anyhow::Result;

use super::view::{describe, plan_of, question_of, warn_if_changed};
use crate::commands::Ctx;
use crate::domain::{CallRecord, ItemKind, Resolution, Via};
use crate::error::{fail, Error, Kind};
use crate::output::format;
use crate::store::{Run, Store};
use crate::tools::ask_user::{self, Question};
use crate::ui;
use serde_json::Value;

/// What a person did at a prompt.
pub enum Prompted {
    Resolved(Resolution),
    /// Esc, `q` or Ctrl-C: nothing is recorded and the item still waits.
    Left,
    /// "Leave it for later" (an approval): nothing is recorded, the item still waits, and
    /// this sitting stops prompting.
    Later,
}

/// Prompts for one pending item of `run`, resolving it as `by`.
pub fn prompt(ctx: &Ctx, run: &Run, call: &CallRecord, by: &str) -> Result<Prompted> {
    let resolution =
        |resume_data: serde_json::Value, result: Option<serde_json::Value>| Resolution {
            resume_data,
            result,
            by: by.to_string(),
            via: Via::Prompt,
        };
    let chosen = match call.kind() {
        ItemKind::Question => ask_question(&question_of(call)?)?
            .map(|data| resolution(data.clone(), Some(ask_user::result(&data)))),
        ItemKind::Plan => {
            let plan = plan_of(call)?;
            warn_if_changed(ctx, run, &plan);
            ui::review(&plan)?.map(|d| resolution(d.resume_data(&plan), Some(d.result(&plan))))
        }
        ItemKind::Approval => match ui::approve(&call.call_id, &call.tool_name, &call.args)? {
            Some(ui::Chosen::Decided(d)) => Some(resolution(d.resume_data(), d.result())),
            Some(ui::Chosen::Later) => return Ok(Prompted::Later),
            None => None,
        },
        ItemKind::Other => {
            return fail(cannot_prompt(
                ctx,
                &call.run_id,
                &call.call_id,
                ItemKind::Other,
            ))
        }
    };
    Ok(chosen.map_or(Prompted::Left, Prompted::Resolved))
}

/// Asks a question at the terminal; the answer checked against it (SPEC §5.4) as resume
/// data, or `None` when the person left.
pub fn ask_question(question: &Question) -> Result<Option<Value>> {
    match ui::ask(question)? {
        Some(answer) => Ok(Some(
            question.check_answer(&answer).map_err(Error::invalid)?,
        )),
        None => Ok(None),
    }
}

/// An item no prompt can answer (a server's custom suspension wants JSON of its own shape):
/// the command that answers it, and a stop.
pub fn cannot_prompt(ctx: &Ctx, run_id: &str, call_id: &str, kind: ItemKind) -> Error {
    Error::usage(format!(
        "tool call {} of run {run_id} is {} item, which cannot be answered at a prompt",
        format::shell_quote(call_id),
        article(kind)
    ))
    .with_hint(
        format!(
            "answer it with: {} {} {} {} {}",
            ctx.program(),
            kind.command(),
            format::shell_quote(run_id),
            format::flag("--tool-call", call_id),
            if kind == ItemKind::Other {
                "--json <value>"
            } else {
                ""
            }
        )
        .trim_end()
        .to_string(),
    )
}

/// `a question`, `an approval`: the kind with its article.
pub fn article(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Question => "a question",
        ItemKind::Plan => "a plan",
        ItemKind::Approval => "an approval",
        ItemKind::Other => "an `other`",
    }
}

/// The pending item of `kind` (of one run, or of all) to prompt for: the only one, or the one
/// the person picks; `None` when there is none. Leaving the picker is an interruption.
pub fn choose(
    store: &dyn Store,
    run_id: Option<&str>,
    kind: ItemKind,
) -> Result<Option<CallRecord>> {
    let mut items: Vec<CallRecord> = store
        .pending(run_id)?
        .into_iter()
        .map(|p| p.call)
        .filter(|c| c.kind() == kind)
        .collect();
    if items.len() <= 1 {
        return Ok(items.pop());
    }
    let lines: Vec<String> = items
        .iter()
        .map(|c| format!("{}  {}", c.run_id, describe(c)))
        .collect();
    let what = match kind {
        ItemKind::Question => "Which question?",
        ItemKind::Plan => "Which plan?",
        ItemKind::Approval => "Which tool call?",
        ItemKind::Other => "Which item?",
    };
    match ui::pick(what, &lines)? {
        Some(i) => Ok(Some(items.swap_remove(i))),
        None => fail(Error::new(
            Kind::Interrupted,
            "interrupted; nothing recorded",
        )),
    }
}

/// The person left the prompt for `call`: nothing was recorded for it and it still waits;
/// `recorded` are the items recorded earlier in the same sitting.
pub fn interrupted(ctx: &Ctx, call: &CallRecord, recorded: &[String]) -> Error {
    left(ctx, &call.run_id, &call.call_id, call.kind(), recorded)
}

/// `interrupted` for any item, local or a server's.
pub fn left(ctx: &Ctx, run_id: &str, call_id: &str, kind: ItemKind, recorded: &[String]) -> Error {
    let kept = if recorded.is_empty() {
        String::new()
    } else {
        format!(" (recorded earlier: {})", recorded.join("; "))
    };
    Error::new(
        Kind::Interrupted,
        format!(
            "interrupted; nothing recorded for tool call {call_id} of run {run_id}, which is still pending{kept}"
        ),
    )
    .with_hint(format!(
        "answer it later with: {} {} {} (or list what waits with: {} pending)",
        ctx.program(),
        kind.commands(),
        format::shell_quote(run_id),
        ctx.program()
    ))
}

/// `answer`/`review` at a terminal with no item named: nothing of this kind waits.
pub fn nothing_pending(kind: ItemKind) -> Error {
    let what = match kind {
        ItemKind::Question => "no question is waiting for an answer",
        ItemKind::Plan => "no plan is waiting for a review",
        ItemKind::Approval => "no tool call is waiting for approval",
        ItemKind::Other => "nothing is waiting for an answer",
    };
    Error::not_found(what).with_hint("list what waits with: mastra-ask pending")
}
