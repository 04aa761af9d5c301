//! Property tests of the model-response parsers: whatever a server or a `command:` program
//! sends — arbitrary JSON, mutations of real chunks, broken streams — nothing panics and
//! every outcome is a `Response` or a one-line error.

use serde_json::{json, Value};

use super::assemble::{parse_args, Assembler};
use super::command::parse_reply;
use super::wire::error_message;
use crate::net::sse::{self, Flow};
use crate::testing::{mutate, string, value, Rng, CASES};

/// Real chunk shapes (OpenAI and llama.cpp style) to mutate.
fn chunks() -> Vec<Value> {
    vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {"content": null, "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "ask_user", "arguments": "{\"quest"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "ion\":\"Q?\"}"}}]}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}),
        json!({"choices": [{"finish_reason": "length", "index": 0, "delta": {"content": ""}}], "timings": {"n": 1}}),
        json!({"error": {"message": "overloaded", "type": "server_error"}}),
        json!({"choices": [{"message": {"role": "assistant", "content": "", "tool_calls": [{"id": "x", "function": {"name": "submit_plan", "arguments": {"path": "P.md"}}}]}, "finish_reason": "tool_calls"}]}),
    ]
}

fn sample(rng: &mut Rng, shapes: &[Value]) -> Value {
    if rng.chance(50) {
        let shape = rng.pick(shapes).clone();
        mutate(rng, &shape)
    } else {
        value(rng, 5)
    }
}

#[test]
fn streams_and_whole_responses_never_panic() {
    let mut rng = Rng::new(31);
    let shapes = chunks();
    for _ in 0..CASES {
        let mut a = Assembler::default();
        for _ in 0..1 + rng.below(6) {
            let _ = a.chunk(&sample(&mut rng, &shapes));
        }
        let _ = a.finish_reason();
        let response = a.finish();
        for call in &response.calls {
            assert!(
                call.args.is_ok() || call.args.as_ref().is_err_and(|e| !e.message.contains('\n'))
            );
        }
        let mut whole = Assembler::default();
        let _ = whole.whole(&sample(&mut rng, &shapes));
        whole.finish();
    }
}

#[test]
fn tool_arguments_of_any_text_never_panic() {
    let mut rng = Rng::new(32);
    for _ in 0..CASES {
        let raw = if rng.chance(50) {
            value(&mut rng, 4).to_string()
        } else {
            string(&mut rng)
        };
        let cut: String = raw
            .chars()
            .take(rng.below(raw.chars().count() + 1))
            .collect();
        let _ = parse_args(&cut, "ask_user", rng.chance(50));
    }
}

#[test]
fn event_streams_of_any_bytes_never_panic() {
    let mut rng = Rng::new(33);
    for _ in 0..CASES / 3 {
        let mut text = String::new();
        for _ in 0..rng.below(20) {
            match rng.below(5) {
                0 => text.push_str(&format!("data: {}\n", value(&mut rng, 3))),
                1 => text.push('\n'),
                2 => text.push_str(": keep-alive\n"),
                3 => text.push_str(&format!("event: {}\n", string(&mut rng))),
                _ => text.push_str(&string(&mut rng)),
            }
        }
        let mut frames = 0;
        let result: Result<(), std::io::Error> = sse::read(text.as_bytes(), 4096, |_| {
            frames += 1;
            Ok(Flow::Continue)
        });
        if let Err(e) = result {
            assert!(!e.to_string().contains('\n'));
        }
    }
}

#[test]
fn command_replies_and_error_bodies_never_panic() {
    let mut rng = Rng::new(34);
    let replies = [
        json!({"content": "Hello"}),
        json!({"toolCalls": [{"id": "q1", "name": "ask_user", "args": {"question": "Q?"}}]}),
        json!({"toolCalls": [{"name": "submit_plan", "args": "{\"path\":\"P.md\"}"}]}),
    ];
    for _ in 0..CASES {
        let text = match rng.below(3) {
            0 => {
                let reply = rng.pick(&replies).clone();
                mutate(&mut rng, &reply).to_string()
            }
            1 => value(&mut rng, 4).to_string(),
            _ => string(&mut rng),
        };
        if let Err(e) = parse_reply(&text) {
            assert!(!e.is_empty());
        }
        let _ = error_message(&text);
    }
}
