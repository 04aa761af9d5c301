//! Compact storage: each fact of a run is stored once; the copies that events and tool
//! messages carry are stored as references and rebuilt on read.
//!
//! A run repeats itself: a tool call's arguments are in the assistant message and in its
//! `tool-call`, `tool-call-suspended` and `tool-result` events; a resolved item's result is
//! in its call row, its tool message and its `tool-result` event; a step's message id is in
//! three events; a step's text is in its assistant message, its `text-delta` and its
//! `finish`. The store keeps the assistant message, the call row and the `step-start`
//! event, and writes a reference for the copies. A reference is written only when
//! rebuilding it gives back exactly the original text, so a reader never sees a
//! difference; anything else is stored as it is.
//!
//! No SQL here: these functions turn values into what a row holds and back.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::domain::{Event, EventKind, Message};

pub fn to_json(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).expect("values built by this program serialize")
}

/// What references point at: a run's tool calls, results, suspend payloads and texts.
#[derive(Default)]
pub struct Sources {
    /// Call id → tool name and arguments, from assistant messages.
    calls: HashMap<String, (String, Value)>,
    /// Call id → result object, from tool messages.
    results: HashMap<String, Value>,
    /// Call id → suspend payload, from call rows.
    payloads: HashMap<String, Value>,
    /// Message sequence number → an assistant message's text.
    texts: HashMap<i64, Option<String>>,
}

impl Sources {
    pub fn add_message(&mut self, seq: i64, message: &Message) {
        match message {
            Message::Assistant {
                content,
                tool_calls,
            } => {
                for c in tool_calls {
                    self.calls
                        .insert(c.id.clone(), (c.name.clone(), c.args.clone()));
                }
                self.texts.insert(seq, content.clone());
            }
            Message::Tool {
                tool_call_id,
                content,
                ..
            } => {
                if let Ok(v) = serde_json::from_str(content) {
                    self.results.insert(tool_call_id.clone(), v);
                }
            }
            Message::User { .. } => {}
        }
    }

    pub fn add_payload(&mut self, call_id: &str, payload: &Value) {
        self.payloads.insert(call_id.to_string(), payload.clone());
    }
}

/// Follows the message id of the current step (the last `step-start`) through a run's
/// events, in order, when they are written and when they are read.
#[derive(Default)]
pub struct Cursor {
    message_id: Option<String>,
}

impl Cursor {
    fn observe(&mut self, kind: EventKind, payload: &Value) {
        if kind == EventKind::StepStart {
            self.message_id = payload["messageId"].as_str().map(str::to_string);
        }
    }
}

/// An event as a row holds it. `derived` rows keep only what cannot be rebuilt in
/// `payload`, and point at the rest through `call_id` and `message`.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRow {
    pub derived: bool,
    pub call_id: Option<String>,
    /// The sequence number of the step's assistant message.
    pub message: Option<i64>,
    pub payload: Option<String>,
}

/// The row for `event`; `step_message` is the sequence number of the assistant message
/// stored with it, if any.
pub fn encode_event(
    event: &Event,
    step_message: Option<i64>,
    cursor: &mut Cursor,
    sources: &Sources,
) -> EventRow {
    let original = to_json(&event.payload);
    let row = reference(event, step_message)
        .filter(|row| {
            decode_event(event.kind, row, cursor, sources).map(|v| to_json(&v))
                == Some(original.clone())
        })
        .unwrap_or(EventRow {
            derived: false,
            call_id: None,
            message: None,
            payload: Some(original),
        });
    cursor.observe(event.kind, &event.payload);
    row
}

/// The payload of a stored event; `None` when a reference cannot be followed.
pub fn read_event(
    kind: EventKind,
    row: &EventRow,
    cursor: &mut Cursor,
    sources: &Sources,
) -> Option<Value> {
    let payload = decode_event(kind, row, cursor, sources);
    if let Some(p) = &payload {
        cursor.observe(kind, p);
    }
    payload
}

/// The compact row an event would get, before it is checked.
fn reference(event: &Event, step_message: Option<i64>) -> Option<EventRow> {
    let p = &event.payload;
    let call = || p["toolCallId"].as_str().map(str::to_string);
    let keep = |keys: &[&str]| {
        let rest: Map<String, Value> = keys
            .iter()
            .filter_map(|k| Some((k.to_string(), p.get(*k)?.clone())))
            .collect();
        Some(to_json(&rest))
    };
    let (call_id, message, payload) = match event.kind {
        EventKind::ToolCall | EventKind::ToolResult => (call(), None, None),
        EventKind::ToolError => (call(), None, keep(&["error"])),
        EventKind::ToolCallSuspended | EventKind::ToolCallApproval => {
            (call(), None, keep(&["resumeSchema"]))
        }
        EventKind::ToolOutputDenied => (call(), None, keep(&["approval"])),
        EventKind::StepFinish => (None, None, keep(&["finishReason"])),
        EventKind::TextDelta => (None, step_message, None),
        EventKind::Finish => (None, step_message, keep(&["finishReason", "usage"])),
        _ => return None,
    };
    Some(EventRow {
        derived: true,
        call_id,
        message,
        payload,
    })
}

fn decode_event(kind: EventKind, row: &EventRow, cursor: &Cursor, src: &Sources) -> Option<Value> {
    let rest: Value = match &row.payload {
        Some(text) => serde_json::from_str(text).ok()?,
        None => Value::Null,
    };
    if !row.derived {
        return Some(rest);
    }
    let call = || {
        let id = row.call_id.as_deref()?;
        let (name, args) = src.calls.get(id)?;
        Some((id, name, args))
    };
    let text = || src.texts.get(&row.message?).cloned();
    let v = match kind {
        EventKind::ToolCall => {
            let (id, name, args) = call()?;
            json!({"toolCallId": id, "toolName": name, "args": args})
        }
        EventKind::ToolResult => {
            let (id, name, args) = call()?;
            let result = src.results.get(id)?;
            json!({"toolCallId": id, "toolName": name, "args": args, "result": result})
        }
        EventKind::ToolError => {
            let (id, name, args) = call()?;
            json!({"toolCallId": id, "toolName": name, "args": args, "error": rest.get("error")?})
        }
        EventKind::ToolCallSuspended => {
            let (id, name, args) = call()?;
            json!({
                "toolCallId": id,
                "toolName": name,
                "args": args,
                "suspendPayload": src.payloads.get(id)?,
                "resumeSchema": rest.get("resumeSchema")?,
            })
        }
        EventKind::ToolCallApproval => {
            let (id, name, args) = call()?;
            json!({
                "toolCallId": id,
                "toolName": name,
                "args": args,
                "resumeSchema": rest.get("resumeSchema")?,
            })
        }
        EventKind::ToolOutputDenied => {
            let (id, name, args) = call()?;
            json!({"toolCallId": id, "toolName": name, "args": args, "approval": rest.get("approval")?})
        }
        EventKind::StepFinish => json!({
            "messageId": cursor.message_id.as_deref()?,
            "finishReason": rest.get("finishReason")?,
        }),
        EventKind::TextDelta => json!({"id": cursor.message_id.as_deref()?, "text": text()??}),
        EventKind::Finish => json!({
            "finishReason": rest.get("finishReason")?,
            "text": text()?.unwrap_or_default(),
            "usage": rest.get("usage")?,
        }),
        _ => return None,
    };
    Some(v)
}

/// A message as a row holds it: the JSON body, and for a tool message whose content is
/// the result stored in its call's row, that call's id (the body then has no content).
pub fn encode_message(
    message: &Message,
    results: &HashMap<String, String>,
) -> (Option<String>, String) {
    let body = to_json(message);
    if let Message::Tool {
        tool_call_id,
        tool_name,
        content,
    } = message
    {
        if results.get(tool_call_id) == Some(content) {
            let short = to_json(&json!({
                "role": "tool",
                "toolCallId": tool_call_id,
                "toolName": tool_name,
            }));
            let back = read_message(Some(tool_call_id), &short, Some(content))
                .map(|m| to_json(&m))
                .ok();
            if back.as_ref() == Some(&body) {
                return (Some(tool_call_id.clone()), short);
            }
        }
    }
    (None, body)
}

/// A stored message; `result` is the result text of the call it points at.
pub fn read_message(
    call_id: Option<&str>,
    body: &str,
    result: Option<&str>,
) -> serde_json::Result<Message> {
    if call_id.is_none() {
        return serde_json::from_str(body);
    }
    let mut v: Value = serde_json::from_str(body)?;
    if let Value::Object(map) = &mut v {
        map.insert("content".into(), json!(result.unwrap_or_default()));
    }
    serde_json::from_value(v)
}

/// A call's suspend payload as a row holds it: nothing when it equals the arguments.
pub fn encode_payload(args: &Value, payload: Option<&Value>) -> (Option<String>, bool) {
    match payload {
        Some(p) if to_json(p) == to_json(args) => (None, true),
        other => (other.map(to_json), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ToolCall, Usage};

    fn assistant() -> Message {
        Message::Assistant {
            content: Some("Let me ask.".into()),
            tool_calls: vec![
                ToolCall {
                    id: "q".into(),
                    name: "ask_user".into(),
                    args: json!({"question": "Which?", "options": [{"label": "a"}]}),
                    invalid_args: None,
                },
                ToolCall {
                    id: "bad".into(),
                    name: "ask_user".into(),
                    args: Value::Null,
                    invalid_args: Some("{\"q".into()),
                },
            ],
        }
    }

    fn tool(id: &str, content: &str) -> Message {
        Message::Tool {
            tool_call_id: id.into(),
            tool_name: "ask_user".into(),
            content: content.into(),
        }
    }

    /// Writes `events` the way the store does, reads them back, and returns the rows.
    fn roundtrip(events: &[Event], sources: &Sources) -> Vec<EventRow> {
        let mut w = Cursor::default();
        let rows: Vec<EventRow> = events
            .iter()
            .map(|e| encode_event(e, Some(1), &mut w, sources))
            .collect();
        let mut r = Cursor::default();
        for (e, row) in events.iter().zip(&rows) {
            let back = read_event(e.kind, row, &mut r, sources).unwrap();
            assert_eq!(to_json(&back), to_json(&e.payload), "{}", e.kind);
        }
        rows
    }

    #[test]
    fn a_suspended_step_keeps_its_copies_as_references() {
        let a = assistant();
        let Message::Assistant { tool_calls, .. } = &a else {
            unreachable!()
        };
        let payload = json!({"question": "Which?", "options": [{"label": "a"}], "selectionMode": "single_select"});
        let mut src = Sources::default();
        src.add_message(1, &a);
        src.add_payload("q", &payload);
        let result = json!({"content": "User answered: a", "isError": false});
        src.add_message(2, &tool("q", &result.to_string()));
        let events = [
            Event::step_start("m1"),
            Event::text_delta("m1", "Let me ask."),
            Event::tool_call(&tool_calls[0]),
            Event::tool_call(&tool_calls[1]),
            Event::tool_error(
                "bad",
                "ask_user",
                &Value::Null,
                &json!({"name": "ToolArgumentsError", "message": "bad"}),
            ),
            Event::step_finish("m1", "tool-calls"),
            Event::suspended(&tool_calls[0], &payload, &json!({"type": "string"})),
            Event::tool_result("q", "ask_user", &tool_calls[0].args, &result),
            Event::finish("stop", "Let me ask.", Usage::default()),
        ];
        let rows = roundtrip(&events, &src);
        let derived: Vec<bool> = rows.iter().map(|r| r.derived).collect();
        assert_eq!(
            derived,
            [false, true, true, true, true, true, true, true, true]
        );
        assert_eq!(rows[2].payload, None);
        assert_eq!(
            rows[6].payload.as_deref(),
            Some(r#"{"resumeSchema":"{\"type\":\"string\"}"}"#)
        );
    }

    #[test]
    fn approval_events_keep_only_what_the_call_does_not_hold() {
        let a = assistant();
        let Message::Assistant { tool_calls, .. } = &a else {
            unreachable!()
        };
        let mut src = Sources::default();
        src.add_message(1, &a);
        let schema = crate::tools::approval::resume_schema();
        let events = [
            Event::step_start("m1"),
            Event::approval(&tool_calls[0], &schema),
            Event::output_denied("q", "ask_user", &tool_calls[0].args, "Not now."),
        ];
        let rows = roundtrip(&events, &src);
        assert!(rows[1].derived && rows[2].derived);
        assert_eq!(
            rows[2].payload.as_deref(),
            Some(r#"{"approval":{"id":"q","approved":false,"reason":"Not now."}}"#)
        );
    }

    #[test]
    fn what_does_not_match_its_sources_is_stored_whole() {
        let mut src = Sources::default();
        src.add_message(1, &assistant());
        let events = [
            // No step-start before it: the message id cannot be rebuilt.
            Event::step_finish("m1", "stop"),
            // Arguments that differ from the assistant message's.
            Event::tool_call(&ToolCall {
                id: "q".into(),
                name: "ask_user".into(),
                args: json!({"question": "Other?"}),
                invalid_args: None,
            }),
            // A call nobody made.
            Event::tool_result("ghost", "ask_user", &json!({}), &json!({})),
            Event::text_delta("m1", "Not the message's text."),
            Event::error("boom"),
        ];
        let rows = roundtrip(&events, &src);
        assert!(rows.iter().all(|r| !r.derived && r.payload.is_some()));
    }

    #[test]
    fn a_tool_message_points_at_its_call_row_when_the_content_is_the_result() {
        let content = r#"{"content":"Plan approved.","isError":false}"#;
        let results = HashMap::from([("p".to_string(), content.to_string())]);
        let m = tool("p", content);
        let (call, body) = encode_message(&m, &results);
        assert_eq!(call.as_deref(), Some("p"));
        assert!(!body.contains("approved"));
        assert_eq!(
            read_message(call.as_deref(), &body, Some(content)).unwrap(),
            m
        );
        let other = tool("p", "something else");
        let (call, body) = encode_message(&other, &results);
        assert_eq!(call, None);
        assert_eq!(read_message(None, &body, None).unwrap(), other);
    }

    #[test]
    fn a_payload_equal_to_the_arguments_is_not_stored_twice() {
        let args = json!({"question": "Q?"});
        assert_eq!(
            encode_payload(&args, Some(&json!({"question": "Q?"}))),
            (None, true)
        );
        assert_eq!(
            encode_payload(&args, Some(&json!({"question": "R?"}))),
            (Some(r#"{"question":"R?"}"#.into()), false)
        );
        assert_eq!(encode_payload(&args, None), (None, false));
    }

    #[test]
    fn no_stored_row_makes_reading_panic() {
        use crate::testing::{damage, string, value, Rng, CASES};
        let mut rng = Rng::new(8);
        let kinds = EventKind::ALL;
        for _ in 0..CASES / 10 {
            // Sources from whatever messages and payloads a damaged store yields.
            let mut src = Sources::default();
            for seq in 0..rng.below(6) as i64 {
                if let Ok(m) = serde_json::from_value::<Message>(value(&mut rng, 4)) {
                    src.add_message(seq, &m);
                }
                src.add_message(seq, &assistant());
                src.add_payload(&string(&mut rng), &value(&mut rng, 2));
            }
            let mut cursor = Cursor::default();
            for _ in 0..10 {
                let payload = match rng.below(3) {
                    0 => None,
                    1 => Some(value(&mut rng, 3).to_string()),
                    _ => Some(
                        String::from_utf8_lossy(&damage(&mut rng, r#"{"error":{"a":1}}"#))
                            .into_owned(),
                    ),
                };
                let row = EventRow {
                    derived: rng.chance(70),
                    call_id: rng
                        .chance(70)
                        .then(|| rng.pick(&["q", "bad", "zz"]).to_string()),
                    message: rng.chance(50).then(|| rng.below(8) as i64),
                    payload,
                };
                let kind = *rng.pick(&kinds);
                let _ = read_event(kind, &row, &mut cursor, &src);
            }
            let body = String::from_utf8_lossy(&damage(
                &mut rng,
                r#"{"role":"tool","toolCallId":"q","toolName":"x"}"#,
            ))
            .into_owned();
            let call = rng.chance(50).then(|| string(&mut rng));
            let result = rng.chance(50).then(|| string(&mut rng));
            let _ = read_message(call.as_deref(), &body, result.as_deref());
        }
    }
}
