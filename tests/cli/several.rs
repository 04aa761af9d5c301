//! Several human-input calls in one step: all suspend together, each is answered on its
//! own, and the last answer resumes the run with every result in call order.

use serde_json::{json, Value};

use crate::assert_shown;
use crate::common::Env;
use crate::steps::say;

fn two_questions(env: &Env) -> String {
    let agent = env.agent(json!([
        {"toolCalls": [
            {"id": "first", "name": "ask_user", "args": {"question": "First?"}},
            {"id": "bad", "name": "no_such_tool", "args": {}},
            {"id": "second", "name": "ask_user", "args": {"question": "Second?", "options": [{"label": "x"}, {"label": "y"}]}}
        ]},
        say("both answered")
    ]));
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    assert!(out.stderr.contains("(2 pending)"), "{}", out.stderr);
    assert!(out.stderr.contains(&format!(
        "mastra-ask answer {run} --tool-call first <answer>"
    )));
    assert!(out.stderr.contains(&format!(
        "mastra-ask answer {run} --tool-call second <label>"
    )));
    run
}

#[test]
fn both_pending_then_answered_in_any_order() {
    let env = Env::new();
    let run = two_questions(&env);
    let pending = env.run(&["pending", "-q"]);
    assert_eq!(
        pending.stdout,
        format!("{run} first question\n{run} second question\n")
    );

    let before = env.dump();
    let out = env.cmd(&["answer", &run, "hello"]).code(4);
    assert_shown!(env, out.stderr, @"error: run [RUN] has 2 pending questions; choose one with --tool-call: first, second");
    assert_eq!(env.dump(), before);

    // The second one first: recorded, the run stays suspended, nothing is emitted.
    let out = env
        .cmd(&["-o", "json", "answer", &run, "--tool-call", "second", "y"])
        .code(75);
    assert_eq!(out.stdout, "");
    assert_eq!(env.status(&run), "suspended");
    assert!(env.tool_results(&run).is_empty());
    assert_eq!(
        env.run(&["pending", "-q"]).stdout,
        format!("{run} first question\n")
    );

    // The last one resumes: every result of the step, in call order.
    let out = env
        .cmd(&["-o", "json", "answer", &run, "--tool-call", "first", "one"])
        .code(0);
    let events = out.json_lines();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds[..3], ["tool-result", "tool-error", "tool-result"]);
    assert_eq!(events[1]["payload"]["error"]["name"], "ToolNotFoundError");
    let results = env.tool_results(&run);
    let order: Vec<(&str, &Value)> = results.iter().map(|(id, r)| (id.as_str(), r)).collect();
    assert_eq!(
        order,
        [
            ("first", &json!({"content": "User answered: one", "isError": false})),
            // Mastra's error-text: the plain message.
            ("bad", &json!("Tool \"no_such_tool\" not found. Available tools: ask_user, submit_plan. Call tools by their exact name only — never add prefixes, namespaces, or colons.")),
            ("second", &json!({"content": "User answered: y", "isError": false})),
        ]
    );
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn a_reused_tool_call_id_is_replaced_consistently() {
    let env = Env::new();
    let q = |text: &str| json!({"toolCalls": [{"id": "call_0", "name": "ask_user", "args": {"question": text}}]});
    let agent = env.agent(json!([q("A?"), q("B?"), {"text": "done"}]));
    let (_, run) = env.start(&agent, &[]);
    env.run(&["answer", &run, "a"]).assert_code(75);
    let pending = env.run(&["pending", "-o", "json"]).json_lines();
    let new_id = pending[0]["toolCallId"].as_str().unwrap().to_string();
    assert_ne!(new_id, "call_0");
    assert!(new_id.starts_with("call_"));
    env.run(&["answer", &run, "--tool-call", &new_id, "b"])
        .assert_code(0);
    let messages = env.messages(&run);
    assert_eq!(messages[3]["toolCalls"][0]["id"], new_id.as_str());
    assert_eq!(messages[4]["toolCallId"], new_id.as_str());
}

/// `pending` writes items as it reads them, a run's together: each command names the
/// tool call exactly when its run has several items, whatever the runs around it have.
#[test]
fn pending_names_the_tool_call_only_in_runs_with_several_items() {
    let env = Env::new();
    let one = || {
        let agent = env.agent(json!([
            {"toolCalls": [{"id": "only", "name": "ask_user", "args": {"question": "Only?"}}]},
            say("answered")
        ]));
        env.start(&agent, &[]).1
    };
    let a = two_questions(&env);
    let b = one();
    let c = two_questions(&env);
    let d = one();
    let commands: Vec<String> = env
        .run(&["pending"])
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("    mastra-ask answer "))
        .map(str::to_string)
        .collect();
    assert_eq!(
        commands,
        [
            format!("{a} --tool-call first <answer>"),
            format!("{a} --tool-call second <label>"),
            format!("{b} <answer>"),
            format!("{c} --tool-call first <answer>"),
            format!("{c} --tool-call second <label>"),
            format!("{d} <answer>"),
        ]
    );
}
