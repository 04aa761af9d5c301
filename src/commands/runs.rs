//! `runs`: the runs in the store, newest first.

use anyhow::Result;
use serde_json::json;

use super::Ctx;
use crate::cli::{RunsArgs, StatusArg};
use crate::domain::RunStatus;
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
            ctx.out.line(&format!(
                "{}  {:<10} {:<20} {}",
                run.id,
                run.status.as_str(),
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
