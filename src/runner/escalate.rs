//! Escalation (SPEC §14): an item still pending `--escalate-after` after it was created runs
//! the watcher's own `--on-escalate CMD` once, as `--on-suspend` runs its command (the
//! item's JSON line on stdin). Of every watcher (a run's waiter, `serve`), the first to claim
//! the item in the store's transaction runs it; the others never do. The command is never
//! stored, and its failure is reported, never fatal.

use std::collections::HashSet;

use anyhow::Result;

use super::notify;
use super::Context;
use crate::items::ItemView;
use crate::store::{now_ms, Store};

/// Escalates what is due: for one run (a waiter) or for every run (`serve`). `tried` keeps
/// the items this watcher claimed or saw claimed, so it asks the store about each once.
pub fn due(
    ctx: &Context,
    store: &dyn Store,
    run_id: Option<&str>,
    cmd: &str,
    tried: &mut HashSet<(String, String)>,
) -> Result<()> {
    due_each(store, run_id, tried, &mut |item| {
        notify::run_hook_reporting(ctx, cmd, "--on-escalate", item);
    })
}

/// `due`, with `escalate` called for each item this watcher claimed (serve queues its
/// command instead of running it here).
pub fn due_each(
    store: &dyn Store,
    run_id: Option<&str>,
    tried: &mut HashSet<(String, String)>,
    escalate: &mut dyn FnMut(&ItemView),
) -> Result<()> {
    let due = store.due_escalations(now_ms())?;
    for (run, call) in due {
        if run_id.is_some_and(|r| r != run) || tried.contains(&(run.clone(), call.clone())) {
            continue;
        }
        tried.insert((run.clone(), call.clone()));
        if !store.claim_escalation(&run, &call)? {
            continue;
        }
        let item = store
            .pending(Some(&run))?
            .into_iter()
            .find(|i| i.call.call_id == call);
        if let Some(item) = item {
            // The line `pending -o json` prints: with the policy and the decisions so far.
            let gates = crate::policy::ItemGate::of_pending(store, std::slice::from_ref(&item))?;
            escalate(&ItemView::gated(&item, &gates));
        }
    }
    Ok(())
}
