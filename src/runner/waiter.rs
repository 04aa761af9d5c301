//! Waiters (SPEC §5.1): a process that stays with a run until it ends (`run`/`ask`/`plan
//! --wait`, `wait --drive`) registers itself in the store with a heartbeat, so that an answer
//! recorded elsewhere leaves the next leg to it — it has the run's working directory, keys
//! and tools. The registration ends when the waiter is dropped.
//!
//! While registered, SIGHUP, SIGINT and SIGTERM are recorded instead of ending the process
//! (`sys::signals::catch_ends`): the loop (`advance`) sees them where it pauses or prompts
//! and stops as SPEC §5.3 says (a one-step run is cancelled; another run is left for a
//! later waiter), so a cancelled CI job never leaves a stale waiter behind.

use anyhow::Result;

use crate::agent::lease::{self, Heartbeat};
use crate::store::{Lease, Location, Store};
use crate::sys::signals;

/// A registered waiter; unregisters itself when dropped.
pub struct Waiter<'a> {
    store: &'a dyn Store,
    run_id: String,
    me: Lease,
    _beat: Heartbeat,
    _ends: signals::Ends,
}

impl<'a> Waiter<'a> {
    /// Registers this process as the run's waiter.
    pub fn register(location: &Location, store: &'a dyn Store, run_id: &str) -> Result<Waiter<'a>> {
        let me = lease::mine();
        store.add_waiter(run_id, &me)?;
        Ok(Waiter::registered(location, store, run_id, me))
    }

    /// Keeps alive a waiter registration already stored (with the run it waits for).
    pub fn registered(
        location: &Location,
        store: &'a dyn Store,
        run_id: &str,
        me: Lease,
    ) -> Waiter<'a> {
        let (id, beat_as) = (run_id.to_string(), me.clone());
        let beat = Heartbeat::start(location.clone(), move |s| {
            let _ = s.beat_waiter(&id, &beat_as);
        });
        Waiter {
            store,
            run_id: run_id.to_string(),
            me,
            _beat: beat,
            _ends: signals::catch_ends(),
        }
    }
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        let _ = self.store.remove_waiter(&self.run_id, &self.me);
    }
}
