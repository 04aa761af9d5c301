//! A run of this store, as the loop's place (SPEC §5.1): the store keeps its state and
//! items, a lease says who drives it, and the driver (`agent::driver`) runs its legs, only
//! on the run's own host. Recording a resolution decides, in the store's transaction, whether
//! this process drives the leg it resumes (not `--no-resume`, it has the model, and no live
//! waiter claims the leg), a live waiter does, or the run waits for its host. A waiter's
//! JSON stream carries every stored event of the run, the ones others appended too (`Watch`).
//!
//! No SQL here (the store's transitions), no prompt and no printing except through the
//! context's `Report`.

use std::time::Instant;

use anyhow::Result;
use serde_json::Value;

use super::advance::on_own_host;
use super::elsewhere::Noticing;
use super::end::{summary, End};
use super::place::{stopped_by, Driver, Gates, OneShot, Place, Ran, State};
use super::read::Read;
use super::record::{Continues, Outcome};
use super::target::{self, check_prefix, find_run, no_run};
use super::watch::{Followed, Watch, POLL};
use super::Context;
use crate::agent::approved::check_changed_args;
use crate::agent::driver::{self, Ended};
use crate::agent::{claude_leg, lease, AgentDef, Drive, Engine};
use crate::domain::{CallState, ItemKind, Message, Resolution, RunStatus};
use crate::error::{fail, Error, Kind};
use crate::items::plan::{plan_of, warn_if_changed};
use crate::items::{Item, Plans};
use crate::policy::{Deciding, ItemGate};
use crate::providers::NO_MODEL;
use crate::store::{now_ms, Decide, DrivenBy, Identity, Lease, Resolved, Run, Store};
use crate::sys::signals::Ending;
use crate::tools::submit_plan::Plan;

/// A run of this store.
pub struct Local<'a> {
    ctx: &'a Context<'a>,
    /// None: there is no store yet (nothing to find in it).
    store: Option<&'a dyn Store>,
    run_id: String,
    /// What this process last read of the run (or the frontend gave it).
    read: Read,
    /// The lease this process holds on the run, if any.
    lease: Option<Lease>,
    /// The run's stored agent, decoded once.
    agent: Option<AgentDef>,
    /// What drives its legs here (its model's provider, or Claude Code), once checked.
    drive: Option<Drive>,
    /// The stored events this process has reported.
    watch: Watch,
    /// The report carries every stored event of the run (a waiter's JSON stream), not only
    /// those of the legs this process drives.
    every_event: bool,
    /// `--as`, `approve --args`, a waiter's `--on-escalate` (SPEC §14).
    deciding: Deciding,
}

impl<'a> Local<'a> {
    pub fn new(
        ctx: &'a Context<'a>,
        store: Option<&'a dyn Store>,
        run_id: &str,
        every_event: bool,
    ) -> Local<'a> {
        Local {
            ctx,
            store,
            run_id: run_id.to_string(),
            read: Read::default(),
            lease: None,
            agent: None,
            drive: None,
            watch: Watch::default(),
            every_event,
            deciding: Deciding::default(),
        }
    }

    /// What this process brings to its decisions and its wait (SPEC §14).
    pub fn deciding(mut self, deciding: Deciding) -> Local<'a> {
        self.deciding = deciding;
        self
    }

    /// The run as last read (`load`, a target found in it).
    pub fn loaded(&self) -> Result<&Run> {
        match self.read.run() {
            Some(run) => Ok(run),
            None => fail(no_run(&self.run_id)),
        }
    }

    /// What this process knows of the run now: `Read::fresh`, `created` or `known`.
    pub fn knowing(mut self, read: Read) -> Local<'a> {
        self.knows(read);
        self
    }

    fn knows(&mut self, read: Read) {
        if let Some(run) = read.run() {
            self.run_id.clone_from(&run.id);
        }
        self.read = read;
    }

    /// This process holds `lease` on the run (it just created, resumed or replied to it),
    /// driving it with `model` (its agent, decoded, and provider: `model_for`).
    pub fn holding(mut self, lease: Lease, model: (AgentDef, Drive)) -> Local<'a> {
        self.lease = Some(lease);
        self.agent = Some(model.0);
        self.drive = Some(model.1);
        self
    }

    /// Events up to `seq` were reported already.
    pub fn seen_up_to(mut self, seq: Option<i64>) -> Local<'a> {
        self.watch = Watch::since(seq);
        self
    }

    /// After a decision a live waiter drives (`Outcome::Waiter`): reports the waiter's leg
    /// as its events are stored, from the first one after `seen_up_to`, until the run
    /// suspends or ends, the waiter is gone, or `deadline` passes. Drives nothing.
    pub fn follow(&mut self, deadline: Option<Instant>) -> Result<Followed> {
        let store = self.store()?;
        self.watch
            .follow(store, self.ctx.report, &self.run_id, deadline)
    }

    fn store(&self) -> Result<&'a dyn Store> {
        match self.store {
            Some(store) => Ok(store),
            None => fail(no_run(&self.run_id)),
        }
    }

    /// The run as the store has it now.
    fn read_now(&self) -> Result<Run> {
        read_run(self.store()?, &self.run_id)
    }

    /// The run as last read, read when it was not yet (`Read::take`); put back with `put`.
    fn take_run(&mut self) -> Result<Run> {
        let store = self.store()?;
        self.read.take(|| read_run(store, &self.run_id))
    }

    /// The run's stored agent, decoded on first use.
    fn agent(&mut self, run: &Run) -> Result<&AgentDef> {
        if self.agent.is_none() {
            self.agent = Some(AgentDef::of_run(run)?);
        }
        Ok(self.agent.as_ref().expect("decoded above"))
    }

    /// What drives the run's legs here, checked before anything changes.
    fn drive_for(&mut self, run: &Run) -> Result<Drive> {
        super::advance::not_claude_code(run)?;
        Drive::of(self.agent(run)?)
    }

    fn holds(&self, run: &Run) -> bool {
        let mine = self.lease.as_ref().map(|l| l.token.as_str());
        mine.is_some() && run.lease.as_ref().map(|l| l.token.as_str()) == mine
    }

    /// A waiter's JSON stream: reports the stored events not reported yet (the results
    /// another process's answer appended, a leg another driver ran).
    fn catch_up(&mut self, run: &Run) -> Result<()> {
        if !self.every_event {
            return Ok(());
        }
        self.watch.catch_up(self.store()?, self.ctx.report, &run.id)
    }

    fn record_on(
        &mut self,
        run: &mut Run,
        item: &Item,
        resolution: &Resolution,
        identity: &Identity,
        drive: bool,
    ) -> Result<Outcome> {
        let store = self.store()?;
        let offer = self.offer(run, drive)?;
        // A one-step run ends in the transaction that resolves its item (SPEC §13).
        let ends = self
            .is_one_shot(run)
            .then(|| super::oneshot::last_step(run.usage));
        // A one-step run runs no tool: an approval's result is the decision itself.
        let approved;
        let resolution = match (&ends, &resolution.result) {
            (Some(_), None) => {
                approved = Resolution {
                    result: Some(serde_json::json!("approved")),
                    ..resolution.clone()
                };
                &approved
            }
            _ => resolution,
        };
        let args = self.deciding.args.take();
        let decision = Decide {
            resolution,
            identity,
            claimed: self.deciding.claimed,
            args: args.as_ref(),
        };
        let resolved = store.decide_ending(
            &run.id,
            item.call_id(),
            &decision,
            offer.as_ref(),
            ends.as_ref(),
        )?;
        self.outcome_of(run, item, resolved, offer)
    }

    /// One decision, `resolution` as `identity`, for every item of `items` (approvals of
    /// the loaded run) in one transaction, all or none (`approve --all`, SPEC §14.1): what
    /// became of each, and who moves the run on once its step is resolved (`None`: it
    /// still waits).
    pub fn record_all(
        &mut self,
        items: &[Item],
        resolution: &Resolution,
        identity: &Identity,
        drive: bool,
    ) -> Result<(Vec<Outcome>, Option<Outcome>)> {
        let mut run = self.take_run()?;
        let recorded = self.record_all_on(&mut run, items, resolution, identity, drive);
        let fresh = matches!(recorded, Ok((_, Some(Outcome::Driven))));
        self.read.put(run, fresh);
        recorded
    }

    fn record_all_on(
        &mut self,
        run: &mut Run,
        items: &[Item],
        resolution: &Resolution,
        identity: &Identity,
        drive: bool,
    ) -> Result<(Vec<Outcome>, Option<Outcome>)> {
        let store = self.store()?;
        let offer = self.offer(run, drive)?;
        let decision = Decide {
            resolution,
            identity,
            claimed: self.deciding.claimed,
            args: None,
        };
        let ids: Vec<String> = items.iter().map(|i| i.call_id().to_string()).collect();
        let resolved = store.decide_all(&run.id, &ids, &decision, offer.as_ref())?;
        let (mut each, mut then) = (Vec::new(), None);
        let mut offer = Some(offer);
        for ((_, resolved), item) in resolved.into_iter().zip(items) {
            let outcome = match resolved {
                // The run resumes at most once: on the item that resolved its step.
                Resolved::Resumed { .. } => {
                    let outcome = self.outcome_of(run, item, resolved, offer.take().flatten())?;
                    then = Some(outcome.clone());
                    outcome
                }
                other => self.outcome_of(run, item, other, None)?,
            };
            each.push(outcome);
        }
        Ok((each, then))
    }

    /// The lease this process offers to take as it records a decision on `run`: it drives
    /// the leg the decision resumes when `drive` and on the run's own host, with the model
    /// at hand, or completes a one-step run (which runs nothing: no host, user or model is
    /// needed for it).
    fn offer(&mut self, run: &Run, drive: bool) -> Result<Option<Lease>> {
        let allowed = ((drive && on_own_host(run)) || self.is_one_shot(run))
            && run.driven_by() != DrivenBy::Nobody;
        if allowed && self.drive.is_none() {
            // Without the model's keys this process can still record for a live waiter.
            match self.drive_for(run) {
                Ok(p) => self.drive = Some(p),
                Err(_) if self.store()?.has_waiter(&run.id)? => {}
                Err(e) => return Err(e),
            }
        }
        Ok((allowed && self.drive.is_some()).then(lease::mine))
    }

    /// Who moves `run` on after the store `resolved` a decision on `item`, `offer` the
    /// lease this process offered to take.
    fn outcome_of(
        &mut self,
        run: &mut Run,
        item: &Item,
        resolved: Resolved,
        offer: Option<Lease>,
    ) -> Result<Outcome> {
        let store = self.store()?;
        Ok(match resolved {
            Resolved::Recorded { still_pending } => Outcome::Pending(still_pending),
            Resolved::Partial { needed, decisions } => Outcome::Partial(
                match item {
                    Item::Stored { call, .. } => ItemGate::of(run, call, &decisions),
                    Item::Server { .. } => None,
                }
                .map(|g| g.summary())
                .unwrap_or_else(|| format!("{needed} more approval(s) needed")),
            ),
            // Its waiter tells how it ended.
            Resolved::Ended {
                events,
                waiter: true,
            } => {
                self.watch = Watch::since(events.first().map(|e| e.seq - 1));
                Outcome::Waiter
            }
            // Ended here, as a leg of this process would have ended it.
            Resolved::Ended { events, .. } => {
                self.ctx.report.stored_events(&run.id, &events);
                self.watch.passed(&events);
                *run = self.read_now()?;
                Outcome::Driven
            }
            Resolved::Resumed { events, driving } if driving => {
                self.ctx.report.stored_events(&run.id, &events);
                self.watch.passed(&events);
                // As the transaction left it: running under this process's lease.
                run.status = RunStatus::Running;
                run.lease.clone_from(&offer);
                self.lease = offer;
                Outcome::Driven
            }
            Resolved::Resumed { events, .. } => {
                self.watch = Watch::since(events.first().map(|e| e.seq - 1));
                // An offer the store declined went to a live waiter.
                if offer.is_some() || store.has_waiter(&run.id)? {
                    Outcome::Waiter
                } else if run.driven_by() == DrivenBy::Nobody {
                    Outcome::Recorded(Continues::ClaudeCode)
                } else if on_own_host(run) {
                    Outcome::Recorded(Continues::Here)
                } else {
                    Outcome::Recorded(Continues::OnHost(run.host.clone().unwrap_or_default()))
                }
            }
        })
    }

    /// Drives one leg under this process's lease (from `created`, the messages of a run it
    /// just created): `run` as its last step left it, and that step's status; `None` when
    /// the lease was lost to a cancel.
    fn leg_of(
        &mut self,
        run: &mut Run,
        created: Option<Vec<Message>>,
    ) -> Result<Option<RunStatus>> {
        self.catch_up(run)?;
        let store = self.store()?;
        let Some(lease) = self.lease.clone() else {
            anyhow::bail!("run {} has no lease of this process to drive it", run.id);
        };
        if self.drive.is_none() {
            self.drive = Some(self.drive_for(run)?);
        }
        self.agent(run)?;
        let (Some(agent), Some(drive)) = (&self.agent, &self.drive) else {
            unreachable!("set above")
        };
        let end = match (drive, agent.engine()) {
            (Drive::Model(provider), _) => driver::drive(
                store,
                &self.ctx.location,
                (run, created.map(|messages| (messages, Vec::new()))),
                agent,
                &lease,
                provider.as_ref(),
                &mut *self.ctx.report.leg(),
            )?,
            (Drive::ClaudeCode, Engine::ClaudeCode(def)) => claude_leg::drive(
                store,
                self.ctx,
                run,
                def,
                &lease,
                created.is_some(),
                &mut *self.ctx.report.leg(),
            )?,
            (Drive::ClaudeCode, Engine::Model(_)) => unreachable!("Drive::of the same agent"),
        };
        if self.every_event {
            self.watch.skip_to_end(store, &run.id)?;
        }
        match end {
            Ended::At(row) => {
                row.update(run);
                Ok(Some(row.status))
            }
            Ended::Stopped => {
                *run = self.read_now()?;
                Ok(match run.status {
                    RunStatus::Cancelled => None,
                    status => Some(status),
                })
            }
            Ended::LostLease => {
                self.lease = None;
                if self.read_now()?.status != RunStatus::Cancelled {
                    return fail(Error::conflict(format!(
                        "run {} was taken over by another process",
                        run.id
                    )));
                }
                Ok(None)
            }
        }
    }

    /// Whether the run is a one-step `ask`, `plan` or `mcp` run (no model).
    fn is_one_shot(&mut self, run: &Run) -> bool {
        super::oneshot::AGENTS.contains(&run.agent_id.as_str())
            && self.agent(run).is_ok_and(|a| a.model == NO_MODEL)
    }
}

impl Place for Local<'_> {
    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn load(&mut self, input: &str) -> Result<()> {
        check_prefix(input)?;
        // A "no run" error names the store it looked in (SPEC §5.3).
        let Some(store) = self.store else {
            return Err(self.ctx.looked_in(no_run(input).into()));
        };
        let run = find_run(store, input).map_err(|e| self.ctx.looked_in(e))?;
        self.knows(Read::fresh(run));
        Ok(())
    }

    fn state(&mut self) -> Result<State> {
        let store = self.store()?;
        let run = self.read.look(|| read_run(store, &self.run_id))?;
        let state = match run.status {
            RunStatus::Running if self.holds(&run) => State::Running(Driver::Me),
            RunStatus::Running
                if on_own_host(&run) && lease::can_take(run.lease.as_ref(), now_ms()).is_ok() =>
            {
                State::Running(Driver::Gone)
            }
            RunStatus::Running => State::Running(Driver::Other),
            RunStatus::Suspended => State::Suspended,
            RunStatus::Completed | RunStatus::Failed | RunStatus::Cancelled => {
                self.catch_up(&run)?;
                State::Ended(End::of_run(&run))
            }
        };
        self.read.put(run, false);
        Ok(state)
    }

    fn pending(&mut self) -> Result<Vec<Item>> {
        let store = self.store()?;
        // The run as last read names the agent and the policy (neither ever changes); its
        // calls are read now.
        let items = self.read.items(|run| match run {
            Some(run) => store.pending_of(run),
            None => store.pending(Some(&self.run_id)),
        })?;
        Ok(items.iter().cloned().map(Item::stored).collect())
    }

    fn items_store(&self) -> Option<&dyn Store> {
        self.store
    }

    fn gates(&mut self, items: &[Item]) -> Result<Gates> {
        let mut gates = Gates::new();
        let Some(run) = self.read.run().filter(|r| r.gate.policy.is_some()) else {
            return Ok(gates);
        };
        let decisions = self.store()?.decisions(&run.id)?;
        for item in items {
            if let Item::Stored { call, .. } = item {
                if let Some(gate) = ItemGate::of(run, call, &decisions) {
                    gates.insert((call.run_id.clone(), call.call_id.clone()), gate);
                }
            }
        }
        Ok(gates)
    }

    fn everything_pending(&mut self, kinds: &[ItemKind]) -> Result<Vec<Item>> {
        let Some(store) = self.store else {
            return Ok(Vec::new());
        };
        Ok(store
            .pending(None)?
            .into_iter()
            .filter(|p| kinds.contains(&p.call.kind()))
            .map(Item::stored)
            .collect())
    }

    fn decided_meanwhile(&mut self, item: &Item) -> Result<Option<String>> {
        // A prompt was open: what was read before it is not this moment's.
        self.read.forget_items();
        match item {
            Item::Stored { call, .. } => super::prompt::decided_meanwhile(self.store()?, call),
            Item::Server { .. } => Ok(None),
        }
    }

    fn notice(&self, item: &Item) -> Option<Noticing> {
        match item {
            Item::Stored { call, .. } => Noticing::start(&self.ctx.location, call),
            Item::Server { .. } => None,
        }
    }

    fn not_pending(&mut self, id: &str, kinds: &[ItemKind]) -> Result<Error> {
        let calls = self.store()?.calls(&self.run_id)?;
        let Some(call) = calls.into_iter().find(|c| c.call_id == id && c.is_item()) else {
            return Ok(Error::not_found(format!(
                "run {} has no tool call {id}",
                self.run_id
            )));
        };
        if !kinds.contains(&call.kind()) {
            let agent_id = String::new();
            let item = Item::Stored {
                call: Box::new(call),
                agent_id,
                pending_in_run: 1,
                url: None,
            };
            return Ok(target::wrong_kind(self.ctx, self, &item, kinds));
        }
        Ok(target::not_pending(&call))
    }

    fn nothing_waits(&mut self, kinds: &[ItemKind]) -> Error {
        match self.read.run() {
            Some(run) => target::nothing_waits(run, kinds[0]),
            None => Error::conflict(format!("run {} has nothing pending", self.run_id)),
        }
    }

    fn holds(&self, kind: ItemKind) -> bool {
        kind != ItemKind::Other
    }

    fn approve_changed(&mut self, item: &Item, args: Value) -> Result<()> {
        let tool = item.tool_name();
        if let Err(problems) = check_changed_args(self.loaded()?, tool, &args) {
            return fail(
                Error::invalid(format!("the arguments do not fit tool {tool}: {problems}"))
                    .with_hint("nothing was recorded; give arguments its input schema takes"),
            );
        }
        self.deciding.args = Some(args);
        Ok(())
    }

    fn record(
        &mut self,
        item: &Item,
        resolution: &Resolution,
        who: &Identity,
        drive: bool,
    ) -> Result<Outcome> {
        let mut run = self.take_run()?;
        let outcome = self.record_on(&mut run, item, resolution, who, drive);
        // Driving on, this process knows the run as its transaction left it.
        let fresh = matches!(outcome, Ok(Outcome::Driven));
        self.read.put(run, fresh);
        outcome
    }

    fn leg(&mut self) -> Result<Ran> {
        let store = self.store()?;
        let (mut run, created) = self.read.take_for_leg(|| read_run(store, &self.run_id))?;
        let ran = self.leg_of(&mut run, created);
        // A leg that ended at a step knows the run as that step's transaction left it.
        self.read.put(run, matches!(ran, Ok(Some(_))));
        let status = ran?;
        Ok(Ran {
            suspended: status == Some(RunStatus::Suspended),
            stop_asked: false,
        })
    }

    fn take(&mut self) -> Result<()> {
        let run = self.take_run()?;
        let drive = match self.drive.take() {
            Some(p) => Ok(p),
            None => self.drive_for(&run),
        };
        let taken = drive.and_then(|drive| {
            self.drive = Some(drive);
            let me = lease::mine();
            let expected = run.lease.as_ref().map(|l| l.token.as_str());
            let took = self
                .store()?
                .take_lease(&run.id, RunStatus::Running, expected, &me)?;
            if took {
                self.lease = Some(me);
            }
            Ok(())
        });
        self.read.put(run, false);
        taken
    }

    fn pause(&mut self, _until: Option<Instant>) -> Result<()> {
        self.read.forget_items();
        let store = self.store()?;
        store.expire_due(now_ms())?;
        if let Some(cmd) = self.deciding.on_escalate.as_deref() {
            let tried = &mut self.deciding.escalated;
            super::escalate::due(self.ctx, store, Some(&self.run_id), cmd, tried)?;
        }
        Ok(store.wait_for_change(&self.run_id, POLL)?)
    }

    fn advancing(&mut self) -> Result<bool> {
        let run = self.read_now()?;
        let store = self.store()?;
        let live = |l: &Lease| crate::store::holder_alive(l, now_ms());
        let advancing = run.status == RunStatus::Running
            && (run.lease.as_ref().is_some_and(live) || store.has_waiter(&run.id)?);
        self.read = Read::known(run);
        Ok(advancing)
    }

    fn timed_out(&mut self, expire: bool) -> Result<Error> {
        if expire {
            self.store()?.expire_run(
                &self.run_id,
                "the --timeout passed before an answer came; the pending items expired",
            )?;
        }
        Ok(Error::new(
            Kind::TimedOut,
            format!("timed out waiting for run {}", self.run_id),
        ))
    }

    fn stop_waiting(&mut self, signal: Ending, started_it: bool) -> Result<Error> {
        let run = self.read_now()?;
        let id = run.id.clone();
        if started_it && self.is_one_shot(&run) {
            let why = format!(
                "the job that waited for it was stopped: its waiter, pid {}, got {}",
                std::process::id(),
                signal.name()
            );
            let what = match self.store()?.cancel_because(&id, Some(&why)) {
                Ok(_) => format!("cancelled run {id}; its items closed as cancelled"),
                Err(_) => format!("stopped waiting for run {id}, which had ended meanwhile"),
            };
            return Ok(stopped_by(signal, what));
        }
        let program = self.ctx.program();
        let (stays, hint) = match run.status {
            RunStatus::Suspended => (
                "suspended",
                format!(
                    "an answer now continues it in the answering process (see what waits with: {program} pending --run {id}); or wait for it again with: {program} wait {id} --drive"
                ),
            ),
            RunStatus::Running => (
                "running",
                format!("continue it with: {program} resume {id}"),
            ),
            _ => {
                let what = format!("stopped waiting for run {id}, which has ended");
                return Ok(stopped_by(signal, what));
            }
        };
        let what = format!(
            "stopped waiting for run {id}, which stays {stays} for a later waiter or resume"
        );
        Ok(stopped_by(signal, what).with_hint(hint))
    }

    fn resumable(&self) -> bool {
        true
    }

    fn summary(&mut self) -> Result<Option<Value>> {
        let run = self.take_run()?;
        let line = (!self.is_one_shot(&run)).then(|| summary(&run));
        self.read.put(run, false);
        Ok(line)
    }

    fn one_shot(&mut self) -> Result<Option<OneShot>> {
        let run = self.take_run()?;
        let one_shot = self.is_one_shot(&run);
        self.read.put(run, false);
        if !one_shot {
            return Ok(None);
        }
        let resolved = self
            .store()?
            .calls(&self.run_id)?
            .into_iter()
            .find(|c| c.state == CallState::Resolved);
        Ok(resolved.map(|call| OneShot {
            kind: call.kind(),
            answer: call.resume_data.clone().unwrap_or(Value::Null),
            call_id: call.call_id,
        }))
    }
}

impl Plans for Local<'_> {
    /// The snapshot taken when the plan was submitted, with a warning when the file changed
    /// on disk since.
    fn plan(&self, item: &Item, _approving: bool) -> Result<Result<Plan, String>> {
        let plan = plan_of(item)?;
        if let Some(run) = self.read.run() {
            warn_if_changed(self.ctx.report, run, &plan, &self.ctx.program());
        }
        Ok(Ok(plan))
    }
}

/// The run `run_id` as `store` has it now.
fn read_run(store: &dyn Store, run_id: &str) -> Result<Run> {
    store
        .run(run_id)?
        .ok_or_else(|| Error::not_found(format!("run {run_id} was deleted")).into())
}
