//! What can go wrong talking to a Mastra server, sorted the way SPEC §12 maps it to exit
//! codes (each error's `kind`, with a hint where a next step exists: `error::Kinded`), and
//! how an HTTP error answer becomes one of these.
//!
//! Mastra answers "no such run" and "not suspended" with HTTP 500 and a message, so those are
//! told apart by their text. Every message here has been scrubbed of credentials and of
//! server stacks before it is built; nothing here prints.

use serde_json::Value;

/// How far a request got when it failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// It never reached the server (no connection, TLS failed): nothing happened there.
    NotSent,
    /// The connection broke after the request may have been read: the server may or may not
    /// be acting on it.
    Unknown,
    /// The server accepted it (a 200 event stream had begun) before the connection broke.
    Accepted,
}

impl Delivery {
    pub fn describe(self) -> &'static str {
        match self {
            Delivery::NotSent => "the request did not reach the server",
            Delivery::Unknown => "the server may or may not have received the request",
            Delivery::Accepted => "the server accepted the request",
        }
    }
}

/// One complaint of a 400 answer: `{"field", "message"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub field: String,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The server URL, the token file or the TLS set-up is unusable; nothing was sent.
    #[error("{0}")]
    Config(String),
    /// An answer that does not fit the item's kind; nothing was sent.
    #[error("{0}")]
    Mismatch(String),
    /// No connection, or one that broke; see `delivery` for whether the server got it.
    #[error("{server}: {detail} ({})", delivery.describe())]
    Transport {
        server: String,
        delivery: Delivery,
        detail: String,
    },
    /// 401 or 403.
    #[error("{server} refused the request (HTTP {status}): {message}")]
    Unauthorized {
        server: String,
        status: u16,
        message: String,
        hint: String,
    },
    /// 403 with the JSON code `FORBIDDEN` (a mastra-ask `serve`, SPEC §14): the run's policy
    /// does not let this reviewer make this decision; the message names who may.
    #[error("{server} refused the decision: {message}")]
    Forbidden { server: String, message: String },
    /// 404 naming the agent.
    #[error("no agent {agent:?} on {server}")]
    UnknownAgent { server: String, agent: String },
    /// 404 without a JSON error: the route does not exist (a wrong API prefix?).
    #[error("{server} has no route {path} (HTTP 404)")]
    NoRoute { server: String, path: String },
    /// 400: the server rejected the request's shape.
    #[error("{server} rejected the request: {message}{}", show_issues(issues))]
    Invalid {
        server: String,
        message: String,
        issues: Vec<Issue>,
    },
    /// 500 "could not find a suspended run": unknown run, or it finished.
    #[error("{message}")]
    NoSuspendedRun { message: String },
    /// 500 "cannot resume tool call ... because it is not suspended": already answered, or
    /// not a call of this run.
    #[error("{message}")]
    NotSuspended { message: String },
    /// 409 (a mastra-ask `serve`, SPEC §13): someone decided the item first; the message
    /// names who and when.
    #[error("{server} refused the answer: {message}")]
    Decided { server: String, message: String },
    /// Any other status.
    #[error("{server} failed (HTTP {status}): {message}")]
    Server {
        server: String,
        status: u16,
        message: String,
    },
    /// An answer we cannot read (not JSON, not the documented shape, too large).
    #[error("{server} sent an answer mastra-ask cannot read: {detail}")]
    Protocol { server: String, detail: String },
    /// A listing past one of its caps (items, bytes, agents).
    #[error("{server}: {detail}")]
    Capped { server: String, detail: String },
    /// A person asked a second time to stop while a leg streamed.
    #[error("stopped waiting for the leg on {server} at a second Ctrl-C ({})", delivery.describe())]
    Stopped { server: String, delivery: Delivery },
}

impl RemoteError {
    /// The next step for a person, where there is one.
    pub fn hint(&self) -> Option<String> {
        match self {
            RemoteError::Unauthorized { hint, .. } => Some(hint.clone()),
            RemoteError::NoRoute { .. } => Some(
                "the server URL's path is the API prefix (default /api); is it the right one?"
                    .into(),
            ),
            RemoteError::Transport {
                delivery: Delivery::NotSent,
                ..
            } => Some("is the server running, and is the URL right?".into()),
            RemoteError::Capped { .. } => Some(
                "list one agent's runs with --agent ID (pending, answer, review, approve and decline take it)"
                    .into(),
            ),
            _ => None,
        }
    }

    /// Whether the request surely did nothing on the server: it was never sent, or the
    /// server refused it (a 3xx/4xx, or a 500 that says the call is not suspended). A 2xx
    /// answer we could not read, another 5xx, or a broken connection may have done something.
    pub fn not_delivered(&self) -> bool {
        match self {
            RemoteError::Transport { delivery, .. } | RemoteError::Stopped { delivery, .. } => {
                *delivery == Delivery::NotSent
            }
            RemoteError::Server { status, .. } => *status < 500,
            RemoteError::Protocol { .. } => false,
            _ => true,
        }
    }
}

fn show_issues(issues: &[Issue]) -> String {
    issues
        .iter()
        .map(|i| format!("; {}: {}", i.field, i.message))
        .collect()
}

/// What the server said in an error body: Mastra's `{"error": "...", "issues": [...]}`, or
/// the first line of a text body. Stacks are dropped; the text is bounded.
pub fn error_body(body: &[u8]) -> (String, Vec<Issue>) {
    let Ok(json) = serde_json::from_slice::<Value>(body) else {
        let text = String::from_utf8_lossy(body);
        return (clip(text.lines().next().unwrap_or("").trim()), Vec::new());
    };
    let message = match json.get("error") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Object(o)) => o
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        _ => json
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    };
    let issues = json
        .get("issues")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|i| Issue {
                    field: clip(i.get("field").and_then(Value::as_str).unwrap_or("?")),
                    message: clip(&without_stack(
                        i.get("message").and_then(Value::as_str).unwrap_or(""),
                    )),
                })
                .collect()
        })
        .unwrap_or_default();
    (clip(&without_stack(&message)), issues)
}

/// The `code` of a JSON error body (a mastra-ask `serve` sends one: `FORBIDDEN`,
/// `CONFLICT`).
pub fn error_code(body: &[u8]) -> Option<String> {
    let json = serde_json::from_slice::<Value>(body).ok()?;
    Some(json.get("code")?.as_str()?.to_string())
}

/// A message up to its first stack frame line (`    at ...`).
pub fn without_stack(message: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for line in message.lines() {
        if line.trim_start().starts_with("at ") && line.starts_with(char::is_whitespace) {
            break;
        }
        kept.push(line);
    }
    kept.join("\n").trim_end().to_string()
}

/// At most 2000 characters.
pub fn clip(text: &str) -> String {
    const MAX: usize = 2000;
    match text.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Kind, Kinded};

    #[test]
    fn error_bodies_keep_message_and_issues_not_stacks() {
        let (m, issues) = error_body(
            br#"{"error":"Invalid request body","issues":[{"field":"runId","message":"Invalid input: expected string"}]}"#,
        );
        assert_eq!(m, "Invalid request body");
        assert_eq!(
            issues,
            [Issue {
                field: "runId".into(),
                message: "Invalid input: expected string".into()
            }]
        );
        let (m, _) = error_body(
            br#"{"error":"boom\n    at handler (/srv/app/index.mjs:1:2)\n    at x","stack":"Error: boom\n    at y"}"#,
        );
        assert_eq!(m, "boom");
        assert_eq!(error_body(b"404 Not Found").0, "404 Not Found");
        assert_eq!(error_body(b"{\"error\":{\"message\":\"m\"}}").0, "m");
        assert_eq!(clip(&"x".repeat(2100)).chars().count(), 2001);
    }

    #[test]
    fn kinds_follow_the_spec() {
        let s = || "http://h:1/api".to_string();
        assert_eq!(
            RemoteError::NoSuspendedRun {
                message: "m".into()
            }
            .kind(),
            Kind::NotFound
        );
        assert_eq!(
            RemoteError::NotSuspended {
                message: "m".into()
            }
            .kind(),
            Kind::NotFound
        );
        let invalid = RemoteError::Invalid {
            server: s(),
            message: "Invalid request body".into(),
            issues: vec![Issue {
                field: "runId".into(),
                message: "required".into(),
            }],
        };
        assert_eq!(invalid.kind(), Kind::Usage);
        assert_eq!(
            invalid.to_string(),
            "http://h:1/api rejected the request: Invalid request body; runId: required"
        );
        let decided = RemoteError::Decided {
            server: s(),
            message: "tool call q1 was already decided by alice at 2026-01-01T00:00:00Z".into(),
        };
        assert_eq!(decided.kind(), Kind::Conflict);
        assert!(decided.not_delivered());
        let unknown = RemoteError::UnknownAgent {
            server: s(),
            agent: "nope".into(),
        };
        assert_eq!(unknown.kind(), Kind::NotFound);
        let t = |delivery| RemoteError::Transport {
            server: s(),
            delivery,
            detail: "connection refused".into(),
        };
        assert_eq!(t(Delivery::NotSent).kind(), Kind::Server);
        assert!(t(Delivery::NotSent).not_delivered());
        assert!(!t(Delivery::Unknown).not_delivered());
        assert!(!t(Delivery::Accepted).not_delivered());
        assert!(unknown.not_delivered());
    }
}
