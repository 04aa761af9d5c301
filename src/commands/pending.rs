//! `pending`: what waits for a person, oldest first, with every command that resolves it.

use anyhow::Result;

use super::items::{commands_for, describe, item_json};
use super::target::find_run;
use super::Ctx;
use crate::cli::PendingArgs;
use crate::exit::Exit;
use crate::output::format;
use crate::store::now_ms;

pub fn run(ctx: &Ctx, args: PendingArgs) -> Result<Exit> {
    let Some(store) = ctx.existing_store()? else {
        return Ok(Exit::Success);
    };
    let run_id = match &args.run {
        Some(r) => Some(find_run(store.as_ref(), r)?.id),
        None => None,
    };
    let items = store.pending(run_id.as_deref())?;
    let now = now_ms();
    for item in &items {
        let call = &item.call;
        if args.quiet {
            ctx.out.line(&format!(
                "{} {} {}",
                format::shell_quote(&call.run_id),
                format::shell_quote(&call.call_id),
                call.kind().noun()
            ));
        } else if ctx.out.is_json() {
            ctx.out.json_line(&item_json(ctx, item));
        } else {
            ctx.out.line(&format!(
                "{}  {}  {} ago",
                call.run_id,
                describe(call),
                format::age(call.created_at, now)
            ));
            for command in commands_for(ctx, item) {
                ctx.out.line(&format!("    {command}"));
            }
        }
    }
    if items.is_empty() {
        ctx.out.info("nothing is pending");
    }
    Ok(Exit::Success)
}
