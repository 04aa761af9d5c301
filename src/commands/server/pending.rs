//! `pending --server URL`: every suspended tool call of every agent of the server (or of
//! `--agent ID`, or of `--run RUN`), in the shapes of local items (`items::list`), each with
//! the claim this store's ledger holds on it when that answer's delivery is unknown (who,
//! when, whether its process still runs: `claims`).

use std::collections::HashMap;

use anyhow::Result;

use super::claims;
use super::listing::{self, shown};
use super::Server;
use crate::cli::PendingArgs;
use crate::exit::Exit;
use crate::limits::MAX_LISTING_ITEMS;
use crate::runner::view::{list, view_json};
use crate::store::{now_ms, LedgerEntry};

pub fn run(server: &Server, args: PendingArgs) -> Result<Exit> {
    let ctx = server.ctx;
    let mut items = listing::items(server, args.agent.as_deref())?;
    if let Some(input) = &args.run {
        let run_id = listing::run_of(server, &items, input)?;
        items.retain(|i| i.run_id == run_id);
    }
    let claims = open_claims(server)?;
    let now = now_ms();
    let shown = shown(&items);
    for (item, s) in items.iter().zip(&shown) {
        let claim = claims.get(&(
            item.run_id.clone(),
            item.tool_call_id.clone(),
            item.kind.noun(),
        ));
        if ctx.out.is_json() && !args.quiet {
            let mut line = view_json(ctx, s);
            if let Some(c) = claim {
                line["claim"] = claims::to_json(c, server.deadlines.idle, now);
            }
            ctx.out.json_line(&line);
            continue;
        }
        list(ctx, std::slice::from_ref(s), args.quiet);
        if let (Some(c), false) = (claim, args.quiet) {
            let next = if claims::is_stale(c, server.deadlines.idle, now) {
                "whether it arrived is unknown; the next answer releases it and sends"
            } else {
                "whether it arrived is unknown"
            };
            ctx.out
                .line(&format!("    {}; {next}", claims::describe(c, now)));
        }
    }
    if items.is_empty() {
        list(ctx, &[], args.quiet);
    }
    Ok(Exit::Success)
}

/// This store's claims on the server's calls whose delivery is unknown, by call.
fn open_claims(server: &Server) -> Result<HashMap<(String, String, &'static str), LedgerEntry>> {
    let Some(store) = server.ctx.existing_store()? else {
        return Ok(HashMap::new());
    };
    let entries = store.answers_matching(&server.shown, "", true, MAX_LISTING_ITEMS as i64)?;
    Ok(entries
        .into_iter()
        .map(|e| {
            (
                (
                    e.key.run_id.clone(),
                    e.key.tool_call_id.clone(),
                    e.key.kind.noun(),
                ),
                e,
            )
        })
        .collect())
}
