//! The calls mastra-ask makes on a Mastra server: list agents, list an agent's suspended
//! runs (every page), start a run, and answer a pending call by the route its kind needs
//! (`resume-stream`, `approve-tool-call`, `decline-tool-call`), streaming the leg to
//! `data: [DONE]`.
//!
//! A listing (every page of every agent) is capped in items, bytes and agents walked, and
//! a leg is read on a thread of its own so that its deadlines hold whatever the server does.
//! It refuses an answer that does not fit the item's kind (Mastra would accept it and consume
//! the suspension), but checking the answer's content against the suspend payload is the
//! caller's job, as are the ledger and printing.

use std::collections::HashSet;
use std::io::BufReader;
use std::sync::{mpsc, Arc};

use serde_json::{json, Value};

use super::config::ServerConfig;
use super::deadline::Deadlines;
use super::error::{clip, Delivery, RemoteError};
use super::stream::{follow, pump, Leg, Listener, Msg, StreamBroke, Told};
use super::suspended::SuspendedCall;
use super::transport::{Http, Request, MAX_JSON};
use super::wire::{self, AgentInfo, SuspendedRunsPage};
use crate::domain::ItemKind;
use crate::limits::{self, MAX_LISTING_AGENTS, MAX_LISTING_BYTES, MAX_LISTING_ITEMS};

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
    http: Arc<Http>,
    max_steps: Option<u32>,
}

/// What one listing has read so far, against its caps.
#[derive(Default)]
struct Listing {
    items: Vec<SuspendedCall>,
    seen: HashSet<(String, String)>,
    bytes: u64,
}

impl Client {
    /// A client with the default deadlines.
    pub fn new(config: ServerConfig) -> Result<Client, RemoteError> {
        Client::with_deadlines(config, Deadlines::default())
    }

    pub fn with_deadlines(
        config: ServerConfig,
        deadlines: Deadlines,
    ) -> Result<Client, RemoteError> {
        Ok(Client {
            http: Arc::new(Http::new(config, deadlines)?),
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
        })?;
        wire::agents(&answer).ok_or_else(|| {
            self.http
                .protocol("the agent list is not an object of agents".into())
        })
    }

    /// Every suspended call of the server's agents (or of `agent` only), each agent's newest
    /// run first, within the caps of one listing (items, bytes, agents walked).
    pub fn listing(&self, agent: Option<&str>) -> Result<Vec<SuspendedCall>, RemoteError> {
        let agents = match agent {
            Some(a) => vec![a.to_string()],
            None => {
                let all = self.agents()?;
                if all.len() > MAX_LISTING_AGENTS {
                    return Err(self.capped(format!(
                        "it has {} agents, more than the {MAX_LISTING_AGENTS} one listing walks",
                        all.len()
                    )));
                }
                all.into_iter().map(|a| a.id).collect()
            }
        };
        let mut listing = Listing::default();
        for agent in &agents {
            self.suspended_into(agent, &mut listing)?;
        }
        Ok(listing.items)
    }

    /// Every suspended call of an agent's runs, newest run first, over all pages.
    pub fn suspended(&self, agent_id: &str) -> Result<Vec<SuspendedCall>, RemoteError> {
        let mut listing = Listing::default();
        self.suspended_into(agent_id, &mut listing)?;
        Ok(listing.items)
    }

    fn suspended_into(&self, agent_id: &str, listing: &mut Listing) -> Result<(), RemoteError> {
        let path = format!("/agents/{}/suspended-runs", segment(agent_id));
        let server = self.config().display().to_string();
        let mut runs_read = 0u64;
        let bytes_cap = || {
            self.capped(format!(
                "its suspended runs are larger than {}, the most one listing reads",
                limits::show_size(MAX_LISTING_BYTES)
            ))
        };
        for page in 0..MAX_PAGES {
            let left = MAX_LISTING_BYTES - listing.bytes;
            let req = Request {
                path: &format!("{path}?perPage={PAGE}&page={page}"),
                body: None,
                agent: Some(agent_id),
            };
            let too_large = || {
                if left < MAX_JSON {
                    bytes_cap()
                } else {
                    self.http.protocol(format!(
                        "the answer to {} is larger than {}",
                        req.path,
                        limits::show_size(MAX_JSON)
                    ))
                }
            };
            let (page, read): (SuspendedRunsPage, u64) = self
                .http
                .json_streamed(&req, left.min(MAX_JSON), too_large)
                .map_err(|e| match e {
                    RemoteError::Protocol { detail, .. } => self
                        .http
                        .protocol(format!("the suspended runs of {agent_id:?}: {detail}")),
                    other => other,
                })?;
            listing.bytes += read;
            let count = page.runs.len() as u64;
            runs_read += count;
            for run in page.runs {
                for item in SuspendedCall::from_listing(run, agent_id, &server) {
                    // Runs suspended while we page push older ones onto the next page.
                    if listing
                        .seen
                        .insert((item.run_id.clone(), item.tool_call_id.clone()))
                    {
                        listing.items.push(item);
                    }
                }
                if listing.items.len() > MAX_LISTING_ITEMS {
                    return Err(self.capped(format!(
                        "it lists more than {MAX_LISTING_ITEMS} suspended calls, the most one listing holds"
                    )));
                }
            }
            let total = page.total.unwrap_or(runs_read);
            if count == 0 || count < PAGE || runs_read >= total {
                break;
            }
        }
        Ok(())
    }

    fn capped(&self, detail: String) -> RemoteError {
        RemoteError::Capped {
            server: self.config().display().to_string(),
            detail,
        }
    }

    /// Starts a run (`POST /agents/:id/stream`) and streams its first leg.
    pub fn start(
        &self,
        agent_id: &str,
        start: &Start,
        mut listener: impl Listener,
    ) -> Result<Leg, RemoteError> {
        let mut body = json!({"messages": start.prompt, "runId": start.run_id});
        if start.require_tool_approval {
            body["requireToolApproval"] = json!(true);
        }
        self.add_max_steps(&mut body);
        let path = format!("/agents/{}/stream", segment(agent_id));
        self.leg(path, body, agent_id, &mut listener)
    }

    /// Answers a pending call by the route its kind needs and streams the resumed leg.
    pub fn answer(
        &self,
        item: &SuspendedCall,
        answer: &Answer,
        mut listener: impl Listener,
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
        self.leg(path, body, &item.agent_id, &mut listener)
    }

    fn add_max_steps(&self, body: &mut Value) {
        if let Some(n) = self.max_steps {
            body["maxSteps"] = json!(n);
        }
    }

    /// Sends a request that answers with a leg's event stream and follows the leg to
    /// `[DONE]`: the request and the reading on a thread of their own, the deadlines and the
    /// listener on this one.
    fn leg(
        &self,
        path: String,
        body: Value,
        agent_id: &str,
        listener: &mut dyn Listener,
    ) -> Result<Leg, RemoteError> {
        // One frame in flight and one waiting: what a leg holds at once stays bounded.
        let (tx, rx) = mpsc::sync_channel(1);
        let http = Arc::clone(&self.http);
        let agent = agent_id.to_string();
        let spawned = std::thread::Builder::new()
            .name("mastra-leg".into())
            .spawn(move || {
                let req = Request {
                    path: &path,
                    body: Some(&body),
                    agent: Some(&agent),
                };
                match http
                    .send_stream(&req)
                    .and_then(|r| event_stream(&http, &path, r))
                {
                    Err(e) => {
                        let _ = tx.send(Msg::Failed(e));
                    }
                    Ok((reader, told)) => {
                        if tx.send(Msg::Started(told)).is_ok() {
                            pump(reader, &tx);
                        }
                    }
                }
            });
        let server = self.config().display().to_string();
        let transport = |delivery, detail: String| RemoteError::Transport {
            server: server.clone(),
            delivery,
            detail: self.config().redact(&detail),
        };
        if let Err(e) = spawned {
            return Err(transport(
                Delivery::NotSent,
                format!("cannot start the thread that reads the leg: {e}"),
            ));
        }
        let deadlines = self.http.deadlines();
        let idle = deadlines.idle_shown();
        follow(rx, deadlines.idle, self.config(), agent_id, listener).map_err(|broke| match broke {
            StreamBroke::NoDone => transport(
                Delivery::Accepted,
                "the stream ended before data: [DONE]".into(),
            ),
            StreamBroke::Io(e) => transport(Delivery::Accepted, format!("the stream broke: {e}")),
            StreamBroke::Idle { started: true } => transport(
                Delivery::Accepted,
                format!("the stream sent no event for {idle}; stopped waiting"),
            ),
            StreamBroke::Idle { started: false } => transport(
                Delivery::Unknown,
                format!("no answer to the request within {idle}; stopped waiting"),
            ),
            StreamBroke::Stopped { started } => RemoteError::Stopped {
                server: server.clone(),
                delivery: if started {
                    Delivery::Accepted
                } else {
                    Delivery::Unknown
                },
            },
            StreamBroke::Failed(e) => e,
        })
    }
}

/// The body of a 2xx answer that must be an event stream, and what a mastra-ask `serve`
/// says became of the answer (`Mastra-Ask-Outcome`, and under a policy `Mastra-Ask-Needed`).
fn event_stream(
    http: &Http,
    path: &str,
    response: ureq::http::Response<ureq::Body>,
) -> Result<(impl std::io::BufRead, Told), RemoteError> {
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !content_type.starts_with("text/event-stream") {
        return Err(http.protocol(format!(
            "{path} answered {content_type:?} instead of an event stream"
        )));
    }
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| clip(v.trim()))
    };
    let told = Told {
        outcome: header("mastra-ask-outcome").map(|v| v.to_ascii_lowercase()),
        needed: header("mastra-ask-needed"),
    };
    Ok((
        BufReader::with_capacity(64 * 1024, response.into_body().into_reader()),
        told,
    ))
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
    use crate::remote::Chunk;

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
        let item = SuspendedCall {
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
        let e = client
            .answer(&item, &Answer::Approve, |_: Chunk<'_>| {})
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "an approval does not answer a plan item (Mastra would consume the suspension)"
        );
        let approval = SuspendedCall {
            kind: ItemKind::Approval,
            ..item
        };
        let e = client
            .answer(&approval, &Answer::Resume(json!("yes")), |_: Chunk<'_>| {})
            .unwrap_err();
        assert!(matches!(e, RemoteError::Mismatch(_)));
    }
}
