//! A hostile or broken Mastra server against the binary, on the canned fake server (SPEC
//! §12, security findings M1, M2, L2, L4 and I1): every wait ends at its deadline (shortened
//! through `MASTRA_ASK_SERVER_IDLE_TIMEOUT`, never slept out), stop signals do what they
//! say, listings and legs stay within their caps in memory (measured: the child's peak
//! RSS), the token never reaches a printed line, files named by the environment or a flag
//! never block, raw controls never reach a JSON line, and an answer is never redirected to
//! another server.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::assert_shown;
use crate::common::{assert_one_line_error, finish, poll, run_measured, Env, Out};
use crate::fake_server::{FakeServer, Recorded, Reply};

const RUN: &str = "run-0001-aaaa";
const CALL: &str = "call-1";
const IDLE: &str = "MASTRA_ASK_SERVER_IDLE_TIMEOUT";
/// A generous bound for commands whose deadline is 2 s: never a speed claim, only proof
/// that nothing waits for ever.
const SOON: Duration = Duration::from_secs(30);
/// The peak memory a flood may cost, in KiB.
const MEMORY_CAP_KIB: u64 = 100 * 1024;

fn agents() -> Reply {
    Reply::ok(
        json!({"planner": {"id": "planner", "name": "Planner", "description": "Plans.", "tools": {"ask_user": {}}}}),
    )
}

fn run_of(run: &str, call: &str, payload: Value) -> Value {
    json!({"runId": run, "status": "suspended", "suspendedAt": "2026-12-01T03:13:33.727Z",
           "toolCalls": [{"toolCallId": call, "toolName": "ask_user", "requiresApproval": false,
                          "suspendPayload": payload}]})
}

fn question_page(question: &str) -> Reply {
    Reply::ok(json!({"runs": [run_of(RUN, CALL, json!({"question": question}))], "total": 1}))
}

/// The canned answers of a listing: one agent, whose one run waits on a question.
fn listing() -> Vec<Reply> {
    vec![agents(), question_page("Name?")]
}

fn finished_leg(text: &str) -> Reply {
    Reply::sse(vec![
        json!({"type": "tool-result", "runId": RUN, "from": "AGENT", "payload": {"toolCallId": CALL, "toolName": "ask_user", "result": {"content": "User answered: x"}}}).to_string(),
        json!({"type": "text-delta", "runId": RUN, "from": "AGENT", "payload": {"id": "t", "text": text}}).to_string(),
        json!({"type": "finish", "runId": RUN, "from": "AGENT", "payload": {"stepResult": {"reason": "stop"}, "output": {"text": text}}}).to_string(),
    ])
}

/// `mastra-ask --server URL ARGS...`, with the idle deadline when given.
fn command(env: &Env, url: &str, idle: Option<&str>, args: &[&str]) -> Command {
    let mut all = vec!["--server", url];
    all.extend_from_slice(args);
    let mut c = env.command(&all);
    if let Some(idle) = idle {
        c.env(IDLE, idle);
    }
    c
}

/// Runs it within `SOON`: its output, and how long it ran.
#[track_caller]
fn soon(c: Command) -> (Out, Duration) {
    let (out, _, ran) = run_measured(c, SOON * 2);
    assert!(ran < SOON, "ran {ran:?}: {out:?}");
    (out, ran)
}

/// A server that lists the question and then never answers the answer.
fn never_answering() -> FakeServer {
    let mut replies = listing();
    replies.push(Reply::Silent(Duration::from_secs(120)));
    FakeServer::start(replies)
}

/// A well-behaved server's answer to any request: the agent, its one question, and a leg
/// that finishes.
fn well_behaved(r: &Recorded) -> Reply {
    if r.method == "POST" {
        finished_leg("Thanks.")
    } else if r.path.ends_with("/agents") {
        agents()
    } else {
        question_page("Name?")
    }
}

fn ledger(env: &Env) -> Vec<Vec<Option<String>>> {
    env.rows("SELECT tool_call_id, state FROM ledger", &[])
}

fn posts(fake: &FakeServer) -> usize {
    fake.requests()
        .iter()
        .filter(|r| r.method == "POST")
        .count()
}

#[test]
fn server_an_answer_the_server_never_answers_ends_at_the_idle_deadline() {
    let env = Env::new();
    let fake = never_answering();
    let (out, _) = soon(command(
        &env,
        &fake.base_url(),
        Some("2s"),
        &["answer", RUN, "x"],
    ));
    out.assert_code(1);
    assert_shown!(env, out.stderr, @"
        error: http://127.0.0.1:[PORT]/v1: no answer to the request within 2s (MASTRA_ASK_SERVER_IDLE_TIMEOUT); stopped waiting (the server may or may not have received the request); the answer to tool call call-1 of run run-0001-aaaa may have reached the server
        hint: see whether it still waits with: mastra-ask --server http://127.0.0.1:[PORT]/v1 pending; if it does, answering again sends it (this store keeps the claim until its process has ended)
        ");
    assert_eq!(
        ledger(&env),
        [[Some(CALL.into()), Some("sending".into())].to_vec()],
        "kept: it may have arrived"
    );
}

#[test]
fn server_a_stream_that_falls_silent_in_any_phase_ends_at_the_idle_deadline() {
    let first = json!({"type": "text-delta", "runId": RUN, "from": "AGENT", "payload": {"id": "t", "text": "Working"}}).to_string();
    let cases = [
        (
            "headers, then nothing",
            Reply::SseThenSilent {
                frames: vec![],
                silence: Duration::from_secs(120),
            },
            "",
        ),
        (
            "one chunk, then nothing",
            Reply::SseThenSilent {
                frames: vec![first],
                silence: Duration::from_secs(120),
            },
            "Working",
        ),
        (
            "a byte every 300 ms that never makes an event",
            Reply::Drip {
                content_type: "text/event-stream",
                every: Duration::from_millis(300),
            },
            "",
        ),
    ];
    for (what, reply, stdout) in cases {
        let env = Env::new();
        let mut replies = listing();
        replies.push(reply);
        let fake = FakeServer::start(replies);
        let (out, _) = soon(command(
            &env,
            &fake.base_url(),
            Some("2s"),
            &["answer", RUN, "x"],
        ));
        out.assert_code(1);
        assert_eq!(out.stdout.trim_end(), stdout, "{what}");
        assert!(
            out.stderr.contains(
                "the stream sent no event for 2s (MASTRA_ASK_SERVER_IDLE_TIMEOUT); stopped waiting (the server accepted the request)"
            ),
            "{what}: {}",
            out.stderr
        );
        assert_eq!(
            ledger(&env),
            [[Some(CALL.into()), Some("sending".into())].to_vec()],
            "{what}"
        );
    }
}

#[test]
fn server_a_json_answer_that_drips_or_never_comes_ends_within_its_deadline() {
    for (what, reply) in [
        (
            "a byte every 500 ms",
            Reply::Drip {
                content_type: "application/json",
                every: Duration::from_millis(500),
            },
        ),
        ("silence", Reply::Silent(Duration::from_secs(120))),
    ] {
        let env = Env::new();
        let fake = FakeServer::start(vec![reply]);
        let (out, _) = soon(command(&env, &fake.base_url(), Some("2s"), &["agents"]));
        out.assert_code(1);
        assert_one_line_error(&out, "no complete answer within 2s");
        assert_eq!(fake.count(), 1, "{what}");
    }
    // The idle deadline is checked like every duration: a bad one is a usage error.
    let env = Env::new();
    let out = env.run_with(command(&env, "http://127.0.0.1:9", Some("0s"), &["agents"]));
    out.assert_code(2);
    assert_one_line_error(&out, "MASTRA_ASK_SERVER_IDLE_TIMEOUT must be more than 0");
    let out = env.run_with(command(&env, "http://127.0.0.1:9", Some("2d"), &["agents"]));
    out.assert_code(2);
    assert_one_line_error(&out, "is longer than the maximum, 1d");
}

#[test]
fn server_wait_timeout_is_a_hard_deadline_whatever_the_server_does() {
    let cases = [
        (
            "a listing that drips",
            Reply::Drip {
                content_type: "application/json",
                every: Duration::from_millis(500),
            },
        ),
        ("a silent server", Reply::Silent(Duration::from_secs(120))),
    ];
    for (what, reply) in cases {
        let env = Env::new();
        let fake = FakeServer::start(vec![reply]);
        // The default idle deadline (200 s): only --timeout can end this.
        let (out, _) = soon(command(
            &env,
            &fake.base_url(),
            None,
            &["wait", RUN, "--timeout", "2s"],
        ));
        out.assert_code(124);
        assert_one_line_error(&out, &format!("timed out waiting for run {RUN}"));
        assert_eq!(fake.count(), 1, "{what}");
    }
    // A server that keeps listing the run, answering at once.
    let env = Env::new();
    let fake = FakeServer::serving(well_behaved);
    let (out, _) = soon(command(
        &env,
        &fake.base_url(),
        None,
        &["wait", RUN, "--timeout", "2s"],
    ));
    out.assert_code(124);
    assert!(fake.count() >= 4, "it kept watching: {}", fake.count());
}

/// Polls until the fake server has seen a POST.
fn until_posted(fake: &FakeServer) {
    poll("the answer never reached the server", SOON, || {
        posts(fake) > 0
    });
}

fn signal(child: &std::process::Child, sig: libc::c_int) {
    // SAFETY: signals our own child, which has not been waited for.
    unsafe { libc::kill(child.id() as libc::pid_t, sig) };
}

#[test]
fn server_sigterms_never_stop_a_leg_and_only_a_prompt_second_ctrl_c_does() {
    let env = Env::new();
    let fake = never_answering();
    let mut child = command(&env, &fake.base_url(), None, &["answer", RUN, "x"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    until_posted(&fake);
    for _ in 0..3 {
        signal(&child, libc::SIGTERM);
        std::thread::sleep(Duration::from_millis(300));
    }
    signal(&child, libc::SIGINT);
    // A second Ctrl-C more than 5 s after the first is a first one again.
    std::thread::sleep(Duration::from_millis(5600));
    signal(&child, libc::SIGINT);
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        child.try_wait().unwrap().is_none(),
        "three SIGTERMs and two Ctrl-Cs 5 s apart do not stop it"
    );
    let stopped_at = Instant::now();
    signal(&child, libc::SIGINT);
    let out = finish(child);
    assert!(stopped_at.elapsed() < SOON);
    out.assert_code(130);
    let notices: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("finishing the leg on the server before stopping"))
        .collect();
    assert_eq!(
        notices.len(),
        5,
        "one per signal that did not stop it: {}",
        out.stderr
    );
    assert_eq!(
        notices
            .iter()
            .filter(|l| l.ends_with("press Ctrl-C again within 5 s to stop waiting (the run may then be lost on the server)"))
            .count(),
        2
    );
    assert!(
        out.stderr.contains(&format!(
            "\nerror: stopped waiting for the leg on {} at a second Ctrl-C (the server may or may not have received the request); the answer to tool call {CALL} of run {RUN} may have reached the server\n",
            fake.base_url()
        )),
        "{}",
        out.stderr
    );
    assert_eq!(
        ledger(&env),
        [[Some(CALL.into()), Some("sending".into())].to_vec()]
    );

    // Its process is gone and the server still lists the call: the next answer takes the
    // claim over and sends, once. (`pending` lists every agent; the answer lists only the
    // agent the ledger knows for the run.)
    let mut replies = listing();
    replies.push(question_page("Name?"));
    replies.push(finished_leg("Thanks."));
    fake.push(replies);
    let pending = env.run_with(command(&env, &fake.base_url(), None, &["pending"]));
    pending.assert_code(0);
    let claim = pending.stdout.lines().last().unwrap();
    assert!(
        claim.starts_with(&format!("    claimed by {} ", env.me()))
            && claim.ends_with(
                ", gone); whether it arrived is unknown; the next answer releases it and sends"
            ),
        "{}",
        pending.stdout
    );
    let out = env.run_with(command(&env, &fake.base_url(), None, &["answer", RUN, "y"]));
    out.assert_code(0);
    assert_eq!(out.stdout, "Thanks.\n");
    assert!(
        out.stderr.starts_with(&format!(
            "warning: released the stale claim on question {CALL} of run {RUN}, claimed by {} ",
            env.me()
        )),
        "{}",
        out.stderr
    );
    assert_eq!(posts(&fake), 2);
    assert_eq!(
        ledger(&env),
        [[Some(CALL.into()), Some("delivered".into())].to_vec()]
    );
}

/// A suspended-runs page of `n` runs, each with a payload of `pad` bytes.
fn page_of(page: usize, n: usize, pad: usize) -> Reply {
    let runs: Vec<Value> = (0..n)
        .map(|i| {
            run_of(
                &format!("run-{page:06}-{i:03}"),
                "c1",
                json!({"question": "q", "pad": "P".repeat(pad)}),
            )
        })
        .collect();
    Reply::ok(json!({"runs": runs, "total": 1_000_000_000u64}))
}

fn page_number(r: &Recorded) -> usize {
    r.path
        .split("page=")
        .nth(1)
        .and_then(|p| p.split('&').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or(0)
}

#[test]
fn server_a_listing_flood_stops_at_its_caps_within_bounded_memory() {
    // The report's shape: every page 100 runs of 150 KB, a total of 10^9; and another:
    // small runs without end.
    let cases: [(&str, usize, &str); 2] = [
        (
            "15 MB pages",
            150_000,
            "its suspended runs are larger than 64 MiB, the most one listing reads",
        ),
        (
            "small runs",
            10,
            "it lists more than 10000 suspended calls, the most one listing holds",
        ),
    ];
    for (what, pad, error) in cases {
        let env = Env::new();
        let fake = FakeServer::serving(move |r: &Recorded| {
            if r.path.ends_with("/agents") {
                agents()
            } else {
                page_of(page_number(r), 100, pad)
            }
        });
        let (out, rss, ran) = run_measured(
            command(&env, &fake.base_url(), None, &["pending"]),
            Duration::from_secs(240),
        );
        out.assert_code(1);
        assert_one_line_error(&out, error);
        assert!(
            out.stderr.ends_with(
                "hint: list one agent's runs with --agent ID (pending, answer, review, approve and decline take it)\n"
            ),
            "{}",
            out.stderr
        );
        eprintln!("listing flood, {what}: peak RSS {rss} KiB, {ran:?}");
        assert!(
            rss < MEMORY_CAP_KIB,
            "{what}: peak RSS {rss} KiB after {ran:?}"
        );
        assert!(fake.count() <= 102, "{what}: {} requests", fake.count());
    }
}

#[test]
fn server_thousands_of_agents_are_not_walked_and_agent_names_one() {
    let env = Env::new();
    let many: serde_json::Map<String, Value> = (0..3000)
        .map(|i| {
            (
                format!("a{i}"),
                json!({"id": format!("a{i}"), "name": "A", "tools": {}}),
            )
        })
        .collect();
    let fake = FakeServer::start(vec![Reply::ok(Value::Object(many))]);
    let out = env.run_with(command(&env, &fake.base_url(), None, &["pending"]));
    out.assert_code(1);
    assert_shown!(env, out.stderr, @"
        error: http://127.0.0.1:[PORT]/v1: it has 3000 agents, more than the 1000 one listing walks
        hint: list one agent's runs with --agent ID (pending, answer, review, approve and decline take it)
        ");
    assert_eq!(fake.count(), 1, "no agent's runs were asked for");

    // --agent lists that agent only: no walk over the agents at all.
    fake.push(vec![question_page("Name?"), finished_leg("Thanks.")]);
    let out = env.run_with(command(
        &env,
        &fake.base_url(),
        None,
        &["answer", RUN, "x", "--agent", "planner"],
    ));
    out.assert_code(0);
    let paths: Vec<String> = fake.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths[1..],
        [
            "/v1/agents/planner/suspended-runs?perPage=100&page=0",
            "/v1/agents/planner/resume-stream"
        ]
    );
    for args in [
        &["answer", RUN, "x", "--agent", "planner"][..],
        &["review", RUN, "--approve", "--agent", "planner"],
        &["approve", RUN, "--agent", "planner"],
        &["decline", RUN, "--agent", "planner"],
    ] {
        let out = env.cmd(args).code(2);
        assert_one_line_error(
            &out,
            &format!("{} --agent works on a Mastra server's runs only", args[0]),
        );
    }
}

fn suspension(i: usize) -> String {
    format!(
        r#"{{"type":"tool-call-suspended","runId":"{RUN}","from":"AGENT","payload":{{"toolCallId":"flood-{i}","toolName":"ask_user","suspendPayload":{{"question":"Q {i}?"}},"args":{{"question":"Q {i}?"}},"resumeSchema":"{{}}"}}}}"#
    )
}

#[test]
fn server_a_flood_of_suspended_calls_in_a_leg_stays_bounded() {
    let env = Env::new();
    let mut replies = listing();
    replies.push(Reply::SseFlood {
        count: 150_000,
        frame: suspension,
    });
    let fake = FakeServer::start(replies);
    let (out, rss, ran) = run_measured(
        command(&env, &fake.base_url(), None, &["answer", RUN, "x"]),
        Duration::from_secs(240),
    );
    out.assert_code(75);
    assert!(
        out.stderr
            .contains(&format!("run {RUN} is waiting for input (10000 pending):")),
        "{}",
        &out.stderr[..out.stderr.len().min(2000)]
    );
    assert!(out.stderr.contains(
        "warning: the leg announced 140000 more suspended calls than mastra-ask keeps from one leg"
    ));
    eprintln!("suspension flood: peak RSS {rss} KiB, {ran:?}");
    assert!(rss < MEMORY_CAP_KIB, "peak RSS {rss} KiB after {ran:?}");
}

const TOKEN: &str = "tok-S3CRET-42";

#[test]
fn server_a_token_the_server_repeats_is_never_printed() {
    // Spelt out, and behind a JSON escape (`\u0074ok-...`).
    let escaped = r"\u0074ok-S3CRET-42";
    let agents_body = format!(
        r#"{{"planner":{{"id":"planner","name":"Planner {TOKEN}","description":"Uses {escaped}.","tools":{{"ask_user":{{}}}}}}}}"#
    );
    let page = Reply::ok(
        json!({"runs": [run_of(RUN, CALL, json!({"question": format!("Is {TOKEN} right?"), "options": [{"label": "yes"}, {"label": format!("no {TOKEN}")}]}))], "total": 1}),
    );
    let agents = || Reply::Json {
        status: 200,
        headers: vec![],
        body: agents_body.clone(),
    };
    let leg = || {
        Reply::sse(vec![
            json!({"type": "text-delta", "runId": RUN, "from": "AGENT", "payload": {"id": "t", "text": format!("token {TOKEN}\n")}}).to_string(),
            format!(r#"{{"type":"tool-error","runId":"{RUN}","from":"AGENT","payload":{{"toolCallId":"c9","toolName":"deploy","error":{{"message":"denied for {escaped}"}}}}}}"#),
            json!({"type": "error", "runId": RUN, "from": "AGENT", "payload": {"error": {"message": format!("bad key {TOKEN}")}}}).to_string(),
        ])
    };
    let fake = FakeServer::start(vec![]);
    let mut everything = String::new();
    for json_mode in [false, true] {
        let env = Env::new();
        let output: &[&str] = if json_mode { &["-o", "json"] } else { &[] };
        fake.push(vec![
            agents(),
            agents(),
            page.clone(),
            agents(),
            page.clone(),
            leg(),
        ]);
        for args in [&["agents"][..], &["pending"], &["answer", RUN, "yes"]] {
            let mut all = output.to_vec();
            all.extend_from_slice(args);
            let mut c = command(&env, &fake.base_url(), None, &all);
            c.env("MASTRA_SERVER_TOKEN", TOKEN);
            let out = env.run_with(c);
            everything.push_str(&out.stdout);
            everything.push_str(&out.stderr);
            if json_mode {
                continue;
            }
            match args[0] {
                "agents" => assert_eq!(
                    out.stdout,
                    "planner  (Planner ***)  tools: ask_user\n    Uses ***.\n"
                ),
                "pending" => assert!(
                    out.stdout
                        .contains("question: Is *** right? [yes | no ***]"),
                    "{}",
                    out.stdout
                ),
                _ => {
                    out.assert_code(1);
                    assert_eq!(out.stdout, "token ***\n");
                    assert_shown!(env, out.stderr, @"
                        warning: tool call c9 (deploy) failed: denied for ***
                        error: run run-0001-aaaa failed on http://127.0.0.1:[PORT]/v1: bad key ***
                        ");
                }
            }
        }
        everything.push_str(&env.dump());
    }
    assert!(!everything.contains(TOKEN), "{everything}");
    assert!(everything.contains("bad key ***"));
    // The answer itself was the person's, and went to the server as given.
    let sent: Vec<Value> = fake
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.body)
        .collect();
    assert_eq!(
        sent,
        vec![json!({"runId": RUN, "toolCallId": CALL, "resumeData": "yes"}); 2]
    );
}

#[test]
fn server_files_named_by_the_environment_or_a_flag_never_block_nor_flood() {
    let env = Env::new();
    let fifo = env.path("work/fifo");
    use rustix::fs::{FileType, Mode};
    rustix::fs::mknodat(rustix::fs::CWD, &fifo, FileType::Fifo, Mode::from(0o600), 0).unwrap();
    let fifo = fifo.to_str().unwrap().to_string();

    // Plain http needs no certificates: SSL_CERT_FILE is not even opened.
    let fake = FakeServer::start(vec![agents()]);
    let mut c = command(&env, &fake.base_url(), None, &["agents"]);
    c.env("SSL_CERT_FILE", "/dev/zero");
    let (out, rss, _) = run_measured(c, SOON);
    out.assert_code(0);
    assert!(rss < MEMORY_CAP_KIB / 4, "{rss} KiB");

    for (file, why) in [
        (
            "/dev/zero",
            "SSL_CERT_FILE /dev/zero is not a regular file".to_string(),
        ),
        (
            fifo.as_str(),
            format!("SSL_CERT_FILE {fifo} is not a regular file"),
        ),
    ] {
        let mut c = command(&env, "https://127.0.0.1:9", None, &["agents"]);
        c.env("SSL_CERT_FILE", file);
        let (out, _) = soon(c);
        out.assert_code(2);
        assert_one_line_error(&out, &why);
    }

    // --feedback-file, here and on a server; --plan-file.
    env.write("work/plan.md", "# Plan\n\nDo it.\n");
    let planned = env
        .cmd(&["plan", env.path("work/plan.md").to_str().unwrap()])
        .code(75);
    let run = planned.stdout.trim().to_string();
    let mut c = env.command(&["review", &run, "--reject", "--feedback-file", &fifo]);
    c.current_dir(env.work());
    let (out, _) = soon(c);
    out.assert_code(2);
    assert_one_line_error(&out, &format!("feedback file {fifo} is not a regular file"));
    let plan_page = Reply::ok(json!({"runs": [{"runId": RUN, "status": "suspended",
        "suspendedAt": "2026-12-01T03:13:33.727Z", "toolCalls": [{"toolCallId": CALL,
        "toolName": "submit_plan", "requiresApproval": false,
        "suspendPayload": {"toolId": "submit_plan", "path": "plans/p.md"}}]}], "total": 1}));
    for args in [
        &["review", RUN, "--reject", "--feedback-file", &fifo][..],
        &["review", RUN, "--approve", "--plan-file", &fifo],
    ] {
        fake.push(vec![agents(), plan_page.clone()]);
        let (out, _) = soon(command(&env, &fake.base_url(), None, args));
        out.assert_code(2);
        assert_one_line_error(&out, &format!("{fifo} is not a regular file"));
    }
    assert_eq!(posts(&fake), 0);
}

#[test]
fn server_raw_controls_from_a_server_become_escapes_in_json_lines() {
    let env = Env::new();
    let hostile = "a\u{202e}b\u{9b}31mc\u{200b}";
    let frames = vec![
        json!({"type": "text-delta", "runId": RUN, "from": "AGENT", "payload": {"id": "t", "text": hostile}}).to_string(),
        // A raw CR between tokens, as the report sent it.
        format!("{{\"type\":\"finish\",\r\"runId\":\"{RUN}\",\"payload\":{{\"stepResult\":{{\"reason\":\"stop\"}},\"output\":{{\"text\":\"{hostile}\"}}}}}}"),
    ];
    let mut replies = listing();
    replies.push(Reply::sse(frames.clone()));
    replies.push(agents());
    replies.push(question_page(hostile));
    let fake = FakeServer::start(replies);
    let out = env.run_with(command(
        &env,
        &fake.base_url(),
        None,
        &["-o", "json", "answer", RUN, "x"],
    ));
    out.assert_code(0);
    let listed = env.run_with(command(
        &env,
        &fake.base_url(),
        None,
        &["-o", "json", "pending"],
    ));
    listed.assert_code(0);
    for text in [&out.stdout, &listed.stdout] {
        assert!(
            text.bytes()
                .all(|b| (0x20..0x7f).contains(&b) || b == b'\n'),
            "{text:?}"
        );
        assert!(text.contains(r"a\u202eb\u009b31mc\u200b"), "{text}");
    }
    let lines = out.json_lines();
    for (line, frame) in lines.iter().zip(&frames) {
        let sent: Value = serde_json::from_str(frame).unwrap();
        assert_eq!(*line, sent, "the same value");
    }
    assert_eq!(
        listed.json_lines()[0]["suspendPayload"]["question"],
        hostile
    );
}

#[test]
fn server_an_answer_redirected_to_another_server_is_not_sent_there() {
    let env = Env::new();
    let other = FakeServer::start(vec![]);
    for status in [307, 308] {
        let mut replies = listing();
        replies.push(Reply::Json {
            status,
            headers: vec![(
                "Location",
                format!("{}/agents/planner/resume-stream", other.base_url()),
            )],
            body: "{}".into(),
        });
        replies.push(question_page("Name?"));
        let fake = FakeServer::start(replies);
        let out = env.run_with(command(&env, &fake.base_url(), None, &["answer", RUN, "x"]));
        out.assert_code(1);
        assert_one_line_error(
            &out,
            &format!(
                "it redirects this answer to another server ({}/agents/planner/resume-stream); nothing was sent there (use that server URL if it is the right one); the answer was not delivered",
                other.base_url()
            ),
        );
        assert_eq!(ledger(&env), Vec::<Vec<Option<String>>>::new(), "{status}");
    }
    assert_eq!(other.count(), 0, "nothing reached the other server");
}

#[test]
fn server_a_token_withheld_from_plain_http_is_said_once() {
    let env = Env::new();
    // The fake is the proxy: the request for the remote host comes through its tunnel.
    let proxy = FakeServer::serving(|_: &Recorded| Reply::ok(json!({})));
    let mut c = env.command(&["--server", "http://api.example.com", "pending"]);
    c.env("MASTRA_SERVER_TOKEN", TOKEN)
        .env("HTTP_PROXY", proxy.root_url());
    let out = env.run_with(c);
    out.assert_code(0);
    assert_eq!(
        out.stderr,
        "warning: the token is not sent to api.example.com: it is plain http and not on this machine (use https)\nnothing is pending on http://api.example.com:80/api\n"
    );
    let asked = proxy.requests();
    assert_eq!(asked[0].method, "CONNECT");
    assert_eq!(asked[1].path, "/api/agents");
    assert!(asked.iter().all(|r| r.header("authorization").is_none()));
}

#[test]
fn server_of_processes_that_find_one_stale_claim_exactly_one_sends() {
    let env = Env::new();
    // A sender whose stream never started leaves its claim; its process is then gone.
    let fake = never_answering();
    let (out, _) = soon(command(
        &env,
        &fake.base_url(),
        Some("1s"),
        &["answer", RUN, "first"],
    ));
    out.assert_code(1);
    fake.handle(well_behaved);
    let children: Vec<_> = (0..6)
        .map(|i| {
            command(
                &env,
                &fake.base_url(),
                None,
                &["answer", RUN, "--as", &format!("p{i}"), "x"],
            )
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    let outs: Vec<Out> = children.into_iter().map(finish).collect();
    let codes: Vec<i32> = outs.iter().map(|o| o.code).collect();
    assert_eq!(codes.iter().filter(|c| **c == 0).count(), 1, "{codes:?}");
    assert_eq!(codes.iter().filter(|c| **c == 4).count(), 5, "{codes:?}");
    let winner = outs.iter().find(|o| o.code == 0).unwrap();
    assert!(
        winner
            .stderr
            .starts_with("warning: released the stale claim"),
        "{}",
        winner.stderr
    );
    assert_eq!(posts(&fake), 2, "the first, and exactly one more");
    assert_eq!(
        ledger(&env),
        [[Some(CALL.into()), Some("delivered".into())].to_vec()]
    );
}
