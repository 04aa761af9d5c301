//! How a run's end is told, once, as an exit code (SPEC §5.3, §5.5): a warning when the step
//! budget ran out while the model still called tools, a cancelled or failed (or expired) run
//! as its error, and for the waiter of a one-step run its outcome — for an `ask` run the
//! answer (one label per line), for a `plan` run nothing when approved and the reviewer's
//! feedback when rejected (the exit code is the decision); in JSON mode a last line
//! `{"runId","toolCallId","answer"}`. An agent run's waiter prints no outcome of its own.

use anyhow::Result;
use serde_json::{json, Value};

use super::advance::Advance;
use crate::domain::{CallState, RunStatus};
use crate::error::{fail, Error, Kind};
use crate::exit::Exit;
use crate::items;
use crate::output::{format, sanitize};
use crate::providers::NO_MODEL;
use crate::store::{Run, EXPIRED};

/// The fields every run listing shows.
pub fn summary(run: &Run) -> Value {
    json!({
        "runId": run.id,
        "agentId": run.agent_id,
        "status": run.status.as_str(),
        "createdAt": format::time(run.created_at),
        "updatedAt": format::time(run.updated_at),
        "model": run.agent["model"],
        "finishReason": run.finish_reason,
    })
}

impl Advance<'_> {
    /// How the run ended, said once, as an exit code.
    pub(super) fn end(&mut self, run: &Run) -> Result<Exit> {
        let report = self.ctx.report;
        let waited = self.policy.wait.as_ref().map(|w| w.summary);
        if waited == Some(true) && report.json() && !self.is_one_shot(run) {
            report.json_line(&summary(run));
        }
        match run.status {
            RunStatus::Completed => {
                if run.finish_reason.as_deref() == Some("tool-calls") {
                    report.warn(&format!(
                        "run {} stopped after its step budget: the model was still calling tools (raise it with --max-steps, or `{} reply {} ...` to go on)",
                        run.id,
                        self.ctx.program(),
                        run.id
                    ));
                }
                match waited {
                    Some(_) => self.outcome(run),
                    None => Ok(Exit::Success),
                }
            }
            RunStatus::Cancelled => {
                report.info(&format!("run {} was cancelled", run.id));
                Ok(Exit::Cancelled)
            }
            RunStatus::Failed => {
                let error = run.error.clone().unwrap_or_else(|| "unknown error".into());
                if run.finish_reason.as_deref() == Some(EXPIRED) {
                    return fail(Error::new(
                        Kind::TimedOut,
                        format!("run {} expired: {}", run.id, sanitize::one_line(&error)),
                    ));
                }
                let kept = if self.recorded.is_empty() {
                    String::new()
                } else {
                    "; your answer was recorded, and resume continues the run".to_string()
                };
                fail(
                    Error::provider(format!("run {} failed: {error}{kept}", run.id)).with_hint(
                        format!("retry it with: {} resume {}", self.ctx.program(), run.id),
                    ),
                )
            }
            RunStatus::Running | RunStatus::Suspended => unreachable!("the run has ended"),
        }
    }

    /// Whether the run is a one-step `ask` or `plan` run (no model).
    pub(super) fn is_one_shot(&mut self, run: &Run) -> bool {
        matches!(run.agent_id.as_str(), "ask" | "plan")
            && self.agent(run).is_ok_and(|a| a.model == NO_MODEL)
    }

    /// Prints a completed run's outcome for its waiter; the exit code it stands for.
    fn outcome(&mut self, run: &Run) -> Result<Exit> {
        if !self.is_one_shot(run) {
            return Ok(Exit::Success);
        }
        let Some(item) = self
            .store
            .calls(&run.id)?
            .into_iter()
            .find(|c| c.state == CallState::Resolved)
        else {
            return Ok(Exit::Success);
        };
        let report = self.ctx.report;
        let answer = item.resume_data.clone().unwrap_or(Value::Null);
        if report.json() {
            report
                .json_line(&json!({"runId": run.id, "toolCallId": item.call_id, "answer": answer}));
        } else {
            for line in items::of(item.kind()).outcome(&answer) {
                report.line(&line);
            }
        }
        Ok(if answer["action"] == "rejected" {
            Exit::Rejected
        } else {
            Exit::Success
        })
    }
}
