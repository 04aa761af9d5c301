//! In-band answers (SPEC §16): while a call waits out of band, the server also asks in the
//! client's own form (`elicitation/create`, form mode), when the client declared
//! `elicitation` and the server's policy may let its own user decide (none, or one that
//! allows self-approval: the store still judges the decision). An accepted form becomes
//! the item's neutral answer (`items::Answer`) and is recorded through the one door as
//! this process's user, `via` `mcp`; `decline` and `cancel` record nothing. Whichever answer
//! is recorded first wins (the store's guarantee): when the call stops waiting (decided
//! elsewhere, or `--wait` ran out), the open form is cancelled (`notifications/cancelled`)
//! and a late reply is ignored.

use anyhow::{anyhow, Result};
use serde_json::{json, Value};

use crate::domain::{CallRecord, CallState, ItemKind, Via};
use crate::items::{Answer, Item};
use crate::runner::read::Read;
use crate::runner::{Advance, Context, Local, Policy};
use crate::store::{Store, Who};
use crate::tools::ask_user::{Mode, Question};
use crate::tools::submit_plan::Plan;

/// The `elicitation/create` params for `call`, in the form `version` takes; `None` for an
/// item no form can answer.
pub fn request(call: &CallRecord, version: &str) -> Option<Value> {
    let legacy = version == "2025-06-18";
    let (message, properties, required) = match call.kind() {
        ItemKind::Question => {
            let q = Question::from_payload(call.payload()?)?;
            let one = |l: &str| json!({"const": l, "title": l});
            let answer = match q.mode {
                Mode::FreeText => json!({"type": "string", "title": "Answer"}),
                Mode::Single if legacy => {
                    json!({"type": "string", "title": "Answer", "enum": q.labels()})
                }
                Mode::Single => json!({"type": "string", "title": "Answer",
                    "oneOf": q.labels().into_iter().map(one).collect::<Vec<_>>()}),
                Mode::Multi if legacy => json!({"type": "array", "title": "Answer",
                    "items": {"type": "string", "enum": q.labels()}}),
                Mode::Multi => json!({"type": "array", "title": "Answer",
                    "items": {"anyOf": q.labels().into_iter().map(one).collect::<Vec<_>>()}}),
            };
            let mut message = q.text.clone();
            for c in q.options.iter().filter(|c| c.description.is_some()) {
                message.push_str(&format!(
                    "\n- {}: {}",
                    c.label,
                    c.description.as_deref().unwrap_or("")
                ));
            }
            (message, json!({"answer": answer}), json!(["answer"]))
        }
        ItemKind::Plan => {
            let plan = Plan::from_payload(call.payload()?)?;
            let message = format!(
                "Approve this plan ({})?\n\n# {}\n\n{}",
                plan.path, plan.title, plan.plan
            );
            let properties = json!({
                "approve": {"type": "boolean", "title": "Approve the plan"},
                "feedback": {"type": "string", "title": "Feedback, for a rejection"},
            });
            (message, properties, json!(["approve"]))
        }
        ItemKind::Approval => {
            let action = call.args["action"].as_str().unwrap_or_default();
            let mut message = format!("May the agent do this?\n\n{action}");
            if let Some(details) = call.args["details"].as_str() {
                message.push_str(&format!("\n\n{details}"));
            }
            let properties = json!({
                "approve": {"type": "boolean", "title": "Approve"},
                "reason": {"type": "string", "title": "Reason, for a refusal"},
            });
            (message, properties, json!(["approve"]))
        }
        ItemKind::Other => return None,
    };
    let mut params = json!({
        "message": message,
        "requestedSchema": {"type": "object", "properties": properties, "required": required},
    });
    if !legacy {
        params["mode"] = json!("form");
    }
    Some(params)
}

/// The item's answer in an accepted form's `content`, in the kind's own resume shape (the
/// kind checks it).
pub fn answer(kind: ItemKind, content: &Value) -> Answer {
    let text = |key: &str| content[key].as_str().filter(|s| !s.trim().is_empty());
    Answer::Data(match kind {
        ItemKind::Plan => match content["approve"].as_bool() {
            Some(true) => json!({"action": "approved", "feedback": text("feedback")}),
            _ => json!({"action": "rejected", "feedback": text("feedback")}),
        },
        ItemKind::Approval => match text("reason") {
            Some(reason) => {
                json!({"approved": content["approve"] == json!(true), "reason": reason})
            }
            None => json!({"approved": content["approve"] == json!(true)}),
        },
        ItemKind::Question | ItemKind::Other => content["answer"].clone(),
    })
}

/// Records `content`, accepted for the pending item of `run_id`, through the one door as
/// this process's user.
pub fn record(ctx: &Context, store: &dyn Store, run_id: &str, content: &Value) -> Result<()> {
    let run = store
        .run(run_id)?
        .ok_or_else(|| anyhow!("run {run_id} is gone"))?;
    let call = store
        .calls(run_id)?
        .into_iter()
        .find(|c| c.kind.is_some() && c.state == CallState::Pending)
        .ok_or_else(|| anyhow!("run {run_id} has nothing pending"))?;
    let policy = Policy::acting(ctx, false, Who::this_process(None));
    let place = Local::new(ctx, Some(store), &run.id, false).knowing(Read::known(run.clone()));
    let mut advance = Advance::over(ctx, Box::new(place), policy);
    let item = Item::of_call(&run, &call);
    advance.decide(&item, answer(call.kind(), content), Via::Mcp)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(payload: Value, version: &str) -> Value {
        let call = CallRecord {
            kind: Some(ItemKind::Question),
            payload: crate::domain::Payload::Own(payload),
            ..CallRecord::fixture("r", "c", "ask_user", json!({}))
        };
        request(&call, version).unwrap()["requestedSchema"]["properties"]["answer"].clone()
    }

    #[test]
    fn a_single_select_is_one_of_titled_choices_and_for_2025_06_18_an_enum() {
        let payload = json!({"question": "Which?", "options": [{"label": "A"}, {"label": "B"}], "selectionMode": "single_select"});
        assert_eq!(
            question(payload.clone(), "2025-11-25"),
            json!({"type": "string", "title": "Answer", "oneOf": [{"const": "A", "title": "A"}, {"const": "B", "title": "B"}]})
        );
        assert_eq!(
            question(payload, "2025-06-18"),
            json!({"type": "string", "title": "Answer", "enum": ["A", "B"]})
        );
    }

    #[test]
    fn forms_carry_answers_in_each_kinds_own_shape() {
        let Answer::Data(d) = answer(ItemKind::Plan, &json!({"approve": false, "feedback": " "}))
        else {
            panic!()
        };
        assert_eq!(d, json!({"action": "rejected", "feedback": null}));
        let Answer::Data(d) = answer(
            ItemKind::Approval,
            &json!({"approve": false, "reason": "no"}),
        ) else {
            panic!()
        };
        assert_eq!(d, json!({"approved": false, "reason": "no"}));
        let Answer::Data(d) = answer(ItemKind::Question, &json!({"answer": ["A", "B"]})) else {
            panic!()
        };
        assert_eq!(d, json!(["A", "B"]));
    }
}
