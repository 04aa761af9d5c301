//! `ask` and `plan`: one-step runs for shell scripts, and `mcp`'s calls (SPEC §16), on the
//! same machinery as agent runs (same store, `pending`, `answer`, `review`). They have no
//! model: the run suspends on its one item at once, and resolving the item completes it.

use std::collections::HashSet;

use anyhow::Result;
use serde_json::Value;

use super::start::{self, Start, Watched};
use super::Context;
use crate::agent::driver::new_message_id;
use crate::agent::step::{step, StepContext};
use crate::agent::AgentDef;
use crate::domain::{StepCommit, Usage};
use crate::exit::Exit;
use crate::providers::{ModelCall, NoModel, Response, NO_MODEL};
use crate::tools::ToolEntry;

/// The agents whose runs are one step.
pub const AGENTS: [&str; 3] = ["ask", "plan", "mcp"];

/// What a one-step run asks for.
pub struct OneShot {
    /// `ask`, `plan` or `mcp`: the run's agent id.
    pub agent_id: &'static str,
    /// The one tool it calls: `ask_user` or `submit_plan`.
    pub tool: &'static str,
    pub prompt: String,
    pub args: Value,
    pub cwd: String,
}

/// Starts the run; without `--wait` prints its id and exits 75, with it blocks until the
/// item is resolved and prints the outcome (`outcome`).
pub fn start(ctx: &Context, shot: OneShot, mut watched: Watched) -> Result<Exit> {
    // At a terminal the person answers right here, so the outcome is printed as with --wait.
    watched.wait |= ctx.interactive();
    let print_id = !watched.wait && !ctx.report.json();
    let entry = ToolEntry::Builtin(shot.tool.into());
    let run_id = uuid::Uuid::new_v4().to_string();
    begin(ctx, shot, entry, watched, print_id, &run_id)
}

/// Starts the run `run_id` whose one call is to `entry` (a built-in, or a command tool that
/// needs approval and never runs: resolving its item ends the run).
pub fn begin(
    ctx: &Context,
    shot: OneShot,
    entry: ToolEntry,
    watched: Watched,
    print_id: bool,
    run_id: &str,
) -> Result<Exit> {
    let agent = AgentDef {
        id: shot.agent_id.into(),
        name: None,
        instructions: String::new(),
        model: NO_MODEL.into(),
        tools: vec![entry],
        max_steps: 1,
        model_settings: Default::default(),
        review: None,
        claude_code: None,
    };
    let provider = NoModel {
        first: Some(Response {
            text: None,
            calls: vec![ModelCall {
                id: None,
                name: shot.tool.into(),
                args: Ok(shot.args),
            }],
            usage: Default::default(),
        }),
    };
    start::start_as(
        ctx,
        Start {
            agent: &agent,
            cwd: &shot.cwd,
            prompt: &shot.prompt,
            drive: crate::agent::Drive::Model(Box::new(provider)),
            watched,
            print_id,
        },
        run_id,
    )
}

/// The step that ends a one-step run once its item is resolved: what a driver's leg would
/// store (the model `none` answers nothing more, so the run completes). The store stores it
/// in the transaction that resolves the item (SPEC §13), so no process killed a moment
/// later can leave the run `running`.
pub fn last_step(usage_before: Usage) -> StepCommit {
    let context = StepContext {
        message_id: &new_message_id(),
        used_ids: &HashSet::new(),
        tools: &[],
        last_in_budget: true,
        usage_before,
    };
    step(
        &Response::default(),
        &context,
        &mut |_| None,
        &mut String::new,
    )
}
