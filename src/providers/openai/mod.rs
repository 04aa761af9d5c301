//! `openai/`, `ollama/`, `openrouter/` and `openai-compatible/` models: OpenAI-style chat
//! completions with tools, streamed (server-sent events) unless `MASTRA_ASK_STREAM=0`.
//!
//! One model call is up to four attempts: 429, 5xx and dropped connections are retried
//! with backoff, as long as no text has reached the caller yet (a retry must not repeat
//! text already shown). Everything else, an error frame in a stream included, ends the
//! call with one line that says what to do. The API key is sent in a header and never put
//! in a message: any server text repeated in an error has the key blanked out.
//!
//! This file holds the configuration (which server, key and base URL) and the retry loop;
//! `attempt.rs` one attempt: the request, the stream and what a failed status means.

mod attempt;

use anyhow::Result;

use super::http::{self, Client};
use super::settings::Settings;
use super::spec::{check_url, Server};
use super::wire;
use super::{Provider, Request, Response};
use crate::error::{fail, Error};

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
        let client = Client::new(&settings, &base_url).map_err(Error::usage)?;
        Ok(OpenAi {
            server,
            model: model.to_string(),
            base_url,
            key,
            client,
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

    /// An environment of `pairs` only.
    pub(super) fn lookup(
        pairs: &'static [(&'static str, &'static str)],
    ) -> impl Fn(&str) -> Option<String> {
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
}
