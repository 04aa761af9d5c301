//! Shell scripts and CI jobs: `ask`, `plan`, `wait`, waiters, `reply`, `prune`, `cancel`,
//! `--on-suspend`, audit fields and expiry.

use serde_json::{json, Value};

use crate::assert_shown;
use crate::common::{assert_one_line_error, finish, poll_for, Env, PATIENCE};
use crate::steps::{ask, plan, say};

#[test]
fn ask_prints_the_run_id_and_suspends() {
    let env = Env::new();
    let out = env
        .cmd(&["ask", "Deploy now?", "--option", "yes", "--option", "no"])
        .code(75);
    let run = out.stdout.trim_end().to_string();
    assert_eq!(out.stdout, format!("{run}\n"));
    assert_eq!(run.len(), 36);
    assert_shown!(env, out.stderr, @"
        run [RUN] is waiting for input (1 pending):
          [CALL] question: Deploy now? [yes | no]
            mastra-ask answer [RUN] <label>
        ");
    let items = env.run(&["pending", "-o", "json"]).json_lines();
    assert_eq!(items[0]["agentId"], "ask");
    assert_eq!(
        items[0]["suspendPayload"],
        json!({"question": "Deploy now?", "options": [{"label": "yes"}, {"label": "no"}], "selectionMode": "single_select"})
    );
    let out = env.cmd(&["answer", &run, "yes"]).code(0);
    assert_eq!(out.stdout, "");
    assert_eq!(env.status(&run), "completed");
    let out = env.cmd(&["wait", &run]).code(0);
    assert_eq!(out.stdout, "yes\n");
}

#[test]
fn ask_rejects_bad_input_before_creating_anything() {
    let env = Env::new();
    let out = env.cmd(&["ask", ""]).code(2);
    assert_shown!(env, out.stderr, @"error: invalid question: question: String must contain at least 1 non-blank character");
    let out = env
        .cmd(&[
            "ask",
            "--json",
            r#"{"question":"Q","selectionMode":"multi_select"}"#,
        ])
        .code(2);
    assert_shown!(env, out.stderr, @"error: invalid question: Failed to ask user: selectionMode requires options.");
    env.cmd(&["ask", "Q", "--multi"]).code(2);
    let out = env.cmd(&["ask", "--json", "{not json"]).code(2);
    assert_shown!(env, out.stderr, @"error: --json is not valid JSON: key must be a string at line 1 column 2");
    env.cmd(&["ask", "Q", "--timeout", "5s"]).code(2);
    env.cmd(&["ask", "Q", "--expires-in", "soon"]).code(2);
    let out = env.cmd(&["plan", "missing.md"]).code(2);
    assert_shown!(env, out.stderr, @"error: plan file missing.md: No such file or directory (os error 2)");
    assert!(!env.has_store());
}

#[test]
fn ask_wait_returns_the_answer() {
    let env = Env::new();
    let asker = env.spawn(&[
        "ask",
        "Which environments?",
        "--option",
        "dev",
        "--option",
        "prod",
        "--multi",
        "--wait",
    ]);
    let run = env.first_pending();
    let out = env.cmd(&["answer", &run, "--multi", "prod", "dev"]).code(0);
    assert_eq!(
        out.stderr,
        "answer recorded; the waiting process continues the run\n"
    );
    let out = finish(asker);
    out.assert_code(0);
    assert_eq!(out.stdout, "prod\ndev\n");
    assert_eq!(env.status(&run), "completed");
}

/// `--no-resume` only records; when a live waiter drives the run, the answer says so (the
/// outcome is the waiter's, as for an answer that would have driven it).
#[test]
fn an_answer_only_recorded_for_a_live_waiter_names_the_waiter() {
    let env = Env::new();
    let asker = env.spawn(&[
        "ask", "Ship it?", "--option", "yes", "--option", "no", "--wait",
    ]);
    let run = env.first_pending();
    let out = env.cmd(&["answer", &run, "yes", "--no-resume"]).code(0);
    assert_eq!(
        out.stderr,
        "answer recorded; the waiting process continues the run\n"
    );
    let out = finish(asker);
    out.assert_code(0);
    assert_eq!(out.stdout, "yes\n");
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn ask_wait_in_json_mode_ends_with_the_answer_line() {
    let env = Env::new();
    let asker = env.spawn(&[
        "-o",
        "json",
        "ask",
        "--json",
        r#"{"question":"Name?"}"#,
        "--wait",
    ]);
    let run = env.first_pending();
    env.run(&["answer", &run, "Ada Lovelace"]).assert_code(0);
    let out = finish(asker);
    out.assert_code(0);
    let lines = out.json_lines();
    let last = lines.last().unwrap();
    assert_eq!(last["runId"], run.as_str());
    assert_eq!(last["answer"], "Ada Lovelace");
    assert!(last["toolCallId"].as_str().unwrap().starts_with("call_"));
    assert_eq!(lines[0]["type"], "start");
}

#[test]
fn plan_wait_exits_by_the_decision() {
    let env = Env::new();
    env.write("work/PLAN.md", "# Migrate\n\n1. Back up\n2. Migrate\n");
    let planner = env.spawn(&["plan", "PLAN.md", "--wait"]);
    let run = env.first_pending();
    env.run(&["review", &run, "--approve"]).assert_code(0);
    let out = finish(planner);
    out.assert_code(0);
    assert_eq!(out.stdout, "");

    let planner = env.spawn(&["plan", "PLAN.md", "--wait"]);
    let run2 = env.first_pending();
    assert_ne!(run2, run);
    env.cmd(&["review", &run2, "--reject", "--feedback", "Add a rollback"])
        .code(0);
    finish(planner).assert_code(5);
    env.run(&["wait", &run2]).assert_code(5);
    env.run(&["wait", &run]).assert_code(0);
}

#[test]
fn a_timeout_expires_the_item_and_never_answers_it() {
    let env = Env::new();
    let out = env
        .cmd(&["ask", "Anyone there?", "--wait", "--timeout", "1s"])
        .code(124);
    assert_eq!(out.stdout, "");
    let run = env.latest_run().unwrap();
    assert_eq!(env.status(&run), "failed");
    let row = env
        .rows("SELECT state, resume_data FROM calls", &[])
        .remove(0);
    let (state, answer) = (row[0].clone().unwrap(), row[1].clone());
    assert_eq!((state.as_str(), answer), ("expired", None));
    assert_eq!(env.run(&["pending"]).stdout, "");
    env.cmd(&["answer", &run, "late"]).code(4);
    env.run(&["wait", &run]).assert_code(124);
}

#[test]
fn expires_in_closes_items_without_a_waiter() {
    let env = Env::new();
    let out = env
        .cmd(&["ask", "Quick?", "--expires-in", "500ms"])
        .code(75);
    let run = out.stdout.trim().to_string();
    assert!(env.run(&["pending", "-o", "json"]).json_lines()[0]["expiresAt"].is_string());
    // Once its deadline passes, the item is no longer listed.
    env.poll("the item never expired", || {
        env.run(&["pending"]).stdout.is_empty()
    });
    let out = env.cmd(&["answer", &run, "too late"]).code(4);
    assert_one_line_error(
        &out,
        &format!("run {run} is expired: nothing waits for answer"),
    );
    let out = env.cmd(&["wait", &run]).code(124);
    assert_one_line_error(&out, &format!("run {run} expired: "));
    let shown = &env.run(&["-o", "json", "show", &run]).json_lines()[0];
    assert_eq!(shown["status"], "failed");
    assert_eq!(shown["finishReason"], "expired");
    assert_eq!(shown["suspensions"][0]["state"], "expired");
    assert_eq!(shown["suspensions"][0]["resumeData"], Value::Null);
    env.run(&["wait", &run]).assert_code(124);
}

#[test]
fn wait_timeout_only_stops_watching() {
    let env = Env::new();
    let run = env.run(&["ask", "Q?"]).stdout.trim().to_string();
    let before = env.dump();
    env.cmd(&["wait", &run, "--timeout", "300ms"]).code(124);
    assert_eq!(env.dump(), before);
}

#[test]
fn wait_returns_once_an_answer_comes_from_elsewhere() {
    let env = Env::new();
    let run = env.run(&["ask", "Q?"]).stdout.trim().to_string();
    let waiter = env.spawn(&["wait", &run]);
    env.wait_until_watching(&waiter);
    env.run(&["answer", &run, "ok"]).assert_code(0);
    let out = finish(waiter);
    out.assert_code(0);
    assert_eq!(out.stdout, "ok\n");
}

#[test]
fn cancel_ends_a_waiting_ask_with_6() {
    let env = Env::new();
    let asker = env.spawn(&["ask", "Q?", "--wait"]);
    let run = env.first_pending();
    env.run(&["cancel", &run]).assert_code(0);
    let out = finish(asker);
    out.assert_code(6);
    assert_eq!(out.stdout, "");
    env.run(&["wait", &run]).assert_code(6);
}

#[test]
fn a_waiter_drives_the_next_leg_in_its_own_working_directory() {
    let env = Env::new();
    // The plan file exists only in the waiter's working directory.
    env.write("waiter/PLAN.md", "# Waiter's plan\nsteps\n");
    env.write("answerer/.keep", "");
    let agent = env.agent(json!([
        ask("q", "Ready?"),
        plan("p", "PLAN.md"),
        say("all done")
    ]));
    let mut cmd = env.command(&["run", "--agent", &agent, "--wait", "go"]);
    cmd.current_dir(env.path("waiter"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let waiter = cmd.spawn().unwrap();
    let run = env.first_pending();

    let mut answer = env.command(&["answer", &run, "yes"]);
    answer.current_dir(env.path("answerer"));
    let out = env.run_with(answer);
    out.assert_code(0);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "answer recorded; the waiting process continues the run\n"
    );

    // The waiter drove the leg: the plan was read from its directory.
    let plan = poll_for("the waiter's plan never became pending", PATIENCE, || {
        let items = env.run(&["pending", "-o", "json"]).json_lines();
        items.first().cloned()
    });
    assert_eq!(plan["suspendPayload"]["title"], "Waiter's plan");
    let mut review = env.command(&["review", &run, "--approve"]);
    review.current_dir(env.path("answerer"));
    env.run_with(review).assert_code(0);

    let out = finish(waiter);
    out.assert_code(0);
    assert_eq!(out.stdout, "all done\n");
    assert_eq!(env.status(&run), "completed");
    let waiters = env.count("SELECT count(*) FROM waiters", &[]);
    assert_eq!(waiters, 0, "the waiter unregistered itself");
}

#[test]
fn wait_drive_and_no_resume() {
    let env = Env::new();
    let agent = env.agent(json!([ask("q", "Ready?"), say("driven by the watcher")]));
    let (_, run) = env.start(&agent, &[]);
    let watcher = env.spawn(&["wait", &run, "--drive"]);
    env.wait_for_waiter(&run);
    env.run(&["answer", &run, "yes"]).assert_code(0);
    let out = finish(watcher);
    out.assert_code(0);
    assert_eq!(out.stdout, "driven by the watcher\n");

    // --no-resume records only; `resume` continues.
    let (_, run) = env.start(&agent, &[]);
    let out = env.cmd(&["answer", &run, "yes", "--no-resume"]).code(0);
    assert_shown!(env, out.stderr, @"recorded; a waiting process, or `mastra-ask resume [RUN]`, continues the run");
    assert_eq!(env.status(&run), "running");
    let out = env.cmd(&["resume", &run]).code(0);
    assert_eq!(out.stdout, "driven by the watcher\n");
}

#[test]
fn reply_runs_a_completed_run_again() {
    let env = Env::new();
    env.write("work/PLAN.md", "# Plan\nv1\n");
    let agent = env.agent(json!([
        plan("p", "PLAN.md"),
        say("Waiting for your message."),
        say("Thanks, revising now.")
    ]));
    let (_, run) = env.start(&agent, &[]);
    let out = env.cmd(&["review", &run, "--reject"]).code(0);
    assert_eq!(out.stdout, "Waiting for your message.\n");
    let before = env.dump();
    env.cmd(&["reply", &run, ""]).code(2);
    assert_eq!(env.dump(), before);
    let out = env.cmd(&["reply", &run, "Use blue-green deploys"]).code(0);
    assert_eq!(out.stdout, "Thanks, revising now.\n");
    let messages = env.messages(&run);
    assert_eq!(
        messages[messages.len() - 2],
        json!({"role": "user", "content": "Use blue-green deploys"})
    );

    let suspended = env.run(&["ask", "Q?"]).stdout.trim().to_string();
    let out = env.cmd(&["reply", &suspended, "hi"]).code(4);
    assert_shown!(env, out.stderr, @"error: run [RUN] is not completed (it is suspended); reply continues a completed run");
}

#[test]
fn prune_deletes_finished_runs_only() {
    let env = Env::new();
    let done = env.run(&["ask", "Q?"]).stdout.trim().to_string();
    env.run(&["answer", &done, "a"]).assert_code(0);
    let cancelled = env.run(&["ask", "Q?"]).stdout.trim().to_string();
    env.run(&["cancel", &cancelled]).assert_code(0);
    let waiting = env.run(&["ask", "Q?"]).stdout.trim().to_string();

    let out = env.cmd(&["prune", "--older-than", "1h"]).code(0);
    assert_eq!(out.stdout, "pruned 0 run(s)\n");
    let out = env.run(&["prune", "--older-than", "0s", "--status", "cancelled"]);
    assert_eq!(out.stdout, "pruned 1 run(s)\n");
    let out = env.run(&["-o", "json", "prune", "--older-than", "0s"]);
    assert_eq!(out.json_lines()[0], json!({"pruned": 1}));
    let left: Vec<String> = env
        .run(&["runs", "-o", "json"])
        .json_lines()
        .iter()
        .map(|r| r["runId"].as_str().unwrap().to_string())
        .collect();
    let kept = env.messages(&waiting).len() as i64;
    assert_eq!(left, [waiting]);
    let rows = env.count("SELECT count(*) FROM messages", &[]);
    assert_eq!(rows, kept, "a pruned run's messages go with it");
    let out = env
        .cmd(&["prune", "--older-than", "0s", "--status", "suspended"])
        .code(2);
    assert_shown!(env, out.stderr, @"error: only finished runs are pruned; --status suspended is not finished (use completed, failed or cancelled)");
}

#[test]
fn on_suspend_runs_a_command_per_new_item() {
    let env = Env::new();
    let log = env.path("hook.log");
    let hook = format!(
        "{{ cat; echo \"$MASTRA_ASK_RUN_ID $MASTRA_ASK_TOOL_CALL_ID\"; }} >> '{}'",
        log.display()
    );
    let agent = env.agent(json!([
        {"toolCalls": [
            {"id": "a", "name": "ask_user", "args": {"question": "A?"}},
            {"id": "b", "name": "ask_user", "args": {"question": "B?"}}
        ]},
        say("done")
    ]));
    let mut cmd = env.command(&["--on-suspend", &hook, "run", "--agent", &agent, "go"]);
    cmd.env("MASTRA_ASK_OUTPUT", "text");
    let out = env.run_with(cmd);
    out.assert_code(75);
    let run = env.latest_run().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    let first: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(first["runId"], run.as_str());
    assert_eq!(first["toolCallId"], "a");
    assert_eq!(
        env.without_store_flag(&first["command"]),
        format!("mastra-ask answer {run} --tool-call a <answer>")
    );
    assert_eq!(lines[1], format!("{run} a"));
    assert_eq!(lines[3], format!("{run} b"));

    // Answering one of them creates no new item: the hook does not run again.
    let mut cmd = env.command(&["answer", &run, "--tool-call", "a", "x"]);
    cmd.env("MASTRA_ASK_ON_SUSPEND", &hook);
    env.run_with(cmd).assert_code(75);
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 4);

    // A failing hook is reported and the suspension stays.
    let mut cmd = env.command(&["ask", "Q?"]);
    cmd.env("MASTRA_ASK_ON_SUSPEND", "exit 3");
    let out = env.run_with(cmd);
    out.assert_code(75);
    assert_shown!(env, out.stderr, @"
        warning: --on-suspend command for [RUN] [CALL] failed (exit status: 3)
        run [RUN] is waiting for input (1 pending):
          [CALL] question: Q?
            mastra-ask answer [RUN] <answer>
        ");
    assert_eq!(env.run(&["pending", "-q"]).stdout.lines().count(), 2);
}

#[test]
fn audit_records_who_when_and_how() {
    let env = Env::new();
    let agent = env.agent(json!([
        {"toolCalls": [
            {"id": "a", "name": "ask_user", "args": {"question": "A?"}},
            {"id": "b", "name": "ask_user", "args": {"question": "B?"}},
            {"id": "c", "name": "ask_user", "args": {"question": "C?"}}
        ]},
        say("done")
    ]));
    let (_, run) = env.start(&agent, &[]);
    env.run(&["answer", &run, "--tool-call", "a", "--as", "alice", "x"])
        .assert_code(75);
    let mut cmd = env.command(&["answer", &run, "--tool-call", "b", "--json", "\"y\""]);
    cmd.env("MASTRA_ASK_USER", "bob");
    env.run_with(cmd).assert_code(75);
    env.run(&["answer", &run, "--tool-call", "c", "z"])
        .assert_code(0);
    let shown = &env.run(&["-o", "json", "show", &run]).json_lines()[0];
    let audit: Vec<(String, String)> = shown["suspensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            assert!(s["resolvedAt"].as_str().unwrap().ends_with('Z'));
            (
                s["resolvedBy"].as_str().unwrap().into(),
                s["resolvedVia"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        audit,
        [
            ("alice".into(), "flag".into()),
            ("bob".into(), "json".into()),
            ("tester".into(), "flag".into())
        ]
    );
    let text = env.run(&["show", &run]).stdout;
    assert!(text.contains("resolved by alice via flag at "), "{text}");
}

#[test]
fn without_user_the_login_name_is_logname_then_the_password_entry() {
    let env = Env::new();
    let agent = env.agent(json!([
        {"toolCalls": [
            {"id": "a", "name": "ask_user", "args": {"question": "A?"}},
            {"id": "b", "name": "ask_user", "args": {"question": "B?"}}
        ]},
        say("done")
    ]));
    let (_, run) = env.start(&agent, &[]);
    let mut cmd = env.command(&["answer", &run, "--tool-call", "a", "x"]);
    cmd.env_remove("USER").env("LOGNAME", "carol");
    env.run_with(cmd).assert_code(75);
    let mut cmd = env.command(&["answer", &run, "--tool-call", "b", "y"]);
    cmd.env_remove("USER").env_remove("LOGNAME");
    env.run_with(cmd).assert_code(0);
    let id = std::process::Command::new("id")
        .arg("-un")
        .output()
        .unwrap();
    assert!(id.status.success());
    let entry = String::from_utf8(id.stdout).unwrap().trim().to_string();
    let shown = &env.run(&["-o", "json", "show", &run]).json_lines()[0];
    let by: Vec<&str> = shown["suspensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["resolvedBy"].as_str().unwrap())
        .collect();
    assert_eq!(by, ["carol", entry.as_str()]);
}

#[test]
fn run_quiet_prints_only_the_run_id() {
    let env = Env::new();
    let agent = env.agent(json!([
        {"text": "thinking aloud", "toolCalls": [{"id": "q", "name": "ask_user", "args": {"question": "Ready?"}}]},
        say("done")
    ]));
    let out = env
        .cmd(&["--no-input", "run", "-q", "--agent", &agent, "go"])
        .code(75);
    let run = out.stdout.trim_end();
    assert_eq!(out.stdout, format!("{run}\n"), "only the id on stdout");
    assert_eq!(env.status(run), "suspended");
    assert_shown!(env, out.stderr, @"
        run [RUN] is waiting for input (1 pending):
          q question: Ready?
            mastra-ask answer [RUN] <answer>
        ");
    for bad in [
        vec!["-o", "json", "run", "-q", "--agent", &agent, "go"],
        vec!["run", "-q", "--wait", "--agent", &agent, "go"],
    ] {
        env.run(&bad).assert_code(2);
    }
}

#[test]
fn a_waiters_json_stream_carries_every_stored_event() {
    let env = Env::new();
    let agent = env.agent(json!([
        ask("q", "Ready?"),
        ask("r", "Sure?"),
        say("all done")
    ]));
    let waiter = env.spawn(&["-o", "json", "run", "--wait", "--agent", &agent, "go"]);
    let run = env.first_pending();
    env.run(&["answer", &run, "yes"]).assert_code(0);
    env.poll("the waiter never drove the next leg", || {
        let pending = env.run(&["pending", "-q"]).stdout;
        !pending.is_empty() && !pending.contains(" q ")
    });
    env.run(&["answer", &run, "sure"]).assert_code(0);
    let out = finish(waiter);
    out.assert_code(0);
    let streamed = out.json_lines();
    let shown: Value =
        serde_json::from_str(&env.run(&["show", &run, "-o", "json"]).stdout).unwrap();
    let stored = shown["events"].as_array().unwrap();
    assert_eq!(
        streamed
            .iter()
            .map(|e| e["type"].clone())
            .collect::<Vec<_>>(),
        stored.iter().map(|e| e["type"].clone()).collect::<Vec<_>>(),
    );
    let results: Vec<&Value> = streamed
        .iter()
        .filter(|e| e["type"] == "tool-result")
        .collect();
    assert_eq!(results.len(), 2, "the answers' results are in the stream");
    assert_eq!(
        results[0]["payload"]["result"]["content"],
        "User answered: yes"
    );
}

#[test]
fn plan_wait_prints_the_feedback_of_a_rejection() {
    let env = Env::new();
    env.write("work/PLAN.md", "# Migrate\n\n1. Back up\n");
    let planner = env.spawn(&["plan", "PLAN.md", "--wait"]);
    let run = env.first_pending();
    env.run(&[
        "review",
        &run,
        "--reject",
        "--feedback",
        "Add a rollback step",
    ])
    .assert_code(0);
    let out = finish(planner);
    out.assert_code(5);
    assert_eq!(out.stdout, "Add a rollback step\n");
}

#[test]
fn a_lone_argument_to_answer_is_the_run() {
    let env = Env::new();
    let run = env.run(&["ask", "Version?"]).stdout.trim().to_string();
    let out = env.cmd(&["answer", "2.0.0"]).code(2);
    assert_shown!(env, out.stderr, @r#"
        error: "2.0.0" names no run: a lone argument is taken as RUN, and no answer was given
        hint: mastra-ask answer RUN ANSWER (free text or a label; - reads stdin), or RUN --multi LABEL..., or RUN --json VALUE
        "#);
    let out = env.cmd(&["answer", &run]).code(2);
    assert_shown!(env, out.stderr, @"
        error: no answer given
        hint: mastra-ask answer RUN ANSWER (free text or a label; - reads stdin), or RUN --multi LABEL..., or RUN --json VALUE
        ");

    let multi = env
        .run(&[
            "ask", "Chores?", "--option", "a", "--option", "b", "--multi",
        ])
        .stdout
        .trim()
        .to_string();
    let out = env.cmd(&["answer", "--multi", "a", "b", &multi]).code(2);
    assert_shown!(env, out.stderr, @r#"
        error: which run? --multi took every value after it as a label, "[RUN]" too, which names run [RUN]
        hint: put RUN first: mastra-ask answer [RUN] --multi LABEL...
        "#);
    assert_eq!(env.status(&multi), "suspended");
    assert_eq!(env.status(&run), "suspended");
}

#[test]
fn a_leg_that_runs_out_of_steps_says_so() {
    let env = Env::new();
    let agent = env.agent(json!([
        {"toolCalls": [{"id": "a", "name": "nope", "args": {}}]},
        {"toolCalls": [{"id": "b", "name": "nope", "args": {}}]},
        say("never reached")
    ]));
    let out = env
        .cmd(&[
            "--no-input",
            "run",
            "--max-steps",
            "2",
            "--agent",
            &agent,
            "go",
        ])
        .code(0);
    assert_shown!(env, out.stderr, @r#"
        warning: tool call a (nope) failed: Tool "nope" not found. Available tools: ask_user, submit_plan. Call tools by their exact name only — never add prefixes, namespaces, or colons.
        warning: tool call b (nope) failed: Tool "nope" not found. Available tools: ask_user, submit_plan. Call tools by their exact name only — never add prefixes, namespaces, or colons.
        warning: run [RUN] stopped after its step budget: the model was still calling tools (raise it with --max-steps, or `mastra-ask reply [RUN] ...` to go on)
        "#);
}

#[test]
fn an_answer_kept_when_the_model_fails_says_so() {
    let env = Env::new();
    // A model that asks first, then fails once it has the answer.
    env.write(
        "work/model.sh",
        "#!/bin/sh\nif grep -q 'User answered' ; then echo 'model server down' >&2; exit 1; fi\n\
         echo '{\"toolCalls\":[{\"id\":\"q\",\"name\":\"ask_user\",\"args\":{\"question\":\"Ready?\"}}]}'\n",
    );
    std::process::Command::new("chmod")
        .args(["+x", env.path("work/model.sh").to_str().unwrap()])
        .status()
        .unwrap();
    let out = env
        .cmd(&[
            "--no-input",
            "run",
            "-q",
            "--model",
            "command:./model.sh",
            "go",
        ])
        .code(75);
    let run = out.stdout.trim().to_string();
    let out = env.cmd(&["--no-input", "answer", &run, "yes"]).code(1);
    assert_shown!(env, out.stderr, @"
        error: run [RUN] failed: model command [DIR]/work/model.sh exited with status 1: model server down; your answer was recorded, and resume continues the run
        hint: retry it with: mastra-ask resume [RUN]
        ");
    let shown: Value =
        serde_json::from_str(&env.run(&["show", &run, "-o", "json"]).stdout).unwrap();
    assert_eq!(shown["status"], "failed");
    assert_eq!(shown["suspensions"][0]["resumeData"], "yes");
}

#[test]
fn pending_shows_every_command_and_the_kind_of_each_item() {
    let env = Env::new();
    env.write("work/PLAN.md", "# Migrate\n\n1. Back up\n");
    let plan_run = env.run(&["plan", "PLAN.md"]).stdout.trim().to_string();
    let ask_run = env.run(&["ask", "Name?"]).stdout.trim().to_string();

    let text = env.run(&["pending"]).stdout;
    for line in [
        format!("    mastra-ask review {plan_run} --approve"),
        format!("    mastra-ask review {plan_run} --reject --feedback <feedback>"),
        format!("    mastra-ask answer {ask_run} <answer>"),
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} in:\n{text}");
    }

    let items = env.run(&["pending", "-o", "json"]).json_lines();
    let plan = items
        .iter()
        .find(|i| i["runId"] == plan_run.as_str())
        .unwrap();
    assert_eq!(plan["kind"], "plan");
    let commands: Vec<String> = plan["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| env.without_store_flag(c))
        .collect();
    assert_eq!(
        commands,
        [
            format!("mastra-ask review {plan_run} --approve"),
            format!("mastra-ask review {plan_run} --reject --feedback <feedback>")
        ]
    );
    assert_eq!(plan["command"], plan["commands"][0]);

    let quiet = env.run(&["pending", "-q"]).stdout;
    let call = plan["toolCallId"].as_str().unwrap();
    assert!(
        quiet
            .lines()
            .any(|l| l == format!("{plan_run} {call} plan")),
        "{quiet}"
    );
    assert!(
        quiet
            .lines()
            .any(|l| l.starts_with(&ask_run) && l.ends_with(" question")),
        "{quiet}"
    );
}
