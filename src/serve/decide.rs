//! The one place serve records a decision, through the run layer's one door like every
//! command (SPEC §13): the item is found, and `runner::Advance::decide` checks the answer by
//! its kind and records it exactly once as the reviewer serve signed in, and says who
//! continues (`runner::Outcome`, the `Mastra-Ask-Outcome` header). Serve then does what the outcome says: drives the leg
//! (`driven`: `--drive` and a run its own user started on its host, or a one-step run,
//! which runs nothing), follows a live waiter's leg from the store (`waiter`), or only ends
//! the stream (`recorded`). Who drives is decided in the runner, never here.
//!
//! A decision runs on a blocking thread of its own (`Pool::spawn_decision`) and reports
//! through `frames`, so the request gets the outcome as soon as it is recorded and the leg's
//! events as they come; the leg goes on to its end if the client goes away. Recording is
//! short work; the leg after it needs a leg place (`Pool::leg_place`), taken before the
//! decision and never waited for: without one, serve neither drives nor follows, and the
//! decision is only recorded (`recorded`: the run's waiter, or `resume`, continues it).
//! Serve's legs run no hook: the watcher (`events`) runs serve's own `--on-suspend` once
//! for every new item, theirs included.

use anyhow::anyhow;
use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::{oneshot, OwnedSemaphorePermit};

use super::app::Shared;
use super::frames::{self, Frames};
use super::pool::{broken, LegPlace, Reuse, LEGS_PER_REVIEWER, MAX_LEGS};
use crate::domain::{CallRecord, CallState, Event, RunStatus, Via};
use crate::items::Item;
use crate::runner::advance::model_for;
use crate::runner::read::Read;
use crate::runner::{Advance, Context, Continues, Local, Outcome, Policy};
use crate::store::{self, Conflict, Location, NotFound, Run, Store, Who};

use axum::body::Bytes;

pub use crate::items::Answer;

/// The item a decision is about.
#[derive(Clone, Debug)]
pub struct Target {
    pub run_id: String,
    /// `None`: the run's only pending item.
    pub call_id: Option<String>,
    /// The agent the route names (the API), checked against the run's.
    pub agent_id: Option<String>,
}

/// How serve was started, as deciding needs it.
#[derive(Clone, Debug)]
pub struct Serving {
    pub location: Location,
    /// `--db` as given, for the commands a wording names.
    pub db_flag: Option<String>,
    /// What chose the store (`--db`, `MASTRA_ASK_DB` or the default), as the commands say it.
    pub store_from: crate::runner::StoreFrom,
    /// `--drive`.
    pub drive: bool,
}

impl Serving {
    /// The run layer's context for work serve does on its own (no terminal, no hook of a
    /// run's), reporting to `report`.
    pub fn context<'a>(&self, report: &'a dyn crate::report::Report) -> Context<'a> {
        Context {
            location: self.location.clone(),
            db_flag: self.db_flag.clone(),
            store_from: self.store_from,
            on_suspend: None,
            on_resolve: None,
            interactive: false,
            server: None,
            report,
        }
    }
}

/// A decision that was recorded.
#[derive(Clone, Debug)]
pub struct Decided {
    pub run_id: String,
    pub call_id: String,
    pub outcome: Outcome,
    /// Serve would have followed (a live waiter's) or driven (`--drive`) the leg, but had
    /// no leg place for it: the decision is only recorded.
    pub unplaced: bool,
}

impl Decided {
    /// The `Mastra-Ask-Outcome` header: a waiter's leg that is not followed is `recorded`.
    pub fn header(&self) -> &'static str {
        match self.outcome {
            Outcome::Waiter if self.unplaced => "recorded",
            ref other => other.as_str(),
        }
    }
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
    /// The run's policy does not let this reviewer make this decision (SPEC §14).
    Forbidden(String),
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

/// Records `answer` on `target` as `who` (the reviewer serve signed in) via `via`, then continues the run as the outcome
/// says. The decision (or the refusal) comes back as soon as it is known, with the stream
/// of the leg that follows: the leg serve drives, or (`follow`) the leg of a live waiter;
/// otherwise the stream carries no result. Every stream ends with `data: [DONE]`.
pub async fn decide(
    app: &Shared,
    target: Target,
    answer: Answer,
    who: Who,
    via: Via,
    follow: bool,
) -> Result<(Decided, UnboundedReceiver<Bytes>), Refusal> {
    let (frames, rx) = frames::channel();
    let (tell, told) = oneshot::channel();
    let serving = app.serving.clone();
    // The leg after the decision has its place now or never: a decision never waits for one.
    let leg = (follow || serving.drive)
        .then(|| app.pool.leg_place(&who.by))
        .flatten();
    app.pool.spawn_decision(move |store, short| match store {
        Ok(store) => {
            let how = How { follow, leg, short };
            continue_after(
                store, &serving, &target, answer, &who, via, how, frames, tell,
            )
        }
        Err(e) => {
            let _ = tell.send(Err(Refusal::Failed(e)));
            Reuse::No
        }
    });
    match told.await {
        Ok(Ok(decided)) => Ok((decided, rx)),
        Ok(Err(refusal)) => Err(refusal),
        Err(_) => Err(Refusal::Failed(anyhow!(
            "the answer was not looked at: the inbox is stopping"
        ))),
    }
}

/// What serve may do with the leg after a decision: drive it (`--drive`), follow a
/// waiter's (the API), and whether it has a leg place to do it in.
#[derive(Clone, Copy)]
struct Leg {
    drive: bool,
    follow: bool,
    placed: bool,
}

/// The places a decision holds, and whether its request follows a waiter's leg.
struct How {
    follow: bool,
    /// The leg's place, if one was free: without it serve neither drives nor follows.
    leg: Option<LegPlace>,
    /// The place of short work, given back once the decision is recorded.
    short: OwnedSemaphorePermit,
}

/// On the blocking thread: records, tells the request, then drives, follows or ends.
#[allow(clippy::too_many_arguments)]
fn continue_after(
    store: &dyn Store,
    serving: &Serving,
    target: &Target,
    answer: Answer,
    who: &Who,
    via: Via,
    how: How,
    frames: Frames,
    tell: oneshot::Sender<Result<Decided, Refusal>>,
) -> Reuse {
    let mut reuse = Reuse::Yes;
    // Where a followed leg starts: after what the run stored before this decision (its
    // earlier legs are not this decision's stream). The run waits, so nothing comes between.
    let seen = match how.follow {
        true => store
            .events(&target.run_id)
            .ok()
            .and_then(|e| e.last().map(|e| e.seq)),
        false => None,
    };
    {
        let ctx = serving.context(&frames);
        let leg = Leg {
            drive: serving.drive,
            follow: how.follow,
            placed: how.leg.is_some(),
        };
        let recorded = record(&ctx, store, target, answer, who, via, leg);
        drop(how.short);
        let (advance, decided) = match recorded {
            Ok(recorded) => recorded,
            Err(refusal) => {
                if matches!(&refusal, Refusal::Failed(e) if broken(e)) {
                    reuse = Reuse::No;
                }
                let _ = tell.send(Err(refusal));
                return reuse;
            }
        };
        let outcome = decided.outcome.clone();
        let run_id = decided.run_id.clone();
        let follow = leg.follow && leg.placed;
        if decided.unplaced {
            let by = &who.by;
            eprintln!(
                "run {run_id}: the answer of {by} is only recorded, its leg neither followed nor driven here: {by} holds {LEGS_PER_REVIEWER} leg places, or all {MAX_LEGS} are held"
            );
        }
        let _ = tell.send(Ok(decided));
        match outcome {
            Outcome::Driven => {
                if let Err(e) = advance.run() {
                    leg_failed(store, &frames, &run_id, &e);
                }
            }
            Outcome::Waiter if follow => {
                // The follower waits for changes on its store: not lent again.
                reuse = Reuse::No;
                let mut waiter = Local::new(&ctx, Some(store), &run_id, false).seen_up_to(seen);
                if let Err(e) = waiter.follow(None) {
                    eprintln!("following the waiter of run {run_id} stopped: {e:#}");
                }
            }
            other => {
                if let Some(words) = other.wording(&ctx.program(), &run_id) {
                    frames.comment(&words);
                }
            }
        }
    }
    frames.done();
    reuse
}

/// A leg serve drove ended in an error. A run that failed said so in its stream (an
/// `error` chunk); anything else (the store, a lost lease) is told as one here.
fn leg_failed(store: &dyn Store, frames: &Frames, run_id: &str, e: &anyhow::Error) {
    let failed = store
        .run(run_id)
        .ok()
        .flatten()
        .is_some_and(|r| r.status == RunStatus::Failed);
    if !failed {
        eprintln!("the leg of run {run_id} stopped: {e:#}");
        frames.event(run_id, &Event::error(&format!("{e:#}")));
    }
}

/// Finds and checks, then records through the run layer: the `Advance` that continues the
/// run, and the decision.
fn record<'a>(
    ctx: &'a Context<'a>,
    store: &'a dyn Store,
    target: &Target,
    answer: Answer,
    who: &Who,
    via: Via,
    leg: Leg,
) -> Result<(Advance<'a>, Decided), Refusal> {
    let (run, item) = find(store, target)?;
    if item.state != CallState::Pending {
        return Err(not_pending(item));
    }
    // A run whose model cannot be had here is still answered: recorded for its host.
    let drive = Policy::serving(leg.drive, &run, who.clone()).drive && model_for(&run).is_ok();
    let policy = Policy::serving(drive && leg.placed, &run, who.clone());
    let place = Local::new(ctx, Some(store), &run.id, false).knowing(Read::known(run.clone()));
    let mut advance = Advance::over(ctx, Box::new(place), policy);
    let stored = Item::of_call(&run, &item);
    let field = answer.field();
    let outcome = advance
        .decide(&stored, answer, via)
        .map_err(|e| refusal_of(e, field, store, &run, &item))?;
    let unplaced = !leg.placed
        && match outcome {
            Outcome::Waiter => leg.follow,
            Outcome::Recorded(Continues::Here) => drive,
            _ => false,
        };
    Ok((
        advance,
        Decided {
            run_id: run.id,
            call_id: item.call_id,
            outcome,
            unplaced,
        },
    ))
}

/// Why recording failed, as a refusal: an answer that does not fit names its `field`.
fn refusal_of(
    e: anyhow::Error,
    field: &'static str,
    store: &dyn Store,
    run: &Run,
    item: &CallRecord,
) -> Refusal {
    use crate::error::Kind;
    if let Some(store::Error::Conflict(Conflict::NotPending { .. })) = e.downcast_ref() {
        let now = store
            .calls(&run.id)
            .ok()
            .and_then(|calls| calls.into_iter().find(|c| c.call_id == item.call_id));
        return not_pending(now.unwrap_or_else(|| item.clone()));
    }
    match crate::error::kind_of(&e) {
        Some((Kind::Invalid | Kind::Usage, message)) => Refusal::Invalid { field, message },
        Some((Kind::NotFound, message)) => Refusal::NotFound(message),
        Some((Kind::Conflict, message)) => Refusal::Conflict(message),
        Some((Kind::Forbidden, message)) => Refusal::Forbidden(message),
        _ => Refusal::Failed(e),
    }
}

/// The run and the item of `target`.
pub fn find(store: &dyn Store, target: &Target) -> Result<(Run, CallRecord), Refusal> {
    let run = store
        .run(&target.run_id)?
        .filter(|r| target.agent_id.as_ref().is_none_or(|a| *a == r.agent_id))
        .ok_or_else(|| Refusal::NotFound(format!("no run {}", target.run_id)))?;
    let calls: Vec<CallRecord> = store
        .calls(&run.id)?
        .into_iter()
        .filter(CallRecord::is_item)
        .collect();
    let item = match &target.call_id {
        Some(id) => calls
            .into_iter()
            .find(|c| c.call_id == *id)
            .ok_or_else(|| {
                Refusal::NotFound(
                    NotFound::Call {
                        run: run.id.clone(),
                        call: id.to_string(),
                    }
                    .to_string(),
                )
            })?,
        None => only_pending(&run, calls)?,
    };
    Ok((run, item))
}

/// The run's only pending item.
fn only_pending(run: &Run, calls: Vec<CallRecord>) -> Result<CallRecord, Refusal> {
    let mut pending: Vec<CallRecord> = calls
        .into_iter()
        .filter(|c| c.state == CallState::Pending)
        .collect();
    match pending.len() {
        1 => Ok(pending.remove(0)),
        0 => Err(Refusal::Conflict(format!(
            "run {} has nothing pending: it is {}",
            run.id,
            run.status.as_str()
        ))),
        _ => {
            let ids: Vec<&str> = pending.iter().map(|c| c.call_id.as_str()).collect();
            Err(Refusal::Invalid {
                field: "toolCallId",
                message: format!(
                    "several items of this run are pending; name one: {}",
                    ids.join(", ")
                ),
            })
        }
    }
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

/// Where a run that nobody here drives continues, as a token a page's address carries.
pub fn done_token(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Driven => "driven",
        Outcome::Waiter => "waiter",
        Outcome::Pending(_) => "pending",
        Outcome::Partial(_) => "partial",
        Outcome::Recorded(Continues::Here) => "here",
        Outcome::Recorded(Continues::OnHost(_) | Continues::ClaudeCode) => "host",
    }
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
