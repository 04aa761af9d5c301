//! One attempt at a model call: the request, reading the whole response or the stream, and
//! what a failed status or a broken stream means (retryable or not, and the one line that
//! says what to do).

use std::io::{BufReader, Read};
use std::time::Duration;

use serde_json::Value;

use super::super::assemble::Assembler;
use super::super::http::{self, Trouble};
use super::super::{wire, Response};
use super::{needs, OpenAi};
use crate::limits::{MAX_HTTP_BODY as MAX_BODY, MAX_SSE_FRAME};
use crate::net::sse::{self, Flow};

/// A failed attempt.
pub(super) struct Failure {
    pub(super) message: String,
    pub(super) retryable: bool,
    pub(super) retry_after: Option<Duration>,
}

impl Failure {
    fn final_(message: String) -> Failure {
        Failure {
            message,
            retryable: false,
            retry_after: None,
        }
    }
}

impl OpenAi {
    pub(super) fn attempt(
        &self,
        body: &str,
        on_text: &mut dyn FnMut(&str),
        shown: &mut bool,
    ) -> Result<Response, Failure> {
        let url = format!("{}/chat/completions", self.base_url);
        let key = self.key.as_ref().map(|k| k.0.as_str());
        let response = self
            .client
            .post_json(&url, body, key)
            .map_err(|t| self.trouble(t))?;
        let status = response.status().as_u16();
        let retry_after = http::retry_after(
            response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok()),
        );
        let event_stream = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.to_ascii_lowercase().contains("text/event-stream"));
        let mut body = response.into_body();
        if status >= 400 {
            // What arrives of it; a broken or huge error body still leaves the status.
            let mut raw = Vec::new();
            let _ = body
                .as_reader()
                .take(http::MAX_ERROR_BODY)
                .read_to_end(&mut raw);
            let text = String::from_utf8_lossy(&raw);
            return Err(self.status_failure(status, &text, retry_after));
        }
        if event_stream {
            let reader = BufReader::new(body.into_with_config().limit(MAX_BODY).reader());
            return self.read_stream(reader, on_text, shown);
        }
        let text = body
            .with_config()
            .limit(MAX_BODY)
            .lossy_utf8(true)
            .read_to_string()
            .map_err(|e| self.trouble(http::trouble(&e)))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            Failure::final_(format!(
                "{} sent a response that is not JSON ({e}): {}",
                self.label(),
                self.clean(&text)
            ))
        })?;
        let mut assembler = Assembler::default();
        let text = assembler.whole(&value).map_err(|m| {
            Failure::final_(format!(
                "{} answered with an error: {}",
                self.label(),
                self.clean(&m)
            ))
        })?;
        if value
            .get("choices")
            .and_then(Value::as_array)
            .is_none_or(|c| c.is_empty())
        {
            return Err(Failure::final_(format!(
                "{} sent a response without choices: {}",
                self.label(),
                self.clean(&value.to_string())
            )));
        }
        if !text.is_empty() {
            *shown = true;
            on_text(&text);
        }
        Ok(assembler.finish())
    }

    fn read_stream(
        &self,
        reader: impl std::io::BufRead,
        on_text: &mut dyn FnMut(&str),
        shown: &mut bool,
    ) -> Result<Response, Failure> {
        let mut assembler = Assembler::default();
        let mut done = false;
        let read = sse::read(reader, MAX_SSE_FRAME, |frame| {
            if frame.data.trim() == "[DONE]" {
                done = true;
                return Ok(Flow::Stop);
            }
            if frame.event.as_deref() == Some("error") {
                let message = wire::error_message(&frame.data).unwrap_or(frame.data);
                return Err(StreamError::Frame(message));
            }
            let value: Value = serde_json::from_str(&frame.data)
                .map_err(|e| StreamError::Malformed(format!("{e}: {}", frame.data)))?;
            let text = assembler.chunk(&value).map_err(StreamError::Frame)?;
            if !text.is_empty() {
                *shown = true;
                on_text(&text);
            }
            Ok(Flow::Continue)
        });
        match read {
            Ok(()) => {}
            Err(StreamError::Frame(message)) => {
                return Err(Failure::final_(format!(
                    "{} broke off the stream with an error: {}",
                    self.label(),
                    self.clean(&message)
                )))
            }
            Err(StreamError::Malformed(what)) => {
                return Err(Failure::final_(format!(
                    "{} sent a stream frame that is not JSON ({})",
                    self.label(),
                    self.clean(&what)
                )))
            }
            Err(StreamError::Io(e)) => return Err(self.trouble(http::io_trouble(&e))),
        }
        if !done && assembler.finish_reason().is_none() {
            return Err(Failure {
                message: format!(
                    "{}: the stream ended before the response was complete",
                    self.label()
                ),
                retryable: true,
                retry_after: None,
            });
        }
        Ok(assembler.finish())
    }

    fn trouble(&self, t: Trouble) -> Failure {
        Failure {
            message: format!(
                "cannot get an answer from {}: {}",
                self.label(),
                t.describe(&self.settings)
            ),
            retryable: t.retryable(),
            retry_after: None,
        }
    }

    fn status_failure(&self, status: u16, body: &str, retry_after: Option<Duration>) -> Failure {
        let reason = ureq::http::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .map(|r| format!("{status} {}", r.to_ascii_lowercase()))
            .unwrap_or_else(|| status.to_string());
        let said = wire::error_message(body)
            .map(|m| format!(": {}", self.clean(&m)))
            .unwrap_or_default();
        let needs = needs(self.server);
        let advice = match (status, needs.key_var) {
            (401 | 403, Some(var)) if self.key.is_some() => {
                format!("; check that {var} holds a valid API key")
            }
            (401 | 403, Some(var)) => format!("; set {var} to an API key"),
            (404, _) => format!(
                "; check the model name \"{}\" and the base URL (it usually ends in /v1)",
                self.model
            ),
            _ => String::new(),
        };
        let message = match status {
            401 | 403 => format!(
                "{} refused the request ({reason}){said}{advice}",
                self.label()
            ),
            400 => format!("{} rejected the request ({reason}){said}", self.label()),
            _ => format!("{} answered {reason}{said}{advice}", self.label()),
        };
        Failure {
            message,
            retryable: status == 429 || status >= 500,
            retry_after,
        }
    }
}

/// Why reading a stream stopped early.
enum StreamError {
    /// The server's error frame.
    Frame(String),
    Malformed(String),
    Io(std::io::Error),
}

impl From<std::io::Error> for StreamError {
    fn from(e: std::io::Error) -> StreamError {
        StreamError::Io(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::openai::tests::lookup;
    use crate::providers::spec::Server;

    fn read(body: &str) -> (std::result::Result<Response, Failure>, String) {
        let p = OpenAi::new(Server::Ollama, "m", None, lookup(&[])).unwrap();
        let mut text = String::new();
        let mut shown = false;
        let r = p.read_stream(body.as_bytes(), &mut |t| text.push_str(t), &mut shown);
        assert_eq!(shown, !text.is_empty());
        (r, text)
    }

    #[test]
    fn streams_end_with_done_or_a_finish_reason() {
        let hi = r#"data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#;
        let stop = r#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#;
        let (r, text) = read(&format!("{hi}\n\n{stop}\n\ndata: [DONE]\n\n{hi}\n\n"));
        assert_eq!(text, "Hi", "nothing after [DONE] is read");
        assert_eq!(r.ok().unwrap().text.as_deref(), Some("Hi"));
        let (r, _) = read(&format!("{hi}\n\n{stop}\n\n"));
        assert!(r.is_ok(), "a finish reason without [DONE] is complete");
        let (r, text) = read(&format!("{hi}\n\n"));
        let f = r.err().unwrap();
        assert_eq!(text, "Hi");
        assert!(
            f.retryable
                && f.message
                    .ends_with("the stream ended before the response was complete")
        );
    }

    #[test]
    fn error_and_malformed_frames_end_the_call() {
        let (r, _) = read("data: {\"error\":{\"message\":\"overloaded\"}}\n\n");
        let f = r.err().unwrap();
        assert!(!f.retryable);
        assert!(
            f.message
                .ends_with("broke off the stream with an error: overloaded"),
            "{}",
            f.message
        );
        let (r, _) = read("event: error\ndata: boom\n\n");
        assert!(r.err().unwrap().message.ends_with("with an error: boom"));
        let (r, _) = read("data: {not json\n\n");
        let f = r.err().unwrap();
        assert!(
            !f.retryable && f.message.contains("sent a stream frame that is not JSON"),
            "{}",
            f.message
        );
    }

    #[test]
    fn status_errors_say_what_to_do_and_hide_the_key() {
        let p = OpenAi::new(
            Server::OpenAi,
            "gpt-4o",
            None,
            lookup(&[("OPENAI_API_KEY", "sk-secret-123")]),
        )
        .unwrap();
        let f = p.status_failure(
            401,
            r#"{"error":{"message":"Incorrect API key provided: sk-secret-123."}}"#,
            None,
        );
        assert_eq!(
            f.message,
            "openai at https://api.openai.com/v1 refused the request (401 unauthorized): Incorrect API key provided: [redacted].; check that OPENAI_API_KEY holds a valid API key"
        );
        assert!(!f.retryable);
        let f = p.status_failure(
            400,
            r#"{"error":{"message":"Invalid schema for function 'ask_user'."}}"#,
            None,
        );
        assert!(f.message.ends_with(
            "rejected the request (400 bad request): Invalid schema for function 'ask_user'."
        ));
        let f = p.status_failure(429, "", Some(Duration::from_secs(1)));
        assert!(f.retryable && f.retry_after == Some(Duration::from_secs(1)));
        assert!(f.message.ends_with("answered 429 too many requests"));
        assert!(p.status_failure(503, "", None).retryable);
        let f = p.status_failure(404, r#"{"error":"model 'gpt-5' not found"}"#, None);
        assert!(f
            .message
            .contains("model 'gpt-5' not found; check the model name \"gpt-4o\""));
    }
}
