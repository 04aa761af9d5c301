//! `prune`: delete finished runs (with their messages, events and items).

use anyhow::Result;
use serde_json::json;

use super::runs::status_of;
use crate::cli::PruneArgs;
use crate::context::Ctx;
use crate::domain::RunStatus;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::store::now_ms;

pub fn run(ctx: &Ctx, args: PruneArgs) -> Result<Exit> {
    let statuses: Vec<RunStatus> = match args.status.map(status_of) {
        Some(s) if !s.is_finished() => {
            return fail(Error::usage(format!(
                "only finished runs are pruned; --status {} is not finished (use completed, failed or cancelled)",
                s.as_str()
            )))
        }
        Some(s) => vec![s],
        None => RunStatus::ALL.into_iter().filter(|s| s.is_finished()).collect(),
    };
    let Some(store) = ctx.existing_store()? else {
        return report(ctx, 0);
    };
    let before = now_ms() - args.older_than.as_millis() as i64;
    let n = store.prune(before, &statuses)?;
    report(ctx, n)
}

fn report(ctx: &Ctx, n: usize) -> Result<Exit> {
    if ctx.out.is_json() {
        ctx.out.json_line(&json!({"pruned": n}));
    } else {
        ctx.out.line(&format!("pruned {n} run(s)"));
    }
    Ok(Exit::Success)
}
