//! What the model receives for an item closed at its deadline under `--on-expiry
//! decline|reject` (SPEC §14): an approval declined, a plan rejected, a question left
//! unanswered, each saying that it expired. Never an approval and never an answer. The
//! driver stores these before the model is called (`agent::approved`); nothing here
//! touches the store.

use serde_json::{json, Value};

use super::submit_plan::{self, Plan};
use crate::domain::{CallRecord, ItemKind};

/// What the model receives for a declined approval that expired.
pub const DECLINED: &str =
    "Tool call was not approved: no decision came before the deadline (expired)";

/// The result of `call`, an item that expired with a declared outcome.
pub fn result(call: &CallRecord) -> Value {
    match call.kind() {
        ItemKind::Approval => json!(DECLINED),
        ItemKind::Plan => {
            let plan = call
                .payload()
                .and_then(Plan::from_payload)
                .unwrap_or_else(|| Plan {
                    path: String::new(),
                    title: String::new(),
                    plan: String::new(),
                });
            let mut result = submit_plan::Decision::Rejected { feedback: None }.result(&plan);
            result["content"] = json!(
                "Plan rejected: no decision came before the deadline (expired). Do not revise \
                 the plan yet: stop here and wait for the user's next message."
            );
            result
        }
        ItemKind::Question | ItemKind::Other => json!({
            "content": "The user did not answer before the deadline (expired).",
            "isError": true,
        }),
    }
}
