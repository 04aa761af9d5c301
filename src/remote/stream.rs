//! One leg of a Mastra run read off its event stream: `data: <json>` frames until
//! `data: [DONE]`, each handed to the caller exactly as the server sent it, and how the leg
//! ended (suspended again, finished, or an `error` chunk).
//!
//! It reads to `[DONE]` whatever the caller does with the chunks: dropping the connection
//! mid-leg makes Mastra abort the run and delete its suspension. It keeps no server stack:
//! an `error` chunk's `stack` is the caller's to pass through (JSON mode), never part of
//! [`LegEnd::Failed`].

use std::io::{self, BufRead};

use serde_json::Value;

use super::error::{clip, without_stack};
use super::items::Item;
use crate::providers::sse;

/// The largest frame we accept (`step-finish`/`finish` carry the whole conversation).
pub const MAX_FRAME: usize = 16 * 1024 * 1024;

/// One chunk of the stream.
#[derive(Clone, Copy, Debug)]
pub struct Chunk<'a> {
    /// The frame's data exactly as the server sent it (the text after `data: `).
    pub line: &'a str,
    /// The same, parsed.
    pub value: &'a Value,
}

/// How a leg ended.
#[derive(Clone, Debug, PartialEq)]
pub enum LegEnd {
    /// The run waits again: the calls announced by `tool-call-suspended` /
    /// `tool-call-approval` chunks of this leg that it did not also resolve.
    Suspended(Vec<Item>),
    /// A `finish` chunk: its `stepResult.reason` (`stop`, or e.g. `tool-calls` when the
    /// leg ran out of steps) and `output.text`.
    Finished { reason: String, text: String },
    /// An `error` chunk (its message, without the stack), or a leg that ended with neither a
    /// finish nor a suspension.
    Failed { message: String },
}

/// A leg read to its end.
#[derive(Clone, Debug, PartialEq)]
pub struct Leg {
    pub end: LegEnd,
    /// Chunks handed to the callback.
    pub chunks: usize,
    /// Frames whose data was not JSON (skipped, not handed over).
    pub unreadable: usize,
}

/// Why a stream could not be read to `[DONE]`.
#[derive(Debug)]
pub enum StreamBroke {
    Io(io::Error),
    /// The body ended without `data: [DONE]`.
    NoDone,
}

impl From<io::Error> for StreamBroke {
    fn from(e: io::Error) -> StreamBroke {
        StreamBroke::Io(e)
    }
}

/// Reads frames to `[DONE]`, handing each JSON chunk to `on_chunk`.
pub fn read_leg(
    reader: impl BufRead,
    agent_id: &str,
    server: &str,
    mut on_chunk: impl FnMut(Chunk<'_>),
) -> Result<Leg, StreamBroke> {
    let mut state = State::default();
    let mut done = false;
    sse::read::<io::Error>(reader, MAX_FRAME, |frame| {
        if frame.data == "[DONE]" {
            done = true;
            return Ok(sse::Flow::Stop);
        }
        match serde_json::from_str::<Value>(&frame.data) {
            Ok(value) => {
                on_chunk(Chunk {
                    line: &frame.data,
                    value: &value,
                });
                state.chunks += 1;
                state.see(&value, agent_id, server);
            }
            Err(_) => state.unreadable += 1,
        }
        Ok(sse::Flow::Continue)
    })?;
    if !done {
        return Err(StreamBroke::NoDone);
    }
    Ok(state.end())
}

#[derive(Default)]
struct State {
    chunks: usize,
    unreadable: usize,
    error: Option<String>,
    finish: Option<(String, String)>,
    suspended: Vec<Item>,
}

impl State {
    fn see(&mut self, chunk: &Value, agent_id: &str, server: &str) {
        let payload = chunk.get("payload");
        let call_id = payload
            .and_then(|p| p.get("toolCallId"))
            .and_then(Value::as_str);
        match chunk.get("type").and_then(Value::as_str).unwrap_or("") {
            "tool-call-suspended" | "tool-call-approval" => {
                if let Some(item) = Item::from_chunk(chunk, agent_id, server) {
                    self.suspended
                        .retain(|i| i.tool_call_id != item.tool_call_id);
                    self.suspended.push(item);
                }
            }
            "tool-result" | "tool-error" | "tool-output-denied" => {
                self.suspended
                    .retain(|i| Some(i.tool_call_id.as_str()) != call_id);
            }
            "error" if self.error.is_none() => {
                let error = payload.and_then(|p| p.get("error"));
                let message = error
                    .and_then(|e| e.get("message").or(Some(e)))
                    .and_then(Value::as_str)
                    .unwrap_or("the run failed on the server");
                self.error = Some(clip(&without_stack(message)));
            }
            "finish" => {
                let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
                let reason = text(payload.and_then(|p| p.pointer("/stepResult/reason")));
                let output = text(payload.and_then(|p| p.pointer("/output/text")));
                self.finish = Some((reason, output));
            }
            _ => {}
        }
    }

    fn end(self) -> Leg {
        let end = if let Some(message) = self.error {
            LegEnd::Failed { message }
        } else if let Some((reason, text)) = self.finish {
            LegEnd::Finished { reason, text }
        } else if !self.suspended.is_empty() {
            LegEnd::Suspended(self.suspended)
        } else {
            LegEnd::Failed {
                message: "the leg ended with neither a finish nor a suspension".into(),
            }
        };
        Leg {
            end,
            chunks: self.chunks,
            unreadable: self.unreadable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Result<Leg, StreamBroke>, Vec<String>) {
        let mut lines = Vec::new();
        let leg = read_leg(text.as_bytes(), "planner", "s", |c| {
            lines.push(c.line.to_string())
        });
        (leg, lines)
    }

    #[test]
    fn a_suspended_leg_hands_over_every_chunk_verbatim() {
        let suspended = r#"{"type":"tool-call-suspended","runId":"r","from":"AGENT","payload":{"toolCallId":"c1","toolName":"ask_user","suspendPayload":{"question":"Name?"},"args":{"question":"Name?"},"resumeSchema":"{}"}}"#;
        let start = r#"{"type":"start","runId":"r","from":"AGENT","payload":{"id":"planner"}}"#;
        let text = format!("data: {start}\n\ndata: {suspended}\n\ndata: [DONE]\n\n");
        let (leg, lines) = read(&text);
        let leg = leg.unwrap();
        assert_eq!(lines, [start, suspended]);
        assert_eq!(leg.chunks, 2);
        let LegEnd::Suspended(items) = leg.end else {
            panic!("{:?}", leg.end)
        };
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].tool_call_id, "c1");
        assert_eq!(items[0].agent_id, "planner");
    }

    #[test]
    fn finish_error_and_resolved_calls() {
        let finish = r#"{"type":"finish","runId":"r","payload":{"stepResult":{"reason":"stop"},"output":{"text":"Done."}}}"#;
        let (leg, _) = read(&format!("data: {finish}\n\ndata: [DONE]\n\n"));
        assert_eq!(
            leg.unwrap().end,
            LegEnd::Finished {
                reason: "stop".into(),
                text: "Done.".into()
            }
        );

        let error = r#"{"type":"error","runId":"r","payload":{"type":"error","error":{"message":"model down","name":"Error","stack":"Error: model down\n    at x (/srv/a.js:1:1)"}}}"#;
        let (leg, lines) = read(&format!(
            "data: {error}\n\ndata: {finish}\n\ndata: not json\n\ndata: [DONE]\n\n"
        ));
        let leg = leg.unwrap();
        assert_eq!(
            leg.end,
            LegEnd::Failed {
                message: "model down".into()
            }
        );
        assert_eq!((leg.chunks, leg.unreadable), (2, 1));
        assert_eq!(
            lines[0], error,
            "the stack stays in the chunk, for JSON mode"
        );

        let approval = r#"{"type":"tool-call-approval","runId":"r","payload":{"toolCallId":"c","toolName":"deploy","args":{}}}"#;
        let result =
            r#"{"type":"tool-result","runId":"r","payload":{"toolCallId":"c","result":{}}}"#;
        let (leg, _) = read(&format!(
            "data: {approval}\n\ndata: {result}\n\ndata: [DONE]\n\n"
        ));
        assert!(matches!(leg.unwrap().end, LegEnd::Failed { .. }));
    }

    #[test]
    fn a_stream_without_done_is_broken() {
        let (leg, lines) = read("data: {\"type\":\"start\"}\n\n");
        assert!(matches!(leg, Err(StreamBroke::NoDone)));
        assert_eq!(lines.len(), 1);
    }
}
