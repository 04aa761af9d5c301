//! The path every driving command shares: check the provider, resolve an item, drive a leg,
//! then report how the run stands — what it waits for (and the `--on-suspend` hook for new
//! items), why it failed, or that it ended.

use anyhow::Result;

use super::items::{commands_for, describe};
use super::{inline, notify, Ctx};
use crate::agent::driver::{self, LegEnd};
use crate::agent::lease;
use crate::domain::{CallRecord, Resolution, RunStatus};
use crate::error::{fail, Error, Kind};
use crate::exit::Exit;
use crate::output::spinner::Spinner;
use crate::providers::{self, Provider};
use crate::store::{Lease, Resolved, Run, Store, EXPIRED};

/// The provider for a stored run, checked before anything changes.
pub fn provider_for(run: &Run) -> Result<Box<dyn Provider>> {
    let model = run.agent["model"].as_str().unwrap_or_default();
    providers::from_spec(model)
}

/// Drives a leg of `run_id` under `lease` and reports how it ended.
pub fn drive(
    ctx: &Ctx,
    store: &dyn Store,
    run_id: &str,
    lease: &Lease,
    provider: &dyn Provider,
) -> Result<Exit> {
    let status = drive_leg(ctx, store, run_id, lease, provider)?;
    report(ctx, store, run_id, status, true)
}

/// Drives one leg; the run's status when it ends.
pub fn drive_leg(
    ctx: &Ctx,
    store: &dyn Store,
    run_id: &str,
    lease: &Lease,
    provider: &dyn Provider,
) -> Result<RunStatus> {
    let run = store
        .run(run_id)?
        .ok_or_else(|| Error::not_found(format!("no run {run_id}")))?;
    let spinning = Spinning(provider);
    let provider: &dyn Provider = if ctx.out.is_json() {
        provider
    } else {
        &spinning
    };
    let end = driver::drive(
        store,
        &ctx.location,
        &run,
        lease,
        provider,
        &mut ctx.out.sink(),
    )?;
    match end {
        LegEnd::Status(s) => Ok(s),
        LegEnd::LostLease => match store.run(run_id)?.map(|r| r.status) {
            Some(RunStatus::Cancelled) => Ok(RunStatus::Cancelled),
            _ => fail(Error::conflict(format!(
                "run {run_id} was taken over by another process"
            ))),
        },
    }
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

/// The exit code for a run's state, after telling what it waits for (running the
/// `--on-suspend` hook when `new_items`) or why it failed.
pub fn report(
    ctx: &Ctx,
    store: &dyn Store,
    run_id: &str,
    status: RunStatus,
    new_items: bool,
) -> Result<Exit> {
    match status {
        RunStatus::Completed => Ok(Exit::Success),
        RunStatus::Suspended => {
            if new_items {
                notify::on_suspend(ctx, &store.pending(Some(run_id))?);
            }
            if ctx.interactive() {
                return inline::settle(ctx, store, run_id, &super::who(None));
            }
            announce_pending(ctx, store, run_id)?;
            Ok(Exit::Suspended)
        }
        RunStatus::Cancelled => {
            ctx.out.info(&format!("run {run_id} was cancelled"));
            Ok(Exit::Cancelled)
        }
        RunStatus::Running => fail(Error::conflict(format!(
            "run {run_id} is being driven by another process"
        ))),
        RunStatus::Failed => {
            let run = store.run(run_id)?;
            let error = run
                .as_ref()
                .and_then(|r| r.error.clone())
                .unwrap_or_else(|| "unknown error".into());
            if run.and_then(|r| r.finish_reason).as_deref() == Some(EXPIRED) {
                return fail(Error::new(Kind::TimedOut, format!("run {run_id}: {error}")));
            }
            fail(
                Error::provider(format!("run {run_id} failed: {error}"))
                    .with_hint(format!("retry it with: {} resume {run_id}", ctx.program())),
            )
        }
    }
}

/// Tells on stderr what a suspended run waits for and the commands that answer it.
fn announce_pending(ctx: &Ctx, store: &dyn Store, run_id: &str) -> Result<()> {
    let items = store.pending(Some(run_id))?;
    ctx.out.info(&format!(
        "run {run_id} is waiting for input ({} pending):",
        items.len()
    ));
    for item in &items {
        ctx.out.info(&format!("  {}", describe(&item.call)));
        for command in commands_for(ctx, item) {
            ctx.out.info(&format!("    {command}"));
        }
    }
    Ok(())
}

/// What recording a resolution led to.
pub enum Outcome {
    /// Other items of the step still wait.
    StillPending(usize),
    /// This process drove the next leg; the run's status after it.
    Drove(RunStatus),
    /// Recorded only: a live waiter (or `resume`, after `--no-resume`) drives on.
    Handed,
}

/// Records `resolution` for `item` exactly once; when it was the last pending item of its
/// step, drives the run's next leg in this process — unless `record_only`, or a live waiter
/// will drive it.
pub fn resolve_item(
    ctx: &Ctx,
    store: &dyn Store,
    run: &Run,
    item: &CallRecord,
    resolution: &Resolution,
    record_only: bool,
) -> Result<Outcome> {
    // Without keys of its own, this process can still record for a live waiter.
    let provider = match (record_only, provider_for(run)) {
        (true, _) => None,
        (false, Ok(p)) => Some(p),
        (false, Err(_)) if store.has_waiter(&run.id)? => None,
        (false, Err(e)) => return Err(e),
    };
    let lease = lease::mine();
    let driver = provider.as_ref().map(|_| &lease);
    match store.resolve(&run.id, &item.call_id, resolution, driver)? {
        Resolved::Recorded { still_pending } => Ok(Outcome::StillPending(still_pending)),
        Resolved::Resumed { events, driving } => match provider.filter(|_| driving) {
            Some(provider) => {
                ctx.out.stored_events(&run.id, &events);
                let status = drive_leg(ctx, store, &run.id, &lease, provider.as_ref())?;
                if status == RunStatus::Suspended {
                    notify::on_suspend(ctx, &store.pending(Some(&run.id))?);
                }
                Ok(Outcome::Drove(status))
            }
            None => Ok(Outcome::Handed),
        },
    }
}

/// `resolve_item`, then what the command says and how it exits. At a terminal, items still
/// pending are prompted for inline.
pub fn resolve_and_continue(
    ctx: &Ctx,
    store: &dyn Store,
    run: &Run,
    item: &CallRecord,
    resolution: &Resolution,
    record_only: bool,
) -> Result<Exit> {
    match resolve_item(ctx, store, run, item, resolution, record_only)? {
        Outcome::StillPending(n) => ctx.out.info(&format!(
            "recorded; {n} more item(s) of this step must be resolved before the run continues"
        )),
        Outcome::Drove(status) if status != RunStatus::Suspended => {
            return report(ctx, store, &run.id, status, false)
        }
        Outcome::Drove(_) => {}
        Outcome::Handed if record_only => {
            ctx.out.info(&format!(
                "recorded; a waiting process, or `{} resume {}`, continues the run",
                ctx.program(),
                run.id
            ));
            return Ok(Exit::Success);
        }
        Outcome::Handed => {
            ctx.out
                .info("answer recorded; the waiting process continues the run");
            return Ok(Exit::Success);
        }
    }
    if ctx.interactive() {
        return inline::settle(ctx, store, &run.id, &resolution.by);
    }
    announce_pending(ctx, store, &run.id)?;
    Ok(Exit::Suspended)
}
