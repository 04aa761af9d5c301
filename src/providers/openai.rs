//! `openai/`, `ollama/`, `openrouter/` and `openai-compatible/` models: OpenAI-style chat
//! completions with tools, streamed (server-sent events) unless `MASTRA_ASK_STREAM=0`.
//!
//! One model call is up to four attempts: 429, 5xx and dropped connections are retried
//! with backoff, as long as no text has reached the caller yet (a retry must not repeat
//! text already shown). Everything else, an error frame in a stream included, ends the
//! call with one line that says what to do. The API key is sent in a header and never put
//! in a message: any server text repeated in an error has the key blanked out.

use std::io::{BufReader, Read};
use std::time::Duration;

use anyhow::Result;
use serde_json::Value;

use super::assemble::Assembler;
use super::http::{self, Client, Trouble};
use super::settings::Settings;
use super::spec::{check_url, Server};
use super::sse::{self, Flow};
use super::wire;
use super::{Provider, Request, Response};
use crate::error::{fail, Error};
use crate::limits::{MAX_HTTP_BODY as MAX_BODY, MAX_SSE_FRAME};

/// What each kind of server needs from the environment.
struct Needs {
    key_var: Option<&'static str>,
    key_required: bool,
    base_var: Option<&'static str>,
    default_base: &'static str,
}

fn needs(server: Server) -> Needs {
    match server {
        Server::OpenAi => Needs {
            key_var: Some("OPENAI_API_KEY"),
            key_required: true,
            base_var: Some("OPENAI_BASE_URL"),
            default_base: "https://api.openai.com/v1",
        },
        Server::Ollama => Needs {
            key_var: None,
            key_required: false,
            base_var: Some("OLLAMA_BASE_URL"),
            default_base: "http://localhost:11434/v1",
        },
        Server::OpenRouter => Needs {
            key_var: Some("OPENROUTER_API_KEY"),
            key_required: true,
            base_var: Some("OPENROUTER_BASE_URL"),
            default_base: "https://openrouter.ai/api/v1",
        },
        Server::Compatible => Needs {
            key_var: Some("MASTRA_ASK_API_KEY"),
            key_required: false,
            base_var: None,
            default_base: "",
        },
    }
}

/// The name of `maxOutputTokens` on the wire. OpenAI has deprecated `max_tokens` and its
/// reasoning models refuse it, while `max_completion_tokens` works on all its chat models;
/// llama.cpp, Ollama, vLLM, LM Studio and OpenRouter read `max_tokens` (llama.cpp ignores
/// `max_completion_tokens`).
fn max_tokens_key(server: Server) -> &'static str {
    match server {
        Server::OpenAi => "max_completion_tokens",
        Server::Ollama | Server::OpenRouter | Server::Compatible => "max_tokens",
    }
}

/// An API key; it prints as `[redacted]`.
struct Key(String);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

pub struct OpenAi {
    server: Server,
    model: String,
    base_url: String,
    key: Option<Key>,
    settings: Settings,
    client: Client,
}

/// A failed attempt.
struct Failure {
    message: String,
    retryable: bool,
    retry_after: Option<Duration>,
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
    /// The provider for `server`; keys and base URLs come from `lookup` (the environment).
    /// Fails when a required key is missing or a setting is malformed.
    pub fn new(
        server: Server,
        model: &str,
        spec_base: Option<&str>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<OpenAi> {
        let needs = needs(server);
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let key = needs
            .key_var
            .and_then(get)
            .map(|k| Key(k.trim().to_string()));
        if needs.key_required && key.is_none() {
            let var = needs.key_var.unwrap_or_default();
            return fail(
                Error::usage(format!(
                    "{} models need an API key: {var} is not set",
                    server.prefix()
                ))
                .with_hint(format!("export {var}=<your key>")),
            );
        }
        let (base, from) = match (
            spec_base,
            needs.base_var.and_then(|v| get(v).map(|u| (u, v))),
        ) {
            (Some(url), _) => (url.to_string(), "the model spec"),
            (None, Some((url, var))) => (url, var),
            (None, None) => (needs.default_base.to_string(), "the default"),
        };
        let base_url = base.trim().trim_end_matches('/').to_string();
        check_url(&base_url).map_err(|e| Error::usage(format!("{from}: {e}")))?;
        let settings = Settings::from_lookup(&lookup).map_err(Error::usage)?;
        Ok(OpenAi {
            server,
            model: model.to_string(),
            base_url,
            key,
            client: Client::new(&settings),
            settings,
        })
    }

    /// Who answered, for messages: e.g. `openai at https://api.openai.com/v1`.
    fn label(&self) -> String {
        format!("{} at {}", self.server.prefix(), self.base_url)
    }

    /// Server text as one line, with the key blanked out should the server repeat it.
    fn clean(&self, text: &str) -> String {
        let line = wire::one_line(text);
        match &self.key {
            Some(Key(k)) if k.len() >= 4 => line.replace(k.as_str(), "[redacted]"),
            _ => line,
        }
    }

    fn attempt(
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

impl Provider for OpenAi {
    fn complete(&self, request: &Request, on_text: &mut dyn FnMut(&str)) -> Result<Response> {
        let body = wire::body(
            &self.model,
            request,
            self.settings.stream,
            max_tokens_key(self.server),
        )
        .to_string();
        let mut shown = false;
        let mut retries = 0;
        loop {
            let failure = match self.attempt(&body, on_text, &mut shown) {
                Ok(response) => return Ok(response),
                Err(f) => f,
            };
            retries += 1;
            let wait = (failure.retryable && !shown)
                .then(|| {
                    http::backoff(
                        retries,
                        self.settings.retry_delay,
                        failure.retry_after,
                        http::jitter(),
                    )
                })
                .flatten();
            match wait {
                Some(wait) => std::thread::sleep(wait),
                None => {
                    let mut message = failure.message;
                    if retries > 1 {
                        message.push_str(&format!(" (after {retries} attempts)"));
                    } else if failure.retryable && !shown {
                        if let Some(after) = failure.retry_after {
                            message.push_str(&format!(
                                " (the server asked to retry after {}s)",
                                after.as_secs()
                            ));
                        }
                    }
                    return fail(Error::provider(message));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn error_of(r: Result<OpenAi>) -> String {
        match r {
            Ok(_) => panic!("expected an error"),
            Err(e) => format!("{e:#}"),
        }
    }

    #[test]
    fn keys_and_base_urls_from_the_environment() {
        let e = error_of(OpenAi::new(Server::OpenAi, "gpt-4o", None, lookup(&[])));
        assert_eq!(
            e,
            "openai models need an API key: OPENAI_API_KEY is not set"
        );
        let e = error_of(OpenAi::new(
            Server::OpenRouter,
            "x/y",
            None,
            lookup(&[("OPENROUTER_API_KEY", " ")]),
        ));
        assert!(e.contains("OPENROUTER_API_KEY is not set"));

        let p = OpenAi::new(
            Server::OpenAi,
            "gpt-4o",
            None,
            lookup(&[("OPENAI_API_KEY", "sk-1")]),
        )
        .unwrap();
        assert_eq!(p.base_url, "https://api.openai.com/v1");
        let p = OpenAi::new(
            Server::OpenAi,
            "gpt-4o",
            None,
            lookup(&[
                ("OPENAI_API_KEY", "sk-1"),
                ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/"),
            ]),
        )
        .unwrap();
        assert_eq!(p.base_url, "http://127.0.0.1:9/v1");

        let p = OpenAi::new(Server::Ollama, "llama3.1", None, lookup(&[])).unwrap();
        assert_eq!(p.base_url, "http://localhost:11434/v1");
        assert!(p.key.is_none());
        let p = OpenAi::new(
            Server::Compatible,
            "m",
            Some("http://h:8080/v1"),
            lookup(&[("MASTRA_ASK_API_KEY", "k")]),
        )
        .unwrap();
        assert_eq!(p.label(), "openai-compatible at http://h:8080/v1");
        assert_eq!(format!("{:?}", p.key), "Some([redacted])");

        let e = error_of(OpenAi::new(
            Server::Ollama,
            "m",
            None,
            lookup(&[("OLLAMA_BASE_URL", "localhost:11434")]),
        ));
        assert!(
            e.starts_with("OLLAMA_BASE_URL: base URL \"localhost:11434\" must start with http://"),
            "{e}"
        );
        let e = error_of(OpenAi::new(
            Server::Ollama,
            "m",
            None,
            lookup(&[("MASTRA_ASK_READ_TIMEOUT", "x")]),
        ));
        assert!(e.starts_with("MASTRA_ASK_READ_TIMEOUT:"), "{e}");
    }

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
