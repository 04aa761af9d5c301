//! `ask` and `plan`: one-step runs for shell scripts, on the same machinery as agent runs
//! (same store, `pending`, `answer`, `review`). They have no model: the run suspends on its
//! one item at once, and resolving the item completes it.

use anyhow::Result;
use serde_json::{json, Value};

use super::start::{self, Started};
use super::{flow, Ctx};
use crate::agent::AgentDef;
use crate::cli::WaitFlags;
use crate::domain::{CallState, RunStatus, SUBMIT_PLAN};
use crate::exit::Exit;
use crate::providers::{ModelCall, NoModel, Response, NO_MODEL};
use crate::store::{Run, Store};

/// What a one-step run asks for.
pub struct OneShot {
    /// `ask` or `plan`: the run's agent id.
    pub kind: &'static str,
    pub tool: &'static str,
    pub prompt: String,
    pub args: Value,
    pub cwd: String,
}

pub fn is_plan_run(run: &Run) -> bool {
    run.agent_id == "plan" && run.agent["model"] == NO_MODEL
}

/// Starts the run; without `--wait` prints its id and exits 75, with it blocks until the
/// item is resolved and prints the outcome.
pub fn start(ctx: &Ctx, shot: OneShot, flags: &WaitFlags) -> Result<Exit> {
    let agent = AgentDef {
        id: shot.kind.into(),
        name: None,
        instructions: String::new(),
        model: NO_MODEL.into(),
        tools: vec![shot.tool.into()],
        max_steps: 1,
    };
    let provider = NoModel {
        first: Some(Response {
            text: None,
            calls: vec![ModelCall {
                id: None,
                name: shot.tool.into(),
                args: Ok(shot.args),
            }],
            usage: Default::default(),
        }),
    };
    // At a terminal the person answers right here, so the outcome is printed as with --wait.
    let flags = &WaitFlags {
        wait: flags.wait || ctx.interactive(),
        ..flags.clone()
    };
    let store = ctx.create_store()?;
    let (run_id, started) = start::start(
        ctx,
        store.as_ref(),
        &agent,
        &shot.cwd,
        &shot.prompt,
        &provider,
        flags,
    )?;
    match started {
        Started::Ended(run) => outcome(ctx, store.as_ref(), &run),
        Started::Leg(status) => {
            if !ctx.out.is_json() && status == RunStatus::Suspended {
                ctx.out.line(&run_id);
            }
            flow::report(ctx, store.as_ref(), &run_id, status, true)
        }
    }
}

/// Prints a finished one-step run's outcome and returns its exit code: the answer (one
/// label per line), nothing for a plan (the code says it: 0 approved, 5 rejected).
pub fn outcome(ctx: &Ctx, store: &dyn Store, run: &Run) -> Result<Exit> {
    let item = store
        .calls(&run.id)?
        .into_iter()
        .find(|c| c.state == CallState::Resolved);
    if run.status != RunStatus::Completed || item.is_none() {
        return flow::report(ctx, store, &run.id, run.status, false);
    }
    let item = item.expect("checked above");
    let answer = item.resume_data.clone().unwrap_or(Value::Null);
    if ctx.out.is_json() {
        ctx.out
            .json_line(&json!({"runId": run.id, "toolCallId": item.call_id, "answer": answer}));
    } else if item.tool_name != SUBMIT_PLAN {
        match &answer {
            Value::Array(labels) => labels
                .iter()
                .for_each(|l| ctx.out.line(l.as_str().unwrap_or_default())),
            other => ctx.out.line(other.as_str().unwrap_or_default()),
        }
    }
    Ok(if is_rejected(&answer) {
        Exit::Rejected
    } else {
        Exit::Success
    })
}

fn is_rejected(resume_data: &Value) -> bool {
    resume_data["action"] == "rejected"
}
