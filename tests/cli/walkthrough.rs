//! The example agent walked through end to end, each step a separate process on one store.

use serde_json::{json, Value};

use crate::common::Env;

#[test]
fn the_release_example_from_run_to_completion() {
    let env = Env::new();
    let agent = Env::example_agent();
    let cwd = Env::example_dir();

    let out = env.run(&[
        "run",
        "--agent",
        &agent,
        "--cwd",
        &cwd,
        "Prepare the next release",
    ]);
    out.assert_code(75);
    let run = env.latest_run().unwrap();
    assert_eq!(out.stdout, "");
    assert!(out
        .stderr
        .contains("call_version question: Which version are we releasing?"));
    assert!(
        out.stderr
            .contains(&format!("mastra-ask answer {run} <answer>")),
        "{}",
        out.stderr
    );

    let pending = env.run(&["pending", "-o", "json"]);
    pending.assert_code(0);
    let items = pending.json_lines();
    assert_eq!(items.len(), 1);
    let item = &items[0];
    assert_eq!(item["runId"], run.as_str());
    assert_eq!(item["toolCallId"], "call_version");
    assert_eq!(item["toolName"], "ask_user");
    assert_eq!(
        item["args"],
        json!({"question": "Which version are we releasing?"})
    );
    assert_eq!(
        item["suspendPayload"],
        json!({"question": "Which version are we releasing?"})
    );
    assert_eq!(item["agentId"], "release");
    assert_eq!(item["command"], format!("mastra-ask answer {run} <answer>"));
    assert!(item["suspendedAt"].as_str().unwrap().ends_with('Z'));

    let out = env.run(&["answer", &run, "2.0.0"]);
    out.assert_code(75);
    assert!(
        out.stderr.contains("[stable | beta | nightly]"),
        "{}",
        out.stderr
    );

    let out = env.run(&["answer", &run[..8], "beta"]);
    out.assert_code(75);
    assert!(out
        .stderr
        .contains(&format!("mastra-ask answer {run} --multi <label>...")));

    let out = env.run(&["answer", &run, "--multi", "Add tests", "Update docs"]);
    out.assert_code(75);
    assert_eq!(out.stdout, "I wrote the release plan to RELEASE_PLAN.md.\n");
    assert!(out
        .stderr
        .contains("call_plan plan: Release plan (RELEASE_PLAN.md)"));
    assert!(out
        .stderr
        .contains(&format!("mastra-ask review {run} --approve")));

    let out = env.run(&["review", &run, "--approve"]);
    out.assert_code(0);
    assert_eq!(
        out.stdout,
        "The plan is approved. Release preparation is underway: tests and docs first, then the tag and the announcement.\n"
    );
    assert_eq!(env.status(&run), "completed");

    let results = env.tool_results(&run);
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        ["call_version", "call_channel", "call_chores", "call_plan"]
    );
    assert_eq!(
        results[0].1,
        json!({"content": "User answered: 2.0.0", "isError": false})
    );
    assert_eq!(
        results[1].1,
        json!({"content": "User answered: beta", "isError": false})
    );
    let chores = env
        .messages(&run)
        .into_iter()
        .find(|m| m["toolCallId"] == "call_chores")
        .unwrap();
    assert_eq!(
        chores["content"],
        r#"{"content":"User answered: Add tests, Update docs","isError":false}"#
    );
    assert_eq!(
        results[3].1["content"],
        "Plan approved. Proceed with implementation following the approved plan."
    );
    assert_eq!(results[3].1["submittedPlan"]["title"], "Release plan");

    let pending = env.run(&["pending"]);
    pending.assert_code(0);
    assert_eq!(pending.stdout, "");
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

#[test]
fn json_events_follow_the_mastra_envelope() {
    let env = Env::new();
    let agent = env.agent(json!([
        {"toolCalls": [{"id": "q1", "name": "ask_user", "args": {"question": "Name?"}}]},
        {"text": "Hello, Ada."}
    ]));
    let (out, run) = env.start(&agent, &["-o", "json"]);
    out.assert_code(75);
    assert_eq!(out.stderr, "");
    let events = out.json_lines();
    assert_eq!(
        kinds(&events),
        [
            "start",
            "step-start",
            "tool-call",
            "step-finish",
            "tool-call-suspended"
        ]
    );
    for e in &events {
        assert_eq!(e["runId"], run.as_str());
        assert_eq!(e["from"], "AGENT");
        assert!(e["payload"].is_object());
    }
    assert_eq!(events[0]["payload"]["id"], "tester");
    let suspended = &events[4]["payload"];
    assert_eq!(suspended["toolCallId"], "q1");
    assert_eq!(suspended["toolName"], "ask_user");
    assert_eq!(suspended["suspendPayload"], json!({"question": "Name?"}));
    let schema: Value = serde_json::from_str(suspended["resumeSchema"].as_str().unwrap()).unwrap();
    assert_eq!(schema["type"], "string");

    let out = env.run(&["-o", "json", "answer", &run, "Ada"]);
    out.assert_code(0);
    let events = out.json_lines();
    assert_eq!(
        kinds(&events),
        [
            "tool-result",
            "step-start",
            "text-delta",
            "step-finish",
            "finish"
        ]
    );
    assert_eq!(
        events[0]["payload"],
        json!({"toolCallId": "q1", "toolName": "ask_user", "args": {"question": "Name?"},
               "result": {"content": "User answered: Ada", "isError": false}})
    );
    assert_eq!(events[2]["payload"]["text"], "Hello, Ada.");
    assert_eq!(
        events[4]["payload"],
        json!({"finishReason": "stop", "text": "Hello, Ada.",
               "usage": {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}})
    );

    // The stored events are the same sequence, without gaps.
    let show = env.run(&["-o", "json", "show", &run]);
    let shown = &show.json_lines()[0];
    let stored = shown["events"].as_array().unwrap();
    assert_eq!(
        kinds(stored),
        [
            "start",
            "step-start",
            "tool-call",
            "step-finish",
            "tool-call-suspended",
            "tool-result",
            "step-start",
            "text-delta",
            "step-finish",
            "finish"
        ]
    );
    assert_eq!(shown["status"], "completed");
    assert_eq!(shown["suspensions"][0]["resolvedBy"], "tester");
    assert_eq!(shown["suspensions"][0]["resolvedVia"], "flag");
}

#[test]
fn an_agent_that_only_talks_completes_at_once() {
    let env = Env::new();
    let agent = env.agent(json!([{"text": "Nothing to ask."}]));
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(0);
    assert_eq!(out.stdout, "Nothing to ask.\n");
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn the_budget_ends_a_leg_that_keeps_calling_tools() {
    let env = Env::new();
    let bad_call = json!({"toolCalls": [{"name": "ask_user", "args": {"question": ""}}]});
    let agent = env.agent(json!([bad_call, bad_call, bad_call]));
    let (out, run) = env.start(&agent, &["--max-steps", "2", "-o", "json"]);
    out.assert_code(0);
    let events = out.json_lines();
    let finish = events.last().unwrap();
    assert_eq!(finish["type"], "finish");
    assert_eq!(finish["payload"]["finishReason"], "tool-calls");
    let results = env.tool_results(&run);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].1["error"], true);
}
