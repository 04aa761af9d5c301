//! Real model providers against a fake server in the test (no network, no real key):
//! exchanges shaped like OpenAI's and llama.cpp's, streamed and not, every wire fault and
//! HTTP error with its retries and the run's stored state, the key kept out of everything,
//! and `command:` models.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{assert_one_line_error, Env, Out};
use crate::fake_server::{DeadPort, End, FakeServer, Reply};

const KEY: &str = "sk-test-K3y-7f3a9c1e5b2d4f60a8e1";
const MODEL: &str = "openai/gpt-4o-mini";
const QUESTION: &str = "What is your name?";

// ---- shapes of real servers ----------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Style {
    OpenAi,
    LlamaCpp,
}

/// One streamed chunk with this delta.
fn chunk(style: Style, delta: Value, finish: Option<&str>) -> String {
    match style {
        Style::OpenAi => json!({
            "id": "chatcmpl-A1b2C3", "object": "chat.completion.chunk", "created": 1_718_000_000,
            "model": "gpt-4o-mini-2024-07-18", "system_fingerprint": "fp_0ba0d124f1",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
            "usage": null,
        }),
        Style::LlamaCpp => json!({
            "choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
            "created": 1_718_000_000, "id": "chatcmpl-xk29", "model": "qwen2.5-7b-instruct",
            "system_fingerprint": "b4500-adc5dd92", "object": "chat.completion.chunk",
        }),
    }
    .to_string()
}

fn usage(prompt: u64, completion: u64) -> Value {
    json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion})
}

/// The last chunks of a stream: the finish reason and the usage, as each server sends them.
fn stream_end(style: Style, finish: &str, prompt: u64, completion: u64) -> Vec<String> {
    match style {
        Style::OpenAi => vec![
            chunk(style, json!({}), Some(finish)),
            json!({"id": "chatcmpl-A1b2C3", "object": "chat.completion.chunk", "choices": [],
                   "usage": usage(prompt, completion)})
            .to_string(),
        ],
        Style::LlamaCpp => {
            let mut last: Value =
                serde_json::from_str(&chunk(style, json!({}), Some(finish))).unwrap();
            last["usage"] = usage(prompt, completion);
            last["timings"] =
                json!({"prompt_n": prompt, "prompt_ms": 41.2, "predicted_n": completion});
            vec![last.to_string()]
        }
    }
}

/// A streamed tool call of `ask_user`, its arguments in small pieces.
fn streamed_ask(style: Style, id: Option<&str>, question: &str) -> Reply {
    let args = json!({"question": question}).to_string();
    let mut call =
        json!({"index": 0, "type": "function", "function": {"name": "ask_user", "arguments": ""}});
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    let first = match style {
        Style::OpenAi => {
            json!({"role": "assistant", "content": null, "tool_calls": [call], "refusal": null})
        }
        Style::LlamaCpp => json!({"role": "assistant", "content": "", "tool_calls": [call]}),
    };
    let mut frames = vec![chunk(style, first, None)];
    let chars: Vec<char> = args.chars().collect();
    for piece in chars.chunks(3) {
        let piece: String = piece.iter().collect();
        frames.push(chunk(
            style,
            json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
            None,
        ));
    }
    frames.extend(stream_end(style, "tool_calls", 120, 18));
    Reply::sse(frames)
}

/// A streamed text answer, word by word.
fn streamed_text(style: Style, text: &str) -> Reply {
    let mut frames = vec![chunk(
        style,
        json!({"role": "assistant", "content": ""}),
        None,
    )];
    for word in text.split_inclusive(' ') {
        frames.push(chunk(style, json!({"content": word}), None));
    }
    frames.extend(stream_end(style, "stop", 150, 6));
    Reply::sse(frames)
}

fn whole(style: Style, message: Value, finish: &str, prompt: u64, completion: u64) -> Reply {
    let choice = json!({"index": 0, "message": message, "logprobs": null, "finish_reason": finish});
    Reply::ok(match style {
        Style::OpenAi => json!({
            "id": "chatcmpl-A1b2C3", "object": "chat.completion", "created": 1_718_000_000,
            "model": "gpt-4o-mini-2024-07-18", "choices": [choice],
            "usage": usage(prompt, completion), "system_fingerprint": "fp_0ba0d124f1",
            "service_tier": "default",
        }),
        Style::LlamaCpp => json!({
            "choices": [choice], "created": 1_718_000_000, "model": "qwen2.5-7b-instruct",
            "system_fingerprint": "b4500-adc5dd92", "object": "chat.completion",
            "usage": usage(prompt, completion), "id": "chatcmpl-xk29",
            "timings": {"prompt_n": prompt, "prompt_ms": 41.2, "predicted_n": completion},
        }),
    })
}

fn whole_ask(style: Style, id: &str, question: &str) -> Reply {
    let call = json!({"id": id, "type": "function",
                      "function": {"name": "ask_user", "arguments": json!({"question": question}).to_string()}});
    let message = match style {
        Style::OpenAi => {
            json!({"role": "assistant", "content": null, "tool_calls": [call], "refusal": null})
        }
        Style::LlamaCpp => json!({"role": "assistant", "content": "", "tool_calls": [call]}),
    };
    whole(style, message, "tool_calls", 120, 18)
}

fn whole_text(style: Style, text: &str) -> Reply {
    whole(
        style,
        json!({"role": "assistant", "content": text}),
        "stop",
        150,
        6,
    )
}

fn ask(style: Style, stream: bool, id: &str, question: &str) -> Reply {
    if stream {
        streamed_ask(style, Some(id), question)
    } else {
        whole_ask(style, id, question)
    }
}

fn text(style: Style, stream: bool, text: &str) -> Reply {
    if stream {
        streamed_text(style, text)
    } else {
        whole_text(style, text)
    }
}

fn error_body(message: &str) -> Value {
    json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}})
}

fn with_retry_after(status: u16, secs: &str, message: &str) -> Reply {
    Reply::Json {
        status,
        headers: vec![("Retry-After", secs.to_string())],
        body: error_body(message).to_string(),
    }
}

// ---- running the binary --------------------------------------------------------------

/// The binary with an OpenAI key and base URL for `server`, and a short retry delay.
fn openai(env: &Env, base_url: &str, args: &[&str]) -> Command {
    let mut c = env.command(args);
    c.env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", base_url)
        .env("MASTRA_ASK_RETRY_DELAY", "1ms");
    c
}

fn run_openai(env: &Env, server: &FakeServer, args: &[&str]) -> Out {
    env.run_with(openai(env, &server.base_url(), args))
}

/// Starts a run of the default agent on the OpenAI spec; returns its output and id.
fn start(env: &Env, server: &FakeServer) -> (Out, String) {
    let out = run_openai(env, server, &["run", "--model", MODEL, "Greet me"]);
    (out, env.latest_run().unwrap_or_default())
}

fn show_json(env: &Env, run: &str) -> Value {
    let out = env.run(&["-o", "json", "show", run]);
    out.assert_code(0);
    serde_json::from_str(out.stdout.trim()).unwrap()
}

/// A run that failed: exit 1, the error on one line with the resume hint, status failed
/// with the error stored, the prompt kept.
#[track_caller]
fn assert_failed(env: &Env, out: &Out, run: &str, needle: &str) {
    out.assert_code(1);
    let lines: Vec<&str> = out.stderr.lines().collect();
    let error = lines
        .iter()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error line in {:?}", out.stderr));
    assert!(
        error.starts_with(&format!("error: run {run} failed: ")),
        "{error}"
    );
    assert!(error.contains(needle), "expected {needle:?} in {error:?}");
    assert!(
        out.stderr
            .contains(&format!("hint: retry it with: mastra-ask resume {run}")),
        "{}",
        out.stderr
    );
    assert_eq!(env.status(run), "failed");
    let shown = show_json(env, run);
    assert!(
        shown["error"].as_str().unwrap().contains(needle),
        "{}",
        shown["error"]
    );
    assert_eq!(
        shown["messages"][0],
        json!({"role": "user", "content": "Greet me"})
    );
    let last = shown["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["type"], "error");
}

/// `resume` of a failed run, once the server answers again, completes it.
#[track_caller]
fn assert_resumes(env: &Env, server: &FakeServer, run: &str) {
    server.push(vec![streamed_text(Style::OpenAi, "Hello there.")]);
    let out = run_openai(env, server, &["resume", run]);
    out.assert_code(0);
    assert!(out.stdout.ends_with("Hello there.\n"), "{}", out.stdout);
    assert_eq!(env.status(run), "completed");
}

fn names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect()
}

// ---- 1. full runs shaped like real servers ------------------------------------------

/// The model asks, the run suspends, the answer goes back as a `tool` message in the right
/// wire format, the model answers with text.
fn full_run(style: Style, stream: bool) {
    let env = Env::new();
    let id = match style {
        Style::OpenAi => "call_Qz8yW2mN5pL0vX7a",
        Style::LlamaCpp => "Hq3vV9mZpQxT4b",
    };
    let server = FakeServer::start(vec![
        ask(style, stream, id, QUESTION),
        text(style, stream, "Hello, Ada! Nice to meet you."),
    ]);
    // llama.cpp is reached as an openai-compatible server without a key.
    let (spec, key) = match style {
        Style::OpenAi => (MODEL.to_string(), Some(KEY)),
        Style::LlamaCpp => (
            format!(
                "openai-compatible/qwen2.5-7b-instruct@{}",
                server.base_url()
            ),
            None,
        ),
    };
    let command = |args: &[&str]| {
        let mut c = env.command(args);
        if let Some(k) = key {
            c.env("OPENAI_API_KEY", k)
                .env("OPENAI_BASE_URL", server.base_url());
        }
        if !stream {
            c.env("MASTRA_ASK_STREAM", "0");
        }
        c
    };

    let out = env.run_with(command(&["run", "--model", &spec, "Greet me"]));
    out.assert_code(75);
    let run = env.latest_run().unwrap();
    assert!(
        out.stderr.contains(&format!("{id} question: {QUESTION}")),
        "{}",
        out.stderr
    );
    assert_eq!(server.count(), 1);

    let first = &server.requests()[0];
    assert_eq!(first.path, "/v1/chat/completions");
    assert_eq!(first.header("content-type"), Some("application/json"));
    match key {
        Some(k) => assert_eq!(
            first.header("authorization"),
            Some(format!("Bearer {k}").as_str())
        ),
        None => assert_eq!(first.header("authorization"), None),
    }
    let body = &first.body;
    let model = if style == Style::OpenAi {
        "gpt-4o-mini"
    } else {
        "qwen2.5-7b-instruct"
    };
    assert_eq!(body["model"], model);
    assert_eq!(body["stream"], json!(stream));
    if stream {
        assert_eq!(body["stream_options"], json!({"include_usage": true}));
    } else {
        assert!(body.get("stream_options").is_none());
    }
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "system");
    assert!(messages[0]["content"]
        .as_str()
        .unwrap()
        .contains("ask_user"));
    assert_eq!(messages[1], json!({"role": "user", "content": "Greet me"}));
    assert_eq!(names(&body["tools"]), ["ask_user", "submit_plan"]);
    let ask_tool = &body["tools"][0];
    assert_eq!(ask_tool["type"], "function");
    assert_eq!(ask_tool["function"]["parameters"]["type"], "object");
    assert!(ask_tool["function"]["parameters"]["properties"]["question"].is_object());

    let out = env.run_with(command(&["answer", &run, "Ada"]));
    out.assert_code(0);
    assert_eq!(out.stdout, "Hello, Ada! Nice to meet you.\n");
    assert_eq!(server.count(), 2);
    let messages = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(messages.len(), 4);
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "content": "", "tool_calls": [{
            "id": id, "type": "function",
            "function": {"name": "ask_user", "arguments": "{\"question\":\"What is your name?\"}"},
        }]})
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": id,
               "content": "{\"content\":\"User answered: Ada\",\"isError\":false}"})
    );

    assert_eq!(env.status(&run), "completed");
    let shown = show_json(&env, &run);
    assert_eq!(shown["agent"]["model"], spec.as_str());
    assert_eq!(
        shown["usage"],
        json!({"inputTokens": 270, "outputTokens": 24, "totalTokens": 294})
    );
    let finish = shown["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(finish["type"], "finish");
    assert_eq!(finish["payload"]["usage"]["totalTokens"], 294);
    assert_eq!(finish["payload"]["text"], "Hello, Ada! Nice to meet you.");
    let text = env.run(&["show", &run]);
    assert!(
        text.stdout.contains(&format!("model    {spec}\n")),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("usage    270 in, 24 out\n"),
        "{}",
        text.stdout
    );
}

#[test]
fn openai_streamed_full_run() {
    full_run(Style::OpenAi, true);
}

#[test]
fn openai_non_streamed_full_run() {
    full_run(Style::OpenAi, false);
}

#[test]
fn llama_cpp_streamed_full_run() {
    full_run(Style::LlamaCpp, true);
}

#[test]
fn llama_cpp_non_streamed_full_run() {
    full_run(Style::LlamaCpp, false);
}

#[test]
fn streamed_text_arrives_as_text_deltas() {
    let env = Env::new();
    let server = FakeServer::start(vec![streamed_text(Style::OpenAi, "One two three.")]);
    let out = run_openai(
        &env,
        &server,
        &["-o", "json", "run", "--model", MODEL, "Greet me"],
    );
    out.assert_code(0);
    let deltas: Vec<String> = out
        .json_lines()
        .iter()
        .filter(|e| e["type"] == "text-delta")
        .map(|e| e["payload"]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(deltas, ["One ", "two ", "three."]);
}

// ---- 2. wire faults and HTTP errors ------------------------------------------------

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

#[test]
fn a_stream_cut_before_any_text_is_retried() {
    let env = Env::new();
    let cut = Reply::Sse {
        frames: vec![chunk(
            Style::OpenAi,
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "ask_user", "arguments": "{\"q"}}]}),
            None,
        )],
        end: End::Reset,
    };
    let server = FakeServer::start(vec![cut, streamed_text(Style::OpenAi, "Whole.")]);
    let (out, _) = start(&env, &server);
    out.assert_code(0);
    assert_eq!(out.stdout, "Whole.\n");
    assert_eq!(server.count(), 2);
}

/// A stream that breaks once text was shown, or with an error frame: not retried; the run
/// fails keeping the text that was printed as its failed step's `text-delta`.
#[test]
fn broken_streams_fail_at_once_and_keep_the_text_shown() {
    let text_chunk = |style: Style, text: &str| chunk(style, json!({"content": text}), None);
    let start_chunk = chunk(
        Style::OpenAi,
        json!({"role": "assistant", "content": ""}),
        None,
    );
    let cases: Vec<(&str, Vec<String>, End, &str)> = vec![
        (
            "the stream ended before the response was complete",
            vec![text_chunk(Style::OpenAi, "Hel")],
            End::Close,
            "Hel",
        ),
        (
            "broke off the stream with an error: The model produced invalid content.",
            vec![
                start_chunk.clone(),
                text_chunk(Style::OpenAi, "Let me"),
                json!({"error": {"message": "The model produced invalid content.", "type": "server_error", "code": null}})
                    .to_string(),
            ],
            End::Close,
            "Let me",
        ),
        (
            // What llama.cpp sends when the model's output does not parse as a tool call.
            "broke off the stream with an error: Failed to parse input at pos 8",
            vec![
                text_chunk(Style::LlamaCpp, "```json\n"),
                json!({"error": {"code": 500, "message": "Failed to parse input at pos 8", "type": "server_error"}})
                    .to_string(),
            ],
            End::Done,
            "```json\n",
        ),
        (
            "broke off the stream with an error: upstream provider failed",
            vec!["event: error\ndata: {\"message\":\"upstream provider failed\"}".to_string()],
            End::Close,
            "",
        ),
    ];
    for (needle, frames, end, shown) in cases {
        let env = Env::new();
        let server = FakeServer::start(vec![Reply::Sse { frames, end }]);
        let (out, run) = start(&env, &server);
        assert_failed(&env, &out, &run, needle);
        let printed = if shown.is_empty() || shown.ends_with('\n') {
            shown.to_string()
        } else {
            format!("{shown}\n")
        };
        assert_eq!(out.stdout, printed, "{needle}");
        assert_eq!(server.count(), 1, "{needle}: not retried");

        // The failed step keeps what was printed, in `show -o json` and in `show`.
        let events = show_json(&env, &run)["events"].as_array().unwrap().clone();
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        if shown.is_empty() {
            assert_eq!(kinds, ["start", "step-start", "error"], "{needle}");
        } else {
            assert_eq!(
                kinds,
                ["start", "step-start", "text-delta", "error"],
                "{needle}"
            );
            assert_eq!(events[2]["payload"]["text"], shown, "{needle}");
            assert_eq!(
                events[2]["payload"]["id"], events[1]["payload"]["messageId"],
                "{needle}: the failed step's text"
            );
            let text = env.run(&["show", &run]).stdout;
            let line = format!(
                "  text                 \"{}\"\n",
                shown.replace('\n', "\\n")
            );
            assert!(text.contains(&line), "{needle}: {text}");
        }
        // Not a message: the retried call does not see half an answer.
        assert_eq!(
            show_json(&env, &run)["messages"],
            json!([{"role": "user", "content": "Greet me"}])
        );
        assert_resumes(&env, &server, &run);
        assert_eq!(
            server.requests()[1].body["messages"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }
}

#[test]
fn truncated_tool_arguments_become_an_error_result_and_the_run_goes_on() {
    let env = Env::new();
    let truncated = Reply::sse(vec![
        chunk(
            Style::OpenAi,
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_T", "type": "function", "function": {"name": "ask_user", "arguments": ""}}]}),
            None,
        ),
        chunk(
            Style::OpenAi,
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"question\": \"What is your fav"}}]}),
            None,
        ),
        chunk(Style::OpenAi, json!({}), Some("length")),
    ]);
    let server = FakeServer::start(vec![
        truncated,
        streamed_text(Style::OpenAi, "Sorry, let me stop there."),
    ]);
    let (out, run) = start(&env, &server);
    out.assert_code(0);
    assert_eq!(out.stdout, "Sorry, let me stop there.\n");
    assert!(
        out.stderr.contains(
            "warning: tool call call_T (ask_user) failed: the arguments for ask_user were cut off"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(server.count(), 2);
    let messages = server.requests()[1].body["messages"].clone();
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        "{\"question\": \"What is your fav"
    );
    // Mastra's error-text: the plain message is the tool message's content.
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_T",
               "content": "Tool \"ask_user\" received invalid arguments — the provided JSON could not be parsed. Please provide valid JSON arguments."})
    );
    assert_eq!(env.status(&run), "completed");
    // The event keeps why (for the person) and the raw arguments.
    let events = show_json(&env, &run)["events"].clone();
    let error = events
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "tool-error")
        .unwrap()
        .clone();
    assert_eq!(
        error["payload"]["args"],
        "{\"question\": \"What is your fav"
    );
    assert_eq!(error["payload"]["error"]["name"], "ToolArgumentsError");
    assert!(error["payload"]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("finish_reason \"length\""));
}

#[test]
fn an_unknown_tool_gets_mastras_error_text_in_the_next_request() {
    let env = Env::new();
    let call = json!({"index": 0, "id": "call_D", "type": "function",
                      "function": {"name": "deploy", "arguments": "{\"env\":\"prod\"}"}});
    let mut frames = vec![chunk(
        Style::OpenAi,
        json!({"role": "assistant", "content": null, "tool_calls": [call]}),
        None,
    )];
    frames.extend(stream_end(Style::OpenAi, "tool_calls", 10, 5));
    let server = FakeServer::start(vec![
        Reply::sse(frames),
        streamed_text(Style::OpenAi, "I cannot deploy."),
    ]);
    let (out, run) = start(&env, &server);
    out.assert_code(0);
    assert_eq!(out.stdout, "I cannot deploy.\n");
    let text = "Tool \"deploy\" not found. Available tools: ask_user, submit_plan. Call tools by their exact name only — never add prefixes, namespaces, or colons.";
    assert_eq!(
        out.stderr,
        format!("warning: tool call call_D (deploy) failed: {text}\n")
    );
    let messages = server.requests()[1].body["messages"].clone();
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_D", "content": text})
    );
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn arguments_split_across_many_chunks_are_joined() {
    let env = Env::new();
    let question = "Which of \"A\", \"B\" or \u{e9}t\u{e9}? {not: json}";
    let args =
        json!({"question": question, "options": [{"label": "A"}, {"label": "B"}]}).to_string();
    let mut frames = vec![chunk(
        Style::OpenAi,
        json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_S", "type": "function", "function": {"name": "ask_user", "arguments": ""}}]}),
        None,
    )];
    for c in args.chars() {
        frames.push(chunk(
            Style::OpenAi,
            json!({"tool_calls": [{"index": 0, "function": {"arguments": c.to_string()}}]}),
            None,
        ));
    }
    frames.extend(stream_end(Style::OpenAi, "tool_calls", 10, 40));
    let server = FakeServer::start(vec![Reply::sse(frames)]);
    let (out, run) = start(&env, &server);
    out.assert_code(75);
    assert_eq!(server.count(), 1);
    let pending = env.run(&["pending", "-o", "json"]).json_lines();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["runId"], run.as_str());
    assert_eq!(pending[0]["toolCallId"], "call_S");
    assert_eq!(
        pending[0]["args"],
        json!({"question": question, "options": [{"label": "A"}, {"label": "B"}]})
    );
    assert_eq!(env.status(&run), "suspended");
}

#[test]
fn missing_tool_call_ids_are_generated_and_sent_back_consistently() {
    let env = Env::new();
    let server = FakeServer::start(vec![
        streamed_ask(Style::LlamaCpp, None, QUESTION),
        streamed_text(Style::LlamaCpp, "Hi Ada."),
    ]);
    let (out, run) = start(&env, &server);
    out.assert_code(75);
    let pending = env.run(&["pending", "-o", "json"]).json_lines();
    let id = pending[0]["toolCallId"].as_str().unwrap().to_string();
    assert!(id.starts_with("call_") && id.len() > 10, "{id}");

    let out = run_openai(&env, &server, &["answer", &run, "Ada"]);
    out.assert_code(0);
    let messages = server.requests()[1].body["messages"].clone();
    assert_eq!(messages[2]["tool_calls"][0]["id"], id.as_str());
    assert_eq!(messages[3]["tool_call_id"], id.as_str());
}

#[test]
fn a_silent_server_hits_the_read_timeout() {
    let env = Env::new();
    let server = FakeServer::start(vec![Reply::Silent(Duration::from_secs(30))]);
    let mut command = openai(
        &env,
        &server.base_url(),
        &["run", "--model", MODEL, "Greet me"],
    );
    command.env("MASTRA_ASK_READ_TIMEOUT", "300ms");
    let began = Instant::now();
    let out = env.run_with(command);
    // Long before the 30 s the other side stays silent: the 300 ms timeout ended it.
    assert!(
        began.elapsed() < Duration::from_secs(15),
        "took {:?}",
        began.elapsed()
    );
    let run = env.latest_run().unwrap();
    assert_failed(
        &env,
        &out,
        &run,
        "no answer for 300ms (raise MASTRA_ASK_READ_TIMEOUT)",
    );
    assert_eq!(server.count(), 1);
    assert_resumes(&env, &server, &run);
    assert_eq!(server.count(), 2);
}

#[test]
fn a_missing_key_fails_before_anything_is_stored() {
    let env = Env::new();
    let out = env.run(&["run", "--model", MODEL, "Greet me"]);
    out.assert_code(2);
    assert!(
        out.stderr.starts_with("error: openai models need an API key: OPENAI_API_KEY is not set\nhint: export OPENAI_API_KEY=<your key>"),
        "{}",
        out.stderr
    );
    assert_eq!(env.dump(), "no store");
}

#[test]
fn unknown_model_specs_list_the_forms() {
    let env = Env::new();
    let out = env.run(&["run", "--model", "gpt-4o", "Greet me"]);
    out.assert_code(2);
    assert_one_line_error(&out, "unknown model spec \"gpt-4o\"; use one of: script:PATH, openai/MODEL, ollama/MODEL, openrouter/MODEL, openai-compatible/MODEL@URL, command:ARGV");
    let out = env.run(&["run", "--model", "openai-compatible/qwen", "Greet me"]);
    out.assert_code(2);
    assert_one_line_error(&out, "needs a base URL");
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
    assert!(
        out.stderr
            .contains("Incorrect API key provided: [redacted]."),
        "{}",
        out.stderr
    );
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

// ---- 4. command: models -------------------------------------------------------------

fn script(env: &Env, rel: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = env.write(rel, &format!("#!/bin/sh\n{body}"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_string_lossy().into_owned()
}

fn command_agent(env: &Env, program: &str) -> String {
    let agent = json!({"id": "cmd", "instructions": "Test agent.", "model": format!("command:{program} --flag 'two words'")});
    env.write("agents/agent.json", &agent.to_string())
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_command_model_asks_and_answers() {
    let env = Env::new();
    // Logs what it was given and its arguments; asks first, answers once it has the answer.
    script(
        &env,
        "agents/model.sh",
        r#"input=$(cat)
dir=$(dirname "$0")
printf '%s\n' "$input" >> "$dir/inputs.jsonl"
printf '%s|' "$@" > "$dir/argv.txt"
case "$input" in
  *'User answered'*) printf '{"content":"Hello, Ada."}\n' ;;
  *) printf '{"toolCalls":[{"name":"ask_user","args":{"question":"What is your name?"}}]}\n' ;;
esac
"#,
    );
    // The relative program resolves against the agent file's directory, not the shell's.
    let agent = command_agent(&env, "./model.sh");
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    assert!(
        out.stderr.contains("question: What is your name?"),
        "{}",
        out.stderr
    );
    let out = env.run(&["answer", &run, "Ada"]);
    out.assert_code(0);
    assert_eq!(out.stdout, "Hello, Ada.\n");
    assert_eq!(env.status(&run), "completed");

    assert_eq!(
        std::fs::read_to_string(env.path("agents/argv.txt")).unwrap(),
        "--flag|two words|"
    );
    let inputs: Vec<Value> = std::fs::read_to_string(env.path("agents/inputs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(inputs.len(), 2);
    assert_eq!(
        inputs[0]["messages"][0],
        json!({"role": "system", "content": "Test agent."})
    );
    assert_eq!(
        inputs[0]["messages"][1],
        json!({"role": "user", "content": "Go"})
    );
    let tools: Vec<&str> = inputs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["ask_user", "submit_plan"]);
    assert!(inputs[0]["tools"][0]["parameters"]["properties"]["question"].is_object());
    let second = inputs[1]["messages"].as_array().unwrap();
    let id = second[2]["toolCalls"][0]["id"].as_str().unwrap();
    assert_eq!(second[3]["role"], "tool");
    assert_eq!(second[3]["toolCallId"], id);
    assert_eq!(
        second[3]["content"],
        "{\"content\":\"User answered: Ada\",\"isError\":false}"
    );
}

#[test]
fn a_command_model_that_fails_shows_its_last_stderr_line() {
    let env = Env::new();
    let program = script(
        &env,
        "agents/fail.sh",
        "cat >/dev/null\necho 'loading' >&2\necho 'error: no weights in /models' >&2\nexit 3\n",
    );
    let (out, run) = env.start(&command_agent(&env, "./fail.sh"), &[]);
    out.assert_code(1);
    assert!(
        out.stderr.contains(&format!("failed: model command {program} --flag 'two words' exited with status 3: error: no weights in /models")),
        "{}",
        out.stderr
    );
    assert_eq!(env.status(&run), "failed");
    assert_eq!(
        env.messages(&run),
        [json!({"role": "user", "content": "Go"})]
    );
    // Fixed, the run goes on.
    script(
        &env,
        "agents/fail.sh",
        "cat >/dev/null\necho '{\"content\":\"Fine now.\"}'\n",
    );
    let out = env.run(&["resume", &run]);
    out.assert_code(0);
    assert_eq!(out.stdout, "Fine now.\n");
}

#[test]
fn a_command_model_printing_bad_json_is_a_clear_error() {
    let env = Env::new();
    script(&env, "agents/bad.sh", "echo 'Sure! Here is my answer.'\n");
    let (out, run) = env.start(&command_agent(&env, "./bad.sh"), &[]);
    out.assert_code(1);
    assert!(out.stderr.contains("printed an invalid message: expected value at line 1 column 1; it must print one assistant message"), "{}", out.stderr);
    assert_eq!(env.status(&run), "failed");
    script(&env, "agents/bad.sh", "echo '{\"tool_calls\":[]}'\n");
    let out = env.run(&["resume", &run]);
    out.assert_code(1);
    assert!(
        out.stderr
            .contains("unknown field `tool_calls`, expected `content` or `toolCalls`"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_command_model_that_hangs_is_stopped_at_the_read_timeout() {
    let env = Env::new();
    script(&env, "agents/slow.sh", "sleep 30\n");
    let mut command = env.command(&["run", "--agent", &command_agent(&env, "./slow.sh"), "Go"]);
    command.env("MASTRA_ASK_READ_TIMEOUT", "300ms");
    let began = Instant::now();
    let out = env.run_with(command);
    // Long before the 30 s the other side stays silent: the 300 ms timeout ended it.
    assert!(
        began.elapsed() < Duration::from_secs(15),
        "took {:?}",
        began.elapsed()
    );
    out.assert_code(1);
    assert!(
        out.stderr
            .contains("did not answer within 300ms (raise MASTRA_ASK_READ_TIMEOUT)"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_missing_command_fails_before_anything_is_stored() {
    let env = Env::new();
    let out = env.run(&["run", "--agent", &command_agent(&env, "./nope.sh"), "Go"]);
    out.assert_code(2);
    assert!(out.stderr.contains("command: program"), "{}", out.stderr);
    assert!(out.stderr.contains("nope.sh not found"), "{}", out.stderr);
    let out = env.run(&["run", "--model", "command:no-such-program-xyz", "Go"]);
    out.assert_code(2);
    assert!(
        out.stderr
            .contains("command: program no-such-program-xyz not found in PATH"),
        "{}",
        out.stderr
    );
    assert_eq!(env.dump(), "no store");
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
    let out = env.run(&["answer", &run, "Ada"]);
    out.assert_code(0);
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
    let out = env.run(&["answer", &run, "Ada"]);
    out.assert_code(2);
    assert!(out.stderr.contains("OPENAI_API_KEY"), "{}", out.stderr);
    assert_eq!(env.dump(), before);
}

// ---- 5. model settings, and the step budget --------------------------------------------

const SETTINGS: &str = r#"{"temperature": 0.2, "maxOutputTokens": 256, "topP": 0.9, "seed": 42, "stopSequences": ["END", "\n\n"]}"#;

/// An agent file on `model` with the settings above.
fn settings_agent(env: &Env, model: &str) -> String {
    let agent = json!({
        "id": "tuned", "instructions": "Be brief.", "model": model,
        "modelSettings": serde_json::from_str::<Value>(SETTINGS).unwrap(),
    });
    env.write("agents/tuned.json", &agent.to_string())
        .to_string_lossy()
        .into_owned()
}

/// Every request carries the settings under the wire names: `max_completion_tokens` for
/// OpenAI itself, `max_tokens` for every other server (llama.cpp reads only that one).
#[test]
fn model_settings_are_sent_on_every_request_under_the_wire_names() {
    for (server_kind, max_key) in [
        ("openai", "max_completion_tokens"),
        ("openai-compatible", "max_tokens"),
    ] {
        let env = Env::new();
        let server = FakeServer::start(vec![
            ask(Style::OpenAi, true, "q1", QUESTION),
            text(Style::OpenAi, true, "Hello, Ada."),
        ]);
        let model = match server_kind {
            "openai" => MODEL.to_string(),
            _ => format!(
                "openai-compatible/qwen2.5-7b-instruct@{}",
                server.base_url()
            ),
        };
        let agent = settings_agent(&env, &model);
        let out = run_openai(&env, &server, &["run", "--agent", &agent, "Greet me"]);
        out.assert_code(75);
        let run = env.latest_run().unwrap();
        let out = run_openai(&env, &server, &["answer", &run, "Ada"]);
        out.assert_code(0);
        assert_eq!(server.count(), 2);
        for request in server.requests() {
            let body = request.body.as_object().unwrap();
            let keys: Vec<&str> = body.keys().map(String::as_str).collect();
            let mut expected = vec![
                "messages",
                "model",
                "seed",
                "stop",
                "stream",
                "stream_options",
                "temperature",
                "tools",
                "top_p",
            ];
            expected.push(max_key);
            expected.sort();
            let mut keys = keys.clone();
            keys.sort();
            assert_eq!(keys, expected, "{server_kind}");
            assert_eq!(body["temperature"], json!(0.2));
            assert_eq!(body[max_key], json!(256));
            assert_eq!(body["top_p"], json!(0.9));
            assert_eq!(body["seed"], json!(42));
            assert_eq!(body["stop"], json!(["END", "\n\n"]));
        }
        // Kept with the run's agent, under Mastra's names.
        assert_eq!(
            show_json(&env, &run)["agent"]["modelSettings"],
            serde_json::from_str::<Value>(SETTINGS).unwrap()
        );
    }
}

#[test]
fn an_agent_without_settings_sends_none() {
    let env = Env::new();
    let server = FakeServer::start(vec![text(Style::OpenAi, false, "Hi.")]);
    let mut command = openai(
        &env,
        &server.base_url(),
        &["run", "--model", MODEL, "Greet me"],
    );
    command.env("MASTRA_ASK_STREAM", "0");
    env.run_with(command).assert_code(0);
    let body = server.requests()[0].body.clone();
    let mut keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(keys, ["messages", "model", "stream", "tools"]);
}

#[test]
fn bad_model_settings_are_refused_before_anything_is_stored() {
    let env = Env::new();
    for (settings, message) in [
        (
            json!({"temperature": 3}),
            "modelSettings.temperature must be a number from 0 to 2",
        ),
        (
            json!({"maxTokens": 100}),
            "unknown key \"maxTokens\" in modelSettings; the keys are temperature, maxOutputTokens, topP, seed, stopSequences",
        ),
        (
            json!({"stopSequences": "END"}),
            "modelSettings.stopSequences must be a list of at most 16 non-empty strings",
        ),
    ] {
        let agent = json!({"id": "a", "instructions": "", "model": MODEL, "modelSettings": settings});
        let file = env.write("agents/bad.json", &agent.to_string());
        let out = env.run(&["run", "--agent", &file.to_string_lossy(), "Go"]);
        out.assert_code(2);
        assert_one_line_error(&out, message);
        assert!(
            out.stderr.starts_with(&format!(
                "error: agent file {}: ",
                file.to_string_lossy()
            )),
            "{}",
            out.stderr
        );
    }
    assert_eq!(env.dump(), "no store");
}

#[test]
fn a_command_model_gets_the_settings_on_stdin() {
    let env = Env::new();
    script(
        &env,
        "agents/model.sh",
        "cat > \"$(dirname \"$0\")/input.json\"\nprintf '{\"content\":\"Hi.\"}\\n'\n",
    );
    let agent = settings_agent(&env, "command:./model.sh");
    let (out, _) = env.start(&agent, &[]);
    out.assert_code(0);
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(env.path("agents/input.json")).unwrap())
            .unwrap();
    assert_eq!(
        input["modelSettings"],
        serde_json::from_str::<Value>(SETTINGS).unwrap()
    );
}

/// A model that keeps calling tools that fail (as small local models do) until the leg's
/// budget runs out: each failure is shown as it happens, then the budget, naming
/// `--max-steps`.
#[test]
fn a_leg_that_runs_out_of_steps_says_so_and_shows_each_failed_call() {
    let env = Env::new();
    let call = |id: &str, name: &str, args: &str| {
        let mut frames = vec![chunk(
            Style::LlamaCpp,
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": args}}
            ]}),
            None,
        )];
        frames.extend(stream_end(Style::LlamaCpp, "tool_calls", 10, 5));
        Reply::sse(frames)
    };
    let server = FakeServer::start(vec![
        call("c1", "submit_plan", r#"{"path":"plan.md"}"#),
        call("c2", "deploy_web_app", r#"{"path":"/srv"}"#),
    ]);
    let spec = format!("openai-compatible/qwen@{}", server.base_url());
    let out = env.run(&["run", "--max-steps", "2", "--model", &spec, "Ship it"]);
    out.assert_code(0);
    let run = env.latest_run().unwrap();
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        format!(
            "warning: tool call c1 (submit_plan) failed: Failed to submit plan: plan.md does not exist\n\
             warning: tool call c2 (deploy_web_app) failed: Tool \"deploy_web_app\" not found. Available tools: ask_user, submit_plan. Call tools by their exact name only — never add prefixes, namespaces, or colons.\n\
             warning: run {run} stopped after its step budget: the model was still calling tools (raise it with --max-steps, or `mastra-ask reply {run} ...` to go on)\n"
        )
    );
    assert_eq!(server.count(), 2);
    // The second request carried the first failure back, as a JSON result object.
    assert_eq!(
        server.requests()[1].body["messages"][3]["content"],
        r#"{"content":"Failed to submit plan: plan.md does not exist","isError":true}"#
    );
    let shown = show_json(&env, &run);
    assert_eq!(shown["status"], "completed");
    let last = shown["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["type"], "finish");
    assert_eq!(last["payload"]["finishReason"], "tool-calls");
}
