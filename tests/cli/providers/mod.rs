//! Real model providers against a fake server in the test (no network, no real key):
//! exchanges shaped like OpenAI's and llama.cpp's, streamed and not, every wire fault and
//! HTTP error with its retries and the run's stored state, the key kept out of everything,
//! and `command:` models.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{assert_one_line_error, Env, Out};
use crate::fake_server::{DeadPort, End, FakeServer, Reply};

mod command_models;
mod full_runs;
mod http_errors;
mod keys;
mod settings;
mod streams;

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
    let out = env.cmd(&["-o", "json", "show", run]).code(0);
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

/// An executable shell script under the test directory; its path.
fn script(env: &Env, rel: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = env.write(rel, &format!("#!/bin/sh\n{body}"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_string_lossy().into_owned()
}
