//! An answer as every frontend gives it, neutral (no command line, no HTTP): the terminal's
//! flags, serve's forms and API, and every channel after them translate their input into an
//! `Answer`, and the item's kind checks it against the item (`Kind::check`, SPEC §5.4,
//! §14.1) into what is recorded. The one place an answer is checked.

use serde_json::Value;

use crate::domain::{ItemKind, Resolution, Via};
use crate::error::Error;
use crate::output::format;
use crate::report::Report;
use crate::tools::{approval, submit_plan};

use super::{Item, Plans};

/// What a person decided about an item.
#[derive(Clone, Debug)]
pub enum Answer {
    /// Resume data of the kind's own shape: a question's answer (text, a label, labels), a
    /// plan's `{action, feedback?}`, an approval's `{approved, reason?}`, a server's
    /// `other` suspension's JSON.
    Data(Value),
    /// A decision on a plan; `unseen`: approve it even where nobody can be shown its text
    /// (`review --unseen`: its path is sent).
    Plan {
        decision: submit_plan::Decision,
        unseen: bool,
    },
    /// A decision on an approval.
    Approval(approval::Decision),
    /// Approve with these arguments in place of the proposed ones (SPEC §14.1); the
    /// proposed arguments themselves are a plain approval.
    Changed(Value),
}

impl Answer {
    /// The part of a request an answer that does not fit its item came in, as serve's API
    /// names it.
    pub fn field(&self) -> &'static str {
        match self {
            Answer::Data(_) | Answer::Plan { .. } => "resumeData",
            Answer::Approval(_) => "toolCallId",
            Answer::Changed(_) => "args",
        }
    }
}

/// How an answer is given, beside the answer itself.
pub struct Given<'a> {
    /// The channel it came through, recorded with it.
    pub via: Via,
    /// The name the decision is shown by.
    pub by: &'a str,
    /// Where a plan item's plan is shown from.
    pub plans: &'a dyn Plans,
    pub report: &'a dyn Report,
}

/// An answer checked against its item: what is recorded.
#[derive(Debug)]
pub struct Checked {
    pub resolution: Resolution,
    /// Arguments approved in place of the proposed ones, still to be checked against the
    /// tool's input schema by the place that runs it.
    pub changed: Option<Value>,
}

impl Checked {
    pub fn plain(resolution: Resolution) -> Checked {
        Checked {
            resolution,
            changed: None,
        }
    }
}

/// `answer` is not one `item`'s kind takes (an approval's decision for a question, changed
/// arguments for a plan): nothing is recorded.
pub fn unfit(item: &Item, answer: &Answer) -> anyhow::Error {
    let call = format::shell_quote(item.call_id());
    let is = super::of(item.kind()).article();
    let (not, more) = match answer {
        Answer::Plan { .. } => (ItemKind::Plan, ""),
        Answer::Changed(_) => (
            ItemKind::Approval,
            ": only an approval is approved with changed arguments",
        ),
        _ => (ItemKind::Approval, ""),
    };
    let not = super::of(not).article();
    Error::invalid(format!("tool call {call} is {is}, not {not}{more}")).into()
}
