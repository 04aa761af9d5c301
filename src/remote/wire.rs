//! The JSON of Mastra's non-streaming answers, as observed on a real server (@mastra/server
//! 1.69.0 under @mastra/core 1.71.0), decoded leniently: unknown fields are ignored, and
//! missing optional ones are None.
//!
//! `GET /api/agents` (observed for this module, it was not in MASTRA-SERVER.md): a JSON
//! object keyed by each agent's `id` (the agent's own `id`, not the key it is registered
//! under in `new Mastra({agents})`; the routes accept either), each value
//! `{id, name, description, instructions, tools: {<key>: {id, description, inputSchema,
//! ...}}, agents, workflows, provider, modelId, source: "code", ...}`; agents stored by
//! Mastra's editor may follow with `source` "stored". `?partial=true` trims the schemas.
//! `GET /api/agents/:id/suspended-runs`: `{"runs":[{runId, status, suspendedAt, toolCalls:
//! [{toolCallId, toolName, requiresApproval, args?, suspendPayload?}], threadId?,
//! resourceId?}], "total": N}`, newest first; paged only when both `perPage` and `page`
//! (0-based) are given.

use serde::Deserialize;
use serde_json::Value;

/// One page of `suspended-runs`.
#[derive(Debug, Deserialize)]
pub struct SuspendedRunsPage {
    #[serde(default)]
    pub runs: Vec<SuspendedRun>,
    pub total: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuspendedRun {
    pub run_id: String,
    pub status: Option<String>,
    pub suspended_at: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<PendingCall>,
    pub thread_id: Option<String>,
    pub resource_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingCall {
    pub tool_call_id: String,
    pub tool_name: String,
    #[serde(default)]
    pub requires_approval: bool,
    pub args: Option<Value>,
    pub suspend_payload: Option<Value>,
}

/// An agent of the server, as `agents` shows it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AgentInfo {
    /// What the routes take as `:agentId`.
    pub id: String,
    pub name: String,
    pub description: String,
    /// The keys of its tools, in the server's order.
    pub tools: Vec<String>,
}

/// The agents of a `GET /agents` answer, in the server's order; None when it is not an
/// object of agents.
pub fn agents(answer: &Value) -> Option<Vec<AgentInfo>> {
    let map = answer.as_object()?;
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    map.iter()
        .map(|(key, agent)| {
            if !agent.is_object() {
                return None;
            }
            let id = agent
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or(key)
                .to_string();
            let tools = match agent.get("tools") {
                Some(Value::Object(tools)) => tools.keys().cloned().collect(),
                _ => Vec::new(),
            };
            Some(AgentInfo {
                id,
                name: text(agent, "name"),
                description: text(agent, "description"),
                tools,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn agents_keep_the_server_order_and_the_tool_keys() {
        let answer = json!({
            "planner": {"id": "planner", "name": "Planner", "description": "Plans.",
                        "tools": {"ask_user": {"id": "ask_user"}, "submit_plan": {}}, "source": "code"},
            "ops": {"id": "ops", "name": "Ops", "tools": {}},
            "legacy": {"name": "Legacy"}
        });
        let list = agents(&answer).unwrap();
        let ids: Vec<_> = list.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["planner", "ops", "legacy"]);
        assert_eq!(list[0].tools, ["ask_user", "submit_plan"]);
        assert_eq!(list[1].description, "");
        assert_eq!(agents(&json!([])), None);
        assert_eq!(agents(&json!({"a": 1})), None);
    }
}
