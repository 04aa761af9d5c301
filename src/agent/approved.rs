//! The start of a leg that resumes a step whose calls were approved (SPEC §11): approving
//! only stores the decision, so the driver of the next leg runs each approved tool first,
//! records where it runs before waiting for it and its result once it ends, then appends
//! the step's results in one transaction (the same results a resolution appends when no
//! tool waits), all before the model is called.
//!
//! A tool that a driver started and then died with is found by its recorded process group
//! (`started`): it is waited for (up to its timeout from when it started, then its group is
//! killed) before the tool runs again, and it runs again only when no result was stored;
//! side effects are therefore at least once. Nothing here prints or talks to a model.

use anyhow::Result;
use serde_json::json;

use super::started::{process_of, stored, wait_for_earlier};
use crate::domain::{CallRecord, CallState, Message, Sink, ToolCall, ToolOutcome};
use crate::store::{Lease, Run, Store};
use crate::tools::Toolbox;

/// What became of the run's last step.
pub enum Open {
    /// It was not left open: nothing to do.
    Untouched,
    /// Its approved tools ran and its results are stored.
    Finished,
    /// The run was cancelled or taken over meanwhile.
    LostLease,
}

/// Finishes the run's last step if it was left open (every item resolved, results not yet
/// appended: the history ends with the step's assistant message and its calls).
pub fn finish_step(
    store: &dyn Store,
    run: &Run,
    lease: &Lease,
    toolbox: &Toolbox,
    history: &[Message],
    sink: &mut dyn Sink,
) -> Result<Open> {
    // Only a step whose results were left to this leg ends the history with its calls: the
    // common leg looks no further.
    match history.last() {
        Some(Message::Assistant { tool_calls, .. }) if !tool_calls.is_empty() => {}
        _ => return Ok(Open::Untouched),
    }
    let messages = history.len();
    let calls = store.calls(&run.id)?;
    let Some(step) = calls.iter().map(|c| c.step).max() else {
        return Ok(Open::Untouched);
    };
    // The step's assistant message is the last message: no result follows it yet.
    if usize::try_from(step + 1).ok() != Some(messages) {
        return Ok(Open::Untouched);
    }
    let calls: Vec<CallRecord> = calls.into_iter().filter(|c| c.step == step).collect();
    if !calls
        .iter()
        .all(|c| matches!(c.state, CallState::Done | CallState::Resolved))
    {
        return Ok(Open::Untouched);
    }
    for call in calls.iter().filter(|c| c.waits_to_run()) {
        if !run_approved(store, run, lease, toolbox, call)? {
            return Ok(Open::LostLease);
        }
    }
    let Some(events) = store.finish_step(&run.id, lease, step)? else {
        return Ok(Open::LostLease);
    };
    for e in &events {
        sink.event(&run.id, &e.event);
    }
    Ok(Open::Finished)
}

/// Runs one approved call's tool and stores its result; false when the lease was lost.
fn run_approved(
    store: &dyn Store,
    run: &Run,
    lease: &Lease,
    toolbox: &Toolbox,
    record: &CallRecord,
) -> Result<bool> {
    let call = ToolCall {
        id: record.call_id.clone(),
        name: record.tool_name.clone(),
        args: record.args.clone(),
        invalid_args: None,
    };
    let outcome = match toolbox.command(&call.name) {
        Some(tool) => {
            if let Some(earlier) = &record.process {
                wait_for_earlier(earlier, tool.timeout());
            }
            let mut recorded: Result<bool> = Ok(true);
            let outcome = toolbox.run(tool, &call, &mut |group| {
                let process = process_of(group);
                recorded = store
                    .start_tool(&run.id, lease, &call.id, &process)
                    .map_err(Into::into);
                matches!(recorded, Ok(true))
            });
            if !recorded? {
                return Ok(false);
            }
            outcome
        }
        // The stored agent has no such command tool (it was edited by hand).
        None => ToolOutcome::Error(json!({
            "name": "ToolNotFoundError",
            "message": format!("Tool \"{}\" is not a command tool of this agent", call.name),
        })),
    };
    let (result, error) = stored(outcome);
    Ok(store.finish_tool(&run.id, lease, &call.id, &result, error.as_ref())?)
}
