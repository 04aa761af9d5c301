//! What a waiter prints when the run it waited for completes (SPEC §5.3): for a one-step
//! `ask` run, the answer (one label per line); for a `plan` run, nothing when approved and
//! the reviewer's feedback when rejected (the exit code is the decision); in JSON mode a last
//! line `{"runId","toolCallId","answer"}`. An agent run's waiter prints no outcome of its own.

use anyhow::Result;
use serde_json::{json, Value};

use crate::agent::AgentDef;
use crate::commands::Ctx;
use crate::domain::{CallState, ItemKind};
use crate::exit::Exit;
use crate::providers::NO_MODEL;
use crate::store::{Run, Store};

/// Whether the run is a one-step `ask` or `plan` run (no model).
pub fn is_one_shot(run: &Run) -> bool {
    matches!(run.agent_id.as_str(), "ask" | "plan")
        && AgentDef::of_run(run).is_ok_and(|a| a.model == NO_MODEL)
}

/// Prints a completed run's outcome for its waiter; the exit code it stands for.
pub fn print(ctx: &Ctx, store: &dyn Store, run: &Run) -> Result<Exit> {
    if !is_one_shot(run) {
        return Ok(Exit::Success);
    }
    let Some(item) = store
        .calls(&run.id)?
        .into_iter()
        .find(|c| c.state == CallState::Resolved)
    else {
        return Ok(Exit::Success);
    };
    let answer = item.resume_data.clone().unwrap_or(Value::Null);
    let rejected = answer["action"] == "rejected";
    if ctx.out.is_json() {
        ctx.out
            .json_line(&json!({"runId": run.id, "toolCallId": item.call_id, "answer": answer}));
    } else {
        match (item.kind(), &answer) {
            (ItemKind::Question, Value::Array(labels)) => labels
                .iter()
                .for_each(|l| ctx.out.line(l.as_str().unwrap_or_default())),
            (ItemKind::Question, other) => ctx.out.line(other.as_str().unwrap_or_default()),
            (ItemKind::Plan, _) => {
                if let Some(feedback) = answer["feedback"].as_str().filter(|_| rejected) {
                    ctx.out.line(feedback);
                }
            }
            // One-step runs ask a question or a plan, nothing else.
            (ItemKind::Approval | ItemKind::Other, _) => {}
        }
    }
    Ok(if rejected {
        Exit::Rejected
    } else {
        Exit::Success
    })
}
