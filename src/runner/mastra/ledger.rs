//! Sending one answer exactly once (SPEC §12): the entry is claimed in this store's ledger
//! before anything is sent (a claim held by another process is exit 4, naming who), settled
//! once the server took it, and released when the request surely never reached the server
//! and the call is still pending there, so that the answer can be given again. A claim held
//! by a process that is gone (or silent past the deadlines) is taken over (`claims`). A run
//! started from here is recorded the same way, as a `start` entry settled with how its
//! first leg ended.
//!
//! The transitions are the store's (`Store::claim_answer`, `settle_answer`,
//! `release_answer`); here is only when to call them and what to say.

use anyhow::Result;
use serde_json::Value;

use super::claims;
use super::leg::{self, Streamed};
use super::listing;
use super::Server;
use crate::domain::{ItemKind, Via};
use crate::error::{fail, Error, Kind, Kinded};
use crate::output::format;
use crate::remote::{Answer, Delivery, LegEnd, RemoteError, Start, SuspendedCall};
use crate::report::Report;
use crate::store::{now_ms, Lease, LedgerEntry, LedgerKey, LedgerKind, LedgerState, Store};

/// A claim this process holds: its key and its holder's token.
pub struct Claim {
    pub key: LedgerKey,
    pub token: String,
}

/// What the ledger keeps of the resume data: of a plan, never its title or text (SPEC
/// §12), only the decision, the feedback and the path.
fn kept_of(kind: ItemKind, data: &Value) -> Value {
    let mut kept = data.clone();
    if let (ItemKind::Plan, Some(map)) = (kind, kept.as_object_mut()) {
        map.remove("title");
        map.remove("plan");
    }
    kept
}

/// A new entry, held by this process (`me`).
fn entry(
    key: LedgerKey,
    agent_id: &str,
    data: Value,
    by: &str,
    via: &str,
    me: &Lease,
) -> LedgerEntry {
    let now = now_ms();
    LedgerEntry {
        key,
        agent_id: agent_id.to_string(),
        state: LedgerState::Sending,
        resume_data: data,
        by: by.to_string(),
        via: via.to_string(),
        holder: me.clone(),
        outcome: None,
        created_at: now,
        updated_at: now,
    }
}

/// Who an entry records: a name typed with `--as`, as typed (`claimed`); else, where the
/// store checks the session itself (PostgreSQL), who a decision made there is checked as
/// (the reviewer mapped to the session's role, else the role), not a login name the store
/// cannot see; else `by` (SQLite: the login name, as its decisions record it).
fn recorded_by(store: &dyn Store, by: &str, claimed: bool) -> Result<String> {
    if claimed {
        return Ok(by.to_string());
    }
    Ok(store
        .session_identity()?
        .map_or_else(|| by.to_string(), |checked| checked.name))
}

/// Claims the entry of the answer `sent` (the route's data) to `call`, before anything is
/// sent; `claimed`: `by` was typed with `--as`.
#[allow(clippy::too_many_arguments)]
pub fn claim_answer(
    report: &dyn Report,
    server: &Server,
    store: &dyn Store,
    call: &SuspendedCall,
    sent: &Value,
    by: &str,
    claimed: bool,
    via: Via,
) -> Result<Claim> {
    let by = &recorded_by(store, by, claimed)?;
    let key = LedgerKey {
        server: server.shown.clone(),
        run_id: call.run_id.clone(),
        tool_call_id: call.tool_call_id.clone(),
        kind: LedgerKind::Answer(call.kind),
    };
    let me = crate::agent::lease::mine();
    let data = kept_of(call.kind, sent);
    claim(
        report,
        server,
        store,
        &entry(key.clone(), &call.agent_id, data, by, via.as_str(), &me),
    )?;
    Ok(Claim {
        key,
        token: me.token,
    })
}

/// Sends the claimed answer and streams the resumed leg; settles the claim, or releases it
/// when the answer surely was not delivered.
pub fn deliver(
    report: &dyn Report,
    server: &Server,
    store: &dyn Store,
    call: &SuspendedCall,
    answer: &Answer,
    claim: &Claim,
) -> Result<Streamed> {
    match leg::stream(report, &server.pending, |on_chunk| {
        server.client.answer(call, answer, on_chunk)
    }) {
        // One of several decisions a policy needs (SPEC §14): the call still waits there,
        // for other reviewers, whose answers from this store are no second answer.
        Ok(streamed) if matches!(streamed.leg.end, LegEnd::Partial { .. }) => {
            store.release_answer(&claim.key, &claim.token)?;
            Ok(streamed)
        }
        Ok(streamed) => {
            store.settle_answer(&claim.key, &claim.token, outcome(&streamed))?;
            Ok(streamed)
        }
        Err(e) => fail_to_send(server, store, call, claim, e),
    }
}

/// Starts a run of `agent` and streams its first leg, recorded in the ledger as a `start`
/// entry (who started it, and how the leg ended).
pub fn start(
    report: &dyn Report,
    server: &Server,
    store: &dyn Store,
    agent: &str,
    start: &Start,
    by: &str,
) -> Result<Streamed> {
    let key = LedgerKey {
        server: server.shown.clone(),
        run_id: start.run_id.clone(),
        tool_call_id: String::new(),
        kind: LedgerKind::Start,
    };
    let me = crate::agent::lease::mine();
    let by = recorded_by(store, by, false)?;
    store.claim_answer(&entry(key.clone(), agent, Value::Null, &by, "run", &me))?;
    match leg::stream(report, &server.pending, |on_chunk| {
        server.client.start(agent, start, on_chunk)
    }) {
        Ok(streamed) => {
            store.settle_answer(&key, &me.token, outcome(&streamed))?;
            Ok(streamed)
        }
        Err(e) => {
            // A run that never began is not one this store started.
            if e.not_delivered() {
                store.release_answer(&key, &me.token)?;
            }
            Err(e.into())
        }
    }
}

/// How a leg ended, as the ledger keeps it.
fn outcome(streamed: &Streamed) -> &'static str {
    match &streamed.leg.end {
        LegEnd::Suspended(_) => "suspended",
        LegEnd::Finished { .. } => "finished",
        LegEnd::Failed { .. } => "failed",
        LegEnd::Recorded => "recorded",
        LegEnd::Partial { .. } => "partial",
    }
}

/// Claims the entry; a stale claim on it (its holder gone, the call still listed) is taken
/// over, and the command says so.
fn claim(
    report: &dyn Report,
    server: &Server,
    store: &dyn Store,
    entry: &LedgerEntry,
) -> Result<()> {
    let Err(refused) = store.claim_answer(entry) else {
        return Ok(());
    };
    let Some(old) = claims::stale_claim(server, store, &entry.key)? else {
        return Err(refused.into());
    };
    store.take_over_answer(entry, &old.holder.token)?;
    report.warn(&claims::released_line(&old));
    Ok(())
}

/// A request that failed: released when it surely did nothing and the call still waits,
/// kept otherwise (the server may have consumed it); the error says which.
fn fail_to_send(
    server: &Server,
    store: &dyn Store,
    call: &SuspendedCall,
    claim: &Claim,
    e: RemoteError,
) -> Result<Streamed> {
    let what = format!(
        "tool call {} of run {}",
        format::shell_quote(&call.tool_call_id),
        format::shell_quote(&call.run_id)
    );
    if !e.not_delivered() {
        let kind = match e.kind() {
            Kind::Interrupted => Kind::Interrupted,
            _ => Kind::Server,
        };
        let kept = Error::new(
            kind,
            format!("{e}; the answer to {what} may have reached the server"),
        )
        .with_hint(format!(
            "see whether it still waits with: {}; if it does, answering again sends it (this store keeps the claim until its process has ended)",
            server.pending
        ));
        return fail(kept);
    }
    // Did the call wait on through the failed request? Then nothing was consumed.
    let listed = listing::calls(server, Some(&call.agent_id));
    let still = listed.as_ref().ok().map(|calls| {
        calls.iter().any(|c| {
            c.run_id == call.run_id && c.tool_call_id == call.tool_call_id && c.kind == call.kind
        })
    });
    let never_sent = matches!(
        e,
        RemoteError::Transport {
            delivery: Delivery::NotSent,
            ..
        }
    );
    let gone = matches!(
        e,
        RemoteError::NoSuspendedRun { .. } | RemoteError::NotSuspended { .. }
    );
    if still == Some(true) || never_sent || gone {
        store.release_answer(&claim.key, &claim.token)?;
    }
    if gone {
        // The server refused: the call was answered elsewhere since it was listed (4), or
        // its run is gone from the server (3).
        let run_listed = listed
            .map(|calls| calls.iter().any(|c| c.run_id == call.run_id))
            .unwrap_or(false);
        let answered_here = store
            .answers_of_run(&server.shown, &call.run_id)?
            .iter()
            .any(|a| a.state == LedgerState::Delivered);
        let message = format!(
            "{what} is no longer suspended on {}: {e}; nothing was sent from here",
            server.shown
        );
        return fail(if run_listed || answered_here {
            Error::conflict(message)
        } else {
            Error::not_found(message)
        });
    }
    let mut error = Error::from(e);
    if still == Some(true) || never_sent {
        error.message = format!("{}; the answer was not delivered", error.message);
    }
    Err(error.into())
}
