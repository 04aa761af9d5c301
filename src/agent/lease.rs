//! The driver lease: who advances a running run, and when someone else may take over.
//!
//! A driver renews its lease every 2 s from a thread of its own; a lease not renewed for
//! 10 s has expired, and one whose process is gone on this host (the same pid and start
//! time, `sys::Process`) can be taken at once. A lease of another host is only ever taken
//! once it has expired: its pids mean nothing here.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::Thread;
use std::time::{Duration, Instant};

pub use crate::store::holder_alive;
use crate::store::{self, holder_alive_with, Lease, Location, Store};
use crate::sys::{self, Process};

/// A fresh lease for this process.
pub fn mine() -> Lease {
    let me = Process::me();
    Lease {
        token: uuid::Uuid::new_v4().simple().to_string(),
        host: sys::host_id().to_string(),
        pid: me.pid,
        start: me.start,
        expires_at: store::now_ms() + store::LEASE_MS,
    }
}

/// Why a running run's lease cannot be taken.
#[derive(Debug, PartialEq)]
pub enum Held {
    /// A live driver holds it (its description, seconds until it expires).
    Live(String, i64),
}

/// Whether the holder of `lease` is gone: expired, or its process is dead on this host.
pub fn can_take(lease: Option<&Lease>, now: i64) -> Result<(), Held> {
    can_take_with(lease, now, sys::host_id(), |p| p.is_alive())
}

fn can_take_with(
    lease: Option<&Lease>,
    now: i64,
    host: &str,
    alive: impl Fn(Process) -> bool,
) -> Result<(), Held> {
    let Some(l) = lease else { return Ok(()) };
    if !holder_alive_with(l, now, host, alive) {
        return Ok(());
    }
    let place = if l.host == host {
        "this host"
    } else {
        l.host.as_str()
    };
    Err(Held::Live(
        format!("process {} on {place}", l.pid),
        (l.expires_at - now + 999) / 1000,
    ))
}

/// Calls `beat` every 2 s from a thread of its own, with a connection of that thread, until
/// dropped: keeps a driver's lease or a waiter's heartbeat alive. The connection is opened
/// only when the first beat is due, so short legs cost nothing; the thread waits parked,
/// which allocates nothing, so that it makes no memory arena of its own (a few system calls
/// and page faults) before its first beat either.
///
/// Dropping it stops the thread at its next wake-up without waiting for it: a beat still
/// under way can only touch a lease or waiter row that names this holder's token, which
/// the holder has released or replaced by then, so there is nothing to wait for (and a
/// short command does not pay for a thread join).
pub struct Heartbeat {
    stop: Arc<AtomicBool>,
    thread: Option<Thread>,
}

impl Heartbeat {
    pub fn start(location: Location, beat: impl Fn(&dyn Store) + Send + 'static) -> Heartbeat {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        // Without a thread (the system refused one) a long model call may outlive the
        // lease; the driver then finds it lost at its next commit and stops.
        let spawned = std::thread::Builder::new().spawn(move || {
            let mut conn = None;
            loop {
                // `park_timeout` may return early (spuriously, or for the drop's unpark).
                let due = Instant::now() + Duration::from_millis(store::RENEW_MS);
                loop {
                    if stopped.load(Ordering::Acquire) {
                        return;
                    }
                    match due.checked_duration_since(Instant::now()) {
                        Some(left) if !left.is_zero() => std::thread::park_timeout(left),
                        _ => break,
                    }
                }
                if conn.is_none() {
                    conn = store::open(&location, store::Access::Existing)
                        .ok()
                        .flatten();
                }
                if let Some(s) = &conn {
                    beat(s.as_ref());
                }
            }
        });
        Heartbeat {
            stop,
            thread: spawned.ok().map(|h| h.thread().clone()),
        }
    }

    /// Keeps `lease` on `run_id`; a failed renewal is seen by the driver at its next commit.
    pub fn lease(location: Location, run_id: String, lease: Lease) -> Heartbeat {
        Heartbeat::start(location, move |s| {
            let _ = s.renew_lease(&run_id, &lease);
        })
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = &self.thread {
            t.unpark();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(host: &str, pid: u32, expires_at: i64) -> Lease {
        Lease {
            token: "t".into(),
            host: host.into(),
            pid,
            start: 7,
            expires_at,
        }
    }

    #[test]
    fn takeover_rules() {
        let alive = |_| true;
        let dead = |_| false;
        assert_eq!(can_take_with(None, 0, "h", alive), Ok(()));
        // Expired.
        assert_eq!(
            can_take_with(Some(&lease("h", 1, 100)), 100, "h", alive),
            Ok(())
        );
        // Its process is gone on this host.
        assert_eq!(
            can_take_with(Some(&lease("h", 1, 5000)), 100, "h", dead),
            Ok(())
        );
        // Another host's pid means nothing here: only expiry frees it.
        assert_eq!(
            can_take_with(Some(&lease("other", 1, 5000)), 100, "h", dead),
            Err(Held::Live("process 1 on other".into(), 5))
        );
        assert!(can_take_with(Some(&lease("h", 1, 5000)), 100, "h", alive).is_err());
    }

    #[test]
    fn the_start_time_is_part_of_the_check() {
        let seen = std::cell::Cell::new(None);
        let l = lease("h", 42, 5000);
        holder_alive_with(&l, 0, "h", |p| {
            seen.set(Some(p));
            true
        });
        assert_eq!(seen.get(), Some(Process { pid: 42, start: 7 }));
    }
}
