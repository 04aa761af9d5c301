//! `resume`: continue a run whose driver is gone (expired lease, or a dead process on this
//! host) or that failed. Only on the run's own host.

use anyhow::Result;

use crate::agent::lease::{self, Held};
use crate::context::Ctx;
use crate::domain::RunStatus;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::runner::advance::{model_for, on_own_host, Advance, Policy};
use crate::runner::Local;
use crate::store::{now_ms, Run, Who};

pub fn run(ctx: &Ctx, input: &str) -> Result<Exit> {
    let (store, run) = ctx.store_and_run(input)?;
    let expected = match run.status {
        RunStatus::Failed => None,
        RunStatus::Running => {
            if let Err(Held::Live(holder, secs)) = lease::can_take(run.lease.as_ref(), now_ms()) {
                return fail(Error::conflict(format!(
                    "run {} is being driven by {holder} (its lease expires in {secs}s unless renewed)",
                    run.id
                )));
            }
            run.lease.as_ref().map(|l| l.token.clone())
        }
        RunStatus::Suspended => {
            return fail(
                Error::conflict(format!("run {} is waiting for input, not stuck", run.id))
                    .with_hint(format!(
                        "see what it waits for: {} pending --run {}",
                        ctx.program(),
                        run.id
                    )),
            )
        }
        status => {
            return fail(Error::conflict(format!(
                "run {} is already {}",
                run.id,
                status.as_str()
            )))
        }
    };
    if !on_own_host(&run) {
        return fail(elsewhere(&run));
    }
    let model = model_for(&run)?;
    let lease = lease::mine();
    if !store.take_lease(&run.id, run.status, expected.as_deref(), &lease)? {
        return fail(Error::conflict(format!(
            "run {} changed meanwhile; look again with: mastra-ask show {}",
            run.id, run.id
        )));
    }
    let place = Local::new(ctx, Some(store.as_ref()), &run.id, false).holding(lease, model);
    let policy = Policy::driving(ctx, Who::this_process(None));
    Advance::over(ctx, Box::new(place), policy).run()
}

/// A run is only driven on the host that started it (SPEC §5.1).
pub fn elsewhere(run: &Run) -> Error {
    Error::conflict(format!(
        "run {} belongs to another host (host id {}): only a process there may drive it",
        run.id,
        run.host.as_deref().unwrap_or_default()
    ))
    .with_hint("run this command on the machine that started the run")
}
