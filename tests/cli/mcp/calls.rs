//! Calls through the store (SPEC §16): each a one-step run of agent `mcp`, pending in the
//! store, answered by any frontend; the call waits up to `--wait` and returns the answer or
//! a pending result; `await_answer` gets it later, from this server or a restarted one.

use serde_json::{json, Value};

use super::{pending_run, text, Client};
use crate::common::{poll_for, Env, PATIENCE};

/// The one pending item's run, once the server stored it.
fn pending_item(env: &Env) -> String {
    poll_for("the call's item is pending", PATIENCE, || {
        let out = env.run(&["pending", "-o", "json"]);
        out.stdout
            .lines()
            .next()
            .and_then(|l| serde_json::from_str::<Value>(l).ok())
            .and_then(|v| v["runId"].as_str().map(str::to_string))
    })
}

#[test]
fn a_question_answered_from_another_process_is_the_calls_result() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &["--wait", "5m"]);
    c.initialize("2025-11-25", json!({}));
    c.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "ask_user", "arguments": {"question": "Which?", "options": [{"label": "A"}, {"label": "B"}], "selectionMode": "multi_select"}}}));
    let run = pending_item(&env);
    // Meanwhile the server answers other requests.
    assert_eq!(c.request(8, "ping", json!({}))["result"], json!({}));
    env.cmd(&["answer", &run, "--multi", "B", "A"]).code(0);
    let r = c.response(7);
    crate::assert_shown!(env, r.to_string(), @r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"content\":\"User answered: B, A\",\"isError\":false}"}],"isError":false}}"#);
    let rows = env.rows(
        &format!(
            "SELECT tool_name, state, resolved_via FROM calls WHERE {}",
            env.of_run()
        ),
        &[&run],
    );
    crate::assert_shown!(env, format!("{rows:?}"), @r#"[[Some("ask_user"), Some("resolved"), Some("flag")]]"#);
    assert_eq!(env.status(&run), "completed");
    let out = c.close();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "", "")
    );
}

#[test]
fn a_call_nobody_answers_in_time_is_pending_and_await_answer_gets_it_after_a_restart() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &["--wait", "0s"]);
    c.initialize("2025-06-18", json!({}));
    let r = c.call(
        1,
        "request_approval",
        json!({"action": "deploy to prod", "details": "v2"}),
    );
    let run = pending_run(&r);
    crate::assert_shown!(env, text(&r), @r#"Pending: a person has not decided yet (run [RUN]). To decide it, use: mastra-ask approve [RUN], or mastra-ask decline [RUN]. Call await_answer with {"id":"[RUN]"} to wait for the answer."#);
    let again = c.call(2, "await_answer", json!({"id": run}));
    assert_eq!(text(&again), text(&r));
    c.kill();
    env.cmd(&["decline", &run, "--reason", "not on a Friday"])
        .code(0);
    let mut c = Client::spawn(&env, &["--wait", "0s"]);
    c.initialize("2025-03-26", json!({}));
    let r = c.call(1, "await_answer", json!({"id": run}));
    assert_eq!(
        r,
        json!({"content": [{"type": "text", "text": "declined: not on a Friday"}], "isError": false})
    );
    let unknown = c.call(2, "await_answer", json!({"id": "no-such-run"}));
    assert_eq!(
        text(&unknown),
        "no call of this server has the id no-such-run"
    );
    c.close();
}

#[test]
fn a_plan_in_the_servers_directory_is_reviewed_and_its_result_is_submit_plans() {
    let env = Env::new();
    env.write("work/plan.md", "# Ship it\n\n1. Tests.\n2. Ship.\n");
    let mut c = Client::spawn(&env, &["--wait", "5m"]);
    c.initialize("2025-11-25", json!({}));
    c.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "submit_plan", "arguments": {"path": "plan.md"}}}));
    let run = pending_item(&env);
    env.cmd(&[
        "review",
        &run,
        "--reject",
        "--feedback",
        "Add a rollback step.",
    ])
    .code(0);
    let r = c.response(3);
    crate::assert_shown!(env, text(&r["result"]), @r#"{"content":"Plan rejected. The user's feedback:\n\nAdd a rollback step.\n\nRevise the plan to address this feedback, write it to the file, and submit it again with submit_plan.","isError":false,"toolId":"submit_plan","submittedPlan":{"title":"Ship it","path":"plan.md","plan":"1. Tests.\n2. Ship.","feedback":"Add a rollback step."}}"#);
    c.close();
}

#[test]
fn a_policy_that_keeps_the_clients_user_out_leaves_the_call_pending() {
    let env = Env::new();
    // A policy that cannot be refuses to start.
    let out = env.cmd(&["mcp", "--reviewer", "alice"]).code(2);
    crate::assert_shown!(env, out.stderr, @"error: the run's review: no reviewer alice (list them with: mastra-ask reviewer list)");
    let out = env
        .cmd(&["mcp", "--reviewer", "alice", "--approvals", "0"])
        .code(2);
    crate::assert_shown!(env, out.stderr, @"error: --approvals must be between 1 and 64");
    env.cmd(&["reviewer", "add", "alice"]).code(0);
    let mut c = Client::spawn(&env, &["--wait", "0s", "--reviewer", "alice"]);
    c.initialize("2025-11-25", json!({}));
    let r = c.call(1, "ask_user", json!({"question": "Go?"}));
    let run = pending_run(&r);
    let out = env.cmd(&["answer", &run, "yes"]).code(77);
    assert!(out.stderr.contains("alice"), "{out}");
    let r = c.call(2, "await_answer", json!({"id": run}));
    assert!(text(&r).starts_with("Pending:"), "{r}");
    c.close();
}

/// The client's roots, when it declares them, are where plans may be (a relative path in
/// the first; an absolute path in any); elsewhere is refused, nothing stored.
#[test]
fn plans_are_read_beneath_the_clients_roots() {
    let env = Env::new();
    env.write("proj/plan.md", "# In the root\n\nYes.\n");
    env.write("work/plan.md", "# In the server's directory\n\nNo.\n");
    let root = env.path("proj");
    let mut c = Client::spawn(&env, &["--wait", "0s"]);
    c.initialize("2025-11-25", json!({"roots": {}}));
    let calls = [
        json!({"path": "plan.md"}),
        json!({"path": root.join("plan.md")}),
        json!({"path": env.path("work/plan.md")}),
    ];
    let mut seen = Vec::new();
    for (id, args) in (1..).zip(calls) {
        c.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "submit_plan", "arguments": args}}));
        let asked = c.next();
        assert_eq!(asked["method"], json!("roots/list"), "{asked}");
        let uri = format!("file://{}", root.display());
        c.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [{"uri": uri, "name": "proj"}]}}));
        let r = c.response(id);
        let t = text(&r["result"]);
        seen.push(match t.starts_with("Pending:") {
            true => format!("pending: {}", env.show(&pending_run(&r["result"]))["cwd"]),
            false => t,
        });
    }
    crate::assert_shown!(env, seen.join("\n"), @r#"
    pending: "[DIR]/proj"
    pending: "[DIR]/proj"
    {"content":"Failed to submit plan: [DIR]/work/plan.md is outside the working directory","isError":true}
    "#);
    c.close();
}

/// A call that waits says so every 10 s when its request has a progress token.
#[test]
fn a_waiting_call_with_a_progress_token_tells_its_progress() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &["--wait", "5m"]);
    c.initialize("2025-11-25", json!({}));
    let params = json!({"name": "ask_user", "arguments": {"question": "Go?"}, "_meta": {"progressToken": "p1"}});
    c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}));
    let progress = c.next();
    crate::assert_shown!(env, progress, @r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1,"message":"waiting for a person to decide"}}"#);
    let run = pending_item(&env);
    env.cmd(&["answer", &run, "yes"]).code(0);
    let r = c.response(1);
    assert_eq!(
        text(&r["result"]),
        r#"{"content":"User answered: yes","isError":false}"#
    );
    c.close();
}

/// Once `serve --public-url` recorded the inbox's address, a pending result names the
/// item's page too.
#[test]
fn a_pending_result_names_the_items_page_once_serve_recorded_its_address() {
    let env = Env::new();
    let mut served =
        crate::serve::harness::Served::start(&env, &["--public-url", "https://inbox.example.com/"]);
    assert_eq!(served.terminate(), 0);
    let mut c = Client::spawn(&env, &["--wait", "0s"]);
    c.initialize("2025-11-25", json!({}));
    let r = c.call(1, "ask_user", json!({"question": "Go?"}));
    crate::assert_shown!(env, text(&r), @r#"Pending: a person has not decided yet (run [RUN]). To decide it, use: mastra-ask answer [RUN], or open https://inbox.example.com/runs/[RUN]/items/[CALL]. Call await_answer with {"id":"[RUN]"} to wait for the answer."#);
    c.close();
}
