//! Serve's own hooks (`--on-suspend`, `--on-escalate`) from one bounded queue (SPEC §13):
//! `WORKERS` threads run them, one at a time each, and at most `QUEUE` wait; one more is
//! dropped, counted and logged, never lost silently, so that a flood of items cannot make
//! serve fork at will. Each hook runs in a process group of its own that dies with serve:
//! killed when serve stops (SIGTERM, SIGINT), and by its first process when serve is
//! killed (the kernel's death signal: `Tie::Thread`). What still waits when serve stops is not run,
//! and said so.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::output::sanitize;
use crate::runner::notify::{Job, Tie};

/// Hooks running at once at most.
pub const WORKERS: usize = 4;
/// Hooks waiting for a worker at most; past it, dropped.
pub const QUEUE: usize = 64;
/// How often an idle worker checks that serve is stopping.
const TICK: Duration = Duration::from_millis(100);

pub struct Hooks {
    tx: SyncSender<Job>,
    rx: Arc<Mutex<Receiver<Job>>>,
    stop: Arc<AtomicBool>,
    dropped: AtomicU64,
    workers: Mutex<Vec<JoinHandle<()>>>,
}

impl Hooks {
    pub fn start() -> Arc<Hooks> {
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        let rx = Arc::new(Mutex::new(rx));
        let stop = Arc::new(AtomicBool::new(false));
        let workers = (0..WORKERS)
            .map(|_| {
                let (rx, stop) = (rx.clone(), stop.clone());
                std::thread::spawn(move || work(&rx, &stop))
            })
            .collect();
        Arc::new(Hooks {
            tx,
            rx,
            stop,
            dropped: AtomicU64::new(0),
            workers: Mutex::new(workers),
        })
    }

    /// Queues `job`, or drops it (counted and logged) when `QUEUE` wait already.
    pub fn offer(&self, job: Job) {
        if let Err(TrySendError::Full(job) | TrySendError::Disconnected(job)) =
            self.tx.try_send(job)
        {
            let n = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            warn(&job.failed(&format!(
                "was not run: {QUEUE} hooks wait already ({n} dropped since serve started)"
            )));
        }
    }

    /// Kills the hooks that run, waits for their workers, and says which waiting ones were
    /// not run. Called when serve stops (and when dropped).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let workers = std::mem::take(&mut *self.workers.lock().unwrap_or_else(|p| p.into_inner()));
        for w in workers {
            let _ = w.join();
        }
        let rx = self.rx.lock().unwrap_or_else(|p| p.into_inner());
        while let Ok(job) = rx.try_recv() {
            warn(&job.failed("was not run: serve stopped"));
        }
    }
}

impl Drop for Hooks {
    fn drop(&mut self) {
        self.stop();
    }
}

fn work(rx: &Mutex<Receiver<Job>>, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        let next = rx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .recv_timeout(TICK);
        let job = match next {
            Ok(job) => job,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        if let Err(problem) = job.run(Tie::Thread, stop) {
            warn(&job.failed(&problem));
        }
    }
}

fn warn(line: &str) {
    eprintln!("warning: {}", sanitize::one_line(line));
}
