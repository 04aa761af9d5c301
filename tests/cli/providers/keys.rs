//! What a model spec needs before anything is stored (a key, a known form), and the key
//! kept out of the store, the events and the output.

use super::*;
use crate::assert_shown;

#[test]
fn a_missing_key_fails_before_anything_is_stored() {
    let env = Env::new();
    let out = env.cmd(&["run", "--model", MODEL, "Greet me"]).code(2);
    assert_shown!(env, out.stderr, @"
        error: openai models need an API key: OPENAI_API_KEY is not set
        hint: export OPENAI_API_KEY=<your key>
        ");
    assert_eq!(env.dump(), "no store");
}

#[test]
fn unknown_model_specs_list_the_forms() {
    let env = Env::new();
    let out = env.cmd(&["run", "--model", "gpt-4o", "Greet me"]).code(2);
    assert_shown!(env, out.stderr, @r#"error: unknown model spec "gpt-4o"; use one of: script:PATH, openai/MODEL, ollama/MODEL, openrouter/MODEL, openai-compatible/MODEL@URL, command:ARGV"#);
    let out = env
        .cmd(&["run", "--model", "openai-compatible/qwen", "Greet me"])
        .code(2);
    assert_shown!(env, out.stderr, @r#"error: "openai-compatible/qwen" needs a base URL: openai-compatible/MODEL@URL, e.g. openai-compatible/qwen2.5@http://localhost:8080/v1"#);
    assert_eq!(env.dump(), "no store");
}

// ---- 3. the key stays out ---------------------------------------------------------

#[test]
fn the_api_key_never_reaches_the_store_the_events_or_the_output() {
    let env = Env::new();
    // A careless server that repeats the key it was sent.
    let server = FakeServer::start(vec![
        Reply::status(
            401,
            error_body(&format!("Incorrect API key provided: {KEY}.")),
        ),
        streamed_ask(Style::OpenAi, Some("call_K"), QUESTION),
        streamed_text(Style::OpenAi, "Done."),
    ]);
    let mut outputs = Vec::new();
    let (out, run) = start(&env, &server);
    out.assert_code(1);
    assert_shown!(env, out.stderr, @"
        error: run [RUN] failed: openai at http://127.0.0.1:[PORT]/v1 refused the request (401 unauthorized): Incorrect API key provided: [redacted].; check that OPENAI_API_KEY holds a valid API key
        hint: retry it with: mastra-ask resume [RUN]
        ");
    outputs.push(out);
    outputs.push(run_openai(&env, &server, &["-o", "json", "resume", &run]));
    outputs.push(run_openai(&env, &server, &["answer", &run, "Ada"]));
    assert_eq!(env.status(&run), "completed");
    for args in [
        &["show", &run][..],
        &["-o", "json", "show", &run][..],
        &["runs"][..],
        &["-o", "json", "runs"][..],
    ] {
        outputs.push(run_openai(&env, &server, args));
    }
    for out in &outputs {
        assert!(
            !out.stdout.contains(KEY),
            "stdout has the key: {}",
            out.stdout
        );
        assert!(
            !out.stderr.contains(KEY),
            "stderr has the key: {}",
            out.stderr
        );
    }
    let events = show_json(&env, &run)["events"].to_string();
    assert!(events.contains("[redacted]") && !events.contains(KEY));
    assert!(!env.dump().contains(KEY), "the store holds the key");
    for file in ["store.db", "store.db-wal", "store.db-shm"] {
        if let Ok(bytes) = std::fs::read(env.path(file)) {
            assert!(
                !bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
                "{file} holds the key"
            );
        }
    }
    // It was sent, in the header only.
    for r in server.requests() {
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {KEY}").as_str())
        );
        assert!(!r.body.to_string().contains(KEY));
    }
}

#[test]
fn a_person_without_the_key_can_answer_for_a_waiter_that_has_it() {
    let env = Env::new();
    let server = FakeServer::start(vec![
        ask(Style::OpenAi, true, "q1", QUESTION),
        text(Style::OpenAi, true, "Hello, Ada."),
    ]);
    let mut waiter = openai(
        &env,
        &server.base_url(),
        &["run", "--model", MODEL, "--wait", "Greet me"],
    );
    waiter
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let waiter = waiter.spawn().unwrap();
    let run = env.first_pending();
    // No key here: the answer is recorded and the waiter, which has the key, drives on.
    let out = env.cmd(&["answer", &run, "Ada"]).code(0);
    assert_eq!(
        out.stderr,
        "answer recorded; the waiting process continues the run\n"
    );
    let out = crate::common::finish(waiter);
    out.assert_code(0);
    assert_eq!(out.stdout, "Hello, Ada.\n");
    // Without a waiter, the same keyless answer is refused and changes nothing.
    let server = FakeServer::start(vec![ask(Style::OpenAi, true, "q1", QUESTION)]);
    let (_, run) = start(&env, &server);
    let before = env.dump();
    let out = env.cmd(&["answer", &run, "Ada"]).code(2);
    assert_shown!(env, out.stderr, @"
        error: openai models need an API key: OPENAI_API_KEY is not set
        hint: export OPENAI_API_KEY=<your key>
        ");
    assert_eq!(env.dump(), before);
}
