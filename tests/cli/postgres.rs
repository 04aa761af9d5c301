//! Teams on many machines: two processes with their own homes and working directories share
//! one store, and (with `MASTRA_ASK_TEST_POSTGRES`) what a PostgreSQL store does when the
//! server refuses, rejects a password, or goes away in the middle of a command.

use std::process::Stdio;
use std::thread::sleep;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{assert_one_line_error, finish, Env};

/// A command as another machine would run it: its own HOME, data dir and working directory.
fn on_machine(env: &Env, machine: &str, args: &[&str]) -> std::process::Command {
    let root = env.path(machine);
    for d in ["home", "data", "cwd"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    let mut cmd = env.command(args);
    cmd.env("HOME", root.join("home"))
        .env("XDG_DATA_HOME", root.join("data"))
        .env("USER", machine)
        .current_dir(root.join("cwd"));
    cmd
}

/// Polls `pending -o json` from machine B until an item of `tool` shows up.
fn wait_for_item(env: &Env, tool: &str) -> (serde_json::Value, Instant) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let out = env.run_with(on_machine(env, "b", &["pending", "-o", "json"]));
        if let Some(item) = out.json_lines().into_iter().find(|i| i["toolName"] == tool) {
            return (item, Instant::now());
        }
        assert!(Instant::now() < deadline, "no {tool} item showed up");
        sleep(Duration::from_millis(10));
    }
}

#[test]
fn two_machines_share_one_store() {
    let env = Env::new();
    std::fs::create_dir_all(env.path("a/cwd")).unwrap();
    env.write("a/cwd/PLAN.md", "# Roll out\n1. canary\n2. everyone\n");
    let agent = env.agent(json!([
        {"toolCalls": [{"id": "q", "name": "ask_user", "args": {"question": "Which region first?", "options": [{"label": "eu"}, {"label": "us"}]}}]},
        {"toolCalls": [{"id": "p", "name": "submit_plan", "args": {"path": "PLAN.md"}}]},
        {"text": "Rolled out."}
    ]));
    let mut runner = on_machine(
        &env,
        "a",
        &[
            "run",
            "--agent",
            &agent,
            "--wait",
            "--timeout",
            "60s",
            "Roll out",
        ],
    );
    runner.stdout(Stdio::piped()).stderr(Stdio::piped());
    let runner = runner.spawn().unwrap();

    let (item, _) = wait_for_item(&env, "ask_user");
    let run = item["runId"].as_str().unwrap().to_string();
    let out = env.run_with(on_machine(&env, "b", &["answer", &run, "eu"]));
    out.assert_code(0);
    assert_eq!(
        out.stderr,
        "answer recorded; the waiting process continues the run\n"
    );
    let answered = Instant::now();

    // Machine A wakes, drives the next leg in its own directory, and suspends on the plan.
    let (plan, seen) = wait_for_item(&env, "submit_plan");
    assert!(
        seen - answered < Duration::from_secs(1),
        "the waiter took {:?}",
        seen - answered
    );
    assert_eq!(plan["suspendPayload"]["title"], "Roll out");
    let out = env.run_with(on_machine(&env, "b", &["review", &run, "--approve"]));
    out.assert_code(0);
    let reviewed = Instant::now();
    let out = finish(runner);
    assert!(
        reviewed.elapsed() < Duration::from_secs(1),
        "the waiter took {:?}",
        reviewed.elapsed()
    );
    out.assert_code(0);
    assert_eq!(out.stdout, "Rolled out.\n");
    let show = env.show(&run);
    let by: Vec<&str> = show["suspensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["resolvedBy"].as_str().unwrap())
        .collect();
    assert_eq!(by, ["b", "b"]);
}

/// The test server's admin URL, when the suite runs against PostgreSQL.
fn server() -> Option<String> {
    std::env::var("MASTRA_ASK_TEST_POSTGRES")
        .ok()
        .filter(|s| !s.is_empty())
}

/// `host:port` of the test server.
fn host_port(url: &str) -> String {
    let rest = url.split_once('@').map_or(url, |(_, r)| r);
    rest.split('/').next().unwrap().to_string()
}

#[test]
fn an_unreachable_server_is_a_clear_store_error() {
    let env = Env::new();
    let mut cmd = env.command(&["pending"]);
    cmd.env(
        "MASTRA_ASK_DB",
        "postgres://mastra@127.0.0.1:1/nowhere?connect_timeout=5",
    );
    let out = env.run_with(cmd);
    out.assert_code(1);
    assert_one_line_error(
        &out,
        "connecting to the store at postgres://mastra@127.0.0.1:1/nowhere",
    );
    let mut cmd = env.command(&["-o", "json", "runs"]);
    cmd.env("MASTRA_ASK_DB", "postgres://mastra@127.0.0.1:1/nowhere");
    let out = env.run_with(cmd);
    out.assert_code(1);
    let line: serde_json::Value = serde_json::from_str(out.stderr.trim()).unwrap();
    assert_eq!(line["error"]["code"], "STORE");
}

#[test]
fn a_wrong_password_is_refused_without_echoing_it() {
    let Some(admin) = server() else { return };
    let env = Env::new();
    let url = format!(
        "postgres://mastra_pw:not-the-password@{}/postgres",
        host_port(&admin)
    );
    let mut cmd = env.command(&["--db", &url, "ask", "Q?"]);
    cmd.env_remove("MASTRA_ASK_DB");
    let out = env.run_with(cmd);
    out.assert_code(1);
    assert_one_line_error(
        &out,
        "password authentication failed for user \"mastra_pw\"",
    );
    assert!(!out.stderr.contains("not-the-password"), "{}", out.stderr);
    assert!(
        out.stderr.contains("postgres://mastra_pw@"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_server_going_away_mid_command_loses_nothing() {
    let Some(admin) = server() else { return };
    let env = Env::new();
    let run = env.run(&["ask", "Still there?"]).stdout.trim().to_string();
    let before = env.dump();
    let waiter = env.spawn(&["wait", &run]);
    sleep(Duration::from_millis(500));
    let db = env.store.url();
    let name = db.rsplit('/').next().unwrap().to_string();
    let mut client = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    client
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
            &[&name],
        )
        .unwrap();
    let out = finish(waiter);
    out.assert_code(1);
    assert!(out.stderr.starts_with("error: "), "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert_eq!(env.dump(), before);
    env.run(&["answer", &run, "yes"]).assert_code(0);
}
