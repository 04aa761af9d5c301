//! Many people at once: `workers` processes at a time answer every pending item of the
//! store, each item by exactly one process. Every process must succeed; a store error
//! about a lock (held past the busy timeout, a deadlock) counts as a lock error.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::lifecycle::Item;
use crate::spawn::Runner;

/// How a lost race for a lock reads: SQLite's busy timeout; PostgreSQL's deadlocks,
/// lock timeouts and serialization failures.
const LOCK_ERRORS: [&str; 5] = [
    "locked",
    "busy",
    "deadlock",
    "lock timeout",
    "could not serialize",
];

pub struct Outcome {
    pub items: usize,
    pub succeeded: usize,
    pub lock_errors: usize,
    pub other_errors: Vec<String>,
    pub elapsed: Duration,
}

pub fn answer_all(runner: &Runner, items: Vec<Item>, workers: usize) -> Outcome {
    let total = items.len();
    let queue = Mutex::new(items);
    let results = Mutex::new((0usize, 0usize, Vec::new()));
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let Some(item) = queue.lock().ok().and_then(|mut q| q.pop()) else {
                    return;
                };
                let (args, code) = item.answer();
                let out = runner.command(&args).output();
                let Ok(mut r) = results.lock() else { return };
                match out {
                    Ok(o) if o.status.code() == Some(code) => r.0 += 1,
                    Ok(o) => {
                        let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
                        if LOCK_ERRORS.iter().any(|l| err.contains(l)) {
                            r.1 += 1;
                        }
                        r.2.push(format!("exit {:?}: {err}", o.status.code()));
                    }
                    Err(e) => r.2.push(e.to_string()),
                }
            });
        }
    });
    let elapsed = start.elapsed();
    let (succeeded, lock_errors, other_errors) = results.into_inner().unwrap_or_default();
    Outcome {
        items: total,
        succeeded,
        lock_errors,
        other_errors,
        elapsed,
    }
}
