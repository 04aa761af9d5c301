//! Each kind of pending item in one place (ripgrep's `Flag` pattern): what a person is asked
//! (a question, a plan, an approval, a server's `other` suspension), one file per kind behind
//! one trait — its wording, the line that describes it, the commands that resolve it, its
//! prompt (drawn by the widget in `ui/`), its Mastra route, and what a one-step run's waiter
//! prints of its resolution, and how an answer (`answer::Answer`, neutral, as every frontend
//! gives it) is checked against it (SPEC §5.4). The model-side half of a kind is its tool
//! (`tools/`). `Item` is a pending item itself, owned, local or a server's.
//!
//! A new kind is a variant of `domain::ItemKind`, one arm in `of`, one file here, its tool
//! and its widget. Nothing here finds runs, records a resolution or decides what happens to
//! a run next (`runner` does); nothing here prints except through a `Report`.

pub mod answer;
pub mod approval;
pub mod form;
pub mod input;
mod item;
pub mod other;
pub mod plan;
pub mod question;
mod view;

use anyhow::Result;
use serde_json::Value;

use crate::domain::{ItemKind, Resolution};

pub use answer::{Answer, Checked, Given};
pub use item::Item;
pub use plan::Plans;
pub use view::{describe, ItemView, When};

/// The person-side behaviour of one kind of item.
pub trait Kind: Sync {
    /// The kind with its article: `a question`, `an approval`.
    fn article(&self) -> &'static str;

    /// The subcommands that resolve it, the main one first (`approve`, `decline`).
    fn verbs(&self) -> &'static [&'static str];

    /// The title of the picker when several such items wait.
    fn picker_title(&self) -> &'static str;

    /// `answer`/`review` at a terminal with no item named, when none of this kind waits.
    fn nothing_pending(&self) -> &'static str;

    /// What a finished run has nothing waiting for: `run R is completed: nothing waits for
    /// review`.
    fn waits_for(&self) -> &'static str {
        self.command()
    }

    /// One line about an item of this kind, after its id, appended to `out`:
    /// `question: Go? [yes | no]` (sanitized).
    fn describe(&self, item: &ItemView, out: &mut String);

    /// The commands that resolve the item, the main one first.
    fn commands(&self, item: &ItemView) -> Vec<Verb>;

    /// Asks the person at the terminal about a pending item.
    fn prompt(&self, asked: &Asked) -> Result<Prompted>;

    /// `answer` checked against `item` (SPEC §5.4, §14.1): what is recorded, or why it
    /// does not fit (nothing is recorded then).
    fn check(&self, item: &Item, answer: Answer, given: &Given) -> Result<Checked>;

    /// What `item` asks, in a few words (the inbox's line, a completion's description).
    fn headline(&self, item: &ItemView) -> form::Headline;

    /// What a person fills in to decide `item` (serve's page, and every form after it).
    fn form(&self, item: &Item) -> form::Form;

    /// How a Mastra server is answered with this resume data (SPEC §12): `resume-stream`
    /// with it, unless the kind has routes of its own (an approval) or sends less (a plan's
    /// rejection).
    fn route(&self, resume_data: &Value) -> crate::remote::Answer {
        crate::remote::Answer::Resume(resume_data.clone())
    }

    /// The lines the waiter of a one-step run (`ask`, `plan`) prints on stdout once its item
    /// was resolved with `answer` (SPEC §5.3).
    fn outcome(&self, _answer: &Value) -> Vec<String> {
        Vec::new()
    }

    /// The subcommand that resolves it (for an approval, the one that lets it run).
    fn command(&self) -> &'static str {
        self.verbs()[0]
    }

    /// The subcommands for a hint: `answer`, `approve (or decline)`.
    fn commands_hint(&self) -> String {
        match self.verbs() {
            [first, rest @ ..] if !rest.is_empty() => format!("{first} (or {})", rest.join(", ")),
            _ => self.command().to_string(),
        }
    }

    /// `use: PROGRAM approve RUN, or PROGRAM decline RUN`.
    fn use_hint(&self, program: &str, run: &str) -> String {
        let each: Vec<String> = self
            .verbs()
            .iter()
            .map(|verb| format!("{program} {verb} {run}"))
            .collect();
        format!("use: {}", each.join(", or "))
    }
}

/// The kind's behaviour.
pub fn of(kind: ItemKind) -> &'static dyn Kind {
    match kind {
        ItemKind::Question => &question::QuestionItem,
        ItemKind::Plan => &plan::PlanItem,
        ItemKind::Approval => &approval::ApprovalItem,
        ItemKind::Other => &other::OtherItem,
    }
}

/// One command that resolves an item: the subcommand, its flags (whole, with placeholders
/// for their values) and the positional placeholder after RUN.
pub struct Verb {
    pub verb: &'static str,
    pub flags: &'static [&'static str],
    pub value: Option<&'static str>,
}

impl Verb {
    pub const fn new(
        verb: &'static str,
        flags: &'static [&'static str],
        value: Option<&'static str>,
    ) -> Verb {
        Verb { verb, flags, value }
    }
}

/// A pending item that a person is asked about.
pub struct Asked<'a> {
    pub item: &'a Item,
    /// Who resolves it.
    pub by: &'a str,
    /// Where a plan item's plan is shown from.
    pub plans: &'a dyn Plans,
}

/// What a person did at a prompt.
pub enum Prompted {
    Resolved(Resolution),
    /// Esc, `q` or Ctrl-C: nothing is recorded and the item still waits.
    Left,
    /// "Leave it for later" (an approval): nothing is recorded, the item still waits, and
    /// this sitting stops prompting.
    Later,
    /// No prompt can answer it (a server's custom suspension wants JSON of its own shape).
    Unanswerable,
}

/// An item whose payload is not what its kind needs.
fn unreadable(call_id: &str, what: &str) -> anyhow::Error {
    crate::error::Error::invalid(format!(
        "tool call {} has no readable {what}",
        crate::output::format::shell_quote(call_id)
    ))
    .into()
}
