//! Starting a run, shared by `run`, `ask` and `plan`: store it (running, under this
//! process's lease; with a waiter, with this process as its waiter), then advance it.

use std::time::Duration;

use anyhow::Result;

use super::advance::{Advance, Policy, Wait};
use super::read::Read;
use super::waiter::Waiter;
use super::Context;
use super::Local;
use crate::agent::driver::new_message_id;
use crate::agent::{lease, AgentDef, Drive};
use crate::domain::Event;
use crate::exit::Exit;
use crate::store::{NewRun, RunReview, Who};

/// How a new run is watched and reviewed, as its frontend translated its flags.
#[derive(Clone, Debug)]
pub struct Watched {
    /// This process stays with the run until it ends (`--wait`), as its waiter.
    pub wait: bool,
    /// The waiter's deadline: then the pending items expire (exit 124).
    pub timeout: Option<Duration>,
    /// Pending items expire this long after they are created.
    pub expires_in: Option<Duration>,
    /// Who may answer, stored with the run.
    pub review: RunReview,
    /// The waiter's `--on-escalate` command.
    pub on_escalate: Option<String>,
}

/// A run to start.
pub struct Start<'a> {
    pub agent: &'a AgentDef,
    pub cwd: &'a str,
    pub prompt: &'a str,
    pub drive: Drive,
    pub watched: Watched,
    /// Report the run id alone as data as soon as the run exists (`run -q`, and `ask` and
    /// `plan` without `--wait`).
    pub print_id: bool,
}

pub fn start(ctx: &Context, s: Start) -> Result<Exit> {
    start_as(ctx, s, &uuid::Uuid::new_v4().to_string())
}

/// `start`, under an id the frontend chose (an MCP call names its run before it exists).
pub fn start_as(ctx: &Context, s: Start, run_id: &str) -> Result<Exit> {
    let run_id = run_id.to_string();
    let watched = s.watched;
    let store = ctx.create_store()?;
    let deadline = watched.timeout.map(|t| std::time::Instant::now() + t);
    let lease = lease::mine();
    // A waiter is registered with the run itself: no answer can come before it.
    let waiting = watched.wait.then(lease::mine);
    let (events, stored, messages) = store.start_run(&NewRun {
        id: &run_id,
        agent_id: &s.agent.id,
        agent: &serde_json::to_value(s.agent)?,
        cwd: s.cwd,
        prompt: s.prompt,
        lease: &lease,
        waiter: waiting.as_ref(),
        events: &[Event::start(&s.agent.id, &new_message_id())],
        expires_in: watched.expires_in,
        review: &watched.review,
    })?;
    if s.print_id {
        ctx.report.line(&run_id);
    }
    ctx.report.stored_events(&run_id, &events);
    let _waiter = waiting.map(|me| Waiter::registered(&ctx.location, store.as_ref(), &run_id, me));
    let policy = Policy {
        drive: true,
        prompt: ctx.interactive(),
        wait: watched.wait.then_some(Wait {
            deadline,
            expire_at_deadline: true,
            summary: false,
            started_it: true,
        }),
        who: Who::this_process(None),
    };
    let place = Local::new(ctx, Some(store.as_ref()), &run_id, policy.every_event(ctx))
        .knowing(Read::created(stored, messages))
        .holding(lease, (s.agent.clone(), s.drive))
        .seen_up_to(events.last().map(|e| e.seq))
        .deciding(crate::policy::Deciding {
            on_escalate: watched.on_escalate,
            ..Default::default()
        });
    Advance::over(ctx, Box::new(place), policy).run()
}
