//! In-band answers (SPEC §16): the client's own form (`elicitation/create`), recorded as
//! this process's user `via` `mcp`; decline records nothing; an answer from elsewhere wins
//! and cancels the open form, whose late reply changes nothing; no form under a policy
//! that keeps the client's user out, nor for a 2025-03-26 client.

use serde_json::{json, Value};

use super::{pending_run, text, Client};
use crate::common::Env;

/// Calls `name` and returns the form the server then asks for.
fn form_for(c: &mut Client, id: i64, name: &str, arguments: Value) -> Value {
    c.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}));
    let asked = c.next();
    assert_eq!(asked["method"], json!("elicitation/create"), "{asked}");
    asked
}

fn reply(c: &mut Client, asked: &Value, result: Value) {
    c.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": result}));
}

fn resolved(env: &Env, run: &str) -> String {
    let rows = env.rows(
        &format!(
            "SELECT state, resolved_by, resolved_via, resume_data FROM calls WHERE {}",
            env.of_run()
        ),
        &[run],
    );
    format!("{rows:?}")
}

#[test]
fn a_form_answered_in_the_client_is_the_answer_and_a_declined_one_records_nothing() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &["--wait", "5m"]);
    c.initialize("2025-11-25", json!({"elicitation": {}}));
    let asked = form_for(
        &mut c,
        1,
        "ask_user",
        json!({"question": "Which?", "options": [{"label": "A", "description": "the first"}, {"label": "B"}], "selectionMode": "multi_select"}),
    );
    crate::assert_shown!(env, asked["params"], @r#"{"message":"Which?\n- A: the first","requestedSchema":{"type":"object","properties":{"answer":{"type":"array","title":"Answer","items":{"anyOf":[{"const":"A","title":"A"},{"const":"B","title":"B"}]}}},"required":["answer"]},"mode":"form"}"#);
    reply(
        &mut c,
        &asked,
        json!({"action": "accept", "content": {"answer": ["B"]}}),
    );
    let r = c.response(1);
    assert_eq!(
        text(&r["result"]),
        r#"{"content":"User answered: B","isError":false}"#
    );
    let run = env.latest_run().unwrap();
    crate::assert_shown!(env, resolved(&env, &run), @r#"[[Some("resolved"), Some("tester"), Some("mcp"), Some("[\"B\"]")]]"#);
    // Declined: nothing is recorded and the call waits on out of band.
    let asked = form_for(
        &mut c,
        2,
        "request_approval",
        json!({"action": "deploy", "details": "v2 to prod"}),
    );
    crate::assert_shown!(env, asked["params"], @r#"{"message":"May the agent do this?\n\ndeploy\n\nv2 to prod","requestedSchema":{"type":"object","properties":{"approve":{"type":"boolean","title":"Approve"},"reason":{"type":"string","title":"Reason, for a refusal"}},"required":["approve"]},"mode":"form"}"#);
    reply(&mut c, &asked, json!({"action": "decline"}));
    assert_eq!(c.request(3, "ping", json!({}))["result"], json!({}));
    let run = crate::common::poll_for("the approval's run", crate::common::PATIENCE, || {
        env.latest_run().filter(|r| *r != run)
    });
    assert_eq!(env.status(&run), "suspended");
    env.cmd(&["approve", &run]).code(0);
    assert_eq!(text(&c.response(2)["result"]), "approved");
    let out = c.close();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "", "")
    );
}

#[test]
fn an_answer_from_another_process_wins_cancels_the_form_and_its_late_reply_changes_nothing() {
    let env = Env::new();
    env.write("work/plan.md", "# Ship it\n\nShip.\n");
    let mut c = Client::spawn(&env, &["--wait", "5m"]);
    c.initialize("2025-06-18", json!({"elicitation": {}}));
    let asked = form_for(&mut c, 1, "submit_plan", json!({"path": "plan.md"}));
    crate::assert_shown!(env, asked["params"], @r#"{"message":"Approve this plan (plan.md)?\n\n# Ship it\n\nShip.","requestedSchema":{"type":"object","properties":{"approve":{"type":"boolean","title":"Approve the plan"},"feedback":{"type":"string","title":"Feedback, for a rejection"}},"required":["approve"]}}"#);
    let run = env.latest_run().unwrap();
    env.cmd(&["review", &run, "--approve"]).code(0);
    let cancelled = c.next();
    assert_eq!(
        cancelled["method"],
        json!("notifications/cancelled"),
        "{cancelled}"
    );
    assert_eq!(cancelled["params"]["requestId"], asked["id"]);
    let r = c.response(1);
    assert!(
        text(&r["result"]).starts_with(r#"{"content":"Plan approved."#),
        "{r}"
    );
    let before = resolved(&env, &run);
    reply(
        &mut c,
        &asked,
        json!({"action": "accept", "content": {"approve": false, "feedback": "too late"}}),
    );
    assert_eq!(c.request(2, "ping", json!({}))["result"], json!({}));
    assert_eq!(resolved(&env, &run), before);
    assert!(before.contains("Some(\"flag\")"), "{before}");
    c.close();
}

#[test]
fn no_form_under_a_policy_that_keeps_the_clients_user_out_nor_for_a_2025_03_26_client() {
    let env = Env::new();
    env.cmd(&["reviewer", "add", "alice"]).code(0);
    let mut c = Client::spawn(&env, &["--wait", "0s", "--reviewer", "alice"]);
    c.initialize("2025-11-25", json!({"elicitation": {}}));
    let r = c.call(1, "ask_user", json!({"question": "Go?"}));
    pending_run(&r);
    c.close();
    let mut c = Client::spawn(&env, &["--wait", "0s"]);
    c.initialize("2025-03-26", json!({"elicitation": {}}));
    let r = c.call(1, "ask_user", json!({"question": "Go?"}));
    pending_run(&r);
    let asked: Vec<&Value> = c
        .seen
        .iter()
        .filter(|m| m.get("method").is_some())
        .collect();
    assert!(asked.is_empty(), "{asked:?}");
    c.close();
}
