//! Advancing a run: the one loop that decides who moves a run and when this process stops
//! (SPEC §5.1, §5.2). Every frontend that moves a run sets up its entry state (a new run, a
//! resolution, a reply, a taken lease, a waiter) and hands the run to `Advance`, which then,
//! by the run's state and the `Policy`:
//!
//! - drives the next leg when this process holds the run's lease (or, as its waiter, takes a
//!   free one), and runs the `--on-suspend` hook for the items a leg of its own created;
//! - prompts for a pending item when a person is at the terminal, and records the answer;
//! - waits, as a waiter, for others to answer, until the run ends or the deadline passes;
//! - otherwise says what the run waits for, or how it ended (`end`), as the exit code.
//!
//! Recording a resolution, and whether this process then drives the leg it resumed, is one
//! decision (`record`). The loop reports only through the context's `Report`, draws no prompt
//! itself (`prompt`, `items`), and writes no SQL (`store`).

use std::time::Instant;

use anyhow::Result;

use super::prompt;
use super::record::Outcome;
use super::target::{find_run, pending_item};
use super::view::announce;
use super::watch::{Followed, Watch, POLL};
use super::{notify, Context};
use crate::agent::driver::{self, Ended};
use crate::agent::{lease, AgentDef};
use crate::domain::{CallRecord, ItemKind, Resolution, RunStatus};
use crate::error::{fail, Error, Kind};
use crate::exit::Exit;
use crate::items::input;
use crate::items::Prompted;
use crate::providers::{self, Provider};
use crate::store::{now_ms, Lease, Run, Store};

/// What a frontend lets this process do with a run.
pub struct Policy {
    /// This process may drive the run's legs (not `--no-resume`). Even then it drives only
    /// on the run's own host.
    pub drive: bool,
    /// A person is at this terminal: prompt for pending items instead of stopping.
    pub prompt: bool,
    /// Stay until the run ends (a waiter: `--wait`, `wait`).
    pub wait: Option<Wait>,
    /// Who resolves the items prompted for here.
    pub by: String,
}

/// How a waiter waits.
pub struct Wait {
    pub deadline: Option<Instant>,
    /// At the deadline, close the pending items as expired (the run fails) rather than just
    /// stop watching.
    pub expire_at_deadline: bool,
    /// In JSON mode, end with the run's summary line (`wait`).
    pub summary: bool,
}

impl Policy {
    /// The policy of a command that holds the run's lease (`resume`, `reply`): drive it,
    /// prompt on at a terminal.
    pub fn driving(ctx: &Context) -> Policy {
        Policy {
            drive: true,
            prompt: ctx.interactive(),
            wait: None,
            by: input::who(None),
        }
    }

    /// The policy of a frontend that resolves an item as `by`: drive the leg it resumes when
    /// `drive` (not `--no-resume`), prompt on at a terminal for what the run asks next.
    pub fn acting(ctx: &Context, drive: bool, by: &str) -> Policy {
        Policy {
            drive,
            prompt: ctx.interactive() && drive,
            wait: None,
            by: by.to_string(),
        }
    }
}

/// `answer`/`review` at a terminal without an answer or decision: the item (of RUN, else
/// picked among every pending item of `kind`) is prompted for, recorded, and the run
/// advanced like any other.
pub fn prompt_chosen(
    ctx: &Context,
    run: Option<&str>,
    tool_call: Option<&str>,
    policy: Policy,
    kind: ItemKind,
) -> Result<Exit> {
    let (store, run, item) = match run {
        Some(input) => {
            let (store, run) = ctx.store_and_run(input)?;
            let chosen = match tool_call {
                Some(_) => None,
                None => prompt::choose(store.as_ref(), Some(&run.id), kind)?,
            };
            let item = match chosen {
                Some(item) => item,
                // Let `pending_item` say why nothing of this kind waits, or find the one named.
                None => pending_item(ctx, store.as_ref(), &run, kind, tool_call)?,
            };
            (store, run, item)
        }
        None => {
            let Some(store) = ctx.existing_store()? else {
                return fail(prompt::nothing_pending(kind));
            };
            let Some(item) = prompt::choose(store.as_ref(), None, kind)? else {
                return fail(prompt::nothing_pending(kind));
            };
            let run = find_run(store.as_ref(), &item.run_id)?;
            (store, run, item)
        }
    };
    let by = policy.by.clone();
    let mut advance = Advance::new(ctx, store.as_ref(), &run.id, policy);
    let prompted = prompt::prompt(ctx, &run, &item, &by)?;
    // Decided by another process while the prompt was open: nothing of ours goes over it.
    if let Some(said) = prompt::decided_meanwhile(store.as_ref(), &item)? {
        return fail(Error::conflict(format!("{said}; nothing recorded here")));
    }
    match prompted {
        Prompted::Resolved(resolution) => advance.record_and_run(&run, &item, &resolution),
        // "Leave it for later" leaves as Esc does: one exit code for leaving a menu.
        Prompted::Left | Prompted::Later => fail(prompt::interrupted(ctx, &item, &[])),
        Prompted::Unanswerable => {
            announce(ctx, store.as_ref(), &run.id)?;
            Ok(Exit::Suspended)
        }
    }
}

pub struct Advance<'a> {
    pub(super) ctx: &'a Context<'a>,
    pub(super) store: &'a dyn Store,
    run_id: String,
    /// The run as the store has it now, when known (read by the frontend): the loop's first
    /// look then needs no read.
    current: Option<Run>,
    pub(super) policy: Policy,
    /// The lease this process holds on the run, if any.
    pub(super) lease: Option<Lease>,
    /// The run's stored agent, decoded once.
    agent: Option<AgentDef>,
    pub(super) provider: Option<Box<dyn Provider>>,
    /// Items this process recorded, in order (what an interruption reports as kept).
    pub(super) recorded: Vec<String>,
    /// The stored events this process has reported (a waiter's JSON stream carries every
    /// stored event, including results others' answers appended).
    pub(super) watch: Watch,
}

impl<'a> Advance<'a> {
    pub fn new(
        ctx: &'a Context<'a>,
        store: &'a dyn Store,
        run_id: &str,
        policy: Policy,
    ) -> Advance<'a> {
        Advance {
            ctx,
            store,
            run_id: run_id.to_string(),
            current: None,
            policy,
            lease: None,
            agent: None,
            provider: None,
            recorded: Vec::new(),
            watch: Watch::default(),
        }
    }

    /// `run` is the run as the store has it now.
    pub fn with_run(mut self, run: Run) -> Advance<'a> {
        self.current = Some(run);
        self
    }

    /// This process holds `lease` on the run (it just created, resumed or replied to it),
    /// driving it with `model` (its agent, decoded, and provider: `model_for`).
    pub fn holding(mut self, lease: Lease, model: (AgentDef, Box<dyn Provider>)) -> Advance<'a> {
        self.lease = Some(lease);
        self.agent = Some(model.0);
        self.provider = Some(model.1);
        self
    }

    /// Events up to `seq` were reported already.
    pub fn seen_up_to(mut self, seq: Option<i64>) -> Advance<'a> {
        self.watch = Watch::since(seq);
        self
    }

    /// Records `resolution` for `item` of `run` (as read before) exactly once, then advances
    /// the run.
    pub fn resolve(
        mut self,
        run: &Run,
        item: &CallRecord,
        resolution: &Resolution,
    ) -> Result<Exit> {
        self.record_and_run(run, item, resolution)
    }

    fn record_and_run(
        &mut self,
        run: &Run,
        item: &CallRecord,
        resolution: &Resolution,
    ) -> Result<Exit> {
        let outcome = self.record(run, item, resolution)?;
        if let Some(exit) = self.after(&outcome, &run.id) {
            return Ok(exit);
        }
        self.advance()
    }

    /// What this process does after recording: say what became of the answer, and stop
    /// (`Some`) unless it drives the run on, waits for it, or other items of the step wait.
    fn after(&self, outcome: &Outcome, run_id: &str) -> Option<Exit> {
        let told = || {
            if let Some(words) = outcome.wording(&self.ctx.program(), run_id) {
                self.ctx.report.info(&words);
            }
        };
        match outcome {
            Outcome::Driven => None,
            Outcome::Pending(_) => {
                told();
                None
            }
            // A waiter goes on waiting.
            Outcome::Waiter | Outcome::Recorded(_) if self.policy.wait.is_some() => None,
            Outcome::Waiter | Outcome::Recorded(_) => {
                told();
                Some(Exit::Success)
            }
        }
    }

    /// After `record` said `Outcome::Waiter`: reports the waiter's leg as its events are
    /// stored (the results the resolution appended first), until the run suspends or ends,
    /// the waiter is gone, or `deadline` passes. Drives nothing.
    pub fn follow(&mut self, deadline: Option<Instant>) -> Result<Followed> {
        self.watch
            .follow(self.store, self.ctx.report, &self.run_id, deadline)
    }

    /// The loop: drive, prompt, wait or stop, until this process has nothing more to do.
    pub fn run(mut self) -> Result<Exit> {
        self.advance()
    }

    fn advance(&mut self) -> Result<Exit> {
        loop {
            let run = match self.current.take() {
                Some(run) => run,
                None => self.load()?,
            };
            match run.status {
                RunStatus::Running if self.holds(&run) => self.leg(&run)?,
                RunStatus::Running if self.may_take(&run) => self.take(&run)?,
                RunStatus::Running if self.policy.wait.is_some() => self.wait_a_while(&run)?,
                RunStatus::Running => {
                    return fail(Error::conflict(format!(
                        "run {} is being driven by another process",
                        run.id
                    )))
                }
                RunStatus::Suspended if self.policy.prompt => {
                    if let Some(exit) = self.prompt_next(&run)? {
                        return Ok(exit);
                    }
                }
                RunStatus::Suspended if self.policy.wait.is_some() => self.wait_a_while(&run)?,
                RunStatus::Suspended => {
                    announce(self.ctx, self.store, &run.id)?;
                    return Ok(Exit::Suspended);
                }
                RunStatus::Completed | RunStatus::Failed | RunStatus::Cancelled => {
                    self.catch_up(&run)?;
                    return self.end(&run);
                }
            }
        }
    }

    fn load(&self) -> Result<Run> {
        self.store
            .run(&self.run_id)?
            .ok_or_else(|| Error::not_found(format!("run {} was deleted", self.run_id)).into())
    }

    /// The run's stored agent, decoded on first use.
    pub(super) fn agent(&mut self, run: &Run) -> Result<&AgentDef> {
        if self.agent.is_none() {
            self.agent = Some(AgentDef::of_run(run)?);
        }
        Ok(self.agent.as_ref().expect("decoded above"))
    }

    /// The provider for the run, checked before anything changes.
    pub(super) fn provider_for(&mut self, run: &Run) -> Result<Box<dyn Provider>> {
        providers::from_spec(&self.agent(run)?.model)
    }

    fn holds(&self, run: &Run) -> bool {
        let mine = self.lease.as_ref().map(|l| l.token.as_str());
        mine.is_some() && run.lease.as_ref().map(|l| l.token.as_str()) == mine
    }

    /// A waiter that may drive takes a running run whose driver is gone (an answer left it
    /// without one, or its driver died).
    fn may_take(&self, run: &Run) -> bool {
        self.policy.wait.is_some()
            && self.policy.drive
            && on_own_host(run)
            && lease::can_take(run.lease.as_ref(), now_ms()).is_ok()
    }

    fn take(&mut self, run: &Run) -> Result<()> {
        let provider = match self.provider.take() {
            Some(p) => p,
            None => self.provider_for(run)?,
        };
        let me = lease::mine();
        let expected = run.lease.as_ref().map(|l| l.token.as_str());
        if self
            .store
            .take_lease(&run.id, RunStatus::Running, expected, &me)?
        {
            self.lease = Some(me);
        }
        self.provider = Some(provider);
        Ok(())
    }

    /// Drives one leg under this process's lease; runs the hook for the items it created.
    fn leg(&mut self, run: &Run) -> Result<()> {
        self.catch_up(run)?;
        let lease = self.lease.clone().expect("holds the lease");
        if self.provider.is_none() {
            self.provider = Some(self.provider_for(run)?);
        }
        self.agent(run)?;
        let (Some(agent), Some(provider)) = (&self.agent, &self.provider) else {
            unreachable!("set above")
        };
        let end = driver::drive(
            self.store,
            &self.ctx.location,
            run,
            agent,
            &lease,
            provider.as_ref(),
            &mut *self.ctx.report.leg(),
        )?;
        if self.streams_every_event() {
            self.watch.skip_to_end(self.store, &run.id)?;
        }
        match end {
            Ended::Status(RunStatus::Suspended) => {
                notify::on_suspend(self.ctx, &self.store.pending(Some(&run.id))?);
                // A waiter says what its leg left waiting, then waits.
                if self.policy.wait.is_some() && !self.policy.prompt {
                    announce(self.ctx, self.store, &run.id)?;
                }
            }
            Ended::Status(_) => {}
            Ended::LostLease => {
                self.lease = None;
                if self.load()?.status != RunStatus::Cancelled {
                    return fail(Error::conflict(format!(
                        "run {} was taken over by another process",
                        run.id
                    )));
                }
            }
        }
        Ok(())
    }

    /// Whether this process's report carries every stored event of the run (a waiter's JSON
    /// stream), not only those of its own legs.
    fn streams_every_event(&self) -> bool {
        self.policy.wait.is_some() && self.ctx.report.json()
    }

    /// A waiter's JSON stream: reports the stored events not reported yet (the results
    /// another process's answer appended, a leg another driver ran).
    pub(super) fn catch_up(&mut self, run: &Run) -> Result<()> {
        if !self.streams_every_event() {
            return Ok(());
        }
        self.watch.catch_up(self.store, self.ctx.report, &run.id)
    }

    /// Prompts for the oldest pending item and records the answer. `Some(exit)` when this
    /// process stops here.
    fn prompt_next(&mut self, run: &Run) -> Result<Option<Exit>> {
        let Some(item) = self.store.pending(Some(&run.id))?.into_iter().next() else {
            // Resolved or closed meanwhile by another process: look again.
            return Ok(None);
        };
        let prompted = prompt::prompt(self.ctx, run, &item.call, &self.policy.by)?;
        // Decided by another process while the prompt was open: say so and go on as that
        // decision requires (a waiter drives the next leg).
        if let Some(said) = prompt::decided_meanwhile(self.store, &item.call)? {
            self.ctx.report.info(&said);
            return Ok(None);
        }
        match prompted {
            Prompted::Resolved(resolution) => {
                let outcome = self.record(run, &item.call, &resolution)?;
                Ok(self.after(&outcome, &run.id))
            }
            Prompted::Left => fail(prompt::interrupted(self.ctx, &item.call, &self.recorded)),
            Prompted::Later | Prompted::Unanswerable => {
                // A waiter keeps waiting for someone else to decide; others stop here, and
                // "Leave it for later" leaves as Esc does (130).
                if self.policy.wait.is_some() {
                    announce(self.ctx, self.store, &run.id)?;
                    self.policy.prompt = false;
                    return Ok(None);
                }
                if matches!(prompted, Prompted::Later) {
                    return fail(prompt::interrupted(self.ctx, &item.call, &self.recorded));
                }
                announce(self.ctx, self.store, &run.id)?;
                Ok(Some(Exit::Suspended))
            }
        }
    }

    /// A waiter's pause: until something changes, or the deadline (then the items expire, or
    /// the watch just stops).
    fn wait_a_while(&self, run: &Run) -> Result<()> {
        let wait = self.policy.wait.as_ref().expect("a waiter");
        if wait.deadline.is_some_and(|d| Instant::now() >= d) {
            if wait.expire_at_deadline {
                self.store.expire_run(
                    &run.id,
                    "the --timeout passed before an answer came; the pending items expired",
                )?;
            }
            return fail(Error::new(
                Kind::TimedOut,
                format!("timed out waiting for run {}", run.id),
            ));
        }
        self.store.expire_due(now_ms())?;
        Ok(self.store.wait_for_change(&run.id, POLL)?)
    }
}

/// Whether this process runs on the host that started the run (only there may it be
/// driven: its working directory, keys and tools are there).
pub fn on_own_host(run: &Run) -> bool {
    run.host
        .as_deref()
        .is_none_or(|h| h == crate::sys::host_id())
}

/// A stored run's agent and the provider of its model, checked before anything changes.
pub fn model_for(run: &Run) -> Result<(AgentDef, Box<dyn Provider>)> {
    let agent = AgentDef::of_run(run)?;
    let provider = providers::from_spec(&agent.model)?;
    Ok((agent, provider))
}
