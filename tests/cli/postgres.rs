//! Teams on many machines: two processes with their own homes and working directories share
//! one store, and (with `MASTRA_ASK_TEST_POSTGRES`) what a PostgreSQL store does when the
//! server refuses, rejects a password, never answers, holds a lock too long, or goes away
//! in the middle of a command: every wait is bounded and no password is ever shown.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::assert_shown;
use crate::common::{assert_one_line_error, finish, poll_for, Env, PATIENCE};
use crate::steps::{plan, say};

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
    let item = poll_for(&format!("no {tool} item showed up"), PATIENCE, || {
        let out = env.run_with(on_machine(env, "b", &["pending", "-o", "json"]));
        out.json_lines().into_iter().find(|i| i["toolName"] == tool)
    });
    (item, Instant::now())
}

#[test]
fn two_machines_share_one_store() {
    let env = Env::new();
    std::fs::create_dir_all(env.path("a/cwd")).unwrap();
    env.write("a/cwd/PLAN.md", "# Roll out\n1. canary\n2. everyone\n");
    let agent = env.agent(json!([
        {"toolCalls": [{"id": "q", "name": "ask_user", "args": {"question": "Which region first?", "options": [{"label": "eu"}, {"label": "us"}]}}]},
        plan("p", "PLAN.md"),
        say("Rolled out.")
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
        seen - answered < Duration::from_secs(10),
        "the waiter took {:?}",
        seen - answered
    );
    assert_eq!(plan["suspendPayload"]["title"], "Roll out");
    let out = env.run_with(on_machine(&env, "b", &["review", &run, "--approve"]));
    out.assert_code(0);
    let reviewed = Instant::now();
    let out = finish(runner);
    assert!(
        reviewed.elapsed() < Duration::from_secs(10),
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
    assert_shown!(env, out.stderr, @r#"
        error: connecting to the store at postgres://mastra_pw@127.0.0.1:[PORT]/postgres: db error: FATAL: password authentication failed for user "mastra_pw"
        hint: check the store URL (host, port, user, password in PGPASSWORD) and that the server is up
        "#);
    assert!(!out.stderr.contains("not-the-password"), "{}", out.stderr);
    assert_shown!(env, out.stderr, @r#"
        error: connecting to the store at postgres://mastra_pw@127.0.0.1:[PORT]/postgres: db error: FATAL: password authentication failed for user "mastra_pw"
        hint: check the store URL (host, port, user, password in PGPASSWORD) and that the server is up
        "#);
}

#[test]
fn a_server_going_away_mid_command_loses_nothing() {
    let Some(admin) = server() else { return };
    let env = Env::new();
    let run = env.run(&["ask", "Still there?"]).stdout.trim().to_string();
    let before = env.dump();
    let waiter = env.spawn(&["wait", &run]);
    env.wait_until_watching(&waiter);
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

/// `args` on the store at `url`; it must end well within a generous bound.
fn bounded(env: &Env, args: &[&str], url: &str) -> crate::common::Out {
    let mut cmd = env.command(args);
    cmd.env("MASTRA_ASK_DB", url);
    let started = Instant::now();
    let out = env.run_with(cmd);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(30), "{args:?} took {took:?}");
    out
}

/// `url` with `key=value` added to its query.
fn with_param(url: &str, param: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{param}")
}

#[test]
fn a_server_that_never_answers_is_given_up_on_within_the_connect_timeout() {
    let env = Env::new();
    // Accepts connections and never says a word.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    let url = format!(
        "postgres://u:S3cr3tPW@127.0.0.1:{port}/db?connect_timeout=2&password=Par4mPW&options=-c%20password%3DOpt1onPW"
    );
    for args in [vec!["pending"], vec!["ask", "Q?"]] {
        let out = bounded(&env, &args, &url);
        out.assert_code(1);
        assert_one_line_error(
            &out,
            &format!(
                "connecting to the store at postgres://u@127.0.0.1:{port}/db?connect_timeout=2&options=[redacted]: \
                 the server did not answer within 2s (connect_timeout)"
            ),
        );
        assert!(out.stderr.contains("hint: "), "{}", out.stderr);
        for secret in ["S3cr3tPW", "Par4mPW", "Opt1onPW"] {
            assert!(!out.stderr.contains(secret), "{}", out.stderr);
        }
    }
}

#[test]
fn a_password_in_the_url_is_never_shown() {
    let env = Env::new();
    let url = "postgres://mastra:S3cr3tPW@127.0.0.1:1/nowhere?password=Par4mPW&connect_timeout=5";
    for args in [vec!["pending"], vec!["-o", "json", "runs"]] {
        let mut cmd = env.command(&args);
        cmd.env("MASTRA_ASK_DB", url);
        let out = env.run_with(cmd);
        out.assert_code(1);
        assert!(
            out.stderr
                .contains("postgres://mastra@127.0.0.1:1/nowhere?connect_timeout=5"),
            "{}",
            out.stderr
        );
        for secret in ["S3cr3tPW", "Par4mPW"] {
            assert!(!out.stderr.contains(secret), "{}", out.stderr);
        }
    }
}

#[test]
fn a_lock_held_past_the_lock_timeout_is_a_clear_store_error_and_changes_nothing() {
    if server().is_none() {
        return;
    }
    let env = Env::new();
    let run = env.run(&["ask", "Locked?"]).stdout.trim().to_string();
    let before = env.dump();
    let mut holder = postgres::Client::connect(&env.store.url(), postgres::NoTls).unwrap();
    let mut lock = holder.transaction().unwrap();
    lock.batch_execute("LOCK TABLE mastra_ask.runs IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let url = with_param(&env.store.url(), "options=-c%20lock_timeout%3D1s");
    for args in [
        vec!["pending"],
        vec!["answer", &run, "yes"],
        vec!["cancel", &run],
    ] {
        let out = bounded(&env, &args, &url);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert_one_line_error(&out, "canceling statement due to lock timeout");
        assert!(
            out.stderr.contains("hint: ") && out.stderr.contains("lock_timeout"),
            "{}",
            out.stderr
        );
    }
    lock.rollback().unwrap();
    drop(holder);
    assert_eq!(env.dump(), before);
    env.run(&["answer", &run, "yes"]).assert_code(0);
}
