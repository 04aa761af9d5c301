//! The agent's own command tools (SPEC §11) through the real binary: a program's result
//! reaching the model (scripted and fake-server models), its environment, its input checked
//! against the schema, and its failures (a non-zero exit, a timeout that ends the whole
//! process group, too much output) as tool errors with the tail of its stderr.

use serde_json::{json, Value};

use crate::assert_shown;
use crate::common::{alive, assert_one_line_error, Env};
use crate::fake_server::{FakeServer, Reply};

/// Writes an executable shell script `work/NAME` (the run's working directory and the
/// agent file's directory) and returns NAME.
pub fn script(env: &Env, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = env.write(&format!("work/{name}"), &format!("#!/bin/sh\n{body}"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    name.to_string()
}

/// A command tool named `name` running `command`, with `extra` keys merged in.
pub fn tool(name: &str, command: &[&str], extra: Value) -> Value {
    let mut t = json!({
        "name": name,
        "description": format!("The {name} tool."),
        "inputSchema": {
            "type": "object",
            "properties": {"version": {"type": "string"}},
            "additionalProperties": false
        },
        "command": command,
    });
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        t[k] = v;
    }
    t
}

/// A scripted agent with these steps and, beside the built-ins, these command tools.
pub fn tool_agent(env: &Env, steps: Value, tools: Vec<Value>) -> String {
    env.write("work/script.json", &json!({ "steps": steps }).to_string());
    let mut all = vec![json!("ask_user"), json!("submit_plan")];
    all.extend(tools);
    let agent = json!({
        "id": "tester",
        "instructions": "Test agent.",
        "model": "script:script.json",
        "tools": all,
    });
    env.write("work/agent.json", &agent.to_string())
        .to_string_lossy()
        .into_owned()
}

/// A model step that calls `name` with `args` as tool call `id`.
pub fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"toolCalls": [{"id": id, "name": name, "args": args}]})
}

/// The tool that records each run of it (its stdin, a line in `work/tagged.log`) and
/// answers `{"tagged": ARGS}`.
pub fn tagger(env: &Env) -> String {
    script(
        env,
        "tag.sh",
        "input=$(cat)\necho \"$input\" >> tagged.log\nprintf '{\"tagged\":%s}\\n' \"$input\"\n",
    )
}

/// The text of an error result as the model reads it (a plain message, or the `content` of
/// an error object).
pub fn model_text(content: &str) -> String {
    serde_json::from_str::<Value>(content)
        .ok()
        .and_then(|v| v["content"].as_str().map(str::to_string))
        .unwrap_or_else(|| content.to_string())
}

/// How many times the tagger ran.
pub fn tag_runs(env: &Env) -> usize {
    std::fs::read_to_string(env.path("work/tagged.log"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

/// The payload of the run's first event of `kind`.
pub fn event(env: &Env, run: &str, kind: &str) -> Value {
    env.show(run)["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} event"))["payload"]
        .clone()
}

/// The content of the tool message for `call` (as the model receives it).
pub fn tool_message(env: &Env, run: &str, call: &str) -> String {
    env.messages(run)
        .into_iter()
        .find(|m| m["role"] == "tool" && m["toolCallId"] == call)
        .unwrap_or_else(|| panic!("no tool message for {call}"))["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_command_tools_output_is_its_result_and_it_gets_only_its_environment() {
    let env = Env::new();
    let probe = script(
        &env,
        "probe.sh",
        "input=$(cat)\nprintf '{\"input\":%s,\"run\":\"%s\",\"call\":\"%s\",\"cwd\":\"%s\",\"key\":\"%s\",\"db\":\"%s\"}\\n' \"$input\" \"$MASTRA_ASK_RUN_ID\" \"$MASTRA_ASK_TOOL_CALL_ID\" \"$(pwd)\" \"${OPENAI_API_KEY-unset}\" \"${MASTRA_ASK_DB-unset}\"\n",
    );
    let hello = script(&env, "hello.sh", "echo 'hello, world'\n");
    let agent = tool_agent(
        &env,
        json!([
            {"toolCalls": [
                {"id": "c1", "name": "probe", "args": {"version": "v2"}},
                {"id": "c2", "name": "hello", "args": {}}
            ]},
            {"text": "done"}
        ]),
        vec![
            tool("probe", &[&probe], json!({})),
            tool("hello", &[&hello], json!({})),
        ],
    );
    let mut c = env.command(&["run", "--agent", &agent, "Go"]);
    c.env("OPENAI_API_KEY", "sk-secret")
        .env("MASTRA_ASK_USER", "x");
    let out = env.run_with(c);
    out.assert_code(0);
    assert_eq!(out.stdout, "done\n");
    let run = env.latest_run().unwrap();
    let cwd = env.work().canonicalize().unwrap();
    let expected = json!({
        "input": {"version": "v2"}, "run": run, "call": "c1",
        "cwd": cwd.to_str().unwrap(), "key": "unset", "db": "unset"
    });
    assert_eq!(
        serde_json::from_str::<Value>(&tool_message(&env, &run, "c1")).unwrap(),
        expected
    );
    // Text that is not JSON reaches the model as it is.
    assert_eq!(tool_message(&env, &run, "c2"), "hello, world");
    let result = event(&env, &run, "tool-result");
    assert_eq!(
        result,
        json!({"toolCallId": "c1", "toolName": "probe", "args": {"version": "v2"}, "result": expected})
    );
    assert_eq!(
        env.event_kinds(&run),
        [
            "start",
            "step-start",
            "tool-call",
            "tool-call",
            "tool-result",
            "tool-result",
            "step-finish",
            "step-start",
            "text-delta",
            "step-finish",
            "finish"
        ]
    );
    // The stored agent keeps the program as an absolute path.
    let agent = &env.show(&run)["agent"];
    assert_eq!(
        agent["tools"][2]["command"][0],
        env.work().join("probe.sh").to_str().unwrap()
    );
}

/// A non-streamed OpenAI reply calling `name` with `args`.
fn openai_call(id: &str, name: &str, args: Value) -> Reply {
    Reply::ok(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": id, "type": "function",
                            "function": {"name": name, "arguments": args.to_string()}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    }))
}

/// A non-streamed OpenAI text reply.
pub fn openai_text(text: &str) -> Reply {
    Reply::ok(json!({
        "id": "chatcmpl-2", "object": "chat.completion", "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    }))
}

/// An agent on the OpenAI model of `server`, with these command tools.
pub fn openai_agent(env: &Env, tools: Vec<Value>) -> String {
    let mut all = vec![json!("ask_user")];
    all.extend(tools);
    let agent = json!({
        "id": "tester", "instructions": "Test agent.", "model": "openai/gpt-4o-mini",
        "tools": all,
    });
    env.write("work/agent.json", &agent.to_string())
        .to_string_lossy()
        .into_owned()
}

/// The binary with an OpenAI key and `server` as its base URL.
pub fn openai(env: &Env, server: &FakeServer, args: &[&str]) -> std::process::Command {
    let mut c = env.command(args);
    c.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.base_url())
        .env("MASTRA_ASK_STREAM", "0")
        .env("MASTRA_ASK_RETRY_DELAY", "1ms");
    c
}

/// The tool messages of request `n` to the fake server.
pub fn sent_tool_messages(server: &FakeServer, n: usize) -> Vec<Value> {
    server.requests()[n].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect()
}

#[test]
fn a_real_model_is_offered_the_tool_and_receives_its_result() {
    let env = Env::new();
    let tag = tagger(&env);
    let server = FakeServer::start(vec![
        openai_call("call_abc", "tag_release", json!({"version": "v2.0.0"})),
        openai_text("Tagged."),
    ]);
    let agent = openai_agent(&env, vec![tool("tag_release", &[&tag], json!({}))]);
    let out = env.run_with(openai(&env, &server, &["run", "--agent", &agent, "Tag it"]));
    out.assert_code(0);
    assert_eq!(out.stdout, "Tagged.\n");
    let first = &server.requests()[0].body;
    assert_eq!(
        first["tools"][1],
        json!({"type": "function", "function": {
            "name": "tag_release",
            "description": "The tag_release tool.",
            "parameters": {"type": "object", "properties": {"version": {"type": "string"}},
                           "additionalProperties": false}
        }})
    );
    assert_eq!(
        sent_tool_messages(&server, 1),
        [
            json!({"role": "tool", "tool_call_id": "call_abc", "content": "{\"tagged\":{\"version\":\"v2.0.0\"}}"})
        ]
    );
    assert_eq!(tag_runs(&env), 1);
}

#[test]
fn arguments_that_do_not_match_the_schema_return_the_validation_object_and_nothing_runs() {
    let env = Env::new();
    let tag = tagger(&env);
    let agent = tool_agent(
        &env,
        json!([call("c1", "tag_release", json!({"version": 2, "force": true})), {"text": "ok"}]),
        vec![tool(
            "tag_release",
            &[&tag],
            json!({"requireApproval": true}),
        )],
    );
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(0);
    assert_eq!(tag_runs(&env), 0);
    let result: Value = serde_json::from_str(&tool_message(&env, &run, "c1")).unwrap();
    assert_eq!(
        result,
        json!({
            "error": true,
            "message": "Tool input validation failed for tag_release. Please fix the following errors and try again:\n- version: Expected string, received number\n- root: Unrecognized key(s) in object: 'force'\n\nProvided arguments: {\n  \"version\": 2,\n  \"force\": true\n}",
            "validationErrors": {
                "version": ["Expected string, received number"],
                "root": ["Unrecognized key(s) in object: 'force'"]
            }
        })
    );
    // Invalid input never becomes an approval item.
    assert_eq!(env.count("SELECT count(*) FROM calls", &[]), 0);
    assert_eq!(event(&env, &run, "tool-result")["result"], result);
}

#[test]
fn a_failing_program_is_a_tool_error_with_the_tail_of_its_stderr() {
    let env = Env::new();
    let fail = script(
        &env,
        "fail.sh",
        "cat > /dev/null\necho 'warming up' >&2\necho 'fatal: tag v2 exists' >&2\nexit 3\n",
    );
    let agent = tool_agent(
        &env,
        json!([call("c1", "tag_release", json!({"version": "v2"})), {"text": "gave up"}]),
        vec![tool("tag_release", &[&fail], json!({}))],
    );
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(0);
    let message = "Tool \"tag_release\" exited with status 3; its stderr ends with:\nwarming up\nfatal: tag v2 exists";
    assert_eq!(
        event(&env, &run, "tool-error"),
        json!({"toolCallId": "c1", "toolName": "tag_release", "args": {"version": "v2"},
               "error": {"name": "ToolExecutionError", "message": message}})
    );
    assert_eq!(model_text(&tool_message(&env, &run, "c1")), message);
    // Shown on stderr as it happens (SPEC §5.3).
    assert_shown!(env, out.stderr, @r#"warning: tool call c1 (tag_release) failed: Tool "tag_release" exited with status 3; its stderr ends with:\nwarming up\nfatal: tag v2 exists"#);
}

#[test]
fn a_timeout_ends_the_whole_process_group() {
    let env = Env::new();
    let slow = script(
        &env,
        "slow.sh",
        "sleep 300 &\necho $! > child.pid\necho 'started' >&2\nwait\n",
    );
    let agent = tool_agent(
        &env,
        json!([call("c1", "slow", json!({})), {"text": "after"}]),
        vec![tool("slow", &[&slow], json!({"timeoutMs": 1500}))],
    );
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(0);
    let error = event(&env, &run, "tool-error");
    assert_eq!(
        error["error"]["message"],
        "Tool \"slow\" did not finish within 1500 ms; its process group was ended; its stderr ends with:\nstarted"
    );
    let child: i32 = std::fs::read_to_string(env.path("work/child.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    env.poll(&format!("the tool's child {child} lives on"), || {
        !alive(child)
    });
}

#[test]
fn more_than_a_mebibyte_of_output_is_a_tool_error_and_the_program_is_stopped() {
    let env = Env::new();
    let flood = script(
        &env,
        "flood.sh",
        "exec yes 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'\n",
    );
    let agent = tool_agent(
        &env,
        json!([call("c1", "flood", json!({})), {"text": "after"}]),
        vec![tool("flood", &[&flood], json!({"timeoutMs": 600000}))],
    );
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(0);
    assert_eq!(
        event(&env, &run, "tool-error")["error"]["message"],
        "Tool \"flood\" printed more than 1 MiB on stdout; it was stopped"
    );
}

#[test]
fn bad_command_tools_in_an_agent_file_are_refused_before_anything_is_stored() {
    let env = Env::new();
    let tag = tagger(&env);
    let cases = [
        (
            vec![tool("ask_user", &[&tag], json!({}))],
            "command tool \"ask_user\" has the name of a built-in tool",
        ),
        (
            vec![tool("t", &["no-such-program-x"], json!({}))],
            "command tool \"t\": program no-such-program-x not found (looked in",
        ),
        (
            vec![tool(
                "t",
                &[&tag],
                json!({"inputSchema": {"type": "array"}}),
            )],
            "inputSchema must be a JSON Schema of an object",
        ),
        (
            vec![tool("t", &[&tag], json!({"timeoutMs": 0}))],
            "timeoutMs must be between 1 and 86400000",
        ),
        (
            vec![tool("t", &[&tag], json!({"shell": true}))],
            "command tool \"t\": unknown field `shell`",
        ),
        (
            vec![tool("t", &[&tag], json!({})), tool("t", &[&tag], json!({}))],
            "tool \"t\" is listed twice",
        ),
    ];
    for (tools, needle) in cases {
        let agent = tool_agent(&env, json!([{"text": "x"}]), tools);
        let out = env.cmd(&["run", "--agent", &agent, "Go"]).code(2);
        assert_one_line_error(&out, needle);
        assert!(!env.has_store(), "{needle}");
    }
}

#[test]
fn tool_write_file_writes_beneath_the_current_directory_only() {
    let env = Env::new();
    std::fs::create_dir(env.path("work/notes")).unwrap();
    let out = env.run_stdin(
        &["tool", "write_file"],
        r##"{"path": "notes/../PLAN.md", "content": "# Plan\n"}"##,
    );
    assert_shown!(env, out, @r#"
    [exit 0]
    --- stdout
    {"path":"notes/../PLAN.md","bytes":7}
    "#);
    assert_eq!(
        std::fs::read_to_string(env.path("work/PLAN.md")).unwrap(),
        "# Plan\n"
    );
    let out = env.run_stdin(
        &["tool", "write_file"],
        r#"{"path": "../escape.md", "content": "x"}"#,
    );
    assert_shown!(env, out, @"
    [exit 2]
    --- stderr
    error: cannot write ../escape.md: the path leaves the working directory
    ");
    assert!(!env.path("escape.md").exists());
    let out = env
        .cmd(&[
            "tool",
            "write_file",
            "--json",
            r#"{"path": "requirements.txt", "content": "x"}"#,
        ])
        .out();
    assert_shown!(env, out, @"
    [exit 2]
    --- stderr
    error: cannot write requirements.txt: it is not a Markdown file (.md or .markdown)
    ");
    assert!(!env.path("work/requirements.txt").exists());
    let out = env
        .cmd(&["tool", "write_file", "--json", r#"{"path": "a.md"}"#])
        .out();
    assert_shown!(env, out, @r#"
    [exit 2]
    --- stderr
    error: Tool input validation failed for write_file. Please fix the following errors and try again:\n- content: Required\n\nProvided arguments: {\n  "path": "a.md"\n}
    "#);
}
