//! One leg of a Mastra run read off its event stream: `data: <json>` frames until
//! `data: [DONE]`, each handed to the caller as the server sent it (with our secrets taken
//! out), and how the leg ended (suspended again, finished, or an `error` chunk).
//!
//! The bytes are read by a thread of their own ([`pump`]), so that the caller's thread
//! ([`follow`]) can keep the idle deadline (a stream that falls silent, or a drip that never
//! completes a frame) and hear a person who asks a second time to stop; otherwise it reads to
//! `[DONE]` whatever the caller does with the chunks, because dropping the connection mid-leg
//! makes Mastra abort the run and delete its suspension. What it keeps is bounded: the
//! suspended calls of a leg in a map with the listing's caps, one frame at a time in flight.
//! It keeps no server stack: an `error` chunk's `stack` is the caller's to pass through (JSON
//! mode), never part of [`LegEnd::Failed`].

use std::collections::HashMap;
use std::io::{self, BufRead};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::config::ServerConfig;
use super::error::{clip, without_stack, RemoteError};
use super::suspended::SuspendedCall;
use crate::limits::{MAX_LISTING_BYTES, MAX_LISTING_ITEMS};
use crate::net::sse;

/// The largest frame we accept (`step-finish`/`finish` carry the whole conversation).
pub const MAX_FRAME: usize = 16 * 1024 * 1024;
/// How often the caller's thread looks at the listener's stop while it waits for a frame.
const TICK: Duration = Duration::from_millis(100);

/// One chunk of the stream.
#[derive(Clone, Copy, Debug)]
pub struct Chunk<'a> {
    /// The frame's data as the server sent it (the text after `data: `), unless it held one
    /// of our secrets: then the chunk without them, written anew.
    pub line: &'a str,
    /// The same, parsed.
    pub value: &'a Value,
}

/// Who follows a leg: gets every chunk, and is asked (at least every 100 ms) whether to stop
/// waiting at once. A closure over chunks never stops.
pub trait Listener {
    fn chunk(&mut self, chunk: Chunk<'_>);
    fn stop_now(&mut self) -> bool {
        false
    }
}

impl<F: FnMut(Chunk<'_>)> Listener for F {
    fn chunk(&mut self, chunk: Chunk<'_>) {
        self(chunk)
    }
}

impl Listener for &mut dyn Listener {
    fn chunk(&mut self, chunk: Chunk<'_>) {
        (**self).chunk(chunk)
    }
    fn stop_now(&mut self) -> bool {
        (**self).stop_now()
    }
}

/// How a leg ended.
#[derive(Clone, Debug, PartialEq)]
pub enum LegEnd {
    /// The run waits again: the calls announced by `tool-call-suspended` /
    /// `tool-call-approval` chunks of this leg that it did not also resolve, in the order
    /// they were announced.
    Suspended(Vec<SuspendedCall>),
    /// A `finish` chunk: its `stepResult.reason` (`stop`, or e.g. `tool-calls` when the
    /// leg ran out of steps) and `output.text`.
    Finished { reason: String, text: String },
    /// An `error` chunk (its message, without the stack), or a leg that ended with neither a
    /// finish nor a suspension.
    Failed { message: String },
    /// A mastra-ask `serve` recorded the answer and nobody there continues the run: its
    /// host does (`Mastra-Ask-Outcome: recorded`, SPEC §13). The stream carried no result.
    Recorded,
    /// A mastra-ask `serve` recorded a decision its run's policy needs more of (SPEC §14,
    /// `Mastra-Ask-Outcome: partial`): what is still needed, as `Mastra-Ask-Needed` says it.
    Partial { needed: String },
}

/// The `Mastra-Ask-Outcome` of an answer only recorded.
pub const RECORDED: &str = "recorded";
/// The `Mastra-Ask-Outcome` of a decision that does not resolve its item yet.
pub const PARTIAL: &str = "partial";

/// What a mastra-ask `serve` said in its headers became of the answer (SPEC §13, §14); a
/// Mastra server says nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Told {
    /// `Mastra-Ask-Outcome`, lower case.
    pub outcome: Option<String>,
    /// `Mastra-Ask-Needed`: under a policy, what is still needed (`1 of 2 approvals: ...`).
    pub needed: Option<String>,
}

/// A leg read to its end.
#[derive(Clone, Debug, PartialEq)]
pub struct Leg {
    pub end: LegEnd,
    /// Chunks handed to the listener.
    pub chunks: usize,
    /// Frames whose data was not JSON (skipped, not handed over).
    pub unreadable: usize,
    /// Suspended calls announced past the caps of the map that keeps them (not kept).
    pub dropped: usize,
}

/// What the reading thread hands over, in order: `Started` once the server's status line and
/// headers came (with what a mastra-ask `serve` told of the answer), then each frame's data,
/// then how the body ended; or why nothing started.
pub enum Msg {
    Started(Told),
    Frame(String),
    Ended(io::Result<()>),
    Failed(RemoteError),
}

/// Why a stream could not be read to `[DONE]`.
#[derive(Debug)]
pub enum StreamBroke {
    Io(io::Error),
    /// The body ended without `data: [DONE]`.
    NoDone,
    /// Nothing for the idle deadline: before the headers (`started` false) or between frames.
    Idle {
        started: bool,
    },
    /// The listener asked to stop.
    Stopped {
        started: bool,
    },
    /// The request failed before a stream began.
    Failed(RemoteError),
}

/// Reads frames off `reader` and sends each one's data, `[DONE]` last; stops early when the
/// receiver is gone. Runs on the reading thread.
pub fn pump(reader: impl BufRead, tx: &SyncSender<Msg>) {
    let result = sse::read::<io::Error>(reader, MAX_FRAME, |frame| {
        let done = frame.data == "[DONE]";
        if tx.send(Msg::Frame(frame.data)).is_err() || done {
            return Ok(sse::Flow::Stop);
        }
        Ok(sse::Flow::Continue)
    });
    let _ = tx.send(Msg::Ended(result));
}

/// Follows the reading thread's messages to `[DONE]`, handing each JSON chunk (secrets
/// taken out) to `listener`, with the idle deadline kept from the moment the request began.
pub fn follow(
    rx: Receiver<Msg>,
    idle: Duration,
    config: &ServerConfig,
    agent_id: &str,
    listener: &mut dyn Listener,
) -> Result<Leg, StreamBroke> {
    let server = config.display();
    let mut state = State::default();
    let mut started = false;
    let mut last = Instant::now();
    loop {
        if listener.stop_now() {
            return Err(StreamBroke::Stopped { started });
        }
        let left = idle.saturating_sub(last.elapsed());
        if left.is_zero() {
            return Err(StreamBroke::Idle { started });
        }
        let data = match rx.recv_timeout(left.min(TICK)) {
            Ok(Msg::Started(told)) => {
                state.recorded = told.outcome.as_deref() == Some(RECORDED);
                if told.outcome.as_deref() == Some(PARTIAL) {
                    state.partial = Some(
                        told.needed
                            .unwrap_or_else(|| "the run's policy needs more decisions".into()),
                    );
                }
                started = true;
                last = Instant::now();
                continue;
            }
            Ok(Msg::Frame(data)) => data,
            Ok(Msg::Ended(Ok(()))) | Err(RecvTimeoutError::Disconnected) => {
                return Err(StreamBroke::NoDone)
            }
            Ok(Msg::Ended(Err(e))) => return Err(StreamBroke::Io(e)),
            Ok(Msg::Failed(e)) => return Err(StreamBroke::Failed(e)),
            Err(RecvTimeoutError::Timeout) => continue,
        };
        if data == "[DONE]" {
            return Ok(state.end());
        }
        match serde_json::from_str::<Value>(&data) {
            Ok(mut value) => {
                let line =
                    if config.may_hold_secret(data.as_bytes()) && config.redact_value(&mut value) {
                        value.to_string()
                    } else {
                        data
                    };
                listener.chunk(Chunk {
                    line: &line,
                    value: &value,
                });
                state.chunks += 1;
                state.see(&value, line.len(), agent_id, server);
            }
            Err(_) => state.unreadable += 1,
        }
        // The listener's own time (a slow terminal) is not the server's silence.
        last = Instant::now();
    }
}

/// The suspended calls of a leg by tool call id, each with the order it came in and its
/// size, within the listing's caps.
#[derive(Default)]
struct Suspended {
    calls: HashMap<String, (u64, usize, SuspendedCall)>,
    next: u64,
    bytes: usize,
    dropped: usize,
}

impl Suspended {
    fn add(&mut self, item: SuspendedCall, size: usize) {
        if let Some((_, old, _)) = self.calls.remove(&item.tool_call_id) {
            self.bytes -= old;
        }
        if self.calls.len() >= MAX_LISTING_ITEMS || (self.bytes + size) as u64 > MAX_LISTING_BYTES {
            self.dropped += 1;
            return;
        }
        self.next += 1;
        self.bytes += size;
        self.calls
            .insert(item.tool_call_id.clone(), (self.next, size, item));
    }

    fn resolve(&mut self, call_id: &str) {
        if let Some((_, size, _)) = self.calls.remove(call_id) {
            self.bytes -= size;
        }
    }

    fn in_order(self) -> Vec<SuspendedCall> {
        let mut calls: Vec<(u64, SuspendedCall)> = self
            .calls
            .into_values()
            .map(|(seq, _, item)| (seq, item))
            .collect();
        calls.sort_by_key(|(seq, _)| *seq);
        calls.into_iter().map(|(_, item)| item).collect()
    }
}

#[derive(Default)]
struct State {
    /// The server said it only recorded the answer.
    recorded: bool,
    /// The server said the decision was one of several its policy needs: what is needed.
    partial: Option<String>,
    chunks: usize,
    unreadable: usize,
    error: Option<String>,
    finish: Option<(String, String)>,
    suspended: Suspended,
}

impl State {
    fn see(&mut self, chunk: &Value, size: usize, agent_id: &str, server: &str) {
        let payload = chunk.get("payload");
        let call_id = payload
            .and_then(|p| p.get("toolCallId"))
            .and_then(Value::as_str);
        match chunk.get("type").and_then(Value::as_str).unwrap_or("") {
            "tool-call-suspended" | "tool-call-approval" => {
                if let Some(item) = SuspendedCall::from_chunk(chunk, agent_id, server) {
                    self.suspended.add(item, size);
                }
            }
            "tool-result" | "tool-error" | "tool-output-denied" => {
                if let Some(id) = call_id {
                    self.suspended.resolve(id);
                }
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
        let dropped = self.suspended.dropped;
        let end = if let Some(message) = self.error {
            LegEnd::Failed { message }
        } else if let Some((reason, text)) = self.finish {
            LegEnd::Finished { reason, text }
        } else if !self.suspended.calls.is_empty() {
            LegEnd::Suspended(self.suspended.in_order())
        } else if let Some(needed) = self.partial {
            LegEnd::Partial { needed }
        } else if self.recorded {
            LegEnd::Recorded
        } else {
            LegEnd::Failed {
                message: "the leg ended with neither a finish nor a suspension".into(),
            }
        };
        Leg {
            end,
            chunks: self.chunks,
            unreadable: self.unreadable,
            dropped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::mpsc::sync_channel;

    fn config(token: Option<&str>) -> ServerConfig {
        ServerConfig::new("http://127.0.0.1:9/api", token.map(str::to_string)).unwrap()
    }

    /// A stream read as the client reads it: the bytes pumped on a thread of their own.
    fn read_as(text: &str, config: &ServerConfig) -> (Result<Leg, StreamBroke>, Vec<String>) {
        read_with(text, config, None)
    }

    /// The same, after headers with this `Mastra-Ask-Outcome`.
    fn read_with(
        text: &str,
        config: &ServerConfig,
        outcome: Option<&str>,
    ) -> (Result<Leg, StreamBroke>, Vec<String>) {
        let (tx, rx) = sync_channel(2);
        let bytes = text.as_bytes().to_vec();
        let told = Told {
            outcome: outcome.map(str::to_string),
            needed: None,
        };
        std::thread::spawn(move || {
            let _ = tx.send(Msg::Started(told));
            pump(std::io::Cursor::new(bytes), &tx);
        });
        let mut lines = Vec::new();
        let mut listener = |c: Chunk<'_>| lines.push(c.line.to_string());
        let leg = follow(
            rx,
            Duration::from_secs(30),
            config,
            "planner",
            &mut listener,
        );
        (leg, lines)
    }

    fn read(text: &str) -> (Result<Leg, StreamBroke>, Vec<String>) {
        read_as(text, &config(None))
    }

    /// A decision a serve's policy needs more of is `Partial`, with what is needed (a
    /// server that did not say what gets a plain wording), never a failed leg.
    #[test]
    fn a_partial_decision_is_no_failed_leg() {
        let text = ": recorded; 1 of 2 approvals\n\ndata: [DONE]\n\n";
        let (leg, _) = read_with(text, &config(None), Some(PARTIAL));
        assert_eq!(
            leg.unwrap().end,
            LegEnd::Partial {
                needed: "the run's policy needs more decisions".into()
            }
        );
    }

    /// An answer a serve only recorded streams nothing but `[DONE]` (and comments): the
    /// leg is `Recorded`, not a failure. Without that header the same stream is one.
    #[test]
    fn a_recorded_answer_is_no_failed_leg() {
        let text = ": answer recorded; run r continues on its host\n\ndata: [DONE]\n\n";
        let (leg, lines) = read_with(text, &config(None), Some(RECORDED));
        assert_eq!(leg.unwrap().end, LegEnd::Recorded);
        assert!(lines.is_empty());
        let (leg, _) = read(text);
        assert!(matches!(leg.unwrap().end, LegEnd::Failed { .. }));
        let driven = r#"{"type":"finish","runId":"r","payload":{"stepResult":{"reason":"stop"},"output":{"text":"Done."}}}"#;
        let (leg, _) = read_with(
            &format!("data: {driven}\n\ndata: [DONE]\n\n"),
            &config(None),
            Some("driven"),
        );
        assert!(matches!(leg.unwrap().end, LegEnd::Finished { .. }));
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
    fn the_token_is_taken_out_of_every_chunk_even_behind_escapes() {
        let c = config(Some("tok-S3CRET-42"));
        let plain = r#"{"type":"text-delta","runId":"r","payload":{"id":"t","text":"token tok-S3CRET-42"}}"#;
        let escaped = r#"{"type":"error","runId":"r","payload":{"error":{"message":"bad key \u0074ok-S3CRET-42"}}}"#;
        let other = r#"{"type":"text-delta","runId":"r","payload":{"id":"t","text":"line\nnext"}}"#;
        let (leg, lines) = read_as(
            &format!("data: {plain}\n\ndata: {escaped}\n\ndata: {other}\n\ndata: [DONE]\n\n"),
            &c,
        );
        assert_eq!(
            lines,
            [
                r#"{"type":"text-delta","runId":"r","payload":{"id":"t","text":"token ***"}}"#,
                r#"{"type":"error","runId":"r","payload":{"error":{"message":"bad key ***"}}}"#,
                other,
            ],
            "a chunk without the token stays byte for byte"
        );
        assert_eq!(
            leg.unwrap().end,
            LegEnd::Failed {
                message: "bad key ***".into()
            }
        );
    }

    #[test]
    fn a_flood_of_suspensions_is_kept_within_the_caps_in_order() {
        let mut text = String::new();
        let n = MAX_LISTING_ITEMS + 500;
        for i in 0..n {
            text.push_str(&format!(
                "data: {{\"type\":\"tool-call-suspended\",\"runId\":\"r\",\"payload\":{{\"toolCallId\":\"c{i}\",\"toolName\":\"ask_user\",\"suspendPayload\":{{\"question\":\"q\"}}}}}}\n\n"
            ));
        }
        // The first one is resolved, and another announced again: neither counts twice.
        text.push_str("data: {\"type\":\"tool-result\",\"runId\":\"r\",\"payload\":{\"toolCallId\":\"c0\"}}\n\n");
        text.push_str("data: {\"type\":\"tool-call-suspended\",\"runId\":\"r\",\"payload\":{\"toolCallId\":\"c1\",\"toolName\":\"ask_user\"}}\n\n");
        text.push_str("data: [DONE]\n\n");
        let (leg, _) = read(&text);
        let leg = leg.unwrap();
        assert_eq!(leg.dropped, 500);
        let LegEnd::Suspended(items) = leg.end else {
            panic!("{:?}", leg.end)
        };
        assert_eq!(items.len(), MAX_LISTING_ITEMS - 1);
        assert_eq!(items[0].tool_call_id, "c2");
        assert_eq!(items.last().unwrap().tool_call_id, "c1", "announced last");
    }

    #[test]
    fn silence_ends_the_leg_at_the_idle_deadline_and_a_listener_can_stop_it() {
        let (tx, rx) = sync_channel(2);
        tx.send(Msg::Started(Told::default())).unwrap();
        tx.send(Msg::Frame(r#"{"type":"start"}"#.into())).unwrap();
        let mut seen = 0;
        let mut listener = |_: Chunk<'_>| seen += 1;
        let e = follow(
            rx,
            Duration::from_millis(300),
            &config(None),
            "a",
            &mut listener,
        )
        .unwrap_err();
        assert!(matches!(e, StreamBroke::Idle { started: true }), "{e:?}");
        assert_eq!(seen, 1);
        drop(tx);

        let (_tx, rx) = sync_channel::<Msg>(2);
        let e = follow(
            rx,
            Duration::from_millis(200),
            &config(None),
            "a",
            &mut |_: Chunk<'_>| {},
        )
        .unwrap_err();
        assert!(matches!(e, StreamBroke::Idle { started: false }), "{e:?}");

        struct Stopper(usize);
        impl Listener for Stopper {
            fn chunk(&mut self, _: Chunk<'_>) {}
            fn stop_now(&mut self) -> bool {
                self.0 += 1;
                self.0 > 2
            }
        }
        let (_tx, rx) = sync_channel::<Msg>(2);
        let e = follow(
            rx,
            Duration::from_secs(60),
            &config(None),
            "a",
            &mut Stopper(0),
        )
        .unwrap_err();
        assert!(
            matches!(e, StreamBroke::Stopped { started: false }),
            "{e:?}"
        );
    }

    #[test]
    fn a_stream_without_done_is_broken() {
        let (leg, lines) = read("data: {\"type\":\"start\"}\n\n");
        assert!(matches!(leg, Err(StreamBroke::NoDone)));
        assert_eq!(lines.len(), 1);
    }
}
