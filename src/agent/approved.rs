//! The start of a leg that resumes a step whose calls were approved (SPEC §11): approving
//! only stores the decision, so the driver of the next leg runs each approved tool first,
//! records where it runs before waiting for it and its result once it ends, then appends
//! the step's results in one transaction (the same results a resolution appends when no
//! tool waits), all before the model is called.
//!
//! A tool that a driver started and then died with is found by its recorded process group
//! (`started`): it is waited for (up to its timeout from when it started, then its group is
//! killed) before the tool runs again, and it runs again only when no result was stored;
//! side effects are therefore at least once. Nothing here prints or talks to a model.
//!
//! An approved tool runs only with the arguments approved (SPEC §14.1): those of the
//! digest its decision recorded (the model's, or the person's changes); arguments that do
//! not match it, or an approval that recorded no digest, are a tool error and the tool does
//! not run. Items closed at their deadline
//! under `--on-expiry decline|reject` get their results here too (`tools::expired`).

use anyhow::Result;
use serde_json::json;

use super::started::{process_of, stored, wait_for_earlier};
use crate::domain::review::digest;
use crate::domain::{CallRecord, CallState, Message, Sink, ToolCall, ToolOutcome};
use crate::store::{DrivenBy, Lease, Run, Store};
use crate::tools::{expired, Toolbox};

/// What became of the run's last step.
pub enum Open {
    /// It was not left open: nothing to do.
    Untouched,
    /// Its approved tools ran and its results are stored.
    Finished,
    /// The run was cancelled or taken over meanwhile.
    LostLease,
}

/// Finishes the run's last step if it was left open (every item resolved, results not yet
/// appended: the history ends with the step's assistant message and its calls). `history`
/// and `calls` are the run's, read under the lease.
pub fn finish_step(
    store: &dyn Store,
    run: &Run,
    lease: &Lease,
    toolbox: &Toolbox,
    history: &[Message],
    calls: &[CallRecord],
    sink: &mut dyn Sink,
) -> Result<Open> {
    // Only a step whose results were left to this leg ends the history with its calls: the
    // common leg looks no further.
    match history.last() {
        Some(Message::Assistant { tool_calls, .. }) if !tool_calls.is_empty() => {}
        _ => return Ok(Open::Untouched),
    }
    let messages = history.len();
    let Some(step) = calls.iter().map(|c| c.step).max() else {
        return Ok(Open::Untouched);
    };
    // The step's assistant message is the last message: no result follows it yet.
    if usize::try_from(step + 1).ok() != Some(messages) {
        return Ok(Open::Untouched);
    }
    let calls: Vec<&CallRecord> = calls.iter().filter(|c| c.step == step).collect();
    // Expired items end a step only where the run declared that it goes on past them.
    let closed = |c: &CallRecord| match c.state {
        CallState::Done | CallState::Resolved => true,
        CallState::Expired => run.gate.on_expiry.goes_on(),
        _ => false,
    };
    if !calls.iter().copied().all(closed) {
        return Ok(Open::Untouched);
    }
    for call in calls.iter().filter(|c| c.left_to_driver()) {
        let done = if call.waits_to_run() {
            run_approved(store, run, lease, toolbox, call)?
        } else {
            store.finish_tool(&run.id, lease, &call.call_id, &expired::result(call), None)?
        };
        if !done {
            return Ok(Open::LostLease);
        }
    }
    let Some(events) = store.finish_step(&run.id, lease, step)? else {
        return Ok(Open::LostLease);
    };
    for e in &events {
        sink.event(&run.id, &e.event);
    }
    Ok(Open::Finished)
}

/// Runs one approved call's tool and stores its result; false when the lease was lost.
fn run_approved(
    store: &dyn Store,
    run: &Run,
    lease: &Lease,
    toolbox: &Toolbox,
    record: &CallRecord,
) -> Result<bool> {
    let call = ToolCall {
        id: record.call_id.clone(),
        name: record.tool_name.clone(),
        args: record.args_to_run().clone(),
        invalid_args: None,
    };
    let outcome = match toolbox.command(&call.name) {
        Some(_) if !approved_as_shown(record) => ToolOutcome::Error(json!({
            "name": "ApprovalMismatchError",
            "message": format!(
                "Tool \"{}\" was not run: its arguments are not the ones that were approved",
                call.name
            ),
        })),
        Some(tool) => {
            if let Some(earlier) = &record.process {
                wait_for_earlier(earlier, tool.timeout());
            }
            let mut recorded: Result<bool> = Ok(true);
            let outcome = toolbox.run(tool, &call, &mut |group| {
                let process = process_of(group);
                recorded = store
                    .start_tool(&run.id, lease, &call.id, &process)
                    .map_err(Into::into);
                matches!(recorded, Ok(true))
            });
            if !recorded? {
                return Ok(false);
            }
            outcome
        }
        // The stored agent has no such command tool (it was edited by hand).
        None => ToolOutcome::Error(json!({
            "name": "ToolNotFoundError",
            "message": format!("Tool \"{}\" is not a command tool of this agent", call.name),
        })),
    };
    let (result, error) = stored(outcome);
    Ok(store.finish_tool(&run.id, lease, &call.id, &result, error.as_ref())?)
}

/// Whether the arguments an approved call would run with are those its approval recorded
/// the digest of. An approval with no digest is refused (it fails closed): every approval
/// records one, so a call resolved without is one the program did not approve.
pub fn approved_as_shown(record: &CallRecord) -> bool {
    record
        .approved_digest()
        .is_some_and(|d| d == digest(&record.tool_name, record.args_to_run()))
}

/// Checks arguments a person approves in place of the model's (`approve --args`, SPEC
/// §14.1) against the tool's input schema, before anything is stored: the problems, one
/// line, when they do not fit, or when the run's agent has no such command tool.
pub fn check_changed_args(run: &Run, tool: &str, args: &serde_json::Value) -> Result<(), String> {
    // A Claude Code session's or run's tools are Claude Code's, which checks their input.
    if run.driven_by() != DrivenBy::Loop {
        if args.is_object() {
            return Ok(());
        }
        return Err(format!("{tool}'s input is a JSON object"));
    }
    let def = super::AgentDef::of_run(run).map_err(|e| e.to_string())?;
    let entry = def.tools.iter().find_map(|t| match t {
        crate::tools::ToolEntry::Command(c) if c.name == tool => Some(c),
        _ => None,
    });
    let Some(command) = entry else {
        return Err(format!("run {} has no command tool {tool}", run.id));
    };
    command
        .validate(args)
        .map_err(|invalid| crate::tools::problems(&invalid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A run whose agent has the command tool `deploy` (`target`: "staging" or "prod").
    fn run_with_deploy() -> Run {
        let agent = json!({
            "id": "a", "instructions": "", "model": "script:s",
            "tools": [{"name": "deploy", "description": "d", "command": ["/bin/true"],
                "requireApproval": true,
                "inputSchema": {"type": "object", "required": ["target"],
                    "properties": {"target": {"enum": ["staging", "prod"]}},
                    "additionalProperties": false}}]
        });
        Run {
            agent,
            ..Run::sample()
        }
    }

    #[test]
    fn changed_arguments_are_checked_against_the_tool_s_schema() {
        let run = run_with_deploy();
        assert_eq!(
            check_changed_args(&run, "deploy", &json!({"target": "staging"})),
            Ok(())
        );
        let e = check_changed_args(&run, "deploy", &json!({"target": "moon"})).unwrap_err();
        assert!(e.starts_with("target: "), "{e}");
        let e = check_changed_args(&run, "deploy", &json!({"target": "prod", "force": true}))
            .unwrap_err();
        assert!(e.contains("force"), "{e}");
        assert_eq!(
            check_changed_args(&run, "ask_user", &json!({})),
            Err("run r has no command tool ask_user".to_string())
        );
    }

    #[test]
    fn only_the_approved_arguments_run() {
        let mut call = crate::domain::CallRecord {
            run_id: "r".into(),
            call_id: "c".into(),
            seq: 0,
            step: 1,
            tool_name: "deploy".into(),
            args: json!({"target": "prod"}),
            state: CallState::Resolved,
            kind: Some(crate::domain::ItemKind::Approval),
            payload: crate::domain::Payload::None,
            result: None,
            error: None,
            resume_data: Some(json!({"approved": true})),
            resolved_by: None,
            claim: None,
            resolved_via: None,
            resolved_at: None,
            expires_at: None,
            created_at: 0,
            process: None,
            approved_args: None,
            digest: Some(digest("deploy", &json!({"target": "prod"}))),
        };
        assert!(approved_as_shown(&call));
        call.args = json!({"target": "staging"});
        assert!(
            !approved_as_shown(&call),
            "arguments changed after the approval"
        );
        call.approved_args = Some(json!({"target": "staging"}));
        assert!(!approved_as_shown(&call), "changes nobody approved");
        call.digest = Some(digest("deploy", &json!({"target": "staging"})));
        assert!(approved_as_shown(&call));
        call.digest = None;
        assert!(
            !approved_as_shown(&call),
            "an approval that recorded no digest"
        );
    }
}
