//! `hook claude-code` (SPEC §15): Claude Code's `PreToolUse` calls as items of this store.
//! The session is a run of agent `claude-code` (its id the session id), each gated call a
//! new step of it whose items wait (`Store::gate_step`); later calls for the same
//! `tool_use_id` read what was decided. With `--run RUN` (the hook `run` installs for a
//! Claude Code agent's leg, SPEC §15 "Claude Code as a run") the calls are those of that
//! run: a tool its gate does not pause is left to Claude Code (`Pass`), and a gated call's
//! items are recorded on the run its driver holds, which suspends it when Claude Code
//! stops. A translator only: who may decide and what a decision does are the store's, the
//! items' wording the item kinds'. It never answers `allow` without a recorded decision;
//! every failure is a `deny` naming it.

mod call;
mod plan;
pub mod wire;

use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::json;

use crate::agent::driver::new_message_id;
use crate::agent::{lease, AgentDef};
use crate::domain::{CallRecord, CallState, Event, ItemKind, RunStatus, CLAUDE_CODE};
use crate::items::Item;
use crate::providers::NO_MODEL;
use crate::runner::Context;
use crate::store::{now_ms, Identity, NewRun, Run, RunReview, Store};
use wire::{Answer, Input};

/// The longest `--wait`.
pub const MAX_WAIT: Duration = Duration::from_secs(9 * 60);
/// How often a waiting hook looks at the store again (SQLite has no notifications).
const POLL: Duration = Duration::from_millis(500);

/// How the hook was started: the policy new sessions get, how long it waits itself, and
/// whether Claude Code runs headless (`-p`, where `defer` is honoured).
pub struct Gate {
    pub review: RunReview,
    pub expires_in: Option<Duration>,
    pub wait: Duration,
    pub headless: bool,
    /// `--run`: the Claude Code run (SPEC §15, "Claude Code as a run") whose leg this hook
    /// gates, rather than a session that reached it on its own.
    pub run: Option<String>,
}

impl Gate {
    /// Whether Claude Code runs headless: `CLAUDE_CODE_ENTRYPOINT` is `sdk-cli` or `sdk-*`.
    pub fn headless_here() -> bool {
        std::env::var("CLAUDE_CODE_ENTRYPOINT").is_ok_and(|e| e.starts_with("sdk-"))
    }
}

/// What the hook answers `input`: whatever goes wrong is a denial that says what.
pub fn answer(ctx: &Context, gate: &Gate, input: &Input) -> Answer {
    match gated(ctx, gate, input) {
        Ok(answer) => answer,
        Err(e) => Answer::Deny(format!(
            "mastra-ask could not gate this call, so it may not run: {e:#}"
        )),
    }
}

fn gated(ctx: &Context, gate: &Gate, input: &Input) -> Result<Answer> {
    let store = ctx.create_store()?;
    store.expire_due(now_ms())?;
    let existing = store.run(&input.session_id)?;
    if let Some(id) = &gate.run {
        if let Some(answer) = not_this_run(id, existing.as_ref(), input)? {
            return Ok(answer);
        }
    }
    if let Some(run) = &existing {
        if let Some(answer) = known_session(ctx, store.as_ref(), gate, run, input)? {
            return Ok(answer);
        }
    }
    let governed = existing
        .as_ref()
        .map_or(!gate.review.policy.is_empty(), |r| r.gate.policy.is_some());
    if !gate.headless && !governed {
        // The person at the terminal decides; nothing is recorded for them to decide twice.
        return Ok(Answer::Ask(
            "no policy governs this session: decide at the terminal".into(),
        ));
    }
    let plan = (input.tool_name == call::EXIT_PLAN_MODE)
        .then(|| plan::find(input))
        .flatten();
    let step = match call::step_of(input, plan) {
        Ok(step) => step,
        Err(problem) => return Ok(Answer::Deny(problem)),
    };
    let run = record(store.as_ref(), gate, input, &step)?;
    announce(ctx, store.as_ref(), input)?;
    until_decided(ctx, store.as_ref(), gate, &run, input)
}

/// The answer for a call of a session this store knows, when it is not a new item: a
/// session of another run is refused, a recorded call waits for or reads its decision,
/// and a session that cannot take one more item says why.
fn known_session(
    ctx: &Context,
    store: &dyn Store,
    gate: &Gate,
    run: &Run,
    input: &Input,
) -> Result<Option<Answer>> {
    if let Some(refusal) = not_this_session(store, run, input, gate.run.is_some())? {
        return Ok(Some(Answer::Deny(refusal)));
    }
    if run.status == RunStatus::Cancelled {
        return Ok(Some(Answer::Deny(cancelled(&run.id))));
    }
    let recorded = own_calls(store.calls(&run.id)?, input);
    if !recorded.is_empty() {
        if !call::same_call(&recorded, input) {
            return Ok(Some(Answer::Deny(format!(
                "tool call {} was recorded with another input than this one",
                input.tool_use_id
            ))));
        }
        return until_decided(ctx, store, gate, run, input).map(Some);
    }
    let waits = || {
        store
            .calls(&run.id)
            .map(|c| c.iter().any(|c| c.state == CallState::Pending))
    };
    Ok(match run.status {
        // A Claude Code run's leg: a call of it already waits (two gated calls at once).
        RunStatus::Running if waits()? => Some(Answer::Deny(ONE_AT_A_TIME.into())),
        RunStatus::Running => None,
        // One gated call of a session waits at a time: a run suspends on one step.
        RunStatus::Suspended => Some(Answer::Deny(ONE_AT_A_TIME.into())),
        status => Some(Answer::Deny(format!(
            "this session's run in mastra-ask is {}: no more of its calls are gated",
            status.as_str()
        ))),
    })
}

/// Records the call as a new step of the session's run (created at its first call), its
/// items pending; the run as stored.
fn record(
    store: &dyn Store,
    gate: &Gate,
    input: &Input,
    step: &crate::domain::StepCommit,
) -> Result<Run> {
    let id = input.session_id.as_str();
    let agent = serde_json::to_value(AgentDef {
        id: CLAUDE_CODE.into(),
        name: Some("Claude Code".into()),
        instructions: String::new(),
        model: NO_MODEL.into(),
        tools: Vec::new(),
        max_steps: 1,
        model_settings: Default::default(),
        review: None,
        claude_code: None,
    })?;
    store.gate_step(
        &NewRun {
            id,
            agent_id: CLAUDE_CODE,
            agent: &agent,
            cwd: &input.cwd,
            prompt: "(a Claude Code session: its prompt is kept by Claude Code)",
            lease: &lease::mine(),
            waiter: None,
            events: &[Event::start(CLAUDE_CODE, &new_message_id())],
            expires_in: gate.expires_in,
            review: &gate.review,
        },
        step,
    )?;
    store
        .run(id)?
        .ok_or_else(|| anyhow::anyhow!("run {id} is gone"))
}

/// Runs `--on-suspend` for the call's first item (one hook per call, bounded as every
/// hook is, so the hook keeps its own deadline).
fn announce(ctx: &Context, store: &dyn Store, input: &Input) -> Result<()> {
    if ctx.on_suspend.is_none() {
        return Ok(());
    }
    let mut pending = store.pending(Some(&input.session_id))?;
    pending.retain(|p| is_own(&p.call.call_id, input));
    pending.truncate(1);
    let gates = crate::policy::ItemGate::of_pending(store, &pending)?;
    let items: Vec<Item> = pending.into_iter().map(Item::stored).collect();
    let shown: Vec<_> = items.iter().map(|i| i.view_gated(&gates)).collect();
    crate::runner::notify::hook(ctx, &shown);
    Ok(())
}

/// Why `input` may not go on with `run`: a run of another agent, directory or starter.
fn not_this_session(
    store: &dyn Store,
    run: &Run,
    input: &Input,
    run_mode: bool,
) -> Result<Option<String>> {
    let id = &run.id;
    if run.agent_id != CLAUDE_CODE && !run_mode {
        return Ok(Some(format!(
            "session {id} names a run of agent {} in mastra-ask, not a Claude Code session",
            json!(run.agent_id)
        )));
    }
    if run.cwd != input.cwd {
        return Ok(Some(format!(
            "session {id} was recorded in directory {}, not {}",
            json!(run.cwd),
            json!(input.cwd)
        )));
    }
    let me = store.checked(&Identity::local())?;
    Ok(crate::store::same_starter(id, &run.gate, &me)
        .err()
        .map(|e| e.to_string()))
}

/// For a hook of run `id` (`--run`): a denial when `input` is not a call of that Claude
/// Code run, `Pass` for a tool its gate does not pause; `None` when the call is gated.
fn not_this_run(id: &str, run: Option<&Run>, input: &Input) -> Result<Option<Answer>> {
    if input.session_id != id {
        return Ok(Some(Answer::Deny(format!(
            "this hook gates run {id} of mastra-ask, not session {}",
            input.session_id
        ))));
    }
    let Some(run) = run else {
        return Ok(Some(Answer::Deny(format!(
            "run {id} is not in mastra-ask's store"
        ))));
    };
    let Some(def) = AgentDef::of_run(run)?.claude_code else {
        return Ok(Some(Answer::Deny(format!(
            "run {id} of mastra-ask is not a Claude Code run"
        ))));
    };
    Ok((!def.gates(&input.tool_name)).then_some(Answer::Pass))
}

/// The stored items of `input`'s call, in order.
fn own_calls(calls: Vec<CallRecord>, input: &Input) -> Vec<CallRecord> {
    let mut own: Vec<CallRecord> = calls
        .into_iter()
        .filter(|c| is_own(&c.call_id, input))
        .collect();
    own.sort_by_key(|c| c.seq);
    own
}

/// Whether `call_id` is an item of `input`'s call: its `tool_use_id`, or that id and `/N`.
fn is_own(call_id: &str, input: &Input) -> bool {
    crate::agent::claude_code::is_item_of(call_id, &input.tool_use_id)
}

/// Waits up to `--wait` for the call's items to be decided, then answers.
fn until_decided(
    ctx: &Context,
    store: &dyn Store,
    gate: &Gate,
    run: &Run,
    input: &Input,
) -> Result<Answer> {
    let until = Instant::now() + gate.wait;
    loop {
        let calls = own_calls(store.calls(&run.id)?, input);
        if let Some(decided) = call::decided(&calls, input) {
            return Ok(decided);
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return still_pending(ctx, store, gate, run, &calls);
        }
        store.wait_for_change(&run.id, left.min(POLL))?;
        store.expire_due(now_ms())?;
    }
}

/// The answer while the call's items wait: `defer` headless (the reason names the command
/// that decides); else, under a policy, a denial saying for whom it waits.
fn still_pending(
    ctx: &Context,
    store: &dyn Store,
    gate: &Gate,
    run: &Run,
    calls: &[CallRecord],
) -> Result<Answer> {
    let Some(first) = calls
        .iter()
        .find(|c| c.state == crate::domain::CallState::Pending)
    else {
        return Ok(Answer::Deny("the call's items are gone".into()));
    };
    let program = ctx.program();
    let id = &run.id;
    let command = match first.kind {
        Some(ItemKind::Question) => format!("{program} answer {id} --tool-call {}", first.call_id),
        Some(ItemKind::Plan) => format!("{program} review {id}"),
        _ => format!("{program} approve {id} --tool-call {}", first.call_id),
    };
    if gate.headless {
        return Ok(Answer::Defer(format!(
            "waiting for a person in mastra-ask ({command}); then `claude -p --resume {id}` continues"
        )));
    }
    let decisions = store.decisions(id)?;
    let waiting = crate::policy::gate::ItemGate::of(run, first, &decisions)
        .map_or_else(|| "a reviewer".to_string(), |g| g.summary());
    Ok(Answer::Deny(format!(
        "waiting for reviewers: {waiting} ({command})"
    )))
}

/// What a gated call is told while another call of its session waits.
const ONE_AT_A_TIME: &str = "another call of this session waits for a decision in mastra-ask: one gated call waits at a time; make this call again once that one is decided";

/// What every call of a cancelled session is told.
fn cancelled(id: &str) -> String {
    format!("the session's run {id} was cancelled in mastra-ask")
}
