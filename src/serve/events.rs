//! What waits, as it changes: one thread watches the store's pending items (PostgreSQL
//! wakes it at each transition's NOTIFY, SQLite at each write of its log; then a cheap mark,
//! the pending items' count and newest time from their index, says whether they changed,
//! and at least every `POLL`), tells the live
//! pages (a counter on a watch channel) when items come or go, and queues serve's own hook
//! for each item that became pending while it watched (`hooks`). Items pending when serve
//! starts are not new. It reads only; it stops when serve stops.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::watch;

use super::hooks::Hooks;
use super::{pool, Serving};
use crate::items::ItemView;
use crate::output::Out;
use crate::policy::ItemGate;
use crate::runner::notify::Job;
use crate::store::{Location, PendingItem, Store};

/// How long one wait for a change lasts at most.
const POLL: Duration = Duration::from_millis(500);

/// Serve's own `--on-suspend`: how serve was started, the command, and the queue it runs
/// from.
pub type Hook = (Serving, String, Arc<Hooks>);

pub struct Watcher {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Starts watching; `changes` counts each change of what is pending.
    /// `poke` is told too (the notifier: `notifications`).
    pub fn start(
        location: Location,
        hook: Option<Hook>,
        changes: watch::Sender<u64>,
        poke: SyncSender<()>,
    ) -> Watcher {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        // What waits already is read before serve says it listens, so that an item added
        // right after is new to the watcher (and gets its hook), however late its thread runs.
        // (On a thread of its own: the PostgreSQL client must not block inside serve's runtime.)
        let first = location.clone();
        let seen = std::thread::spawn(move || {
            let items = pool::open(&first).ok()?.pending(None).ok()?;
            Some(keys(&items))
        })
        .join()
        .ok()
        .flatten();
        let thread =
            std::thread::spawn(move || watch(&location, hook, &changes, &poke, &stopping, seen));
        Watcher {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

type Keys = HashSet<(String, String)>;

fn keys(items: &[PendingItem]) -> Keys {
    items
        .iter()
        .map(|i| (i.call.run_id.clone(), i.call.call_id.clone()))
        .collect()
}

fn watch(
    location: &Location,
    hook: Option<Hook>,
    changes: &watch::Sender<u64>,
    poke: &SyncSender<()>,
    stop: &AtomicBool,
    mut seen: Option<Keys>,
) {
    let mut store: Option<Box<dyn Store>> = None;
    let mut mark = None;
    while !stop.load(Ordering::Relaxed) {
        if store.is_none() {
            store = pool::open(location).ok();
        }
        let Some(s) = store.as_deref() else {
            std::thread::sleep(POLL);
            continue;
        };
        // The items are read again only when the mark says they changed.
        let now_mark = s.pending_mark().ok();
        if now_mark.is_some() && now_mark == mark {
            if s.wait_for_change("", POLL).is_err() {
                store = None;
            }
            continue;
        }
        mark = now_mark;
        let items = match s.pending(None) {
            Ok(items) => items,
            Err(_) => {
                // Open it again next time (a PostgreSQL connection may have broken).
                store = None;
                std::thread::sleep(POLL);
                continue;
            }
        };
        let now = keys(&items);
        if let Some(before) = &seen {
            if *before != now {
                changes.send_modify(|n| *n += 1);
                // Full: a look is due already.
                let _ = poke.try_send(());
                let new: Vec<PendingItem> = items
                    .into_iter()
                    .filter(|i| !before.contains(&(i.call.run_id.clone(), i.call.call_id.clone())))
                    .collect();
                if let (Some((serving, cmd, hooks)), false) = (&hook, new.is_empty()) {
                    // Who may decide each, read here where the store is (SPEC §14).
                    let gates = ItemGate::of_pending(s, &new).unwrap_or_default();
                    let out = Out::new(false);
                    let ctx = serving.context(&out);
                    // A slow hook (10 s at most each) must not hold up the live pages.
                    for item in &new {
                        let view = ItemView::gated(item, &gates);
                        hooks.offer(Job::new(&ctx, cmd, "--on-suspend", &view));
                    }
                }
            }
        }
        seen = Some(now);
        if s.wait_for_change("", POLL).is_err() {
            store = None;
        }
    }
}
