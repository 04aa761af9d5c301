//! Serve tells each reviewer of each new item on their channel (SPEC §17): one thread looks
//! at what is pending when serve starts (items that became pending while no serve ran), each
//! time the watcher (`events`) sees what is pending change, and every `EVERY` besides; for
//! each pending item and each reviewer with a channel whom the item's policy allows (without
//! a policy, every one), it queues a notification. A sender thread claims each in the
//! store's transaction (`claim_notification`: once per item and reviewer across every serve
//! on the store) and publishes it, trying a failing channel `ATTEMPTS` times with a growing
//! pause, and logging each failure (never a token). A private channel also gets one-tap
//! actions where a decision needs no reading (`taps`): a secret per decision, stored hashed
//! with the claim's reviewer (`Reviewers::add_taps`), posted to `PUBLIC_URL/tap/SECRET`.
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
use crate::domain::ItemKind;
use crate::items::form::Field;
use crate::items::{Item, ItemView};
use crate::notify::{Action, Channel, Note, TapChoice, Tokens};
use crate::output::{format, sanitize};
use crate::policy::ItemGate;
use crate::store::{now_ms, secret, Location, NewTap, Reviewers, Store};

/// How often the pending items are looked at without a change seen.
const EVERY: Duration = Duration::from_secs(5);
/// Notifications waiting to be sent at most; past it, offered again at the next look.
const QUEUE: usize = 256;
/// Tries of a failing channel, and the pause before the second (doubled each time).
const ATTEMPTS: u32 = 4;
const FIRST_PAUSE: Duration = Duration::from_millis(500);
/// How often a pause checks that serve is stopping.
const TICK: Duration = Duration::from_millis(100);

/// A one-tap action's label is shortened to this many characters.
const TAP_LABEL: usize = 24;

/// One notification to send: the item, the reviewer, their channel and what they are told.
struct Send {
    run_id: String,
    call_id: String,
    expires_at: Option<i64>,
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
                expires_at: view.expires_at,
                reviewer: name.clone(),
                channel: channel.clone(),
                note: note(&view, taps(item), now),
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

/// The decisions of `item` that need no reading, from its kind's form: an approval's
/// buttons, and a single-select question's options when it has at most two; none for
/// anything else (free text, multi select, plans and server items, which must be read).
fn taps(item: &crate::store::PendingItem) -> Vec<TapChoice> {
    let sends = |name: &str, value: &str| {
        form_urlencoded::Serializer::new(String::new())
            .append_pair(name, value)
            .finish()
    };
    let kind = item.call.kind();
    let form = crate::items::of(kind).form(&Item::stored(item.clone()));
    match kind {
        ItemKind::Approval => form
            .buttons
            .iter()
            .filter_map(|b| {
                let (name, value) = b.sends?;
                Some(TapChoice {
                    label: b.label.to_string(),
                    sends: sends(name, value),
                })
            })
            .collect(),
        ItemKind::Question => match form.fields.first() {
            Some(Field::Pick {
                name,
                multi: false,
                options,
                ..
            }) if options.len() <= 2 => options
                .iter()
                .map(|o| TapChoice {
                    label: shortened(&o.label),
                    sends: sends(name, &o.label),
                })
                .collect(),
            _ => Vec::new(),
        },
        ItemKind::Plan | ItemKind::Other => Vec::new(),
    }
}

/// An option's label as a button shows it: one line, at most `TAP_LABEL` characters.
fn shortened(label: &str) -> String {
    let line = sanitize::one_line(label);
    match line.char_indices().nth(TAP_LABEL) {
        Some(_) => {
            let cut: String = line.chars().take(TAP_LABEL - 1).collect();
            format!("{cut}…")
        }
        None => line,
    }
}

/// What a reviewer is told of `item`, from its kind's headline.
fn note(item: &ItemView, taps: Vec<TapChoice>, now: i64) -> Note {
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
        taps,
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
            Ok(true) => {
                let taps = match store.as_deref() {
                    Some(s) => hand_out(s, &send, tokens, &what),
                    None => Vec::new(),
                };
                publish(&send, tokens, &taps, &what, stop)
            }
            Ok(false) => {}
            Err(e) => {
                eprintln!("warning: {what} failed: {e}");
                store = None;
            }
        }
    }
}

/// The one-tap actions of a notification to a private channel: a fresh secret for each of
/// the item's `taps`, stored (hashed) for the reviewer; none for any other channel, or
/// without a public URL, or when they could not be stored (logged: "Open" still goes).
fn hand_out(store: &dyn Store, send: &Send, tokens: &Tokens, what: &str) -> Vec<Action> {
    let Channel::Ntfy(topic) = &send.channel;
    if send.note.taps.is_empty() || tokens.get(&topic.server()).is_none() {
        return Vec::new();
    }
    let base = match store.public_url() {
        Ok(Some(base)) => base,
        Ok(None) => return Vec::new(),
        Err(e) => {
            eprintln!("warning: {what}: its one-tap actions were not stored: {e}");
            return Vec::new();
        }
    };
    let secrets: Vec<String> = send.note.taps.iter().map(|_| secret::generate()).collect();
    let new: Vec<NewTap> = send
        .note
        .taps
        .iter()
        .zip(&secrets)
        .map(|(t, s)| NewTap {
            secret: s,
            label: &t.label,
            sends: &t.sends,
        })
        .collect();
    let item = (send.run_id.as_str(), send.call_id.as_str());
    match store.add_taps(item, send.expires_at, &send.reviewer, &new) {
        Ok(true) => {}
        Ok(false) => return Vec::new(),
        Err(e) => {
            eprintln!("warning: {what}: its one-tap actions were not stored: {e}");
            return Vec::new();
        }
    }
    let base = base.trim_end_matches('/');
    new.iter()
        .map(|t| Action {
            label: t.label.to_string(),
            url: format!("{base}/tap/{}", t.secret),
        })
        .collect()
}

/// Publishes one notification, trying again after a failure.
fn publish(send: &Send, tokens: &Tokens, taps: &[Action], what: &str, stop: &AtomicBool) {
    let Channel::Ntfy(topic) = &send.channel;
    let token = tokens.get(&topic.server());
    let body = topic.body(&send.note, token.is_some(), taps);
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
