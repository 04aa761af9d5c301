//! `serve --drive` (SPEC §13, §5.1): an answer to a run this OS user started on this host
//! is followed by its leg, driven by serve in the run's working directory with serve's
//! environment and streamed (`Mastra-Ask-Outcome: driven`); a run of another host or user
//! is only recorded and the stream says who continues it; a leg goes on when its client
//! goes away, and SIGTERM lets it finish. Serve's own hook runs once for each item its
//! legs create, with the item's link.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};

use super::harness::{item_state, resume_body, reviewer, Served};
use crate::command_tools::{call, script, tool, tool_agent};
use crate::common::{never, Env};
use crate::steps::{ask, say};

/// The `type` of each frame (`[DONE]` as itself).
pub fn kinds(frames: &[Value]) -> Vec<String> {
    frames
        .iter()
        .map(|f| {
            f["type"]
                .as_str()
                .unwrap_or(f.as_str().unwrap_or_default())
                .to_string()
        })
        .collect()
}

/// A run of `agent` started here and suspended (`run`, no waiter): its id.
fn started(env: &Env, agent: &str, extra: &[&str]) -> String {
    let (out, run) = env.start(agent, extra);
    out.assert_code(75);
    run
}

#[test]
fn drive_streams_the_leg_of_a_run_this_user_started_here_in_its_directory_with_serves_environment()
{
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let whereabouts = script(
        &env,
        "where.sh",
        "cat >/dev/null\nprintf '{\"cwd\":\"%s\",\"token\":\"%s\"}\\n' \"$(pwd)\" \"$RELEASE_TOKEN\"\n",
    );
    let agent = tool_agent(
        &env,
        json!([call("c1", "where", json!({})), say("Done here.")]),
        vec![tool(
            "where",
            &[&whereabouts],
            json!({"requireApproval": true, "env": ["RELEASE_TOKEN"]}),
        )],
    );
    std::fs::create_dir_all(env.path("work/sub")).unwrap();
    let run = started(&env, &agent, &["--cwd", "sub"]);
    // serve runs elsewhere, with a key the run's starter did not have.
    std::fs::create_dir_all(env.path("elsewhere")).unwrap();
    let served = Served::start_with(&env, &["--drive"], |c| {
        c.current_dir(env.path("elsewhere"))
            .env("RELEASE_TOKEN", "from-serve");
    });
    let r = served.api(
        "/agents/tester/approve-tool-call",
        &token,
        &json!({"runId": run, "toolCallId": "c1"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("mastra-ask-outcome"), Some("driven"));
    let frames = r.frames();
    let kinds = kinds(&frames);
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("[DONE]"),
        "{kinds:?}"
    );
    assert!(kinds.iter().any(|k| k == "finish"), "{kinds:?}");
    let result = frames
        .iter()
        .find(|f| f["type"] == "tool-result")
        .expect("the tool's result");
    let sub = std::fs::canonicalize(env.path("work/sub")).unwrap();
    assert_eq!(
        result["payload"]["result"],
        json!({"cwd": sub.to_str().unwrap(), "token": "from-serve"}),
        "in the run's directory, with serve's environment"
    );
    let text: String = frames
        .iter()
        .filter(|f| f["type"] == "text-delta")
        .filter_map(|f| f["payload"]["text"].as_str())
        .collect();
    assert_eq!(text, "Done here.");
    assert_eq!(env.status(&run), "completed");
    let (state, by, via, _) = item_state(&env, &run, "c1");
    assert_eq!(
        (state.as_str(), by, via),
        ("resolved", json!("alice"), json!("api"))
    );
}

#[test]
fn drive_only_records_runs_of_another_host_or_user_and_says_who_continues() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let agent = env.agent(json!([ask("q1", "Name?"), say("Named it.")]));
    let mut on_runner = env.command(&["run", "--agent", &agent, "Go"]);
    on_runner.env("MASTRA_ASK_HOST_ID", "ci-runner");
    env.run_with(on_runner).assert_code(75);
    let elsewhere = env.latest_run().unwrap();
    let theirs = started(&env, &agent, &[]);
    // As if another OS user of this host had started it.
    env.exec("UPDATE runs SET os_uid = 4242 WHERE id = ?1", &[&theirs]);
    let served = Served::start(&env, &["--drive"]);

    let r = served.api(
        "/agents/tester/resume-stream",
        &token,
        &resume_body(&elsewhere, "q1", json!("Ada")),
    );
    assert_eq!(
        (r.status, r.header("mastra-ask-outcome")),
        (200, Some("recorded")),
        "{}",
        r.body
    );
    assert_eq!(r.frames(), [json!("[DONE]")], "no result: {}", r.body);
    assert!(
        // The command names the store serve was given (`MASTRA_ASK_DB` here), to be run there.
        r.body.contains(&format!(": answer recorded; run {elsewhere} continues on the host that started it: its waiting process, or `mastra-ask "))
            && r.body.contains(&format!(" resume {elsewhere}` run there")),
        "{}",
        r.body
    );
    let r = served.api(
        "/agents/tester/resume-stream",
        &token,
        &resume_body(&theirs, "q1", json!("Grace")),
    );
    assert_eq!(r.header("mastra-ask-outcome"), Some("recorded"));
    assert!(
        r.body
            .contains(": recorded; a waiting process, or `mastra-ask ")
            && r.body
                .contains(&format!(" resume {theirs}`, continues the run")),
        "{}",
        r.body
    );
    for run in [&elsewhere, &theirs] {
        assert_eq!(env.status(run), "running", "recorded, not driven");
        assert_eq!(item_state(&env, run, "q1").2, json!("api"));
    }
    // Their hosts continue them.
    env.run(&["resume", &theirs]).assert_code(0);
    let mut there = env.command(&["resume", &elsewhere]);
    there.env("MASTRA_ASK_HOST_ID", "ci-runner");
    let out = env.run_with(there);
    out.assert_code(0);
    assert_eq!(out.stdout, "Named it.\n");
}

#[test]
fn a_driven_leg_that_suspends_again_streams_its_new_item_and_serves_hook_runs_once_with_its_link() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let agent = env.agent(json!([
        ask("q1", "Name?"),
        ask("q2", "Colour?"),
        say("done")
    ]));
    let run = started(&env, &agent, &[]);
    let served = Served::start(
        &env,
        &[
            "--drive",
            "--public-url",
            "https://inbox.example.com",
            "--on-suspend",
            "cat >> hook.log",
        ],
    );
    let r = served.api(
        "/agents/tester/resume-stream",
        &token,
        &resume_body(&run, "q1", json!("Ada")),
    );
    assert_eq!(r.header("mastra-ask-outcome"), Some("driven"));
    let frames = r.frames();
    let suspended = frames
        .iter()
        .find(|f| f["type"] == "tool-call-suspended")
        .unwrap_or_else(|| panic!("the new item: {frames:?}"));
    assert_eq!(suspended["payload"]["toolCallId"], "q2");
    assert!(!kinds(&frames).iter().any(|k| k == "finish"));
    assert_eq!(env.status(&run), "suspended");

    let hook = || std::fs::read_to_string(env.path("work/hook.log")).unwrap_or_default();
    env.poll("serve's hook never ran", || hook().contains("q2"));
    // Time enough for a second run of the hook, if there were one.
    never(
        "serve's hook ran twice",
        Duration::from_millis(1500),
        || hook().lines().count() > 1,
    );
    let lines: Vec<Value> = hook()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "once: {}", hook());
    assert_eq!(
        lines[0]["url"],
        format!("https://inbox.example.com/runs/{run}/items/q2")
    );
    assert_eq!(lines[0]["runId"], run.as_str());
}

/// Sends an answer over a raw connection and closes it as soon as the response began.
fn answer_and_hang_up(served: &Served, token: &str, body: &Value) {
    let mut tcp = TcpStream::connect(("127.0.0.1", served.port())).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let body = body.to_string();
    write!(
        tcp,
        "POST /api/agents/tester/resume-stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(tcp.read(&mut byte).unwrap(), 1, "the response began");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    assert!(head.contains("mastra-ask-outcome: driven"), "{head}");
}

#[test]
fn a_driven_leg_goes_on_when_its_client_goes_away() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let agent = env.agent(json!([ask("q1", "Go?"), {"delayMs": 1500, "text": "finished"}]));
    let run = started(&env, &agent, &[]);
    let served = Served::start(&env, &["--drive"]);
    answer_and_hang_up(&served, &token, &resume_body(&run, "q1", json!("yes")));
    assert_eq!(env.status(&run), "running", "the leg is under way");
    env.poll("the leg was dropped with its client", || {
        env.status(&run) == "completed"
    });
    assert_eq!(
        env.value("SELECT output FROM runs WHERE id = ?1", &[&run]),
        Some("finished".into())
    );
}

#[test]
fn sigterm_in_the_middle_of_a_driven_leg_finishes_it_and_exits_0() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let agent = env.agent(json!([ask("q1", "Go?"), {"delayMs": 2000, "text": "finished"}]));
    let run = started(&env, &agent, &[]);
    let mut served = Served::start(&env, &["--drive"]);
    let (url, body) = (
        served.url("/api/agents/tester/resume-stream"),
        resume_body(&run, "q1", json!("yes")).to_string(),
    );
    let auth = format!("Bearer {token}");
    let client = std::thread::spawn(move || {
        super::harness::send(&url, "POST", &[("authorization", &auth)], Some(&body))
    });
    env.poll("the answer never reached serve", || {
        served
            .log()
            .contains("POST /api/agents/tester/resume-stream 200")
    });
    let code = served.terminate();
    let r = client.join().unwrap();
    assert_eq!(code, 0, "{}", served.log());
    assert_eq!(r.header("mastra-ask-outcome"), Some("driven"));
    let frames = r.frames();
    assert!(
        kinds(&frames).iter().any(|k| k == "finish"),
        "the leg was cut: {frames:?}"
    );
    assert_eq!(frames.last(), Some(&json!("[DONE]")));
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn an_answer_on_the_items_page_is_driven_on_by_serve() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let agent = env.agent(json!([ask("q1", "Name?"), say("Named it.")]));
    let run = started(&env, &agent, &[]);
    let served = Served::start(&env, &["--drive"]);
    let s = served.sign_in(&token);
    let page = format!("/runs/{run}/items/q1");
    let r = served.submit(&s, &page, &[("answer", "Ada")]);
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(
        r.header("location"),
        Some(format!("{page}?done=driven").as_str())
    );
    env.poll("serve did not drive the run on", || {
        env.status(&run) == "completed"
    });
    let shown = served.page(&s, &format!("{page}?done=driven"));
    assert!(
        shown.body.contains("This inbox continues the run now."),
        "{}",
        shown.body
    );
    assert_eq!(item_state(&env, &run, "q1").2, json!("web"));
}
