//! A prompt open at a terminal notices that its item was decided by another process (SPEC
//! §5.2): no key is pressed, the prompt is left, the program says who decided what, and goes
//! on as that decision requires (a waiter drives the next leg). Both backends (the suite
//! runs on PostgreSQL with `MASTRA_ASK_TEST_POSTGRES`).

use serde_json::json;

use crate::command_tools::{call, tag_runs, tagger, tool, tool_agent};
use crate::common::Env;
use crate::pty::Pty;

const PLAN: &str = "# Release plan\n\n1. Freeze main\n2. Tag the release\n";

/// `plan --wait` at a terminal, its menu open, approved by a colleague: the waiter leaves
/// the menu by itself, says who approved, and ends by that decision (exit 0, completed).
#[test]
fn a_plan_waiters_open_menu_is_left_when_a_colleague_approves() {
    let env = Env::new();
    env.write("work/PLAN.md", PLAN);
    let mut pty = Pty::spawn(&env, &["plan", "PLAN.md", "--wait"], &[]);
    pty.expect("> Approve");
    let run = env.first_pending();
    let out = env.run(&["review", &run, "--approve", "--as", "colleague"]);
    out.assert_code(0);
    // No key is sent: the waiter notices on its own.
    pty.expect("tool call call_");
    pty.expect(&format!(
        "of run {run} was approved by colleague from another process"
    ));
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("still pending"), "{text}");
    assert!(!text.contains("nothing recorded"), "{text}");
    assert_eq!(env.status(&run), "completed");
    assert!(env.run(&["pending", "-q"]).stdout.is_empty());
}

/// A rejection elsewhere: the waiter says so, prints the feedback as its outcome and exits
/// 5 (the plan was rejected), with the menu gone and the cursor shown again.
#[test]
fn a_plan_waiters_open_menu_is_left_when_a_colleague_rejects() {
    let env = Env::new();
    env.write("work/PLAN.md", PLAN);
    let mut pty = Pty::spawn(&env, &["plan", "PLAN.md", "--wait"], &[]);
    pty.expect("> Approve");
    let run = env.first_pending();
    env.run(&[
        "review",
        &run,
        "--reject",
        "--feedback",
        "split the tag step",
        "--as",
        "colleague",
    ])
    .assert_code(0);
    pty.expect("was rejected by colleague from another process");
    pty.expect("split the tag step");
    let (code, text) = pty.finish();
    assert_eq!(code, 5, "{text}");
    // The menu (prompt line and its four entries) is cleared before the line is printed.
    let said = text.find("was rejected by colleague").unwrap();
    let menu_end = text[..said]
        .rfind("Reject with feedback written in an editor")
        .unwrap();
    let cleared = &text[menu_end..said];
    assert!(cleared.contains("\x1b[5A"), "{cleared:?}");
    assert_eq!(cleared.matches("\x1b[2K").count(), 5, "{cleared:?}");
    // The cursor comes back (console's "show cursor") after the menu hid it.
    let shown = text.rfind("\x1b[?25h").expect("the cursor is shown again");
    let hidden = text.rfind("\x1b[?25l").expect("the menu hid the cursor");
    assert!(shown > hidden, "{text:?}");
}

/// `run --wait` at a terminal, its approval menu open, approved by bob elsewhere: the
/// answering process leaves the leg to the waiter, which leaves its menu, says who approved,
/// runs the tool once and drives the run to its end.
#[test]
fn a_run_waiters_open_approval_menu_is_left_and_the_waiter_drives_the_leg() {
    let env = Env::new();
    let tag = tagger(&env);
    let agent = tool_agent(
        &env,
        json!([call("c1", "tag_release", json!({"version": "v2"})), {"text": "All tagged."}]),
        vec![tool(
            "tag_release",
            &[&tag],
            json!({"requireApproval": true}),
        )],
    );
    let mut pty = Pty::spawn(&env, &["run", "--wait", "--agent", &agent, "Go"], &[]);
    pty.expect("> Decline (the tool does not run)");
    let run = env.first_pending();
    let out = env.run(&["approve", &run, "--as", "bob"]);
    out.assert_code(0);
    assert_eq!(
        out.stderr,
        "answer recorded; the waiting process continues the run\n"
    );
    assert_eq!(tag_runs(&env), 0, "the answering process ran nothing");
    pty.expect(&format!(
        "tool call c1 of run {run} was approved by bob from another process"
    ));
    pty.expect("All tagged.");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("nothing recorded"), "{text}");
    assert_eq!(tag_runs(&env), 1);
    assert_eq!(env.status(&run), "completed");
}

/// A question answered elsewhere whose next leg asks again: the waiter leaves the first
/// prompt, drives the leg, and prompts for what comes next, which is answered here.
#[test]
fn a_run_waiter_answered_elsewhere_prompts_for_what_comes_next() {
    let env = Env::new();
    let ask = |id: &str, question: &str| json!({"toolCalls": [{"id": id, "name": "ask_user", "args": {"question": question}}]});
    let agent = env.agent(json!([
        ask("q1", "Which version?"),
        ask("q2", "Which channel?"),
        {"text": "Released."}
    ]));
    let mut pty = Pty::spawn(&env, &["run", "--wait", "--agent", &agent, "Go"], &[]);
    pty.expect("Which version?");
    let run = env.first_pending();
    env.run(&["answer", &run, "v2", "--as", "bob"])
        .assert_code(0);
    pty.expect(&format!(
        "tool call q1 of run {run} was answered by bob from another process"
    ));
    pty.expect("Which channel?");
    pty.send("stable\r");
    pty.expect("Released.");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    assert_eq!(env.status(&run), "completed");
    let by: Vec<String> = env.show(&run)["suspensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["resolvedBy"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(by.len(), 2, "{by:?}");
    assert_eq!(by[0], "bob");
    assert_ne!(by[1], "bob");
}
