//! How a run's end is told, once, as an exit code (SPEC §5.3, §5.5), wherever the run
//! lives: a warning when the step budget ran out while the model still called tools (one
//! wording for both places), a cancelled or failed (or expired) run as its error, and for
//! the waiter of a one-step run its outcome — for an `ask` run the answer (one label per
//! line), for a `plan` run nothing when approved and the reviewer's feedback when rejected
//! (the exit code is the decision); in JSON mode a last line `{"runId","toolCallId",
//! "answer"}`. An agent run's waiter prints no outcome of its own. What differs by place
//! (whether `resume` and `reply` continue the run, which server it ran on) is the place's
//! answer.

use anyhow::Result;
use serde_json::{json, Value};

use super::advance::Advance;
use crate::domain::RunStatus;
use crate::error::{fail, Error, Kind};
use crate::exit::Exit;
use crate::items;
use crate::output::{format, sanitize};
use crate::store::{Run, EXPIRED};

/// How a run ended, as its place knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct End {
    pub how: How,
    /// What the place says of it first (a server's run known only from the ledger).
    pub said: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum How {
    /// Its last leg finished; `tool-calls` when the step budget ran out first.
    Completed {
        finish_reason: Option<String>,
    },
    Cancelled,
    Failed {
        error: String,
        /// Its items expired (`--timeout`, `--expires-in`).
        expired: bool,
        /// Who failed: the model (`Provider`), or the server the run lives on (`Server`).
        kind: Kind,
    },
    /// It no longer waits, and how it ended cannot be known here.
    NotKnown,
    /// It still waits: the decision sent was one of several its policy needs (a `serve`'s
    /// `partial`, SPEC §14).
    Partial,
}

impl End {
    /// How a run of this store ended (it is completed, failed or cancelled).
    pub fn of_run(run: &Run) -> End {
        let how = match run.status {
            RunStatus::Cancelled => How::Cancelled,
            RunStatus::Failed => How::Failed {
                error: run.error.clone().unwrap_or_else(|| "unknown error".into()),
                expired: run.finish_reason.as_deref() == Some(EXPIRED),
                kind: Kind::Provider,
            },
            _ => How::Completed {
                finish_reason: run.finish_reason.clone(),
            },
        };
        End { how, said: None }
    }
}

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
    pub(super) fn end(&mut self, end: End) -> Result<Exit> {
        let report = self.ctx.report;
        let program = self.ctx.program();
        let run = format::shell_quote(self.place.run_id());
        let waited = self.policy.wait.as_ref().map(|w| w.summary);
        if waited == Some(true) && report.json() {
            if let Some(line) = self.place.summary()? {
                report.json_line(&line);
            }
        }
        if let Some(said) = &end.said {
            report.info(said);
        }
        let resumable = self.place.resumable();
        match end.how {
            How::Completed { finish_reason } => {
                if finish_reason.as_deref() == Some("tool-calls") {
                    let reply = if resumable {
                        format!(", or `{program} reply {run} ...` to go on")
                    } else {
                        String::new()
                    };
                    report.warn(&format!(
                        "run {run} stopped after its step budget: the model was still calling tools (raise it with --max-steps{reply})"
                    ));
                }
                match waited {
                    Some(_) => self.outcome(),
                    None => Ok(Exit::Success),
                }
            }
            How::NotKnown => Ok(Exit::Success),
            How::Partial => Ok(Exit::Suspended),
            How::Cancelled => {
                report.info(&format!("run {run} was cancelled"));
                Ok(Exit::Cancelled)
            }
            How::Failed {
                error,
                expired: true,
                ..
            } => fail(Error::new(
                Kind::TimedOut,
                format!("run {run} expired: {}", sanitize::one_line(&error)),
            )),
            How::Failed { error, kind, .. } => {
                let on = self
                    .place
                    .server()
                    .map(|s| format!(" on {s}"))
                    .unwrap_or_default();
                if !resumable {
                    return fail(Error::new(kind, format!("run {run} failed{on}: {error}")));
                }
                let kept = if self.recorded.is_empty() {
                    ""
                } else {
                    "; your answer was recorded, and resume continues the run"
                };
                fail(
                    Error::new(kind, format!("run {run} failed{on}: {error}{kept}"))
                        .with_hint(format!("retry it with: {program} resume {run}")),
                )
            }
        }
    }

    /// Prints a completed one-step run's outcome for its waiter; the exit code it stands for.
    fn outcome(&mut self) -> Result<Exit> {
        let Some(item) = self.place.one_shot()? else {
            return Ok(Exit::Success);
        };
        let report = self.ctx.report;
        if report.json() {
            report.json_line(
                &json!({"runId": self.place.run_id(), "toolCallId": item.call_id, "answer": item.answer}),
            );
        } else {
            for line in items::of(item.kind).outcome(&item.answer) {
                report.line(&line);
            }
        }
        Ok(if item.answer["action"] == "rejected" {
            Exit::Rejected
        } else {
            Exit::Success
        })
    }
}
