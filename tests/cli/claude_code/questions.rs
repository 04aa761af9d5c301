//! `AskUserQuestion` and `ExitPlanMode` through the hook, with the real Claude Code in the
//! SDK's mode (the only one that offers them): questions answered with `answer` (one label,
//! several, free text as "Other"), and a plan rejected with feedback, then approved.

use serde_json::{json, Value};

use super::model::PLAN_FILE;
use super::{tool, Claude};
use crate::common::Env;

const SESSION: &str = "7a2d2f1e-5b66-4b7b-8e2f-2c3d4e5f6071";

fn result(lines: &[Value]) -> &Value {
    lines.last().unwrap()
}

#[test]
fn claude_questions_answered_with_answer_reach_the_model() {
    let env = Env::new();
    let questions = super::three_questions();
    let turns = vec![vec![tool("toolu_ask1", "AskUserQuestion", questions)]];
    let Some(claude) = Claude::new(&env, turns, &[]) else {
        return;
    };
    let lines = claude.sdk(&["--session-id", SESSION], Some("ask me"));
    assert_eq!(result(&lines)["stop_reason"], "tool_deferred");
    env.cmd(&["answer", SESSION, "--tool-call", "toolu_ask1/1", "SQLite"])
        .code(75);
    // Resumed with one question unanswered: deferred again.
    let lines = claude.sdk(&["--resume", SESSION], None);
    assert_eq!(result(&lines)["stop_reason"], "tool_deferred");
    let answer = |call: &str, how: &[&str]| {
        let args = [&["answer", SESSION, "--tool-call", call][..], how].concat();
        env.cmd(&args).out().code
    };
    assert_eq!(answer("toolu_ask1/2", &["--multi", "lint", "test"]), 75);
    assert_eq!(answer("toolu_ask1/3", &["--other", "release/2.0"]), 0);
    let lines = claude.sdk(&["--resume", SESSION], None);
    assert_eq!(result(&lines)["subtype"], "success", "{lines:#?}");
    assert_eq!(
        claude.model.results_for("toolu_ask1"),
        // A free-text ("Other") answer makes Claude Code word it so.
        ["The user answered: \"Which database?\"=\"SQLite\", \"Which checks?\"=\"lint, test\", \"Which branch?\"=\"release/2.0\". Read the answers carefully — they may request clarification, changes, or that you not proceed — and follow what they actually say."]
    );
}

#[test]
fn claude_a_plan_rejected_with_feedback_then_approved() {
    let env = Env::new();
    let write = json!({"file_path": PLAN_FILE, "content": "# Ship it\n\n1. Tag v2.\n"});
    let turns = vec![
        vec![tool("toolu_write", "Write", write)],
        vec![tool("toolu_plan1", "ExitPlanMode", json!({}))],
        vec![tool("toolu_plan2", "ExitPlanMode", json!({}))],
    ];
    let Some(claude) = Claude::new(&env, turns, &[]) else {
        return;
    };
    let args = ["--session-id", SESSION, "--permission-mode", "plan"];
    let lines = claude.sdk(&args, Some("plan the release"));
    assert_eq!(
        result(&lines)["deferred_tool_use"]["id"],
        "toolu_plan1",
        "{lines:#?}"
    );
    let pending = env.cmd(&["pending"]).code(0).stdout;
    // Claude Code names the plan file from the prompt and two random words.
    let (before, after) = pending.split_once("plans/plan-the-release-").unwrap();
    let pending = format!(
        "{before}plans/plan-the-release-[WORDS]{}",
        &after[after.find(".md").unwrap()..]
    );
    crate::assert_shown!(env, pending, @r"
    [RUN]  toolu_plan1 plan: Ship it ([DIR]/home/.claude/plans/plan-the-release-[WORDS].md)  [AGE] ago
        mastra-ask review [RUN] --approve
        mastra-ask review [RUN] --reject --feedback <feedback>
    ");
    env.cmd(&[
        "review",
        SESSION,
        "--reject",
        "--feedback",
        "tag v3 instead",
    ])
    .code(0);
    let lines = claude.sdk(&["--resume", SESSION], None);
    assert_eq!(
        result(&lines)["deferred_tool_use"]["id"],
        "toolu_plan2",
        "{lines:#?}"
    );
    assert_eq!(
        claude.model.results_for("toolu_plan1"),
        ["PreToolUse:ExitPlanMode hook error: the plan was rejected by tester: tag v3 instead"]
    );
    env.cmd(&["review", SESSION, "--approve"]).code(0);
    let lines = claude.sdk(&["--resume", SESSION], None);
    assert_eq!(result(&lines)["subtype"], "success", "{lines:#?}");
    assert_eq!(claude.model.results_for("toolu_plan2").len(), 1);
}
