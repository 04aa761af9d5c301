//! A run of this store taken up again by a person (SPEC §5.1): `resume` (its driver is
//! gone, or it failed) and `reply` (the user's next message to a completed run). The local
//! place checks what may be taken up, on which host, and takes the lease; the command only
//! hands the place to `Advance`. Only on the run's own host: its working directory, keys and
//! tools are there.

use anyhow::Result;

use super::advance::{model_for, on_own_host};
use super::{Context, Local};
use crate::agent::lease::{self, Held};
use crate::domain::RunStatus;
use crate::error::{fail, Error};
use crate::store::{now_ms, Run, Store};

impl<'a> Local<'a> {
    /// `run`, whose driver is gone (an expired lease, a dead process on this host) or which
    /// failed, under a lease of this process.
    pub fn resuming(ctx: &'a Context<'a>, store: &'a dyn Store, run: Run) -> Result<Local<'a>> {
        let expected = match run.status {
            RunStatus::Failed => None,
            RunStatus::Running => {
                if let Err(Held::Live(holder, secs)) = lease::can_take(run.lease.as_ref(), now_ms())
                {
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
        let model = driven_here(&run)?;
        let lease = lease::mine();
        if !store.take_lease(&run.id, run.status, expected.as_deref(), &lease)? {
            return fail(Error::conflict(format!(
                "run {} changed meanwhile; look again with: {} show {}",
                run.id,
                ctx.program(),
                run.id
            )));
        }
        Ok(Local::new(ctx, Some(store), &run.id, false).holding(lease, model))
    }

    /// The completed `run` with the user's next `message`, under a lease of this process.
    pub fn replying(
        ctx: &'a Context<'a>,
        store: &'a dyn Store,
        run: &Run,
        message: &str,
    ) -> Result<Local<'a>> {
        let model = driven_here(run)?;
        let lease = lease::mine();
        store.reply(&run.id, message, &lease)?;
        Ok(Local::new(ctx, Some(store), &run.id, false).holding(lease, model))
    }
}

/// The run's agent and model, where this host may drive it.
fn driven_here(run: &Run) -> Result<(crate::agent::AgentDef, crate::agent::Drive)> {
    if !on_own_host(run) {
        return fail(elsewhere(run));
    }
    model_for(run)
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
