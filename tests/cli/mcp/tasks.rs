//! Tasks (SPEC §16, 2025-11-25): a task-augmented call returns its task at once (its id
//! the run's); the task is the run in the store, so it survives a killed and restarted
//! server; `tasks/result` carries the related-task `_meta`; `tasks/cancel` cancels the run.

use serde_json::{json, Value};

use super::{text, Client};
use crate::common::Env;

fn task_call(c: &mut Client, id: i64, name: &str, arguments: Value) -> Value {
    let params = json!({"name": name, "arguments": arguments, "task": {"ttl": 60000}});
    c.request(id, "tools/call", params)
}

#[test]
fn a_task_survives_a_killed_server_and_its_result_is_the_decision() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &[]);
    let init = c.initialize("2025-11-25", json!({}));
    assert_eq!(
        init["result"]["capabilities"]["tasks"],
        json!({"requests": {"tools": {"call": {}}}, "cancel": {}})
    );
    let list = c.request(1, "tools/list", json!({}));
    let support: Vec<Value> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| json!([t["name"], t["execution"]]))
        .collect();
    assert_eq!(
        json!(support),
        json!([["ask_user", {"taskSupport": "optional"}], ["submit_plan", {"taskSupport": "optional"}], ["request_approval", {"taskSupport": "optional"}], ["approval_prompt", null], ["await_answer", null]])
    );
    let created = task_call(
        &mut c,
        2,
        "ask_user",
        json!({"question": "Ship?", "options": [{"label": "yes"}, {"label": "no"}]}),
    );
    crate::assert_shown!(env, created, @r#"{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"[RUN]","status":"working","statusMessage":"To decide it, use: mastra-ask answer [RUN].","createdAt":"[TIME]","lastUpdatedAt":"[TIME]","ttl":null,"pollInterval":5000},"_meta":{"io.modelcontextprotocol/model-immediate-response":"A person was asked (run [RUN]); the answer is this task's result."}}}"#);
    let run = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(env.status(&run), "suspended");
    let got = c.request(3, "tasks/get", json!({"taskId": run}));
    assert_eq!(got["result"]["status"], json!("working"));
    c.kill();
    env.cmd(&["answer", &run, "yes"]).code(0);
    let mut c = Client::spawn(&env, &[]);
    c.initialize("2025-11-25", json!({}));
    let got = c.request(1, "tasks/get", json!({"taskId": run}));
    assert_eq!(got["result"]["status"], json!("completed"), "{got}");
    let result = c.request(2, "tasks/result", json!({"taskId": run}));
    crate::assert_shown!(env, result, @r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"content\":\"User answered: yes\",\"isError\":false}"}],"isError":false,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"[RUN]"}}}}"#);
    let out = c.close();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "", "")
    );
}

#[test]
fn a_cancelled_task_cancels_its_run_and_what_takes_no_task_is_refused() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &[]);
    c.initialize("2025-11-25", json!({}));
    let created = task_call(&mut c, 1, "request_approval", json!({"action": "deploy"}));
    let run = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": run}}));
    let cancelled = c.request(3, "tasks/cancel", json!({"taskId": run}));
    assert_eq!(
        cancelled["result"]["status"],
        json!("cancelled"),
        "{cancelled}"
    );
    assert_eq!(env.status(&run), "cancelled");
    let result = c.response(2);
    assert_eq!(result["result"]["isError"], json!(true), "{result}");
    assert_eq!(
        text(&result["result"]),
        "nobody answered: the run of this call was cancelled"
    );
    let again = c.request(4, "tasks/cancel", json!({"taskId": run}));
    let unknown = c.request(5, "tasks/get", json!({"taskId": "nope"}));
    let no_task = task_call(&mut c, 6, "await_answer", json!({"id": run}));
    let seen: String = [again, unknown, no_task]
        .iter()
        .map(|m| format!("{m}\n"))
        .collect();
    crate::assert_shown!(env, seen, @r#"
    {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: task [RUN] is already cancelled"}}
    {"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: no task nope"}}
    {"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"Method not found: tool await_answer cannot be called as a task"}}
    "#);
    c.close();
    // Before 2025-11-25 there are no tasks: the task is ignored, and tasks/get is unknown.
    let mut c = Client::spawn(&env, &["--wait", "0s"]);
    c.initialize("2025-06-18", json!({}));
    assert_eq!(
        c.request(1, "tasks/get", json!({"taskId": run}))["error"]["code"],
        json!(-32601)
    );
    let r = task_call(&mut c, 2, "ask_user", json!({"question": "Q?"}));
    assert!(text(&r["result"]).starts_with("Pending:"), "{r}");
    c.close();
}

/// With a client that answers forms, `tasks/result` asks in its form (tied to the task), the
/// task is `input_required` while the form is open, and `working` again once declined.
#[test]
fn a_task_is_input_required_while_its_form_is_open() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &[]);
    c.initialize("2025-11-25", json!({"elicitation": {}}));
    let created = task_call(&mut c, 1, "ask_user", json!({"question": "Ship?"}));
    let run = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(created["result"]["task"]["status"], json!("working"));
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": run}}));
    let asked = c.next();
    assert_eq!(asked["method"], json!("elicitation/create"), "{asked}");
    assert_eq!(
        asked["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        json!(run)
    );
    let got = c.request(3, "tasks/get", json!({"taskId": run}));
    assert_eq!(got["result"]["status"], json!("input_required"), "{got}");
    c.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "decline"}}));
    let mut id = 3;
    crate::common::poll(
        "the task works again once the form is declined",
        crate::common::PATIENCE,
        || {
            id += 1;
            c.request(id, "tasks/get", json!({"taskId": run}))["result"]["status"]
                == json!("working")
        },
    );
    env.cmd(&["answer", &run, "yes"]).code(0);
    let result = c.response(2);
    assert_eq!(
        text(&result["result"]),
        r#"{"content":"User answered: yes","isError":false}"#
    );
    c.close();
}
