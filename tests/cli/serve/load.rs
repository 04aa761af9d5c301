//! serve under load (SPEC §13, "Fair under load"), each with the load that broke it: idle
//! connections from one address, legs that hold every place, one session's streams, a
//! flood of items for a slow hook. Real serve processes, loopback only, bounded loops.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Child;
use std::time::Duration;

use serde_json::{json, Value};

use super::harness::{asked, item_state, resume_body, reviewer, signal, Served};
use crate::common::{exit_within, poll, Env, PATIENCE};
use crate::steps::ask;

/// Sends `request` (a whole HTTP/1.1 request) and reads only the response head; the
/// connection stays open with the stream.
fn head_of(served: &Served, request: &str) -> (String, TcpStream) {
    let mut s = TcpStream::connect(("127.0.0.1", served.port())).unwrap();
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 16 << 10 {
        match s.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    (String::from_utf8_lossy(&head).into_owned(), s)
}

fn status(head: &str) -> u16 {
    head.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// An API answer of `run`'s `q1`: the head's status and `Mastra-Ask-Outcome`. The leg
/// goes on in serve after the connection closes.
fn answer_head(served: &Served, token: &str, run: &str) -> (u16, String) {
    let body = resume_body(run, "q1", json!("yes")).to_string();
    let request = format!(
        "POST /api/agents/tester/resume-stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let (head, _) = head_of(served, &request);
    let outcome = header(&head, "mastra-ask-outcome").unwrap_or_default();
    (status(&head), outcome.to_string())
}

/// Child processes killed when the test ends, however it ends.
struct Kill(Vec<Child>);

impl Drop for Kill {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[test]
fn one_address_cannot_hold_every_connection() {
    let env = Env::new();
    let served = Served::start(&env, &[]);
    let to: std::net::SocketAddr = ([127, 0, 0, 1], served.port()).into();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        use tokio::io::AsyncReadExt;
        // 200 connections from 127.0.0.2 that send nothing.
        let closed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        for _ in 0..200 {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(([127, 0, 0, 2], 0).into()).unwrap();
            let mut idle = socket.connect(to).await.unwrap();
            let closed = closed.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 64];
                // Closed by serve: the end of the stream, or a reset.
                while let Ok(1..) = idle.read(&mut buf).await {}
                closed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            });
        }
        let count = || closed.load(std::sync::atomic::Ordering::SeqCst);
        // Past the cap of waiting connections per address, each is closed at once.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(4);
        while count() < 200 - 32 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(count() >= 200 - 32, "{} closed at once", count());
        // Another address is served meanwhile.
        let health = tokio::task::spawn_blocking({
            let url = served.url("/healthz");
            move || super::harness::send(&url, "GET", &[], None)
        })
        .await
        .unwrap();
        assert_eq!((health.status, health.body.as_str()), (200, "ok\n"));
        // The ones kept are closed at the first-byte deadline (5 s), long before the 30 s
        // that a whole request may take.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while count() < 200 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(count(), 200, "every idle connection is closed");
    });
    // And the address is served again.
    let (head, _) = head_of(
        &served,
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status(&head), 200, "{head}");
}

#[test]
fn behind_a_proxy_the_proxy_limits_its_clients() {
    let env = Env::new();
    let served = Served::start(
        &env,
        &[
            "--behind-proxy",
            "--public-url",
            "https://inbox.example.com",
        ],
    );
    // The proxy's own connections, waiting for their clients' requests: past the cap of
    // one address, and all kept.
    let idle: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(("127.0.0.1", served.port())).unwrap())
        .collect();
    let (head, _) = head_of(
        &served,
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status(&head), 200, "{head}");
    drop(idle);
}

#[test]
fn a_decision_never_waits_behind_followed_legs() {
    let env = Env::new();
    let reviewers = ["alice", "bob", "carol", "dave"];
    let tokens: Vec<String> = reviewers.iter().map(|r| reviewer(&env, r)).collect();
    let erin = reviewer(&env, "erin");
    // 17 runs whose waiters' next step takes a minute once answered.
    let agent = env.agent(json!([ask("q1", "Go?"), {"delayMs": 60000, "text": "done"}]));
    let mut waiters = Kill(Vec::new());
    for _ in 0..17 {
        waiters.0.push(env.spawn(&[
            "run",
            "--agent",
            &agent,
            "--wait",
            "--timeout",
            "300s",
            "Go",
        ]));
    }
    let runs: Vec<String> = crate::common::poll_for("17 runs waiting", PATIENCE, || {
        let out = env.run(&["pending", "-q"]);
        let runs: Vec<String> = out
            .stdout
            .lines()
            .map(|l| l.split(' ').next().unwrap().to_string())
            .collect();
        (runs.len() == 17).then_some(runs)
    });
    for run in &runs {
        env.wait_for_waiter(run);
    }
    let (unrelated, call) = asked(&env, &["Unrelated?"]);
    let served = Served::start(&env, &[]);

    // Each of four reviewers follows four legs: every leg place is held.
    let mut runs = runs.iter();
    for token in &tokens {
        for _ in 0..4 {
            let run = runs.next().unwrap();
            assert_eq!(
                answer_head(&served, token, run),
                (200, "waiter".into()),
                "{}",
                served.log()
            );
        }
    }
    // Past alice's cap, her answer is recorded and not followed; her waiter drives it.
    let fifth = runs.next().unwrap();
    assert_eq!(
        answer_head(&served, &tokens[0], fifth),
        (200, "recorded".into())
    );
    let (state, by, via, _) = item_state(&env, fifth, "q1");
    assert_eq!(
        (state.as_str(), by, via),
        ("resolved", json!("alice"), json!("api"))
    );

    // Another reviewer's answer to an unrelated run is recorded while every leg runs.
    let mut client = env.command(&[
        "--db",
        "ledger.db",
        "--server",
        served.base.as_str(),
        "answer",
        &unrelated,
        "hello",
    ]);
    client.env("MASTRA_SERVER_TOKEN", &erin);
    let mut child = client.spawn().unwrap();
    let exit = exit_within(
        &mut child,
        "the answer waited behind the legs",
        Duration::from_secs(20),
    );
    assert_eq!(exit.code(), Some(0));
    let (state, by, via, data) = item_state(&env, &unrelated, &call);
    assert_eq!(
        (state.as_str(), by, via, data),
        ("resolved", json!("erin"), json!("api"), json!("hello"))
    );
    assert_eq!(env.status(&unrelated), "completed");
}

#[test]
fn past_a_reviewers_driven_legs_an_answer_is_only_recorded() {
    let env = Env::new();
    let alice = reviewer(&env, "alice");
    let agent = env.agent(json!([ask("q1", "Go?"), {"delayMs": 60000, "text": "done"}]));
    let runs: Vec<String> = (0..5)
        .map(|_| {
            let (out, run) = env.start(&agent, &[]);
            out.assert_code(75);
            run
        })
        .collect();
    let served = Served::start(&env, &["--drive"]);
    for run in &runs[..4] {
        assert_eq!(answer_head(&served, &alice, run), (200, "driven".into()));
    }
    assert_eq!(
        answer_head(&served, &alice, &runs[4]),
        (200, "recorded".into())
    );
    assert_eq!(item_state(&env, &runs[4], "q1").0, "resolved");
    assert!(
        served.log().contains(&format!(
            "run {}: the answer of alice is only recorded, its leg neither followed nor driven here",
            runs[4]
        )),
        "{}",
        served.log()
    );
}

#[test]
fn one_session_or_reviewer_cannot_hold_every_event_stream() {
    let env = Env::new();
    let alice = reviewer(&env, "alice");
    let bob = reviewer(&env, "bob");
    let (run, call) = asked(&env, &["Go?"]);
    let served = Served::start(&env, &[]);
    let events = |s: &super::harness::Session| {
        head_of(
            &served,
            &format!(
                "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {}\r\n\r\n",
                s.header()
            ),
        )
    };
    let mut open = Vec::new();
    // Four sessions of alice, eight streams each: her 32.
    for _ in 0..4 {
        let session = served.sign_in(&alice);
        for _ in 0..8 {
            let (head, stream) = events(&session);
            assert_eq!(status(&head), 200, "{head}");
            open.push(stream);
        }
        let (head, _) = events(&session);
        assert_eq!(status(&head), 503, "past the session's cap: {head}");
    }
    let (head, _) = events(&served.sign_in(&alice));
    assert_eq!(status(&head), 503, "past the reviewer's cap: {head}");
    let (head, _kept) = events(&served.sign_in(&bob));
    assert_eq!(status(&head), 200, "another reviewer: {head}");
    // An answer needs no stream place.
    let r = served.api(
        "/agents/ask/resume-stream",
        &alice,
        &resume_body(&run, &call, json!("yes")),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(item_state(&env, &run, &call).0, "resolved");
}

/// The hooks whose pid files are in `dir` and which still run.
fn live_hooks(dir: &Path) -> Vec<i32> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
                .filter(|pid| {
                    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                        let state = s.rsplit(')').next().unwrap_or("").trim_start();
                        !state.starts_with('Z')
                    }) && std::fs::read_to_string(format!("/proc/{pid}/cmdline"))
                        .is_ok_and(|c| c.starts_with("sleep"))
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn hooks_run_from_one_bounded_queue_and_none_outlives_serve() {
    let env = Env::new();
    let pids = env.path("pids");
    std::fs::create_dir_all(&pids).unwrap();
    // The hook's sleep is a child of its shell: only its whole group ends it.
    let hook = format!("sleep 30 & echo > {}/$!; wait", pids.display());
    let calls: Vec<Value> = (1..=8)
        .map(|i| json!({"id": format!("q{i}"), "name": "ask_user", "args": {"question": "Go?"}}))
        .collect();
    let agent = env.agent(json!([{ "toolCalls": calls }]));
    let mut served = Served::start(&env, &["--on-suspend", &hook]);
    // The live page's stream says when serve has seen each run's items.
    let session = served.sign_in(&reviewer(&env, "alice"));
    let (head, mut events) = head_of(
        &served,
        &format!(
            "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {}\r\n\r\n",
            session.header()
        ),
    );
    assert_eq!(status(&head), 200, "{head}");
    // A flood: twelve runs of eight items each, each seen before the next comes.
    let mut most = 0;
    for _ in 0..12 {
        env.start(&agent, &[]).0.assert_code(75);
        let mut seen = Vec::new();
        let mut buf = [0u8; 256];
        while !String::from_utf8_lossy(&seen).contains("event: change") {
            let n = events.read(&mut buf).expect("a change event");
            assert!(n > 0, "the event stream ended");
            seen.extend_from_slice(&buf[..n]);
        }
        most = most.max(live_hooks(&pids).len());
    }
    poll("the dropped hooks are logged", PATIENCE, || {
        most = most.max(live_hooks(&pids).len());
        served.log().contains("was not run: 64 hooks wait already")
    });
    assert_eq!(most, 4, "hooks at once at most");
    assert_eq!(served.terminate(), 0, "{}", served.log());
    assert_eq!(live_hooks(&pids), Vec::<i32>::new(), "none outlives serve");
    assert!(
        served.log().contains("was not run: serve stopped"),
        "{}",
        served.log()
    );
}

#[test]
fn a_killed_serve_takes_its_hooks_with_it() {
    let env = Env::new();
    let pids = env.path("pids");
    std::fs::create_dir_all(&pids).unwrap();
    // The hook's sleep is a child of its shell: only its whole group ends it.
    let hook = format!("sleep 30 & echo > {}/$!; wait", pids.display());
    let agent = env.agent(json!([ask("q1", "Go?")]));
    let mut served = Served::start(&env, &["--on-suspend", &hook]);
    env.start(&agent, &[]).0.assert_code(75);
    poll("a hook runs", PATIENCE, || !live_hooks(&pids).is_empty());
    signal(served.child.id(), libc::SIGKILL);
    let _ = served.child.wait();
    poll("the hooks end with serve", Duration::from_secs(10), || {
        live_hooks(&pids).is_empty()
    });
}
