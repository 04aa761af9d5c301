//! The client against the real Mastra server: listing, each kind of pending call answered by
//! its route and streamed to `[DONE]`, a restart between suspension and answer, the errors
//! of answering a gone or answered call, the request counter, the chunks passed on byte for
//! byte, and a stop signal that does not drop a leg.

use mastra_ask::domain::ItemKind;
use mastra_ask::exit::Exit;
use mastra_ask::remote::{
    new_run_id, Answer, Chunk, Client, Leg, LegEnd, RemoteError, ServerConfig, Start, Stop,
    StopGuard, SuspendedCall,
};
use serde_json::{json, Value};

use super::fixture::{shared, Fixture, Tap};
use mastra_ask::error::Kinded;

/// Starts a run of `agent` whose first message carries `tags`; returns its id and first leg.
fn start(client: &Client, agent: &str, tags: &str) -> (String, Leg) {
    start_with(client, agent, tags, false)
}

fn start_with(client: &Client, agent: &str, tags: &str, require_approval: bool) -> (String, Leg) {
    let run_id = new_run_id();
    let start = Start {
        run_id: run_id.clone(),
        prompt: format!("{tags} (run {run_id})"),
        require_tool_approval: require_approval,
    };
    let leg = client.start(agent, &start, |_: Chunk<'_>| {}).unwrap();
    (run_id, leg)
}

/// The one item a leg suspended on.
#[track_caller]
fn suspended_on(leg: &Leg) -> SuspendedCall {
    match &leg.end {
        LegEnd::Suspended(items) if items.len() == 1 => items[0].clone(),
        other => panic!("expected one suspension, got {other:?}"),
    }
}

/// Answers and returns the leg with its chunks as parsed JSON.
fn answer(client: &Client, item: &SuspendedCall, answer: Answer) -> (Leg, Vec<Value>) {
    let mut chunks = Vec::new();
    let leg = client
        .answer(item, &answer, |c: Chunk<'_>| chunks.push(c.value.clone()))
        .unwrap();
    (leg, chunks)
}

/// Sends an answer the server must refuse; the error.
#[track_caller]
fn refused(client: &Client, item: &SuspendedCall, answer: Answer) -> RemoteError {
    match client.answer(item, &answer, |_: Chunk<'_>| {}) {
        Err(e) => e,
        Ok(leg) => panic!("the server took {answer:?}: {leg:?}"),
    }
}

#[track_caller]
fn finished_with(leg: &Leg, text: &str) {
    assert_eq!(
        leg.end,
        LegEnd::Finished {
            reason: "stop".into(),
            text: text.into()
        }
    );
}

/// The listed items of one run.
fn listed(client: &Client, agent: &str, run_id: &str) -> Vec<SuspendedCall> {
    client
        .suspended(agent)
        .unwrap()
        .into_iter()
        .filter(|i| i.run_id == run_id)
        .collect()
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_lists_agents_and_each_kind_of_suspended_call() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let agents = client.agents().unwrap();
    let ids: Vec<_> = agents.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(
        ids,
        ["planner", "ops"],
        "keyed by agent id, not registration key"
    );
    assert_eq!(
        agents[0].tools,
        ["ask_user", "submit_plan", "choose_window"]
    );
    assert_eq!(agents[0].description, "Asks questions and submits plans.");
    assert_eq!(agents[1].tools, ["deploy"]);

    let mut started = Vec::new();
    for (agent, tags, kind, tool) in [
        (
            "planner",
            "[scenario:question]",
            ItemKind::Question,
            "ask_user",
        ),
        (
            "planner",
            "[scenario:multi]",
            ItemKind::Question,
            "ask_user",
        ),
        ("planner", "[scenario:plan]", ItemKind::Plan, "submit_plan"),
        (
            "planner",
            "[scenario:custom]",
            ItemKind::Other,
            "choose_window",
        ),
        ("ops", "[scenario:approval]", ItemKind::Approval, "deploy"),
    ] {
        let (run_id, leg) = start(&client, agent, tags);
        let from_stream = suspended_on(&leg);
        assert_eq!(
            (from_stream.kind, from_stream.tool_name.as_str()),
            (kind, tool)
        );
        assert_eq!(from_stream.run_id, run_id);
        assert!(
            from_stream.resume_schema.is_some(),
            "a chunk carries the resume schema"
        );
        started.push((agent, run_id, from_stream));
    }
    let server = format!("{}/api", fx.url());
    for (agent, run_id, from_stream) in &started {
        let items = listed(&client, agent, run_id);
        assert_eq!(items.len(), 1, "{agent} {run_id}");
        let item = &items[0];
        assert_eq!(item.tool_call_id, from_stream.tool_call_id);
        assert_eq!(item.kind, from_stream.kind);
        assert_eq!(item.agent_id, *agent);
        assert_eq!(item.server, server);
        assert_eq!(item.resume_schema, None, "the listing has no schema");
        assert!(
            item.suspended_at.parse::<jiff::Timestamp>().is_ok(),
            "{item:?}"
        );
        match item.kind {
            ItemKind::Approval => {
                assert_eq!(item.args, Some(json!({"target": "prod-db"})));
                assert_eq!(item.suspend_payload, None);
            }
            _ => {
                assert_eq!(item.args, None);
                assert_eq!(item.suspend_payload, from_stream.suspend_payload);
            }
        }
    }
    let multi = &started[1].2;
    assert_eq!(
        multi.suspend_payload.as_ref().unwrap()["options"],
        json!([{"label": "Add tests", "description": "unit and integration"},
               {"label": "Update docs"}, {"label": "Bump deps"}])
    );
    assert_eq!(
        multi.suspend_payload.as_ref().unwrap()["selectionMode"],
        "multi_select"
    );
    assert_eq!(
        started[2].2.suspend_payload,
        Some(json!({"toolId": "submit_plan", "path": "plans/dark-mode.md"}))
    );
    assert_eq!(
        started[3].2.suspend_payload,
        Some(json!({"service": "billing", "windows": ["tonight 22:00", "saturday 06:00"]}))
    );

    let e = client.suspended("nope").unwrap_err();
    assert!(
        matches!(e, RemoteError::UnknownAgent { ref agent, .. } if agent == "nope"),
        "{e:?}"
    );
    assert_eq!(e.kind().exit(), Exit::NotFound);
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_free_text_answer_finishes_the_run() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let (run_id, leg) = start(&client, "planner", "[scenario:question]");
    let item = suspended_on(&leg);
    let (leg, chunks) = answer(&client, &item, Answer::Resume(json!("darkMode")));
    finished_with(
        &leg,
        r#"Received: {"content":"User answered: darkMode","isError":false}"#,
    );
    assert_eq!(
        chunks[0]["type"], "tool-result",
        "a resumed leg begins with the result"
    );
    assert_eq!(chunks.last().unwrap()["type"], "finish");
    assert_eq!(leg.chunks, chunks.len());
    assert!(listed(&client, "planner", &run_id).is_empty());
    assert_eq!(
        fx.calls(
            "planner",
            "resume-stream",
            &run_id,
            Some(&item.tool_call_id)
        ),
        1
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_multi_select_answer_reaches_the_model() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let (_, leg) = start(&client, "planner", "[scenario:multi]");
    let item = suspended_on(&leg);
    let (leg, _) = answer(
        &client,
        &item,
        Answer::Resume(json!(["Add tests", "Update docs"])),
    );
    finished_with(
        &leg,
        r#"Received: {"content":"User answered: Add tests, Update docs","isError":false}"#,
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_plan_rejected_with_feedback_then_approved() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let root = tempfile::tempdir().unwrap();
    let rel = format!("docs/plan-{}.md", new_run_id());
    std::fs::create_dir_all(root.path().join("docs")).unwrap();
    std::fs::write(root.path().join(&rel), "# Dark mode\n\n1. Add a setting.\n").unwrap();
    let (run_id, leg) = start(&client, "planner", &format!("[scenario:plan] [plan:{rel}]"));
    let first = suspended_on(&leg);
    assert_eq!(first.kind, ItemKind::Plan);
    let path = first.suspend_payload.as_ref().unwrap()["path"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(path, rel);
    let plan = std::fs::read_to_string(root.path().join(&path)).unwrap();

    let (leg, chunks) = answer(
        &client,
        &first,
        Answer::Resume(
            json!({"action": "rejected", "feedback": "More tests, please.",
                              "path": path, "title": "Dark mode", "plan": plan}),
        ),
    );
    let result = &chunks[0]["payload"]["result"];
    assert_eq!(
        result["submittedPlan"],
        json!({"title": "Dark mode", "path": rel, "plan": plan, "feedback": "More tests, please."})
    );
    assert!(result["content"]
        .as_str()
        .unwrap()
        .contains("User feedback: More tests, please."));
    let second = suspended_on(&leg);
    assert_eq!(second.kind, ItemKind::Plan);
    assert_eq!(second.run_id, run_id);
    assert_ne!(
        second.tool_call_id, first.tool_call_id,
        "a revised plan is a new call"
    );

    std::fs::write(
        root.path().join(&rel),
        "# Dark mode\n\n1. Add a setting.\n2. Test it.\n",
    )
    .unwrap();
    let plan = std::fs::read_to_string(root.path().join(&rel)).unwrap();
    let (leg, _) = answer(
        &client,
        &second,
        Answer::Resume(
            json!({"action": "approved", "path": rel, "title": "Dark mode", "plan": plan}),
        ),
    );
    let submitted = json!({"title": "Dark mode", "path": rel, "plan": plan});
    finished_with(
        &leg,
        &format!(
            "Received: {}",
            json!({"toolId": "submit_plan",
                   "content": "Plan approved. Proceed with implementation following the approved plan.",
                   "isError": false, "submittedPlan": submitted})
        ),
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_approval_approved_and_another_declined_with_a_reason() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let (yes_run, leg) = start(&client, "ops", "[scenario:approval]");
    let yes = suspended_on(&leg);
    let (no_run, leg) = start(&client, "ops", "[scenario:approval]");
    let no = suspended_on(&leg);
    assert_eq!(
        (yes.kind, no.kind),
        (ItemKind::Approval, ItemKind::Approval)
    );

    let (leg, chunks) = answer(&client, &yes, Answer::Approve);
    finished_with(&leg, r#"Received: {"deployed":"prod-db"}"#);
    assert_eq!(
        chunks[0]["payload"]["result"],
        json!({"deployed": "prod-db"})
    );

    let reason = "Not on prod, please.";
    let (leg, chunks) = answer(
        &client,
        &no,
        Answer::Decline {
            reason: Some(reason.into()),
        },
    );
    finished_with(&leg, &format!("Received: {}", json!(reason)));
    assert_eq!(chunks[0]["type"], "tool-output-denied");
    assert_eq!(chunks[0]["payload"]["approval"]["reason"], reason);

    assert_eq!(
        fx.calls(
            "ops",
            "approve-tool-call",
            &yes_run,
            Some(&yes.tool_call_id)
        ),
        1
    );
    assert_eq!(
        fx.calls("ops", "decline-tool-call", &no_run, Some(&no.tool_call_id)),
        1
    );
    assert_eq!(
        fx.calls(
            "ops",
            "decline-tool-call",
            &yes_run,
            Some(&yes.tool_call_id)
        ),
        0
    );
    assert!(
        listed(&client, "ops", &yes_run).is_empty() && listed(&client, "ops", &no_run).is_empty()
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_custom_suspension_is_other_and_resumes_with_json() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let (_, leg) = start(&client, "planner", "[scenario:custom]");
    let item = suspended_on(&leg);
    assert_eq!(item.kind, ItemKind::Other);
    let (leg, _) = answer(
        &client,
        &item,
        Answer::Resume(json!({"window": "tonight 22:00"})),
    );
    finished_with(
        &leg,
        r#"Received: {"service":"billing","window":"tonight 22:00"}"#,
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_failing_model_ends_the_leg_with_its_error() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let mut lines = Vec::new();
    let start = Start {
        run_id: new_run_id(),
        prompt: "[scenario:boom]".into(),
        require_tool_approval: false,
    };
    let leg = client
        .start("planner", &start, |c: Chunk<'_>| {
            lines.push(c.line.to_string())
        })
        .unwrap();
    assert_eq!(
        leg.end,
        LegEnd::Failed {
            message: "the scripted model failed on purpose".into()
        }
    );
    let error = lines
        .iter()
        .find(|l| l.contains(r#""type":"error""#))
        .unwrap();
    assert!(
        error.contains("stack"),
        "the chunk itself is passed on whole"
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_require_tool_approval_approves_then_the_same_call_suspends() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let (run_id, leg) = start_with(&client, "planner", "[scenario:question]", true);
    let approval = suspended_on(&leg);
    assert_eq!(
        (approval.kind, approval.tool_name.as_str()),
        (ItemKind::Approval, "ask_user")
    );
    assert_eq!(
        listed(&client, "planner", &run_id)[0].kind,
        ItemKind::Approval
    );

    let (leg, _) = answer(&client, &approval, Answer::Approve);
    let question = suspended_on(&leg);
    assert_eq!(question.kind, ItemKind::Question);
    assert_eq!(
        question.tool_call_id, approval.tool_call_id,
        "Mastra reuses the call id"
    );
    assert_eq!(
        listed(&client, "planner", &run_id)[0].kind,
        ItemKind::Question
    );

    let (leg, _) = answer(&client, &question, Answer::Resume(json!("x")));
    finished_with(
        &leg,
        r#"Received: {"content":"User answered: x","isError":false}"#,
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_restart_between_suspension_and_answer() {
    let Some(mut fx) = Fixture::start() else {
        return;
    };
    eprintln!(
        "the Mastra server started in {} ms",
        fx.started_in.as_millis()
    );
    let client = fx.client();
    let (run_id, leg) = start(&client, "planner", "[scenario:question]");
    let item = suspended_on(&leg);
    fx.restart();
    eprintln!("and restarted in {} ms", fx.started_in.as_millis());
    let listed = listed(&client, "planner", &run_id);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].tool_call_id, item.tool_call_id);
    let (leg, _) = answer(
        &client,
        &listed[0],
        Answer::Resume(json!("after a restart")),
    );
    finished_with(
        &leg,
        r#"Received: {"content":"User answered: after a restart","isError":false}"#,
    );
    assert_eq!(
        fx.calls(
            "planner",
            "resume-stream",
            &run_id,
            Some(&item.tool_call_id)
        ),
        1
    );
    assert_eq!(
        fx.calls("planner", "stream", &run_id, None),
        0,
        "counted since the restart"
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_unknown_run_and_answered_call_are_told_apart() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let (_, leg) = start(&client, "planner", "[scenario:plan]");
    let first = suspended_on(&leg);
    let (leg, _) = answer(
        &client,
        &first,
        Answer::Resume(json!({"action": "rejected", "feedback": "no"})),
    );
    let second = suspended_on(&leg);

    let again = refused(
        &client,
        &first,
        Answer::Resume(json!({"action": "approved"})),
    );
    let RemoteError::NotSuspended { message } = &again else {
        panic!("{again:?}")
    };
    assert!(message.contains(&format!(
        "cannot resume tool call \"{}\"",
        first.tool_call_id
    )));
    assert_eq!(again.kind().exit(), Exit::NotFound);
    assert!(again.not_delivered());

    let unknown = SuspendedCall {
        run_id: new_run_id(),
        ..second.clone()
    };
    let gone = refused(
        &client,
        &unknown,
        Answer::Resume(json!({"action": "approved"})),
    );
    let RemoteError::NoSuspendedRun { message } = &gone else {
        panic!("{gone:?}")
    };
    assert!(message.contains(&format!(
        "could not find a suspended run for runId \"{}\"",
        unknown.run_id
    )));
    assert!(!message.contains("    at "), "no stack");

    // The run is still waiting on its second plan: neither mistake consumed it.
    let (leg, _) = answer(
        &client,
        &second,
        Answer::Resume(json!({"action": "approved"})),
    );
    assert!(matches!(leg.end, LegEnd::Finished { .. }), "{leg:?}");
    let finished = refused(
        &client,
        &second,
        Answer::Resume(json!({"action": "approved"})),
    );
    assert!(
        matches!(finished, RemoteError::NoSuspendedRun { .. }),
        "{finished:?}"
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_counter_counts_requests_per_route_and_call() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let (run_id, leg) = start(&client, "ops", "[scenario:approval]");
    let item = suspended_on(&leg);
    let approvals = || {
        fx.calls(
            "ops",
            "approve-tool-call",
            &run_id,
            Some(&item.tool_call_id),
        )
    };
    assert_eq!(fx.calls("ops", "stream", &run_id, None), 1);
    assert_eq!(approvals(), 0);
    let as_question = SuspendedCall {
        kind: ItemKind::Question,
        ..item.clone()
    };
    let e = refused(&client, &as_question, Answer::Approve);
    assert!(matches!(e, RemoteError::Mismatch(_)));
    assert_eq!(approvals(), 0);
    assert_eq!(
        fx.calls("ops", "resume-stream", &run_id, Some(&item.tool_call_id)),
        0
    );
    answer(&client, &item, Answer::Approve);
    assert_eq!(approvals(), 1);
    let routes = fx.requests()["routes"].clone();
    let lists = routes
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["route"] == "GET /api/agents/ops/suspended-runs");
    let before = lists.map_or(0, |r| r["count"].as_u64().unwrap());
    client.suspended("ops").unwrap();
    let after = fx.requests()["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["route"] == "GET /api/agents/ops/suspended-runs")
        .map(|r| r["count"].as_u64().unwrap())
        .unwrap();
    assert!(after > before, "{before} -> {after}");
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_chunk_lines_are_the_servers_data_payloads_byte_for_byte() {
    let Some(fx) = shared() else { return };
    let (_, leg) = start(&fx.client(), "planner", "[scenario:plan]");
    let item = suspended_on(&leg);
    let tap = Tap::new(fx.port());
    let tapped =
        Client::new(ServerConfig::new(&format!("http://127.0.0.1:{}", tap.port), None).unwrap())
            .unwrap();
    let mut lines = Vec::new();
    let leg = tapped
        .answer(
            &item,
            &Answer::Resume(json!({"action": "approved", "path": "plans/dark-mode.md",
                                   "title": "Ünïcode ✓", "plan": "# Plan\n\n\"quoted\" \\ and\ttabs\n"})),
            |c: Chunk<'_>| lines.push(c.line.to_string()),
        )
        .unwrap();
    assert!(matches!(leg.end, LegEnd::Finished { .. }));
    let on_the_wire = tap.data_payloads();
    assert!(on_the_wire.len() > 5, "{on_the_wire:?}");
    assert_eq!(lines, on_the_wire);
    assert!(lines.iter().any(|l| l.contains("Ünïcode ✓")));
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_stop_signals_while_streaming_do_not_drop_the_leg() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let (run_id, leg) = start(&client, "planner", "[scenario:question] [slow:1500]");
    let item = suspended_on(&leg);
    // SAFETY: the id of this thread, which reads the stream.
    let reader = unsafe { libc::pthread_self() } as usize;
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let signaller = std::thread::spawn(move || {
        rx.recv().unwrap();
        for sig in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: signals the reading thread, which is alive until it joins us.
            unsafe { libc::pthread_kill(reader as libc::pthread_t, sig) };
        }
    });
    let guard = StopGuard::install();
    let mut first = Some(tx);
    let mut types = Vec::new();
    let leg = client
        .answer(&item, &Answer::Resume(json!("slow")), |c: Chunk<'_>| {
            types.push(c.value["type"].as_str().unwrap_or("").to_string());
            // After the first chunk the model waits 1.5 s: the signals land mid-leg.
            if let Some(tx) = first.take() {
                tx.send(()).unwrap();
            }
        })
        .unwrap();
    signaller.join().unwrap();
    // Both arrive while the model thinks; a closure never asks to stop waiting.
    assert_eq!(guard.requested(), Some(Stop::Interrupt));
    assert_eq!(guard.counts(), (1, 1));
    drop(guard);
    finished_with(
        &leg,
        r#"Received: {"content":"User answered: slow","isError":false}"#,
    );
    assert_eq!(types.first().map(String::as_str), Some("tool-result"));
    assert!(listed(&client, "planner", &run_id).is_empty());
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_a_question_then_a_plan_in_one_run() {
    let Some(fx) = shared() else { return };
    let client = fx.client();
    let (run_id, leg) = start(&client, "planner", "[scenario:chain]");
    let question = suspended_on(&leg);
    assert_eq!(question.kind, ItemKind::Question);
    let (leg, _) = answer(&client, &question, Answer::Resume(json!("darkMode")));
    let plan = suspended_on(&leg);
    assert_eq!(
        (plan.kind, plan.run_id.as_str()),
        (ItemKind::Plan, run_id.as_str())
    );
    assert_eq!(
        listed(&client, "planner", &run_id)[0].tool_call_id,
        plan.tool_call_id
    );
    let (leg, _) = answer(
        &client,
        &plan,
        Answer::Resume(json!({"action": "approved"})),
    );
    assert!(
        matches!(leg.end, LegEnd::Finished { ref reason, .. } if reason == "stop"),
        "{leg:?}"
    );
}
