//! A server's run through the one loop (issue 18), against the real Mastra server: what had
//! drifted from local runs is the same now — `--on-suspend` runs for every leg that
//! suspends, `run` then `answer` then `review`, with the item's `pending -o json` line; the
//! step-budget warning has one wording — and `run --server` records its run in this store's
//! ledger, so that `wait` knows a run that finished (or failed) before it began, and an
//! answer to a run this store started lists that run's agent only.

use serde_json::{json, Value};

use super::cli::{at, id_of, on_the_shared_server, only};
use super::fixture::Fixture;
use crate::assert_shown;
use crate::common::{assert_one_line_error, Env};
use crate::fake_server::{FakeServer, Reply};

/// The hook's lines: `RUN CALL` (its environment), then the JSON line it read.
fn hook_calls(env: &Env) -> Vec<(String, Value)> {
    let text = std::fs::read_to_string(env.path("hook.txt")).unwrap_or_default();
    text.lines()
        .collect::<Vec<_>>()
        .chunks(2)
        .map(|pair| (pair[0].to_string(), serde_json::from_str(pair[1]).unwrap()))
        .collect()
}

/// An item's line without what the leg's stream knows better than the listing (the call's
/// arguments, and the time this process saw it suspend rather than the server's stamp).
fn same_item(line: &Value) -> Value {
    let mut line = line.clone();
    for key in ["args", "suspendedAt"] {
        line.as_object_mut().unwrap().remove(key);
    }
    line
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_on_suspend_runs_for_each_server_leg_that_suspends() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    let hook = format!(
        "{{ printf '%s %s\\n' \"$MASTRA_ASK_RUN_ID\" \"$MASTRA_ASK_TOOL_CALL_ID\"; cat; }} >> {}",
        env.path("hook.txt").display()
    );
    let with_hook = |args: &[&str]| {
        let mut all = vec!["--on-suspend", hook.as_str()];
        all.extend_from_slice(args);
        at(&env, &url, &all)
    };
    let out = with_hook(&["run", "-q", "--agent", "planner", "[scenario:chain]"]);
    out.assert_code(75);
    let run = out.stdout.trim().to_string();
    let question = only(&env, &url, &run);
    let calls = hook_calls(&env);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].0, format!("{run} {}", id_of(&question)));
    assert_eq!(
        same_item(&calls[0].1),
        same_item(&question),
        "the hook reads the item's pending line"
    );

    // The answer's leg suspends on the plan: the hook runs for it too.
    with_hook(&["answer", &run, "Chain"]).assert_code(75);
    let plan = only(&env, &url, &run);
    assert_eq!(plan["kind"], "plan");
    let calls = hook_calls(&env);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[1].0, format!("{run} {}", id_of(&plan)));
    assert_eq!(calls[1].1["server"], format!("{url}/api"));
    assert_eq!(calls[1].1["command"], plan["command"]);

    // A leg that finishes leaves nothing waiting: no hook.
    env.write("work/plans/dark-mode.md", "# Chain\n\nship it\n");
    with_hook(&["review", &run, "--approve"]).assert_code(0);
    assert_eq!(hook_calls(&env).len(), 2);
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_a_failing_hook_never_loses_the_suspension() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    let out = at(
        &env,
        &url,
        &[
            "--on-suspend",
            "exit 3",
            "run",
            "-q",
            "--agent",
            "ops",
            "[scenario:approval]",
        ],
    );
    out.assert_code(75);
    let run = out.stdout.trim();
    let approval = only(&env, &url, run);
    assert_eq!(approval["kind"], "approval");
    // Said first, then what the run waits for, as for a local run.
    assert_eq!(
        out.stderr.lines().next(),
        Some(
            format!(
                "warning: --on-suspend command for {run} {} failed (exit status: 3)",
                id_of(&approval)
            )
            .as_str()
        ),
        "{}",
        out.stderr
    );
    assert_shown!(env, out.stderr, @r#"
        warning: --on-suspend command for [RUN] a_b1f6fe8a11 failed (exit status: 3)
        run [RUN] is waiting for input (1 pending):
          a_b1f6fe8a11 approval: deploy {"target":"prod-db"}
            mastra-ask --server http://127.0.0.1:[PORT]/api approve [RUN]
            mastra-ask --server http://127.0.0.1:[PORT]/api decline [RUN] --reason <reason>
        "#);
}

/// A leg that ran out of steps while the model still called tools (the canned fake server:
/// the fixture's agents cannot be made to).
#[test]
fn server_the_step_budget_warning_is_worded_as_for_a_local_run() {
    let (run, call) = ("run-0001-aaaa", "call-1");
    let env = Env::new();
    let fake = FakeServer::start(vec![
        Reply::ok(json!({"planner": {"id": "planner", "name": "Planner", "tools": {"ask_user": {}}}})),
        Reply::ok(json!({"runs": [{"runId": run, "status": "suspended",
            "suspendedAt": "2026-12-01T03:13:33.727Z",
            "toolCalls": [{"toolCallId": call, "toolName": "ask_user", "requiresApproval": false,
                           "suspendPayload": {"question": "Name?"}}]}], "total": 1})),
        Reply::sse(vec![
            json!({"type": "tool-result", "runId": run, "from": "AGENT", "payload": {"toolCallId": call, "toolName": "ask_user", "result": {"content": "User answered: x"}}}).to_string(),
            json!({"type": "finish", "runId": run, "from": "AGENT", "payload": {"stepResult": {"reason": "tool-calls"}, "output": {"text": ""}}}).to_string(),
        ]),
    ]);
    let out = env
        .cmd(&["--server", &fake.base_url(), "answer", run, "x"])
        .code(0);
    assert_eq!(
        out.stderr,
        format!("warning: run {run} stopped after its step budget: the model was still calling tools (raise it with --max-steps)\n")
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_run_records_its_run_so_wait_knows_how_it_ended() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    let server = format!("{url}/api");
    // A run that finishes without suspending, and one whose model fails.
    let out = at(
        &env,
        &url,
        &["run", "-q", "--agent", "planner", "[scenario:none]"],
    );
    out.assert_code(0);
    let done = out.stdout.trim().to_string();
    let out = at(
        &env,
        &url,
        &["run", "-q", "--agent", "planner", "[scenario:boom]"],
    );
    out.assert_code(1);
    let failed = out.stdout.trim().to_string();
    assert_eq!(
        env.rows(
            "SELECT server, tool_call_id, agent_id, state, outcome, resolved_by FROM ledger WHERE run_id = ?1 AND kind = 'start'",
            &[&done],
        ),
        [[
            Some(server.clone()),
            Some(String::new()),
            Some("planner".into()),
            Some("delivered".into()),
            Some("finished".into()),
            Some(env.me())
        ]
        .to_vec()]
    );

    let out = at(&env, &url, &["wait", &done]);
    out.assert_code(0);
    assert_eq!(
        out.stderr,
        format!("run {done} finished on {server}: its last leg, started from this store by {}, ended with a finish\n", env.me())
    );
    let out = at(&env, &url, &["wait", &failed]);
    out.assert_code(1);
    assert_one_line_error(
        &out,
        &format!("run {failed} failed on {server}: its last leg, started from this store by {}, ended with an error", env.me()),
    );
    // Answering a run this store started that waits for nothing: a conflict, said so.
    let out = at(&env, &url, &["answer", &done, "x"]);
    out.assert_code(4);
    assert_one_line_error(
        &out,
        &format!(
            "run {done} is not suspended on {server}: it was started from this store by {}",
            env.me()
        ),
    );
    // Another store knows nothing of it.
    at(&Env::new(), &url, &["wait", &done]).assert_code(3);
}

/// `GET /api/agents` and `GET /api/agents/ID/suspended-runs` requests so far.
fn listings(fx: &Fixture) -> (u64, u64) {
    let routes = fx.requests()["routes"].as_array().unwrap().clone();
    let count = |want: &dyn Fn(&str) -> bool| -> u64 {
        routes
            .iter()
            .filter(|r| want(r["route"].as_str().unwrap()))
            .map(|r| r["count"].as_u64().unwrap())
            .sum()
    };
    (
        count(&|r| r == "GET /api/agents"),
        count(&|r| r.starts_with("GET /api/agents/") && r.ends_with("/suspended-runs")),
    )
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_an_answer_to_a_run_this_store_started_lists_its_agent_only() {
    let Some(fx) = Fixture::start() else { return };
    let url = fx.url();
    let env = Env::new();
    let out = at(
        &env,
        &url,
        &["run", "-q", "--agent", "ops", "[scenario:approval]"],
    );
    out.assert_code(75);
    let run = out.stdout.trim().to_string();

    let before = listings(&fx);
    at(&env, &url, &["approve", &run[..8]]).assert_code(0);
    let after = listings(&fx);
    assert_eq!(
        (after.0 - before.0, after.1 - before.1),
        (0, 1),
        "no walk over the agents: ops's runs only"
    );

    // A store that did not start it walks every agent (two here).
    let out = at(
        &env,
        &url,
        &["run", "-q", "--agent", "ops", "[scenario:approval]"],
    );
    let other = out.stdout.trim().to_string();
    let before = listings(&fx);
    at(&Env::new(), &url, &["approve", &other]).assert_code(0);
    let after = listings(&fx);
    assert_eq!((after.0 - before.0, after.1 - before.1), (1, 2));
}
