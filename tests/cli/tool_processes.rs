//! The processes of command tools through the real binary (issue 17 M3, L1, L3, I1; SPEC
//! §11): a tool that needs no approval, caught running when its driver is killed, is waited
//! for (or ended past its timeout) by `resume` before the step runs again, so two copies
//! never overlap; what a tool printed before it exited is its result though a daemon holds
//! its stdout; a tool's environment is an allow-list plus the names it declares; and a tool
//! that ran before a cancel landed is recorded.

use serde_json::{json, Value};

use crate::command_tools::{call, script, tool, tool_agent};
use crate::common::{alive, assert_one_line_error, assert_same_store, finish, Env};

/// Lines of `work/marks.log`.
fn marks(env: &Env) -> Vec<String> {
    std::fs::read_to_string(env.path("work/marks.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A mark's pid and time (`start PID SECONDS`).
fn mark(line: &str) -> (String, f64) {
    let parts: Vec<&str> = line.split(' ').collect();
    (parts[1].to_string(), parts[2].parse().unwrap())
}

/// Waits until the running call `id` has its process group recorded; returns it.
fn recorded_group(env: &Env, id: &str) -> String {
    let sql = "SELECT tool_pgid FROM calls WHERE call_id = ?1 AND state = 'running'";
    env.poll("the tool's process group was never recorded", || {
        env.value(sql, &[id]).is_some()
    });
    env.value(sql, &[id]).unwrap()
}

/// Kills the driver (SIGKILL) once the tool has started, then resumes the run to its end.
fn kill_then_resume(env: &Env, agent: &str) -> (String, crate::common::Out) {
    let mut driver = env.spawn(&["--no-input", "run", "--agent", agent, "go"]);
    env.poll("the tool never started", || marks(env).len() == 1);
    let run = env.latest_run().unwrap();
    let first = mark(&marks(env)[0]).0;
    assert_eq!(
        recorded_group(env, "s1"),
        first,
        "recorded before it ran on"
    );
    driver.kill().unwrap();
    driver.wait().unwrap();
    let out = env.run(&["--no-input", "resume", &run]);
    (run, out)
}

#[test]
fn the_reports_repro_resume_after_a_killed_driver_never_runs_an_inline_tool_twice_at_once() {
    let env = Env::new();
    let slow = script(
        &env,
        "slow.sh",
        "echo \"start $$ $(date +%s.%N)\" >> marks.log\nsleep 3\necho \"end $$ $(date +%s.%N)\" >> marks.log\necho '{\"ok\":true}'\n",
    );
    let agent = tool_agent(
        &env,
        json!([call("s1", "slow", json!({})), {"text": "finished"}]),
        vec![tool("slow", &[&slow], json!({"timeoutMs": 30000}))],
    );
    let (run, out) = kill_then_resume(&env, &agent);
    out.assert_code(0);
    assert_eq!(out.stdout, "finished\n");
    let log = marks(&env);
    assert_eq!(log.len(), 4, "{log:?}");
    let (a, b) = (mark(&log[0]), mark(&log[1]));
    assert!(
        log[0].starts_with("start ") && log[1].starts_with("end "),
        "{log:?}"
    );
    assert_eq!(
        a.0, b.0,
        "the first copy ended before anything else: {log:?}"
    );
    let (c, d) = (mark(&log[2]), mark(&log[3]));
    assert!(
        log[2].starts_with("start ") && log[3].starts_with("end "),
        "{log:?}"
    );
    assert_ne!(c.0, a.0, "a second copy");
    assert!(
        c.1 >= b.1,
        "the second copy started before the first ended: {log:?}"
    );
    assert!(d.1 >= c.1);
    // One result, and no running call left behind.
    let results = env.tool_results(&run);
    assert_eq!(results, [("s1".to_string(), json!({"ok": true}))]);
    assert_eq!(
        env.count("SELECT count(*) FROM calls WHERE state = 'running'", &[]),
        0
    );
}

#[test]
fn resume_ends_an_earlier_copy_past_its_timeout_before_the_step_runs_again() {
    let env = Env::new();
    // The first copy would run 60 s; its timeout is 5 s from when it started.
    let stuck = script(
        &env,
        "stuck.sh",
        "echo \"start $$ $(date +%s.%N)\" >> marks.log\n[ -e second ] && { echo again; exit 0; }\ntouch second\nsleep 60\n",
    );
    let agent = tool_agent(
        &env,
        json!([call("s1", "stuck", json!({})), {"text": "finished"}]),
        vec![tool("stuck", &[&stuck], json!({"timeoutMs": 5000}))],
    );
    let (run, out) = kill_then_resume(&env, &agent);
    out.assert_code(0);
    let log = marks(&env);
    assert_eq!(log.len(), 2, "{log:?}");
    let first: i32 = mark(&log[0]).0.parse().unwrap();
    assert!(!alive(first), "the first copy was ended");
    assert_eq!(env.tool_results(&run), [("s1".to_string(), json!("again"))]);
}

#[test]
fn the_reports_repro_a_daemon_holding_stdout_does_not_hide_what_the_tool_printed() {
    let env = Env::new();
    let daemon = script(
        &env,
        "daemon.sh",
        "echo '{\"daemon\":\"started\"}'\nsetsid sleep 30 &\necho $! > daemon.pid\nexit 0\n",
    );
    // The variation: it fails, and its daemon holds stderr too.
    let failing = script(
        &env,
        "failing.sh",
        "echo 'it broke' >&2\nsetsid sleep 30 &\necho $! > failing.pid\nexit 3\n",
    );
    let agent = tool_agent(
        &env,
        json!([
            {"toolCalls": [
                {"id": "d1", "name": "daemon", "args": {}},
                {"id": "f1", "name": "failing", "args": {}}
            ]},
            {"text": "done"}
        ]),
        vec![
            tool("daemon", &[&daemon], json!({"timeoutMs": 60000})),
            tool("failing", &[&failing], json!({"timeoutMs": 60000})),
        ],
    );
    let (out, run) = env.start(&agent, &[]);
    for pid in ["daemon.pid", "failing.pid"] {
        if let Ok(p) = std::fs::read_to_string(env.path(&format!("work/{pid}"))) {
            end_daemon(p.trim());
        }
    }
    out.assert_code(0);
    let results = env.tool_results(&run);
    assert_eq!(results[0], ("d1".to_string(), json!({"daemon": "started"})));
    let failed = results[1].1.as_str().unwrap();
    assert!(
        failed
            .starts_with("Tool \"failing\" exited with status 3; its stderr ends with:\nit broke"),
        "{failed}"
    );
}

/// Ends a daemon a test's tool left behind.
fn end_daemon(pid: &str) {
    let _ = std::process::Command::new("kill")
        .args(["-KILL", pid])
        .status();
}

#[test]
fn a_tools_environment_is_the_allow_list_and_what_it_declares() {
    let env = Env::new();
    let agent = tool_agent(
        &env,
        json!([call("e1", "printenv", json!({})), {"text": "done"}]),
        vec![tool(
            "printenv",
            &["env"],
            json!({"env": ["DEPLOY_TOKEN", "lower_ok"]}),
        )],
    );
    let mut c = env.command(&["run", "--agent", &agent, "go"]);
    for (k, v) in [
        // The report's 11 planted secrets, and some more.
        ("OPENAI_API_KEY", "LEAK1"),
        ("MASTRA_ASK_API_KEY", "LEAK2"),
        ("OPENROUTER_API_KEY", "LEAK3"),
        ("ANTHROPIC_API_KEY", "LEAK4"),
        ("MASTRA_SERVER_TOKEN", "LEAK5"),
        ("PGPASSWORD", "LEAK6"),
        ("AWS_SECRET_ACCESS_KEY", "LEAK7"),
        ("GITHUB_TOKEN", "LEAK8"),
        ("HF_TOKEN", "LEAK9"),
        ("OPENAI_API_KEY_OLD", "LEAK10"),
        ("openai_api_key", "LEAK11"),
        ("DATABASE_URL", "LEAK12"),
        ("LD_PRELOAD", "LEAK13"),
        // Passed: the allow-list and the declared names.
        ("LANG", "C.UTF-8"),
        ("LC_ALL", "C"),
        ("TZ", "UTC"),
        ("DEPLOY_TOKEN", "declared"),
        ("lower_ok", "declared too"),
    ] {
        c.env(k, v);
    }
    let out = env.run_with(c);
    out.assert_code(0);
    let run = env.latest_run().unwrap();
    let printed = env.tool_results(&run)[0].1.as_str().unwrap().to_string();
    assert!(!printed.contains("LEAK"), "{printed}");
    let mut names: Vec<&str> = printed
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "DEPLOY_TOKEN",
            "HOME",
            "LANG",
            "LC_ALL",
            "MASTRA_ASK_RUN_ID",
            "MASTRA_ASK_TOOL_CALL_ID",
            "PATH",
            "TZ",
            "USER",
            "lower_ok"
        ]
    );
    assert!(printed.contains("DEPLOY_TOKEN=declared\n"));
}

#[test]
fn a_bad_env_declaration_is_refused_when_the_agent_is_loaded() {
    let env = Env::new();
    for (extra, needle) in [
        (
            json!({"env": ["TOKEN=abc"]}),
            "env entry \"TOKEN=abc\" is not a variable name",
        ),
        (json!({"env": ["9LIVES"]}), "is not a variable name"),
        (
            json!({"env": "GITHUB_TOKEN"}),
            "invalid type: string \"GITHUB_TOKEN\", expected a sequence",
        ),
        (json!({"env": [1]}), "invalid type: integer `1`"),
        (json!({"environment": ["X"]}), "unknown field `environment`"),
    ] {
        let agent = tool_agent(
            &env,
            json!([{"text": "done"}]),
            vec![tool("t", &["true"], extra)],
        );
        let before = env.dump();
        let out = env.cmd(&["run", "--agent", &agent, "go"]).code(2);
        assert_one_line_error(&out, needle);
        assert_same_store(&env.dump(), &before);
    }
}

/// A tool that marks its start, holds until `work/release` exists, marks its end and
/// answers `{"ok":true}`.
fn held(env: &Env) -> String {
    script(
        env,
        "held.sh",
        "cat > /dev/null\necho \"start $$ 0\" >> marks.log\nwhile [ ! -e release ]; do sleep 0.05; done\necho \"end $$ 0\" >> marks.log\necho '{\"ok\":true}'\n",
    )
}

#[test]
fn an_approved_tool_that_ran_before_a_cancel_landed_is_recorded() {
    let env = Env::new();
    let held = held(&env);
    let agent = tool_agent(
        &env,
        json!([call("c1", "deploy", json!({})), {"text": "done"}]),
        vec![tool("deploy", &[&held], json!({"requireApproval": true}))],
    );
    let run = env.suspended(&agent);
    let approver = env.spawn(&["approve", &run]);
    env.poll("the tool never started", || marks(&env).len() == 1);
    env.run(&["cancel", &run]).assert_code(0);
    env.write("work/release", "");
    let out = finish(approver);
    assert_eq!(marks(&env).len(), 2, "the tool ran to its end");
    assert_eq!(env.status(&run), "cancelled", "{}", out.stderr);
    let item = &env.show(&run)["suspensions"][0];
    assert_eq!(item["result"], json!({"ok": true}));
    let text = env.run(&["show", &run]).stdout;
    assert!(
        text.contains("    tool ran; it gave: {\"ok\":true}\n"),
        "{text}"
    );
}

#[test]
fn an_inline_tool_that_ran_before_a_cancel_landed_is_recorded() {
    let env = Env::new();
    let held = held(&env);
    let agent = tool_agent(
        &env,
        json!([call("s1", "deploy", json!({"version": "v2"})), {"text": "done"}]),
        vec![tool("deploy", &[&held], json!({}))],
    );
    let driver = env.spawn(&["--no-input", "run", "--agent", &agent, "go"]);
    env.poll("the tool never started", || marks(&env).len() == 1);
    let run = env.latest_run().unwrap();
    let text = env.run(&["show", &run]).stdout;
    assert!(
        text.contains("tools started for a step not stored\n  deploy (s1) started at "),
        "{text}"
    );
    assert!(text.contains("    no result stored\n"), "{text}");
    env.run(&["cancel", &run]).assert_code(0);
    env.write("work/release", "");
    finish(driver);
    assert_eq!(env.status(&run), "cancelled");
    let shown = env.show(&run);
    let started: &Value = &shown["toolsStarted"][0];
    assert_eq!(started["toolCallId"], "s1");
    assert_eq!(started["args"], json!({"version": "v2"}));
    assert_eq!(started["result"], json!({"ok": true}));
    let text = env.run(&["show", &run]).stdout;
    assert!(
        text.contains("    tool ran; its result never reached the model: {\"ok\":true}\n"),
        "{text}"
    );
}
