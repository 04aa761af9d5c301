//! Starting a run, shared by `run`, `ask` and `plan`: store it (running, under this
//! process's lease), drive its first leg, and with `--wait` stay as its waiter — driving it
//! after each answer — until it ends.

use anyhow::Result;

use super::waiting::{self, WaitOptions, Waiter};
use super::{flow, Ctx};
use crate::agent::driver::new_message_id;
use crate::agent::{lease, AgentDef};
use crate::cli::WaitFlags;
use crate::domain::{Event, RunStatus};
use crate::providers::Provider;
use crate::store::{NewRun, Run, Store};

/// How far `start` went.
pub enum Started {
    /// Without `--wait`: the run's status after its first leg.
    Leg(RunStatus),
    /// With `--wait`: the run once it ended.
    Ended(Box<Run>),
}

pub fn start(
    ctx: &Ctx,
    store: &dyn Store,
    agent: &AgentDef,
    cwd: &str,
    prompt: &str,
    provider: &dyn Provider,
    flags: &WaitFlags,
) -> Result<(String, Started)> {
    let deadline = waiting::deadline(flags.timeout);
    let run_id = uuid::Uuid::now_v7().to_string();
    let lease = lease::mine();
    // A waiter is registered with the run itself: no answer can come before it.
    let waiting = flags.wait.then(lease::mine);
    let events = store.create_run(&NewRun {
        id: &run_id,
        agent_id: &agent.id,
        agent: &serde_json::to_value(agent)?,
        cwd,
        prompt,
        lease: &lease,
        waiter: waiting.as_ref(),
        events: &[Event::start(&agent.id, &new_message_id())],
        expires_in: flags.expires_in,
    })?;
    ctx.out.stored_events(&run_id, &events);
    let waiter = waiting.map(|me| Waiter::registered(ctx, store, &run_id, me));
    let status = flow::drive_leg(ctx, store, &run_id, &lease, provider)?;
    let Some(waiter) = waiter else {
        return Ok((run_id, Started::Leg(status)));
    };
    if status == RunStatus::Suspended {
        flow::report(ctx, store, &run_id, status, true)?;
    }
    let opts = WaitOptions {
        drive: true,
        deadline,
        expire_at_deadline: true,
    };
    let run = waiting::until_end(ctx, store, &run_id, &opts)?;
    drop(waiter);
    Ok((run_id, Started::Ended(Box::new(run))))
}
