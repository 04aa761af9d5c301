//! What a person reads, as snapshots (`insta`): `pending`, `show`, `runs`, error lines and
//! `--help`. Ids, times, ages and paths are filtered, so a snapshot changes only when the
//! text does. A change in wording is reviewed here and blessed with
//! `INSTA_UPDATE=always cargo test --test cli snapshots` (or `cargo insta review`).

use serde_json::json;

use crate::common::{snapshot_settings, Env};
use crate::steps::{ask, plan, say};

/// Runs `f` with the suite's filters (`common::snapshot_settings`).
fn stable(f: impl FnOnce()) {
    snapshot_settings(None).bind(f);
}

/// One store with a question, a multi-select question and a plan waiting, and a run that
/// went through an answer and a rejected plan.
fn store_with_runs() -> (Env, String) {
    let env = Env::new();
    env.write("work/PLAN.md", "# Release plan\n\n1. Freeze main\n2. Tag\n");
    let agent = env.agent(json!([
        ask("call_name", "What is the release called?"),
        plan("call_plan", "PLAN.md"),
        say("Waiting for your next message.")
    ]));
    let (_, done) = env.start(&agent, &[]);
    env.run(&["answer", &done, "Aurora"]).assert_code(75);
    env.run(&["review", &done, "--reject"]).assert_code(0);
    env.run(&[
        "ask",
        "Deploy where?",
        "--option",
        "staging",
        "--option",
        "production",
    ])
    .assert_code(75);
    env.run(&[
        "ask",
        "What comes first?",
        "--option",
        "Add tests",
        "--option",
        "Update docs",
        "--multi",
    ])
    .assert_code(75);
    env.run(&["plan", "PLAN.md"]).assert_code(75);
    let rejected = env.run(&["plan", "PLAN.md"]).stdout;
    env.run(&["review", rejected.trim(), "--reject"])
        .assert_code(0);
    (env, done)
}

#[test]
fn listings_and_a_run_in_full() {
    let (env, done) = store_with_runs();
    stable(|| {
        insta::assert_snapshot!("pending", env.run(&["pending"]).stdout);
        insta::assert_snapshot!("pending-q", env.run(&["pending", "-q"]).stdout);
        insta::assert_snapshot!("runs", env.run(&["runs"]).stdout);
        insta::assert_snapshot!("show", env.run(&["show", &done]).stdout);
    });
    // The plan run whose plan was rejected says so, in text; its JSON status stays.
    let runs = env.run(&["runs", "-o", "json"]).json_lines();
    let rejected = runs
        .iter()
        .find(|r| r["agentId"] == "plan" && r["status"] == "completed")
        .unwrap()["runId"]
        .as_str()
        .unwrap();
    let shown = env.run(&["show", rejected]).stdout;
    assert!(
        shown.contains("\nstatus   completed (plan rejected)\n"),
        "{shown}"
    );
}

/// `show` after the README's tour of the release example: what a person reads of a run
/// that asked, was rejected twice, replied to, approved, and had its tag approved.
#[test]
fn show_after_the_tour() {
    let env = Env::new();
    let (agent, cwd) = (Env::example_agent(), Env::example_dir());
    let steps: [(&[&str], i32); 8] = [
        (&["answer", "3.1.0"], 75),
        (&["answer", "beta"], 75),
        (&["answer", "--multi", "Add tests", "Update docs"], 75),
        (
            &["review", "--reject", "--feedback", "Add a rollback step."],
            75,
        ),
        (&["review", "--reject"], 0),
        (&["reply", "Publish the docs before the tag."], 75),
        (&["review", "--approve"], 75),
        (&["approve"], 0),
    ];
    let start = [
        "run",
        "-q",
        "--agent",
        &agent,
        "--cwd",
        &cwd,
        "Prepare the next release",
    ];
    let out = env.cmd(&start).code(75);
    let run = out.stdout.trim().to_string();
    for (args, code) in steps {
        let mut args = args.to_vec();
        args.insert(1, &run);
        env.run(&args).assert_code(code);
    }
    let out = env.cmd(&["show", &run]).code(0);
    stable(|| insta::assert_snapshot!("show-tour", out.stdout));
}

#[test]
fn error_lines() {
    let (env, done) = store_with_runs();
    let theme = env.run(&["ask", "Theme?", "--option", "Dark", "--option", "Light"]);
    let theme = theme.stdout.trim();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("close-label", vec!["answer", theme, "drak"]),
        ("no-run", vec!["answer", "deadbeef", "x"]),
        ("too-short", vec!["answer", "abc", "x"]),
        ("finished", vec!["answer", &done, "x"]),
        ("lone-argument", vec!["answer", "2.0.0"]),
        ("no-decision", vec!["--no-input", "review", &done]),
        ("bad-flag", vec!["runs", "--status", "sleeping"]),
        (
            "bad-duration",
            vec!["ask", "Q?", "--expires-in", "9223372036854775807ms"],
        ),
    ];
    let mut text = String::new();
    for (name, args) in cases {
        let out = env.run(&args);
        let stderr = out
            .stderr
            .replace(&env.store_named(), "the store STORE (from MASTRA_ASK_DB)");
        text.push_str(&format!("## {name} (exit {})\n{stderr}\n", out.code));
    }
    stable(|| insta::assert_snapshot!("errors", text));
}

#[test]
fn help_of_every_command() {
    let env = Env::new();
    let mut text = env.run(&["--help"]).stdout;
    for command in [
        "run",
        "pending",
        "answer",
        "review",
        "approve",
        "decline",
        "show",
        "runs",
        "cancel",
        "wait",
        "resume",
        "ask",
        "plan",
        "reply",
        "prune",
        "tool",
        "completions",
        "man",
        "agents",
    ] {
        text.push_str(&format!("\n===== {command} --help\n"));
        text.push_str(&env.run(&[command, "--help"]).stdout);
    }
    stable(|| insta::assert_snapshot!("help", text));
}

/// A URL in the environment may carry a password: help names the variable, never its value.
#[test]
fn help_never_shows_the_environments_values() {
    let env = Env::new();
    let mut c = env.command(&["run", "--help"]);
    c.env("MASTRA_ASK_DB", "postgres://u:s3cret@db/x")
        .env(
            "MASTRA_ASK_MODEL",
            "openai-compatible/m@http://u:s3cret@h/v1",
        )
        .env("MASTRA_ASK_ON_SUSPEND", "notify --token s3cret");
    let out = env.run_with(c);
    out.assert_code(0);
    assert!(!out.stdout.contains("s3cret"), "{}", out.stdout);
    assert!(
        out.stdout.contains("[env: MASTRA_ASK_DB]"),
        "{}",
        out.stdout
    );
    // Set or not, a variable is named without a value: never as set to empty.
    for set in [false, true] {
        let mut c = env.command(&["--help"]);
        if set {
            c.env("MASTRA_ASK_OUTPUT", "json");
        }
        let out = env.run_with(c);
        out.assert_code(0);
        assert!(!out.stdout.contains("=]"), "{}", out.stdout);
        assert!(!out.stdout.contains("=json"), "{}", out.stdout);
        assert!(
            out.stdout.contains("[env: MASTRA_ASK_OUTPUT]"),
            "{}",
            out.stdout
        );
    }
}
