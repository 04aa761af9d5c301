//! Sending one answer exactly once (SPEC §12): the entry is claimed in this store's ledger
//! before anything is sent (a claim held by another process is exit 4, naming who), settled
//! once the server took it, and released when the request surely never reached the server
//! and the call is still pending there, so that the answer can be given again. A claim held
//! by a process that is gone (or silent past the deadlines) is taken over (`claims`).
//!
//! The transitions are the store's (`Store::claim_answer`, `settle_answer`,
//! `release_answer`); here is only when to call them and what to say.

use anyhow::Result;
use serde_json::Value;

use super::claims;
use super::leg::{self, Streamed};
use super::listing;
use super::{error, Server};
use crate::domain::{ItemKind, Via};
use crate::error::{fail, Error};
use crate::output::format;
use crate::remote::{Answer, Delivery, LegEnd, RemoteError, SuspendedCall};
use crate::store::{now_ms, LedgerEntry, LedgerKey, LedgerState, Store};

/// An answer to send: the route's data, what the ledger keeps of it, who and how.
pub struct Outgoing {
    pub answer: Answer,
    /// What the ledger records as sent.
    pub recorded: Value,
    pub by: String,
    pub via: Via,
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

/// Claims the item's entry, sends the answer and streams the resumed leg.
pub fn send(
    server: &Server,
    store: &dyn Store,
    item: &SuspendedCall,
    out: &Outgoing,
) -> Result<Streamed> {
    let key = LedgerKey {
        server: server.shown.clone(),
        run_id: item.run_id.clone(),
        tool_call_id: item.tool_call_id.clone(),
        kind: item.kind,
    };
    let me = crate::agent::lease::mine();
    let now = now_ms();
    claim(
        server,
        store,
        &LedgerEntry {
            key: key.clone(),
            agent_id: item.agent_id.clone(),
            state: LedgerState::Sending,
            resume_data: kept_of(item.kind, &out.recorded),
            by: out.by.clone(),
            via: out.via.as_str().to_string(),
            holder: me.clone(),
            outcome: None,
            created_at: now,
            updated_at: now,
        },
    )?;
    match leg::stream(server, |on_chunk| {
        server.client.answer(item, &out.answer, on_chunk)
    }) {
        Ok(streamed) => {
            let outcome = match &streamed.leg.end {
                LegEnd::Suspended(_) => "suspended",
                LegEnd::Finished { .. } => "finished",
                LegEnd::Failed { .. } => "failed",
            };
            store.settle_answer(&key, &me.token, outcome)?;
            Ok(streamed)
        }
        Err(e) => fail_to_send(server, store, item, &key, &me.token, e),
    }
}

/// Claims the entry; a stale claim on it (its holder gone, the call still listed) is taken
/// over, and the command says so.
fn claim(server: &Server, store: &dyn Store, entry: &LedgerEntry) -> Result<()> {
    let Err(refused) = store.claim_answer(entry) else {
        return Ok(());
    };
    let Some(old) = claims::stale_claim(server, store, &entry.key)? else {
        return Err(refused.into());
    };
    store.take_over_answer(entry, &old.holder.token)?;
    server.ctx.out.warn(&claims::released_line(&old));
    Ok(())
}

/// A request that failed: released when it surely did nothing and the call still waits,
/// kept otherwise (the server may have consumed it); the error says which.
fn fail_to_send(
    server: &Server,
    store: &dyn Store,
    item: &SuspendedCall,
    key: &LedgerKey,
    token: &str,
    e: RemoteError,
) -> Result<Streamed> {
    let call = format!(
        "tool call {} of run {}",
        format::shell_quote(&item.tool_call_id),
        format::shell_quote(&item.run_id)
    );
    if !e.not_delivered() {
        let kind = match e.kind() {
            crate::error::Kind::Interrupted => crate::error::Kind::Interrupted,
            _ => crate::error::Kind::Server,
        };
        let kept = Error::new(
            kind,
            format!("{e}; the answer to {call} may have reached the server"),
        )
        .with_hint(format!(
            "see whether it still waits with: {}; if it does, answering again sends it (this store keeps the claim until its process has ended)",
            server.pending_command()
        ));
        return fail(kept);
    }
    // Did the call wait on through the failed request? Then nothing was consumed.
    let listed = listing::items(server, Some(&item.agent_id));
    let still = listed.as_ref().ok().map(|items| {
        items.iter().any(|i| {
            i.run_id == item.run_id && i.tool_call_id == item.tool_call_id && i.kind == item.kind
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
        store.release_answer(key, token)?;
    }
    if gone {
        // The server refused: the call was answered elsewhere since it was listed (4), or
        // its run is gone from the server (3).
        let run_listed = listed
            .map(|items| items.iter().any(|i| i.run_id == item.run_id))
            .unwrap_or(false);
        let answered_here = store
            .answers_of_run(&server.shown, &item.run_id)?
            .iter()
            .any(|a| a.state == LedgerState::Delivered);
        let message = format!(
            "{call} is no longer suspended on {}: {e}; nothing was sent from here",
            server.shown
        );
        return fail(if run_listed || answered_here {
            Error::conflict(message)
        } else {
            Error::not_found(message)
        });
    }
    let mut report = error(e);
    if let Some(inner) = report.downcast_mut::<Error>() {
        if still == Some(true) || never_sent {
            inner.message = format!("{}; the answer was not delivered", inner.message);
        }
    }
    Err(report)
}
