//! Serve's own `--on-escalate CMD` (SPEC §14): while serve runs, one thread looks every
//! `EVERY` for items of any run of the store whose `--escalate-after` has passed and runs
//! the command for each, through `runner::escalate::due`, the one place that claims an
//! escalation in the store's transaction — so of serve, a second serve and a run's waiter,
//! exactly one runs it for an item.
//!
//! It never runs a command a run names (the command is serve's flag or environment), and it
//! never holds up a request: it has its own thread and its own store connection. The
//! commands run from serve's one queue of hooks (`hooks`).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::decide::Serving;
use super::hooks::Hooks;
use super::pool;
use crate::items::ItemView;
use crate::output::Out;
use crate::runner::escalate;
use crate::runner::notify::Job;
use crate::store::Store;

/// How often the store is asked what is due.
const EVERY: Duration = Duration::from_secs(1);
/// How often a wait between looks checks that serve is stopping.
const TICK: Duration = Duration::from_millis(100);

pub struct Escalator {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Escalator {
    pub fn start(serving: Serving, cmd: String, hooks: Arc<Hooks>) -> Escalator {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || watch(&serving, &cmd, &hooks, &stopping));
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

fn watch(serving: &Serving, cmd: &str, hooks: &Hooks, stop: &AtomicBool) {
    let out = Out::new(false);
    let ctx = serving.context(&out);
    let mut store: Option<Box<dyn Store>> = None;
    let mut failing = false;
    while !stop.load(Ordering::Relaxed) {
        if store.is_none() {
            store = pool::open(&serving.location).ok();
        }
        if let Some(s) = store.as_deref() {
            // What is due and unclaimed is asked afresh each time: nothing kept grows.
            let mut tried = HashSet::new();
            let mut queue =
                |item: &ItemView| hooks.offer(Job::new(&ctx, cmd, "--on-escalate", item));
            match escalate::due_each(s, None, &mut tried, &mut queue) {
                Ok(()) => failing = false,
                Err(e) => {
                    if !failing {
                        eprintln!("warning: looking for escalations failed: {e:#}");
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
