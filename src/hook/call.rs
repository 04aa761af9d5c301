//! What one Claude Code tool call becomes in this store, and what its items' decisions tell
//! Claude Code (SPEC §15): an `AskUserQuestion` call is one question item per question
//! (ids `TOOL_USE_ID/1`..`/4`, checked as `ask_user` checks its own), `ExitPlanMode` a plan,
//! any other tool an approval of that tool and its input. The items go through the step
//! function as a model's calls would; the decisions are read from the stored calls, never
//! made here.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::wire::{Answer, Input};
use crate::agent::approved::approved_as_shown;
use crate::agent::step::{step, StepContext};
use crate::domain::{CallRecord, CallState, ItemKind, StepCommit, ToolOutcome};
use crate::providers::{ModelCall, Response};
use crate::tools::{ask_user, problems, submit_plan};

/// Claude Code's tool that asks the person questions.
pub const ASK_USER_QUESTION: &str = "AskUserQuestion";
/// Claude Code's tool that ends plan mode with a plan.
pub const EXIT_PLAN_MODE: &str = "ExitPlanMode";

/// What a plan item says when Claude Code's transcript names no plan file.
const NO_PLAN: &str = "# No plan file found\n\nClaude Code's transcript of this session names no \
    plan file under its plans/ directory, so there is no plan to show. Approving lets Claude \
    Code leave plan mode all the same; rejecting tells it your feedback.\n";
/// The path a plan item shows when there is no plan file.
const NO_PLAN_PATH: &str = "no plan file";

/// One item a call becomes: its id, the tool name and arguments stored, and what it waits
/// for.
struct Planned {
    id: String,
    name: String,
    args: Value,
    outcome: ToolOutcome,
}

/// The items of `input`'s call; `plan` is the plan Claude Code wrote for an `ExitPlanMode`
/// call (its path and text), when one was found. The problem, one line, when the call
/// cannot be an item (a question `ask_user` would refuse).
fn planned(input: &Input, plan: Option<(String, String)>) -> Result<Vec<Planned>, String> {
    let id = &input.tool_use_id;
    match input.tool_name.as_str() {
        ASK_USER_QUESTION => {
            let questions = input.object().get("questions").and_then(Value::as_array);
            let Some(questions) = questions.filter(|q| (1..=4).contains(&q.len())) else {
                return Err("AskUserQuestion's input has no list of 1 to 4 questions".into());
            };
            questions
                .iter()
                .enumerate()
                .map(|(n, q)| {
                    let args = as_ask_user(q);
                    let mut checked = ask_user::question(&args).map_err(|r| {
                        format!("question {} is not one to ask: {}", n + 1, problems(&r))
                    })?;
                    // Claude Code lets its person answer "Other" with free text.
                    checked.other = true;
                    Ok(Planned {
                        id: format!("{id}/{}", n + 1),
                        name: ASK_USER_QUESTION.into(),
                        args,
                        outcome: ToolOutcome::Suspend {
                            kind: ItemKind::Question,
                            payload: checked.payload(),
                            resume_schema: checked.resume_schema(),
                        },
                    })
                })
                .collect()
        }
        EXIT_PLAN_MODE => {
            let (path, text) = plan.unwrap_or_else(|| (NO_PLAN_PATH.into(), NO_PLAN.into()));
            let args = json!({"path": path, "plan": text});
            let payload = submit_plan::Plan::from_text(&path, &text).payload();
            Ok(vec![Planned {
                id: id.clone(),
                name: EXIT_PLAN_MODE.into(),
                args,
                outcome: ToolOutcome::Suspend {
                    kind: ItemKind::Plan,
                    payload,
                    resume_schema: submit_plan::resume_schema(),
                },
            }])
        }
        tool => Ok(vec![Planned {
            id: id.clone(),
            name: tool.to_string(),
            args: input.tool_input.clone(),
            outcome: ToolOutcome::Approval,
        }]),
    }
}

/// A Claude Code question (`{question, header, options: [{label, description}],
/// multiSelect}`) as `ask_user` takes one.
fn as_ask_user(q: &Value) -> Value {
    let options: Vec<Value> = q["options"]
        .as_array()
        .map(|o| {
            o.iter()
                .map(|o| match o.get("description") {
                    Some(d) => json!({"label": o["label"], "description": d}),
                    None => json!({"label": o["label"]}),
                })
                .collect()
        })
        .unwrap_or_default();
    let mode = if q["multiSelect"] == true {
        "multi_select"
    } else {
        "single_select"
    };
    json!({"question": q["question"], "options": options, "selectionMode": mode})
}

/// The step that records `input`'s call: it suspends on the call's items.
pub fn step_of(input: &Input, plan: Option<(String, String)>) -> Result<StepCommit, String> {
    let planned = planned(input, plan)?;
    let response = Response {
        text: None,
        calls: planned
            .iter()
            .map(|p| ModelCall {
                id: Some(p.id.clone()),
                name: p.name.clone(),
                args: Ok(p.args.clone()),
            })
            .collect(),
        usage: Default::default(),
    };
    let tools: Vec<String> = planned.iter().map(|p| p.name.clone()).collect();
    let context = StepContext {
        message_id: &crate::agent::driver::new_message_id(),
        used_ids: &HashSet::new(),
        tools: &tools,
        last_in_budget: false,
        usage_before: Default::default(),
    };
    let mut outcomes = planned.iter().map(|p| p.outcome.clone());
    let commit = step(
        &response,
        &context,
        &mut |_| outcomes.next(),
        &mut crate::agent::driver::new_message_id,
    );
    Ok(commit)
}

/// Whether `calls` (the stored items of one call) are those `input` makes: the same ids,
/// tools and arguments. A plan's text is what was read at the first call, so only its id
/// and tool are compared.
pub fn same_call(calls: &[CallRecord], input: &Input) -> bool {
    let Ok(planned) = planned(input, Some((String::new(), String::new()))) else {
        return false;
    };
    calls.len() == planned.len()
        && calls.iter().zip(&planned).all(|(c, p)| {
            c.call_id == p.id
                && c.tool_name == p.name
                && (c.kind == Some(ItemKind::Plan) || c.args == p.args)
        })
}

/// What the stored items of one call tell Claude Code; `None` while one is pending.
pub fn decided(calls: &[CallRecord], input: &Input) -> Option<Answer> {
    if calls.iter().any(|c| c.state == CallState::Pending) {
        return None;
    }
    if let Some(closed) = calls.iter().find_map(closed) {
        return Some(Answer::Deny(closed));
    }
    let first = calls.first()?;
    Some(match first.kind {
        Some(ItemKind::Question) => {
            let mut answers = serde_json::Map::new();
            for c in calls {
                let question = c.args["question"].as_str().unwrap_or_default();
                answers.insert(question.into(), json!(answer_text(c.resume_data.as_ref())));
            }
            let mut updated = input.tool_input.clone();
            updated["answers"] = Value::Object(answers);
            Answer::Allow(Some(updated))
        }
        Some(ItemKind::Plan) => match first.resume_data.as_ref() {
            Some(r) if r["action"] == "approved" => Answer::Allow(None),
            r => Answer::Deny(rejected(first, r)),
        },
        _ => match first.approved() {
            // Only arguments whose digest the approval recorded run (SPEC §14.1).
            Some(true) if approved_as_shown(first) => Answer::Allow(first.changed_args().cloned()),
            Some(true) => Answer::Deny(format!(
                "the approval of {} does not match the input it would run with",
                first.call_id
            )),
            _ => Answer::Deny(declined(first)),
        },
    })
}

/// Why an item that no decision resolved tells Claude Code no: it expired or was cancelled.
fn closed(c: &CallRecord) -> Option<String> {
    match c.state {
        CallState::Expired => Some(format!(
            "no one decided before the deadline: {} {} expired",
            c.kind.map_or("item", ItemKind::noun),
            c.call_id
        )),
        CallState::Cancelled => Some("the session's run was cancelled in mastra-ask".into()),
        _ => None,
    }
}

/// A question's answer as Claude Code takes it: the label, or the labels comma-separated.
fn answer_text(resume: Option<&Value>) -> String {
    match resume {
        Some(Value::Object(o)) => o["other"].as_str().unwrap_or_default().to_string(),
        Some(Value::Array(labels)) => labels
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

/// What the model reads of a declined call: who declined it, and why when they said.
fn declined(c: &CallRecord) -> String {
    let by = c.resolved_by.as_deref().unwrap_or("a reviewer");
    match c.resume_data.as_ref().and_then(|r| r["reason"].as_str()) {
        Some(reason) => format!("declined by {by}: {reason}"),
        None => format!("declined by {by}"),
    }
}

/// What the model reads of a rejected plan: who rejected it and their feedback.
fn rejected(c: &CallRecord, resume: Option<&Value>) -> String {
    let by = c.resolved_by.as_deref().unwrap_or("a reviewer");
    match resume.and_then(|r| r["feedback"].as_str()) {
        Some(feedback) => format!("the plan was rejected by {by}: {feedback}"),
        None => format!("the plan was rejected by {by}"),
    }
}
