//! The driver lease: who advances a running run, and when someone else may take over.
//!
//! A driver renews its lease every 2 s from a thread of its own; a lease not renewed for
//! 10 s has expired, and one whose process is gone on this host can be taken at once.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Duration;

use crate::store::{self, Lease, Location, Store};

/// This host's name (for leases).
pub fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into the buffer we own.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Whether a process with this pid exists on this host.
pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// A fresh lease for this process.
pub fn mine() -> Lease {
    Lease {
        token: uuid::Uuid::new_v4().simple().to_string(),
        host: host_name(),
        pid: std::process::id(),
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
pub fn can_take(
    lease: Option<&Lease>,
    now: i64,
    host: &str,
    alive: impl Fn(u32) -> bool,
) -> Result<(), Held> {
    let Some(l) = lease else { return Ok(()) };
    if l.expires_at <= now || (l.host == host && !alive(l.pid)) {
        return Ok(());
    }
    Err(Held::Live(
        format!("process {} on {}", l.pid, l.host),
        (l.expires_at - now + 999) / 1000,
    ))
}

/// Calls `beat` every 2 s from a thread of its own, with a connection of that thread, until
/// dropped: keeps a driver's lease or a waiter's heartbeat alive. The connection is opened
/// only when the first beat is due, so short legs cost nothing.
///
/// Dropping it stops the thread at its next wake-up without waiting for it: a beat still
/// under way can only touch a lease or waiter row that names this holder's token, which
/// the holder has released or replaced by then, so there is nothing to wait for (and a
/// short command does not pay for a thread join).
pub struct Heartbeat {
    _stop: Sender<()>,
}

impl Heartbeat {
    pub fn start(location: Location, beat: impl Fn(&dyn Store) + Send + 'static) -> Heartbeat {
        let (tx, rx) = mpsc::channel::<()>();
        // Without a thread (the system refused one) a long model call may outlive the
        // lease; the driver then finds it lost at its next commit and stops.
        let _ = std::thread::Builder::new().spawn(move || {
            let mut conn = None;
            loop {
                match rx.recv_timeout(Duration::from_millis(store::RENEW_MS)) {
                    Err(RecvTimeoutError::Timeout) => {}
                    _ => return,
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
        Heartbeat { _stop: tx }
    }

    /// Keeps `lease` on `run_id`; a failed renewal is seen by the driver at its next commit.
    pub fn lease(location: Location, run_id: String, lease: Lease) -> Heartbeat {
        Heartbeat::start(location, move |s| {
            let _ = s.renew_lease(&run_id, &lease);
        })
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
            expires_at,
        }
    }

    #[test]
    fn takeover_rules() {
        let alive = |_| true;
        let dead = |_| false;
        assert_eq!(can_take(None, 0, "h", alive), Ok(()));
        assert_eq!(can_take(Some(&lease("h", 1, 100)), 100, "h", alive), Ok(()));
        assert_eq!(can_take(Some(&lease("h", 1, 5000)), 100, "h", dead), Ok(()));
        assert_eq!(
            can_take(Some(&lease("other", 1, 5000)), 100, "h", dead),
            Err(Held::Live("process 1 on other".into(), 5))
        );
        assert!(can_take(Some(&lease("h", 1, 5000)), 100, "h", alive).is_err());
    }

    #[test]
    fn this_process_is_alive() {
        assert!(pid_alive(std::process::id()));
        assert!(!pid_alive(0));
    }
}
