//! Advancing a run: the one loop that decides who moves a run and when this process stops
//! (SPEC §5.1, §5.2, §12), written once for every place a run lives (`Place`: this store, or
//! a Mastra server). Every frontend that moves a run sets up its entry state (a new run, a
//! resolution, a reply, a taken lease, a waiter) and hands the run to `Advance`, which then,
//! by how the run stands and the `Policy`:
//!
//! - runs the next leg when it is this process's to run (or, as a waiter that may drive,
//!   takes over a run whose driver is gone), and runs the `--on-suspend` hook for the items
//!   a leg of its own left waiting, and the `--on-resolve` hook for the items resolved
//!   (here, by others, at a deadline) that no process has told of yet;
//! - prompts for a pending item when a person is at the terminal, and records the answer;
//! - waits, as a waiter, for others to answer, until the run ends or the deadline passes;
//! - otherwise says what the run waits for, or how it ended (`end`), as the exit code.
//!
//! Recording a resolution, and who then moves the run on, is one decision of the place
//! (`Outcome`). The loop reports only through the context's `Report`, draws no prompt
//! itself (`items`), and does no IO of its own (the place does).

use std::time::{Duration, Instant};

use anyhow::Result;

use super::local::Local;
use super::place::{Driver, Place, State};
use super::prompt;
use super::record::Outcome;
use super::target;
use super::view::{announce_items, resolved_line};
use super::{notify, resolved, Context};
use crate::agent::AgentDef;
use crate::domain::{ItemKind, Resolution};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::{self, Asked, Item, ItemView, Prompted};
use crate::store::{DrivenBy, Run, Store, Who};
use crate::sys::signals;

/// What a frontend lets this process do with a run.
pub struct Policy {
    /// This process may drive the run's legs (not `--no-resume`). Even then it drives only
    /// on the run's own host.
    pub drive: bool,
    /// A person is at this terminal: prompt for pending items instead of stopping.
    pub prompt: bool,
    /// Stay until the run ends (a waiter: `--wait`, `wait`).
    pub wait: Option<Wait>,
    /// Who decides what is recorded here, named by the frontend (SPEC §14).
    pub who: Who,
}

/// How a waiter waits.
pub struct Wait {
    pub deadline: Option<Instant>,
    /// At the deadline, close the pending items as expired (the run fails) rather than just
    /// stop watching.
    pub expire_at_deadline: bool,
    /// In JSON mode, end with the run's summary line (`wait`).
    pub summary: bool,
    /// This process started the run (`run`/`ask`/`plan --wait`, not `wait --drive`): a
    /// one-step run is its own, and a signal that stops it cancels the run (SPEC §5.3).
    pub started_it: bool,
}

impl Policy {
    /// The policy of a command that runs the run's next leg itself (`resume`, `reply`, a
    /// run started on a server), as `who`: drive it, prompt on at a terminal.
    pub fn driving(ctx: &Context, who: Who) -> Policy {
        Policy {
            drive: true,
            prompt: ctx.interactive(),
            wait: None,
            who,
        }
    }

    /// The policy of a frontend that resolves an item as `who`: drive the leg it resumes
    /// when `drive` (not `--no-resume`), prompt on at a terminal for what the run asks next.
    pub fn acting(ctx: &Context, drive: bool, who: Who) -> Policy {
        Policy {
            drive,
            prompt: ctx.interactive() && drive,
            wait: None,
            who,
        }
    }

    /// A waiter's JSON stream reports every stored event of the run, not only those of the
    /// legs this process drives.
    pub fn every_event(&self, ctx: &Context) -> bool {
        self.wait.is_some() && ctx.report.json()
    }

    /// The policy of a frontend with no terminal (`serve`, and every channel after it)
    /// resolving an item of `run` as `who`: it never prompts, and drives the leg only when
    /// asked to (`drive`, serve's `--drive`) and only for a run that its own OS user started
    /// on its own host, as the store recorded it (SPEC §13): anyone who can write the store
    /// could otherwise make it run their commands.
    pub fn serving(drive: bool, run: &Run, who: Who) -> Policy {
        Policy {
            drive: drive && started_here_by_me(run),
            prompt: false,
            wait: None,
            who,
        }
    }
}

pub struct Advance<'a> {
    pub(super) ctx: &'a Context<'a>,
    pub(super) place: Box<dyn Place + 'a>,
    pub(super) policy: Policy,
    /// Items this process recorded, in order (what an interruption reports as kept).
    pub(super) recorded: Vec<String>,
    /// How long `target` waits for the next item of a run whose leg a live waiter or
    /// driver is advancing (SPEC §5.1); `None`: it does not.
    pub(super) next_within: Option<Duration>,
}

impl<'a> Advance<'a> {
    /// Advances the run of `place` under `policy`.
    pub fn over(ctx: &'a Context<'a>, place: Box<dyn Place + 'a>, policy: Policy) -> Advance<'a> {
        Advance {
            ctx,
            place,
            policy,
            recorded: Vec::new(),
            next_within: None,
        }
    }

    /// `target` waits up to `within` for the next item of a run whose leg a live waiter or
    /// driver is advancing, so that a script answers question after question (SPEC §5.1).
    pub fn next_within(mut self, within: Duration) -> Advance<'a> {
        self.next_within = Some(within);
        self
    }

    /// A frontend that resolves an item as `who`; `no_resume`: only record it, where the
    /// place allows that.
    pub fn acting(
        ctx: &'a Context<'a>,
        place: Box<dyn Place + 'a>,
        no_resume: bool,
        who: Who,
    ) -> Result<Advance<'a>> {
        if no_resume {
            if let Some(refused) = place.refuses_only_recording() {
                return fail(refused);
            }
        }
        Ok(Advance::over(
            ctx,
            place,
            Policy::acting(ctx, !no_resume, who),
        ))
    }

    /// The place the run lives in.
    pub fn place(&mut self) -> &mut dyn Place {
        &mut *self.place
    }

    /// The pending item of the run `run` names that a command for items of `kinds` acts
    /// on: the one named by `tool_call`, else the only one of those kinds.
    pub fn target(
        &mut self,
        run: Option<&str>,
        kinds: &[ItemKind],
        tool_call: Option<&str>,
    ) -> Result<Item> {
        let Some(input) = run else {
            return fail(target::which_run(self.ctx));
        };
        self.place.load(input)?;
        self.wait_for_next()?;
        target::select(self.ctx, &mut *self.place, kinds, tool_call)
    }

    /// While a live waiter or driver advances the run's leg, waits for its next suspension
    /// (or its end), up to `next_within`; `select` then finds the item, or says that nothing
    /// waits. (A Claude Code run's leg has its item recorded before it suspends: the run
    /// suspends once Claude Code has stopped.)
    fn wait_for_next(&mut self) -> Result<()> {
        let Some(within) = self.next_within else {
            return Ok(());
        };
        let deadline = Instant::now() + within;
        // Advancing is asked first: a run seen suspended then has its items read after.
        while self.place.advancing()? {
            if Instant::now() >= deadline {
                break;
            }
            self.place.pause(Some(deadline))?;
        }
        Ok(())
    }

    /// Records `resolution` for `item` exactly once, then advances the run.
    fn resolve(mut self, item: &Item, resolution: &Resolution) -> Result<Exit> {
        let outcome = self.record_item(item, resolution)?;
        self.carry_on(&outcome)
    }

    /// After recording (here or by the place itself: `Local::record_all`): stops as
    /// `after` says, or advances the run.
    pub fn carry_on(mut self, outcome: &Outcome) -> Result<Exit> {
        if let Some(exit) = self.after(outcome) {
            return Ok(exit);
        }
        self.advance()
    }

    /// Records `resolution` for `item` exactly once, as the policy's `who`; who moves the
    /// run on. Every recording of this process passes here (`decide`, a prompt's answer).
    pub(super) fn record_item(&mut self, item: &Item, resolution: &Resolution) -> Result<Outcome> {
        let who = &self.policy.who.identity;
        let outcome = self
            .place
            .record(item, resolution, who, self.policy.drive)?;
        self.recorded.push(resolved_line(
            item.call_id(),
            item.kind(),
            &resolution.resume_data,
        ));
        self.told_resolved();
        Ok(outcome)
    }

    /// Runs this process's `--on-resolve` command for the items of the run resolved (here or
    /// elsewhere) whose hook no process has run yet (SPEC §17).
    pub fn told_resolved(&self) {
        if let Some(store) = self.place.items_store() {
            resolved::told(self.ctx, store, Some(self.place.run_id()));
        }
    }

    /// `answer`/`review` at a terminal without an answer or decision: the item (of RUN, else
    /// picked among every pending item of `kinds`) is prompted for, recorded, and the run
    /// advanced like any other.
    pub fn prompt_chosen(
        mut self,
        run: Option<&str>,
        tool_call: Option<&str>,
        kinds: &[ItemKind],
    ) -> Result<Exit> {
        let item = match run {
            Some(input) => {
                self.place.load(input)?;
                let chosen = match tool_call {
                    Some(_) => None,
                    None => prompt::choose(of_kinds(self.place.pending()?, kinds), kinds)?,
                };
                match chosen {
                    Some(item) => item,
                    // Let `select` say why nothing of these kinds waits, or find the one named.
                    None => target::select(self.ctx, &mut *self.place, kinds, tool_call)?,
                }
            }
            None => {
                let all = self.place.everything_pending(kinds)?;
                let Some(item) = prompt::choose(all, kinds)? else {
                    return fail(prompt::nothing_pending(self.ctx, kinds[0]));
                };
                self.place.load(item.run_id())?;
                item
            }
        };
        let prompted = self.ask(&item)?;
        // Decided by another process while the prompt was open: nothing of ours goes over it.
        if let Some(said) = self.place.decided_meanwhile(&item)? {
            return fail(Error::conflict(format!("{said}; nothing recorded here")));
        }
        match prompted {
            Prompted::Resolved(resolution) => self.resolve(&item, &resolution),
            // "Leave it for later" leaves as Esc does: one exit code for leaving a menu.
            Prompted::Left | Prompted::Later => fail(prompt::interrupted(self.ctx, &item, &[])),
            Prompted::Unanswerable => fail(prompt::cannot_prompt(self.ctx, &item)),
        }
    }

    /// What this process does after recording: say what became of the answer, and stop
    /// (`Some`) unless it drives the run on, waits for it, or other items of the step wait.
    fn after(&self, outcome: &Outcome) -> Option<Exit> {
        let told = || {
            if let Some(words) = outcome.wording(&self.ctx.program(), self.place.run_id()) {
                self.ctx.report.info(&words);
            }
        };
        match outcome {
            Outcome::Driven => None,
            Outcome::Pending(_) => {
                told();
                None
            }
            // The run still waits for the policy's other reviewers (SPEC §14: exit 75).
            Outcome::Partial(..) => {
                told();
                Some(Exit::Suspended)
            }
            // A waiter goes on waiting.
            Outcome::Waiter | Outcome::Recorded(_) if self.policy.wait.is_some() => None,
            Outcome::Waiter | Outcome::Recorded(_) => {
                told();
                Some(Exit::Success)
            }
        }
    }

    /// The loop: drive, prompt, wait or stop, until this process has nothing more to do.
    pub fn run(mut self) -> Result<Exit> {
        self.advance()
    }

    fn advance(&mut self) -> Result<Exit> {
        let waiter = self.policy.wait.is_some();
        loop {
            // A waiter tells of what others resolved (or what expired) while it waited.
            if waiter {
                self.told_resolved();
            }
            let state = self.place.state()?;
            // A waiter told to stop (SPEC §5.3) stops where it would pause, prompt or take
            // over: a leg it drives runs to its end first, and an ended run exits by its end.
            if waiter && !matches!(state, State::Running(Driver::Me) | State::Ended(_)) {
                self.stop_if_signalled()?;
            }
            match state {
                State::Running(Driver::Me) => self.leg()?,
                State::Running(Driver::Gone) if waiter && self.policy.drive => self.place.take()?,
                State::Running(_) if waiter => self.wait_a_while()?,
                // What this process recorded stands; another resolved the step's last item
                // meanwhile, and the run goes on without this one.
                State::Running(_) if !self.recorded.is_empty() => {
                    let program = self.ctx.program();
                    let id = self.place.run_id();
                    self.ctx.report.info(&format!(
                        "the step's other items were resolved meanwhile: the run goes on with whoever resolved the last one, a waiting process, or `{program} resume {id}`"
                    ));
                    return Ok(Exit::Success);
                }
                State::Running(_) => {
                    return fail(Error::conflict(format!(
                        "run {} is being driven by another process",
                        self.place.run_id()
                    )))
                }
                State::Suspended if self.policy.prompt => {
                    if let Some(exit) = self.prompt_next()? {
                        return Ok(exit);
                    }
                }
                State::Suspended if waiter => self.wait_a_while()?,
                State::Suspended => {
                    self.announce()?;
                    return Ok(Exit::Suspended);
                }
                State::Ended(end) => return self.end(end),
            }
        }
    }

    /// A waiter that got SIGHUP, SIGINT or SIGTERM stops here: the place says what became
    /// of the run (SPEC §5.3).
    fn stop_if_signalled(&mut self) -> Result<()> {
        let started_it = self.policy.wait.as_ref().is_some_and(|w| w.started_it);
        match signals::ended() {
            Some(signal) => {
                let stopped = self.place.stop_waiting(signal, started_it)?;
                self.told_resolved();
                Err(stopped.into())
            }
            None => Ok(()),
        }
    }

    /// Runs this process's leg; runs the hook for the items it left waiting.
    fn leg(&mut self) -> Result<()> {
        let leg = self.place.leg()?;
        if leg.stop_asked {
            self.policy.prompt = false;
        }
        if leg.suspended {
            let items = self.place.pending()?;
            let gates = self.place.gates(&items)?;
            let shown: Vec<ItemView> = items.iter().map(|i| i.view_gated(&gates)).collect();
            notify::hook(self.ctx, &shown);
            // A waiter says what its leg left waiting, then waits.
            if self.policy.wait.is_some() && !self.policy.prompt {
                announce_items(self.ctx, self.place.run_id(), &shown);
            }
        }
        Ok(())
    }

    /// Asks the person at the terminal about `item`; the prompt is left when another
    /// process decides the item meanwhile (the caller asks `decided_meanwhile`).
    fn ask(&self, item: &Item) -> Result<Prompted> {
        let asked = Asked {
            item,
            by: &self.policy.who.by,
            plans: &*self.place,
        };
        let _noticing = self.place.notice(item);
        items::of(item.kind()).prompt(&asked)
    }

    /// Prompts for the oldest pending item and records the answer. `Some(exit)` when this
    /// process stops here.
    fn prompt_next(&mut self) -> Result<Option<Exit>> {
        let Some(item) = self.place.pending()?.into_iter().next() else {
            // Resolved or closed meanwhile by another process: look again.
            return Ok(None);
        };
        let prompted = self.ask(&item)?;
        // A signal that left the prompt is the waiter's to stop on, not a person leaving.
        if self.policy.wait.is_some() {
            self.stop_if_signalled()?;
        }
        // Decided by another process while the prompt was open: say so and go on as that
        // decision requires (a waiter drives the next leg).
        if let Some(said) = self.place.decided_meanwhile(&item)? {
            self.ctx.report.info(&said);
            return Ok(None);
        }
        match prompted {
            Prompted::Resolved(resolution) => {
                let outcome = self.record_item(&item, &resolution)?;
                Ok(self.after(&outcome))
            }
            Prompted::Left => fail(prompt::interrupted(self.ctx, &item, &self.recorded)),
            // Leave it for later, or no prompt can answer it (a server's `other` item).
            Prompted::Later | Prompted::Unanswerable => {
                // A waiter keeps waiting for someone else to decide; others stop here, and
                // "Leave it for later" leaves as Esc does (130).
                if self.policy.wait.is_some() {
                    self.announce()?;
                    self.policy.prompt = false;
                    return Ok(None);
                }
                if matches!(prompted, Prompted::Later) {
                    return fail(prompt::interrupted(self.ctx, &item, &self.recorded));
                }
                self.announce()?;
                Ok(Some(Exit::Suspended))
            }
        }
    }

    /// Tells what the suspended run waits for and the commands that answer it.
    fn announce(&mut self) -> Result<()> {
        let items = self.place.pending()?;
        let gates = self.place.gates(&items)?;
        let shown: Vec<ItemView> = items.iter().map(|i| i.view_gated(&gates)).collect();
        announce_items(self.ctx, self.place.run_id(), &shown);
        Ok(())
    }

    /// A waiter's pause: until something changes, or the deadline (then the items expire, or
    /// the watch just stops).
    fn wait_a_while(&mut self) -> Result<()> {
        let wait = self.policy.wait.as_ref().expect("a waiter");
        if wait.deadline.is_some_and(|d| Instant::now() >= d) {
            let expire = wait.expire_at_deadline;
            let timed_out = self.place.timed_out(expire)?;
            self.told_resolved();
            return Err(timed_out.into());
        }
        let until = wait.deadline;
        self.place.pause(until)
    }
}

/// The items of `kinds`.
fn of_kinds(items: Vec<Item>, kinds: &[ItemKind]) -> Vec<Item> {
    items
        .into_iter()
        .filter(|i| kinds.contains(&i.kind()))
        .collect()
}

/// A run of this store, as a frontend with nothing else to set up starts advancing it.
impl<'a> Advance<'a> {
    pub fn new(
        ctx: &'a Context<'a>,
        store: &'a dyn Store,
        run_id: &str,
        policy: Policy,
    ) -> Advance<'a> {
        let local = Local::new(ctx, Some(store), run_id, policy.every_event(ctx));
        Advance::over(ctx, Box::new(local), policy)
    }
}

/// Whether this process runs on the host that started the run (only there may it be
/// driven: its working directory, keys and tools are there).
pub fn on_own_host(run: &Run) -> bool {
    run.host
        .as_deref()
        .is_none_or(|h| h == crate::sys::host_id())
}

/// Whether this process's OS user started the run on this host, as recorded with it (a run
/// stored before users were recorded is nobody's).
pub fn started_here_by_me(run: &Run) -> bool {
    run.host.is_some() && on_own_host(run) && run.os_uid == Some(crate::sys::euid())
}

/// A stored run's agent and the provider of its model, checked before anything changes.
pub fn model_for(run: &Run) -> Result<(AgentDef, crate::agent::Drive)> {
    not_claude_code(run)?;
    let agent = AgentDef::of_run(run)?;
    let drive = crate::agent::Drive::of(&agent)?;
    Ok((agent, drive))
}

/// Refuses to drive a Claude Code session (SPEC §15): Claude Code runs its tools, on the
/// host that ran it.
pub(super) fn not_claude_code(run: &Run) -> Result<()> {
    if run.driven_by() == DrivenBy::Nobody {
        return fail(Error::conflict(format!(
            "run {id} is a Claude Code session, which mastra-ask does not drive: `claude -p --resume {id}` on the host that ran it continues it",
            id = run.id
        )));
    }
    Ok(())
}
