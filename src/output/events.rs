//! A run's stored events as a person reads them in `show` (SPEC §5: readable lines in text
//! mode, never raw JSON): one line per event with its time, its type and what matters in
//! it. Text deltas in a row are joined into the text they make; arguments, results and
//! texts are shortened to one line. `show -o json` prints the events themselves, not this.
//!
//! Pure formatting of what the store holds: it never reads the store, and every piece of a
//! payload (model or person text) is escaped here as everywhere (§5.6).

use serde_json::Value;

use super::{format, sanitize};
use crate::domain::{EventKind, StoredEvent};

/// How many characters of a text, an argument list or a result a line shows.
const SHORT: usize = 120;

/// The longest type name, so the essentials line up.
const KIND_WIDTH: usize = "tool-call-suspended".len();

/// The lines for a run's events, in order.
pub fn lines(events: &[StoredEvent]) -> Vec<String> {
    let mut out = Vec::new();
    let mut steps = 0;
    let mut i = 0;
    while i < events.len() {
        let e = &events[i];
        let p = &e.event.payload;
        let (kind, what) = match e.event.kind {
            EventKind::TextDelta => {
                // The deltas of one text, up to the next other event.
                let mut text = String::new();
                while let Some(d) = events
                    .get(i)
                    .filter(|d| d.event.kind == EventKind::TextDelta)
                {
                    text.push_str(str_at(&d.event.payload, "text"));
                    i += 1;
                }
                i -= 1;
                ("text", quoted(&text))
            }
            EventKind::StepStart => {
                steps += 1;
                ("step-start", format!("step {steps}"))
            }
            kind => (kind.as_str(), essentials(kind, p)),
        };
        out.push(
            format!("{}  {kind:<KIND_WIDTH$}  {what}", format::time(e.at))
                .trim_end()
                .to_string(),
        );
        i += 1;
    }
    out
}

/// What an event (other than a text or a step's start) is about.
fn essentials(kind: EventKind, p: &Value) -> String {
    let call = || {
        format!(
            "{} {}",
            one(str_at(p, "toolCallId")),
            one(str_at(p, "toolName"))
        )
    };
    match kind {
        EventKind::Start => format!("agent {}", one(str_at(p, "id"))),
        EventKind::ToolCall => format!("{} {}", call(), json_short(&p["args"])),
        EventKind::ToolResult => format!("{}: {}", call(), result_short(&p["result"])),
        EventKind::ToolError => format!(
            "{} failed: {}",
            call(),
            short(str_at(&p["error"], "message"))
        ),
        EventKind::ToolCallSuspended => format!("{} waits: {}", call(), waits_for(p)),
        EventKind::ToolCallApproval => {
            format!("{} {} waits for approval", call(), json_short(&p["args"]))
        }
        EventKind::ToolOutputDenied => {
            match p["approval"]["reason"].as_str().filter(|r| !r.is_empty()) {
                Some(reason) => format!("{} declined: {}", call(), short(reason)),
                None => format!("{} declined", call()),
            }
        }
        EventKind::StepFinish => one(str_at(p, "finishReason")),
        EventKind::Finish => {
            let usage = &p["usage"];
            format!(
                "{} ({} in, {} out tokens)",
                one(str_at(p, "finishReason")),
                usage["inputTokens"].as_u64().unwrap_or(0),
                usage["outputTokens"].as_u64().unwrap_or(0)
            )
        }
        EventKind::Error => short(str_at(p, "message")),
        // Handled by `lines`.
        EventKind::TextDelta | EventKind::StepStart => String::new(),
    }
}

/// What a suspended call waits for: the question, the plan, or its payload.
fn waits_for(p: &Value) -> String {
    let payload = &p["suspendPayload"];
    if let Some(q) = payload["question"].as_str() {
        return format!("question {}", quoted(q));
    }
    match (payload["title"].as_str(), payload["path"].as_str()) {
        (Some(title), Some(path)) => format!("plan {} ({})", quoted(title), one(path)),
        _ => json_short(payload),
    }
}

/// A tool's result: the text the model got (`content`) when it has one, else its JSON.
fn result_short(result: &Value) -> String {
    match result.get("content").and_then(Value::as_str) {
        Some(text) => short(text),
        None => json_short(result),
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn one(s: &str) -> String {
    sanitize::one_line(s)
}

fn quoted(s: &str) -> String {
    format!("\"{}\"", short(s))
}

fn json_short(v: &Value) -> String {
    if v.is_null() {
        return "{}".into();
    }
    short(&v.to_string())
}

/// One line of at most `SHORT` characters of `s` (then `...`), escaped: how a listing shows
/// a model's text or arguments.
pub fn short(s: &str) -> String {
    match s.char_indices().nth(SHORT) {
        Some((cut, _)) => format!("{}...", one(&s[..cut])),
        None => one(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Event, ToolCall, Usage};
    use serde_json::json;

    fn stored(events: Vec<Event>) -> Vec<StoredEvent> {
        events
            .into_iter()
            .enumerate()
            .map(|(i, event)| StoredEvent {
                seq: i as i64,
                at: 1_750_000_000_000 + i as i64 * 1000,
                event,
            })
            .collect()
    }

    fn call(id: &str, name: &str, args: Value) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            args,
            invalid_args: None,
        }
    }

    #[test]
    fn each_event_is_one_readable_line_and_texts_are_joined() {
        let ask = call("q1", "ask_user", json!({"question": "Which?"}));
        let tag = call("t1", "tag", json!({"version": "3.1.0"}));
        let events = stored(vec![
            Event::start("release", "m"),
            Event::step_start("m"),
            Event::text_delta("m", "I will "),
            Event::text_delta("m", "ask."),
            Event::tool_call(&ask),
            Event::step_finish("m", "tool-calls"),
            Event::suspended(&ask, &json!({"question": "Which?"}), &json!({})),
            Event::tool_result(
                "q1",
                "ask_user",
                &ask.args,
                &json!({"content": "User answered: 3.1.0", "isError": false}),
            ),
            Event::approval(&tag, "{}"),
            Event::output_denied("t1", "tag", &tag.args, "not today"),
            Event::tool_error(
                "p1",
                "submit_plan",
                &json!({}),
                &json!({"name": "E", "message": "no file"}),
            ),
            Event::finish(
                "stop",
                "Done.",
                Usage {
                    input_tokens: 3,
                    output_tokens: 4,
                    ..Default::default()
                },
            ),
            Event::error("boom"),
        ]);
        let lines = lines(&events);
        let expected = [
            "2025-06-15T15:06:40.000Z  start                agent release",
            "2025-06-15T15:06:41.000Z  step-start           step 1",
            "2025-06-15T15:06:42.000Z  text                 \"I will ask.\"",
            "2025-06-15T15:06:44.000Z  tool-call            q1 ask_user {\"question\":\"Which?\"}",
            "2025-06-15T15:06:45.000Z  step-finish          tool-calls",
            "2025-06-15T15:06:46.000Z  tool-call-suspended  q1 ask_user waits: question \"Which?\"",
            "2025-06-15T15:06:47.000Z  tool-result          q1 ask_user: User answered: 3.1.0",
            "2025-06-15T15:06:48.000Z  tool-call-approval   t1 tag {\"version\":\"3.1.0\"} waits for approval",
            "2025-06-15T15:06:49.000Z  tool-output-denied   t1 tag declined: not today",
            "2025-06-15T15:06:50.000Z  tool-error           p1 submit_plan failed: no file",
            "2025-06-15T15:06:51.000Z  finish               stop (3 in, 4 out tokens)",
            "2025-06-15T15:06:52.000Z  error                boom",
        ];
        assert_eq!(lines, expected);
    }

    #[test]
    fn long_and_hostile_text_is_shortened_and_escaped() {
        let long = "x".repeat(500);
        let events = stored(vec![
            Event::text_delta("m", "\x1b[31mred\u{202e}"),
            Event::tool_call(&call("c\n1", "write", json!({"content": long}))),
            Event::suspended(
                &call("p", "submit_plan", json!({})),
                &json!({"title": "T\tx", "path": "P.md"}),
                &json!({}),
            ),
            Event::new(EventKind::Finish, json!("not an object")),
        ]);
        let lines = lines(&events);
        assert!(
            lines[0].ends_with("text                 \"\\x1b[31mred\\u{202e}\""),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].contains("c\\n1 write {\"content\":\"xxx"),
            "{}",
            lines[1]
        );
        assert!(lines[1].ends_with("x..."), "{}", lines[1]);
        assert!(lines[1].chars().count() < 200, "{}", lines[1]);
        assert!(
            lines[2].ends_with("p submit_plan waits: plan \"T\\tx\" (P.md)"),
            "{}",
            lines[2]
        );
        assert!(
            lines[3].ends_with("finish                (0 in, 0 out tokens)"),
            "{}",
            lines[3]
        );
    }
}
