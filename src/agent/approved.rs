//! The start of a leg that resumes a step whose calls were approved (SPEC §11): approving
//! only stores the decision, so the driver of the next leg runs each approved tool first,
//! records where it runs before waiting for it and its result once it ends, then appends
//! the step's results in one transaction (the same results a resolution appends when no
//! tool waits), all before the model is called.
//!
//! A tool that a driver started and then died with is found by its recorded process group:
//! it is waited for (up to its timeout from when it started, then its group is killed)
//! before the tool runs again, and it runs again only when no result was stored; side
//! effects are therefore at least once. Nothing here prints or talks to a model.

use std::time::Duration;

use anyhow::Result;
use serde_json::{json, Value};

use super::step::error_text;
use crate::domain::{CallRecord, CallState, Message, Sink, ToolCall, ToolOutcome, ToolProcess};
use crate::store::{now_ms, Lease, Run, Store};
use crate::sys::group::Recorded;
use crate::tools::Toolbox;

/// What became of the run's last step.
pub enum Open {
    /// It was not left open: nothing to do.
    None,
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
        _ => return Ok(Open::None),
    }
    let messages = history.len();
    let calls = store.calls(&run.id)?;
    let Some(step) = calls.iter().map(|c| c.step).max() else {
        return Ok(Open::None);
    };
    // The step's assistant message is the last message: no result follows it yet.
    if usize::try_from(step + 1).ok() != Some(messages) {
        return Ok(Open::None);
    }
    let calls: Vec<CallRecord> = calls.into_iter().filter(|c| c.step == step).collect();
    if !calls
        .iter()
        .all(|c| matches!(c.state, CallState::Done | CallState::Resolved))
    {
        return Ok(Open::None);
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
                let process = ToolProcess {
                    pgid: group.pgid,
                    leader_start: group.leader_start,
                    host: crate::sys::host_id().to_string(),
                    started_at: now_ms(),
                };
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
    let (result, error): (Value, Option<Value>) = match outcome {
        ToolOutcome::Result(r) => (r, None),
        ToolOutcome::Error(e) => (Value::String(error_text(&e)), Some(e)),
        ToolOutcome::Suspend { .. } | ToolOutcome::Approval => {
            let e =
                json!({"name": "ToolExecutionError", "message": "the tool asked to wait again"});
            (Value::String(error_text(&e)), Some(e))
        }
    };
    Ok(store.finish_tool(&run.id, lease, &call.id, &result, error.as_ref())?)
}

/// Waits until a copy of the tool that an earlier driver started has ended: while its
/// process group lives, up to its timeout from when it started; past that the group is
/// killed. A group on another host cannot be seen from here: its timeout is waited out.
fn wait_for_earlier(earlier: &ToolProcess, timeout: Duration) {
    let group = Recorded {
        pgid: earlier.pgid,
        leader_start: earlier.leader_start,
    };
    let deadline = earlier
        .started_at
        .saturating_add(i64::try_from(timeout.as_millis()).unwrap_or(i64::MAX));
    let here = earlier.host == crate::sys::host_id();
    let mut killed_at = None;
    loop {
        let now = now_ms();
        let lives = if here { group.lives() } else { now < deadline };
        if !lives {
            return;
        }
        if now >= deadline {
            match killed_at {
                None => {
                    group.kill();
                    killed_at = Some(now);
                }
                // Killed and still there (a process in uninterruptible sleep): give up on it.
                Some(at) if now - at > 10_000 => return,
                Some(_) => {}
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
