//! The OpenAI chat completions wire format, outbound: our conversation and tools as the
//! request body a server expects, and the readable message out of an error body.
//!
//! Pure functions over JSON values. Reading responses is `assemble`'s job; sending is
//! `http`'s. Nothing here sees an API key.

use serde_json::{json, Map, Value};

use super::{ModelSettings, Request};
use crate::domain::{Message, ToolCall};
use crate::tools::ToolSpec;

/// The longest server message we repeat in an error.
const MAX_MESSAGE: usize = 300;

/// The request body for one model call; `max_tokens_key` names the length cap of the
/// agent's `modelSettings` on this server.
pub fn body(model: &str, request: &Request, stream: bool, max_tokens_key: &str) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages(request)));
    if !request.tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools(request.tools)));
    }
    body.extend(settings(request.settings, max_tokens_key));
    body.insert("stream".into(), json!(stream));
    if stream {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(body)
}

/// The agent's `modelSettings` under OpenAI's names, `max_tokens_key` naming the length cap
/// (`max_tokens`, or `max_completion_tokens` for OpenAI itself). An empty `stopSequences`
/// sends no `stop`; unset settings send nothing.
pub fn settings(s: &ModelSettings, max_tokens_key: &str) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(t) = s.temperature {
        out.insert("temperature".into(), t.into());
    }
    if let Some(n) = s.max_output_tokens {
        out.insert(max_tokens_key.into(), n.into());
    }
    if let Some(p) = s.top_p {
        out.insert("top_p".into(), p.into());
    }
    if let Some(seed) = s.seed {
        out.insert("seed".into(), seed.into());
    }
    if let Some(stop) = s.stop_sequences.as_ref().filter(|s| !s.is_empty()) {
        out.insert("stop".into(), stop.clone().into());
    }
    out
}

/// The system message, then the history.
pub fn messages(request: &Request) -> Vec<Value> {
    let mut out = Vec::with_capacity(request.messages.len() + 1);
    if !request.system.is_empty() {
        out.push(json!({"role": "system", "content": request.system}));
    }
    out.extend(request.messages.iter().map(message));
    out
}

fn message(m: &Message) -> Value {
    match m {
        Message::User { content } => json!({"role": "user", "content": content}),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut v = json!({"role": "assistant", "content": content.as_deref().unwrap_or("")});
            if !tool_calls.is_empty() {
                v["tool_calls"] = tool_calls.iter().map(tool_call).collect();
            }
            v
        }
        Message::Tool {
            tool_call_id,
            content,
            ..
        } => json!({"role": "tool", "tool_call_id": tool_call_id, "content": content}),
    }
}

fn tool_call(c: &ToolCall) -> Value {
    let arguments = c.invalid_args.clone().unwrap_or_else(|| c.args.to_string());
    json!({
        "id": c.id,
        "type": "function",
        "function": {"name": c.name, "arguments": arguments},
    })
}

fn tools(specs: &[ToolSpec]) -> Vec<Value> {
    specs
        .iter()
        .map(|t| {
            json!({
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            })
        })
        .collect()
}

/// The message of an `{"error": ...}` object (a whole body or a stream frame), if it has one.
pub fn error_in(v: &Value) -> Option<String> {
    let e = v.get("error").filter(|e| !e.is_null())?;
    let text = match e {
        Value::String(s) => s.clone(),
        Value::Object(o) => match o.get("message") {
            Some(Value::String(s)) => s.clone(),
            _ => e.to_string(),
        },
        other => other.to_string(),
    };
    Some(one_line(&text))
}

/// The readable message of an HTTP error body: `error.message`, `error`, `message` or
/// `detail` of a JSON body, else the text itself.
pub fn error_message(body: &str) -> Option<String> {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        if let Some(m) = error_in(&v) {
            return Some(m);
        }
        for key in ["message", "detail"] {
            match v.get(key) {
                Some(Value::String(s)) => return Some(one_line(s)),
                Some(other) if !other.is_null() => return Some(one_line(&other.to_string())),
                _ => {}
            }
        }
    }
    Some(one_line(body)).filter(|s| !s.is_empty())
}

/// Text from a server as one short line.
pub fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(MAX_MESSAGE) {
        Some((cut, _)) => format!("{}...", &joined[..cut]),
        None => joined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Message;

    fn spec() -> ToolSpec {
        ToolSpec {
            name: "ask_user".into(),
            description: "Ask.".into(),
            parameters: json!({"type": "object"}),
        }
    }

    #[test]
    fn the_whole_conversation_in_wire_format() {
        let messages = vec![
            Message::User {
                content: "Go".into(),
            },
            Message::Assistant {
                content: None,
                tool_calls: vec![
                    ToolCall {
                        id: "call_1".into(),
                        name: "ask_user".into(),
                        args: json!({"question": "Name?"}),
                        invalid_args: None,
                    },
                    ToolCall {
                        id: "7".into(),
                        name: "ask_user".into(),
                        args: Value::Null,
                        invalid_args: Some("{\"question\": \"Wh".into()),
                    },
                ],
            },
            Message::Tool {
                tool_call_id: "call_1".into(),
                tool_name: "ask_user".into(),
                content: r#"{"content":"User answered: Ada","isError":false}"#.into(),
            },
            Message::Assistant {
                content: Some("Hi Ada.".into()),
                tool_calls: vec![],
            },
        ];
        let tools = [spec()];
        let request = Request {
            system: "Be brief.",
            messages: &messages,
            tools: &tools,
            settings: &Default::default(),
        };
        assert_eq!(
            body("gpt-4o-mini", &request, true, "max_tokens"),
            json!({
                "model": "gpt-4o-mini",
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Go"},
                    {"role": "assistant", "content": "", "tool_calls": [
                        {"id": "call_1", "type": "function",
                         "function": {"name": "ask_user", "arguments": "{\"question\":\"Name?\"}"}},
                        {"id": "7", "type": "function",
                         "function": {"name": "ask_user", "arguments": "{\"question\": \"Wh"}},
                    ]},
                    {"role": "tool", "tool_call_id": "call_1",
                     "content": "{\"content\":\"User answered: Ada\",\"isError\":false}"},
                    {"role": "assistant", "content": "Hi Ada."},
                ],
                "tools": [{"type": "function", "function": {
                    "name": "ask_user", "description": "Ask.", "parameters": {"type": "object"}}}],
                "stream": true,
                "stream_options": {"include_usage": true},
            })
        );
    }

    #[test]
    fn no_tools_no_stream_options() {
        let messages = vec![Message::User {
            content: "Hi".into(),
        }];
        let request = Request {
            system: "",
            messages: &messages,
            tools: &[],
            settings: &Default::default(),
        };
        assert_eq!(
            body("m", &request, false, "max_tokens"),
            json!({"model": "m", "messages": [{"role": "user", "content": "Hi"}], "stream": false})
        );
    }

    fn settings_of(v: Value) -> ModelSettings {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn every_setting_has_its_wire_name() {
        let s = settings_of(
            json!({"temperature": 0.2, "maxOutputTokens": 256, "topP": 0.9,
                                   "seed": 42, "stopSequences": ["END", "\n\n"]}),
        );
        assert_eq!(
            Value::Object(settings(&s, "max_tokens")),
            json!({"temperature": 0.2, "max_tokens": 256, "top_p": 0.9, "seed": 42,
                   "stop": ["END", "\n\n"]})
        );
        assert_eq!(
            settings(&s, "max_completion_tokens")["max_completion_tokens"],
            256
        );
        assert!(settings(&settings_of(json!({})), "max_tokens").is_empty());
        assert!(settings(&settings_of(json!({"stopSequences": []})), "max_tokens").is_empty());
        assert_eq!(
            Value::Object(settings(
                &settings_of(json!({"temperature": 0, "seed": -1})),
                "max_tokens"
            )),
            json!({"temperature": 0.0, "seed": -1})
        );
    }

    #[test]
    fn model_settings_go_beside_the_messages() {
        let messages = vec![Message::User {
            content: "Hi".into(),
        }];
        let tuned = settings_of(json!({"maxOutputTokens": 64, "stopSequences": ["END"]}));
        let request = Request {
            system: "",
            messages: &messages,
            tools: &[],
            settings: &tuned,
        };
        assert_eq!(
            body("m", &request, false, "max_completion_tokens"),
            json!({"model": "m", "messages": [{"role": "user", "content": "Hi"}],
                   "max_completion_tokens": 64, "stop": ["END"], "stream": false})
        );
    }

    #[test]
    fn error_messages_of_real_servers() {
        let openai = r#"{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
        assert_eq!(
            error_message(openai).unwrap(),
            "Incorrect API key provided."
        );
        assert_eq!(
            error_message(r#"{"error":"model 'x' not found"}"#).unwrap(),
            "model 'x' not found"
        );
        assert_eq!(
            error_message(r#"{"detail":"Not Found"}"#).unwrap(),
            "Not Found"
        );
        assert_eq!(
            error_message("upstream\n  timed out\n").unwrap(),
            "upstream timed out"
        );
        assert_eq!(error_message(""), None);
        let long = "x".repeat(1000);
        assert_eq!(error_message(&long).unwrap().len(), MAX_MESSAGE + 3);
        assert_eq!(
            error_in(&json!({"error": {"code": 500}})).unwrap(),
            r#"{"code":500}"#
        );
        assert_eq!(error_in(&json!({"error": null, "choices": []})), None);
    }
}
