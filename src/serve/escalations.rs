//! Serve's own `--on-escalate CMD` (SPEC §14) and `--on-resolve CMD` (§17): while serve
//! runs, one thread looks every `EVERY` for items of any run of the store whose
//! `--escalate-after` has passed, and for items resolved lately (by any process, with or
//! without the flag; closed by `cancel` or at a deadline, which it closes itself when nobody
//! else did) whose hook no process ran, and runs the command for each, through
//! `runner::escalate::due` and `runner::resolved::each`, the one places that claim an
//! escalation and a resolution in the store's transaction — so of serve, a second serve and
//! a run's waiter, exactly one runs it for an item.
//!
//! It never runs a command a run names (the command is serve's flag or environment), and it
//! never holds up a request: it has its own thread and its own store connection. The
//! commands run from serve's one queue of hooks (`hooks`).

use std::collections::HashSet;

use anyhow::Result;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::decide::Serving;
use super::hooks::Hooks;
use super::pool;
use crate::items::ItemView;
use crate::output::Out;
use crate::runner::notify::Job;
use crate::runner::{escalate, resolved, Context};
use crate::store::{now_ms, Store};

/// How often the store is asked what is due.
const EVERY: Duration = Duration::from_secs(1);
/// How often a wait between looks checks that serve is stopping.
const TICK: Duration = Duration::from_millis(100);

pub struct Escalator {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Serve's own commands: `--on-escalate`, `--on-resolve`.
pub struct Commands {
    pub on_escalate: Option<String>,
    pub on_resolve: Option<String>,
}

impl Escalator {
    pub fn start(serving: Serving, cmds: Commands, hooks: Arc<Hooks>) -> Escalator {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || watch(&serving, &cmds, &hooks, &stopping));
        Escalator {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Escalator {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn watch(serving: &Serving, cmds: &Commands, hooks: &Hooks, stop: &AtomicBool) {
    let out = Out::new(false);
    let ctx = serving.context(&out);
    let mut store: Option<Box<dyn Store>> = None;
    let mut failing = false;
    while !stop.load(Ordering::Relaxed) {
        if store.is_none() {
            store = pool::open(&serving.location).ok();
        }
        if let Some(s) = store.as_deref() {
            match look(&ctx, s, cmds, hooks) {
                Ok(()) => failing = false,
                Err(e) => {
                    if !failing {
                        eprintln!("warning: looking for escalations and resolutions failed: {e:#}");
                    }
                    failing = true;
                    // Open it again next time (a PostgreSQL connection may have broken).
                    store = None;
                }
            }
        }
        let until = Instant::now() + EVERY;
        while !stop.load(Ordering::Relaxed) && Instant::now() < until {
            std::thread::sleep(TICK);
        }
    }
}

/// One look: what is due and unclaimed is asked afresh each time, so nothing kept grows.
fn look(ctx: &Context, store: &dyn Store, cmds: &Commands, hooks: &Hooks) -> Result<()> {
    if let Some(cmd) = &cmds.on_escalate {
        let mut tried = HashSet::new();
        let mut queue = |item: &ItemView| hooks.offer(Job::new(ctx, cmd, "--on-escalate", item));
        escalate::due_each(store, None, &mut tried, &mut queue)?;
    }
    if let Some(cmd) = &cmds.on_resolve {
        // Items past their `--expires-in` with nobody watching are closed as any command
        // that opens the store closes them, so that their hook runs too.
        store.expire_due(now_ms())?;
        resolved::each(store, None, &mut |call, line| {
            let item = (call.run_id.as_str(), call.call_id.as_str());
            hooks.offer(Job::of_line(cmd, resolved::FLAG, item, line));
        })?;
    }
    Ok(())
}
