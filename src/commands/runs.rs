//! `runs`: the runs in the store, newest first.

use anyhow::Result;

use crate::cli::{RunsArgs, StatusArg};
use crate::context::Ctx;
use crate::domain::RunStatus;
use crate::exit::Exit;
use crate::output::{format, sanitize};
use crate::runner::end::summary;
use crate::store::RunFilter;

pub fn status_of(s: StatusArg) -> RunStatus {
    match s {
        StatusArg::Running => RunStatus::Running,
        StatusArg::Suspended => RunStatus::Suspended,
        StatusArg::Completed => RunStatus::Completed,
        StatusArg::Failed => RunStatus::Failed,
        StatusArg::Cancelled => RunStatus::Cancelled,
    }
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
                && crate::runner::in_full::plan_rejected(run, &store.calls(&run.id)?);
            ctx.out.line(&format!(
                "{}  {:<10} {:<20} {}",
                run.id,
                if rejected {
                    "rejected".to_string()
                } else {
                    crate::runner::in_full::status_words(run)
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
