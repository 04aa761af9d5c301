//! How a pending item is shown: one line about it, the commands that resolve it, and its
//! JSON line (`pending -o json`, the `--on-suspend` hook's stdin).

use anyhow::Result;
use serde_json::{json, Value};

use super::Ctx;
use crate::domain::CallRecord;
use crate::error::Error;
use crate::output::{format, sanitize};
use crate::store::PendingItem;
use crate::tools::ask_user::{Mode, Question};
use crate::tools::submit_plan::Plan;

/// The question a pending `ask_user` item asks.
pub fn question_of(call: &CallRecord) -> Result<Question> {
    call.payload
        .as_ref()
        .and_then(Question::from_payload)
        .ok_or_else(|| unreadable(call, "question"))
}

/// The plan a pending `submit_plan` item submitted.
pub fn plan_of(call: &CallRecord) -> Result<Plan> {
    call.payload
        .as_ref()
        .and_then(Plan::from_payload)
        .ok_or_else(|| unreadable(call, "plan"))
}

fn unreadable(call: &CallRecord, what: &str) -> anyhow::Error {
    Error::invalid(format!(
        "tool call {} has no readable {what}",
        sanitize::one_line(&call.call_id)
    ))
    .into()
}

/// One line about an item: its id, kind and question or plan title (sanitized).
pub fn describe(call: &CallRecord) -> String {
    let payload = call.payload.clone().unwrap_or_default();
    let id = sanitize::one_line(&call.call_id);
    if let Some(q) = call
        .is_question()
        .then(|| Question::from_payload(&payload))
        .flatten()
    {
        let mut line = format!("{id} question: {}", sanitize::one_line(&q.text));
        if !q.options.is_empty() {
            let labels: Vec<String> = q.labels().iter().map(|l| sanitize::one_line(l)).collect();
            let multi = if q.mode == Mode::Multi {
                " (choose one or more)"
            } else {
                ""
            };
            line.push_str(&format!(" [{}]{multi}", labels.join(" | ")));
        }
        return line;
    }
    let title = payload["title"].as_str().unwrap_or_default();
    let path = payload["path"].as_str().unwrap_or_default();
    format!(
        "{id} plan: {} ({})",
        sanitize::one_line(if title.is_empty() {
            "(untitled)"
        } else {
            title
        }),
        sanitize::one_line(path)
    )
}

/// The commands that resolve an item; the first is the main one. Every value is
/// shell-quoted (escaped when it holds control or invisible characters) and written so
/// that it parses as a value even when it starts with `-`: pasted, it does what it says.
pub fn commands_for(ctx: &Ctx, item: &PendingItem) -> Vec<String> {
    let call = &item.call;
    let verb = if call.is_question() {
        "answer"
    } else {
        "review"
    };
    let tool_call = (item.pending_in_run > 1).then(|| format::flag("--tool-call", &call.call_id));
    // `flags` are whole flags (with placeholders for their values); `value` is the
    // positional placeholder after RUN.
    let command = |flags: &[&str], value: Option<&str>| {
        let run = format::shell_quote(&call.run_id);
        let mut words = vec![ctx.program(), verb.to_string()];
        // A run id that looks like a flag goes after `--`, with every flag before it.
        let dashed = call.run_id.starts_with('-');
        if !dashed {
            words.push(run.clone());
        }
        words.extend(tool_call.clone());
        words.extend(flags.iter().map(|f| f.to_string()));
        if dashed {
            words.push(format!("-- {run}"));
        }
        words.extend(value.map(str::to_string));
        words.join(" ")
    };
    if !call.is_question() {
        return vec![
            command(&["--approve"], None),
            command(&["--reject", "--feedback <feedback>"], None),
        ];
    }
    let mode = call
        .payload
        .as_ref()
        .and_then(Question::from_payload)
        .map(|q| q.mode)
        .unwrap_or(Mode::FreeText);
    vec![match mode {
        Mode::FreeText => command(&[], Some("<answer>")),
        Mode::Single => command(&[], Some("<label>")),
        Mode::Multi => command(&["--multi <label>..."], None),
    }]
}

/// The item's kind as `pending` shows it.
pub fn kind_of(call: &CallRecord) -> &'static str {
    if call.is_question() {
        "question"
    } else {
        "plan"
    }
}

/// The item as one JSON object.
pub fn item_json(ctx: &Ctx, item: &PendingItem) -> Value {
    let call = &item.call;
    json!({
        "runId": call.run_id,
        "toolCallId": call.call_id,
        "toolName": call.tool_name,
        "kind": kind_of(call),
        "args": call.args,
        "suspendPayload": call.payload,
        "agentId": item.agent_id,
        "suspendedAt": format::time(call.created_at),
        "expiresAt": call.expires_at.map(format::time),
        "command": commands_for(ctx, item).first(),
    })
}
