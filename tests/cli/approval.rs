//! Tool approval (SPEC §11) through the real binary: approval items listed and decided by
//! `approve` / `decline`, exactly once under a race, the approved tool run once by whoever
//! drives the next leg (a waiter too, and `resume` after a driver died while the tool ran),
//! the declined one never, its reason in the next request to the model, Mastra's chunk
//! shapes, and the approval menu at a terminal.

use serde_json::{json, Value};

use crate::assert_shown;
use crate::command_tools::{
    call, event, model_text, openai, openai_agent, openai_text, script, sent_tool_messages,
    tag_runs, tagger, tool, tool_agent, tool_message,
};
use crate::common::{assert_one_line_error, assert_same_store, finish, Env};
use crate::fake_server::{FakeServer, Reply};
use crate::pty::{Pty, DOWN, ENTER, ESC};

/// Mastra's `resumeSchema` of a `tool-call-approval` chunk, as `@mastra/core` 1.71 sends it
/// (MASTRA-SERVER.md §3.1, captured from the test fixture's server).
const MASTRA_APPROVAL_SCHEMA: &str = r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"approved":{"type":"boolean","description":"Controls if the tool call is approved or not, should be true when approved and false when declined"},"reason":{"description":"Optional explanation for the decision, surfaced to the model when the tool call is declined","type":"string"}},"required":["approved"],"additionalProperties":false}"#;

/// An agent whose first step calls `tag_release` (which needs approval) as `c1`, then says
/// "done".
fn tagging_agent(env: &Env) -> String {
    crate::policy_fixture::tagging_agent(env, json!({"version": "v2"}), None)
}

/// A run whose first step calls `tag_release` (which needs approval) as `c1`, then says
/// "done"; suspended on the approval.
pub fn suspended(env: &Env) -> String {
    let agent = tagging_agent(env);
    env.suspended(&agent)
}

/// `(state, resolved_by, resolved_via, resume_data)` of the run's item `c1`.
fn decided(env: &Env, run: &str) -> (String, Value, Value, Value) {
    let show = env.show(run);
    let item = show["suspensions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["toolCallId"] == "c1")
        .unwrap()
        .clone();
    (
        item["state"].as_str().unwrap().to_string(),
        item["resolvedBy"].clone(),
        item["resolvedVia"].clone(),
        item["resumeData"].clone(),
    )
}

#[test]
fn approve_runs_the_tool_once_and_the_run_goes_on_with_its_result() {
    let env = Env::new();
    let agent = tagging_agent(&env);
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    assert_eq!(tag_runs(&env), 0, "nothing runs before approval");
    assert_shown!(env, out.stderr, @r#"
        run [RUN] is waiting for input (1 pending):
          c1 approval: tag_release {"version":"v2"}
            mastra-ask approve [RUN]
            mastra-ask decline [RUN] --reason <reason>
        "#);
    let pending = env.run(&["pending", "-q"]);
    assert_eq!(pending.stdout, format!("{run} c1 approval\n"));
    let pending = env.run(&["pending"]);
    assert_eq!(
        pending.stdout.lines().next().unwrap().split("  ").nth(1),
        Some("c1 approval: tag_release {\"version\":\"v2\"}")
    );

    let out = env.cmd(&["approve", &run, "--as", "alice"]).code(0);
    assert_eq!(out.stdout, "done\n");
    assert_eq!(tag_runs(&env), 1);
    assert_eq!(
        tool_message(&env, &run, "c1"),
        r#"{"tagged":{"version":"v2"}}"#
    );
    assert_eq!(
        decided(&env, &run),
        (
            "resolved".to_string(),
            json!("alice"),
            json!("flag"),
            json!({"approved": true})
        )
    );
    assert_eq!(
        env.event_kinds(&run),
        [
            "start",
            "step-start",
            "tool-call",
            "step-finish",
            "tool-call-approval",
            "tool-result",
            "step-start",
            "text-delta",
            "step-finish",
            "finish"
        ]
    );
    let show = env.run(&["show", &run]);
    assert!(
        show.stdout.contains(
            "  c1 approval: tag_release {\"version\":\"v2\"}\n    resolved by alice via flag at "
        ),
        "{}",
        show.stdout
    );
    assert!(
        show.stdout.contains("    tool started at "),
        "{}",
        show.stdout
    );

    // Exactly once: a second decision changes nothing.
    let before = env.dump();
    let again = env.cmd(&["approve", &run]).code(4);
    assert_shown!(env, again.stderr, @"error: run [RUN] is completed: nothing waits for approval");
    assert_same_store(&env.dump(), &before);
    assert_eq!(tag_runs(&env), 1);
}

#[test]
fn decline_never_runs_the_tool_and_the_model_receives_the_reason() {
    let env = Env::new();
    let tag = tagger(&env);
    let server = FakeServer::start(vec![
        Reply::ok(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null,
                "tool_calls": [{"id": "call_tag", "type": "function",
                    "function": {"name": "tag_release", "arguments": "{\"version\":\"v2\"}"}}]}}]
        })),
        openai_text("Understood, not tagging."),
    ]);
    let agent = openai_agent(
        &env,
        vec![tool(
            "tag_release",
            &[&tag],
            json!({"requireApproval": true}),
        )],
    );
    let out = env.run_with(openai(&env, &server, &["run", "--agent", &agent, "Tag it"]));
    out.assert_code(75);
    let run = env.latest_run().unwrap();
    let out = env.run_with(openai(
        &env,
        &server,
        &["decline", &run, "--reason", "Not on a Friday."],
    ));
    out.assert_code(0);
    assert_eq!(out.stdout, "Understood, not tagging.\n");
    assert_eq!(tag_runs(&env), 0);
    assert_eq!(
        sent_tool_messages(&server, 1),
        [json!({"role": "tool", "tool_call_id": "call_tag", "content": "Not on a Friday."})]
    );
    assert_eq!(
        event(&env, &run, "tool-output-denied"),
        json!({"toolCallId": "call_tag", "toolName": "tag_release", "args": {"version": "v2"},
               "approval": {"id": "call_tag", "approved": false, "reason": "Not on a Friday."}})
    );
    assert!(env.event_kinds(&run).iter().all(|k| k != "tool-result"));
}

#[test]
fn a_decline_without_a_reason_gives_mastras_default() {
    let env = Env::new();
    let run = suspended(&env);
    env.run(&["decline", &run]).assert_code(0);
    assert_eq!(tag_runs(&env), 0);
    assert_eq!(
        tool_message(&env, &run, "c1"),
        "Tool call was not approved by the user"
    );
    assert_eq!(
        decided(&env, &run).3,
        json!({"approved": false}),
        "the stored decision"
    );
}

#[test]
fn the_json_decision_must_agree_with_the_verb_and_wrong_commands_are_named() {
    let env = Env::new();
    let run = suspended(&env);
    let before = env.dump();
    let refused = [
        (
            vec!["approve", &run, "--json", r#"{"approved":false}"#],
            2,
            "--json says {\"approved\": false}, but the command is approve",
        ),
        (
            vec!["decline", &run, "--json", r#"{"approved":true}"#],
            2,
            "--json says {\"approved\": true}, but the command is decline",
        ),
        (
            vec!["approve", &run, "--json", r#"{"approved":"yes"}"#],
            2,
            "--json: \"approved\" must be true or false",
        ),
        (
            vec!["decline", &run, "--reason", " "],
            2,
            "the reason is empty",
        ),
        (
            vec!["answer", &run, "yes"],
            2,
            &format!("tool call c1 of run {run} is an approval, not a question"),
        ),
        (
            vec!["review", &run, "--approve"],
            2,
            &format!("tool call c1 of run {run} is an approval, not a plan"),
        ),
        (
            vec!["approve", &run, "--tool-call", "nope"],
            3,
            "has no tool call nope",
        ),
    ];
    for (args, code, needle) in refused {
        let out = env.run(&args);
        out.assert_code(code);
        assert_one_line_error(&out, needle);
    }
    let out = env.run(&["answer", &run, "yes"]);
    assert_shown!(env, out.stderr, @"
        error: tool call c1 of run [RUN] is an approval, not a question
        hint: use: mastra-ask approve [RUN], or mastra-ask decline [RUN]
        ");
    assert_same_store(&env.dump(), &before);
    // RUN is required.
    env.cmd(&["approve"]).code(2);
    // --json that agrees is recorded as json.
    env.run(&[
        "decline",
        &run,
        "--json",
        r#"{"approved":false,"reason":"Later."}"#,
    ])
    .assert_code(0);
    assert_eq!(
        decided(&env, &run),
        (
            "resolved".into(),
            json!("tester"),
            json!("json"),
            json!({"approved": false, "reason": "Later."})
        )
    );
    assert_eq!(tool_message(&env, &run, "c1"), "Later.");
    // Approving a question names `answer`.
    let question = env.agent(json!([
        {"toolCalls": [{"id": "q", "name": "ask_user", "args": {"question": "Q?"}}]}
    ]));
    let (_, asked) = env.start(&question, &[]);
    let out = env.cmd(&["approve", &asked]).code(2);
    assert_shown!(env, out.stderr, @"
        error: tool call q of run [RUN] is a question, not an approval
        hint: use: mastra-ask answer [RUN]
        ");
    assert_shown!(env, out.stderr, @"
        error: tool call q of run [RUN] is a question, not an approval
        hint: use: mastra-ask answer [RUN]
        ");
}

#[test]
fn eight_processes_race_to_decide_one_approval_and_the_tool_runs_at_most_once() {
    let env = Env::new();
    let run = suspended(&env);
    let children: Vec<_> = (0..8usize)
        .map(|i| {
            let who = format!("p{i}");
            if i.is_multiple_of(2) {
                env.spawn(&["approve", &run, "--as", &who])
            } else {
                env.spawn(&[
                    "decline",
                    &run,
                    "--as",
                    &who,
                    "--reason",
                    &format!("no {i}"),
                ])
            }
        })
        .collect();
    let outs: Vec<_> = children.into_iter().map(finish).collect();
    let winners: Vec<_> = outs.iter().filter(|o| o.code == 0).collect();
    assert_eq!(winners.len(), 1, "{outs:#?}");
    assert_eq!(outs.iter().filter(|o| o.code == 4).count(), 7, "{outs:#?}");
    let (state, by, _, data) = decided(&env, &run);
    assert_eq!(state, "resolved");
    let n: usize = by.as_str().unwrap()[1..].parse().unwrap();
    let approved = n.is_multiple_of(2);
    assert_eq!(data["approved"], approved);
    assert_eq!(tag_runs(&env), usize::from(approved));
    assert_eq!(env.status(&run), "completed");
    let results: Vec<String> = env
        .messages(&run)
        .into_iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    let expected = if approved {
        r#"{"tagged":{"version":"v2"}}"#.to_string()
    } else {
        format!("no {n}")
    };
    assert_eq!(results, [expected]);
}

#[test]
fn run_require_approval_makes_every_command_tool_wait_beside_questions() {
    let env = Env::new();
    let tag = tagger(&env);
    let agent = tool_agent(
        &env,
        json!([
            {"toolCalls": [
                {"id": "q", "name": "ask_user", "args": {"question": "Which version?"}},
                {"id": "c1", "name": "tag_release", "args": {"version": "v2"}}
            ]},
            {"text": "done"}
        ]),
        vec![tool("tag_release", &[&tag], json!({}))],
    );
    let (out, run) = env.start(&agent, &["--require-approval"]);
    out.assert_code(75);
    assert_eq!(
        env.run(&["pending", "-q"]).stdout,
        format!("{run} q question\n{run} c1 approval\n")
    );
    let out = env.cmd(&["approve", &run]).code(75);
    assert!(
        out.stderr.starts_with(
            "recorded; 1 more item(s) of this step must be resolved before the run continues\n"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(tag_runs(&env), 0, "the tool runs when the run goes on");
    env.cmd(&["answer", &run, "v2"]).code(0);
    assert_eq!(tag_runs(&env), 1);
    let results: Vec<String> = env
        .tool_results(&run)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(results, ["q", "c1"], "results in call order");
}

#[test]
fn a_waiter_runs_the_approved_tool() {
    let env = Env::new();
    let agent = tagging_agent(&env);
    let waiter = env.spawn(&["run", "--agent", &agent, "--wait", "Go"]);
    let run = env.first_pending();
    let out = env.cmd(&["approve", &run]).code(0);
    assert_eq!(
        out.stderr,
        "answer recorded; the waiting process continues the run\n"
    );
    let waited = finish(waiter);
    waited.assert_code(0);
    assert_eq!(tag_runs(&env), 1);
    assert_eq!(env.status(&run), "completed");
}

/// Lines of `work/tool.log`.
fn tool_log(env: &Env) -> Vec<String> {
    std::fs::read_to_string(env.path("work/tool.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_driver_killed_while_the_tool_runs_is_resumed_without_a_second_copy() {
    let env = Env::new();
    // Logs its start, holds until the test releases it, logs its end.
    let slow = script(
        &env,
        "slow.sh",
        "cat > /dev/null\necho \"start $$\" >> tool.log\nwhile [ ! -e release ]; do sleep 0.05; done\necho \"end $$\" >> tool.log\necho '{\"ok\":true}'\n",
    );
    let agent = tool_agent(
        &env,
        json!([call("c1", "deploy", json!({})), {"text": "done"}]),
        vec![tool("deploy", &[&slow], json!({"requireApproval": true}))],
    );
    let run = env.suspended(&agent);
    let mut driver = env.spawn(&["approve", &run]);
    env.poll("the tool's start never happened", || {
        tool_log(&env).len() == 1
    });
    let first: String = tool_log(&env)[0].trim_start_matches("start ").to_string();
    env.poll("the recorded process group never happened", || {
        env.value("SELECT tool_pgid FROM calls WHERE call_id = 'c1'", &[])
            .is_some()
    });
    assert_eq!(
        env.value("SELECT tool_pgid FROM calls WHERE call_id = 'c1'", &[]),
        Some(first.clone())
    );
    driver.kill().unwrap(); // SIGKILL while the tool runs
    driver.wait().unwrap();

    let resumer = env.spawn(&["resume", &run]);
    let pid = resumer.id().to_string();
    env.poll("resume taking the lease never happened", || {
        env.value("SELECT lease_pid FROM runs WHERE id = ?1", &[&run]) == Some(pid.clone())
    });
    // The first copy still runs: no second one has started.
    assert_eq!(tool_log(&env), [format!("start {first}")]);
    env.write("work/release", "");
    let out = finish(resumer);
    out.assert_code(0);
    assert_eq!(out.stdout, "done\n");
    let log = tool_log(&env);
    assert_eq!(log.len(), 4, "{log:?}");
    assert_eq!(log[..2], [format!("start {first}"), format!("end {first}")]);
    assert!(
        log[2].starts_with("start ") && log[3].starts_with("end "),
        "{log:?}"
    );
    assert_ne!(log[2], log[0], "a second copy, after the first ended");
    // The result is stored once.
    assert_eq!(tool_message(&env, &run, "c1"), r#"{"ok":true}"#);
    let kinds = env.event_kinds(&run);
    assert_eq!(kinds.iter().filter(|k| *k == "tool-result").count(), 1);
    assert_eq!(
        env.messages(&run)
            .iter()
            .filter(|m| m["role"] == "tool")
            .count(),
        1
    );
}

/// Keys of a JSON object, sorted.
fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

#[test]
fn pending_and_the_event_stream_have_mastras_chunk_shapes() {
    let env = Env::new();
    let agent = tagging_agent(&env);
    let out = env
        .cmd(&["-o", "json", "run", "--agent", &agent, "Go"])
        .code(75);
    let run = env.latest_run().unwrap();
    let lines = out.json_lines();
    let approval = lines.last().unwrap();
    // Mastra: {"type":"tool-call-approval","runId","from":"AGENT","payload":{toolCallId,
    // toolName, args, resumeSchema}}, the leg's last chunk.
    assert_eq!(keys(approval), ["from", "payload", "runId", "type"]);
    assert_eq!(approval["type"], "tool-call-approval");
    assert_eq!(approval["from"], "AGENT");
    assert_eq!(approval["runId"], run);
    assert_eq!(
        approval["payload"],
        json!({"toolCallId": "c1", "toolName": "tag_release", "args": {"version": "v2"},
               "resumeSchema": MASTRA_APPROVAL_SCHEMA})
    );
    assert_eq!(
        keys(&approval["payload"]),
        ["args", "resumeSchema", "toolCallId", "toolName"]
    );

    let pending = env.run(&["-o", "json", "pending"]);
    let item = &pending.json_lines()[0];
    assert_eq!(item["runId"], run);
    assert_eq!(item["toolCallId"], "c1");
    assert_eq!(item["toolName"], "tag_release");
    assert_eq!(item["kind"], "approval");
    assert_eq!(item["args"], json!({"version": "v2"}));
    assert_eq!(
        item["suspendPayload"],
        Value::Null,
        "Mastra lists approvals without one"
    );
    assert_eq!(item["agentId"], "tester");
    let commands: Vec<String> = item["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| env.without_store_flag(c))
        .collect();
    assert_eq!(
        commands,
        [
            format!("mastra-ask approve {run}"),
            format!("mastra-ask decline {run} --reason <reason>")
        ]
    );
    assert_eq!(item["command"], item["commands"][0]);

    let out = env
        .cmd(&[
            "-o",
            "json",
            "decline",
            &run,
            "--reason",
            "Not on prod, please.",
        ])
        .code(0);
    let lines = out.json_lines();
    // A resumed leg begins with the denial (no `start`).
    let denied = &lines[0];
    assert_eq!(keys(denied), ["from", "payload", "runId", "type"]);
    assert_eq!(
        denied["payload"],
        json!({"toolCallId": "c1", "toolName": "tag_release", "args": {"version": "v2"},
               "approval": {"id": "c1", "approved": false, "reason": "Not on prod, please."}})
    );
    assert_eq!(denied["type"], "tool-output-denied");
    assert!(lines.iter().all(|l| l["type"] != "start"));
    assert_eq!(lines.last().unwrap()["type"], "finish");
}

#[test]
fn at_a_terminal_the_approval_menu_starts_on_decline_and_shows_the_arguments_escaped() {
    let env = Env::new();
    let args = json!({"version": "v2\u{1b}[31m\u{202e}x"});
    let agent = crate::policy_fixture::tagging_agent(&env, args, None);
    let mut pty = Pty::spawn(&env, &["run", "--agent", &agent, "Tag it"], &[]);
    pty.expect("Tool call c1 wants to run tag_release with:");
    pty.expect(r#""version": "v2\u001b[31m\u{202e}x""#);
    pty.expect("> Decline (the tool does not run)");
    // Enter at once, out of habit.
    pty.send(ENTER);
    pty.expect("done");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    assert!(
        !text.contains('\u{202e}'),
        "a raw bidi override reached the terminal"
    );
    let run = env.latest_run().unwrap();
    assert_eq!(tag_runs(&env), 0, "the tool never ran");
    assert_eq!(
        decided(&env, &run),
        (
            "resolved".into(),
            json!("tester"),
            json!("prompt"),
            json!({"approved": false})
        )
    );
    assert_eq!(
        model_text(&tool_message(&env, &run, "c1")),
        "Tool call was not approved by the user"
    );
}

#[test]
fn an_approval_only_recorded_is_run_by_resume() {
    let env = Env::new();
    let run = suspended(&env);
    let out = env.cmd(&["approve", &run, "--no-resume"]).code(0);
    assert_eq!(
        out.stderr,
        format!("recorded; a waiting process, or `mastra-ask resume {run}`, continues the run\n")
    );
    assert_eq!(tag_runs(&env), 0, "recording runs nothing");
    assert_eq!(env.status(&run), "running");
    let out = env.cmd(&["resume", &run]).code(0);
    assert_eq!(out.stdout, "done\n");
    assert_eq!(tag_runs(&env), 1);
    assert_eq!(
        tool_message(&env, &run, "c1"),
        r#"{"tagged":{"version":"v2"}}"#
    );
}

/// Leaving the approval menu is one exit code, whichever way (SPEC §5.2: 130, nothing
/// recorded): Esc and "Leave it for later" alike, each with a hint whose commands paste
/// (`approve RUN`, `decline RUN`) and the one that reopens the menu, `answer RUN`, which
/// then decides it.
#[test]
fn leaving_the_approval_menu_exits_130_either_way_and_answer_reopens_it() {
    let env = Env::new();
    let run = suspended(&env);
    let hint = format!(
        "hint: decide it later with: mastra-ask approve {run}, or mastra-ask decline {run}; or reopen this menu with: mastra-ask answer {run}"
    );
    for keys in [ESC.to_string(), format!("{DOWN}{DOWN}{DOWN}{ENTER}")] {
        let mut pty = Pty::spawn(&env, &["answer", &run], &[]);
        pty.expect("> Decline (the tool does not run)");
        pty.send(&keys);
        pty.expect(&hint);
        let (code, text) = pty.finish();
        assert_eq!(code, 130, "{keys:?}: {text}");
        assert_eq!(env.status(&run), "suspended");
        assert_eq!(tag_runs(&env), 0);
    }
    let mut pty = Pty::spawn(&env, &["answer", &run], &[]);
    pty.expect("> Decline (the tool does not run)");
    pty.send(ENTER);
    pty.expect("done");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    assert_eq!(decided(&env, &run).3, json!({"approved": false}));
    assert_eq!(tag_runs(&env), 0, "declined: the tool never ran");
}
