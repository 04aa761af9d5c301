//! Ledger claims whose delivery is unknown (SPEC §12): the sender was killed, its connection
//! broke, a proxy answered 502. Such a claim keeps every other process from sending, so it
//! must not live for ever: the next command that acts on the call releases it and sends,
//! once the claim is stale — its holder process is gone (on this host, where that can be
//! seen), or it is older than the idle deadline and its holder is not running here — and the
//! server still lists the call as suspended (the caller's listing shows that). `pending`
//! shows such a claim beside its item.
//!
//! When a claim is stale and how it is described; the swap itself is one store transition
//! (`Store::take_over_answer`), so of several processes that see one stale claim exactly one
//! sends.

use std::collections::HashMap;
use std::time::Duration;

use anyhow::Result;
use serde_json::{json, Value};

use super::Server;
use crate::limits::MAX_LISTING_ITEMS;
use crate::output::format;
use crate::store::{now_ms, LedgerEntry, LedgerKey, LedgerState, Store};
use crate::sys::{self, Process};

/// Where the process that holds a claim is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// On this host, and still running.
    Running,
    /// On this host, and gone.
    Gone,
    /// On another host: only the claim's age can tell.
    Elsewhere,
}

impl Holder {
    pub fn of(entry: &LedgerEntry) -> Holder {
        if entry.holder.host != sys::host_id() {
            return Holder::Elsewhere;
        }
        let process = Process {
            pid: entry.holder.pid,
            start: entry.holder.start,
        };
        if process.is_alive() {
            Holder::Running
        } else {
            Holder::Gone
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Holder::Running => "running",
            Holder::Gone => "gone",
            Holder::Elsewhere => "on another host",
        }
    }
}

/// Whether a claim may be released by the next command that acts on its call (the server
/// still listing the call is for the caller to know).
pub fn is_stale(entry: &LedgerEntry, idle: Duration, now: i64) -> bool {
    if entry.state != LedgerState::Sending {
        return false;
    }
    let old = now.saturating_sub(entry.updated_at) > idle.as_millis() as i64;
    match Holder::of(entry) {
        Holder::Gone => true,
        Holder::Running => false,
        Holder::Elsewhere => old,
    }
}

/// "claimed by NAME 12m ago (pid 42 on HOST, gone)".
pub fn describe(entry: &LedgerEntry, now: i64) -> String {
    format!(
        "claimed by {} {} ago (pid {} on {}, {})",
        entry.by,
        format::age(entry.updated_at, now),
        entry.holder.pid,
        entry.holder.host,
        Holder::of(entry).as_str()
    )
}

/// The claim as `pending -o json` shows it.
pub fn to_json(entry: &LedgerEntry, idle: Duration, now: i64) -> Value {
    json!({
        "by": entry.by,
        "at": format::time(entry.updated_at),
        "host": entry.holder.host,
        "pid": entry.holder.pid,
        "holder": Holder::of(entry).as_str(),
        "stale": is_stale(entry, idle, now),
    })
}

/// This store's claims on the server's calls whose delivery is unknown, by (run, call,
/// kind): what `pending` shows beside each item.
pub fn open(
    server: &Server,
    store: Option<&dyn Store>,
) -> Result<HashMap<(String, String, &'static str), LedgerEntry>> {
    let Some(store) = store else {
        return Ok(HashMap::new());
    };
    let entries = store.answers_matching(&server.shown, "", true, MAX_LISTING_ITEMS as i64)?;
    Ok(entries
        .into_iter()
        .map(|e| {
            let key = (
                e.key.run_id.clone(),
                e.key.tool_call_id.clone(),
                e.key.kind.noun(),
            );
            (key, e)
        })
        .collect())
}

/// The stale claim on `key`, if the ledger holds one.
pub fn stale_claim(
    server: &Server,
    store: &dyn Store,
    key: &LedgerKey,
) -> Result<Option<LedgerEntry>> {
    let now = now_ms();
    Ok(store
        .answers_of_run(&key.server, &key.run_id)?
        .into_iter()
        .find(|e| e.key == *key && is_stale(e, server.deadlines.idle, now)))
}

/// What a command says when it releases a stale claim and sends again.
pub fn released_line(old: &LedgerEntry) -> String {
    format!(
        "released the stale claim on {} {} of run {}, {}: the server still lists the call as suspended, so this answer is sent",
        old.key.kind.noun(),
        format::shell_quote(&old.key.tool_call_id),
        format::shell_quote(&old.key.run_id),
        describe(old, now_ms())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ItemKind;
    use crate::store::{Lease, LedgerKind};

    fn entry(host: &str, pid: u32, start: u64, age_ms: i64, now: i64) -> LedgerEntry {
        LedgerEntry {
            key: LedgerKey {
                server: "http://127.0.0.1:1/api".into(),
                run_id: "r".into(),
                tool_call_id: "c".into(),
                kind: LedgerKind::Answer(ItemKind::Question),
            },
            agent_id: "a".into(),
            state: LedgerState::Sending,
            resume_data: json!("x"),
            by: "ann".into(),
            via: "flag".into(),
            holder: Lease {
                token: "t".into(),
                host: host.into(),
                pid,
                start,
                expires_at: 0,
            },
            outcome: None,
            created_at: now - age_ms,
            updated_at: now - age_ms,
        }
    }

    #[test]
    fn a_claim_is_stale_when_its_holder_is_gone_or_silent_elsewhere() {
        let idle = Duration::from_secs(200);
        let now = now_ms();
        let me = Process::me();
        let here = sys::host_id();
        let young = 1_000;
        let old = 201_000;
        // This very process: never stale, however old.
        let mine = entry(here, me.pid, me.start, old, now);
        assert_eq!(Holder::of(&mine), Holder::Running);
        assert!(!is_stale(&mine, idle, now));
        // A process of this host that is gone (a start time that is not this pid's).
        let gone = entry(here, me.pid, me.start + 1, young, now);
        assert_eq!(Holder::of(&gone), Holder::Gone);
        assert!(is_stale(&gone, idle, now));
        assert!(describe(&gone, now).ends_with(", gone)"));
        // Another host: only age tells.
        assert!(!is_stale(&entry("elsewhere", 1, 1, young, now), idle, now));
        assert!(is_stale(&entry("elsewhere", 1, 1, old, now), idle, now));
        // A delivered answer is never released.
        let mut delivered = entry("elsewhere", 1, 1, old, now);
        delivered.state = LedgerState::Delivered;
        assert!(!is_stale(&delivered, idle, now));
        let shown = to_json(&gone, idle, now);
        assert_eq!(
            (shown["holder"].as_str(), shown["stale"].as_bool()),
            (Some("gone"), Some(true))
        );
    }
}
