//! Command tools a driver starts (SPEC §11), approved or needing no approval: each one's
//! process group is recorded in the store before the tool may run, so that a driver that
//! takes the run over (`resume` after the first was killed) finds it and waits for it, or
//! ends it past its timeout, before the step runs again: two copies of one call never run
//! at once. A tool that needs no approval runs inside a step that is stored only once every
//! call is known; it is recorded as a `running` call of that step ([`Inline`]) until then,
//! and when the step cannot be stored because the run was cancelled meanwhile, its result
//! is kept there so that `show` says it ran.
//!
//! Nothing here prints or talks to a model; whether a call runs at all is `Toolbox`'s.

use std::time::Duration;

use anyhow::Result;
use serde_json::{json, Value};

use super::step::error_text;
use crate::domain::{CallRecord, CallState, StartedCall, ToolCall, ToolOutcome, ToolProcess};
use crate::store::{now_ms, Lease, Store};
use crate::sys::group::Recorded;
use crate::tools::Toolbox;

/// The record of a group just started on this host.
pub fn process_of(group: Recorded) -> ToolProcess {
    ToolProcess {
        pgid: group.pgid,
        leader_start: group.leader_start,
        host: crate::sys::host_id().to_string(),
        started_at: now_ms(),
    }
}

/// What a tool's outcome stores: the result for the model, and `{name, message}` when it
/// failed.
pub fn stored(outcome: ToolOutcome) -> (Value, Option<Value>) {
    match outcome {
        ToolOutcome::Result(r) => (r, None),
        ToolOutcome::Error(e) => (Value::String(error_text(&e)), Some(e)),
        ToolOutcome::Suspend { .. } | ToolOutcome::Approval => {
            let e =
                json!({"name": "ToolExecutionError", "message": "the tool asked to wait again"});
            (Value::String(error_text(&e)), Some(e))
        }
    }
}

/// Before a taking-over driver runs the step again: waits for each command tool that an
/// earlier driver started for a step it never stored (among the run's `calls`) and that is
/// not known to have ended.
pub fn wait_for_inline(calls: &[CallRecord], toolbox: &Toolbox) {
    for call in calls {
        if call.state != CallState::Running || call.result.is_some() {
            continue;
        }
        if let Some(earlier) = &call.process {
            let timeout = toolbox
                .command(&call.tool_name)
                .map(|t| t.timeout())
                .unwrap_or(crate::limits::DEFAULT_TOOL_TIMEOUT);
            wait_for_earlier(earlier, timeout);
        }
    }
}

/// Waits until a copy of the tool that an earlier driver started has ended: while its
/// process group lives, up to its timeout from when it started; past that the group is
/// killed. A group on another host cannot be seen from here: its timeout is waited out.
pub fn wait_for_earlier(earlier: &ToolProcess, timeout: Duration) {
    let group = Recorded {
        pgid: earlier.pgid,
        leader_start: earlier.leader_start,
    };
    let deadline = earlier
        .started_at
        .saturating_add(i64::try_from(timeout.as_millis()).unwrap_or(i64::MAX));
    let here = earlier.host == crate::sys::host_id();
    let mut killed_at = None;
    loop {
        let now = now_ms();
        let lives = if here { group.lives() } else { now < deadline };
        if !lives {
            return;
        }
        if now >= deadline {
            match killed_at {
                None => {
                    group.kill();
                    killed_at = Some(now);
                }
                // Killed and still there (a process in uninterruptible sleep): give up on it.
                Some(at) if now - at > 10_000 => return,
                Some(_) => {}
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The command tools that run inside one step, recorded as they start.
pub struct Inline<'a> {
    store: &'a dyn Store,
    run_id: &'a str,
    lease: &'a Lease,
    /// The step's assistant message's sequence number.
    step: i64,
    /// The calls whose tool ran, with what it gave.
    ran: Vec<(String, ToolOutcome)>,
    /// A store error met while recording a start.
    failed: Option<anyhow::Error>,
}

impl<'a> Inline<'a> {
    pub fn new(store: &'a dyn Store, run_id: &'a str, lease: &'a Lease, step: i64) -> Self {
        Inline {
            store,
            run_id,
            lease,
            step,
            ran: Vec::new(),
            failed: None,
        }
    }

    /// What `call` does in the step (`Toolbox::evaluate`); a command tool's group is
    /// recorded before it may run, and a tool whose start cannot be recorded is stopped.
    pub fn evaluate(&mut self, toolbox: &Toolbox, call: &ToolCall) -> Option<ToolOutcome> {
        let mut recorded = false;
        let outcome = toolbox.evaluate(call, &mut |group| {
            let started = StartedCall {
                step: self.step,
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                args: call.args.clone(),
                process: process_of(group),
            };
            match self
                .store
                .start_inline_tool(self.run_id, self.lease, &started)
            {
                Ok(ok) => recorded = ok,
                Err(e) => {
                    self.failed.get_or_insert(e.into());
                }
            }
            recorded
        });
        if let (true, Some(o)) = (recorded, &outcome) {
            self.ran.push((call.id.clone(), o.clone()));
        }
        outcome
    }

    /// The step's tools have run: a store error met on the way, if any.
    pub fn checked(&mut self) -> Result<()> {
        match self.failed.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The step could not be stored (the lease was lost): what its tools gave is kept on
    /// their `running` calls when the run was cancelled meanwhile.
    pub fn lost(self) -> Result<()> {
        for (call_id, outcome) in self.ran {
            let (result, error) = stored(outcome);
            self.store
                .finish_tool(self.run_id, self.lease, &call_id, &result, error.as_ref())?;
        }
        Ok(())
    }
}
