//! Telling reviewers of new items (SPEC §17), through real serve processes and a fake ntfy
//! server of the tests' own on loopback (`FakeServer`, which records each request's method,
//! path, headers and JSON body): `reviewer add --notify` and `reviewer notify` (channels
//! checked, shown, cleared), `serve --ntfy-token-file` (a private file), what a private and a
//! public channel get, only the reviewers a policy allows, once per item and reviewer with
//! two serves on one store, items pending before serve started, and a failing channel. The
//! wire format is cross-checked by a real ntfy client, Debian's `apprise` (1.2.0), publishing
//! the same notification to the fake.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::{json, Value};

use super::harness::{asked, reviewer, Served};
use crate::assert_shown;
use crate::common::{assert_same_store, never, Env};
use crate::fake_server::{FakeServer, Recorded, Reply};

/// A fake ntfy server that accepts every publication.
pub(super) fn ntfy() -> FakeServer {
    FakeServer::serving(|_| Reply::ok(json!({"id": "m1", "event": "message"})))
}

/// `ntfy:` and the topic's URL on `server`.
pub(super) fn channel(server: &FakeServer, topic: &str) -> String {
    format!("ntfy:{}/{topic}", server.root_url())
}

/// A token file (private unless `mode` says otherwise) giving `token` for `server`.
pub(super) fn token_file(env: &Env, server: &FakeServer, token: &str, mode: u32) -> String {
    let host = server.root_url().trim_start_matches("http://").to_string();
    let path = env.write(
        "work/ntfy-tokens",
        &format!("# ntfy servers\n{host} {token}\n"),
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path.to_string_lossy().into_owned()
}

/// The publications `server` received for `topic`.
pub(super) fn published(server: &FakeServer, topic: &str) -> Vec<Recorded> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.body["topic"] == json!(topic))
        .collect()
}

fn notified(env: &Env, run: &str) -> i64 {
    env.count(
        &format!("SELECT count(*) FROM notifications WHERE {}", env.of_run()),
        &[run],
    )
}

#[test]
fn channels_are_checked_shown_and_cleared() {
    let env = Env::new();
    let ok = "ntfy:https://ntfy.example/alice-7";
    env.cmd(&["reviewer", "add", "alice", "--notify", ok])
        .code(0);
    let list = env.cmd(&["reviewer", "list"]).code(0);
    assert_shown!(env, list.stdout, @"alice  notify: ntfy:https://ntfy.example/alice-7  added [TIME]");
    let json = env.run(&["-o", "json", "reviewer", "list"]).json_lines();
    assert_eq!(json[0]["notify"], json!(ok));

    let before = env.dump();
    for (bad, why) in [
        ("https://ntfy.example/t", "a channel is ntfy:https://HOST/TOPIC"),
        ("ntfy:http://ntfy.example/t", "ntfy:http://ntfy.example/t is not an ntfy topic's URL: it must be https (http only to this machine)"),
        ("ntfy:https://ntfy.example/a/b", "ntfy:https://ntfy.example/a/b is not an ntfy topic's URL: its path must be /TOPIC, 1 to 64 letters, digits, `_` or `-`"),
        ("ntfy:https://u:p@ntfy.example/t", "ntfy:https://u:p@ntfy.example/t is not an ntfy topic's URL: it must not hold a user or password (give serve --ntfy-token-file)"),
    ] {
        let out = env.cmd(&["reviewer", "notify", "alice", bad]).code(2);
        assert_eq!(out.stderr, format!("error: {why}\n"));
        let out = env.cmd(&["reviewer", "add", "bob", "--notify", bad]).code(2);
        assert_eq!(out.stderr, format!("error: {why}\n"));
    }
    assert_same_store(&env.dump(), &before);
    env.cmd(&["reviewer", "notify", "nobody", ok]).code(3);

    let set = env
        .cmd(&["reviewer", "notify", "alice", "ntfy:http://localhost/x"])
        .code(0);
    assert_shown!(env, set.stderr, @"serve tells reviewer alice of new items at ntfy:http://localhost/x");
    let none = env.cmd(&["reviewer", "notify", "alice", "--none"]).code(0);
    assert_shown!(env, none.stderr, @"serve tells reviewer alice of nothing");
    let list = env.cmd(&["reviewer", "list"]).code(0);
    assert_shown!(env, list.stdout, @"alice  added [TIME]");
    env.cmd(&["reviewer", "notify", "alice"]).code(2);
}

#[test]
fn a_token_file_others_can_read_is_refused() {
    let env = Env::new();
    let server = ntfy();
    let file = token_file(&env, &server, "tk_secret", 0o644);
    let refused = || {
        env.cmd(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--ntfy-token-file",
            &file,
        ])
        .code(2)
    };
    let out = refused();
    assert_eq!(
        out.stderr,
        format!("error: the ntfy token file {file} has group or world access; make it private (chmod 600)\n")
    );
    std::fs::write(&file, "just-a-token\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = refused();
    assert_eq!(
        out.stderr,
        format!("error: the ntfy token file {file}: line 1 is not HOST[:PORT] TOKEN\n")
    );
}

#[test]
fn a_private_channel_gets_the_text_and_its_token_a_public_one_neither() {
    let env = Env::new();
    let private = ntfy();
    let public = ntfy();
    reviewer(&env, "alice");
    reviewer(&env, "bob");
    env.cmd(&["reviewer", "notify", "alice", &channel(&private, "alice")])
        .code(0);
    env.cmd(&["reviewer", "notify", "bob", &channel(&public, "bob")])
        .code(0);
    let file = token_file(&env, &private, "tk_alice", 0o600);
    let served = Served::start(
        &env,
        &[
            "--public-url",
            "https://inbox.example",
            "--ntfy-token-file",
            &file,
        ],
    );
    // A new item, after serve started.
    let (run, call) = asked(&env, &["Ship the \u{1b}[31msecret\u{1b}[0m v2?"]);
    env.poll("both were told", || {
        published(&private, "alice").len() == 1 && published(&public, "bob").len() == 1
    });
    let url = format!("https://inbox.example/runs/{run}/items/{call}");
    let open = json!([{"action": "view", "label": "Open", "url": url, "clear": true}]);

    let mine = &published(&private, "alice")[0];
    assert_eq!((mine.method.as_str(), mine.path.as_str()), ("POST", "/"));
    assert_eq!(mine.header("authorization"), Some("Bearer tk_alice"));
    assert_eq!(mine.header("content-type"), Some("application/json"));
    assert_eq!(
        mine.body,
        json!({
            "topic": "alice",
            "title": "question waits: ask",
            "message": "Ship the \\x1b[31msecret\\x1b[0m v2?",
            "priority": 4,
            "click": url,
            "actions": open,
        })
    );

    let theirs = &published(&public, "bob")[0];
    assert_eq!(theirs.header("authorization"), None);
    assert_eq!(
        theirs.body,
        json!({
            "topic": "bob",
            "title": "question waits: ask",
            "message": theirs.body["message"],
            "priority": 4,
            "click": url,
            "actions": open,
        })
    );
    let message = theirs.body["message"].as_str().unwrap();
    assert!(
        message.starts_with("question of agent ask, waiting "),
        "{message}"
    );
    assert!(
        !theirs.body.to_string().contains("secret"),
        "{}",
        theirs.body
    );
    assert_eq!(private.count() + public.count(), 2, "nothing else was sent");
    assert_eq!(notified(&env, &run), 2);
    assert!(!served.log().contains("tk_alice"), "{}", served.log());
}

#[test]
fn only_the_reviewers_the_policy_allows_are_told() {
    let env = Env::new();
    let server = ntfy();
    for name in ["alice", "bob", "carol", "dave"] {
        reviewer(&env, name);
    }
    for name in ["alice", "bob", "dave"] {
        env.cmd(&["reviewer", "notify", name, &channel(&server, name)])
            .code(0);
    }
    // A removed reviewer is told nothing, whatever their channel was.
    env.cmd(&["reviewer", "remove", "dave"]).code(0);
    let _served = Served::start(&env, &[]);
    let (run, _) = asked(&env, &["--reviewer", "alice", "--reviewer", "carol", "Go?"]);
    env.poll("alice was told", || published(&server, "alice").len() == 1);
    // Without a policy, every reviewer with a channel.
    let (open_run, _) = asked(&env, &["Anyone?"]);
    env.poll("both were told", || published(&server, "bob").len() == 1);
    assert_eq!(published(&server, "alice").len(), 2);
    assert_eq!(published(&server, "dave").len(), 0);
    assert_eq!((notified(&env, &run), notified(&env, &open_run)), (1, 2));
    // Without --public-url, no link.
    assert_eq!(published(&server, "bob")[0].body.get("click"), None);
}

#[test]
fn two_serves_tell_each_reviewer_once_and_catch_up_on_items_pending_before() {
    let env = Env::new();
    let server = ntfy();
    for name in ["alice", "bob"] {
        reviewer(&env, name);
        env.cmd(&["reviewer", "notify", name, &channel(&server, name)])
            .code(0);
    }
    // Pending while no serve ran.
    let (before, _) = asked(&env, &["Before?"]);
    let file = token_file(&env, &server, "tk", 0o600);
    let _one = Served::start(&env, &["--ntfy-token-file", &file]);
    let _two = Served::start(&env, &["--ntfy-token-file", &file]);
    let (after, _) = asked(&env, &["After?"]);
    env.poll("each was told of each", || server.count() == 4);
    never(
        "someone was told twice",
        Duration::from_millis(1500),
        || server.count() > 4,
    );
    let mut seen: Vec<(Value, Value)> = server
        .requests()
        .iter()
        .map(|r| (r.body["topic"].clone(), r.body["message"].clone()))
        .collect();
    seen.sort_by_key(|(t, m)| format!("{t}{m}"));
    assert_eq!(
        seen,
        [
            (json!("alice"), json!("After?")),
            (json!("alice"), json!("Before?")),
            (json!("bob"), json!("After?")),
            (json!("bob"), json!("Before?")),
        ]
        .to_vec()
    );
    assert_eq!((notified(&env, &before), notified(&env, &after)), (2, 2));
}

#[test]
fn a_failing_channel_is_tried_again_and_logged_and_serve_goes_on() {
    let env = Env::new();
    let server = FakeServer::start(vec![
        Reply::status(500, json!({"error": "down"})),
        Reply::status(503, json!({"error": "still down"})),
    ]);
    server.handle(|_| Reply::ok(json!({"id": "m1"})));
    reviewer(&env, "alice");
    env.cmd(&["reviewer", "notify", "alice", &channel(&server, "alice")])
        .code(0);
    let file = token_file(&env, &server, "tk_alice", 0o600);
    let served = Served::start(&env, &["--ntfy-token-file", &file]);
    let (run, call) = asked(&env, &["Go?"]);
    env.poll("the third try", || server.count() == 3);
    assert_eq!(served.get("/healthz", &[]).status, 200);
    let requests = server.requests();
    assert!(requests.iter().all(|r| r.body == requests[0].body));
    let log = served.log();
    let failures: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("warning: telling"))
        .collect();
    let port = server.root_url().rsplit(':').next().unwrap().to_string();
    assert_eq!(
        failures,
        [
            format!("warning: telling reviewer alice of tool call {call} of run {run} failed (try 1 of 4): http://127.0.0.1:{port} answered 500: {{\"error\":\"down\"}}"),
            format!("warning: telling reviewer alice of tool call {call} of run {run} failed (try 2 of 4): http://127.0.0.1:{port} answered 503: {{\"error\":\"still down\"}}"),
        ]
    );
    assert!(!log.contains("tk_alice"), "{log}");
}

#[test]
fn a_redirect_is_not_followed_so_the_token_goes_nowhere_else() {
    let env = Env::new();
    let elsewhere = ntfy();
    let server = FakeServer::serving({
        let to = format!("{}/", elsewhere.root_url());
        move |_| Reply::Json {
            status: 307,
            headers: vec![("location", to.clone())],
            body: "{}".into(),
        }
    });
    reviewer(&env, "alice");
    env.cmd(&["reviewer", "notify", "alice", &channel(&server, "alice")])
        .code(0);
    let file = token_file(&env, &server, "tk_alice", 0o600);
    let served = Served::start(&env, &["--ntfy-token-file", &file]);
    asked(&env, &["Go?"]);
    env.poll("every try was made", || server.count() == 4);
    env.poll("it gave up", || served.log().contains("given up"));
    assert_eq!(elsewhere.count(), 0, "the redirect was followed");
    assert!(served
        .log()
        .contains("answered 307, a redirect (not followed)"));
    assert!(!served.log().contains("tk_alice"));
}

/// Debian's `apprise`, a real ntfy client; under `CI` a missing one fails the test.
fn apprise() -> Option<&'static str> {
    const APPRISE: &str = "/usr/bin/apprise";
    let there = std::path::Path::new(APPRISE).exists();
    if !there {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but {APPRISE} is missing: apt-get install apprise"
        );
        eprintln!("skipped: no {APPRISE} (apt-get install apprise)");
    }
    there.then_some(APPRISE)
}

#[test]
fn a_real_ntfy_client_publishes_what_serve_publishes() {
    let Some(apprise) = apprise() else { return };
    let env = Env::new();
    let server = ntfy();
    reviewer(&env, "alice");
    env.cmd(&["reviewer", "notify", "alice", &channel(&server, "alice")])
        .code(0);
    let file = token_file(&env, &server, "tk_alice", 0o600);
    let _served = Served::start(&env, &["--ntfy-token-file", &file]);
    asked(&env, &["Ship v2?"]);
    env.poll("serve published", || server.count() == 1);
    let ours = server.requests().remove(0);

    // apprise 1.2.0 publishes with ntfy's JSON API too (its `ntfy://HOST:PORT/TOPIC`),
    // given the same topic, title and message.
    let host = server.root_url().trim_start_matches("http://").to_string();
    let status = std::process::Command::new(apprise)
        .args(["-t", "question waits: ask", "-b", "Ship v2?"])
        .arg(format!("ntfy://{host}/alice"))
        .env_clear()
        .env("HOME", env.path("home"))
        .env("PATH", "/usr/bin:/bin")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "apprise: {status}");
    let theirs = server.requests().remove(1);
    assert_eq!(
        (theirs.method.as_str(), theirs.path.as_str()),
        (ours.method.as_str(), ours.path.as_str())
    );
    assert_eq!(theirs.header("content-type"), ours.header("content-type"));
    // Every field it sends, serve sends the same (serve adds priority, click and actions,
    // ntfy's JSON fields for what apprise sends as headers or not at all).
    let fields = theirs.body.as_object().unwrap();
    assert_eq!(
        fields.keys().collect::<Vec<_>>(),
        ["topic", "title", "message"]
    );
    for (name, value) in fields {
        assert_eq!(&ours.body[name], value, "{name}");
    }
}
