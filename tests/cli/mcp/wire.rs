//! The wire: `initialize` in each served version, `ping`, `tools/list`, and bad input of
//! every kind answered with JSON-RPC's errors while the server goes on; stdout never
//! carries anything but protocol messages, and nothing is stored.

use serde_json::{json, Value};

use super::Client;
use crate::common::Env;

/// The messages as lines, for a snapshot.
fn shown(messages: &[Value]) -> String {
    messages.iter().map(|m| format!("{m}\n")).collect()
}

#[test]
fn initialize_is_answered_in_each_served_version_and_ping_and_the_tools_listed() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &[]);
    let mut seen = Vec::new();
    for (id, version) in [
        (1, "2025-11-25"),
        (2, "2025-06-18"),
        (3, "2025-03-26"),
        (4, "2024-11-05"),
    ] {
        let r = c.request(id, "initialize", json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
        seen.push(json!([version, r["result"]["protocolVersion"]]));
    }
    crate::assert_shown!(env, shown(&seen), @r#"
    ["2025-11-25","2025-11-25"]
    ["2025-06-18","2025-06-18"]
    ["2025-03-26","2025-03-26"]
    ["2024-11-05","2025-11-25"]
    "#);
    let mut init = c.initialize("2025-11-25", json!({}));
    init["result"]["serverInfo"]["version"] = json!("[VERSION]");
    let ping = c.request(5, "ping", json!({}));
    let list = c.request(6, "tools/list", json!({}));
    let tools: Vec<Value> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| json!([t["name"], t["inputSchema"]["required"]]))
        .collect();
    crate::assert_shown!(env, shown(&[init, ping]) + &shown(&tools), @r#"
    {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false},"tasks":{"requests":{"tools":{"call":{}}},"cancel":{}}},"serverInfo":{"name":"mastra-ask","version":"[VERSION]"},"instructions":"Tools that ask a person: ask_user (a question), submit_plan (a Markdown plan file to approve), request_approval (may I do this?). A person answers here or in any of mastra-ask's frontends; a call that is not decided within the server's wait returns \"pending\" with a run id: call await_answer with it later."}}
    {"jsonrpc":"2.0","id":5,"result":{}}
    ["ask_user",["question"]]
    ["submit_plan",["path"]]
    ["request_approval",["action"]]
    ["approval_prompt",["tool_name","input"]]
    ["await_answer",["id"]]
    "#);
    let out = c.close();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "", "")
    );
    assert!(!env.has_store(), "listing and pinging store nothing");
}

#[test]
fn garbage_unknown_methods_and_tools_oversized_lines_are_errors_and_the_server_goes_on() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &[]);
    c.initialize("2025-11-25", json!({}));
    c.raw(b"this is not json\n");
    c.raw(b"\n   \n");
    c.raw(b"[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}]\n");
    c.raw(b"{\"jsonrpc\":\"1.0\",\"id\":10,\"method\":\"ping\"}\n");
    c.raw(b"{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"ping\"}\n");
    c.raw(b"\xff\xfe\n");
    let mut seen: Vec<Value> = (0..5).map(|_| c.next()).collect();
    seen.push(c.request(11, "resources/list", json!({})));
    seen.push(c.request(
        12,
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    ));
    seen.push(c.request(13, "tools/call", json!({"arguments": {}})));
    // A line of more than 1 MiB, in one write, then a ping: the server skips the line.
    let mut big =
        b"{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"ping\",\"params\":{\"x\":\"".to_vec();
    big.extend(std::iter::repeat_n(b'a', 1024 * 1024 + 10));
    big.extend_from_slice(b"\"}}\n");
    c.raw(&big);
    seen.push(c.next());
    seen.push(c.request(15, "ping", json!({})));
    crate::assert_shown!(env, shown(&seen), @r#"
    {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: expected ident at line 1 column 2"}}
    {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message is one JSON object (batches are not supported)"}}
    {"jsonrpc":"2.0","id":10,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}
    {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or an integer"}}
    {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: expected value at line 1 column 1"}}
    {"jsonrpc":"2.0","id":11,"error":{"code":-32601,"message":"Method not found: resources/list"}}
    {"jsonrpc":"2.0","id":12,"error":{"code":-32602,"message":"Unknown tool: no_such_tool"}}
    {"jsonrpc":"2.0","id":13,"error":{"code":-32602,"message":"Invalid params: \"name\" must be a string"}}
    {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message is at most 1048576 bytes"}}
    {"jsonrpc":"2.0","id":15,"result":{}}
    "#);
    let out = c.close();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "", "")
    );
    assert!(!env.has_store(), "nothing is stored for bad input");
}

#[test]
fn bad_tool_input_is_mastras_validation_object_and_nothing_is_stored() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &[]);
    c.initialize("2025-11-25", json!({}));
    let ask = c.call(1, "ask_user", json!({"question": "", "extra": 1}));
    let mode = c.call(
        2,
        "ask_user",
        json!({"question": "Q?", "selectionMode": "multi_select"}),
    );
    let approval = c.call(3, "request_approval", json!({"details": 5}));
    let plan = c.call(4, "submit_plan", json!({"path": ".ssh/id.md"}));
    let id = c.call(5, "await_answer", json!({}));
    crate::assert_shown!(env, shown(&[ask, mode, approval, plan, id]), @r#"
    {"content":[{"type":"text","text":"{\"error\":true,\"message\":\"Tool input validation failed for ask_user. Please fix the following errors and try again:\\n- root: Unrecognized key(s) in object: 'extra'\\n- question: String must contain at least 1 non-blank character\\n\\nProvided arguments: {\\n  \\\"question\\\": \\\"\\\",\\n  \\\"extra\\\": 1\\n}\",\"validationErrors\":{\"root\":[\"Unrecognized key(s) in object: 'extra'\"],\"question\":[\"String must contain at least 1 non-blank character\"]}}"}],"isError":true}
    {"content":[{"type":"text","text":"{\"content\":\"Failed to ask user: selectionMode requires options.\",\"isError\":true}"}],"isError":true}
    {"content":[{"type":"text","text":"{\"error\":true,\"message\":\"Tool input validation failed for request_approval. Please fix the following errors and try again:\\n- action: Required\\n- details: Expected string, received number\\n\\nProvided arguments: {\\n  \\\"details\\\": 5\\n}\",\"validationErrors\":{\"action\":[\"Required\"],\"details\":[\"Expected string, received number\"]}}"}],"isError":true}
    {"content":[{"type":"text","text":"{\"content\":\"Failed to submit plan: .ssh/id.md cannot be a plan: it is in a hidden folder (.ssh); a model's path may not start a name with a dot, except .mastracode/plans/\",\"isError\":true}"}],"isError":true}
    {"content":[{"type":"text","text":"{\"error\":true,\"message\":\"Tool input validation failed for await_answer. Please fix the following errors and try again:\\n- id: Required\\n\\nProvided arguments: {}\",\"validationErrors\":{\"id\":[\"Required\"]}}"}],"isError":true}
    "#);
    c.close();
    let runs = env.run(&["runs"]);
    assert_eq!(runs.stdout, "", "no run was started: {runs}");
}

/// At most 32 requests wait at once: the next is refused until one ends, and the server
/// goes on.
#[test]
fn waiting_calls_are_capped() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &["--wait", "5m"]);
    c.initialize("2025-11-25", json!({}));
    for id in 1..=32 {
        let params = json!({"name": "ask_user", "arguments": {"question": format!("Q{id}?")}});
        c.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
    }
    let refused = c.request(
        33,
        "tools/call",
        json!({"name": "ask_user", "arguments": {"question": "Q33?"}}),
    );
    crate::assert_shown!(env, refused, @r#"{"jsonrpc":"2.0","id":33,"error":{"code":-32603,"message":"32 requests wait already: call again later"}}"#);
    assert_eq!(c.request(34, "ping", json!({}))["result"], json!({}));
    // At the end of input the waiting calls end as pending: their runs stay in the store.
    let out = c.close();
    assert_eq!(out.code, 0, "{out}");
    let pending = out
        .stdout
        .lines()
        .filter(|l| l.contains("Pending: "))
        .count();
    assert_eq!(pending, 32, "{out}");
}

/// An `--on-suspend` hook that prints runs for each call's item, and what it prints never
/// reaches the protocol's stdout.
#[test]
fn a_hook_that_prints_leaves_stdout_to_the_protocol() {
    let env = Env::new();
    let hook = "cat > hook.json; echo noise";
    let mut c = Client::spawn(&env, &["--on-suspend", hook, "--wait", "0s"]);
    c.initialize("2025-11-25", json!({}));
    let r = c.call(1, "ask_user", json!({"question": "Go?"}));
    assert!(super::text(&r).starts_with("Pending:"), "{r}");
    let out = c.close();
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out}");
    let told: Value =
        serde_json::from_str(&std::fs::read_to_string(env.path("work/hook.json")).unwrap())
            .unwrap();
    assert_eq!(told["agentId"], json!("mcp"));
}
