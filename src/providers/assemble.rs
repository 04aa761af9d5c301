//! The OpenAI chat completions wire format, inbound: stream chunks (or one whole response)
//! assembled into one assistant message, as forgiving as real servers need.
//!
//! Tolerated: `content` `""` or `null` beside tool calls, text as an array of parts (and a
//! `refusal` taken as text), tool-call ids of any shape or none, arguments split over many
//! chunks (joined by `index`), arguments sent as an object, unknown keys anywhere. Arguments
//! that are not JSON (e.g. cut off by `finish_reason: "length"`) become `BadArgs`, for the
//! loop to answer with an error result. Pure: no IO, never panics on any input.

use serde_json::{Map, Value};

use super::wire::error_in;
use super::{BadArgs, ModelCall, Response};
use crate::domain::Usage;

/// A tool call still being received.
#[derive(Debug, Default)]
struct Partial {
    index: Option<u64>,
    id: Option<String>,
    name: String,
    args: String,
}

#[derive(Debug, Default)]
pub struct Assembler {
    text: String,
    calls: Vec<Partial>,
    finish_reason: Option<String>,
    usage: Usage,
}

impl Assembler {
    /// Takes one chunk of a stream; returns the text it adds. `Err` holds the message of
    /// an error frame.
    pub fn chunk(&mut self, chunk: &Value) -> Result<String, String> {
        self.take(chunk, "delta", false)
    }

    /// Takes a whole (non-streamed) response; returns its text.
    pub fn whole(&mut self, body: &Value) -> Result<String, String> {
        self.take(body, "message", true)
    }

    /// Why the model stopped, once a chunk said so.
    pub fn finish_reason(&self) -> Option<&str> {
        self.finish_reason.as_deref()
    }

    fn take(&mut self, v: &Value, part: &str, whole: bool) -> Result<String, String> {
        if let Some(message) = error_in(v) {
            return Err(message);
        }
        if let Some(usage) = v.get("usage").and_then(usage_of) {
            self.usage = usage;
        }
        let choices = v.get("choices").and_then(Value::as_array);
        // One choice is asked for; a server that sends more is read for the first.
        let Some(choice) = choices.and_then(|c| {
            c.iter()
                .find(|c| c.get("index").and_then(Value::as_u64) == Some(0))
                .or(c.first())
        }) else {
            return Ok(String::new());
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_string());
        }
        let Some(delta) = choice.get(part).and_then(Value::as_object) else {
            return Ok(String::new());
        };
        // A refusal is what the model says instead of an answer: text for the person.
        let text = text_of(delta.get("content")) + &text_of(delta.get("refusal"));
        self.text.push_str(&text);
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for call in calls.iter().filter_map(Value::as_object) {
                self.call_delta(call, whole);
            }
        }
        Ok(text)
    }

    fn call_delta(&mut self, call: &Map<String, Value>, whole: bool) {
        let index = call.get("index").and_then(Value::as_u64);
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let function = call.get("function").and_then(Value::as_object);
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let slot = match (whole, index, id) {
            (true, _, _) => None,
            (false, Some(i), _) => self.calls.iter().position(|p| p.index == Some(i)),
            (false, None, Some(id)) => self.calls.iter().position(|p| p.id.as_deref() == Some(id)),
            // Neither index nor id: a piece of the last call, unless it names a new one.
            (false, None, None) if name.is_empty() => self.calls.len().checked_sub(1),
            (false, None, None) => None,
        };
        let slot = slot.unwrap_or_else(|| {
            self.calls.push(Partial {
                index,
                ..Default::default()
            });
            self.calls.len() - 1
        });
        let p = &mut self.calls[slot];
        if p.id.is_none() {
            p.id = id.map(str::to_string);
        }
        // Most servers send the name once; some repeat it whole in every chunk.
        if p.name.is_empty() {
            p.name = name.to_string();
        } else if name != p.name {
            p.name.push_str(name);
        }
        match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(piece)) => p.args.push_str(piece),
            Some(Value::Null) | None => {}
            Some(object) => p.args = object.to_string(),
        }
    }

    /// The assistant message.
    pub fn finish(self) -> Response {
        let truncated = self.finish_reason.as_deref() == Some("length");
        let calls = self
            .calls
            .into_iter()
            .filter(|p| !(p.name.is_empty() && p.args.trim().is_empty() && p.id.is_none()))
            .map(|p| ModelCall {
                args: parse_args(&p.args, &p.name, truncated),
                id: p.id,
                name: p.name,
            })
            .collect();
        Response {
            text: Some(self.text).filter(|t| !t.is_empty()),
            calls,
            usage: self.usage,
        }
    }
}

/// `content` as text: a string, or the text parts of an array; `null` is none.
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

fn usage_of(v: &Value) -> Option<Usage> {
    let count = |key: &str| v.get(key).and_then(Value::as_u64);
    let input = count("prompt_tokens");
    let output = count("completion_tokens");
    if input.is_none() && output.is_none() {
        return None;
    }
    let (input, output) = (input.unwrap_or(0), output.unwrap_or(0));
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: count("total_tokens").unwrap_or(input.saturating_add(output)),
    })
}

/// A call's arguments: empty means `{}`; a JSON string holding an object is unwrapped.
pub fn parse_args(raw: &str, name: &str, truncated: bool) -> Result<Value, BadArgs> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(object @ Value::Object(_)) => Ok(object),
            _ => Ok(Value::String(inner)),
        },
        Ok(v) => Ok(v),
        Err(e) if truncated => Err(BadArgs {
            raw: raw.to_string(),
            message: format!(
                "the arguments for {name} were cut off because the response reached its token \
                 limit (finish_reason \"length\"): {e}; call the tool again with shorter arguments"
            ),
        }),
        Err(e) => Err(BadArgs {
            raw: raw.to_string(),
            message: format!("the arguments for {name} are not valid JSON: {e}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn stream(chunks: &[Value]) -> (Response, String, Option<String>) {
        let mut a = Assembler::default();
        let mut text = String::new();
        for c in chunks {
            text.push_str(&a.chunk(c).unwrap());
        }
        let reason = a.finish_reason().map(str::to_string);
        (a.finish(), text, reason)
    }

    fn delta(d: Value) -> Value {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": d, "logprobs": null, "finish_reason": null}]})
    }

    fn finish(reason: &str) -> Value {
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
    }

    #[test]
    fn openai_text_stream_with_usage() {
        let (r, text, reason) = stream(&[
            delta(json!({"role": "assistant", "content": "", "refusal": null})),
            delta(json!({"content": "Hello"})),
            delta(json!({"content": ", Ada."})),
            finish("stop"),
            json!({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15,
                   "prompt_tokens_details": {"cached_tokens": 0}}}),
        ]);
        assert_eq!(text, "Hello, Ada.");
        assert_eq!(reason.as_deref(), Some("stop"));
        assert_eq!(r.text.as_deref(), Some("Hello, Ada."));
        assert!(r.calls.is_empty());
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 12,
                output_tokens: 3,
                total_tokens: 15
            }
        );
    }

    #[test]
    fn a_refusal_is_text() {
        let (r, text, _) = stream(&[
            delta(json!({"role": "assistant", "content": null, "refusal": ""})),
            delta(json!({"content": null, "refusal": "I can't help with that."})),
            finish("stop"),
        ]);
        assert_eq!(text, "I can't help with that.");
        assert_eq!(r.text.as_deref(), Some("I can't help with that."));
    }

    #[test]
    fn tool_call_arguments_split_over_chunks_by_index() {
        let (r, text, _) = stream(&[
            delta(json!({"role": "assistant", "content": null, "tool_calls": [
                {"index": 0, "id": "call_A", "type": "function", "function": {"name": "ask_user", "arguments": ""}}]})),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"ques"}}]})),
            delta(
                json!({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "submit_plan", "arguments": "{\"path\""}}]}),
            ),
            delta(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": "tion\": \"Name?\"}"}}]}),
            ),
            delta(
                json!({"tool_calls": [{"index": 1, "function": {"arguments": ": \"PLAN.md\"}"}}]}),
            ),
            finish("tool_calls"),
        ]);
        assert_eq!(text, "");
        assert_eq!(r.text, None);
        assert_eq!(
            r.calls,
            [
                ModelCall {
                    id: Some("call_A".into()),
                    name: "ask_user".into(),
                    args: Ok(json!({"question": "Name?"}))
                },
                ModelCall {
                    id: Some("b".into()),
                    name: "submit_plan".into(),
                    args: Ok(json!({"path": "PLAN.md"}))
                },
            ]
        );
    }

    #[test]
    fn missing_ids_repeated_names_and_empty_arguments() {
        let (r, _, _) = stream(&[
            delta(
                json!({"content": "", "tool_calls": [{"index": 0, "function": {"name": "ask_user", "arguments": "{\"question\":"}}]}),
            ),
            delta(
                json!({"tool_calls": [{"index": 0, "id": "", "function": {"name": "ask_user", "arguments": "\"Hi?\"}"}}]}),
            ),
            delta(
                json!({"tool_calls": [{"index": 1, "function": {"name": "ask_user", "arguments": ""}}]}),
            ),
            finish("tool_calls"),
        ]);
        assert_eq!(r.calls.len(), 2);
        assert_eq!(r.calls[0].id, None);
        assert_eq!(r.calls[0].name, "ask_user");
        assert_eq!(r.calls[0].args, Ok(json!({"question": "Hi?"})));
        assert_eq!(r.calls[1].args, Ok(json!({})));
    }

    #[test]
    fn chunks_without_index_join_by_id_or_follow_the_last_call() {
        let (r, _, _) = stream(&[
            delta(
                json!({"tool_calls": [{"id": "x1", "function": {"name": "ask_user", "arguments": "{\"question\""}}]}),
            ),
            delta(json!({"tool_calls": [{"function": {"arguments": ": \"A?\"}"}}]})),
            delta(
                json!({"tool_calls": [{"id": "x2", "function": {"name": "ask_user", "arguments": {"question": "B?"}}}]}),
            ),
        ]);
        assert_eq!(r.calls[0].args, Ok(json!({"question": "A?"})));
        assert_eq!(r.calls[1].id.as_deref(), Some("x2"));
        assert_eq!(r.calls[1].args, Ok(json!({"question": "B?"})));
    }

    #[test]
    fn truncated_arguments_become_bad_args() {
        let (r, _, reason) = stream(&[
            delta(
                json!({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "ask_user", "arguments": "{\"question\": \"Wh"}}]}),
            ),
            finish("length"),
        ]);
        assert_eq!(reason.as_deref(), Some("length"));
        let bad = r.calls[0].args.clone().unwrap_err();
        assert_eq!(bad.raw, "{\"question\": \"Wh");
        assert!(bad.message.contains("cut off"), "{}", bad.message);
        assert!(bad.message.contains("finish_reason \"length\""));
        let plain = parse_args("{oops", "ask_user", false).unwrap_err();
        assert!(plain
            .message
            .starts_with("the arguments for ask_user are not valid JSON"));
    }

    #[test]
    fn double_encoded_arguments_are_unwrapped() {
        assert_eq!(
            parse_args(r#""{\"a\":1}""#, "t", false),
            Ok(json!({"a": 1}))
        );
        assert_eq!(parse_args(r#""text""#, "t", false), Ok(json!("text")));
        assert_eq!(parse_args("  ", "t", false), Ok(json!({})));
    }

    #[test]
    fn error_frames_are_errors() {
        let mut a = Assembler::default();
        assert_eq!(a.chunk(&delta(json!({"content": "Hi"}))), Ok("Hi".into()));
        let e = a.chunk(&json!({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}));
        assert_eq!(
            e,
            Err("The server had an error while processing your request.".into())
        );
    }

    #[test]
    fn whole_llama_cpp_response() {
        let body = json!({
            "choices": [{"finish_reason": "tool_calls", "index": 0, "message": {
                "role": "assistant", "content": "",
                "tool_calls": [
                    {"type": "function", "function": {"name": "ask_user", "arguments": "{\"question\":\"A?\"}"}, "id": "aB3xY9"},
                    {"type": "function", "function": {"name": "ask_user", "arguments": "{\"question\":\"B?\"}"}, "id": "aB3xY9"}
                ]}}],
            "created": 1, "model": "qwen", "system_fingerprint": "b1-abc", "object": "chat.completion",
            "usage": {"completion_tokens": 20, "prompt_tokens": 100, "total_tokens": 120},
            "id": "chatcmpl-x", "timings": {"prompt_n": 100, "predicted_ms": 12.5}
        });
        let mut a = Assembler::default();
        assert_eq!(a.whole(&body), Ok(String::new()));
        let r = a.finish();
        assert_eq!(r.text, None);
        assert_eq!(r.calls.len(), 2, "each call of a whole message is its own");
        assert_eq!(r.calls[1].args, Ok(json!({"question": "B?"})));
        assert_eq!(r.usage.total_tokens, 120);
    }

    #[test]
    fn odd_shapes_never_panic() {
        let mut a = Assembler::default();
        for v in [
            json!(null),
            json!([]),
            json!("x"),
            json!({"choices": "x"}),
            json!({"choices": [null, 1]}),
            json!({"choices": [{"delta": {"tool_calls": [1, null, {"function": 3}]}}]}),
            json!({"choices": [{"delta": {"content": [{"type": "text", "text": "part"}, 7]}}]}),
            json!({"usage": {"prompt_tokens": -1}}),
        ] {
            let _ = a.chunk(&v);
        }
        let r = a.finish();
        assert_eq!(r.text.as_deref(), Some("part"));
    }
}
