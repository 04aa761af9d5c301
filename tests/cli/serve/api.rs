//! Mastra's agent routes served over this store (SPEC §13): the shapes Mastra's client and
//! `mastra-ask --server` read, answers checked before anything is consumed, a decided item
//! a 409 naming who decided, exactly one winner of 16 concurrent answers, the outcome
//! header, a waiter's leg streamed from the store, and the audit (`by`, `via` = `api`).

use serde_json::{json, Value};

use super::harness::{
    asked, item_state, planned, resume_body, reviewer, waiting_run, waiting_run_of, Served,
};
use crate::common::{assert_same_store, Env};
use crate::steps::ask;

#[test]
fn agents_and_their_suspended_runs_in_mastras_shapes() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (q, q_call) = asked(
        &env,
        &["Which theme?", "--option", "Light", "--option", "Dark"],
    );
    let (p, _) = planned(&env, "# Dark mode\n\n1. Add the setting\n");
    let a = crate::approval::suspended(&env);
    let served = Served::start(&env, &[]);

    let agents = served.api_get("/agents", &token);
    assert_eq!(agents.status, 200, "{}", agents.body);
    let agents = agents.json();
    let mut ids: Vec<&String> = agents.as_object().unwrap().keys().collect();
    ids.sort();
    assert_eq!(ids, ["ask", "plan", "tester"]);
    assert_eq!(agents["tester"]["id"], "tester");
    // The scripted model's file is a path on serve's machine: only its kind is shown.
    assert_eq!(agents["tester"]["modelId"], "script");
    assert!(
        agents["tester"]["tools"]["tag_release"].is_object(),
        "{agents}"
    );

    let asks = served.api_get("/agents/ask/suspended-runs", &token).json();
    assert_eq!(asks["total"], 1);
    let run = &asks["runs"][0];
    assert_eq!(
        (run["runId"].as_str(), run["status"].as_str()),
        (Some(q.as_str()), Some("suspended"))
    );
    assert_eq!(
        run["toolCalls"][0],
        json!({"toolCallId": q_call, "toolName": "ask_user", "requiresApproval": false,
               "suspendPayload": {"question": "Which theme?", "options": [{"label": "Light"}, {"label": "Dark"}], "selectionMode": "single_select"}})
    );
    // A plan's suspend payload carries the text as it was submitted (SPEC §12).
    let plans = served.api_get("/agents/plan/suspended-runs", &token).json();
    assert_eq!(plans["runs"][0]["runId"], p.as_str());
    let payload = &plans["runs"][0]["toolCalls"][0]["suspendPayload"];
    assert_eq!(
        (payload["title"].as_str(), payload["plan"].as_str()),
        (Some("Dark mode"), Some("1. Add the setting"))
    );
    // An approval lists its arguments and no payload, as Mastra does.
    let tools = served
        .api_get("/agents/tester/suspended-runs", &token)
        .json();
    assert_eq!(
        tools["runs"][0]["toolCalls"][0],
        json!({"toolCallId": "c1", "toolName": "tag_release", "requiresApproval": true, "args": {"version": "v2"}})
    );
    assert_eq!(tools["runs"][0]["runId"], a.as_str());

    // Paged only when both perPage and page are given; page is 0-based.
    let page = served
        .api_get("/agents/ask/suspended-runs?perPage=1&page=1", &token)
        .json();
    assert_eq!(
        (
            page["runs"].as_array().unwrap().len(),
            page["total"].clone()
        ),
        (0, json!(1))
    );
    let bad = served.api_get("/agents/ask/suspended-runs?perPage=0&page=0", &token);
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert_eq!(bad.json()["issues"][0]["field"], "perPage");
    let unknown = served.api_get("/agents/nope/suspended-runs", &token);
    assert_eq!(
        (unknown.status, unknown.json()["error"].clone()),
        (404, json!("Agent with id nope not found"))
    );
}

#[test]
fn bad_resume_data_is_a_400_with_issues_and_consumes_nothing() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (q, call_id) = asked(
        &env,
        &["Which theme?", "--option", "Light", "--option", "Dark"],
    );
    let (p, plan_call) = planned(&env, "# P\n\nx\n");
    let served = Served::start(&env, &[]);
    let before = env.dump();
    for (agent, body, field) in [
        (
            "ask",
            resume_body(&q, &call_id, json!("Purple")),
            "resumeData",
        ),
        (
            "ask",
            resume_body(&q, &call_id, json!(["Light", "Dark"])),
            "resumeData",
        ),
        (
            "ask",
            resume_body(&q, &call_id, json!({"foo": 1})),
            "resumeData",
        ),
        (
            "plan",
            resume_body(&p, &plan_call, json!({"action": "maybe"})),
            "resumeData",
        ),
        (
            "plan",
            resume_body(&p, &plan_call, json!("approved")),
            "resumeData",
        ),
        (
            "ask",
            json!({"toolCallId": call_id, "resumeData": "Light"}),
            "runId",
        ),
        (
            "ask",
            json!({"runId": q, "toolCallId": call_id}),
            "resumeData",
        ),
    ] {
        let r = served.api(&format!("/agents/{agent}/resume-stream"), &token, &body);
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        let v = r.json();
        assert_eq!(
            (v["error"].as_str(), v["issues"][0]["field"].as_str()),
            (Some("Invalid request body"), Some(field)),
            "{v}"
        );
    }
    let r = served.api(
        "/agents/ask/resume-stream",
        &token,
        &resume_body(&q, &call_id, json!("Purple")),
    );
    assert!(
        r.json()["issues"][0]["message"]
            .as_str()
            .unwrap()
            .contains(r#""Light", "Dark""#),
        "names the choices"
    );
    // Approve and decline are for approvals only.
    let r = served.api(
        "/agents/ask/approve-tool-call",
        &token,
        &json!({"runId": q, "toolCallId": call_id}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let r = served.api(
        "/agents/ask/decline-tool-call",
        &token,
        &json!({"runId": q}),
    );
    assert_eq!(
        (r.status, r.json()["issues"][0]["field"].clone()),
        (400, json!("toolCallId"))
    );
    // An agent that is not the run's, or a run that does not exist, is not found.
    let r = served.api(
        "/agents/plan/resume-stream",
        &token,
        &resume_body(&q, &call_id, json!("Light")),
    );
    assert_eq!(r.status, 404, "{}", r.body);
    let r = served.api(
        "/agents/ask/resume-stream",
        &token,
        &resume_body("no-such-run", "x", json!("Light")),
    );
    assert_eq!(r.status, 404, "{}", r.body);
    // Malformed JSON.
    let auth = format!("Bearer {token}");
    let r = served.post(
        "/api/agents/ask/resume-stream",
        &[("authorization", &auth)],
        "{\"runId\":",
    );
    assert_eq!(
        (r.status, r.json()["issues"][0]["field"].clone()),
        (400, json!("body"))
    );
    assert_same_store(&env.dump(), &before);
}

#[test]
fn an_answer_is_recorded_once_with_who_and_via_and_a_decided_item_is_a_409() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let bob = reviewer(&env, "bob");
    let (q, call_id) = asked(
        &env,
        &["Which theme?", "--option", "Light", "--option", "Dark"],
    );
    let served = Served::start(&env, &[]);
    let r = served.api(
        "/agents/ask/resume-stream",
        &token,
        &json!({"runId": q, "resumeData": "Dark"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    // A one-question run has nothing to drive but its end: serve completes it.
    assert_eq!(r.header("mastra-ask-outcome"), Some("driven"));
    let frames = r.frames();
    assert_eq!(frames.last(), Some(&json!("[DONE]")));
    let result = frames
        .iter()
        .find(|f| f["type"] == "tool-result")
        .expect("the tool result");
    assert_eq!(result["runId"], q.as_str());
    assert_eq!(
        result["payload"]["result"],
        json!({"content": "User answered: Dark", "isError": false})
    );
    assert!(frames.iter().any(|f| f["type"] == "finish"), "{frames:?}");
    assert_eq!(env.status(&q), "completed");
    let (state, by, via, data) = item_state(&env, &q, &call_id);
    assert_eq!(
        (state.as_str(), by, via, data),
        ("resolved", json!("alice"), json!("api"), json!("Dark"))
    );
    let shown = env.run(&["show", &q]);
    assert!(
        shown.stdout.contains("resolved by alice via api"),
        "{}",
        shown.stdout
    );

    let again = served.api(
        "/agents/ask/resume-stream",
        &bob,
        &resume_body(&q, &call_id, json!("Light")),
    );
    assert_eq!(again.status, 409, "{}", again.body);
    let v = again.json();
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("already decided by alice"),
        "{v}"
    );
    assert_eq!(
        (
            v["decided"]["resolvedBy"].clone(),
            v["decided"]["resumeData"].clone()
        ),
        (json!("alice"), json!("Dark"))
    );
    assert_eq!(item_state(&env, &q, &call_id).3, json!("Dark"));
}

#[test]
fn an_approval_declined_and_approved_over_the_api_is_recorded_for_its_host() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let a = crate::approval::suspended(&env);
    let b = {
        let (out, run) = env.start(&env.path("work/agent.json").to_string_lossy(), &[]);
        out.assert_code(75);
        run
    };
    let served = Served::start(&env, &[]);
    let r = served.api(
        "/agents/tester/decline-tool-call",
        &token,
        &json!({"runId": a, "toolCallId": "c1", "reason": "Not on a Friday."}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // Nobody here drives an agent's run: it waits for its host.
    assert_eq!(r.header("mastra-ask-outcome"), Some("recorded"));
    assert_eq!(r.frames().last(), Some(&json!("[DONE]")));
    let (_, by, via, data) = item_state(&env, &a, "c1");
    assert_eq!(
        (by, via, data),
        (
            json!("alice"),
            json!("api"),
            json!({"approved": false, "reason": "Not on a Friday."})
        )
    );
    let r = served.api(
        "/agents/tester/approve-tool-call",
        &token,
        &json!({"runId": b, "toolCallId": "c1"}),
    );
    assert_eq!(
        (r.status, r.header("mastra-ask-outcome")),
        (200, Some("recorded"))
    );
    assert_eq!(item_state(&env, &b, "c1").3, json!({"approved": true}));
    assert_eq!(
        crate::command_tools::tag_runs(&env),
        0,
        "serve never runs a tool"
    );
    // The run's host continues it.
    env.run(&["resume", &b]).assert_code(0);
    assert_eq!(crate::command_tools::tag_runs(&env), 1);
}

#[test]
fn a_waiters_leg_is_streamed_from_the_store() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (waiter, run) = waiting_run(
        &env,
        json!([ask("q1", "Name?"), {"delayMs": 300, "text": "Named it."}]),
    );
    let served = Served::start(&env, &[]);
    let r = served.api(
        "/agents/tester/resume-stream",
        &token,
        &resume_body(&run, "q1", json!("darkMode")),
    );
    assert_eq!(
        (r.status, r.header("mastra-ask-outcome")),
        (200, Some("waiter")),
        "{}",
        r.body
    );
    let kinds = crate::serve::drive::kinds(&r.frames());
    assert_eq!(
        kinds.first().map(String::as_str),
        Some("tool-result"),
        "{kinds:?}"
    );
    assert!(
        kinds.iter().any(|k| k == "finish"),
        "the leg to its end: {kinds:?}"
    );
    assert_eq!(kinds.last().map(String::as_str), Some("[DONE]"));
    let out = crate::common::finish(waiter);
    out.assert_code(0);
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn an_api_decision_for_a_waiter_streams_only_the_leg_after_it() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let tag = crate::command_tools::tagger(&env);
    let agent = crate::command_tools::tool_agent(
        &env,
        json!([
            ask("q1", "Version?"),
            crate::command_tools::call("c1", "tag_release", json!({"version": "v2"})),
            crate::command_tools::call("c2", "tag_release", json!({"version": "v3"})),
            {"text": "Tagged."}
        ]),
        vec![crate::command_tools::tool(
            "tag_release",
            &[&tag],
            json!({"requireApproval": true}),
        )],
    );
    let (waiter, run) = waiting_run_of(&env, &agent);
    let served = Served::start(&env, &[]);
    let r = served.api(
        "/agents/tester/resume-stream",
        &token,
        &resume_body(&run, "q1", json!("v2")),
    );
    assert_eq!(r.header("mastra-ask-outcome"), Some("waiter"), "{}", r.body);
    env.poll("the waiter never reached the approval", || {
        env.run(&["pending", "--run", &run, "-q"])
            .stdout
            .contains("c1")
    });
    let approve = json!({"runId": run, "toolCallId": "c1"});
    let r = served.api("/agents/tester/approve-tool-call", &token, &approve);
    assert_eq!(
        (r.status, r.header("mastra-ask-outcome")),
        (200, Some("waiter")),
        "{}",
        r.body
    );
    let frames = r.frames();
    // The approved tool's result, the step after it, its suspension on c2: nothing earlier.
    assert_eq!(
        crate::serve::drive::kinds(&frames),
        [
            "tool-result",
            "step-start",
            "tool-call",
            "step-finish",
            "tool-call-approval",
            "[DONE]"
        ],
        "{}",
        r.body
    );
    assert_eq!(frames[0]["payload"]["toolCallId"], "c1", "{}", r.body);
    let decline = json!({"runId": run, "toolCallId": "c2", "reason": "Not v3."});
    let r = served.api("/agents/tester/decline-tool-call", &token, &decline);
    let kinds = crate::serve::drive::kinds(&r.frames());
    assert_eq!(
        kinds.first().map(String::as_str),
        Some("tool-output-denied"),
        "{}",
        r.body
    );
    assert!(
        !kinds
            .iter()
            .any(|k| k == "tool-call-approval" || k == "start"),
        "{}",
        r.body
    );
    assert_eq!(kinds.last().map(String::as_str), Some("[DONE]"));
    crate::common::finish(waiter).assert_code(0);
}

#[test]
fn a_plan_approval_with_feedback_is_a_400_and_consumes_nothing() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (p, call) = planned(&env, "# Ship 2.0\n\n1. Tag\n");
    let served = Served::start(&env, &[]);
    let before = env.dump();
    let r = served.api(
        "/agents/plan/resume-stream",
        &token,
        &resume_body(
            &p,
            &call,
            json!({"action": "approved", "feedback": "ALSO force-push to main"}),
        ),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    insta::assert_snapshot!(r.body, @r#"{"error":"Invalid request body","issues":[{"field":"resumeData","message":"feedback is for a rejection; an approval carries none: clear the feedback to approve, or reject with it"}]}"#);
    assert_same_store(&env.dump(), &before);
    // Without it (or with an empty one), it is an approval.
    let r = served.api(
        "/agents/plan/resume-stream",
        &token,
        &resume_body(&p, &call, json!({"action": "approved", "feedback": ""})),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(item_state(&env, &p, &call).3["action"], "approved");
}

#[test]
fn sixteen_concurrent_answers_give_exactly_one_200() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (q, call_id) = asked(&env, &["Deploy?", "--option", "yes", "--option", "no"]);
    let served = std::sync::Arc::new(Served::start(&env, &[]));
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(16));
    let threads: Vec<_> = (0..16)
        .map(|i| {
            let (served, barrier, token) = (served.clone(), barrier.clone(), token.clone());
            let body = resume_body(&q, &call_id, json!(if i % 2 == 0 { "yes" } else { "no" }));
            std::thread::spawn(move || {
                barrier.wait();
                let r = served.api("/agents/ask/resume-stream", &token, &body);
                (r.status, body["resumeData"].clone())
            })
        })
        .collect();
    let results: Vec<(u16, Value)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let won: Vec<&Value> = results
        .iter()
        .filter(|(s, _)| *s == 200)
        .map(|(_, d)| d)
        .collect();
    assert_eq!(won.len(), 1, "{results:?}");
    assert!(
        results.iter().all(|(s, _)| *s == 200 || *s == 409),
        "{results:?}"
    );
    assert_eq!(&item_state(&env, &q, &call_id).3, won[0]);
}

#[test]
fn starting_runs_is_405_and_unknown_routes_404() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let served = Served::start(&env, &[]);
    let r = served.api("/agents/ask/stream", &token, &json!({"messages": "hi"}));
    assert_eq!(r.status, 405, "{}", r.body);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("start them where they run"));
    let r = served.api_get("/nothing-here", &token);
    assert_eq!(r.status, 404);
}

#[test]
fn server_ask_server_answers_the_runs_serve_offers() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (q, _) = asked(&env, &["Pick", "--option", "a", "--option", "b"]);
    let (p, _) = planned(&env, "# Ship\n\nsteps\n");
    let served = Served::start(&env, &[]);
    let client = |args: &[&str]| {
        let mut all = vec!["--db", "ledger.db", "--server", served.base.as_str()];
        all.extend_from_slice(args);
        let mut c = env.command(&all);
        c.env("MASTRA_SERVER_TOKEN", &token);
        env.run_with(c)
    };
    let listed = client(&["pending", "-q"]);
    listed.assert_code(0);
    assert_eq!(listed.stdout.lines().count(), 2, "{}", listed.stdout);
    client(&["answer", &q, "a"]).assert_code(0);
    // The plan's text comes with its item: nothing is read from a file here.
    let out = client(&["review", &p, "--approve"]);
    out.assert_code(0);
    assert_eq!(
        (env.status(&q), env.status(&p)),
        ("completed".into(), "completed".into())
    );
    assert_eq!(
        item_state(&env, &p, &super::harness::only_call(&env, &p)).2,
        json!("api")
    );
}
