//! An answer's event stream: what the run layer reports while serve records an answer and
//! drives or follows its leg (`Report`, on a blocking thread) becomes Mastra's SSE frames
//! (`data: <chunk>\n\n`, the envelope of §7) on an unbounded channel, read by the response
//! body with a comment every `KEEP_ALIVE` while nothing comes, and `data: [DONE]` last.
//!
//! The channel never blocks the leg: a slow or departed client costs memory for one leg's
//! events at most, never the leg itself. Lines meant for a person at a terminal (hints, the
//! commands that answer what the run waits for) are not sent; warnings go to serve's log.

use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue};
use axum::response::Response;
use serde_json::Value;
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use super::KEEP_ALIVE;
use crate::domain::{Event, Sink, StoredEvent};
use crate::output::{envelope, sanitize};
use crate::report::Report;

/// The end of every stream.
pub const DONE: &[u8] = b"data: [DONE]\n\n";

/// The sending side, handed to the run layer as its `Report`.
pub struct Frames {
    tx: UnboundedSender<Bytes>,
}

/// A new stream: the run layer's side and the response's.
pub fn channel() -> (Frames, UnboundedReceiver<Bytes>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (Frames { tx }, rx)
}

impl Frames {
    /// Sends one frame; a client that went away is no reason to stop.
    pub fn send(&self, bytes: Bytes) {
        let _ = self.tx.send(bytes);
    }

    /// An SSE comment (ignored by clients; read by a person with curl).
    pub fn comment(&self, text: &str) {
        self.send(Bytes::from(format!(": {}\n\n", sanitize::one_line(text))));
    }

    pub fn event(&self, run_id: &str, e: &Event) {
        self.send(frame(&envelope(run_id, e)));
    }

    /// `data: [DONE]`; the stream ends when the last `Frames` is dropped.
    pub fn done(self) {
        self.send(Bytes::from_static(DONE));
    }
}

fn frame(v: &Value) -> Bytes {
    Bytes::from(format!("data: {v}\n\n"))
}

impl Report for Frames {
    fn json(&self) -> bool {
        true
    }
    fn info(&self, _line: &str) {}
    fn warn(&self, line: &str) {
        eprintln!("warning: {}", sanitize::one_line(line));
    }
    fn line(&self, _line: &str) {}
    fn json_line(&self, _value: &Value) {}
    fn leg(&self) -> Box<dyn Sink + '_> {
        Box::new(LegFrames(self))
    }
    fn stored_events(&self, run_id: &str, events: &[StoredEvent]) {
        for e in events {
            self.event(run_id, &e.event);
        }
    }
}

struct LegFrames<'a>(&'a Frames);

impl Sink for LegFrames<'_> {
    fn event(&mut self, run_id: &str, event: &Event) {
        self.0.event(run_id, event);
    }
}

/// An event stream of what `rx` receives, with a keep-alive comment whenever nothing came
/// for `KEEP_ALIVE`; it ends when every sender is gone.
pub fn sse(rx: UnboundedReceiver<Bytes>) -> Response {
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        match tokio::time::timeout(KEEP_ALIVE, rx.recv()).await {
            Ok(Some(b)) => Some((Ok::<_, Infallible>(b), rx)),
            Ok(None) => None,
            Err(_) => Some((Ok(Bytes::from_static(b": keep-alive\n\n")), rx)),
        }
    });
    let mut response = Response::new(Body::from_stream(stream));
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
