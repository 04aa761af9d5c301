//! Tasks (SPEC §16, 2025-11-25 sessions only): a task-augmented `tools/call` of a
//! human-input tool returns at once with a task whose id is its run's; the task's state is
//! the run's, read from the store each time (so tasks survive a restart of the server):
//! `working` while a person decides (`input_required` while a form of this client asks for
//! it: the server's `handle`), `completed` once decided, `failed` for an expired item
//! or an error result, `cancelled` for a cancelled run. `tasks/result` waits for the
//! decision; `tasks/cancel` cancels the run. Nothing is kept in memory.

use serde_json::{json, Value};

use super::calls;
use crate::domain::{CallRecord, CallState, RunStatus};
use crate::output::format;
use crate::store::Run;

/// How often a client should look again, in ms.
const POLL_INTERVAL: u64 = 5000;

/// The key of the `_meta` that ties a result to its task.
pub const RELATED: &str = "io.modelcontextprotocol/related-task";

/// The server's `tasks` capability.
pub fn capability() -> Value {
    json!({"requests": {"tools": {"call": {}}}, "cancel": {}})
}

/// A task's status and what it says, from its run and item.
pub fn status(run: &Run, item: Option<&CallRecord>) -> (&'static str, String) {
    let settled = calls::settled(run.status, item);
    match (run.status, settled) {
        (RunStatus::Cancelled, _) => ("cancelled", "the run was cancelled".into()),
        (_, None) => ("working", "waiting for a person to decide".into()),
        (_, Some(_)) if item.is_some_and(|c| c.state == CallState::Expired) => {
            ("failed", "nobody decided before the deadline".into())
        }
        (_, Some(r)) if r["isError"] == json!(true) => {
            ("failed", "the call ended in an error".into())
        }
        (_, Some(_)) => ("completed", "decided".into()),
    }
}

/// The task of `run`: `said` names how to answer it while it is working.
pub fn task(run: &Run, item: Option<&CallRecord>, said: Option<&str>) -> Value {
    let (status, mut message) = status(run, item);
    if let (Some(said), "working") = (said, status) {
        message = said.to_string();
    }
    json!({
        "taskId": run.id,
        "status": status,
        "statusMessage": message,
        "createdAt": format::time(run.created_at),
        "lastUpdatedAt": format::time(run.updated_at),
        "ttl": null,
        "pollInterval": POLL_INTERVAL,
    })
}

/// A result tied to its task.
pub fn related(mut result: Value, task_id: &str) -> Value {
    result["_meta"] = json!({ RELATED: {"taskId": task_id} });
    result
}
