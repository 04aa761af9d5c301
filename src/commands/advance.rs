//! Advancing a run: the one loop that decides who moves a run and when this process stops
//! (SPEC §5.1, §5.2). Every command that moves a run sets up its entry state (a new run, a
//! resolution, a reply, a taken lease, a waiter) and hands the run to `Advance`, which then,
//! by the run's state and the command's `Policy`:
//!
//! - drives the next leg when this process holds the run's lease (or, as its waiter, takes a
//!   free one), and runs the `--on-suspend` hook for the items a leg of its own created;
//! - prompts for a pending item when a person is at the terminal, and records the answer;
//! - waits, as a waiter, for others to answer, until the run ends or the deadline passes;
//! - otherwise says what the run waits for, or how it ended, and maps that to the exit code.
//!
//! Recording a resolution also happens here (`record`), because whether the recording
//! process then drives the leg it resumed is the same decision: it may only when the policy
//! allows it (not `--no-resume`), it is on the run's own host, and no live waiter claims the
//! leg (the store decides that last part atomically).
//!
//! The loop prints nothing about items itself (`items`), draws no prompt (`prompting`), and
//! writes no SQL (`store`).

use std::time::{Duration, Instant};

use anyhow::Result;

use super::items::{announce, resolved_line};
use super::prompting::{self, Prompted};
use super::target::{find_run, pending_item};
use super::{input, notify, outcome, Ctx};
use crate::agent::driver::{self, LegEnd};
use crate::agent::{lease, AgentDef};
use crate::cli::ItemArgs;
use crate::domain::{CallRecord, ItemKind, Resolution, RunStatus};
use crate::error::{fail, Error, Kind};
use crate::exit::Exit;
use crate::output::sanitize;
use crate::output::spinner::Spinner;
use crate::providers::{self, Provider};
use crate::store::{now_ms, Lease, Resolved, Run, Store, EXPIRED};

/// How often a waiter on SQLite looks at the store (PostgreSQL wakes it at once).
const POLL: Duration = Duration::from_millis(200);

/// What a command lets this process do with a run.
pub struct Policy {
    /// This process may drive the run's legs (the command did not say `--no-resume`). Even
    /// then it drives only on the run's own host.
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
    pub fn driving(ctx: &Ctx) -> Policy {
        Policy {
            drive: true,
            prompt: ctx.interactive(),
            wait: None,
            by: input::who(None),
        }
    }

    /// The policy of a command that resolves an item: drive the leg it resumes (unless
    /// `--no-resume`), prompt on at a terminal for what the run asks next.
    pub fn acting(ctx: &Ctx, item: &ItemArgs, by: &str) -> Policy {
        Policy {
            drive: !item.no_resume,
            prompt: ctx.interactive() && !item.no_resume,
            wait: None,
            by: by.to_string(),
        }
    }
}

/// `answer`/`review` at a terminal without an answer or decision: the item (of RUN, else
/// picked among every pending item of `kind`) is prompted for, recorded, and the run
/// advanced like any other.
pub fn prompt_chosen(ctx: &Ctx, args: &ItemArgs, kind: ItemKind) -> Result<Exit> {
    let (store, run, item) = match args.run.as_deref() {
        Some(input) => {
            let (store, run) = ctx.store_and_run(input)?;
            let chosen = match args.tool_call {
                Some(_) => None,
                None => prompting::choose(store.as_ref(), Some(&run.id), kind)?,
            };
            let item = match chosen {
                Some(item) => item,
                // Let `pending_item` say why nothing of this kind waits, or find the one named.
                None => pending_item(ctx, store.as_ref(), &run, kind, args.tool_call.as_deref())?,
            };
            (store, run, item)
        }
        None => {
            let Some(store) = ctx.existing_store()? else {
                return fail(prompting::nothing_pending(kind));
            };
            let Some(item) = prompting::choose(store.as_ref(), None, kind)? else {
                return fail(prompting::nothing_pending(kind));
            };
            let run = find_run(store.as_ref(), &item.run_id)?;
            (store, run, item)
        }
    };
    let by = input::who(args.as_.clone());
    let policy = Policy::acting(ctx, args, &by);
    let mut advance = Advance::new(ctx, store.as_ref(), &run.id, policy);
    match prompting::prompt(ctx, &run, &item, &by)? {
        Prompted::Resolved(resolution) => match advance.record(&run, &item, &resolution)? {
            Some(exit) => Ok(exit),
            None => advance.run(),
        },
        Prompted::Left => fail(prompting::interrupted(ctx, &item, &[])),
        Prompted::Later => {
            announce(ctx, store.as_ref(), &run.id)?;
            Ok(Exit::Suspended)
        }
    }
}

pub struct Advance<'a> {
    ctx: &'a Ctx,
    store: &'a dyn Store,
    run_id: String,
    policy: Policy,
    /// The lease this process holds on the run, if any.
    lease: Option<Lease>,
    provider: Option<Box<dyn Provider>>,
    /// Items this process recorded, in order (what an interruption reports as kept).
    recorded: Vec<String>,
    /// The last event sequence number this process has printed (a waiter's JSON stream
    /// carries every stored event, including results others' answers appended).
    seen: Option<i64>,
}

impl<'a> Advance<'a> {
    pub fn new(ctx: &'a Ctx, store: &'a dyn Store, run_id: &str, policy: Policy) -> Advance<'a> {
        Advance {
            ctx,
            store,
            run_id: run_id.to_string(),
            policy,
            lease: None,
            provider: None,
            recorded: Vec::new(),
            seen: None,
        }
    }

    /// This process holds `lease` on the run (it just created, resumed or replied to it),
    /// driving it with `provider`.
    pub fn holding(mut self, lease: Lease, provider: Box<dyn Provider>) -> Advance<'a> {
        self.lease = Some(lease);
        self.provider = Some(provider);
        self
    }

    /// Events up to `seq` were printed already.
    pub fn seen_up_to(mut self, seq: Option<i64>) -> Advance<'a> {
        self.seen = seq;
        self
    }

    /// Records `resolution` for `item` exactly once, then advances the run.
    pub fn resolve(mut self, item: &CallRecord, resolution: &Resolution) -> Result<Exit> {
        let run = self.load()?;
        if let Some(exit) = self.record(&run, item, resolution)? {
            return Ok(exit);
        }
        self.run()
    }

    /// The loop: drive, prompt, wait or stop, until this process has nothing more to do.
    pub fn run(mut self) -> Result<Exit> {
        loop {
            let run = self.load()?;
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
            None => provider_for(run)?,
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
            self.provider = Some(provider_for(run)?);
        }
        let provider = self.provider.as_deref().expect("set above");
        let spinning = Spinning(provider);
        let provider: &dyn Provider = if self.ctx.out.is_json() {
            provider
        } else {
            &spinning
        };
        let end = driver::drive(
            self.store,
            &self.ctx.location,
            run,
            &lease,
            provider,
            &mut self.ctx.out.sink(),
        )?;
        if self.streams_every_event() {
            self.seen = self.store.events(&run.id)?.last().map(|e| e.seq);
        }
        match end {
            LegEnd::Status(RunStatus::Suspended) => {
                notify::on_suspend(self.ctx, &self.store.pending(Some(&run.id))?);
                // A waiter says what its leg left waiting, then waits.
                if self.policy.wait.is_some() && !self.policy.prompt {
                    announce(self.ctx, self.store, &run.id)?;
                }
            }
            LegEnd::Status(_) => {}
            LegEnd::LostLease => {
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

    /// Whether this process's output carries every stored event of the run (a waiter's JSON
    /// stream), not only those of its own legs.
    fn streams_every_event(&self) -> bool {
        self.policy.wait.is_some() && self.ctx.out.is_json()
    }

    /// A waiter's JSON stream: prints the stored events this process has not printed yet
    /// (the results another process's answer appended, a leg another driver ran).
    fn catch_up(&mut self, run: &Run) -> Result<()> {
        let Some(seen) = self.seen else {
            return Ok(());
        };
        if !self.streams_every_event() {
            return Ok(());
        }
        let new: Vec<_> = self
            .store
            .events(&run.id)?
            .into_iter()
            .filter(|e| e.seq > seen)
            .collect();
        if let Some(last) = new.last() {
            self.seen = Some(last.seq);
        }
        self.ctx.out.stored_events(&run.id, &new);
        Ok(())
    }

    /// Prompts for the oldest pending item and records the answer. `Some(exit)` when this
    /// process stops here.
    fn prompt_next(&mut self, run: &Run) -> Result<Option<Exit>> {
        let Some(item) = self.store.pending(Some(&run.id))?.into_iter().next() else {
            // Resolved or closed meanwhile by another process: look again.
            return Ok(None);
        };
        match prompting::prompt(self.ctx, run, &item.call, &self.policy.by)? {
            Prompted::Resolved(resolution) => self.record(run, &item.call, &resolution),
            Prompted::Left => fail(prompting::interrupted(self.ctx, &item.call, &self.recorded)),
            Prompted::Later => {
                // A waiter keeps waiting for someone else to decide; others stop here.
                if self.policy.wait.is_some() {
                    self.policy.prompt = false;
                    announce(self.ctx, self.store, &run.id)?;
                    return Ok(None);
                }
                announce(self.ctx, self.store, &run.id)?;
                Ok(Some(Exit::Suspended))
            }
        }
    }

    /// Records a resolution exactly once. When it resumes the run, this process drives the
    /// leg if the policy allows, it is on the run's host, it has the model, and no live
    /// waiter claims the leg. `Some(exit)` when this process stops here.
    pub fn record(
        &mut self,
        run: &Run,
        item: &CallRecord,
        resolution: &Resolution,
    ) -> Result<Option<Exit>> {
        let here = on_own_host(run);
        if self.policy.drive && here && self.provider.is_none() {
            // Without the model's keys this process can still record for a live waiter.
            match provider_for(run) {
                Ok(p) => self.provider = Some(p),
                Err(_) if self.store.has_waiter(&run.id)? => {}
                Err(e) => return Err(e),
            }
        }
        let offer = (self.policy.drive && here && self.provider.is_some()).then(lease::mine);
        let resolved = self
            .store
            .resolve(&run.id, &item.call_id, resolution, offer.as_ref())?;
        self.recorded.push(resolved_line(
            &item.call_id,
            item.kind(),
            &resolution.resume_data,
        ));
        match resolved {
            Resolved::Recorded { still_pending } => {
                self.ctx.out.info(&format!(
                    "recorded; {still_pending} more item(s) of this step must be resolved before the run continues"
                ));
                Ok(None)
            }
            Resolved::Partial { needed, .. } => {
                self.ctx.out.info(&format!(
                    "recorded; the run's policy needs {needed} more approval(s) before the item is decided"
                ));
                Ok(Some(Exit::Suspended))
            }
            Resolved::Resumed { events, driving } if driving => {
                self.ctx.out.stored_events(&run.id, &events);
                self.seen = events.last().map(|e| e.seq).or(self.seen);
                self.lease = offer;
                Ok(None)
            }
            Resolved::Resumed { .. } if self.policy.wait.is_some() => Ok(None),
            Resolved::Resumed { .. } => Ok(Some(self.handed(run, here))),
        }
    }

    /// The answer was recorded and someone else continues the run: say who.
    fn handed(&self, run: &Run, here: bool) -> Exit {
        let program = self.ctx.program();
        let message = if !self.policy.drive {
            format!(
                "recorded; a waiting process, or `{program} resume {}`, continues the run",
                run.id
            )
        } else if !here {
            format!(
                "answer recorded; run {} continues on the host that started it: its waiting process, or `{program} resume {}` run there",
                run.id, run.id
            )
        } else {
            "answer recorded; the waiting process continues the run".to_string()
        };
        self.ctx.out.info(&message);
        Exit::Success
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

    /// How the run ended, said once, as an exit code.
    fn end(&self, run: &Run) -> Result<Exit> {
        let waited = self.policy.wait.as_ref();
        if waited.is_some_and(|w| w.summary) && self.ctx.out.is_json() && !outcome::is_one_shot(run)
        {
            self.ctx.out.json_line(&super::runs::summary(run));
        }
        match run.status {
            RunStatus::Completed => {
                if run.finish_reason.as_deref() == Some("tool-calls") {
                    self.ctx.out.warn(&format!(
                        "run {} stopped after its step budget: the model was still calling tools (raise it with --max-steps, or `{} reply {} ...` to go on)",
                        run.id,
                        self.ctx.program(),
                        run.id
                    ));
                }
                match waited {
                    Some(_) => outcome::print(self.ctx, self.store, run),
                    None => Ok(Exit::Success),
                }
            }
            RunStatus::Cancelled => {
                self.ctx.out.info(&format!("run {} was cancelled", run.id));
                Ok(Exit::Cancelled)
            }
            RunStatus::Failed => {
                let error = run.error.clone().unwrap_or_else(|| "unknown error".into());
                if run.finish_reason.as_deref() == Some(EXPIRED) {
                    return fail(Error::new(
                        Kind::TimedOut,
                        format!("run {} expired: {}", run.id, sanitize::one_line(&error)),
                    ));
                }
                let kept = if self.recorded.is_empty() {
                    String::new()
                } else {
                    "; your answer was recorded, and resume continues the run".to_string()
                };
                fail(
                    Error::provider(format!("run {} failed: {error}{kept}", run.id)).with_hint(
                        format!("retry it with: {} resume {}", self.ctx.program(), run.id),
                    ),
                )
            }
            RunStatus::Running | RunStatus::Suspended => unreachable!("the run has ended"),
        }
    }
}

/// Whether this process runs on the host that started the run (only there may it be
/// driven: its working directory, keys and tools are there).
pub fn on_own_host(run: &Run) -> bool {
    run.host
        .as_deref()
        .is_none_or(|h| h == crate::sys::host_id())
}

/// The provider for a stored run, checked before anything changes.
pub fn provider_for(run: &Run) -> Result<Box<dyn Provider>> {
    providers::from_spec(&AgentDef::of_run(run)?.model)
}

/// A provider with a spinner on stderr (a terminal only) until its first text.
struct Spinning<'a>(&'a dyn Provider);

impl Provider for Spinning<'_> {
    fn complete(
        &self,
        request: &providers::Request,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<providers::Response> {
        let mut spinner = Spinner::start("thinking");
        let response = self.0.complete(request, &mut |text| {
            spinner.stop();
            on_text(text)
        });
        spinner.stop();
        response
    }
}
