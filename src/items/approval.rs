//! An approval (SPEC §11): a tool call that waits to be let run (`approve RUN`) or refused
//! (`decline RUN [--reason TEXT]`), or decided with Mastra's resume data (`--json`); the verb
//! is the decision. At a terminal: the tool and its arguments, then a menu that starts on
//! Decline.

use anyhow::Result;
use serde_json::Value;

use super::view::{json_of, ItemView};
use super::{Asked, Kind, Prompted, Verb};
use crate::cli::ApproveArgs;
use crate::domain::{Resolution, Via};
use crate::error::{fail, Error};
use crate::items::input::parse_json_flag;
use crate::output::sanitize;
use crate::remote::Answer;
use crate::tools::approval::Decision;
use crate::ui;

pub struct ApprovalItem;

impl Kind for ApprovalItem {
    fn article(&self) -> &'static str {
        "an approval"
    }

    fn verbs(&self) -> &'static [&'static str] {
        &["approve", "decline"]
    }

    fn picker_title(&self) -> &'static str {
        "Which tool call?"
    }

    fn nothing_pending(&self) -> &'static str {
        "no tool call is waiting for approval"
    }

    fn waits_for(&self) -> &'static str {
        "approval"
    }

    fn describe(&self, item: &ItemView, out: &mut String) {
        out.push_str("approval: ");
        sanitize::push_one_line(out, item.tool_name);
        out.push(' ');
        sanitize::push_one_line(out, &json_of(item.args));
    }

    fn commands(&self, _item: &ItemView) -> Vec<Verb> {
        vec![
            Verb::new("approve", &[], None),
            Verb::new("decline", &["--reason <reason>"], None),
        ]
    }

    fn prompt(&self, asked: &Asked) -> Result<Prompted> {
        let item = asked.item;
        let args = item.args().cloned().unwrap_or_default();
        Ok(
            match ui::approve(item.call_id(), item.tool_name(), &args)? {
                Some(ui::Chosen::Decided(d)) => {
                    Prompted::Resolved(decided(&d, asked.by, Via::Prompt))
                }
                Some(ui::Chosen::Later) => Prompted::Later,
                None => Prompted::Left,
            },
        )
    }

    /// `approve-tool-call`, or `decline-tool-call` with the reason, if any.
    fn route(&self, resume_data: &Value) -> Answer {
        if resume_data["approved"] == true {
            return Answer::Approve;
        }
        Answer::Decline {
            reason: resume_data["reason"].as_str().map(str::to_string),
        }
    }
}

/// What `approve` and `decline` stand for.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Approve,
    /// With `--reason`, if given.
    Decline {
        reason: Option<String>,
    },
}

impl Verdict {
    pub fn verb(&self) -> &'static str {
        match self {
            Verdict::Approve => "approve",
            Verdict::Decline { .. } => "decline",
        }
    }
}

/// The resolution of a decision: Mastra's resume data and, for a declined call, the result
/// for the model (an approved call's result is its tool's, once it ran).
pub fn decided(decision: &Decision, by: &str, via: Via) -> Resolution {
    Resolution {
        resume_data: decision.resume_data(),
        result: decision.result(),
        by: by.to_string(),
        via,
    }
}

/// The decision the command stands for, checked before anything is looked up: a `--json`
/// must agree with the verb.
pub fn decision(args: &ApproveArgs, verdict: &Verdict) -> Result<(Decision, Via)> {
    let approving = *verdict == Verdict::Approve;
    if let Some(j) = &args.json {
        let d = Decision::from_json(&parse_json_flag(j)?)
            .map_err(|e| Error::invalid(format!("--json: {e}")))?;
        if d.approved != approving {
            let other = if d.approved { "approve" } else { "decline" };
            return fail(
                Error::usage(format!(
                    "--json says {{\"approved\": {}}}, but the command is {}",
                    d.approved,
                    verdict.verb()
                ))
                .with_hint(format!("to {other} the call, use: mastra-ask {other} RUN")),
            );
        }
        return Ok((d, Via::Json));
    }
    match verdict {
        Verdict::Approve => Ok((Decision::approve(), Via::Flag)),
        Verdict::Decline {
            reason: Some(reason),
        } if reason.trim().is_empty() => fail(
            Error::usage("the reason is empty")
                .with_hint("write why, or leave out --reason to decline with the default reason"),
        ),
        Verdict::Decline { reason } => Ok((Decision::decline(reason.clone()), Via::Flag)),
    }
}
