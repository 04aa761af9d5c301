//! How a pending item is shown: one line about it, the commands that resolve it, and its
//! JSON line (`pending -o json`, the `--on-suspend` hook's stdin).

use anyhow::Result;
use serde_json::{json, Value};

use super::Ctx;
use crate::domain::{CallRecord, ItemKind, Resolution};
use crate::error::Error;
use crate::output::{format, sanitize};
use crate::store::{PendingItem, Store};
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
    if let Some(q) = (call.kind() == ItemKind::Question)
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

/// The commands that resolve an item; the first is the main one.
pub fn commands_for(ctx: &Ctx, item: &PendingItem) -> Vec<String> {
    let call = &item.call;
    let mut base = format!(
        "{} {} {}",
        ctx.program(),
        call.kind().command(),
        call.run_id
    );
    if item.pending_in_run > 1 {
        base.push_str(&format!(
            " --tool-call {}",
            format::shell_quote(&call.call_id)
        ));
    }
    if call.kind() == ItemKind::Plan {
        return vec![
            format!("{base} --approve"),
            format!("{base} --reject --feedback <feedback>"),
        ];
    }
    let mode = call
        .payload
        .as_ref()
        .and_then(Question::from_payload)
        .map(|q| q.mode)
        .unwrap_or(Mode::FreeText);
    vec![match mode {
        Mode::FreeText => format!("{base} <answer>"),
        Mode::Single => format!("{base} <label>"),
        Mode::Multi => format!("{base} --multi <label>..."),
    }]
}

/// The item as one JSON object.
pub fn item_json(ctx: &Ctx, item: &PendingItem) -> Value {
    let call = &item.call;
    json!({
        "runId": call.run_id,
        "toolCallId": call.call_id,
        "toolName": call.tool_name,
        "kind": call.kind().noun(),
        "args": call.args,
        "suspendPayload": call.payload,
        "agentId": item.agent_id,
        "suspendedAt": format::time(call.created_at),
        "expiresAt": call.expires_at.map(format::time),
        "command": commands_for(ctx, item).first(),
    })
}

/// Tells on stderr what a suspended run waits for and the commands that answer it.
pub fn announce(ctx: &Ctx, store: &dyn Store, run_id: &str) -> Result<()> {
    let items = store.pending(Some(run_id))?;
    ctx.out.info(&format!(
        "run {run_id} is waiting for input ({} pending):",
        items.len()
    ));
    for item in &items {
        ctx.out.info(&format!("  {}", describe(&item.call)));
        for command in commands_for(ctx, item) {
            ctx.out.info(&format!("    {command}"));
        }
    }
    Ok(())
}

/// One line about an item just resolved: its id, kind, and what was decided.
pub fn resolved_line(call: &CallRecord, resolution: &Resolution) -> String {
    let what = match &resolution.resume_data {
        Value::String(s) => format!("{s:?}"),
        Value::Array(labels) => labels
            .iter()
            .map(|l| format!("{:?}", l.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(", "),
        other if other["action"].is_string() => {
            other["action"].as_str().unwrap_or_default().to_string()
        }
        other => other.to_string(),
    };
    format!(
        "{} ({}) {}",
        sanitize::one_line(&call.call_id),
        call.kind().noun(),
        sanitize::one_line(&what)
    )
}
