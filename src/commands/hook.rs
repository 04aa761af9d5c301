//! `hook claude-code` (SPEC §15): reads Claude Code's `PreToolUse` call on stdin and prints
//! the one JSON answer it reads back; the gate itself is `crate::hook`. Every failure,
//! flags included, is printed as a denial (exit 0): a hook that exits otherwise lets Claude
//! Code run the tool.

use anyhow::Result;

use super::Ctx;
use crate::cli::{ClaudeCodeHookArgs, HookCommand};
use crate::domain::review::PolicySpec;
use crate::exit::Exit;
use crate::hook::wire::{self, Answer};
use crate::hook::{self as gate, Gate, MAX_WAIT};

pub fn run(ctx: &Ctx, command: HookCommand) -> Result<Exit> {
    let HookCommand::ClaudeCode(args) = command;
    let answer = match wire::read(std::io::stdin().lock()) {
        Ok(input) => match gate_of(&args) {
            Ok(gate) => gate::answer(ctx, &gate, &input),
            Err(problem) => Answer::Deny(problem),
        },
        Err(problem) => Answer::Deny(problem),
    };
    ctx.report.json_line(&answer.json());
    Ok(Exit::Success)
}

/// The gate the flags ask for; the problem, one line, when they cannot be one.
fn gate_of(args: &ClaudeCodeHookArgs) -> Result<Gate, String> {
    if args.wait > MAX_WAIT {
        return Err("mastra-ask hook claude-code: --wait is at most 9m".into());
    }
    let review = super::starting::run_review(&args.review, PolicySpec::default())
        .map_err(|e| format!("mastra-ask hook claude-code: {e:#}"))?;
    Ok(Gate {
        review,
        expires_in: args.expires_in,
        wait: args.wait,
        // A run's leg is `claude -p`, started by mastra-ask.
        headless: args.run.is_some() || Gate::headless_here(),
        run: args.run.clone(),
    })
}
