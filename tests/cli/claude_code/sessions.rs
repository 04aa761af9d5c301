//! Claude Code sessions gated by the hook, end to end, on the backend the suite runs
//! against: a gated `Bash` call deferred, decided from another process, and then run once,
//! run with the approved changes, or denied with a reason the model reads; a 2-of-N policy;
//! a non-member and a deciding command inside Claude Code refused (77); expiry.

use serde_json::{json, Value};

use super::{tool, Claude};
use crate::assert_shown;
use crate::common::{poll, Env};
use crate::policy_cli::{decides, team};

pub const SESSION: &str = "6f1c1f0e-4a55-4a6a-9d1e-1b2c3d4e5f60";
const CALL: &str = "toolu_bash1";

/// A model that calls `Bash` to append "ran" to out.txt, then says done.
fn appends() -> Vec<Vec<super::Block>> {
    vec![vec![tool(
        CALL,
        "Bash",
        json!({"command": "echo ran >> out.txt", "description": "append"}),
    )]]
}

/// Asserts `claude -p` ended deferred on the gated call.
#[track_caller]
fn deferred(result: &Value) {
    assert_eq!(result["stop_reason"], "tool_deferred", "{result:#}");
    assert_eq!(result["deferred_tool_use"]["id"], CALL, "{result:#}");
}

/// What out.txt holds (empty when the tool never ran).
fn written(env: &Env) -> String {
    std::fs::read_to_string(env.work().join("out.txt")).unwrap_or_default()
}

#[test]
fn claude_a_gated_bash_call_approved_from_another_process_runs_once() {
    let env = Env::new();
    let Some(claude) = Claude::new(&env, appends(), &[]) else {
        return;
    };
    let (out, result) = claude.print(SESSION, "append to the file");
    out.assert_code(0);
    deferred(&result);
    let pending = env.cmd(&["pending"]).code(0);
    assert_shown!(env, pending, @r#"
    [exit 0]
    --- stdout
    [RUN]  toolu_bash1 approval: Bash {"command":"echo ran >> out.txt","description":"append"}  [AGE] ago
        mastra-ask approve [RUN]
        mastra-ask decline [RUN] --reason <reason>
    "#);
    // Resumed before anyone decided: deferred again, and nothing ran.
    let (_, result) = claude.resume(SESSION);
    deferred(&result);
    assert_eq!(written(&env), "");

    let approved = env.cmd(&["approve", SESSION]).code(0);
    assert_shown!(env, approved, @"
    [exit 0]
    --- stderr
    recorded; `claude -p --resume [RUN]` on the host that ran this Claude Code session continues it
    ");
    let (out, result) = claude.resume(SESSION);
    out.assert_code(0);
    assert_eq!(result["subtype"], "success", "{result:#}");
    assert_eq!(written(&env), "ran\n");
    // Resumed again, the session has nothing deferred: the tool does not run twice.
    let (out, _) = claude.resume(SESSION);
    assert!(out.stderr.contains("No deferred tool marker"), "{out}");
    assert_eq!(written(&env), "ran\n");
    let shown = env.cmd(&["show", SESSION]).code(0);
    assert_shown!(env, shown.stdout, @r#"
    run      [RUN]
    agent    claude-code
    model    none
    status   answered, waiting for `claude -p --resume`
    cwd      [DIR]/work
    created  [TIME]
    updated  [TIME]
    usage    0 in, 0 out

    transcript
      user: (a Claude Code session: its prompt is kept by Claude Code)
      assistant calls Bash (toolu_bash1): {"command":"echo ran >> out.txt","description":"append"}

    items
      toolu_bash1 approval: Bash {"command":"echo ran >> out.txt","description":"append"}
        resolved by tester via flag at [TIME]: {"approved":true}

    events
      [TIME]  start                agent claude-code
      [TIME]  step-start           step 1
      [TIME]  tool-call            toolu_bash1 Bash {"command":"echo ran >> out.txt","description":"append"}
      [TIME]  step-finish          tool-calls
      [TIME]  tool-call-approval   toolu_bash1 Bash {"command":"echo ran >> out.txt","description":"append"} waits for approval
    "#);
}

#[test]
fn claude_approved_with_changes_runs_the_edited_command_only() {
    let env = Env::new();
    let Some(claude) = Claude::new(&env, appends(), &[]) else {
        return;
    };
    deferred(&claude.print(SESSION, "append to the file").1);
    let edited = r#"{"command": "echo edited >> out.txt"}"#;
    env.cmd(&["approve", SESSION, "--args", edited]).code(0);
    let (_, result) = claude.resume(SESSION);
    assert_eq!(result["subtype"], "success", "{result:#}");
    assert_eq!(written(&env), "edited\n");
}

#[test]
fn claude_declined_with_a_reason_the_model_reads() {
    let env = Env::new();
    let Some(claude) = Claude::new(&env, appends(), &[]) else {
        return;
    };
    deferred(&claude.print(SESSION, "append to the file").1);
    env.cmd(&["decline", SESSION, "--reason", "not on a Friday"])
        .code(0);
    let (_, result) = claude.resume(SESSION);
    assert_eq!(result["subtype"], "success", "{result:#}");
    assert_eq!(written(&env), "");
    assert_eq!(
        claude.model.results_for(CALL),
        ["PreToolUse:Bash hook error: declined by tester: not on a Friday"]
    );
    assert_eq!(result["permission_denials"][0]["tool_use_id"], CALL);
}

#[test]
fn claude_two_of_n_the_first_approval_keeps_it_deferred() {
    let env = Env::new();
    team(&env, "me", &["bob", "carol"]);
    let flags = ["--reviewer", "group:release", "--approvals", "2"];
    let Some(claude) = Claude::new(&env, appends(), &flags) else {
        return;
    };
    deferred(&claude.print(SESSION, "append to the file").1);
    decides(&env, SESSION, "bob", json!({"approved": true})).unwrap();
    let (_, result) = claude.resume(SESSION);
    deferred(&result);
    assert_eq!(written(&env), "");
    let pending = env.cmd(&["pending"]).code(0);
    assert_shown!(env, pending.stdout, @r#"
    [RUN]  toolu_bash1 approval: Bash {"command":"echo ran >> out.txt","description":"append"}  [AGE] ago
        1 of 2 approvals: bob approved; waiting for 1 more from carol
        mastra-ask approve [RUN]
        mastra-ask decline [RUN] --reason <reason>
    "#);
    decides(&env, SESSION, "carol", json!({"approved": true})).unwrap();
    let (_, result) = claude.resume(SESSION);
    assert_eq!(result["subtype"], "success", "{result:#}");
    assert_eq!(written(&env), "ran\n");
}

#[test]
fn claude_someone_outside_the_policy_is_refused_77() {
    let env = Env::new();
    team(&env, "me", &["bob"]);
    let Some(claude) = Claude::new(&env, appends(), &["--reviewer", "bob"]) else {
        return;
    };
    deferred(&claude.print(SESSION, "append to the file").1);
    let refused = env.cmd(&["approve", SESSION]).code(77);
    assert_shown!(env, refused, @"
    [exit 77]
    --- stderr
    error: reviewer me may not decide the approval toolu_bash1 of run [RUN]; its policy lets bob decide
    ");
    let (_, result) = claude.resume(SESSION);
    deferred(&result);
    assert_eq!(written(&env), "");
}

#[test]
fn claude_a_deciding_command_inside_claude_code_is_refused_77() {
    let env = Env::new();
    let Some(claude) = Claude::new(&env, appends(), &[]) else {
        return;
    };
    deferred(&claude.print(SESSION, "append to the file").1);
    // Another session, whose own Bash tool (not gated: no hook for it) tries to approve.
    let bin = crate::common::BIN;
    let approving = vec![vec![tool(
        "toolu_self",
        "Bash",
        json!({"command": format!("'{bin}' approve {SESSION} 2> err.txt; echo $? > code.txt")}),
    )]];
    let other = super::Model::start(approving);
    let c = claude.command_to(
        &other,
        None,
        &["-p", "approve it", "--allowedTools", "Bash"],
    );
    let out = env.run_with(c);
    out.assert_code(0);
    let read = |f: &str| std::fs::read_to_string(env.work().join(f)).unwrap_or_default();
    assert_eq!(read("code.txt"), "77\n", "{out}");
    assert_shown!(env, read("err.txt"), @"error: a decision on run [RUN] cannot be made from inside Claude Code (CLAUDECODE or CLAUDE_CODE_SESSION_ID is set): a person decides it from another shell, or in serve");
    let (_, result) = claude.resume(SESSION);
    deferred(&result);
}

#[test]
fn claude_an_expired_call_is_denied_and_never_runs() {
    let env = Env::new();
    let flags = ["--expires-in", "1s", "--on-expiry", "decline"];
    let Some(claude) = Claude::new(&env, appends(), &flags) else {
        return;
    };
    deferred(&claude.print(SESSION, "append to the file").1);
    poll(
        "the item to expire",
        std::time::Duration::from_secs(20),
        || env.run(&["pending"]).stdout.is_empty(),
    );
    let (_, result) = claude.resume(SESSION);
    assert_eq!(result["subtype"], "success", "{result:#}");
    assert_eq!(written(&env), "");
    assert_eq!(
        claude.model.results_for(CALL),
        ["PreToolUse:Bash hook error: no one decided before the deadline: approval toolu_bash1 expired"]
    );
}

#[test]
fn claude_a_broken_store_is_a_denial_and_the_tool_never_runs() {
    let env = Env::sqlite();
    std::fs::write(env.db(), "not a database, not at all").unwrap();
    let Some(claude) = Claude::new(&env, appends(), &[]) else {
        return;
    };
    let (out, result) = claude.print(SESSION, "append to the file");
    out.assert_code(0);
    assert_eq!(result["subtype"], "success", "{result:#}");
    assert_eq!(written(&env), "");
    let told = claude.model.results_for(CALL);
    assert!(
        told[0].starts_with("PreToolUse:Bash hook error: mastra-ask could not gate this call, so it may not run: opening the store at "),
        "{told:?}"
    );
}
