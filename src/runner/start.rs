//! Starting a run, shared by `run`, `ask` and `plan` (and by `run --server`, for the prompt):
//! store it (running, under this process's lease; with `--wait`, with this process as its
//! waiter), then advance it.

use anyhow::Result;

use super::advance::{Advance, Policy, Wait};
use super::waiter::Waiter;
use super::Context;
use crate::agent::driver::new_message_id;
use crate::agent::{lease, AgentDef};
use crate::cli::{RunArgs, WaitFlags};
use crate::domain::Event;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::input::read_stdin;
use crate::providers::Provider;
use crate::store::{NewRun, Who};

/// A run to start.
pub struct Start<'a> {
    pub agent: &'a AgentDef,
    pub cwd: &'a str,
    pub prompt: &'a str,
    pub provider: Box<dyn Provider>,
    pub wait: &'a WaitFlags,
    /// Report the run id alone as data as soon as the run exists (`run -q`, and `ask` and
    /// `plan` without `--wait`).
    pub print_id: bool,
}

pub fn start(ctx: &Context, s: Start) -> Result<Exit> {
    let review = crate::policy::run_review(&s.wait.review, s.agent.policy_spec())?;
    let on_escalate = crate::policy::start::on_escalate(ctx, s.wait);
    let store = ctx.create_store()?;
    let deadline = s.wait.timeout.map(|t| std::time::Instant::now() + t);
    let run_id = uuid::Uuid::new_v4().to_string();
    let lease = lease::mine();
    // A waiter is registered with the run itself: no answer can come before it.
    let waiting = s.wait.wait.then(lease::mine);
    let (events, stored, messages) = store.start_run(&NewRun {
        id: &run_id,
        agent_id: &s.agent.id,
        agent: &serde_json::to_value(s.agent)?,
        cwd: s.cwd,
        prompt: s.prompt,
        lease: &lease,
        waiter: waiting.as_ref(),
        events: &[Event::start(&s.agent.id, &new_message_id())],
        expires_in: s.wait.expires_in,
        review: &review,
    })?;
    if s.print_id {
        ctx.report.line(&run_id);
    }
    ctx.report.stored_events(&run_id, &events);
    let _waiter = waiting.map(|me| Waiter::registered(&ctx.location, store.as_ref(), &run_id, me));
    let policy = Policy {
        drive: true,
        prompt: ctx.interactive(),
        wait: s.wait.wait.then_some(Wait {
            deadline,
            expire_at_deadline: true,
            summary: false,
            started_it: true,
        }),
        who: Who::this_process(None),
    };
    Advance::new(ctx, store.as_ref(), &run_id, policy)
        .with_new_run(stored, messages)
        .holding(lease, (s.agent.clone(), s.provider))
        .seen_up_to(events.last().map(|e| e.seq))
        .deciding(crate::policy::Deciding {
            on_escalate,
            ..Default::default()
        })
        .run()
}

/// The prompt: PROMPT, or stdin for `-`; never empty.
pub fn prompt_of(args: &RunArgs) -> Result<String> {
    let prompt = match args.prompt.as_deref() {
        None => {
            return fail(
                Error::usage("no prompt given")
                    .with_hint("pass PROMPT, or - to read it from stdin"),
            )
        }
        Some("-") => read_stdin("the prompt")?,
        Some(p) => p.to_string(),
    };
    if prompt.trim().is_empty() {
        return fail(Error::usage("the prompt is empty"));
    }
    Ok(prompt)
}
