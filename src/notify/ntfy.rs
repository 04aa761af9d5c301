//! ntfy (https://ntfy.sh, or a server of one's own): a topic on a server, and the JSON a
//! notification is published with (`POST` to the server's root with `{topic, title, message,
//! click, actions, priority}`, docs.ntfy.sh/publish). The server is reached over https, or
//! over http only on this machine; a token travels only to its own server, over either, and
//! no redirect is followed. A topic without a token is public: it gets no text a model wrote.

use std::time::Duration;

use serde_json::{json, Value};

use super::{Action, Note};
use crate::net::{Agents, Origin, Timeouts};
use crate::output::events::short;

/// A topic on an ntfy server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topic {
    pub origin: Origin,
    pub topic: String,
}

/// A request to the server takes at most this long (each read and write).
const TIMEOUT: Duration = Duration::from_secs(10);
/// Of the server's answer, this much is read at most.
const MAX_ANSWER: u64 = 64 * 1024;

impl Topic {
    /// `https://HOST[:PORT]/TOPIC` (http only to a loopback host); a topic is 1 to 64
    /// letters, digits, `_` or `-`, as ntfy takes them.
    pub fn parse(url: &str) -> Result<Topic, String> {
        let bad = |why: &str| Err(format!("ntfy:{url} is not an ntfy topic's URL: {why}"));
        let uri: ureq::http::Uri = match url.parse() {
            Ok(u) => u,
            Err(_) => return bad("it does not read as a URL"),
        };
        let origin = match Origin::of(&uri) {
            Ok(o) => o,
            Err(e) => return bad(&e),
        };
        if !origin.may_carry_credentials() {
            return bad("it must be https (http only to this machine)");
        }
        if uri.authority().is_some_and(|a| a.as_str().contains('@')) {
            return bad("it must not hold a user or password (give serve --ntfy-token-file)");
        }
        if uri.query().is_some() || url.contains('#') {
            return bad("it must not have a query or fragment");
        }
        let topic = uri.path().strip_prefix('/').unwrap_or_default();
        let ok = !topic.is_empty()
            && topic.len() <= 64
            && topic
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !ok {
            return bad("its path must be /TOPIC, 1 to 64 letters, digits, `_` or `-`");
        }
        Ok(Topic {
            origin,
            topic: topic.to_string(),
        })
    }

    /// The server's key in a token file: `host:port`.
    pub fn server(&self) -> String {
        format!("{}:{}", self.origin.host, self.origin.port)
    }

    /// What is published for `note`: with its text and title and `taps` (one-tap actions,
    /// each an http POST) when `private`, else only the kind, the agent, the age and "Open".
    pub fn body(&self, note: &Note, private: bool, taps: &[Action]) -> Value {
        let title = format!("{} waits: {}", note.kind, short(&note.agent));
        let message = match private {
            true => short(&note.headline),
            false => format!(
                "{} of agent {}, waiting {}",
                note.kind,
                short(&note.agent),
                note.age
            ),
        };
        let mut body = json!({
            "topic": self.topic,
            "title": title,
            "message": message,
            "priority": 4,
        });
        let mut actions: Vec<Value> = match private {
            true => taps
                .iter()
                .map(|t| {
                    json!({"action": "http", "label": t.label, "url": t.url, "method": "POST", "clear": true})
                })
                .collect(),
            false => Vec::new(),
        };
        if let Some(url) = &note.url {
            body["click"] = json!(url);
            actions.push(json!({"action": "view", "label": "Open", "url": url, "clear": true}));
        }
        if !actions.is_empty() {
            body["actions"] = json!(actions);
        }
        body
    }

    /// Publishes `body`, with `token` as a Bearer token when given (to this server only:
    /// no redirect is followed). The error says why, never with the token.
    pub fn publish(&self, body: &Value, token: Option<&str>) -> Result<(), String> {
        let timeouts = Timeouts {
            connect: TIMEOUT,
            per_read: Some(TIMEOUT),
            per_write: Some(TIMEOUT),
            idle_age: None,
        };
        let agents = Agents::new(&self.origin, timeouts)?;
        let url = format!("{}/", self.origin.base());
        let agent = agents.for_url(&url)?;
        let mut request = agent.post(&url).header("content-type", "application/json");
        if let Some(token) = token.filter(|_| self.origin.may_carry_credentials()) {
            request = request.header("authorization", &format!("Bearer {token}"));
        }
        let response = request
            .send(body.to_string())
            .map_err(|e| format!("{} did not answer: {e}", self.origin.base()))?;
        let status = response.status().as_u16();
        let text = response
            .into_body()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_string()
            .unwrap_or_default();
        match status {
            200..=299 => Ok(()),
            300..=399 => Err(format!(
                "{} answered {status}, a redirect (not followed)",
                self.origin.base()
            )),
            _ => Err(format!(
                "{} answered {status}: {}",
                self.origin.base(),
                short(&text)
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_are_https_or_loopback_with_one_path_segment() {
        let t = Topic::parse("https://ntfy.example/alice-7").unwrap();
        assert_eq!(
            (t.server().as_str(), t.topic.as_str()),
            ("ntfy.example:443", "alice-7")
        );
        assert!(Topic::parse("http://127.0.0.1:8080/t").is_ok());
        for bad in [
            "http://ntfy.example/t",
            "https://ntfy.example/",
            "https://ntfy.example/a/b",
            "https://ntfy.example/t?x=1",
            "https://u:p@ntfy.example/t",
            "ftp://ntfy.example/t",
            "ntfy.example/t",
        ] {
            assert!(Topic::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_public_topic_gets_no_text() {
        let t = Topic::parse("https://ntfy.example/t").unwrap();
        let note = Note {
            kind: "question".into(),
            agent: "deploy".into(),
            age: "2m".into(),
            headline: "the secret plan".into(),
            url: Some("https://inbox.example/runs/r/items/c".into()),
            taps: Vec::new(),
        };
        let tap = [Action {
            label: "Approve".into(),
            url: "https://inbox.example/tap/s3cret".into(),
        }];
        let public = t.body(&note, false, &tap).to_string();
        assert!(!public.contains("secret"), "{public}");
        let private = t.body(&note, true, &tap).to_string();
        assert!(private.contains("the secret plan") && private.contains("/tap/s3cret"));
    }
}
