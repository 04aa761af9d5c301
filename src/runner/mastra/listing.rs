//! What a Mastra server lists, and what this store's ledger knows beside it (SPEC §12):
//! every suspended call (of all agents, or one), the listed run a prefix names, and why a
//! run or a call is not listed. Mastra lists only what is suspended now; what the ledger
//! remembers tells a run this store started or answered (exit 4) from one nobody knows
//! (exit 3), and which agent a run of this store belongs to (so that a lookup lists that
//! agent only instead of every one).

use std::collections::HashMap;

use anyhow::Result;

use super::Server;
use crate::error::{fail, Error};
use crate::items::{Item, ItemView};
use crate::output::format;
use crate::remote::SuspendedCall;
use crate::runner::target::check_prefix;
use crate::store::{Conflict, LedgerEntry, LedgerKind, Store};

/// Every suspended call of the server's agents (or of `agent`), oldest first, within the
/// caps of one listing.
pub fn calls(server: &Server, agent: Option<&str>) -> Result<Vec<SuspendedCall>> {
    let mut calls = server.client.listing(agent)?;
    let at = |c: &SuspendedCall| c.suspended_at.parse::<jiff::Timestamp>().ok();
    calls.sort_by_key(at);
    Ok(calls)
}

/// How many calls of each run are listed.
fn per_run(calls: &[SuspendedCall]) -> HashMap<&str, usize> {
    let mut per_run: HashMap<&str, usize> = HashMap::new();
    for c in calls {
        *per_run.entry(c.run_id.as_str()).or_default() += 1;
    }
    per_run
}

/// The calls as shown, each knowing how many calls of its run are listed.
pub fn shown(calls: &[SuspendedCall]) -> Vec<ItemView<'_>> {
    let per_run = per_run(calls);
    calls
        .iter()
        .map(|c| ItemView::remote(c, per_run[c.run_id.as_str()]))
        .collect()
}

/// The calls as items.
pub fn items(calls: Vec<SuspendedCall>) -> Vec<Item> {
    let counts: HashMap<String, usize> = per_run(&calls)
        .into_iter()
        .map(|(run, n)| (run.to_string(), n))
        .collect();
    calls
        .into_iter()
        .map(|call| Item::Server {
            pending_in_run: counts[&call.run_id],
            call: Box::new(call),
        })
        .collect()
}

/// The listed run whose id is `input` or starts with it (server ids are verbatim); None
/// when no listed run does, a conflict when several do.
pub fn listed_run(calls: &[SuspendedCall], input: &str) -> Result<Option<String>> {
    check_prefix(input)?;
    if calls.iter().any(|c| c.run_id == input) {
        return Ok(Some(input.to_string()));
    }
    let mut ids: Vec<&str> = calls
        .iter()
        .map(|c| c.run_id.as_str())
        .filter(|id| id.starts_with(input))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    match ids.as_slice() {
        [id] => Ok(Some(id.to_string())),
        [] => Ok(None),
        many => fail(Error::conflict(format!(
            "run id prefix {input} is ambiguous: {}",
            quoted(many)
        ))),
    }
}

fn quoted(ids: &[&str]) -> String {
    ids.iter()
        .take(5)
        .map(|id| format::shell_quote(id))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The agent of the runs of this server that this store started or answered whose ids
/// start with `input`, when that is one agent: a lookup lists its runs only.
pub fn known_agent(
    server: &Server,
    ledger: Option<&dyn Store>,
    input: &str,
) -> Result<Option<String>> {
    let Some(store) = ledger else {
        return Ok(None);
    };
    let entries = store.answers_matching(&server.shown, input, false, 100)?;
    let mut agents: Vec<&str> = entries.iter().map(|e| e.agent_id.as_str()).collect();
    agents.sort_unstable();
    agents.dedup();
    Ok(match agents.as_slice() {
        [agent] => Some(agent.to_string()),
        _ => None,
    })
}

/// Why no listed run is `input` (a full id or a prefix): this store started or answered a
/// run of that id (4, naming who), or the server has no suspended run by that id (3).
pub fn not_listed(server: &Server, ledger: Option<&dyn Store>, input: &str) -> Result<Error> {
    let known = match ledger {
        Some(store) => store.answers_matching(&server.shown, input, false, 100)?,
        None => Vec::new(),
    };
    let mut runs: Vec<&str> = known.iter().map(|e| e.key.run_id.as_str()).collect();
    runs.sort_unstable();
    runs.dedup();
    Ok(match runs.as_slice() {
        [] => Error::not_found(format!(
            "no suspended run {} on {}",
            format::shell_quote(input),
            server.shown
        ))
        .with_hint(format!("list what waits with: {}", server.pending)),
        [run] => {
            let last = known
                .iter()
                .rev()
                .find(|e| e.key.run_id == *run)
                .expect("a run of the entries");
            let run = format::shell_quote(run);
            Error::conflict(match last.key.kind {
                LedgerKind::Start => format!(
                    "run {run} is not suspended on {}: it was started from this store by {}",
                    server.shown, last.by
                ),
                LedgerKind::Answer(kind) => format!(
                    "run {run} is no longer suspended on {}: {} {} was answered by {} from this store",
                    server.shown,
                    kind.noun(),
                    format::shell_quote(&last.key.tool_call_id),
                    last.by
                ),
            })
        }
        many => Error::conflict(format!(
            "run id prefix {} is not listed on {}, and this store started or answered several runs it starts: {}",
            format::shell_quote(input),
            server.shown,
            quoted(many)
        )),
    })
}

/// Why tool call `id` of a listed run is not listed: this store answered it (4), the run
/// waits on another call now (4).
pub fn call_not_listed(
    server: &Server,
    ledger: Option<&dyn Store>,
    run_id: &str,
    id: &str,
    listed: &[Item],
) -> Result<Error> {
    let answered: Vec<LedgerEntry> = match ledger {
        Some(store) => store.answers_of_run(&server.shown, run_id)?,
        None => Vec::new(),
    };
    let waits_on = listed
        .iter()
        .map(|i| format::shell_quote(i.call_id()))
        .collect::<Vec<_>>()
        .join(", ");
    if let Some(entry) = answered.iter().rev().find(|e| e.key.tool_call_id == id) {
        let answered = Conflict::Answered {
            run: run_id.to_string(),
            call: id.to_string(),
            kind: entry.key.kind,
            by: entry.by.clone(),
            state: entry.state,
        };
        return Ok(Error::conflict(answered.to_string()));
    }
    Ok(Error::conflict(format!(
        "tool call {} of run {} is not pending on {}: the run waits on {waits_on}",
        format::shell_quote(id),
        format::shell_quote(run_id),
        server.shown
    )))
}
