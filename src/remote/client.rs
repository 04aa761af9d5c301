//! The calls mastra-ask makes on a Mastra server: list agents, list an agent's suspended
//! runs (every page), start a run, and answer a pending call by the route its kind needs
//! (`resume-stream`, `approve-tool-call`, `decline-tool-call`), streaming the leg to
//! `data: [DONE]`.
//!
//! It refuses an answer that does not fit the item's kind (Mastra would accept it and consume
//! the suspension), but checking the answer's content against the suspend payload is the
//! caller's job, as are the ledger and printing.

use std::collections::HashSet;
use std::io::BufReader;

use serde_json::{json, Value};

use super::config::ServerConfig;
use super::error::{Delivery, RemoteError};
use super::items::Item;
use super::stream::{read_leg, Chunk, Leg, StreamBroke};
use super::transport::{Http, Request};
use super::wire::{self, AgentInfo, SuspendedRunsPage};
use crate::domain::ItemKind;

/// Runs per page of `suspended-runs`.
const PAGE: u64 = 100;
/// The most pages we read, so a server that ignores paging cannot keep us looping.
const MAX_PAGES: u64 = 1000;

/// How a pending call is answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// `resume-stream` with this data (questions, plans, other suspensions).
    Resume(Value),
    /// `approve-tool-call`.
    Approve,
    /// `decline-tool-call`, maybe with a reason the model will see.
    Decline { reason: Option<String> },
}

/// A run to start.
#[derive(Clone, Debug)]
pub struct Start {
    /// Chosen by the client ([`new_run_id`]) so it is known before the stream begins.
    pub run_id: String,
    pub prompt: String,
    /// Ask approval for every tool call of the run.
    pub require_tool_approval: bool,
}

/// A fresh random run id (UUID v4).
pub fn new_run_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

pub struct Client {
    http: Http,
    max_steps: Option<u32>,
}

impl Client {
    pub fn new(config: ServerConfig) -> Result<Client, RemoteError> {
        Ok(Client {
            http: Http::new(config)?,
            max_steps: None,
        })
    }

    /// Sends `maxSteps` (Mastra's limit per leg, 5 when not sent) on every start and resume.
    pub fn with_max_steps(mut self, max_steps: u32) -> Client {
        self.max_steps = Some(max_steps);
        self
    }

    pub fn config(&self) -> &ServerConfig {
        self.http.config()
    }

    /// The server's agents, in its order.
    pub fn agents(&self) -> Result<Vec<AgentInfo>, RemoteError> {
        let answer = self.http.json(&Request {
            path: "/agents",
            body: None,
            agent: None,
            stream: false,
        })?;
        wire::agents(&answer).ok_or_else(|| {
            self.http
                .protocol("the agent list is not an object of agents".into())
        })
    }

    /// Every suspended call of an agent's runs, newest run first, over all pages.
    pub fn suspended(&self, agent_id: &str) -> Result<Vec<Item>, RemoteError> {
        let path = format!("/agents/{}/suspended-runs", segment(agent_id));
        let server = self.config().display().to_string();
        let mut items = Vec::new();
        let mut seen = HashSet::new();
        let mut runs_read = 0u64;
        for page in 0..MAX_PAGES {
            let answer = self.http.json(&Request {
                path: &format!("{path}?perPage={PAGE}&page={page}"),
                body: None,
                agent: Some(agent_id),
                stream: false,
            })?;
            let page: SuspendedRunsPage = serde_json::from_value(answer).map_err(|e| {
                self.http.protocol(format!(
                    "the suspended runs of {agent_id:?} do not parse: {e}"
                ))
            })?;
            let count = page.runs.len() as u64;
            runs_read += count;
            for run in &page.runs {
                for item in Item::from_listing(run, agent_id, &server) {
                    // Runs suspended while we page push older ones onto the next page.
                    if seen.insert((item.run_id.clone(), item.tool_call_id.clone())) {
                        items.push(item);
                    }
                }
            }
            let total = page.total.unwrap_or(runs_read);
            if count == 0 || count < PAGE || runs_read >= total {
                break;
            }
        }
        Ok(items)
    }

    /// Starts a run (`POST /agents/:id/stream`) and streams its first leg.
    pub fn start(
        &self,
        agent_id: &str,
        start: &Start,
        on_chunk: impl FnMut(Chunk<'_>),
    ) -> Result<Leg, RemoteError> {
        let mut body = json!({"messages": start.prompt, "runId": start.run_id});
        if start.require_tool_approval {
            body["requireToolApproval"] = json!(true);
        }
        self.add_max_steps(&mut body);
        let path = format!("/agents/{}/stream", segment(agent_id));
        self.leg(&path, &body, agent_id, on_chunk)
    }

    /// Answers a pending call by the route its kind needs and streams the resumed leg.
    pub fn answer(
        &self,
        item: &Item,
        answer: &Answer,
        on_chunk: impl FnMut(Chunk<'_>),
    ) -> Result<Leg, RemoteError> {
        let ids = json!({"runId": item.run_id, "toolCallId": item.tool_call_id});
        let (route, body) = match (item.kind, answer) {
            (ItemKind::Approval, Answer::Approve) => ("approve-tool-call", ids),
            (ItemKind::Approval, Answer::Decline { reason }) => {
                let mut body = ids;
                if let Some(reason) = reason {
                    body["reason"] = json!(reason);
                }
                ("decline-tool-call", body)
            }
            (ItemKind::Question | ItemKind::Plan | ItemKind::Other, Answer::Resume(data)) => {
                let mut body = ids;
                body["resumeData"] = data.clone();
                self.add_max_steps(&mut body);
                ("resume-stream", body)
            }
            (kind, _) => {
                let what = match answer {
                    Answer::Resume(_) => "resume data",
                    Answer::Approve => "an approval",
                    Answer::Decline { .. } => "a decline",
                };
                return Err(RemoteError::Mismatch(format!(
                    "{what} does not answer a {} item (Mastra would consume the suspension)",
                    kind.noun()
                )));
            }
        };
        let path = format!("/agents/{}/{route}", segment(&item.agent_id));
        self.leg(&path, &body, &item.agent_id, on_chunk)
    }

    fn add_max_steps(&self, body: &mut Value) {
        if let Some(n) = self.max_steps {
            body["maxSteps"] = json!(n);
        }
    }

    fn leg(
        &self,
        path: &str,
        body: &Value,
        agent_id: &str,
        on_chunk: impl FnMut(Chunk<'_>),
    ) -> Result<Leg, RemoteError> {
        let response = self.http.send(&Request {
            path,
            body: Some(body),
            agent: Some(agent_id),
            stream: true,
        })?;
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if !content_type.starts_with("text/event-stream") {
            return Err(self.http.protocol(format!(
                "{path} answered {content_type:?} instead of an event stream"
            )));
        }
        let reader = BufReader::with_capacity(64 * 1024, response.into_body().into_reader());
        let server = self.config().display().to_string();
        read_leg(reader, agent_id, &server, on_chunk).map_err(|broke| {
            let detail = match broke {
                StreamBroke::NoDone => "the stream ended before data: [DONE]".to_string(),
                StreamBroke::Io(e) => format!("the stream broke: {e}"),
            };
            RemoteError::Transport {
                server: server.clone(),
                delivery: Delivery::Accepted,
                detail: self.config().redact(&detail),
            }
        })
    }
}

/// An id as one path segment, percent-encoded.
fn segment(id: &str) -> String {
    const SET: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(id, SET).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_one_path_segment() {
        assert_eq!(segment("planner"), "planner");
        assert_eq!(segment("a/b c?"), "a%2Fb%20c%3F");
        assert_eq!(segment(".."), "..");
    }

    #[test]
    fn run_ids_are_random_uuids() {
        let (a, b) = (new_run_id(), new_run_id());
        assert_ne!(a, b);
        assert_eq!(uuid::Uuid::parse_str(&a).unwrap().get_version_num(), 4);
    }

    #[test]
    fn an_answer_of_the_wrong_kind_sends_nothing() {
        // A port nobody listens on: a request would fail as a transport error instead.
        let client =
            Client::new(ServerConfig::new("http://127.0.0.1:9/api", None).unwrap()).unwrap();
        let item = Item {
            run_id: "r".into(),
            tool_call_id: "c".into(),
            tool_name: "submit_plan".into(),
            kind: ItemKind::Plan,
            args: None,
            suspend_payload: None,
            agent_id: "a".into(),
            suspended_at: String::new(),
            server: String::new(),
            resume_schema: None,
        };
        let e = client.answer(&item, &Answer::Approve, |_| {}).unwrap_err();
        assert_eq!(
            e.to_string(),
            "an approval does not answer a plan item (Mastra would consume the suspension)"
        );
        let approval = Item {
            kind: ItemKind::Approval,
            ..item
        };
        let e = client
            .answer(&approval, &Answer::Resume(json!("yes")), |_| {})
            .unwrap_err();
        assert!(matches!(e, RemoteError::Mismatch(_)));
    }
}
