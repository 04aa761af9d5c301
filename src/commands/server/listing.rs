//! Finding what a command acts on among a server's suspended calls: every listed item (of
//! all agents, or one), the run a prefix names, and the pending item an `answer`, `review`,
//! `approve` or `decline` means. Mastra lists only what is suspended now; what this store's
//! ledger remembers tells an answered call (exit 4) from one nobody knows (exit 3).

use std::collections::HashMap;

use anyhow::Result;

use super::{error, Server};
use crate::domain::ItemKind;
use crate::error::{fail, Error};
use crate::items::{self, ItemView};
use crate::output::format;
use crate::remote::{Client, SuspendedCall};
use crate::runner::prompt as prompting;
use crate::runner::target::check_prefix;
use crate::store::Conflict;
use crate::ui;

/// Every suspended call of the server's agents (or of `agent`), oldest first, within the
/// caps of one listing.
pub fn items(server: &Server, agent: Option<&str>) -> Result<Vec<SuspendedCall>> {
    items_of(&server.client, agent)
}

/// The same, through `client` (one with a hard deadline, for `wait`).
pub fn items_of(client: &Client, agent: Option<&str>) -> Result<Vec<SuspendedCall>> {
    let mut items = client.listing(agent).map_err(error)?;
    let at = |i: &SuspendedCall| i.suspended_at.parse::<jiff::Timestamp>().ok();
    items.sort_by_key(at);
    Ok(items)
}

/// The items as shown, each knowing how many calls of its run are listed.
pub fn shown(items: &[SuspendedCall]) -> Vec<ItemView<'_>> {
    let mut per_run: HashMap<&str, usize> = HashMap::new();
    for i in items {
        *per_run.entry(i.run_id.as_str()).or_default() += 1;
    }
    items
        .iter()
        .map(|i| ItemView::remote(i, per_run[i.run_id.as_str()]))
        .collect()
}

/// The listed run whose id is `input` or starts with it (server ids are verbatim); one that
/// no listed run matches is one this store answered (4) or not found (3).
pub fn run_of(server: &Server, items: &[SuspendedCall], input: &str) -> Result<String> {
    match listed_run(items, input)? {
        Some(id) => Ok(id),
        None => fail(not_listed(server, input)?),
    }
}

/// The listed run whose id is `input` or starts with it; None when no listed run does, a
/// conflict when several do.
pub fn listed_run(items: &[SuspendedCall], input: &str) -> Result<Option<String>> {
    check_prefix(input)?;
    if items.iter().any(|i| i.run_id == input) {
        return Ok(Some(input.to_string()));
    }
    let mut ids: Vec<&str> = items
        .iter()
        .map(|i| i.run_id.as_str())
        .filter(|id| id.starts_with(input))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    match ids.as_slice() {
        [id] => Ok(Some(id.to_string())),
        [] => Ok(None),
        many => fail(Error::conflict(format!(
            "run id prefix {input} is ambiguous: {}",
            many.iter()
                .take(5)
                .map(|id| format::shell_quote(id))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Why no listed run is `input` (a full id or a prefix): this store answered a run of that
/// id before (4, naming who), or the server has no suspended run by that id (3).
fn not_listed(server: &Server, input: &str) -> Result<Error> {
    let answered = match server.ctx.existing_store()? {
        Some(store) => store.answers_matching(&server.shown, input, false, 100)?,
        None => Vec::new(),
    };
    let mut runs: Vec<&str> = answered.iter().map(|e| e.key.run_id.as_str()).collect();
    runs.sort_unstable();
    runs.dedup();
    Ok(match runs.as_slice() {
        [] => Error::not_found(format!(
            "no suspended run {} on {}",
            format::shell_quote(input),
            server.shown
        ))
        .with_hint(format!(
            "list what waits with: {}",
            server.pending_command()
        )),
        [run] => {
            let last = answered
                .iter()
                .rev()
                .find(|e| e.key.run_id == *run)
                .expect("a run of the entries");
            Error::conflict(format!(
                "run {} is no longer suspended on {}: {} {} was answered by {} from this store",
                format::shell_quote(run),
                server.shown,
                last.key.kind.noun(),
                format::shell_quote(&last.key.tool_call_id),
                last.by
            ))
        }
        many => Error::conflict(format!(
            "run id prefix {} is not listed on {}, and this store answered several runs it starts: {}",
            format::shell_quote(input),
            server.shown,
            many.iter()
                .take(5)
                .map(|id| format::shell_quote(id))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    })
}

/// The pending item of the run `input` names that a command for `kinds` acts on: the one
/// named by `tool_call`, else the only one of those kinds.
pub fn find(
    server: &Server,
    input: Option<&str>,
    tool_call: Option<&str>,
    agent: Option<&str>,
    kinds: &[ItemKind],
) -> Result<SuspendedCall> {
    let Some(input) = input else {
        if server.ctx.interactive() && tool_call.is_none() {
            return choose(server, agent, kinds);
        }
        return fail(Error::usage("which run? pass RUN").with_hint(format!(
            "list what waits with: {}",
            server.pending_command()
        )));
    };
    check_prefix(input)?;
    let items = items(server, agent)?;
    let run_id = run_of(server, &items, input)?;
    let mut of_run: Vec<SuspendedCall> = items.into_iter().filter(|i| i.run_id == run_id).collect();
    let wrong_kind = |i: &SuspendedCall| {
        Error::usage(format!(
            "tool call {} of run {} is {} item, not {}",
            format::shell_quote(&i.tool_call_id),
            format::shell_quote(&i.run_id),
            items::of(i.kind).article(),
            kinds
                .iter()
                .map(|k| items::of(*k).article())
                .collect::<Vec<_>>()
                .join(" or ")
        ))
        .with_hint(format!(
            "use: {} {} {}",
            server.ctx.program(),
            items::of(i.kind).command(),
            format::shell_quote(&i.run_id)
        ))
    };
    if let Some(id) = tool_call {
        let Some(at) = of_run.iter().position(|i| i.tool_call_id == id) else {
            return fail(call_not_listed(server, &run_id, id, &of_run)?);
        };
        let item = of_run.swap_remove(at);
        if !kinds.contains(&item.kind) {
            return fail(wrong_kind(&item));
        }
        return Ok(item);
    }
    let (mut mine, others): (Vec<SuspendedCall>, Vec<SuspendedCall>) =
        of_run.into_iter().partition(|i| kinds.contains(&i.kind));
    match (mine.len(), others.first()) {
        (1, _) => Ok(mine.swap_remove(0)),
        (0, Some(other)) => fail(wrong_kind(other)),
        (0, None) => fail(Error::not_found(format!(
            "run {run_id} has nothing pending"
        ))),
        (n, _) => fail(Error::conflict(format!(
            "run {} has {n} pending items; choose one with --tool-call: {}",
            format::shell_quote(&run_id),
            mine.iter()
                .map(|i| format::shell_quote(&i.tool_call_id))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// At a terminal, with no run named: the only pending item of `kinds`, or the one the
/// person picks (leaving the picker is an interruption).
fn choose(server: &Server, agent: Option<&str>, kinds: &[ItemKind]) -> Result<SuspendedCall> {
    let mut mine: Vec<SuspendedCall> = items(server, agent)?
        .into_iter()
        .filter(|i| kinds.contains(&i.kind))
        .collect();
    if mine.len() <= 1 {
        return mine
            .pop()
            .ok_or_else(|| prompting::nothing_pending(kinds[0]).into());
    }
    let lines: Vec<String> = shown(&mine)
        .iter()
        .map(|i| format!("{}  {}", i.run_id, i.describe()))
        .collect();
    match ui::pick("Which item?", &lines)? {
        Some(i) => Ok(mine.swap_remove(i)),
        None => fail(Error::new(
            crate::error::Kind::Interrupted,
            "interrupted; nothing sent",
        )),
    }
}

/// Why tool call `id` of a listed run is not listed: this store answered it (4), the run
/// waits on another call now (4), or neither is known (3).
fn call_not_listed(
    server: &Server,
    run_id: &str,
    id: &str,
    listed: &[SuspendedCall],
) -> Result<Error> {
    let answered = match server.ctx.existing_store()? {
        Some(store) => store.answers_of_run(&server.shown, run_id)?,
        None => Vec::new(),
    };
    let waits_on = listed
        .iter()
        .map(|i| format::shell_quote(&i.tool_call_id))
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
