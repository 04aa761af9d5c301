//! Waiting for a run to end: `wait`, and `--wait` on `run`, `ask` and `plan`. A waiter that
//! drives registers itself in the store with a heartbeat, so answering processes only record
//! and leave the next leg to it (it has the run's working directory, keys and tools).
//! Polls the store a few times a second; never spins.

use std::time::{Duration, Instant};

use anyhow::Result;

use super::{flow, Ctx};
use crate::agent::lease::{self, Heartbeat};
use crate::domain::RunStatus;
use crate::error::{fail, Error, Kind};
use crate::store::{now_ms, Lease, Run, Store};

const POLL: Duration = Duration::from_millis(200);

/// A registered waiter; unregisters itself when dropped.
pub struct Waiter<'a> {
    store: &'a dyn Store,
    run_id: String,
    me: Lease,
    _beat: Heartbeat,
}

impl<'a> Waiter<'a> {
    pub fn register(ctx: &Ctx, store: &'a dyn Store, run_id: &str) -> Result<Waiter<'a>> {
        let me = lease::mine();
        store.add_waiter(run_id, &me)?;
        Ok(Waiter::registered(ctx, store, run_id, me))
    }

    /// A waiter the store holds already (registered with its run): keeps its heartbeat.
    pub fn registered(ctx: &Ctx, store: &'a dyn Store, run_id: &str, me: Lease) -> Waiter<'a> {
        let (id, beat_as) = (run_id.to_string(), me.clone());
        let beat = Heartbeat::start(ctx.location.clone(), move |s| {
            let _ = s.beat_waiter(&id, &beat_as);
        });
        Waiter {
            store,
            run_id: run_id.to_string(),
            me,
            _beat: beat,
        }
    }
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        let _ = self.store.remove_waiter(&self.run_id, &self.me);
    }
}

pub struct WaitOptions {
    /// Drive the run when an answer leaves it running without a driver.
    pub drive: bool,
    pub deadline: Option<Instant>,
    /// At the deadline, close the pending items as expired (the run fails).
    pub expire_at_deadline: bool,
}

pub fn deadline(timeout: Option<Duration>) -> Option<Instant> {
    timeout.map(|t| Instant::now() + t)
}

/// Blocks until the run is neither running nor suspended and returns it; a passed deadline
/// is a `TimedOut` error.
pub fn until_end(ctx: &Ctx, store: &dyn Store, run_id: &str, opts: &WaitOptions) -> Result<Run> {
    loop {
        store.expire_due(now_ms())?;
        let run = store
            .run(run_id)?
            .ok_or_else(|| Error::not_found(format!("run {run_id} was deleted")))?;
        if run.status.is_finished() {
            return Ok(run);
        }
        let free = lease::can_take(run.lease.as_ref(), now_ms()).is_ok();
        if opts.drive && run.status == RunStatus::Running && free {
            let provider = flow::provider_for(&run)?;
            let me = lease::mine();
            let expected = run.lease.as_ref().map(|l| l.token.as_str());
            if store.take_lease(run_id, RunStatus::Running, expected, &me)? {
                let status = flow::drive_leg(ctx, store, run_id, &me, provider.as_ref())?;
                if status == RunStatus::Suspended {
                    flow::report(ctx, store, run_id, status, true)?;
                }
                continue;
            }
        }
        if opts.deadline.is_some_and(|d| Instant::now() >= d) {
            if opts.expire_at_deadline {
                store.expire_run(
                    run_id,
                    "the --timeout passed before an answer came; the pending items expired",
                )?;
            }
            return fail(Error::new(
                Kind::TimedOut,
                format!("timed out waiting for run {run_id}"),
            ));
        }
        store.wait_for_change(run_id, POLL)?;
    }
}
