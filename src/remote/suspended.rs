//! A pending tool call of a Mastra server, in the shape the rest of the program uses for
//! items (SPEC §7 `pending -o json`: runId, toolCallId, toolName, kind, args,
//! suspendPayload, agentId, suspendedAt, plus server); its kind is `domain::ItemKind`'s rule.
//!
//! Ids are the server's, kept verbatim: escaping and quoting them for a terminal or a shell is
//! the printer's job. Nothing here talks to the server.

use serde::Serialize;
use serde_json::Value;

use super::wire;
use crate::domain::ItemKind;

/// One suspended tool call of a server run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuspendedCall {
    pub run_id: String,
    pub tool_call_id: String,
    pub tool_name: String,
    pub kind: ItemKind,
    /// The call's arguments; Mastra's listing gives them for approvals only.
    pub args: Option<Value>,
    /// What the tool suspended with; absent for approvals.
    pub suspend_payload: Option<Value>,
    pub agent_id: String,
    /// RFC 3339 UTC: the server's time for a listed item, the time the chunk arrived for one
    /// read from a stream.
    pub suspended_at: String,
    /// The server, as [`super::ServerConfig::display`] shows it (no credentials).
    pub server: String,
    /// The JSON Schema (as a string) the server will check the resume data against; only a
    /// stream's chunk carries it, the listing does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume_schema: Option<String>,
}

impl SuspendedCall {
    /// The items of one listed run (Mastra shows one pending call per run at a time), its
    /// data moved, not copied.
    pub fn from_listing(
        run: wire::SuspendedRun,
        agent_id: &str,
        server: &str,
    ) -> Vec<SuspendedCall> {
        let suspended_at = run.suspended_at.as_deref().map(rfc3339).unwrap_or_default();
        let run_id = run.run_id;
        run.tool_calls
            .into_iter()
            .map(|call| SuspendedCall {
                run_id: run_id.clone(),
                tool_call_id: call.tool_call_id,
                tool_name: call.tool_name,
                kind: ItemKind::of_suspension(
                    call.requires_approval,
                    call.suspend_payload.as_ref(),
                ),
                args: call.args,
                suspend_payload: call.suspend_payload,
                agent_id: agent_id.to_string(),
                suspended_at: suspended_at.clone(),
                server: server.to_string(),
                resume_schema: None,
            })
            .collect()
    }

    /// The item a `tool-call-suspended` or `tool-call-approval` chunk announces; None for any
    /// other chunk, or one without the ids.
    pub fn from_chunk(chunk: &Value, agent_id: &str, server: &str) -> Option<SuspendedCall> {
        let approval = match chunk.get("type").and_then(Value::as_str)? {
            "tool-call-approval" => true,
            "tool-call-suspended" => false,
            _ => return None,
        };
        let payload = chunk.get("payload")?;
        let text = |key: &str| payload.get(key).and_then(Value::as_str).map(str::to_string);
        let suspend_payload = if approval {
            None
        } else {
            payload.get("suspendPayload").cloned()
        };
        Some(SuspendedCall {
            run_id: chunk.get("runId").and_then(Value::as_str)?.to_string(),
            tool_call_id: text("toolCallId")?,
            tool_name: text("toolName").unwrap_or_default(),
            kind: ItemKind::of_suspension(approval, suspend_payload.as_ref()),
            args: payload.get("args").cloned(),
            suspend_payload,
            agent_id: agent_id.to_string(),
            suspended_at: jiff::Timestamp::now().to_string(),
            server: server.to_string(),
            resume_schema: text("resumeSchema"),
        })
    }
}

/// A server time as RFC 3339 UTC; kept as given when it does not parse.
fn rfc3339(time: &str) -> String {
    time.parse::<jiff::Timestamp>()
        .map(|t| t.to_string())
        .unwrap_or_else(|_| time.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_from_listing_and_chunks() {
        let run: wire::SuspendedRun = serde_json::from_value(json!({
            "runId": "r1", "status": "suspended", "suspendedAt": "2026-12-01T03:13:33.727Z",
            "toolCalls": [{"toolCallId": "c1", "toolName": "deploy", "args": {"target": "db"}, "requiresApproval": true}]
        }))
        .unwrap();
        let items = SuspendedCall::from_listing(run, "ops", "http://127.0.0.1:1/api");
        assert_eq!(items.len(), 1);
        let v = serde_json::to_value(&items[0]).unwrap();
        assert_eq!(
            v,
            json!({"runId": "r1", "toolCallId": "c1", "toolName": "deploy", "kind": "approval",
                   "args": {"target": "db"}, "suspendPayload": null, "agentId": "ops",
                   "suspendedAt": "2026-12-01T03:13:33.727Z", "server": "http://127.0.0.1:1/api"})
        );

        let chunk = json!({"type": "tool-call-suspended", "runId": "r2", "from": "AGENT", "payload": {
            "toolCallId": "c2", "toolName": "submit_plan", "args": {"path": "p.md"},
            "suspendPayload": {"toolId": "submit_plan", "path": "p.md"}, "resumeSchema": "{}"}});
        let item = SuspendedCall::from_chunk(&chunk, "planner", "s").unwrap();
        assert_eq!((item.kind, item.run_id.as_str()), (ItemKind::Plan, "r2"));
        assert_eq!(item.resume_schema.as_deref(), Some("{}"));
        assert!(item.suspended_at.parse::<jiff::Timestamp>().is_ok());
        assert_eq!(
            SuspendedCall::from_chunk(&json!({"type": "tool-call", "runId": "r"}), "a", "s"),
            None
        );
    }
}
