//! Who may answer (SPEC §14), as the frontends see it: the review flags of `run`, `ask` and
//! `plan` turned into what the store resolves at the run's start (`start`), the lines and
//! JSON that show an item's policy and its decisions so far (`gate`), and the escalation
//! hook a waiter or `serve` runs once per item (`escalate`).
//!
//! The rules themselves are judged in the store's transition, never here: this module only
//! asks for a policy and shows one. No SQL here.

pub mod escalate;
pub mod gate;
pub mod start;

pub use gate::ItemGate;
pub use start::{refuse_with_server, run_review};

use std::collections::HashSet;

use serde_json::Value;

/// What a process brings to its decisions and its wait beyond each resolution.
#[derive(Debug, Default)]
pub struct Deciding {
    /// A name was typed with `--as`: a claim, refused under a policy.
    pub claimed: bool,
    /// `approve --args`: the arguments approved in place of the proposed ones (checked
    /// against the tool's schema), for the first item this process decides.
    pub args: Option<Value>,
    /// A waiter's `--on-escalate CMD`.
    pub on_escalate: Option<String>,
    /// The items this process escalated, or saw escalated.
    pub escalated: HashSet<(String, String)>,
}

/// What `answer` and `review` bring: whether `--as` was typed.
pub fn claim(item: &crate::cli::ItemArgs) -> Deciding {
    Deciding {
        claimed: item.as_.is_some(),
        ..Deciding::default()
    }
}
