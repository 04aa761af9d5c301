//! The driver: advances one run for one leg, from a start or resume to the next suspension
//! or the end, under the lease it holds. It performs every effect of the loop in one place:
//! wait for the tools an earlier driver left running (`started`), run the approved tools
//! of the step it resumes (`approved`), call the model, run the tools (each recorded before
//! it starts), persist, emit. Starting and resuming share this path.

use std::collections::HashSet;

use anyhow::Result;

use super::approved::{self, Open};
use super::lease::Heartbeat;
use super::started::{self, Inline};
use super::step::{self, StepContext};
use super::AgentDef;
use crate::domain::{CallRecord, Event, EventKind, Message, Sink, StepCommit, Transition};
use crate::providers::{Provider, Request};
use crate::store::{Lease, Location, Run, RunRow, Store};
use crate::tools::Toolbox;

/// How a leg ended.
#[derive(Debug, PartialEq)]
pub enum Ended {
    /// At the run's row as its last step left it (suspended or finished).
    At(Box<RunRow>),
    /// The run was cancelled or taken over by another driver meanwhile.
    LostLease,
    /// At the run as another process's transition left it (a Claude Code run's hook
    /// suspended it): read it again.
    Stopped,
}

pub fn new_message_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn new_call_id() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("call_{}", &id[..24])
}

fn call_ids(messages: &[Message]) -> impl Iterator<Item = String> + '_ {
    messages.iter().flat_map(|m| match m {
        Message::Assistant { tool_calls, .. } => tool_calls.iter().map(|c| c.id.clone()).collect(),
        _ => Vec::new(),
    })
}

/// What a leg starts from: the run's messages and calls.
pub type History = (Vec<Message>, Vec<CallRecord>);

/// Drives `run` (running, under `lease`; `agent` is its stored agent) until it suspends or
/// ends. `start`: its messages and calls when the caller just wrote them (a new run), else
/// they are read here.
pub fn drive(
    store: &dyn Store,
    location: &Location,
    (run, start): (&Run, Option<History>),
    agent: &AgentDef,
    lease: &Lease,
    provider: &dyn Provider,
    sink: &mut dyn Sink,
) -> Result<Ended> {
    let cwd = std::path::PathBuf::from(&run.cwd);
    let toolbox = Toolbox {
        entries: &agent.tools,
        cwd: &cwd,
        run_id: &run.id,
    };
    let specs = toolbox.specs();
    let names = toolbox.names();
    let _heartbeat = Heartbeat::lease(location.clone(), run.id.clone(), lease.clone());
    // Read once the lease is held: no other driver changes them while it is.
    let (mut history, calls) = match start {
        Some(known) => known,
        None => store.messages_and_calls(&run.id)?,
    };
    // A takeover: what the driver before left running ends before any step runs again.
    started::wait_for_inline(&calls, &toolbox);
    match approved::finish_step(store, run, lease, &toolbox, &history, &calls, sink)? {
        Open::LostLease => return Ok(Ended::LostLease),
        Open::Finished => history = store.messages(&run.id)?,
        Open::Untouched => {}
    }
    let mut used: HashSet<String> = call_ids(&history).collect();
    let mut usage = run.usage;

    for n in 1.. {
        let message_id = new_message_id();
        let step_start = Event::step_start(&message_id);
        sink.event(&run.id, &step_start);
        let request = Request {
            system: &agent.instructions,
            messages: &history,
            tools: &specs,
            settings: &agent.model_settings,
        };
        // What was shown of the step's text, kept should the call then fail.
        let mut shown = String::new();
        let step_at = i64::try_from(history.len()).unwrap_or(i64::MAX);
        let mut inline = Inline::new(store, &run.id, lease, step_at);
        let response = provider.complete(&request, &mut |text| {
            shown.push_str(text);
            sink.event(&run.id, &Event::text_delta(&message_id, text))
        });
        let commit = match response {
            Ok(response) => step::step(
                &response,
                &StepContext {
                    message_id: &message_id,
                    used_ids: &used,
                    tools: &names,
                    last_in_budget: n >= agent.max_steps,
                    usage_before: usage,
                },
                &mut |call| inline.evaluate(&toolbox, call),
                &mut new_call_id,
            ),
            Err(e) => failed(step_start, &message_id, &shown, format!("{e:#}")),
        };
        inline.checked()?;
        let Some((stored, row)) = store.store_step(&run.id, lease, &commit)? else {
            inline.lost()?;
            return Ok(Ended::LostLease);
        };
        for e in &stored {
            // Shown live already.
            if !matches!(e.event.kind, EventKind::StepStart | EventKind::TextDelta) {
                sink.event(&run.id, &e.event);
            }
        }
        used.extend(call_ids(&commit.messages));
        history.extend(commit.messages);
        usage = usage + commit.usage;
        if commit.transition != Transition::Running {
            return Ok(Ended::At(Box::new(row)));
        }
    }
    unreachable!("the loop returns")
}

/// A model call that failed: the run fails, keeping the text that was already shown as the
/// step's `text-delta` (it is not a message: the retried call must not see half an answer).
fn failed(step_start: Event, message_id: &str, shown: &str, error: String) -> StepCommit {
    let mut events = vec![step_start];
    if !shown.is_empty() {
        events.push(Event::text_delta(message_id, shown));
    }
    events.push(Event::error(&error));
    StepCommit {
        messages: vec![],
        calls: vec![],
        events,
        usage: Default::default(),
        transition: Transition::Failed { error },
    }
}
