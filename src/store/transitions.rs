//! The state machine of a run, written once: each transition is one transaction that
//! checks, decides and writes over a backend's rows (`backend::Tx`). Which status allows
//! what, who drives after the last answer (SPEC §5.1), how a deadline expires items, what
//! `pending` lists: here and nowhere else, for both backends.
//!
//! No SQL and no printing here; the wording of refusals is in `error.rs`.

use std::time::Duration;

use super::backend::{
    Backend, Batch, CallHead, Durability, Origin, Outcome, PendingCall, RunInsert, RunRow, Tx,
};
use super::error::{Conflict, Error, NotFound, Result};
use super::policy::{self, Ruling};
use super::{
    damage, holder_alive, identity, now_ms, Identity, Lease, LedgerEntry, LedgerFilter, LedgerKey,
    LedgerState, NewRun, PendingItem, Resolved, Run, LEASE_MS,
};
use serde_json::Value;

use crate::domain::review::{Checked, RunGate};
use crate::domain::{
    resumed_results, CallState, Event, ItemKind, Message, Resolution, RunStatus, StartedCall,
    StepCommit, StoredEvent, ToolProcess, Transition, Usage,
};

/// One decision on a pending item, as `Store::decide` takes it (SPEC §14): the person's
/// resolution, who they are (checked by the store), whether they also typed a name with
/// `--as` (a claim, refused under a policy), and for an approval with changes the arguments
/// approved in place of the model's (checked against the tool's schema by the caller).
#[derive(Clone, Copy, Debug)]
pub struct Decide<'a> {
    pub resolution: &'a Resolution,
    pub identity: &'a Identity,
    pub claimed: bool,
    pub args: Option<&'a Value>,
}

/// The `finish_reason` of a run failed because its input expired.
pub const EXPIRED: &str = "expired";
/// The `error` of a run whose items passed their `--expires-in` deadline.
const EXPIRED_ERROR: &str = "no answer came before the deadline; the pending items expired";

/// The store interface every command uses. Each backend provides `Backend`; the
/// transitions below are the same for all of them.
pub trait Store: Backend {
    /// Stores a new run, `running` under its lease, with its prompt, its first events and,
    /// for `--wait`, its waiter (registered in the same transaction, so no answer can come
    /// before the waiter exists).
    ///
    /// Its policy (SPEC §14) is resolved in the same transaction: the members of the named
    /// reviewers and groups as they are now, and who starts it, as the store checks it.
    fn create_run(&self, run: &NewRun) -> Result<Vec<StoredEvent>> {
        Ok(self.start_run(run)?.0)
    }

    /// As `create_run`, with the run as it was stored and its messages (the prompt): what
    /// its first leg starts from, without reading them again.
    fn start_run(&self, run: &NewRun) -> Result<(Vec<StoredEvent>, Run, Vec<Message>)> {
        let now = now_ms();
        let due = Due::of(run, now)?;
        write(self, Durability::Deferred, |tx| {
            let (row, events, stored) = insert_new(tx, run, &due, now)?;
            tx.notify(&row)?;
            let prompt = vec![Message::User {
                content: run.prompt.to_string(),
            }];
            Ok((events, stored, prompt))
        })
    }

    /// Records one call of an agent this store does not drive (a Claude Code session, SPEC
    /// §15) as a new step whose items wait, in one transaction: the run `run.id` is created
    /// as `start_run` creates one when it names none; else it must be a run of the same
    /// agent and starter (as the store checks who this is), running with no item pending.
    /// Either way it ends suspended on `step`'s items, with no lease, unless a live driver
    /// holds the run (a Claude Code run's leg): it suspends the run when Claude Code stops,
    /// and no decision is taken before (a run that is running has nothing to decide).
    /// Refused (nothing stored): a run of another starter (`Forbidden`), one that is
    /// finished or cancelled, or one that still has an item pending (`Conflict`).
    fn gate_step(&self, run: &NewRun, step: &StepCommit) -> Result<Vec<StoredEvent>> {
        let now = now_ms();
        let due = Due::of(run, now)?;
        self.expire_due(now)?;
        write(self, Durability::Durable, |tx| {
            let (mut row, mut events, driven) = match tx.lock_run(run.id)? {
                None => {
                    let (row, events, _) = insert_new(tx, run, &due, now)?;
                    (row, events, false)
                }
                Some(row) => {
                    let me = identity::check(tx, &run.review.starter)?;
                    identity::same_starter(&row.id, row.gate()?, &me)?;
                    if row.status != RunStatus::Running {
                        return Err(Conflict::Finished {
                            run: row.id,
                            status: row.status,
                        }
                        .into());
                    }
                    // A Claude Code run's leg (`run`, SPEC §15): its live driver holds the
                    // lease and suspends the run once Claude Code has stopped.
                    let driven = row.lease.as_ref().is_some_and(|l| holder_alive(l, now));
                    (row, Vec::new(), driven)
                }
            };
            if !driven {
                row.status = RunStatus::Suspended;
                row.lease = None;
            }
            row.usage = row.usage + step.usage;
            row.updated_at = now;
            tx.save_run(&row)?;
            let batch = Batch {
                calls: &step.calls,
                deadline: row.expires_in_ms.map(|ms| now.saturating_add(ms)),
                ..appended(Origin::Step, &step.messages, &step.events, now)
            };
            events.extend(tx.append(&row, &batch)?);
            tx.notify(&row)?;
            Ok(events)
        })
    }

    /// Ids of runs starting with `prefix`, at most `limit`.
    fn run_ids_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<String>> {
        self.run_ids_between(prefix, &format!("{prefix}\u{10FFFF}"), limit)
    }

    /// Pending items whose deadline has not passed, oldest first; `pending_in_run` counts
    /// only those.
    fn pending(&self, run_id: Option<&str>) -> Result<Vec<PendingItem>> {
        let mut items = Vec::new();
        self.each_pending(run_id, &mut |run| {
            items.extend(run);
            Ok(())
        })?;
        Ok(items)
    }

    /// `pending`, handed to `each` one run's items at a time as they are read: a listing of
    /// any length is never held whole.
    fn each_pending(
        &self,
        run_id: Option<&str>,
        each: &mut dyn FnMut(Vec<PendingItem>) -> Result<()>,
    ) -> Result<()> {
        let now = now_ms();
        let (mut run, mut url) = (Vec::new(), None);
        self.each_pending_call(run_id, &mut |call| {
            if call.0.expires_at.is_some_and(|at| at <= now) {
                return Ok(());
            }
            // A run's pending items are those of one step, stored at one time: in the
            // listing's order (time, then run) they come together.
            if run
                .first()
                .is_some_and(|(c, ..): &PendingCall| c.run_id != call.0.run_id)
            {
                hand_over(self, &mut run, &mut url, each)?;
            }
            run.push(call);
            Ok(())
        })?;
        hand_over(self, &mut run, &mut url, each)
    }

    /// The pending items of a run already read, as `pending(Some(&run.id))` gives them,
    /// from its calls: a leg reads those anyway, so this compiles no statement of its own.
    fn pending_of(&self, run: &Run) -> Result<Vec<PendingItem>> {
        let now = now_ms();
        let (calls, url) = self.calls_and_url(&run.id)?;
        let mut live: Vec<_> = calls
            .into_iter()
            .filter(|c| c.state == CallState::Pending && c.expires_at.is_none_or(|at| at > now))
            .map(|c| (c, run.agent_id.clone(), run.gate.policy.is_some()))
            .collect();
        live.sort_by_key(|(c, ..)| (c.created_at, c.step, c.seq));
        let mut items = Vec::new();
        hand_over(self, &mut live, &mut Some(url), &mut |run| {
            items = run;
            Ok(())
        })?;
        Ok(items)
    }

    /// Stores one step of a run driven under `lease`. `None` when the lease is no longer
    /// held (the run was cancelled or taken over): nothing is stored and the driver stops.
    fn commit_step(
        &self,
        run_id: &str,
        lease: &Lease,
        step: &StepCommit,
    ) -> Result<Option<Vec<StoredEvent>>> {
        Ok(self
            .store_step(run_id, lease, step)?
            .map(|(events, _)| events))
    }

    /// As `commit_step`, with the run's row as the step left it (what the driver then
    /// knows of the run without reading it again).
    fn store_step(
        &self,
        run_id: &str,
        lease: &Lease,
        step: &StepCommit,
    ) -> Result<Option<(Vec<StoredEvent>, RunRow)>> {
        let now = now_ms();
        let durability = match step.transition {
            Transition::Running => Durability::Deferred,
            _ => Durability::Durable,
        };
        write(self, durability, |tx| {
            let Some(mut run) = tx.lock_run(run_id)?.filter(|r| driven_by(r, lease)) else {
                return Ok(None);
            };
            // The step's command tools were recorded as they started; the step replaces them.
            tx.clear_running(&run)?;
            settle(&mut run, &step.transition);
            run.usage = run.usage + step.usage;
            run.lease = (run.status == RunStatus::Running).then(|| renewed(lease, now));
            run.updated_at = now;
            tx.save_run(&run)?;
            let batch = Batch {
                calls: &step.calls,
                deadline: run.expires_in_ms.map(|ms| now.saturating_add(ms)),
                ..appended(Origin::Step, &step.messages, &step.events, now)
            };
            let events = tx.append(&run, &batch)?;
            tx.notify(&run)?;
            Ok(Some((events, run.clone())))
        })
    }

    /// Extends the lease; false when it is no longer held.
    fn renew_lease(&self, run_id: &str, lease: &Lease) -> Result<bool> {
        let now = now_ms();
        write(self, Durability::Deferred, |tx| {
            let Some(mut run) = tx.lock_run(run_id)?.filter(|r| driven_by(r, lease)) else {
                return Ok(false);
            };
            run.lease = Some(renewed(lease, now));
            tx.save_run(&run)?;
            Ok(true)
        })
    }

    /// Gives the run to `lease` if it is still in `status` with the lease token `expected`
    /// (compare and swap), and sets it running.
    fn take_lease(
        &self,
        run_id: &str,
        status: RunStatus,
        expected: Option<&str>,
        lease: &Lease,
    ) -> Result<bool> {
        let now = now_ms();
        write(self, Durability::Deferred, |tx| {
            let Some(mut run) = tx.lock_run(run_id)? else {
                return Ok(false);
            };
            if run.status != status || run.lease.as_ref().map(|l| l.token.as_str()) != expected {
                return Ok(false);
            }
            run.status = RunStatus::Running;
            run.outcome.error = None;
            run.lease = Some(renewed(lease, now));
            run.updated_at = now;
            tx.save_run(&run)?;
            tx.notify(&run)?;
            Ok(true)
        })
    }

    /// Resolves one pending item exactly once. When it is the last of its step, the step's
    /// results are appended in the same transaction that sets the run running under
    /// `driver` — or with no lease when `driver` is `None` or a live waiter will drive it.
    /// When some call of the step was approved, its tool must run first: the results are
    /// then left to the driver of the next leg (`finish_step`).
    ///
    /// `who` decides, as the frontend names them; a policy judges them (`decide`).
    fn resolve(
        &self,
        run_id: &str,
        call_id: &str,
        resolution: &Resolution,
        who: &Identity,
        driver: Option<&Lease>,
    ) -> Result<Resolved> {
        let decision = Decide {
            resolution,
            identity: who,
            claimed: false,
            args: None,
        };
        self.decide(run_id, call_id, &decision, driver)
    }

    /// Records one decision on a pending item, judged by the run's policy (SPEC §14) in the
    /// same transaction: it resolves the item (then as `resolve` does), or, when the policy
    /// needs more approvals, is recorded as `Partial`. Refused: a decision the policy does
    /// not let this identity make (`Forbidden`), a second one by the same reviewer, `--as`
    /// under a policy; each changes nothing.
    fn decide(
        &self,
        run_id: &str,
        call_id: &str,
        decision: &Decide,
        driver: Option<&Lease>,
    ) -> Result<Resolved> {
        self.decide_ending(run_id, call_id, decision, driver, None)
    }

    /// As `decide`; when the decision resolves the last item of its step and nothing is
    /// left for a driver to run, `ends` (a one-step run's last step: `ask`, `plan`) is stored
    /// in the same transaction, which completes the run (SPEC §13): no process killed a
    /// moment later can leave it `running`.
    fn decide_ending(
        &self,
        run_id: &str,
        call_id: &str,
        decision: &Decide,
        driver: Option<&Lease>,
        ends: Option<&StepCommit>,
    ) -> Result<Resolved> {
        let now = now_ms();
        // Deadlines first, in a transaction of their own: a refusal below rolls back.
        self.expire_due(now)?;
        write(self, Durability::Durable, |tx| {
            let (mut run, call) = pending_call(tx, run_id, call_id)?;
            run.updated_at = now;
            match policy::ruling(tx, &run, call_id, &call, decision, now)? {
                Ruling::Partial { needed, decisions } => {
                    tx.save_run(&run)?;
                    tx.notify(&run)?;
                    Ok(Resolved::Partial { needed, decisions })
                }
                Ruling::Resolve(r) => {
                    let (resolution, checked, bound) = *r;
                    tx.resolve_call(
                        &run,
                        call_id,
                        &bound.resolving(&resolution, &checked, decision.claimed),
                    )?;
                    carry_on(tx, run, call.step, (driver, ends), now)
                }
            }
        })
    }

    /// One decision for several approval items of a run (`approve|decline --all`, SPEC
    /// §14.1), in one transaction: every one is recorded, or (a refusal of any) none is.
    /// Returns what became of each, in the order given; the run resumes at most once, on
    /// the last item that resolves its step.
    fn decide_all(
        &self,
        run_id: &str,
        call_ids: &[String],
        decision: &Decide,
        driver: Option<&Lease>,
    ) -> Result<Vec<(String, Resolved)>> {
        if decision.args.is_some() {
            return Err(Error::usage(
                "changed arguments approve one call; --all approves each call as it is",
            ));
        }
        let now = now_ms();
        self.expire_due(now)?;
        write(self, Durability::Durable, |tx| {
            let mut outcomes = Vec::with_capacity(call_ids.len());
            let mut last = None;
            for call_id in call_ids {
                let (mut run, call) = pending_call(tx, run_id, call_id)?;
                if call.kind != Some(ItemKind::Approval) {
                    return Err(Error::usage(format!(
                        "tool call {call_id} is not an approval; --all decides approval items only"
                    )));
                }
                run.updated_at = now;
                match policy::ruling(tx, &run, call_id, &call, decision, now)? {
                    Ruling::Partial { needed, decisions } => {
                        outcomes.push((call_id.clone(), Resolved::Partial { needed, decisions }));
                    }
                    Ruling::Resolve(r) => {
                        let (resolution, checked, bound) = *r;
                        tx.resolve_call(
                            &run,
                            call_id,
                            &bound.resolving(&resolution, &checked, decision.claimed),
                        )?;
                        outcomes.push((call_id.clone(), Resolved::Recorded { still_pending: 0 }));
                        last = Some((outcomes.len() - 1, call.step));
                    }
                }
            }
            let mut run = locked(tx, run_id)?;
            run.updated_at = now;
            let Some((at, step)) = last else {
                tx.save_run(&run)?;
                tx.notify(&run)?;
                return Ok(outcomes);
            };
            let end = carry_on(tx, run, step, (driver, None), now)?;
            if let Resolved::Recorded { still_pending } = end {
                for (_, o) in &mut outcomes {
                    if let Resolved::Recorded { still_pending: n } = o {
                        *n = still_pending;
                    }
                }
            } else {
                outcomes[at].1 = end;
            }
            Ok(outcomes)
        })
    }

    /// Claims the escalation of a pending item (SPEC §14): of the watchers that find it
    /// due (`--escalate-after` since it was created), exactly one gets true and runs its
    /// command; `escalatedAt` is stored.
    fn claim_escalation(&self, run_id: &str, call_id: &str) -> Result<bool> {
        let now = now_ms();
        write(self, Durability::Durable, |tx| {
            let Some(run) = tx.lock_run(run_id)? else {
                return Ok(false);
            };
            let Some(after) = run.gate()?.escalate_after else {
                return Ok(false);
            };
            match tx.call(&run, call_id)? {
                Some(c) if c.state == CallState::Pending => {}
                _ => return Ok(false),
            }
            let after_ms = i64::try_from(after.as_millis()).unwrap_or(i64::MAX);
            match tx.policies().escalation(&run, call_id)? {
                Some((created, None)) if created.saturating_add(after_ms) <= now => {}
                _ => return Ok(false),
            }
            tx.policies().set_escalated(&run, call_id, now)?;
            tx.notify(&run)?;
            Ok(true)
        })
    }

    /// Records, under `lease`, that the approved call's tool was started as `process`.
    /// False when the lease is no longer held (nothing is stored).
    fn start_tool(
        &self,
        run_id: &str,
        lease: &Lease,
        call_id: &str,
        process: &ToolProcess,
    ) -> Result<bool> {
        write(self, Durability::Deferred, |tx| {
            let Some(run) = tx.lock_run(run_id)?.filter(|r| driven_by(r, lease)) else {
                return Ok(false);
            };
            tx.set_tool_process(&run, call_id, process)?;
            Ok(true)
        })
    }

    /// Records, under `lease`, that a command tool needing no approval is about to start for
    /// a step not yet stored, so that a driver taking over waits for it (SPEC §11). False
    /// when the lease is no longer held (nothing is stored, and the tool must not run).
    fn start_inline_tool(&self, run_id: &str, lease: &Lease, call: &StartedCall) -> Result<bool> {
        let now = now_ms();
        write(self, Durability::Deferred, |tx| {
            let Some(run) = tx.lock_run(run_id)?.filter(|r| driven_by(r, lease)) else {
                return Ok(false);
            };
            tx.insert_running(&run, call, now)?;
            Ok(true)
        })
    }

    /// Stores, under `lease`, what a call's tool gave (an approved call, or a `running` one
    /// whose step could not be stored). False when the lease is no longer held; the result is
    /// then stored all the same when the run was cancelled meanwhile, so that `show` tells
    /// that the tool ran (no other driver will run it: SPEC §11).
    fn finish_tool(
        &self,
        run_id: &str,
        lease: &Lease,
        call_id: &str,
        result: &Value,
        error: Option<&Value>,
    ) -> Result<bool> {
        write(self, Durability::Durable, |tx| {
            let Some(run) = tx.lock_run(run_id)? else {
                return Ok(false);
            };
            let held = driven_by(&run, lease);
            if held || run.status == RunStatus::Cancelled {
                tx.set_tool_result(&run, call_id, (result, error))?;
            }
            Ok(held)
        })
    }

    /// Appends, under `lease`, the results of the step whose assistant message is `step`,
    /// once its approved tools have run: what `resolve` leaves to the next leg. Nothing when
    /// they were appended already. `None` when the lease is no longer held.
    fn finish_step(
        &self,
        run_id: &str,
        lease: &Lease,
        step: i64,
    ) -> Result<Option<Vec<StoredEvent>>> {
        let now = now_ms();
        write(self, Durability::Deferred, |tx| {
            let Some(mut run) = tx.lock_run(run_id)?.filter(|r| driven_by(r, lease)) else {
                return Ok(None);
            };
            if tx.message_count(&run)? != step.saturating_add(1) {
                return Ok(Some(Vec::new()));
            }
            let calls = tx.step_calls(&run, step)?;
            if let Some(c) = calls.iter().find(|c| c.left_to_driver()) {
                return Err(Error::Damaged {
                    run: run.id.clone(),
                    what: format!("the tool call {} has no result", c.call_id),
                });
            }
            run.lease = Some(renewed(lease, now));
            run.updated_at = now;
            tx.save_run(&run)?;
            let results = resumed_results(&calls);
            let origin = Origin::Results { step };
            let batch = appended(origin, &results.messages, &results.events, now);
            let events = tx.append(&run, &batch)?;
            tx.notify(&run)?;
            Ok(Some(events))
        })
    }

    /// Cancels a run that is not finished; its pending items are closed. Returns the status
    /// it had.
    fn cancel(&self, run_id: &str) -> Result<RunStatus> {
        self.cancel_because(run_id, None)
    }

    /// As `cancel`, recording `why` as the run's error (a waiter stopped by a signal).
    fn cancel_because(&self, run_id: &str, why: Option<&str>) -> Result<RunStatus> {
        let now = now_ms();
        write(self, Durability::Durable, |tx| {
            let mut run = locked(tx, run_id)?;
            let was = run.status;
            if matches!(was, RunStatus::Completed | RunStatus::Cancelled) {
                return Err(Conflict::Finished {
                    run: run.id,
                    status: was,
                }
                .into());
            }
            run.status = RunStatus::Cancelled;
            if let Some(why) = why {
                run.outcome.error = Some(why.to_string());
            }
            run.lease = None;
            run.updated_at = now;
            tx.save_run(&run)?;
            tx.close_pending(&run, CallState::Cancelled, now)?;
            tx.notify(&run)?;
            Ok(was)
        })
    }

    /// Closes every pending item whose deadline passed as expired and fails its run (finish
    /// reason `expired`). Returns how many runs it failed.
    fn expire_due(&self, now: i64) -> Result<usize> {
        if !self.any_due(now)? {
            return Ok(0);
        }
        write(self, Durability::Durable, |tx| expire_due_runs(tx, now))
    }

    /// Closes a suspended run's pending items as expired and fails it with `error`.
    /// False when the run was not suspended.
    fn expire_run(&self, run_id: &str, error: &str) -> Result<bool> {
        let now = now_ms();
        write(self, Durability::Durable, |tx| {
            match tx.lock_run(run_id)? {
                Some(run) if run.status == RunStatus::Suspended => expire(tx, run, error, now)?,
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    /// Whether a live waiter will drive the run: a heartbeat within `LEASE_MS` and, on
    /// this host, its process still there.
    fn has_waiter(&self, run_id: &str) -> Result<bool> {
        let now = now_ms();
        write(self, Durability::Deferred, |tx| {
            match tx.lock_run(run_id)? {
                Some(run) => Ok(tx.waiters(&run)?.iter().any(|w| holder_alive(w, now))),
                None => Ok(false),
            }
        })
    }

    /// Registers a process that waits for the run and drives it after answers.
    fn add_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        let now = now_ms();
        write(self, Durability::Deferred, |tx| {
            let run = locked(tx, run_id)?;
            tx.put_waiter(&run, waiter, now)
        })
    }

    /// A waiter's heartbeat.
    fn beat_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        let now = now_ms();
        write(self, Durability::Deferred, |tx| {
            match tx.lock_run(run_id)? {
                Some(run) => tx.beat_waiter(&run, &waiter.token, now),
                None => Ok(()),
            }
        })
    }

    fn remove_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        write(self, Durability::Deferred, |tx| {
            match tx.lock_run(run_id)? {
                Some(run) => tx.remove_waiter(&run, &waiter.token),
                None => Ok(()),
            }
        })
    }

    /// Adds the user's next message to a completed run and sets it running under `lease`.
    fn reply(&self, run_id: &str, message: &str, lease: &Lease) -> Result<()> {
        identity::not_inside_agent(run_id)?;
        let now = now_ms();
        write(self, Durability::Durable, |tx| {
            let mut run = locked(tx, run_id)?;
            if run.status != RunStatus::Completed {
                return Err(Conflict::NotCompleted {
                    run: run.id,
                    status: run.status,
                }
                .into());
            }
            run.status = RunStatus::Running;
            run.outcome.output = None;
            run.outcome.finish_reason = None;
            run.lease = Some(renewed(lease, now));
            run.updated_at = now;
            tx.save_run(&run)?;
            let user = [Message::User {
                content: message.to_string(),
            }];
            tx.append(&run, &appended(Origin::Reply, &user, &[], now))?;
            tx.notify(&run)
        })
    }

    /// Claims the right to send an answer to a pending call of a Mastra server (the ledger,
    /// SPEC §12): of the processes sharing this store, exactly one gets it for a key; the
    /// others get `Conflict::Answered` naming who did. The entry is `Sending`, held by
    /// `entry.holder`.
    fn claim_answer(&self, entry: &LedgerEntry) -> Result<()> {
        write(self, Durability::Durable, |tx| {
            // A claim committed by another transaction while this one waited is read again;
            // one released meanwhile is gone, and the insert is tried once more.
            for _ in 0..3 {
                if let Some(found) = tx.ledger_entry(&entry.key)? {
                    return Err(answered(found));
                }
                if tx.insert_ledger(entry)? {
                    return Ok(());
                }
            }
            Err(Error::usage(format!(
                "the ledger entry of tool call {} kept changing; try again",
                entry.key.tool_call_id
            )))
        })
    }

    /// The server accepted the answer of `holder` and streamed the resumed leg, which ended
    /// as `outcome`. False when the entry is not that holder's.
    ///
    /// Handed to the OS only (`Deferred`): the server holds the run and how its leg ended,
    /// durably; the ledger's durable fact is the claim, committed before anything was sent.
    /// A settle lost to a power cut leaves a claim whose holder is gone, which the next
    /// command treats as delivered unless the server still lists the call (`claims`), so an
    /// answer the server consumed is not sent again; only `wait` then cannot say how the
    /// leg ended.
    fn settle_answer(&self, key: &LedgerKey, holder: &str, outcome: &str) -> Result<bool> {
        let now = now_ms();
        write(self, Durability::Deferred, |tx| {
            let Some(mut entry) = tx.ledger_entry(key)?.filter(|e| e.holder.token == holder) else {
                return Ok(false);
            };
            entry.state = LedgerState::Delivered;
            entry.outcome = Some(outcome.to_string());
            entry.updated_at = now;
            tx.save_ledger(&entry)?;
            Ok(true)
        })
    }

    /// Gives up the claim of `holder` on an answer that never reached the server, so that
    /// another one may be sent. False when the entry is not that holder's, or was delivered.
    fn release_answer(&self, key: &LedgerKey, holder: &str) -> Result<bool> {
        write(self, Durability::Durable, |tx| {
            match tx.ledger_entry(key)? {
                Some(e) if e.holder.token == holder && e.state == LedgerState::Sending => {
                    tx.delete_ledger(key)?;
                    Ok(true)
                }
                _ => Ok(false),
            }
        })
    }

    /// Claims an answer whose entry is held by a stale claim (`stale`, the holder's token:
    /// its delivery unknown, its holder gone or silent past the deadlines, the call still
    /// suspended on the server): that claim is released and this one takes its place, in one
    /// transaction, so of the processes that saw the same stale claim exactly one takes it;
    /// the others get `Conflict::Answered` naming the new holder.
    fn take_over_answer(&self, entry: &LedgerEntry, stale: &str) -> Result<()> {
        write(self, Durability::Durable, |tx| {
            match tx.ledger_entry(&entry.key)? {
                Some(found)
                    if found.holder.token == stale && found.state == LedgerState::Sending =>
                {
                    tx.delete_ledger(&entry.key)?;
                }
                Some(found) => return Err(answered(found)),
                None => {}
            }
            if tx.insert_ledger(entry)? {
                return Ok(());
            }
            match tx.ledger_entry(&entry.key)? {
                Some(found) => Err(answered(found)),
                None => Err(Error::usage(format!(
                    "the ledger entry of tool call {} kept changing; try again",
                    entry.key.tool_call_id
                ))),
            }
        })
    }

    /// At most `limit` answers this store sent to a server's runs whose id starts with
    /// `run_prefix` (`""`: all runs), only those whose delivery is unknown when
    /// `sending_only`, oldest first.
    fn answers_matching(
        &self,
        server: &str,
        run_prefix: &str,
        sending_only: bool,
        limit: i64,
    ) -> Result<Vec<LedgerEntry>> {
        write(self, Durability::Deferred, |tx| {
            tx.ledger_matching(&LedgerFilter {
                server,
                run_prefix,
                sending_only,
                limit,
            })
        })
    }

    /// Who this process is where the store checks the session itself, as a decision made
    /// here would be checked (PostgreSQL: the reviewer mapped to the session's role, else
    /// the role); `None` where the store checks the OS user a command names (SQLite).
    fn session_identity(&self) -> Result<Option<Checked>> {
        write(self, Durability::Deferred, identity::session)
    }

    /// `who` as the store checks it (the reviewer it maps to, or what it is): what a run it
    /// starts records as its starter.
    fn checked(&self, who: &Identity) -> Result<Checked> {
        write(self, Durability::Deferred, |tx| identity::check(tx, who))
    }

    /// The answers this store sent to one run of a server, oldest first.
    fn answers_of_run(&self, server: &str, run_id: &str) -> Result<Vec<LedgerEntry>> {
        write(self, Durability::Deferred, |tx| {
            tx.ledger_of_run(server, run_id)
        })
    }
}

impl<B: Backend> Store for B {}

/// The refusal of a claim that another process holds.
fn answered(found: LedgerEntry) -> Error {
    Conflict::Answered {
        run: found.key.run_id,
        call: found.key.tool_call_id,
        kind: found.key.kind,
        by: found.by,
        state: found.state,
    }
    .into()
}

/// Hands one run's live pending items to `each` together (and takes them from `run`),
/// each with how many its run has and its inbox page; the inbox's public URL is read (into
/// `url`) at the first item of a listing.
fn hand_over(
    store: &(impl Backend + ?Sized),
    run: &mut Vec<PendingCall>,
    url: &mut Option<Option<String>>,
    each: &mut dyn FnMut(Vec<PendingItem>) -> Result<()>,
) -> Result<()> {
    if run.is_empty() {
        return Ok(());
    }
    if url.is_none() {
        *url = Some(store.setting(super::reviewers::PUBLIC_URL)?);
    }
    let base = url.as_ref().and_then(Option::as_deref);
    let pending_in_run = run.len();
    let items = run
        .drain(..)
        .map(|(call, agent_id, gated)| PendingItem {
            pending_in_run,
            url: base.map(|b| crate::links::item_url(b, &call.run_id, &call.call_id)),
            call,
            agent_id,
            gated,
        })
        .collect();
    each(items)
}

/// Runs `f` in one write transaction of `store` and returns its value.
pub(super) fn write<T>(
    store: &(impl Backend + ?Sized),
    durability: Durability,
    mut f: impl FnMut(&mut dyn Tx) -> Result<T>,
) -> Result<T> {
    let mut value = None;
    store.transact(durability, &mut |tx| {
        value = Some(f(tx)?);
        Ok(())
    })?;
    Ok(value.expect("a transaction commits only after its body succeeded"))
}

/// The run, locked; not found is an error.
fn locked(tx: &mut dyn Tx, run_id: &str) -> Result<RunRow> {
    tx.lock_run(run_id)?.ok_or_else(|| {
        NotFound::Run {
            run: run_id.to_string(),
        }
        .into()
    })
}

/// The run, locked, and its call `call_id`, which must be pending in a suspended run.
fn pending_call(tx: &mut dyn Tx, run_id: &str, call_id: &str) -> Result<(RunRow, CallHead)> {
    let missing = || NotFound::Call {
        run: run_id.to_string(),
        call: call_id.to_string(),
    };
    let (run, call) = tx
        .lock_run_with_call(run_id, call_id)?
        .ok_or_else(missing)?;
    let call = call.ok_or_else(missing)?;
    if call.state != CallState::Pending {
        return Err(Conflict::NotPending {
            call: call_id.to_string(),
            state: call.state,
            by: call.resolved_by,
        }
        .into());
    }
    if run.status != RunStatus::Suspended {
        return Err(Conflict::NotSuspended {
            run: run.id,
            status: run.status,
        }
        .into());
    }
    Ok((run, call))
}

/// After an item of `step` was resolved (or closed): the run waits while others are
/// pending; else it is running again under `driver` (none when a live waiter will drive it)
/// with the step's results appended, unless some result is the next leg's to make (an
/// approved tool, an item closed at its deadline). With `ends` (a one-step run's last
/// step), the run does not run again: that step is stored after the results, as its
/// driver would store it, and the run ends here.
fn carry_on(
    tx: &mut dyn Tx,
    mut run: RunRow,
    step: i64,
    (driver, ends): (Option<&Lease>, Option<&StepCommit>),
    now: i64,
) -> Result<Resolved> {
    let (calls, waiters) = tx.step_calls_and_waiters(&run, step)?;
    let still_pending = calls
        .iter()
        .filter(|c| c.state == CallState::Pending)
        .count();
    if still_pending > 0 {
        tx.save_run(&run)?;
        tx.notify(&run)?;
        return Ok(Resolved::Recorded { still_pending });
    }
    let waiter = waiters.iter().any(|w| holder_alive(w, now));
    if let Some(last) = ends.filter(|_| !calls.iter().any(|c| c.left_to_driver())) {
        let results = resumed_results(&calls);
        let origin = Origin::Results { step };
        let batch = appended(origin, &results.messages, &results.events, now);
        settle(&mut run, &last.transition);
        run.usage = run.usage + last.usage;
        run.lease = None;
        tx.save_run(&run)?;
        let mut events = tx.append(&run, &batch)?;
        let batch = Batch {
            calls: &last.calls,
            ..appended(Origin::Step, &last.messages, &last.events, now)
        };
        events.extend(tx.append(&run, &batch)?);
        tx.notify(&run)?;
        return Ok(Resolved::Ended { events, waiter });
    }
    let driver = driver.filter(|_| !waiter);
    run.status = RunStatus::Running;
    run.lease = driver.map(|l| renewed(l, now));
    tx.save_run(&run)?;
    if calls.iter().any(|c| c.left_to_driver()) {
        tx.notify(&run)?;
        return Ok(Resolved::Resumed {
            events: Vec::new(),
            driving: driver.is_some(),
        });
    }
    let results = resumed_results(&calls);
    let origin = Origin::Results { step };
    let batch = appended(origin, &results.messages, &results.events, now);
    let events = tx.append(&run, &batch)?;
    tx.notify(&run)?;
    Ok(Resolved::Resumed {
        events,
        driving: driver.is_some(),
    })
}

/// Whether `lease` drives the run.
fn driven_by(run: &RunRow, lease: &Lease) -> bool {
    run.status == RunStatus::Running && run.lease.as_ref().is_some_and(|l| l.token == lease.token)
}

/// `lease`, valid for `LEASE_MS` from `now`.
fn renewed(lease: &Lease, now: i64) -> Lease {
    Lease {
        expires_at: now.saturating_add(LEASE_MS),
        ..lease.clone()
    }
}

/// The run's status, output, finish reason and error after a step.
fn settle(run: &mut RunRow, transition: &Transition) {
    run.status = transition.status();
    run.outcome.error = None;
    match transition {
        Transition::Running | Transition::Suspended => {}
        Transition::Completed {
            output,
            finish_reason,
        } => {
            run.outcome.output = Some(output.clone());
            run.outcome.finish_reason = Some(finish_reason.clone());
        }
        Transition::Failed { error } => run.outcome.error = Some(error.clone()),
    }
}

/// A batch of messages and events (no calls).
fn appended<'a>(
    origin: Origin,
    messages: &'a [Message],
    events: &'a [Event],
    at: i64,
) -> Batch<'a> {
    Batch {
        origin,
        messages,
        calls: &[],
        deadline: None,
        events,
        at,
    }
}

/// `expires_in` in milliseconds, refused when a deadline that far from `now` cannot be
/// stored.
fn offset_ms(expires_in: Duration, now: i64) -> Result<i64> {
    i64::try_from(expires_in.as_millis())
        .ok()
        .filter(|ms| now.checked_add(*ms).is_some())
        .ok_or_else(|| {
            Error::usage(format!(
                "an expiry {}s from now is too far in the future to store",
                expires_in.as_secs()
            ))
        })
}

/// Closes the pending items of every run whose deadline passed and fails those runs, or,
/// when the run declared another outcome (`--on-expiry decline|reject`, SPEC §14), sets it
/// running again with no driver: its waiter (or `resume`) drives on, and the model is told
/// that the items expired, never that they were approved or answered. A run whose row
/// cannot be read is left alone (with a warning).
fn expire_due_runs(tx: &mut dyn Tx, now: i64) -> Result<usize> {
    let mut failed = 0;
    for id in tx.due_runs(now)? {
        match tx.lock_run(&id) {
            Ok(Some(mut run)) if run.status == RunStatus::Suspended => {
                if !run.gate()?.on_expiry.goes_on() {
                    expire(tx, run, EXPIRED_ERROR, now)?;
                    failed += 1;
                    continue;
                }
                tx.close_pending(&run, CallState::Expired, now)?;
                run.updated_at = now;
                // A suspended run's last message is the step that waits.
                let step = tx.message_count(&run)?.saturating_sub(1);
                carry_on(tx, run, step, (None, None), now)?;
            }
            Ok(_) => {}
            Err(Error::Damaged { run, what }) => damage::warn(&run, &what),
            Err(e) => return Err(e),
        }
    }
    Ok(failed)
}

/// Closes the run's pending items as expired and fails it with `error`.
fn expire(tx: &mut dyn Tx, mut run: RunRow, error: &str, now: i64) -> Result<()> {
    tx.close_pending(&run, CallState::Expired, now)?;
    run.status = RunStatus::Failed;
    run.outcome.finish_reason = Some(EXPIRED.to_string());
    run.outcome.error = Some(error.to_string());
    run.lease = None;
    run.updated_at = now;
    tx.save_run(&run)?;
    tx.notify(&run)
}

/// The deadlines of a new run, as offsets from its start.
struct Due {
    expires_in_ms: Option<i64>,
    escalate_after_ms: Option<i64>,
}

impl Due {
    fn of(run: &NewRun, now: i64) -> Result<Due> {
        Ok(Due {
            expires_in_ms: run.expires_in.map(|d| offset_ms(d, now)).transpose()?,
            escalate_after_ms: run
                .review
                .escalate_after
                .map(|d| offset_ms(d, now))
                .transpose()?,
        })
    }
}

/// Inserts a new run, `running` under its lease, with its policy resolved (who starts it,
/// as the store checks it), its waiter, its prompt and its first events: the row, the
/// events stored, and the run as stored.
fn insert_new(
    tx: &mut dyn Tx,
    run: &NewRun,
    due: &Due,
    now: i64,
) -> Result<(RunRow, Vec<StoredEvent>, Run)> {
    let lease = renewed(run.lease, now);
    let started_by = identity::check(tx, &run.review.starter)?;
    let policy = policy::resolve_spec(tx, &run.review.policy, started_by.reviewer(), run.agent_id)?;
    let insert = RunInsert {
        new: run,
        lease: &lease,
        expires_in_ms: due.expires_in_ms,
        at: now,
        os_uid: crate::sys::euid(),
        policy: policy.as_ref(),
        started_by: &started_by,
        on_expiry: run.review.on_expiry,
        escalate_after_ms: due.escalate_after_ms,
    };
    let gate = RunGate {
        policy: policy.clone(),
        started_by: Some(started_by.clone()),
        on_expiry: run.review.on_expiry,
        escalate_after: due
            .escalate_after_ms
            .map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0))),
    };
    let row = RunRow {
        key: tx.insert_run(&insert)?,
        id: run.id.to_string(),
        status: RunStatus::Running,
        usage: Usage::default(),
        outcome: Outcome::default(),
        lease: Some(lease.clone()),
        expires_in_ms: due.expires_in_ms,
        updated_at: now,
        gate: Ok(gate.clone()),
    };
    if let Some(waiter) = run.waiter {
        tx.put_waiter(&row, waiter, now)?;
    }
    let prompt = [Message::User {
        content: run.prompt.to_string(),
    }];
    let events = tx.append(&row, &appended(Origin::Prompt, &prompt, run.events, now))?;
    let stored = Run {
        id: row.id.clone(),
        agent_id: run.agent_id.to_string(),
        agent: run.agent.clone(),
        cwd: run.cwd.to_string(),
        host: Some(run.lease.host.clone()),
        os_uid: Some(insert.os_uid),
        status: row.status,
        output: None,
        finish_reason: None,
        error: None,
        usage: row.usage,
        lease: row.lease.clone(),
        created_at: now,
        updated_at: now,
        gate,
    };
    Ok((row, events, stored))
}
