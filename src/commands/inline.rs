//! Answering at a terminal, in the same process (SPEC §5.2).
//!
//! When a person is at the terminal (`Ctx::interactive`), a run that suspends is not left
//! waiting: each pending item is prompted for (`ui`), recorded with `via = prompt`, and the
//! run driven on, until it ends or the person quits. Quitting (Esc, Ctrl-C) records nothing
//! for the item, which stays pending, and exits 130. This module decides that flow; it draws
//! no prompt itself, and it is never reached without a terminal, so scripts see no change.

use anyhow::Result;

use super::flow::{report, resolve_and_continue, resolve_item, Outcome};
use super::items::{plan_of, question_of};
use super::{pending_item, Ctx};
use crate::domain::{CallRecord, Resolution, RunStatus, Via, ASK_USER};
use crate::error::{fail, Error, Kind};
use crate::exit::Exit;
use crate::store::Store;
use crate::tools::ask_user;
use crate::ui;

/// Prompts for the pending items of the suspended run `run_id`, oldest first, resolving each
/// as `by` and driving the legs they resume, until the run is no longer suspended or the
/// person quits.
pub fn settle(ctx: &Ctx, store: &dyn Store, run_id: &str, by: &str) -> Result<Exit> {
    loop {
        let Some(item) = store.pending(Some(run_id))?.into_iter().next() else {
            // Resolved or closed meanwhile by another process.
            return match store.run(run_id)?.map(|r| r.status) {
                Some(status) if status != RunStatus::Suspended => {
                    report(ctx, store, run_id, status, false)
                }
                _ => Ok(Exit::Suspended),
            };
        };
        let run = store
            .run(run_id)?
            .ok_or_else(|| Error::not_found(format!("no run {run_id}")))?;
        let Some(resolution) = prompt(&item.call, by)? else {
            return fail(interrupted(ctx, &item.call));
        };
        match resolve_item(ctx, store, &run, &item.call, &resolution, false)? {
            Outcome::StillPending(_) | Outcome::Drove(RunStatus::Suspended) => {}
            Outcome::Drove(status) => return report(ctx, store, run_id, status, false),
            // A waiter (maybe this very process, further up) drives on.
            Outcome::Handed => return Ok(Exit::Success),
        }
    }
}

/// `answer`/`review` at a terminal without an answer or decision: the item to resolve (of
/// `run_input`, else chosen among all pending items of this kind), prompted for and resolved,
/// then the run settled like any other.
pub fn resolve_chosen(
    ctx: &Ctx,
    run_input: Option<&str>,
    tool_call: Option<&str>,
    tool: &str,
    by: &str,
) -> Result<Exit> {
    let (store, run, item) = match run_input {
        Some(input) => {
            let (store, run) = ctx.store_and_run(input)?;
            let item = match tool_call {
                Some(_) => pending_item(ctx, store.as_ref(), &run, tool, tool_call)?,
                None => match choose(store.as_ref(), Some(&run.id), tool)? {
                    Some(item) => item,
                    // Let `pending_item` say why nothing of this kind waits.
                    None => pending_item(ctx, store.as_ref(), &run, tool, None)?,
                },
            };
            (store, run, item)
        }
        None => {
            let Some(store) = ctx.existing_store()? else {
                return fail(nothing_pending(tool));
            };
            let Some(item) = choose(store.as_ref(), None, tool)? else {
                return fail(nothing_pending(tool));
            };
            let run = super::find_run(store.as_ref(), &item.run_id)?;
            (store, run, item)
        }
    };
    if tool != ASK_USER {
        super::review::warn_if_changed(ctx, &run, &plan_of(&item)?);
    }
    let Some(resolution) = prompt(&item, by)? else {
        return fail(interrupted(ctx, &item));
    };
    resolve_and_continue(ctx, store.as_ref(), &run, &item, &resolution, false)
}

/// The pending item of kind `tool` (of one run, or of all): the only one, or the one the
/// person picks; `None` when there is none. Quitting the choice is an interruption.
fn choose(store: &dyn Store, run_id: Option<&str>, tool: &str) -> Result<Option<CallRecord>> {
    let mut items: Vec<CallRecord> = store
        .pending(run_id)?
        .into_iter()
        .map(|p| p.call)
        .filter(|c| c.tool_name == tool)
        .collect();
    if items.len() <= 1 {
        return Ok(items.pop());
    }
    let lines: Vec<String> = items
        .iter()
        .map(|c| format!("{}  {}", c.run_id, super::items::describe(c)))
        .collect();
    let what = if tool == ASK_USER {
        "Which question?"
    } else {
        "Which plan?"
    };
    match ui::pick(what, &lines)? {
        Some(i) => Ok(Some(items.swap_remove(i))),
        None => fail(Error::new(
            Kind::Interrupted,
            "interrupted; nothing recorded",
        )),
    }
}

/// Prompts for one pending item: the resolution the person chose, or `None` if they quit.
fn prompt(call: &CallRecord, by: &str) -> Result<Option<Resolution>> {
    let resolution = |resume_data: serde_json::Value, result| Resolution {
        resume_data,
        result,
        by: by.to_string(),
        via: Via::Prompt,
    };
    if call.is_question() {
        let question = question_of(call)?;
        let Some(answer) = ui::ask(&question)? else {
            return Ok(None);
        };
        let resume_data = question.check_answer(&answer).map_err(Error::invalid)?;
        return Ok(Some(resolution(
            resume_data.clone(),
            ask_user::result(&resume_data),
        )));
    }
    let plan = plan_of(call)?;
    Ok(ui::review(&plan)?.map(|d| resolution(d.resume_data(&plan), d.result(&plan))))
}

/// The person quit a prompt: nothing was recorded and the item still waits.
fn interrupted(ctx: &Ctx, call: &CallRecord) -> Error {
    let command = if call.is_question() {
        "answer"
    } else {
        "review"
    };
    Error::new(
        Kind::Interrupted,
        format!(
            "interrupted; nothing recorded: tool call {} of run {} is still pending",
            call.call_id, call.run_id
        ),
    )
    .with_hint(format!(
        "answer it later with: {} {command} {} (or list what waits with: {} pending)",
        ctx.program(),
        call.run_id,
        ctx.program()
    ))
}

fn nothing_pending(tool: &str) -> Error {
    let what = if tool == ASK_USER {
        "no question is waiting for an answer"
    } else {
        "no plan is waiting for a review"
    };
    Error::not_found(what).with_hint("list what waits with: mastra-ask pending")
}
