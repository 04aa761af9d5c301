//! An approval (SPEC §11): a tool call that waits to be let run (`approve RUN`) or refused
//! (`decline RUN [--reason TEXT]`), or decided with Mastra's resume data (`--json`); the verb
//! is the decision. At a terminal: the tool and its arguments, then a menu that starts on
//! Decline.

use anyhow::Result;
use serde_json::Value;

use super::answer::{unfit, Answer, Checked, Given};
use super::form::{approval_decision, editable, Field, Form, Headline};
use super::view::{json_of, ItemView};
use super::{Asked, Item, Kind, Prompted, Verb};
use crate::domain::{Resolution, Via};
use crate::error::Error;
use crate::output::sanitize;
use crate::remote;
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

    /// Changed arguments equal to the proposed ones are a plain approval.
    fn check(&self, item: &Item, answer: Answer, given: &Given) -> Result<Checked> {
        let (decision, changed) = match answer {
            Answer::Data(data) => (Decision::from_json(&data).map_err(Error::invalid)?, None),
            Answer::Approval(decision) => (decision, None),
            Answer::Changed(args) => {
                let changed = (item.args() != Some(&args)).then_some(args);
                (Decision::approve(), changed)
            }
            other => return Err(unfit(item, &other)),
        };
        Ok(Checked {
            resolution: decided(&decision, given.by, given.via),
            changed,
        })
    }

    fn headline(&self, item: &ItemView) -> Headline {
        Headline::call(item)
    }

    /// The arguments, editable (to approve with changes), then the reason and the verdict.
    fn form(&self, item: &Item) -> Form {
        let args = Field::Text {
            name: "args",
            label: "Arguments (JSON; edit them to approve with changes)",
            required: false,
            value: Some(editable(item.args().unwrap_or(&Value::Null))),
            code: true,
        };
        let (reason, buttons) = approval_decision();
        Form {
            fields: vec![args, reason],
            buttons,
        }
    }

    /// `approve-tool-call`, or `decline-tool-call` with the reason, if any.
    fn route(&self, resume_data: &Value) -> remote::Answer {
        if resume_data["approved"] == true {
            return remote::Answer::Approve;
        }
        remote::Answer::Decline {
            reason: resume_data["reason"].as_str().map(str::to_string),
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
