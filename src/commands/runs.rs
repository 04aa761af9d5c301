//! `runs`: the runs in the store, newest first.

use anyhow::Result;
use serde_json::json;

use super::Ctx;
use crate::cli::{RunsArgs, StatusArg};
use crate::domain::{CallRecord, RunStatus};
use crate::exit::Exit;
use crate::output::{format, sanitize};
use crate::store::{Run, RunFilter};

pub fn status_of(s: StatusArg) -> RunStatus {
    match s {
        StatusArg::Running => RunStatus::Running,
        StatusArg::Suspended => RunStatus::Suspended,
        StatusArg::Completed => RunStatus::Completed,
        StatusArg::Failed => RunStatus::Failed,
        StatusArg::Cancelled => RunStatus::Cancelled,
    }
}

/// The fields every run listing shows.
pub fn summary(run: &Run) -> serde_json::Value {
    json!({
        "runId": run.id,
        "agentId": run.agent_id,
        "status": run.status.as_str(),
        "createdAt": format::time(run.created_at),
        "updatedAt": format::time(run.updated_at),
        "model": run.agent["model"],
        "finishReason": run.finish_reason,
    })
}

/// Whether a run is a `plan` run that completed with its plan rejected (`plan --wait` exits
/// 5 for it), which text listings show as rejected rather than a bare completed.
pub fn plan_rejected(run: &Run, calls: &[CallRecord]) -> bool {
    run.status == RunStatus::Completed
        && super::outcome::is_one_shot(run)
        && calls.iter().any(|c| {
            c.resume_data
                .as_ref()
                .is_some_and(|d| d["action"] == "rejected")
        })
}

pub fn run(ctx: &Ctx, args: RunsArgs) -> Result<Exit> {
    let Some(store) = ctx.existing_store()? else {
        return Ok(Exit::Success);
    };
    let runs = store.list_runs(&RunFilter {
        status: args.status.map(status_of),
        limit: args.limit,
    })?;
    for run in &runs {
        if ctx.out.is_json() {
            ctx.out.json_line(&summary(run));
        } else {
            let rejected = run.agent_id == "plan"
                && run.status == RunStatus::Completed
                && plan_rejected(run, &store.calls(&run.id)?);
            ctx.out.line(&format!(
                "{}  {:<10} {:<20} {}",
                run.id,
                if rejected {
                    "rejected"
                } else {
                    run.status.as_str()
                },
                sanitize::one_line(&run.agent_id),
                format::time(run.created_at)
            ));
        }
    }
    if runs.is_empty() {
        ctx.out.info("no runs");
    }
    Ok(Exit::Success)
}
