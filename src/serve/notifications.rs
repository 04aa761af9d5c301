//! Serve tells each reviewer of each new item on their channel (SPEC §17): one thread looks
//! at what is pending when serve starts (items that became pending while no serve ran), each
//! time the watcher (`events`) sees what is pending change, and every `EVERY` besides; for
//! each pending item and each reviewer with a channel whom the item's policy allows (without
//! a policy, every one), it queues a notification. A sender thread claims each in the
//! store's transaction (`claim_notification`: once per item and reviewer across every serve
//! on the store) and publishes it, trying a failing channel `ATTEMPTS` times with a growing
//! pause, and logging each failure (never a token).
//!
//! It never holds up a request or the watcher (threads and store connections of its own, a
//! bounded queue: what does not fit is offered again at the next look, never lost), and it
//! decides nothing: what a channel gets is `crate::notify`'s.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::pool;
use crate::items::ItemView;
use crate::notify::{Channel, Note, Tokens};
use crate::output::{format, sanitize};
use crate::policy::ItemGate;
use crate::store::{now_ms, Location, Reviewers, Store};

/// How often the pending items are looked at without a change seen.
const EVERY: Duration = Duration::from_secs(5);
/// Notifications waiting to be sent at most; past it, offered again at the next look.
const QUEUE: usize = 256;
/// Tries of a failing channel, and the pause before the second (doubled each time).
const ATTEMPTS: u32 = 4;
const FIRST_PAUSE: Duration = Duration::from_millis(500);
/// How often a pause checks that serve is stopping.
const TICK: Duration = Duration::from_millis(100);

/// One notification to send: the item, the reviewer, their channel and what they are told.
struct Send {
    run_id: String,
    call_id: String,
    reviewer: String,
    channel: Channel,
    note: Note,
}

pub struct Notifier {
    stop: Arc<AtomicBool>,
    poke: SyncSender<()>,
    threads: Vec<JoinHandle<()>>,
}

impl Notifier {
    pub fn start(location: Location, tokens: Tokens) -> Notifier {
        let stop = Arc::new(AtomicBool::new(false));
        let (poke, poked) = mpsc::sync_channel(1);
        let (queue, queued) = mpsc::sync_channel(QUEUE);
        let (l, s) = (location.clone(), stop.clone());
        let looker = std::thread::spawn(move || look(&l, &poked, &queue, &s));
        let s = stop.clone();
        let sender = std::thread::spawn(move || send_all(&location, &tokens, &queued, &s));
        Notifier {
            stop,
            poke,
            threads: vec![looker, sender],
        }
    }

    /// A handle that tells the notifier what is pending changed.
    pub fn poker(&self) -> SyncSender<()> {
        self.poke.clone()
    }
}

impl Drop for Notifier {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

type Key = (String, String, String);

fn look(location: &Location, poked: &Receiver<()>, queue: &SyncSender<Send>, stop: &AtomicBool) {
    let mut store: Option<Box<dyn Store>> = None;
    // What was queued already, by item and reviewer: kept while the item is pending.
    let mut queued: HashSet<Key> = HashSet::new();
    let mut failing = false;
    while !stop.load(Ordering::Relaxed) {
        if store.is_none() {
            store = pool::open(location).ok();
        }
        if let Some(s) = store.as_deref() {
            match offer(s, queue, &mut queued) {
                Ok(()) => failing = false,
                Err(e) => {
                    if !failing {
                        eprintln!("warning: looking for reviewers to notify failed: {e:#}");
                    }
                    failing = true;
                    store = None;
                }
            }
        }
        let until = Instant::now() + EVERY;
        while !stop.load(Ordering::Relaxed) && Instant::now() < until {
            match poked.recv_timeout(TICK) {
                Ok(()) => break,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }
}

/// Queues a notification for each pending item and each reviewer it should reach that was
/// not queued before.
fn offer(
    store: &dyn Store,
    queue: &SyncSender<Send>,
    queued: &mut HashSet<Key>,
) -> anyhow::Result<()> {
    let reviewers: Vec<(String, Channel)> = store
        .list_reviewers()?
        .into_iter()
        .filter(|r| r.removed_at.is_none())
        .filter_map(|r| {
            let channel = Channel::parse(r.notify.as_deref()?).ok()?;
            Some((r.name, channel))
        })
        .collect();
    if reviewers.is_empty() {
        queued.clear();
        return Ok(());
    }
    let items = store.pending(None)?;
    let gates = ItemGate::of_pending(store, &items)?;
    let now = now_ms();
    let mut pending = HashSet::new();
    for item in &items {
        let view = ItemView::gated(item, &gates);
        let (run_id, call_id) = (item.call.run_id.as_str(), item.call.call_id.as_str());
        pending.insert((run_id.to_string(), call_id.to_string()));
        for (name, channel) in &reviewers {
            if view.gate.is_some_and(|g| !g.rule.allows(name)) {
                continue;
            }
            let key = (run_id.to_string(), call_id.to_string(), name.clone());
            if queued.contains(&key) {
                continue;
            }
            let send = Send {
                run_id: key.0.clone(),
                call_id: key.1.clone(),
                reviewer: name.clone(),
                channel: channel.clone(),
                note: note(&view, now),
            };
            match queue.try_send(send) {
                Ok(()) => {
                    queued.insert(key);
                }
                // Offered again at the next look.
                Err(TrySendError::Full(_)) => {}
                Err(TrySendError::Disconnected(_)) => return Ok(()),
            }
        }
    }
    queued.retain(|(r, c, _)| pending.contains(&(r.clone(), c.clone())));
    Ok(())
}

/// What a reviewer is told of `item`, from its kind's headline.
fn note(item: &ItemView, now: i64) -> Note {
    let headline = crate::items::of(item.kind).headline(item);
    Note {
        kind: item.kind.noun().to_string(),
        agent: item.agent_id.to_string(),
        age: item
            .suspended_at
            .ms()
            .map_or_else(String::new, |at| format::age(at, now)),
        headline: headline.text,
        url: item.url.map(str::to_string),
    }
}

fn send_all(location: &Location, tokens: &Tokens, queued: &Receiver<Send>, stop: &AtomicBool) {
    let mut store: Option<Box<dyn Store>> = None;
    while !stop.load(Ordering::Relaxed) {
        let send = match queued.recv_timeout(TICK) {
            Ok(s) => s,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        if store.is_none() {
            store = pool::open(location).ok();
        }
        let what = format!(
            "telling reviewer {} of tool call {} of run {}",
            sanitize::one_line(&send.reviewer),
            sanitize::one_line(&send.call_id),
            sanitize::one_line(&send.run_id)
        );
        let claimed = match store.as_deref() {
            Some(s) => s.claim_notification(&send.run_id, &send.call_id, &send.reviewer),
            None => Err(crate::store::Error::usage("the store could not be opened")),
        };
        match claimed {
            Ok(true) => publish(&send, tokens, &what, stop),
            Ok(false) => {}
            Err(e) => {
                eprintln!("warning: {what} failed: {e}");
                store = None;
            }
        }
    }
}

/// Publishes one notification, trying again after a failure.
fn publish(send: &Send, tokens: &Tokens, what: &str, stop: &AtomicBool) {
    let Channel::Ntfy(topic) = &send.channel;
    let token = tokens.get(&topic.server());
    let body = topic.body(&send.note, token.is_some());
    let mut pause = FIRST_PAUSE;
    for attempt in 1..=ATTEMPTS {
        let Err(e) = topic.publish(&body, token) else {
            return;
        };
        let e = sanitize::one_line(&e);
        if attempt == ATTEMPTS {
            eprintln!("warning: {what} failed ({attempt} tries, given up): {e}");
            return;
        }
        eprintln!("warning: {what} failed (try {attempt} of {ATTEMPTS}): {e}");
        let until = Instant::now() + pause;
        while Instant::now() < until {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(TICK);
        }
        pause *= 2;
    }
}
