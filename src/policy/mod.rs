//! Who may answer (SPEC §14), as the frontends see it: the lines and JSON that show an item's policy and its decisions so far (`gate`). (The escalation hook a
//! waiter or `serve` runs once per item is the run layer's: `runner::escalate`.)
//!
//! The rules themselves are judged in the store's transition, never here: this module only
//! asks for a policy and shows one. No SQL here.

pub mod gate;

pub use gate::ItemGate;

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

impl Deciding {
    /// A deciding command's: whether a name was typed with `--as` (`claimed`).
    pub fn claiming(claimed: bool) -> Deciding {
        Deciding {
            claimed,
            ..Deciding::default()
        }
    }
}
