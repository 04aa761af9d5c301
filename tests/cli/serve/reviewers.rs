//! `reviewer add|list|rotate|remove|link` and what they do to signing in (SPEC §13), and
//! `serve`'s own flags: the address it may listen on, the public URL recorded once,
//! `--drive` not yet there.

use serde_json::json;

use super::harness::{csrf_of, form, reviewer, Served};
use crate::assert_shown;
use crate::common::{assert_same_store, Env};

#[test]
fn a_token_is_printed_once_on_stdout_alone_and_stored_only_as_a_hash() {
    let env = Env::new();
    let out = env
        .cmd(&[
            "reviewer",
            "add",
            "alice",
            "--group",
            "release",
            "--group",
            "ops",
            "--os-user",
            "al",
        ])
        .code(0);
    let token = out.stdout.trim();
    assert_eq!(out.stdout.lines().count(), 1);
    assert!(token.starts_with("mra_") && token.len() > 40, "{token}");
    assert_shown!(env, out.stderr, @"reviewer alice added; the token above is shown only now (it signs in to serve, and is the API's Bearer token)");
    assert!(
        !env.dump().contains(token),
        "the token in clear in the store"
    );

    let list = env.cmd(&["reviewer", "list"]).code(0);
    assert!(
        list.stdout
            .starts_with("alice  groups: release, ops  os user: al  added "),
        "{}",
        list.stdout
    );
    assert!(!list.stdout.contains(token));
    let json = env.run(&["-o", "json", "reviewer", "list"]).json_lines();
    assert_eq!(
        (
            json[0]["name"].clone(),
            json[0]["groups"].clone(),
            json[0]["osUser"].clone(),
            json[0]["removedAt"].clone()
        ),
        (
            json!("alice"),
            json!(["release", "ops"]),
            json!("al"),
            json!(null)
        )
    );

    let again = env.cmd(&["reviewer", "add", "alice"]).code(4);
    assert_shown!(env, again.stderr, @"
        error: reviewer alice exists already
        hint: to give alice a new token: mastra-ask reviewer rotate alice
        ");
    // One active reviewer a user or role at most, whichever of the two is mapped already.
    env.cmd(&["reviewer", "add", "carol", "--pg-role", "ops"])
        .code(0);
    let before = env.dump();
    for (mapped, by) in [
        (&["--os-user", "al"][..], "alice"),
        (&["--os-user", "bo", "--pg-role", "ops"][..], "carol"),
    ] {
        let out = env
            .cmd(&[&["reviewer", "add", "bob"][..], mapped].concat())
            .code(2);
        assert_eq!(
            out.stderr,
            format!("error: reviewer {by} is mapped to that OS user or PostgreSQL role already; remove them first\n")
        );
    }
    assert_same_store(&env.dump(), &before);
    for bad in ["-x", "a b", "", "al\u{1b}ice"] {
        let out = env.cmd(&["reviewer", "add", "--", bad]).code(2);
        assert!(out.stderr.starts_with("error: the name "), "{}", out.stderr);
    }
    assert_same_store(&env.dump(), &before);
    env.run(&["reviewer", "rotate", "nobody"]).assert_code(3);
    env.run(&["reviewer", "link", "nobody"]).assert_code(3);
}

#[test]
fn rotating_a_token_ends_the_old_one_and_every_session() {
    let env = Env::new();
    let old = reviewer(&env, "alice");
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&old);
    assert_eq!(served.page(&s, "/").status, 200);
    let out = env.cmd(&["reviewer", "rotate", "alice"]).code(0);
    let new = out.stdout.trim().to_string();
    assert_ne!(new, old);
    assert_eq!(served.page(&s, "/").status, 303, "the session ended");
    assert_eq!(served.api_get("/agents", &old).status, 401);
    assert_eq!(served.api_get("/agents", &new).status, 200);
    let s = served.sign_in(&new);
    env.run(&["reviewer", "remove", "alice"]).assert_code(0);
    assert_eq!(served.page(&s, "/").status, 303, "removing ends sessions");
    assert_eq!(served.api_get("/agents", &new).status, 401, "and tokens");
    let list = env.run(&["reviewer", "list"]);
    assert_shown!(env, list.stdout, @"alice  added [TIME]  token rotated [TIME]  removed [TIME]");
    // The name may be given again, to someone with a new token.
    let again = reviewer(&env, "alice");
    assert_eq!(served.api_get("/agents", &again).status, 200);
}

/// Posts a sign-in link's form as a browser would; the status.
fn use_link(served: &Served, path: &str) -> u16 {
    let page = served.get(path, &[]);
    assert_eq!(page.status, 200, "a GET of the link spends nothing");
    let pre = page.cookie("__Host-mastra-ask-pre").unwrap();
    let r = served.post(
        path,
        &[
            ("cookie", &format!("__Host-mastra-ask-pre={pre}")),
            ("origin", &served.base),
        ],
        &form(&[("csrf", &csrf_of(&page.body))]),
    );
    r.status
}

#[test]
fn a_sign_in_link_works_once_even_under_concurrency() {
    let env = Env::new();
    reviewer(&env, "alice");
    let out = env.cmd(&["reviewer", "link", "alice"]).code(0);
    let path = out.stdout.trim().to_string();
    assert!(path.starts_with("/login/"), "{path}");
    assert_shown!(env, out.stderr, @"
        a sign-in link for alice: it works once, until [TIME]
        hint: this store has no public URL yet (serve --public-url URL records it); open the path above on the address serve listens at
        ");
    let served = std::sync::Arc::new(Served::start(&env, &[]));
    // Previews (GETs) first: they spend nothing.
    for _ in 0..3 {
        assert_eq!(served.get(&path, &[]).status, 200);
    }
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (served, path) = (served.clone(), path.clone());
            std::thread::spawn(move || use_link(&served, &path))
        })
        .collect();
    let statuses: Vec<u16> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 303).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 303 || *s == 401),
        "{statuses:?}"
    );
    assert_eq!(use_link(&served, "/login/never-given"), 401);
}

#[test]
fn serve_refuses_an_open_address_without_tls_and_records_its_public_url_once() {
    let env = Env::new();
    let before = env.dump();
    let out = env.cmd(&["serve", "--listen", "0.0.0.0:0"]).code(2);
    assert_shown!(env, out.stderr, @"
        error: serve would listen on 0.0.0.0:0 without TLS: tokens and answers would cross the network in clear
        hint: give --tls-cert FILE --tls-key FILE, or --behind-proxy with an https --public-url when a TLS-terminating proxy is in front
        ");
    let out = env
        .cmd(&["serve", "--listen", "0.0.0.0:0", "--behind-proxy"])
        .code(2);
    assert_shown!(env, out.stderr, @"error: --behind-proxy needs --public-url https://...: the address people reach through the proxy");
    env.cmd(&["serve", "--public-url", "ftp://x"]).code(2);
    assert_same_store(&env.dump(), &before);

    let mut served = Served::start(&env, &["--public-url", "https://inbox.example.com/"]);
    assert_eq!(served.base, "https://inbox.example.com");
    served.terminate();
    reviewer(&env, "alice");
    let link = env.run(&["reviewer", "link", "alice"]);
    assert!(
        link.stdout.starts_with("https://inbox.example.com/login/"),
        "{}",
        link.stdout
    );
    let out = env
        .cmd(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--public-url",
            "https://elsewhere.example",
        ])
        .code(2);
    assert_shown!(env, out.stderr, @"error: this store's public URL is https://inbox.example.com, not https://elsewhere.example: links already given out point there");
    let mut served = Served::start(
        &env,
        &[
            "--public-url",
            "https://elsewhere.example",
            "--replace-public-url",
        ],
    );
    assert_eq!(served.base, "https://elsewhere.example");
    assert_eq!(served.terminate(), 0);
}

#[test]
fn healthz_answers_while_the_store_does() {
    let env = Env::new();
    let served = Served::start(&env, &[]);
    let r = served.get("/healthz", &[]);
    assert_eq!((r.status, r.body.as_str()), (200, "ok\n"));
    for (name, value) in [
        ("cache-control", "no-store"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        ("x-content-type-options", "nosniff"),
    ] {
        assert_eq!(r.header(name), Some(value), "{name}");
    }
    assert!(r
        .header("content-security-policy")
        .unwrap()
        .contains("frame-ancestors 'none'"));
}

#[test]
fn serve_runs_its_own_hook_for_each_new_item() {
    let env = Env::new();
    asked_before(&env);
    let served = Served::start(&env, &["--on-suspend", "cat >> hook.log"]);
    let (run, _) = super::harness::asked(&env, &["Which region?"]);
    env.poll("the hook never ran", || {
        std::fs::read_to_string(env.path("work/hook.log")).is_ok_and(|s| s.contains(&run))
    });
    let log = std::fs::read_to_string(env.path("work/hook.log")).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "only the new item: {log}");
    assert_eq!(
        (lines[0]["runId"].as_str(), lines[0]["kind"].as_str()),
        (Some(run.as_str()), Some("question"))
    );
    drop(served);
}

/// An item pending before serve starts: not new to it.
fn asked_before(env: &Env) {
    super::harness::asked(env, &["Already waiting?"]);
}

#[test]
fn serve_speaks_https_with_its_own_certificate() {
    let env = Env::new();
    let (cert, key) = (env.path("cert.pem"), env.path("key.pem"));
    let made = std::process::Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-addext",
            "basicConstraints=critical,CA:FALSE",
            "-keyout",
        ])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stderr(std::process::Stdio::null())
        .status();
    if !made.is_ok_and(|s| s.success()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "openssl is needed to make a test certificate"
        );
        return;
    }
    let served = Served::start(
        &env,
        &[
            "--tls-cert",
            &cert.to_string_lossy(),
            "--tls-key",
            &key.to_string_lossy(),
        ],
    );
    assert!(
        served.base.starts_with("https://127.0.0.1:"),
        "{}",
        served.base
    );
    let pem = std::fs::read(&cert).unwrap();
    let root = ureq::tls::Certificate::from_pem(&pem).unwrap().to_owned();
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::Specific(std::sync::Arc::new(vec![
            root,
        ])))
        .build();
    let agent: ureq::Agent = ureq::Agent::config_builder().tls_config(tls).build().into();
    let mut r = agent.get(&served.url("/healthz")).call().unwrap();
    assert_eq!(r.body_mut().read_to_string().unwrap(), "ok\n");
    // A key that is not one is a usage error before anything listens.
    std::fs::write(&key, "not a key").unwrap();
    let out = env
        .cmd(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--tls-cert",
            &cert.to_string_lossy(),
            "--tls-key",
            &key.to_string_lossy(),
        ])
        .code(2);
    assert!(out.stderr.contains("the TLS key"), "{}", out.stderr);
}

#[test]
fn of_eight_processes_adding_one_name_exactly_one_does() {
    let env = Env::new();
    reviewer(&env, "first"); // the store exists before the race
    let children: Vec<_> = (0..8)
        .map(|_| env.spawn(&["reviewer", "add", "bob"]))
        .collect();
    let outs: Vec<_> = children.into_iter().map(crate::common::finish).collect();
    let codes: Vec<i32> = outs.iter().map(|o| o.code).collect();
    assert_eq!(codes.iter().filter(|c| **c == 0).count(), 1, "{codes:?}");
    assert!(codes.iter().all(|c| *c == 0 || *c == 4), "{codes:?}");
    let token = outs
        .iter()
        .find(|o| o.code == 0)
        .unwrap()
        .stdout
        .trim()
        .to_string();
    let served = Served::start(&env, &[]);
    assert_eq!(
        served.api_get("/agents", &token).status,
        200,
        "the winner's token works"
    );
}

#[test]
fn links_expire_and_sessions_end_when_idle_or_old() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let served = Served::start(&env, &[]);
    let link = env
        .run(&["reviewer", "link", "alice"])
        .stdout
        .trim()
        .to_string();
    // Fifteen minutes later (the clock moved for the row, not for the test).
    env.exec(
        "UPDATE sign_in_links SET expires_at = expires_at - 15 * 60 * 1000 - 1",
        &[],
    );
    assert_eq!(use_link(&served, &link), 401);
    let idle = served.sign_in(&token);
    let old = served.sign_in(&token);
    let hash_of = |s: &str| {
        let digest = ring::digest::digest(&ring::digest::SHA256, s.as_bytes());
        digest
            .as_ref()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    env.exec(
        "UPDATE sessions SET last_seen_at = last_seen_at - 12 * 3600 * 1000 WHERE id_hash = ?1",
        &[&hash_of(&idle.cookie)],
    );
    env.exec(
        "UPDATE sessions SET created_at = created_at - 7 * 24 * 3600 * 1000 WHERE id_hash = ?1",
        &[&hash_of(&old.cookie)],
    );
    assert_eq!(served.page(&idle, "/").status, 303, "12 hours idle");
    assert_eq!(served.page(&old, "/").status, 303, "7 days old");
    assert_eq!(served.page(&served.sign_in(&token), "/").status, 200);
}
