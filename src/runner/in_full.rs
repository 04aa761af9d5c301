//! A run in full, as `show` gives it: status, transcript, items with who resolved them and
//! how, events — as readable lines for a person (never raw JSON, SPEC §5) and as one JSON
//! object. Reading it changes nothing.

use anyhow::Result;
use serde_json::{json, Value};

use super::end::summary;
use crate::domain::review::DecisionRecord;
use crate::domain::{CallRecord, CallState, Message, RunStatus, StoredEvent};
use crate::items::describe;
use crate::output::{envelope, format, sanitize};
use crate::policy::gate::decisions_json;
use crate::policy::ItemGate;
use crate::providers::NO_MODEL;
use crate::report::Report;
use crate::store::{DrivenBy, Run, Store};

/// Everything `show` shows of a run.
pub struct InFull {
    run: Run,
    messages: Vec<Message>,
    calls: Vec<CallRecord>,
    events: Vec<StoredEvent>,
    /// Decisions made under the run's policy (SPEC §14).
    decisions: Vec<DecisionRecord>,
}

impl InFull {
    pub fn read(store: &dyn Store, run: Run) -> Result<InFull> {
        Ok(InFull {
            messages: store.messages(&run.id)?,
            calls: store.calls(&run.id)?,
            events: store.events(&run.id)?,
            decisions: store.decisions(&run.id)?,
            run,
        })
    }

    /// Reports it: one JSON object, or its lines.
    pub fn report(&self, report: &dyn Report) {
        if report.json() {
            report.json_line(&as_json(self));
        } else {
            header(report, &self.run, plan_rejected(&self.run, &self.calls));
            transcript(report, &self.messages);
            items(report, &self.run, &self.calls, &self.decisions);
            started(report, &self.calls);
            events(report, &self.events);
        }
    }
}

/// The run as one JSON object: the `runs` fields, its messages, items and events.
fn as_json(shown: &InFull) -> Value {
    let InFull {
        run,
        messages,
        calls,
        events,
        decisions,
    } = shown;
    let mut v = summary(run);
    v["cwd"] = json!(run.cwd);
    v["output"] = json!(run.output);
    v["error"] = json!(run.error);
    v["usage"] = json!(run.usage);
    v["agent"] = run.agent.clone();
    v["messages"] = json!(messages);
    v["suspensions"] = calls
        .iter()
        .filter(|c| c.is_item())
        .map(|c| item_json(c, ItemGate::of(run, c, decisions)))
        .collect();
    if let Some(policy) = &run.gate.policy {
        v["policy"] = json!(policy);
        v["startedBy"] = json!(run.gate.started_by.as_ref().map(|s| s.to_string()));
        v["decisions"] = decisions_json(decisions);
    }
    v["toolsStarted"] = calls
        .iter()
        .filter(|c| c.state == CallState::Running)
        .map(started_json)
        .collect();
    v["events"] = events.iter().map(|e| envelope(&run.id, &e.event)).collect();
    v
}

/// A run's status as text listings show it (`runs`, `show`): a running run that no process
/// drives was answered elsewhere and waits for its waiter or its host to go on (SPEC §5.3);
/// it says so, not a bare `running`.
pub fn status_words(run: &Run) -> String {
    if run.status != RunStatus::Running || run.lease.is_some() {
        return run.status.as_str().to_string();
    }
    match run.host.as_deref() {
        _ if run.driven_by() == DrivenBy::Nobody => {
            "answered, waiting for `claude -p --resume`".into()
        }
        Some(host) if !super::advance::on_own_host(run) => {
            // A machine id is long; its start tells hosts apart.
            let short: String = host.chars().take(12).collect();
            format!("answered, waiting for host {}", sanitize::one_line(&short))
        }
        _ => "answered, waiting for its waiter".to_string(),
    }
}

/// Whether a run is a `plan` run that completed with its plan rejected (`plan --wait` exits
/// 5 for it), which text listings show as rejected rather than a bare completed.
pub fn plan_rejected(run: &Run, calls: &[CallRecord]) -> bool {
    run.status == RunStatus::Completed
        && run.agent_id == "plan"
        && run.agent["model"] == NO_MODEL
        && calls.iter().any(|c| {
            c.resume_data
                .as_ref()
                .is_some_and(|d| d["action"] == "rejected")
        })
}

fn header(out: &dyn Report, run: &Run, plan_rejected: bool) {
    let field = |name: &str, value: &str| out.line(&format!("{name:<9}{value}"));
    field("run", &run.id);
    field("agent", &sanitize::one_line(&run.agent_id));
    field(
        "model",
        &sanitize::one_line(run.agent["model"].as_str().unwrap_or_default()),
    );
    match plan_rejected {
        true => field("status", "completed (plan rejected)"),
        false => field("status", &status_words(run)),
    }
    field("cwd", &sanitize::one_line(&run.cwd));
    field("created", &format::time(run.created_at));
    field("updated", &format::time(run.updated_at));
    field(
        "usage",
        &format!(
            "{} in, {} out",
            run.usage.input_tokens, run.usage.output_tokens
        ),
    );
    if let Some(reason) = &run.finish_reason {
        field("finish", reason);
    }
    if let Some(e) = &run.error {
        field("error", &sanitize::one_line(e));
    }
}

fn transcript(out: &dyn Report, messages: &[Message]) {
    out.line("");
    out.line("transcript");
    for m in messages {
        match m {
            Message::User { content } => {
                out.line(&format!("  user: {}", sanitize::one_line(content)))
            }
            Message::Assistant {
                content,
                tool_calls,
            } => {
                if let Some(c) = content {
                    out.line(&format!("  assistant: {}", sanitize::one_line(c)));
                }
                for c in tool_calls {
                    out.line(&format!(
                        "  assistant calls {} ({}): {}",
                        sanitize::one_line(&c.name),
                        sanitize::one_line(&c.id),
                        sanitize::one_line(
                            &c.invalid_args.clone().unwrap_or_else(|| c.args.to_string())
                        )
                    ));
                }
            }
            Message::Tool {
                tool_call_id,
                tool_name,
                content,
            } => out.line(&format!(
                "  {} ({}) returned: {}",
                sanitize::one_line(tool_name),
                sanitize::one_line(tool_call_id),
                sanitize::one_line(content)
            )),
        }
    }
}

/// The pending items of the run's steps and who resolved them, when and how.
fn items(out: &dyn Report, run: &Run, calls: &[CallRecord], decisions: &[DecisionRecord]) {
    let items: Vec<&CallRecord> = calls.iter().filter(|c| c.is_item()).collect();
    if !items.is_empty() {
        out.line("");
        out.line("items");
        for c in items {
            out.line(&format!("  {}", describe(c)));
            let state = match (&c.resolved_by, c.resolved_at) {
                (Some(by), Some(at)) => format!(
                    "{} by {}{} via {} at {}: {}",
                    c.state.as_str(),
                    sanitize::one_line(by),
                    claims(c),
                    c.resolved_via.as_deref().unwrap_or("?"),
                    format::time(at),
                    sanitize::one_line(&c.resume_data.clone().unwrap_or(Value::Null).to_string())
                ),
                _ => format!("{} since {}", c.state.as_str(), format::time(c.created_at)),
            };
            out.line(&format!("    {state}"));
            if let Some(gate) = ItemGate::of(run, c, decisions) {
                for line in gate.lines(c.state == CallState::Pending) {
                    out.line(&format!("    {}", sanitize::one_line(&line)));
                }
            }
            if let Some(args) = &c.approved_args {
                out.line(&format!(
                    "    approved with changes: {} (proposed: {})",
                    sanitize::one_line(&args.to_string()),
                    sanitize::one_line(&c.args.to_string())
                ));
            }
            if let Some(p) = c.process.as_ref().filter(|_| c.approved() == Some(true)) {
                out.line(&format!(
                    "    tool started at {} (process group {} on host {})",
                    format::time(p.started_at),
                    p.pgid,
                    sanitize::one_line(&p.host)
                ));
                if let Some(r) = &c.result {
                    out.line(&format!("    tool ran; it gave: {}", shown_result(r)));
                }
            }
        }
    }
}

/// " (claims NAME)" when the store recorded who the session is as who resolved the item,
/// in place of the name typed with `--as` (SPEC §14), else nothing.
fn claims(c: &CallRecord) -> String {
    c.claim
        .as_deref()
        .map(|claim| format!(" (claims {})", sanitize::one_line(claim)))
        .unwrap_or_default()
}

/// The command tools a driver started for a step it never stored: still running (or
/// their driver died), or, in a cancelled run, what they gave.
fn started(out: &dyn Report, calls: &[CallRecord]) {
    let started: Vec<&CallRecord> = calls
        .iter()
        .filter(|c| c.state == CallState::Running)
        .collect();
    if started.is_empty() {
        return;
    }
    out.line("");
    out.line("tools started for a step not stored");
    for c in started {
        let at = c.process.as_ref().map_or_else(String::new, |p| {
            format!(
                " at {} (process group {} on host {})",
                format::time(p.started_at),
                p.pgid,
                sanitize::one_line(&p.host)
            )
        });
        out.line(&format!(
            "  {} ({}) started{at}: {}",
            sanitize::one_line(&c.tool_name),
            sanitize::one_line(&c.call_id),
            sanitize::one_line(&c.args.to_string())
        ));
        match &c.result {
            Some(r) => out.line(&format!(
                "    tool ran; its result never reached the model: {}",
                shown_result(r)
            )),
            None => out.line("    no result stored"),
        }
    }
}

/// A stored result on one line: a string as it is, anything else as JSON.
fn shown_result(r: &Value) -> String {
    match r {
        Value::String(s) => sanitize::one_line(s),
        other => sanitize::one_line(&other.to_string()),
    }
}

fn events(out: &dyn Report, events: &[StoredEvent]) {
    out.line("");
    out.line("events");
    for line in crate::output::events::lines(events) {
        out.line(&format!("  {line}"));
    }
}

fn started_json(c: &CallRecord) -> Value {
    json!({
        "toolCallId": c.call_id,
        "toolName": c.tool_name,
        "args": c.args,
        "startedAt": c.process.as_ref().map(|p| format::time(p.started_at)),
        "result": c.result,
        "error": c.error,
    })
}

fn item_json(c: &CallRecord, gate: Option<ItemGate>) -> Value {
    let mut v = json!({
        "toolCallId": c.call_id,
        "toolName": c.tool_name,
        "kind": c.kind().noun(),
        "args": c.args,
        "state": c.state.as_str(),
        "suspendPayload": c.payload(),
        "suspendedAt": format::time(c.created_at),
        "resumeData": c.resume_data,
        "result": c.result,
        "resolvedBy": c.resolved_by,
        "resolvedVia": c.resolved_via,
        "resolvedAt": c.resolved_at.map(format::time),
    });
    if let Some(args) = &c.approved_args {
        v["approvedArgs"] = args.clone();
    }
    if let Some(claim) = &c.claim {
        v["claim"] = json!(claim);
    }
    if let Some(gate) = gate {
        v["policy"] = gate.policy_json();
        v["decisions"] = gate.decisions_json();
    }
    v
}
