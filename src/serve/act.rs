//! The one place serve records a decision or follows a run (phase A of issue 19): the
//! checks of the command line (SPEC §5.4: the question's options, the plan and approval
//! decisions of `tools/`), then the store's exactly-once transition, then who continues
//! (§5.1). Serve never drives a leg here: a live waiter does (`Outcome::Waiter`, and the
//! waiter's leg is followed from the store), or nobody here does (`Outcome::Recorded`).
//!
//! Pages and the API call only `decide`, `follow` and `decided`; when the run layer moves
//! into `runner/` (issue 18) this file moves onto it, and `--drive` adds a third outcome.

use serde_json::{json, Value};

use crate::agent::{driver, lease};
use crate::domain::{
    CallRecord, CallState, ItemKind, Resolution, RunStatus, Sink, StoredEvent, Via,
};
use crate::providers::{self, NO_MODEL};
use crate::store::{
    self, holder_alive, now_ms, Conflict, Location, NotFound, Resolved, Run, Store,
};
use crate::tools::approval;
use crate::tools::ask_user::{self, Question};
use crate::tools::submit_plan::{self, Plan};

/// What a person decided, as a page's form or an API body gives it.
#[derive(Clone, Debug)]
pub enum Answer {
    /// Resume data, checked against the item's kind (`resume-stream`, the question and plan
    /// forms).
    Data(Value),
    /// An approval decision (`approve-tool-call`, `decline-tool-call`, the approval form):
    /// only for approval items.
    Approval(approval::Decision),
}

/// Who continues the run after a decision (the `Mastra-Ask-Outcome` header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Serve drove the resumed leg: only for `ask` and `plan` runs, which have no model
    /// and no tools (resolving their item completes them; nothing runs).
    Driven,
    /// A live waiter drives the resumed leg.
    Waiter,
    /// Nobody here drives it: other items of the step still wait, or the run waits for its
    /// host (a waiter to come, or `resume` there).
    Recorded,
}

impl Outcome {
    pub fn header(self) -> &'static str {
        match self {
            Outcome::Driven => "driven",
            Outcome::Waiter => "waiter",
            Outcome::Recorded => "recorded",
        }
    }
}

/// A decision that was recorded.
pub struct Decided {
    pub run_id: String,
    pub call_id: String,
    pub outcome: Outcome,
    /// Items of the step still pending.
    pub still_pending: usize,
    /// The events the decision appended (the step's results, when it was the last item).
    pub events: Vec<StoredEvent>,
}

/// Why nothing was recorded.
#[derive(Debug)]
pub enum Refusal {
    /// No such run or item (or of another agent).
    NotFound(String),
    /// The answer does not fit the item: `field` and what is wrong.
    Invalid {
        field: &'static str,
        message: String,
    },
    /// Someone decided first: the item as it is now.
    Decided(Box<CallRecord>),
    /// Not pending for another reason (cancelled, expired, the run is not suspended).
    Conflict(String),
    Failed(anyhow::Error),
}

impl From<anyhow::Error> for Refusal {
    fn from(e: anyhow::Error) -> Refusal {
        Refusal::Failed(e)
    }
}

impl From<store::Error> for Refusal {
    fn from(e: store::Error) -> Refusal {
        Refusal::Failed(e.into())
    }
}

/// The item a decision is about.
pub struct Target<'a> {
    pub run_id: &'a str,
    /// `None`: the run's only pending item.
    pub call_id: Option<&'a str>,
    /// The agent the route names (the API), checked against the run's.
    pub agent_id: Option<&'a str>,
}

/// Checks `answer` against the item and records it exactly once as `by`, `via`.
pub fn decide(
    store: &dyn Store,
    location: &Location,
    target: &Target,
    answer: Answer,
    by: &str,
    via: Via,
) -> Result<Decided, Refusal> {
    let (run, item) = find(store, target)?;
    if item.state != CallState::Pending {
        return Err(not_pending(item));
    }
    let resolution = resolution(&item, answer, by, via)?;
    // A one-step run has nothing to drive but its end: serve completes it.
    let offer = (run.agent["model"] == NO_MODEL).then(lease::mine);
    let resolved = match store.resolve(&run.id, &item.call_id, &resolution, offer.as_ref()) {
        Ok(r) => r,
        Err(store::Error::Conflict(Conflict::NotPending { .. })) => {
            let now = store
                .calls(&run.id)?
                .into_iter()
                .find(|c| c.call_id == item.call_id)
                .unwrap_or(item);
            return Err(not_pending(now));
        }
        Err(store::Error::Conflict(c)) => return Err(Refusal::Conflict(c.to_string())),
        Err(store::Error::NotFound(n)) => return Err(Refusal::NotFound(n.to_string())),
        Err(e) => return Err(e.into()),
    };
    let (outcome, still_pending, events) = match resolved {
        Resolved::Recorded { still_pending } => (Outcome::Recorded, still_pending, Vec::new()),
        // A policy needs more decisions (SPEC §14): the item itself still waits. (Its own
        // outcome, `partial`, comes with issue 20's serve part.)
        Resolved::Partial { .. } => (Outcome::Recorded, 1, Vec::new()),
        Resolved::Resumed {
            mut events,
            driving: true,
        } => {
            let lease = offer.expect("driving under the lease offered");
            let after = events.last().map(|e| e.seq);
            if let Some(run) = store.run(&run.id)? {
                let provider = providers::from_spec(NO_MODEL)?;
                let agent = crate::agent::AgentDef::of_run(&run)?;
                let provider = provider.as_ref();
                driver::drive(store, location, &run, &agent, &lease, provider, &mut Quiet)?;
            }
            events.extend(follow(store, &run.id, after)?.events);
            (Outcome::Driven, 0, events)
        }
        Resolved::Resumed { events, .. } => {
            let waiter = store.has_waiter(&run.id)?;
            let outcome = if waiter {
                Outcome::Waiter
            } else {
                Outcome::Recorded
            };
            (outcome, 0, events)
        }
    };
    Ok(Decided {
        run_id: run.id,
        call_id: item.call_id,
        outcome,
        still_pending,
        events,
    })
}

/// Events go to the store only; the caller reads them back.
struct Quiet;

impl Sink for Quiet {
    fn event(&mut self, _run_id: &str, _event: &crate::domain::Event) {}
}

/// The run and the item of `target`.
pub fn find(store: &dyn Store, target: &Target) -> Result<(Run, CallRecord), Refusal> {
    let run = store
        .run(target.run_id)?
        .filter(|r| target.agent_id.is_none_or(|a| a == r.agent_id))
        .ok_or_else(|| Refusal::NotFound(format!("no run {}", target.run_id)))?;
    let calls: Vec<CallRecord> = store
        .calls(&run.id)?
        .into_iter()
        .filter(CallRecord::is_item)
        .collect();
    let item = match target.call_id {
        Some(id) => calls.into_iter().find(|c| c.call_id == id).ok_or_else(|| {
            Refusal::NotFound(
                NotFound::Call {
                    run: run.id.clone(),
                    call: id.to_string(),
                }
                .to_string(),
            )
        })?,
        None => {
            let mut pending: Vec<CallRecord> = calls
                .into_iter()
                .filter(|c| c.state == CallState::Pending)
                .collect();
            match pending.len() {
                1 => pending.remove(0),
                0 => {
                    return Err(Refusal::Conflict(format!(
                        "run {} has nothing pending: it is {}",
                        run.id,
                        run.status.as_str()
                    )))
                }
                _ => {
                    let ids: Vec<&str> = pending.iter().map(|c| c.call_id.as_str()).collect();
                    return Err(Refusal::Invalid {
                        field: "toolCallId",
                        message: format!(
                            "several items of this run are pending; name one: {}",
                            ids.join(", ")
                        ),
                    });
                }
            }
        }
    };
    Ok((run, item))
}

fn not_pending(item: CallRecord) -> Refusal {
    if item.state == CallState::Resolved {
        return Refusal::Decided(Box::new(item));
    }
    Refusal::Conflict(format!(
        "tool call {} is not pending: it was {}",
        item.call_id,
        item.state.as_str()
    ))
}

/// The resolution of `answer` for `item`, checked as the commands check theirs.
fn resolution(
    item: &CallRecord,
    answer: Answer,
    by: &str,
    via: Via,
) -> Result<Resolution, Refusal> {
    let invalid = |message: String| Refusal::Invalid {
        field: "resumeData",
        message,
    };
    let (resume_data, result) = match (item.kind(), answer) {
        (ItemKind::Question, Answer::Data(data)) => {
            let question = item
                .payload
                .as_ref()
                .and_then(Question::from_payload)
                .ok_or_else(|| invalid("the question of this item cannot be read".into()))?;
            let data = question.check_answer(&data).map_err(invalid)?;
            (data.clone(), Some(ask_user::result(&data)))
        }
        (ItemKind::Plan, Answer::Data(data)) => {
            let plan = item
                .payload
                .as_ref()
                .and_then(Plan::from_payload)
                .ok_or_else(|| invalid("the plan of this item cannot be read".into()))?;
            let decision = submit_plan::Decision::from_json(&data).map_err(invalid)?;
            (decision.resume_data(&plan), Some(decision.result(&plan)))
        }
        (ItemKind::Approval, Answer::Data(data)) => {
            let decision = approval::Decision::from_json(&data).map_err(invalid)?;
            (decision.resume_data(), decision.result())
        }
        (ItemKind::Approval, Answer::Approval(decision)) => {
            (decision.resume_data(), decision.result())
        }
        (kind, Answer::Approval(_)) => {
            return Err(Refusal::Invalid {
                field: "toolCallId",
                message: format!(
                    "tool call {} is a {}, not an approval: answer it with resume-stream",
                    item.call_id,
                    kind.noun()
                ),
            })
        }
        (ItemKind::Other, Answer::Data(_)) => {
            return Err(invalid("this item cannot be answered here".into()))
        }
    };
    Ok(Resolution {
        resume_data,
        result,
        by: by.to_string(),
        via,
    })
}

/// What following a waiter's leg found this time.
pub struct Followed {
    pub events: Vec<StoredEvent>,
    /// The leg ended (the run suspended again or finished), or its waiter went away.
    pub done: bool,
}

/// The events of the run stored after `after`, and whether the leg that a waiter drives
/// has ended: the run is no longer running, or nobody drives it and no live waiter will.
pub fn follow(store: &dyn Store, run_id: &str, after: Option<i64>) -> store::Result<Followed> {
    let run = store.run(run_id)?;
    let events: Vec<StoredEvent> = store
        .events(run_id)?
        .into_iter()
        .filter(|e| after.is_none_or(|a| e.seq > a))
        .collect();
    let done = match run {
        None => true,
        Some(run) if run.status != RunStatus::Running => true,
        Some(run) => {
            let now = now_ms();
            let driven = run.lease.as_ref().is_some_and(|l| holder_alive(l, now));
            !driven && !store.has_waiter(run_id)?
        }
    };
    Ok(Followed { events, done })
}

/// One line about what was decided on an item: for pages and the API's 409.
pub fn decided(item: &CallRecord) -> Value {
    json!({
        "toolCallId": item.call_id,
        "kind": item.kind().noun(),
        "state": item.state.as_str(),
        "resolvedBy": item.resolved_by,
        "resolvedVia": item.resolved_via,
        "resolvedAt": item.resolved_at.map(crate::output::format::time),
        "resumeData": item.resume_data,
    })
}
