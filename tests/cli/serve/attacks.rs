//! Attacks on the inbox, each held (SPEC §13, §9): nothing without a session or a token
//! (and each only where it belongs), csrf and cross-origin posts refused with nothing
//! changed, model text never live in a page, secrets never in the log, the store or a
//! page, the bounds (a 2 MiB body, huge headers, a client that sends nothing), failed
//! sign-ins answered alike and slowed, and SIGTERM in the middle of a followed leg.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;

use super::harness::{asked, form, planned, resume_body, reviewer, waiting_run, Served};
use crate::common::{assert_same_store, Env};
use crate::steps::ask;

#[test]
fn no_page_or_route_without_a_session_or_token() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (q, call) = asked(&env, &["Q?"]);
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let pages = [
        "/",
        &format!("/runs/{q}"),
        &format!("/runs/{q}/items/{call}"),
    ];
    for path in pages {
        let r = served.get(path, &[]);
        assert_eq!(
            (r.status, r.header("location")),
            (303, Some("/login")),
            "{path}"
        );
        // A bearer token is for the API only.
        let auth = format!("Bearer {token}");
        let r = served.get(path, &[("authorization", &auth)]);
        assert_eq!(r.status, 303, "{path} with a bearer token");
        let r = served.get(path, &[("cookie", "__Host-mastra-ask-session=forged")]);
        assert_eq!(r.status, 303, "{path} with a forged session");
    }
    assert_eq!(served.get("/events", &[]).status, 401);
    let api = [
        ("GET", "/api/agents".to_string()),
        ("GET", "/api/agents/ask/suspended-runs".to_string()),
        ("POST", "/api/agents/ask/resume-stream".to_string()),
        ("POST", "/api/agents/ask/approve-tool-call".to_string()),
        ("POST", "/api/agents/ask/decline-tool-call".to_string()),
    ];
    let before = env.dump();
    for (method, path) in &api {
        let body = resume_body(&q, &call, json!("x")).to_string();
        for headers in [
            vec![],
            vec![("authorization", "Bearer mra_wrong".to_string())],
            // The session cookie is for pages only.
            vec![("cookie", s.header())],
        ] {
            let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let r = if *method == "GET" {
                served.get(path, &h)
            } else {
                served.post(path, &h, &body)
            };
            assert_eq!(r.status, 401, "{method} {path} {headers:?}: {}", r.body);
            assert!(r.json()["error"].is_string());
        }
    }
    assert_same_store(&env.dump(), &before);
    // What needs no one: the health check, sign-in pages and the assets.
    for path in [
        "/healthz",
        "/login",
        "/login/anything",
        "/static/app.css",
        "/static/inbox.js",
    ] {
        assert_eq!(served.get(path, &[]).status, 200, "{path}");
    }
}

#[test]
fn csrf_and_cross_origin_posts_are_refused_and_change_nothing() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (q, call) = asked(&env, &["Q?"]);
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let path = format!("/runs/{q}/items/{call}");
    let other = served.sign_in(&token);
    let before = env.dump();
    let cookie = s.header();
    for (headers, fields) in [
        (
            vec![
                ("cookie", cookie.as_str()),
                ("origin", served.base.as_str()),
            ],
            vec![("answer", "x")],
        ),
        (
            vec![
                ("cookie", cookie.as_str()),
                ("origin", served.base.as_str()),
            ],
            vec![("csrf", "forged"), ("answer", "x")],
        ),
        (
            vec![
                ("cookie", cookie.as_str()),
                ("origin", "http://evil.example"),
            ],
            vec![("csrf", s.csrf.as_str()), ("answer", "x")],
        ),
        (
            vec![
                ("cookie", cookie.as_str()),
                ("origin", "null"),
                ("sec-fetch-site", "cross-site"),
            ],
            vec![("csrf", s.csrf.as_str()), ("answer", "x")],
        ),
    ] {
        let r = served.post(&path, &headers, &form(&fields));
        assert_eq!(r.status, 403, "{headers:?} {fields:?}: {}", r.body);
    }
    // Another session's csrf value does not fit this one.
    let r = served.post(
        &path,
        &[("cookie", &cookie), ("origin", &served.base)],
        &form(&[("csrf", &other.csrf), ("answer", "x")]),
    );
    assert_eq!(r.status, 403);
    // The API refuses another origin too, token or not.
    let auth = format!("Bearer {token}");
    let r = served.post(
        "/api/agents/ask/resume-stream",
        &[("authorization", &auth), ("origin", "http://evil.example")],
        &resume_body(&q, &call, json!("x")).to_string(),
    );
    assert_eq!(r.status, 403, "{}", r.body);
    // Sign-in and sign-out forms carry csrf values too.
    let r = served.post(
        "/login",
        &[("origin", &served.base)],
        &form(&[("token", &token)]),
    );
    assert_eq!(r.status, 403, "{}", r.body);
    let r = served.post(
        "/logout",
        &[("cookie", &cookie), ("origin", &served.base)],
        "",
    );
    assert_eq!(r.status, 403);
    assert_same_store(&env.dump(), &before);
}

#[test]
fn model_text_is_never_live_in_any_page() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let hostile = "<script>alert(1)</script><img src=x onerror=alert(2)><a href=\"javascript:alert(3)\">x</a>\u{1b}]8;;evil\u{7}\u{202e}\u{200b}";
    let input =
        json!({"question": hostile, "options": [{"label": hostile, "description": hostile}]});
    let (q, q_call) = asked(&env, &["--json", &input.to_string()]);
    let (p, p_call) = planned(
        &env,
        &format!("# {hostile}\n\n{hostile}\n\n[click](javascript:alert(4)) ![x](https://evil.example/x.png)\n\n<iframe src=https://evil.example></iframe>\n"),
    );
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let pages = [
        "/".to_string(),
        format!("/runs/{q}"),
        format!("/runs/{q}/items/{q_call}"),
        format!("/runs/{p}"),
        format!("/runs/{p}/items/{p_call}"),
    ];
    for path in &pages {
        let page = served.page(&s, path).body;
        // An option's value attribute carries its label exactly (what a tap answers); it
        // is never shown. Everything shown is checked.
        let body = without_values(&page);
        for live in [
            "<script>",
            "<img",
            "<iframe",
            "href=\"javascript",
            "onerror=alert(2)>",
            "\u{1b}",
            "\u{202e}",
            "\u{200b}",
        ] {
            if live == "onerror=alert(2)>" {
                // Shown as text: its `<` is escaped, so it can never be an attribute.
                assert!(!body.contains("<img src=x onerror"), "{path}");
                continue;
            }
            assert!(!body.contains(live), "{live:?} live in {path}: {body}");
        }
        assert!(
            body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "shown as text in {path}"
        );
        assert!(
            body.contains(r"\x1b") && body.contains(r"\u{202e}"),
            "hidden characters shown in {path}"
        );
    }
    let plan = served.page(&s, &format!("/runs/{p}/items/{p_call}")).body;
    assert!(
        plan.contains("[image: https://evil.example/x.png x]"),
        "no remote image is loaded"
    );
}

/// A page without its `value="..."` attributes.
fn without_values(page: &str) -> String {
    let mut out = String::new();
    let mut rest = page;
    while let Some(at) = rest.find(" value=\"") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 8..];
        rest = &after[after.find('"').map_or(after.len(), |e| e + 1)..];
    }
    out.push_str(rest);
    out
}

/// A POST whose headers declare `length` bytes of body (none is sent); the status line of
/// the answer.
fn declared(port: u16, path: &str, headers: &str, length: usize) -> String {
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        tcp,
        "POST {path} HTTP/1.1\r\nHost: x\r\n{headers}Content-Length: {length}\r\n\r\n"
    )
    .unwrap();
    let mut reply = Vec::new();
    let _ = tcp.read_to_end(&mut reply);
    String::from_utf8_lossy(&reply)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn secrets_are_never_in_the_log_the_store_or_a_page() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (q, call) = asked(&env, &["What is the launch code?"]);
    let link = env
        .run(&["reviewer", "link", "alice"])
        .stdout
        .trim()
        .to_string();
    let link_secret = link.rsplit('/').next().unwrap().to_string();
    let served = Served::start(&env, &[]);
    // Sign in with the link, the way a browser does.
    let page = served.get(&link, &[]);
    let pre = page.cookie("__Host-mastra-ask-pre").unwrap();
    let csrf = super::harness::csrf_of(&page.body);
    let r = served.post(
        &link,
        &[
            ("cookie", &format!("__Host-mastra-ask-pre={pre}")),
            ("origin", &served.base),
        ],
        &form(&[("csrf", &csrf)]),
    );
    assert_eq!(r.status, 303, "{}", r.body);
    let session = r.cookie("__Host-mastra-ask-session").unwrap();
    let s = served.sign_in(&token);
    let answer = "correct-horse-battery-staple";
    let r = served.submit(
        &s,
        &format!("/runs/{q}/items/{call}?x={token}"),
        &[("answer", answer)],
    );
    assert_eq!(r.status, 303, "{}", r.body);
    let mut pages = String::new();
    for path in [
        "/",
        &format!("/runs/{q}"),
        &format!("/runs/{q}/items/{call}"),
    ] {
        pages.push_str(&served.page(&s, path).body);
    }
    let log = served.log();
    assert!(log.contains("POST /login/… 303"), "{log}");
    assert!(
        log.contains(&format!("POST /runs/{q}/items/{call} 303")) && log.contains(" alice"),
        "{log}"
    );
    let dump = env.dump();
    for secret in [&token, &session, &s.cookie, &link_secret] {
        assert!(!log.contains(secret.as_str()), "a secret in the log: {log}");
        assert!(
            !dump.contains(secret.as_str()),
            "a secret in the store in clear"
        );
        assert!(!pages.contains(secret.as_str()), "a secret in a page");
    }
    assert!(!log.contains(answer), "an answer in the log: {log}");
}

#[test]
fn a_body_over_a_mebibyte_is_refused_and_consumes_nothing() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (q, call) = asked(&env, &["Q?"]);
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let before = env.dump();
    let auth = format!("Authorization: Bearer {token}\r\n");
    let status = declared(
        served.port(),
        "/api/agents/ask/resume-stream",
        &auth,
        2 << 20,
    );
    assert_eq!(status, "HTTP/1.1 413 Payload Too Large");
    let cookie = format!("Cookie: {}\r\n", s.header());
    let status = declared(
        served.port(),
        &format!("/runs/{q}/items/{call}"),
        &cookie,
        2 << 20,
    );
    assert_eq!(status, "HTTP/1.1 413 Payload Too Large");
    // A body that does not say its length is cut at the cap: what answers is a 413 (or,
    // when the server closed while the client still sent, nothing), and nothing is
    // consumed either way.
    let big = resume_body(&q, &call, json!("x".repeat(2 << 20))).to_string();
    let (port, auth2) = (served.port(), token.clone());
    let sender = std::thread::spawn(move || {
        let mut tcp = TcpStream::connect(("127.0.0.1", port)).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let head = format!(
            "POST /api/agents/ask/resume-stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {auth2}\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n",
            big.len()
        );
        let _ = tcp.write_all(head.as_bytes());
        let _ = tcp.write_all(big.as_bytes());
        let _ = tcp.write_all(b"\r\n0\r\n\r\n");
        let mut reply = Vec::new();
        let _ = tcp.read_to_end(&mut reply);
        String::from_utf8_lossy(&reply).to_string()
    });
    let reply = sender.join().unwrap();
    assert!(
        reply.is_empty() || reply.starts_with("HTTP/1.1 413"),
        "{reply}"
    );
    // Huge headers are refused too.
    let huge = "y".repeat(20 << 10);
    let mut tcp = TcpStream::connect(("127.0.0.1", served.port())).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let _ = write!(
        tcp,
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {huge}\r\n\r\n"
    );
    let mut reply = String::new();
    let _ = tcp.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 431"), "{reply:?}");
    assert_same_store(&env.dump(), &before);
}

#[test]
fn a_client_that_sends_nothing_is_cut() {
    let env = Env::new();
    let served = Served::start(&env, &[]);
    let started = Instant::now();
    let mut silent = TcpStream::connect(("127.0.0.1", served.port())).unwrap();
    let mut half = TcpStream::connect(("127.0.0.1", served.port())).unwrap();
    half.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    for tcp in [&mut silent, &mut half] {
        tcp.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut buf = Vec::new();
        // The server closes the connection (an error status, or nothing at all).
        let _ = tcp.read_to_end(&mut buf);
        assert!(started.elapsed() < Duration::from_secs(60), "never cut");
        let text = String::from_utf8_lossy(&buf);
        assert!(
            text.is_empty() || text.starts_with("HTTP/1.1 408"),
            "{text}"
        );
    }
    // Serve still answers others.
    assert_eq!(served.get("/healthz", &[]).status, 200);
}

#[test]
fn failed_sign_ins_are_answered_alike_and_slowed() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let served = Served::start(&env, &[]);
    let attempt = |t: &str| {
        let page = served.get("/login", &[]);
        let pre = page.cookie("__Host-mastra-ask-pre").unwrap();
        let csrf = super::harness::csrf_of(&page.body);
        let started = Instant::now();
        let r = served.post(
            "/login",
            &[
                ("cookie", &format!("__Host-mastra-ask-pre={pre}")),
                ("origin", &served.base),
            ],
            &form(&[("csrf", &csrf), ("token", t)]),
        );
        (r.status, r.body.replace(&csrf, ""), started.elapsed())
    };
    let unknown = attempt("mra_nobody");
    let wrong = attempt(&format!("{}x", &token[..token.len() - 1]));
    assert_eq!(
        (unknown.0, &unknown.1),
        (401, &wrong.1),
        "unknown and wrong tokens look the same"
    );
    for _ in 0..4 {
        attempt("mra_nobody");
    }
    let slowed = attempt("mra_nobody");
    assert!(
        slowed.2 >= Duration::from_millis(250),
        "not slowed: {:?}",
        slowed.2
    );
    // The right token still signs in, slowed as well.
    assert_eq!(attempt(&token).0, 303);
}

#[test]
fn sigterm_in_the_middle_of_a_followed_leg_finishes_it_and_exits_0() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (waiter, run) = waiting_run(
        &env,
        json!([ask("q1", "Name?"), {"delayMs": 2000, "text": "Named it."}]),
    );
    let mut served = Served::start(&env, &[]);
    // A live page's event stream is open too: shutdown ends it, it does not wait for it.
    let s = served.sign_in(&token);
    let mut page = TcpStream::connect(("127.0.0.1", served.port())).unwrap();
    page.set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        page,
        "GET /events HTTP/1.1\r\nHost: x\r\nCookie: {}\r\n\r\n",
        s.header()
    )
    .unwrap();
    let (url, body) = (
        served.url("/api/agents/tester/resume-stream"),
        resume_body(&run, "q1", json!("darkMode")).to_string(),
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
    assert!(!served.log().contains("still running"), "{}", served.log());
    let mut rest = Vec::new();
    let _ = page.read_to_end(&mut rest);
    assert!(
        String::from_utf8_lossy(&rest).contains(": connected"),
        "the page's stream was open"
    );
    let frames = r.frames();
    assert!(
        frames.iter().any(|f| f["type"] == "finish"),
        "the leg was cut: {frames:?}"
    );
    assert_eq!(frames.last(), Some(&json!("[DONE]")));
    crate::common::finish(waiter).assert_code(0);
}

#[test]
fn behind_a_proxy_the_client_is_the_last_forwarded_hop() {
    let env = Env::new();
    reviewer(&env, "alice");
    let served = Served::start(
        &env,
        &[
            "--behind-proxy",
            "--public-url",
            "https://inbox.example.com",
        ],
    );
    let attempt = |hops: &str| {
        let page = served.get("/login", &[]);
        let pre = page.cookie("__Host-mastra-ask-pre").unwrap();
        let csrf = super::harness::csrf_of(&page.body);
        let started = Instant::now();
        let r = served.post(
            "/login",
            &[
                ("cookie", &format!("__Host-mastra-ask-pre={pre}")),
                ("origin", "https://inbox.example.com"),
                ("x-forwarded-for", hops),
            ],
            &form(&[("csrf", &csrf), ("token", "mra_nobody")]),
        );
        assert_eq!(r.status, 401, "{}", r.body);
        started.elapsed()
    };
    // The first hop is what the client says; the last is what the proxy saw.
    for i in 0..6 {
        attempt(&format!("198.51.100.{i}, 203.0.113.7"));
    }
    assert!(attempt("198.51.100.99, 203.0.113.7") >= Duration::from_millis(250));
    // (That another address is not slowed is the limiter's unit test: a test here could
    // only say so by timing a fast answer.)
    // The origin of a POST is the public URL's.
    let r = served.post("/login", &[("origin", &served.url(""))], "");
    assert_eq!(r.status, 403);
}
