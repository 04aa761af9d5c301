//! One client's session (SPEC §16): `initialize` and the protocol version (2025-11-25, and
//! clients that ask for 2025-06-18 or 2025-03-26 are served in theirs), what the client
//! declared it can do (`roots`, `elicitation`), and the requests this server sends the
//! client, each waiting for its response with a deadline.

use std::collections::HashMap;
use std::io::Write;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};

use super::wire::Out;

/// The versions served, newest first.
pub const VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

const INSTRUCTIONS: &str = "Tools that ask a person: ask_user (a question), submit_plan (a Markdown plan file to approve), request_approval (may I do this?). A person answers here or in any of mastra-ask's frontends; a call that is not decided within the server's wait returns \"pending\" with a run id: call await_answer with it later.";

#[derive(Default)]
pub struct Session {
    /// The version agreed on.
    pub version: Option<&'static str>,
    /// What the client declared (`capabilities`).
    client: Value,
}

impl Session {
    /// Answers `initialize`: the client's version when served, else the newest.
    pub fn initialize(&mut self, params: &Value) -> Result<Value, String> {
        let asked = params["protocolVersion"]
            .as_str()
            .ok_or("Invalid params: \"protocolVersion\" must be a string")?;
        let version = VERSIONS
            .iter()
            .find(|v| **v == asked)
            .unwrap_or(&VERSIONS[0]);
        self.version = Some(version);
        self.client = params["capabilities"].clone();
        let mut capabilities = json!({"tools": {"listChanged": false}});
        if self.tasks() {
            capabilities["tasks"] = super::tasks::capability();
        }
        Ok(json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": {"name": "mastra-ask", "version": env!("CARGO_PKG_VERSION")},
            "instructions": INSTRUCTIONS,
        }))
    }

    /// The version to ask in when the client answers forms (`elicitation`, form mode; none
    /// before 2025-06-18).
    pub fn forms(&self) -> Option<&'static str> {
        let declared = self.client.get("elicitation").filter(|e| e.is_object())?;
        let form = declared.get("form").is_some() || declared.get("url").is_none();
        self.version.filter(|v| *v != "2025-03-26" && form)
    }

    /// Tasks are served (2025-11-25).
    pub fn tasks(&self) -> bool {
        self.version == Some(VERSIONS[0])
    }

    /// The client declared `roots`.
    pub fn roots_declared(&self) -> bool {
        self.client.get("roots").is_some_and(Value::is_object)
    }
}

/// The client's response to a request: its result, or its error.
type Reply = Result<Value, Value>;

/// The requests this server sent and waits on, by id.
#[derive(Default)]
pub struct Asked {
    /// The last id used, who waits for each response, and whether the input ended.
    waiting: Mutex<(u64, HashMap<String, Sender<Reply>>, bool)>,
}

impl Asked {
    /// Sends `method` to the client and waits up to `within` for its response; `None` when
    /// none came (or the input ended).
    pub fn ask<W: Write>(
        &self,
        out: &Out<W>,
        method: &str,
        params: Value,
        within: Duration,
    ) -> Option<Result<Value, Value>> {
        let (id, rx) = self.open(out, method, params)?;
        let got = rx.recv_timeout(within).ok();
        self.forget(&id);
        got
    }

    /// Sends `method` to the client: its id and where the response arrives (`forget` it
    /// when done); `None` once the input ended.
    pub fn open<W: Write>(
        &self,
        out: &Out<W>,
        method: &str,
        params: Value,
    ) -> Option<(String, Receiver<Result<Value, Value>>)> {
        let (tx, rx) = channel();
        let id = {
            let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
            if w.2 {
                return None;
            }
            w.0 += 1;
            let id = format!("mastra-ask-{}", w.0);
            w.1.insert(id.clone(), tx);
            id
        };
        out.request(&json!(id), method, params);
        Some((id, rx))
    }

    /// Hands the client's response to whoever waits for it; an unknown id is ignored (a
    /// late reply changes nothing).
    pub fn deliver(&self, id: &Value, result: Result<Value, Value>) {
        let Some(id) = id.as_str() else { return };
        let w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tx) = w.1.get(id) {
            let _ = tx.send(result);
        }
    }

    pub fn forget(&self, id: &str) {
        let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        w.1.remove(id);
    }

    /// The input ended: nobody will respond; every wait ends now.
    pub fn close(&self) {
        let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        w.2 = true;
        w.1.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_negotiated() {
        let mut s = Session::default();
        for (asked, got) in [
            ("2025-11-25", "2025-11-25"),
            ("2025-06-18", "2025-06-18"),
            ("2025-03-26", "2025-03-26"),
            ("2024-11-05", "2025-11-25"),
            ("2099-01-01", "2025-11-25"),
        ] {
            let r = s
                .initialize(&json!({"protocolVersion": asked, "capabilities": {}}))
                .unwrap();
            assert_eq!(r["protocolVersion"], json!(got), "{asked}");
        }
        assert!(s.initialize(&json!({})).is_err());
        assert!(!s.roots_declared());
        s.initialize(&json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {}}}))
            .unwrap();
        assert!(s.roots_declared());
        assert_eq!(s.forms(), None);
        for (version, caps, forms) in [
            ("2025-11-25", json!({"elicitation": {}}), Some("2025-11-25")),
            (
                "2025-11-25",
                json!({"elicitation": {"form": {}, "url": {}}}),
                Some("2025-11-25"),
            ),
            ("2025-11-25", json!({"elicitation": {"url": {}}}), None),
            ("2025-06-18", json!({"elicitation": {}}), Some("2025-06-18")),
            ("2025-03-26", json!({"elicitation": {}}), None),
        ] {
            s.initialize(&json!({"protocolVersion": version, "capabilities": caps}))
                .unwrap();
            assert_eq!(s.forms(), forms, "{version} {caps}");
        }
    }
}
