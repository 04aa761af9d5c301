//! `pending`: what waits for a person, oldest first, with every command that resolves it:
//! in this store, or every suspended call of `--server`'s agents (or of `--agent ID`), each
//! with the claim this store's ledger holds on it when that answer's delivery is unknown
//! (who, when, whether its process still runs).

use anyhow::Result;

use crate::cli::PendingArgs;
use crate::context::Ctx;
use crate::error::fail;
use crate::exit::Exit;
use crate::items::ItemView;
use crate::policy::ItemGate;
use crate::remote::ServerConfig;
use crate::runner::mastra::{claims, listing};
use crate::runner::target::find_run;
use crate::runner::view::{list, view_json, Listing};
use crate::runner::Server;
use crate::store::now_ms;

pub fn run(ctx: &Ctx, args: PendingArgs) -> Result<Exit> {
    if let Some(config) = &ctx.server {
        return on_server(ctx, config, args);
    }
    let Some(store) = ctx.existing_store()? else {
        // No store yet (no file, or a database without the tables): nothing is pending,
        // said as for an empty store.
        list(ctx, &[], args.quiet);
        return Ok(Exit::Success);
    };
    let run_id = match &args.run {
        Some(r) => Some(
            find_run(store.as_ref(), r)
                .map_err(|e| ctx.looked_in(e))?
                .id,
        ),
        None => None,
    };
    // Written as it is read: a long listing is never held whole.
    let mut listing = Listing::new(ctx, args.quiet);
    store.each_pending(run_id.as_deref(), &mut |run| {
        let gates = ItemGate::of_pending(store.as_ref(), &run)?;
        for item in &run {
            listing.push(&ItemView::gated(item, &gates));
        }
        Ok(())
    })?;
    listing.end();
    Ok(Exit::Success)
}

fn on_server(ctx: &Ctx, config: &ServerConfig, args: PendingArgs) -> Result<Exit> {
    let server = Server::connect(ctx, config, None)?;
    let ledger = ctx.store_as_is()?;
    let mut calls = listing::calls(&server, args.agent.as_deref())?;
    if let Some(input) = &args.run {
        let Some(run_id) = listing::listed_run(&calls, input)? else {
            return fail(listing::not_listed(&server, ledger.as_deref(), input)?);
        };
        calls.retain(|c| c.run_id == run_id);
    }
    let claims = claims::open(&server, ledger.as_deref())?;
    let (now, idle) = (now_ms(), server.deadlines.idle);
    let shown = listing::shown(&calls);
    for (call, item) in calls.iter().zip(&shown) {
        let claim = claims.get(&(
            call.run_id.clone(),
            call.tool_call_id.clone(),
            call.kind.noun(),
        ));
        if ctx.out.is_json() && !args.quiet {
            let mut line = view_json(ctx, item);
            if let Some(c) = claim {
                line["claim"] = claims::to_json(c, idle, now);
            }
            ctx.out.json_line(&line);
            continue;
        }
        list(ctx, std::slice::from_ref(item), args.quiet);
        if let (Some(c), false) = (claim, args.quiet) {
            let next = if claims::is_stale(c, idle, now) {
                "whether it arrived is unknown; the next answer releases it and sends"
            } else {
                "whether it arrived is unknown"
            };
            ctx.out
                .line(&format!("    {}; {next}", claims::describe(c, now)));
        }
    }
    if calls.is_empty() {
        list(ctx, &[], args.quiet);
    }
    Ok(Exit::Success)
}
