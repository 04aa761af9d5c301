//! HTTP errors and refused connections: which are retried (and after how long), which
//! fail the run at once, what the person is told, and `resume` once the server is back.

use super::*;

#[test]
fn unauthorized_names_the_key_variable_and_is_not_retried() {
    let env = Env::new();
    let server = FakeServer::start(vec![Reply::status(
        401,
        error_body("Incorrect API key provided."),
    )]);
    let (out, run) = start(&env, &server);
    assert_failed(
        &env,
        &out,
        &run,
        "refused the request (401 unauthorized): Incorrect API key provided.; check that OPENAI_API_KEY holds a valid API key",
    );
    assert_eq!(server.count(), 1);
    assert_resumes(&env, &server, &run);
}

#[test]
fn forbidden_without_a_key_says_which_variable_to_set() {
    let env = Env::new();
    let server = FakeServer::start(vec![Reply::status(403, json!({"error": "no key"}))]);
    let spec = format!("openai-compatible/local@{}", server.base_url());
    let out = env.run(&["run", "--model", &spec, "Greet me"]);
    let run = env.latest_run().unwrap();
    assert_failed(
        &env,
        &out,
        &run,
        "(403 forbidden): no key; set MASTRA_ASK_API_KEY to an API key",
    );
    assert_eq!(server.count(), 1);
    assert_eq!(server.requests()[0].header("authorization"), None);
    // With the key set (the spec keeps the server's URL), the run goes on.
    server.push(vec![streamed_text(Style::OpenAi, "Hello there.")]);
    let mut resume = env.command(&["resume", &run]);
    resume.env("MASTRA_ASK_API_KEY", KEY);
    let out = env.run_with(resume);
    out.assert_code(0);
    assert_eq!(out.stdout, "Hello there.\n");
    assert_eq!(
        server.requests()[1].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}

#[test]
fn bad_request_shows_the_server_message() {
    let env = Env::new();
    let server = FakeServer::start(vec![Reply::status(
        400,
        error_body("Invalid schema for function 'ask_user': 'options' is not valid."),
    )]);
    let (out, run) = start(&env, &server);
    assert_failed(
        &env,
        &out,
        &run,
        &format!(
            "openai at {} rejected the request (400 bad request): Invalid schema for function 'ask_user': 'options' is not valid.",
            server.base_url()
        ),
    );
    assert_eq!(server.count(), 1);
    assert_resumes(&env, &server, &run);
}

#[test]
fn rate_limit_is_retried_after_the_servers_retry_after() {
    let env = Env::new();
    let server = FakeServer::start(vec![
        with_retry_after(429, "1", "Rate limit reached for gpt-4o-mini."),
        with_retry_after(429, "0", "Rate limit reached for gpt-4o-mini."),
        streamed_text(Style::OpenAi, "Hi."),
    ]);
    let began = Instant::now();
    let (out, run) = start(&env, &server);
    out.assert_code(0);
    assert!(
        began.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 was not honoured"
    );
    assert_eq!(out.stdout, "Hi.\n");
    assert_eq!(server.count(), 3);
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn rate_limit_asking_for_too_long_a_wait_fails_at_once() {
    let env = Env::new();
    let server = FakeServer::start(vec![with_retry_after(429, "3600", "Daily limit reached.")]);
    let (out, run) = start(&env, &server);
    assert_failed(
        &env,
        &out,
        &run,
        "answered 429 too many requests: Daily limit reached. (the server asked to retry after 3600s)",
    );
    assert_eq!(server.count(), 1);
    assert_resumes(&env, &server, &run);
}

#[test]
fn server_errors_are_retried_three_times() {
    let env = Env::new();
    let oops = || {
        Reply::status(
            500,
            error_body("The server had an error while processing your request."),
        )
    };
    let server = FakeServer::start(vec![
        oops(),
        oops(),
        oops(),
        streamed_text(Style::OpenAi, "Made it."),
    ]);
    let (out, run) = start(&env, &server);
    out.assert_code(0);
    assert_eq!(out.stdout, "Made it.\n");
    assert_eq!(server.count(), 4);
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn a_fourth_server_error_fails_the_run() {
    let env = Env::new();
    let oops = || Reply::status(503, json!({"error": {"message": "Service overloaded."}}));
    let server = FakeServer::start(vec![oops(), oops(), oops(), oops()]);
    let (out, run) = start(&env, &server);
    assert_failed(
        &env,
        &out,
        &run,
        "answered 503 service unavailable: Service overloaded. (after 4 attempts)",
    );
    assert_eq!(server.count(), 4);
    assert_resumes(&env, &server, &run);
    assert_eq!(server.count(), 5);
}

#[test]
fn connection_resets_are_retried() {
    let env = Env::new();
    let server = FakeServer::start(vec![
        Reply::Reset,
        Reply::Reset,
        streamed_text(Style::OpenAi, "Back."),
    ]);
    let (out, run) = start(&env, &server);
    out.assert_code(0);
    assert_eq!(out.stdout, "Back.\n");
    assert_eq!(server.count(), 3);
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn four_connection_resets_fail_the_run() {
    let env = Env::new();
    let server = FakeServer::start(vec![Reply::Reset, Reply::Reset, Reply::Reset, Reply::Reset]);
    let (out, run) = start(&env, &server);
    assert_failed(
        &env,
        &out,
        &run,
        "the connection was reset or closed early (after 4 attempts)",
    );
    assert_eq!(server.count(), 4);
    assert_resumes(&env, &server, &run);
}

#[test]
fn connection_refused_fails_after_retries_and_resume_recovers() {
    let env = Env::new();
    let port = DeadPort::new();
    let dead = port.base_url();
    let out = env.run_with(openai(&env, &dead, &["run", "--model", MODEL, "Greet me"]));
    let run = env.latest_run().unwrap();
    assert_failed(
        &env,
        &out,
        &run,
        &format!("cannot get an answer from openai at {dead}: connection refused, is the server running? (after 4 attempts)"),
    );
    // The base URL comes from the environment of whoever drives the run.
    let server = FakeServer::start(vec![]);
    assert_resumes(&env, &server, &run);
    assert_eq!(server.count(), 1);
}
