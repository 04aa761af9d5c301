//! Who drives a running run, and who waits to: the lease record both are stored as, and
//! the rule that says whether its holder still lives (SPEC §4). Pure over the facts `sys`
//! gives; the takeover policy (`agent::lease::can_take`) and the waiter check of the
//! transitions both build on it. Nothing here reads or writes the store.

use crate::sys::{self, Process};

/// Who holds a lease (a driver) or a heartbeat (a waiter), until when (Unix ms).
#[derive(Clone, Debug, PartialEq)]
pub struct Lease {
    pub token: String,
    /// The holder's host identity (`sys::host_id`).
    pub host: String,
    pub pid: u32,
    /// The holder's process start time (`sys::Process`), 0 when unknown.
    pub start: u64,
    pub expires_at: i64,
}

/// Whether the process behind `lease` (a driver's or a waiter's) still runs: on this host,
/// its pid and start time say so; elsewhere, only time can tell (`expires_at`).
pub fn holder_alive(lease: &Lease, now: i64) -> bool {
    holder_alive_with(lease, now, sys::host_id(), |p| p.is_alive())
}

/// `holder_alive` with the host identity and the process check given.
pub fn holder_alive_with(
    lease: &Lease,
    now: i64,
    host: &str,
    alive: impl Fn(Process) -> bool,
) -> bool {
    lease.expires_at > now
        && (lease.host != host
            || alive(Process {
                pid: lease.pid,
                start: lease.start,
            }))
}
