//! The shared vocabulary: runs, messages, tool calls, suspensions, events.
//!
//! Every layer (store, agent, tools, providers, output) speaks these types. This module holds
//! data and tiny pure helpers only: no IO, no SQL, no printing. The loop's output types
//! (`StepCommit`, `Transition`, `NewCall`, `StepResults`) live here too, so that the pure
//! step function and the store meet on shared ground instead of importing each other.

pub mod review;

use review::Verdict;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub const ASK_USER: &str = "ask_user";
pub const SUBMIT_PLAN: &str = "submit_plan";
/// The agent id of a Claude Code session that reached `hook claude-code` (SPEC §15): a run
/// this store records but never drives.
pub const CLAUDE_CODE: &str = "claude-code";
/// The human-input tools, in the order they are offered to a model.
pub const HUMAN_TOOLS: [&str; 2] = [ASK_USER, SUBMIT_PLAN];

/// Where a run is in its life. `failed` can go back to `running` through `resume`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Running,
    Suspended,
    Completed,
    Failed,
    Cancelled,
}

impl RunStatus {
    pub const ALL: [RunStatus; 5] = [
        RunStatus::Running,
        RunStatus::Suspended,
        RunStatus::Completed,
        RunStatus::Failed,
        RunStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Suspended => "suspended",
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<RunStatus> {
        RunStatus::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// Neither running nor waiting for a human.
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            RunStatus::Completed | RunStatus::Failed | RunStatus::Cancelled
        )
    }
}

/// Token counts, summed over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub total_tokens: u64,
}

impl std::ops::Add for Usage {
    type Output = Usage;
    fn add(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            total_tokens: self.total_tokens.saturating_add(other.total_tokens),
        }
    }
}

/// A tool call as kept in the history. `invalid_args` holds the raw text when the model's
/// arguments were not valid JSON (then `args` is null).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub args: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_args: Option<String>,
}

/// One message of a run's conversation, as stored and as sent to a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    User {
        content: String,
    },
    Assistant {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(default, rename = "toolCalls", skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        #[serde(rename = "toolCallId")]
        tool_call_id: String,
        #[serde(rename = "toolName")]
        tool_name: String,
        /// The JSON text of the tool's result object.
        content: String,
    },
}

/// What a tool does with a call.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolOutcome {
    /// A result for the model right away (validation and error objects included).
    Result(Value),
    /// The tool failed (`{name, message}`): a `tool-error`, and the message for the model.
    Error(Value),
    /// The call waits for a human to answer (`kind`) with data matching `resume_schema`.
    Suspend {
        kind: ItemKind,
        payload: Value,
        resume_schema: Value,
    },
    /// The call waits for a human to approve or decline it before the tool runs.
    Approval,
}

/// The kinds of event a run emits: Mastra's chunk `type`s (SPEC §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Start,
    StepStart,
    TextDelta,
    ToolCall,
    ToolResult,
    ToolError,
    ToolCallSuspended,
    ToolCallApproval,
    ToolOutputDenied,
    StepFinish,
    Finish,
    Error,
}

impl EventKind {
    pub const ALL: [EventKind; 12] = [
        EventKind::Start,
        EventKind::StepStart,
        EventKind::TextDelta,
        EventKind::ToolCall,
        EventKind::ToolResult,
        EventKind::ToolError,
        EventKind::ToolCallSuspended,
        EventKind::ToolCallApproval,
        EventKind::ToolOutputDenied,
        EventKind::StepFinish,
        EventKind::Finish,
        EventKind::Error,
    ];

    /// The chunk `type` on the wire and in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Start => "start",
            EventKind::StepStart => "step-start",
            EventKind::TextDelta => "text-delta",
            EventKind::ToolCall => "tool-call",
            EventKind::ToolResult => "tool-result",
            EventKind::ToolError => "tool-error",
            EventKind::ToolCallSuspended => "tool-call-suspended",
            EventKind::ToolCallApproval => "tool-call-approval",
            EventKind::ToolOutputDenied => "tool-output-denied",
            EventKind::StepFinish => "step-finish",
            EventKind::Finish => "finish",
            EventKind::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for EventKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// An event a run emitted: Mastra's chunk `type` and `payload`. The envelope (`runId`,
/// `from`) is added when printed.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub kind: EventKind,
    pub payload: Value,
}

impl Event {
    pub fn new(kind: EventKind, payload: Value) -> Event {
        Event { kind, payload }
    }
    pub fn start(agent_id: &str, message_id: &str) -> Event {
        Event::new(
            EventKind::Start,
            json!({"id": agent_id, "messageId": message_id}),
        )
    }
    pub fn step_start(message_id: &str) -> Event {
        Event::new(EventKind::StepStart, json!({"messageId": message_id}))
    }
    pub fn text_delta(message_id: &str, text: &str) -> Event {
        Event::new(
            EventKind::TextDelta,
            json!({"id": message_id, "text": text}),
        )
    }
    pub fn tool_call(call: &ToolCall) -> Event {
        Event::new(
            EventKind::ToolCall,
            json!({"toolCallId": call.id, "toolName": call.name, "args": call.args}),
        )
    }
    pub fn tool_result(call_id: &str, name: &str, args: &Value, result: &Value) -> Event {
        Event::new(
            EventKind::ToolResult,
            json!({"toolCallId": call_id, "toolName": name, "args": args, "result": result}),
        )
    }
    pub fn tool_error(call_id: &str, name: &str, args: &Value, error: &Value) -> Event {
        Event::new(
            EventKind::ToolError,
            json!({"toolCallId": call_id, "toolName": name, "args": args, "error": error}),
        )
    }
    pub fn suspended(call: &ToolCall, payload: &Value, resume_schema: &Value) -> Event {
        Event::new(
            EventKind::ToolCallSuspended,
            json!({
                "toolCallId": call.id,
                "toolName": call.name,
                "args": call.args,
                "suspendPayload": payload,
                "resumeSchema": resume_schema.to_string(),
            }),
        )
    }
    /// The call waits for approval (Mastra's `tool-call-approval`).
    pub fn approval(call: &ToolCall, resume_schema: &str) -> Event {
        Event::new(
            EventKind::ToolCallApproval,
            json!({
                "toolCallId": call.id,
                "toolName": call.name,
                "args": call.args,
                "resumeSchema": resume_schema,
            }),
        )
    }
    /// The call was declined: the tool never ran (Mastra's `tool-output-denied`).
    pub fn output_denied(call_id: &str, name: &str, args: &Value, reason: &str) -> Event {
        Event::new(
            EventKind::ToolOutputDenied,
            json!({
                "toolCallId": call_id,
                "toolName": name,
                "args": args,
                "approval": {"id": call_id, "approved": false, "reason": reason},
            }),
        )
    }
    pub fn step_finish(message_id: &str, finish_reason: &str) -> Event {
        Event::new(
            EventKind::StepFinish,
            json!({"messageId": message_id, "finishReason": finish_reason}),
        )
    }
    pub fn finish(finish_reason: &str, text: &str, usage: Usage) -> Event {
        Event::new(
            EventKind::Finish,
            json!({"finishReason": finish_reason, "text": text, "usage": usage}),
        )
    }
    pub fn error(message: &str) -> Event {
        Event::new(EventKind::Error, json!({"message": message}))
    }
}

/// An event as stored: its place in the run's sequence.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredEvent {
    pub seq: i64,
    pub at: i64,
    pub event: Event,
}

/// The state of one tool call of a step that suspended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallState {
    /// Not an item: its result was known at once.
    Done,
    Pending,
    Resolved,
    Cancelled,
    Expired,
    /// A command tool that needs no approval, started by a driver before its step is
    /// stored (SPEC §11): kept so that a driver taking over waits for it; removed when the
    /// step is stored. Not an item.
    Running,
}

impl CallState {
    pub fn as_str(self) -> &'static str {
        match self {
            CallState::Done => "done",
            CallState::Pending => "pending",
            CallState::Resolved => "resolved",
            CallState::Cancelled => "cancelled",
            CallState::Expired => "expired",
            CallState::Running => "running",
        }
    }
    pub fn parse(s: &str) -> Option<CallState> {
        [
            CallState::Done,
            CallState::Pending,
            CallState::Resolved,
            CallState::Cancelled,
            CallState::Expired,
            CallState::Running,
        ]
        .into_iter()
        .find(|st| st.as_str() == s)
    }
}

/// How a person gave an answer: on the command line (`flag`, `json`), at a prompt,
/// through `serve` (`web` pages, the `api`, SPEC §13), or in an MCP client (`mcp`, §16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    Flag,
    Json,
    Prompt,
    Web,
    Api,
    /// In the MCP client's own form (`mastra-ask mcp`'s elicitation).
    Mcp,
    /// A one-tap action of a notification (SPEC §17).
    Tap,
}

impl Via {
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Flag => "flag",
            Via::Json => "json",
            Via::Prompt => "prompt",
            Via::Web => "web",
            Via::Api => "api",
            Via::Mcp => "mcp",
            Via::Tap => "tap",
        }
    }
}

/// One tool call of a step that suspended: the items (questions, plans, approvals) and,
/// beside them, the calls whose results were known at once.
#[derive(Clone, Debug, PartialEq)]
pub struct CallRecord {
    pub run_id: String,
    pub call_id: String,
    /// Order of the call in the run.
    pub seq: i64,
    /// The assistant message (its sequence number) that made the call.
    pub step: i64,
    pub tool_name: String,
    pub args: Value,
    pub state: CallState,
    /// What a person is asked; `None` for a call that is not an item (stored with the call,
    /// never guessed from the tool's name).
    pub kind: Option<ItemKind>,
    /// The suspend payload (questions and plans only): read it with `payload()`.
    pub payload: Payload,
    /// The result for the model (known at once, once resolved, or once an approved tool
    /// ran).
    pub result: Option<Value>,
    /// `{name, message}` when the call failed (unknown tool, bad JSON, a failing command
    /// tool).
    pub error: Option<Value>,
    pub resume_data: Option<Value>,
    pub resolved_by: Option<String>,
    /// The name typed with `--as` where the store recorded who the session is as
    /// `resolved_by` instead (a PostgreSQL role the policy binds, SPEC §14); `None` when
    /// there was none or it is `resolved_by`.
    pub claim: Option<String>,
    pub resolved_via: Option<String>,
    pub resolved_at: Option<i64>,
    /// When a pending item expires, if its run set a deadline.
    pub expires_at: Option<i64>,
    pub created_at: i64,
    /// The process group of an approved tool started by a driver (SPEC §11), so that a
    /// later driver finds it if that one died.
    pub process: Option<ToolProcess>,
    /// The arguments a person approved in place of the model's (SPEC §14.1).
    pub approved_args: Option<Value>,
    /// The digest of the arguments an approval approved (SPEC §14.1: `review::digest`).
    pub digest: Option<String>,
}

/// Where a stored call's suspend payload is. Most questions' payload is their arguments,
/// and the stores keep it once (SQLite's `payload_is_args`; the same text on PostgreSQL):
/// a call read from them then holds the arguments once too, not a second tree of them.
#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    None,
    Args,
    Own(Value),
}

#[cfg(test)]
impl CallRecord {
    /// A call of run `run` for the unit tests: `call_id` calling `tool_name` with `args` at
    /// step 1, done, nothing resolved; tests change the fields they are about.
    pub fn fixture(run: &str, call_id: &str, tool_name: &str, args: Value) -> CallRecord {
        CallRecord {
            run_id: run.into(),
            call_id: call_id.into(),
            seq: 0,
            step: 1,
            tool_name: tool_name.into(),
            args,
            state: CallState::Done,
            kind: None,
            payload: Payload::None,
            result: None,
            error: None,
            resume_data: None,
            resolved_by: None,
            claim: None,
            resolved_via: None,
            resolved_at: None,
            expires_at: None,
            created_at: 0,
            process: None,
            approved_args: None,
            digest: None,
        }
    }
}

impl CallRecord {
    /// The suspend payload, if the call has one.
    pub fn payload(&self) -> Option<&Value> {
        match &self.payload {
            Payload::None => None,
            Payload::Args => Some(&self.args),
            Payload::Own(p) => Some(p),
        }
    }

    /// The kind of an item. Every call that is or was an item has one (the store refuses a
    /// row without); a call that is not an item never reaches the code that asks.
    pub fn kind(&self) -> ItemKind {
        self.kind.unwrap_or(ItemKind::Question)
    }

    /// Whether the call is or was an item (a question, a plan or an approval).
    pub fn is_item(&self) -> bool {
        self.kind.is_some()
    }

    /// The decision on an approval item: `Some(true)` approved, `Some(false)` declined.
    pub fn approved(&self) -> Option<bool> {
        if self.kind != Some(ItemKind::Approval) || self.state != CallState::Resolved {
            return None;
        }
        self.resume_data.as_ref()?.get("approved")?.as_bool()
    }

    /// An approved call whose tool has not run yet (its result is not stored).
    pub fn waits_to_run(&self) -> bool {
        self.approved() == Some(true) && self.result.is_none()
    }

    /// A call whose result the driver of the next leg makes before the model is called: an
    /// approved tool that has not run, or an item closed at its deadline under
    /// `--on-expiry decline|reject` (SPEC §14; `agent::approved`).
    pub fn left_to_driver(&self) -> bool {
        self.waits_to_run() || (self.state == CallState::Expired && self.result.is_none())
    }

    /// An approval that was declined by a person, or closed at its deadline under
    /// `--on-expiry decline|reject` (SPEC §14): its tool never runs.
    pub fn declined(&self) -> bool {
        self.approved() == Some(false)
            || (self.kind == Some(ItemKind::Approval) && self.state == CallState::Expired)
    }

    /// The arguments a person approved in place of the model's (approve with changes,
    /// SPEC §14.1).
    pub fn changed_args(&self) -> Option<&Value> {
        self.approved_args
            .as_ref()
            .filter(|_| self.approved() == Some(true))
    }

    /// The arguments an approved call's tool runs with: the approved ones.
    pub fn args_to_run(&self) -> &Value {
        self.changed_args().unwrap_or(&self.args)
    }

    /// The digest of the arguments approved (SPEC §14.1), as the store recorded it.
    pub fn approved_digest(&self) -> Option<&str> {
        self.digest
            .as_deref()
            .filter(|_| self.approved() == Some(true))
    }
}

/// Where an approved tool runs: its process group and the host and time it started.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolProcess {
    pub pgid: u32,
    /// The group leader's start time (clock ticks after boot; 0 when unknown).
    pub leader_start: u64,
    pub host: String,
    /// Unix ms.
    pub started_at: i64,
}

/// What a pending item asks of a person; decides the command that resolves it (its
/// behaviour for a person: `items::of`), and on a Mastra server the route its answer takes
/// (SPEC §12). One type for local items and a server's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    /// An `ask_user` question: `answer` (a server's: `resume-stream` with a string or a list
    /// of labels).
    Question,
    /// A `submit_plan` plan: `review` (a server's: `resume-stream` with `{action, path,
    /// title, plan}`).
    Plan,
    /// A tool call that needs approval: `approve` / `decline` (a server's:
    /// `approve-tool-call` / `decline-tool-call`).
    Approval,
    /// A server's tool that suspended with a payload of its own: `answer --json`, the resume
    /// data sent as given.
    Other,
}

impl ItemKind {
    pub const ALL: [ItemKind; 4] = [
        ItemKind::Question,
        ItemKind::Plan,
        ItemKind::Approval,
        ItemKind::Other,
    ];

    /// The kind of a server's suspended call: `approval` when the server says it requires
    /// approval, `plan` when the suspend payload's `toolId` is `submit_plan`, `question` when
    /// the payload is an `ask_user` one (a `question` string and, if any, a list of `{label}`
    /// options), else `other`.
    pub fn of_suspension(requires_approval: bool, suspend_payload: Option<&Value>) -> ItemKind {
        if requires_approval {
            return ItemKind::Approval;
        }
        let Some(payload) = suspend_payload.and_then(Value::as_object) else {
            return ItemKind::Other;
        };
        if payload.get("toolId").and_then(Value::as_str) == Some(SUBMIT_PLAN) {
            return ItemKind::Plan;
        }
        let options_ok = match payload.get("options") {
            None | Some(Value::Null) => true,
            Some(Value::Array(list)) => list
                .iter()
                .all(|o| o.get("label").is_some_and(Value::is_string)),
            Some(_) => false,
        };
        if payload.get("question").is_some_and(Value::is_string) && options_ok {
            ItemKind::Question
        } else {
            ItemKind::Other
        }
    }

    /// The word `pending` and its JSON show (`kind`), and the store keeps.
    pub fn noun(self) -> &'static str {
        match self {
            ItemKind::Question => "question",
            ItemKind::Plan => "plan",
            ItemKind::Approval => "approval",
            ItemKind::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<ItemKind> {
        ItemKind::ALL.into_iter().find(|k| k.noun() == s)
    }

    /// The verdicts a decision on an item of this kind can be (SPEC §14), as the store's
    /// guards accept them; none for a server's `other` (this store never holds one).
    pub fn verdicts(self) -> &'static [Verdict] {
        match self {
            ItemKind::Question => &[Verdict::Answered],
            ItemKind::Plan => &[Verdict::Approved, Verdict::Rejected],
            ItemKind::Approval => &[Verdict::Approved, Verdict::Declined],
            ItemKind::Other => &[],
        }
    }

    /// The verdict a resolution's resume data stands for.
    pub fn verdict(self, resume_data: &Value) -> Verdict {
        match self {
            ItemKind::Approval if resume_data["approved"] == Value::Bool(true) => Verdict::Approved,
            ItemKind::Approval => Verdict::Declined,
            ItemKind::Plan if resume_data["action"] == "approved" => Verdict::Approved,
            ItemKind::Plan => Verdict::Rejected,
            ItemKind::Question | ItemKind::Other => Verdict::Answered,
        }
    }

    /// Whether a policy counts its approvals (N of M): a plan's and an approval's are
    /// counted; a question is answered once, by one of the reviewers.
    pub fn counts_approvals(self) -> bool {
        match self {
            ItemKind::Plan | ItemKind::Approval => true,
            ItemKind::Question | ItemKind::Other => false,
        }
    }

    /// The verb of a decision that lets something happen (`answer`, `approve`) and of one
    /// that refuses it (`reject`, `decline`), as a refusal's message says them.
    pub fn verbs(self) -> (&'static str, &'static str) {
        match self {
            ItemKind::Question | ItemKind::Other => ("answer", "reject"),
            ItemKind::Plan => ("approve", "reject"),
            ItemKind::Approval => ("approve", "decline"),
        }
    }
}

/// Receives a run's events as they happen (the driver emits, `output` prints).
pub trait Sink {
    fn event(&mut self, run_id: &str, event: &Event);
}

/// A person's decision on one pending item, validated before it is stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolution {
    pub resume_data: Value,
    /// The result for the model; `None` for an approved call, whose tool runs first.
    pub result: Option<Value>,
    pub by: String,
    pub via: Via,
}

/// A command tool a driver is about to start for a step not yet stored (SPEC §11), as
/// recorded before it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct StartedCall {
    /// The step the call belongs to (its assistant message's sequence number).
    pub step: i64,
    pub call_id: String,
    pub tool_name: String,
    pub args: Value,
    pub process: ToolProcess,
}

/// A call of a step that suspends, as the driver hands it to the store.
#[derive(Clone, Debug, PartialEq)]
pub struct NewCall {
    pub call_id: String,
    pub tool_name: String,
    pub args: Value,
    pub state: CallState,
    /// Set for the calls that wait for a person.
    pub kind: Option<ItemKind>,
    pub payload: Option<Value>,
    pub result: Option<Value>,
    pub error: Option<Value>,
}

/// Where a step leaves the run.
#[derive(Clone, Debug, PartialEq)]
pub enum Transition {
    Running,
    Suspended,
    Completed {
        output: String,
        finish_reason: String,
    },
    Failed {
        error: String,
    },
}

impl Transition {
    /// The run's status after it.
    pub fn status(&self) -> RunStatus {
        match self {
            Transition::Running => RunStatus::Running,
            Transition::Suspended => RunStatus::Suspended,
            Transition::Completed { .. } => RunStatus::Completed,
            Transition::Failed { .. } => RunStatus::Failed,
        }
    }
}

/// Everything one step of the loop stores, in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct StepCommit {
    pub messages: Vec<Message>,
    pub calls: Vec<NewCall>,
    pub events: Vec<Event>,
    pub usage: Usage,
    pub transition: Transition,
}

/// Messages and events a step's results add to the run when its last item is resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct StepResults {
    pub messages: Vec<Message>,
    pub events: Vec<Event>,
}

/// What the model receives for a result: a string as it is (an error text, Mastra's
/// `error-text`; a command tool's text and a decline's reason, Mastra's `text`), anything
/// else (a result object) as its JSON text.
pub fn result_text(result: &Value) -> String {
    match result {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The tool message and the event for one call's result.
pub fn call_result(
    call_id: &str,
    name: &str,
    args: &Value,
    result: &Value,
    error: Option<&Value>,
) -> (Message, Event) {
    let message = Message::Tool {
        tool_call_id: call_id.to_string(),
        tool_name: name.to_string(),
        content: result_text(result),
    };
    let event = match error {
        Some(e) => Event::tool_error(call_id, name, args, e),
        None => Event::tool_result(call_id, name, args, result),
    };
    (message, event)
}

/// The results of a step whose items are all resolved (and whose approved tools ran), in
/// call order: a declined call's reason reaches the model as text, with a
/// `tool-output-denied` event.
pub fn resumed_results(calls: &[CallRecord]) -> StepResults {
    let mut messages = Vec::with_capacity(calls.len());
    let mut events = Vec::with_capacity(calls.len());
    for c in calls {
        let result = c.result.clone().unwrap_or(Value::Null);
        if c.declined() {
            let reason = result_text(&result);
            messages.push(Message::Tool {
                tool_call_id: c.call_id.clone(),
                tool_name: c.tool_name.clone(),
                content: reason.clone(),
            });
            events.push(Event::output_denied(
                &c.call_id,
                &c.tool_name,
                &c.args,
                &reason,
            ));
            continue;
        }
        let args = c.args_to_run();
        let (mut m, e) = call_result(&c.call_id, &c.tool_name, args, &result, c.error.as_ref());
        if let (Some(changed), Message::Tool { content, .. }) = (c.changed_args(), &mut m) {
            *content = format!(
                "The user changed the arguments before approving this call; the tool ran with {changed} in place of {}. Its result: {content}",
                c.args
            );
        }
        messages.push(m);
        events.push(e);
    }
    StepResults { messages, events }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        let q = json!({"question": "Name?"});
        let multi = json!({"question": "Which?", "options": [{"label": "A"}, {"label": "B", "description": "b"}], "selectionMode": "multi_select"});
        let plan = json!({"toolId": "submit_plan", "path": "plans/a.md"});
        let custom = json!({"service": "billing", "windows": ["tonight"]});
        assert_eq!(ItemKind::of_suspension(false, Some(&q)), ItemKind::Question);
        assert_eq!(
            ItemKind::of_suspension(false, Some(&multi)),
            ItemKind::Question
        );
        assert_eq!(ItemKind::of_suspension(false, Some(&plan)), ItemKind::Plan);
        assert_eq!(
            ItemKind::of_suspension(false, Some(&custom)),
            ItemKind::Other
        );
        assert_eq!(ItemKind::of_suspension(true, None), ItemKind::Approval);
        assert_eq!(ItemKind::of_suspension(true, Some(&q)), ItemKind::Approval);
        assert_eq!(ItemKind::of_suspension(false, None), ItemKind::Other);
        assert_eq!(
            ItemKind::of_suspension(false, Some(&json!("text"))),
            ItemKind::Other
        );
        assert_eq!(
            ItemKind::of_suspension(false, Some(&json!({"question": 3}))),
            ItemKind::Other
        );
        assert_eq!(
            ItemKind::of_suspension(false, Some(&json!({"question": "q", "options": ["A"]}))),
            ItemKind::Other,
            "options that are not {{label}} objects are not an ask_user payload"
        );
        assert_eq!(
            ItemKind::of_suspension(false, Some(&json!({"toolId": "other", "question": "q"}))),
            ItemKind::Question
        );
    }

    #[test]
    fn kinds_parse_back_from_their_nouns() {
        for k in [
            ItemKind::Question,
            ItemKind::Plan,
            ItemKind::Approval,
            ItemKind::Other,
        ] {
            assert_eq!(ItemKind::parse(k.noun()), Some(k));
            assert_eq!(serde_json::to_value(k).unwrap(), k.noun());
        }
        assert_eq!(ItemKind::parse("nope"), None);
    }

    fn record(
        id: &str,
        kind: Option<ItemKind>,
        resume: Option<Value>,
        result: Option<Value>,
    ) -> CallRecord {
        CallRecord {
            state: if kind.is_some() {
                CallState::Resolved
            } else {
                CallState::Done
            },
            kind,
            result,
            resume_data: resume,
            approved_args: None,
            digest: None,
            ..CallRecord::fixture("r", id, "deploy", json!({"target": "prod"}))
        }
    }

    #[test]
    fn a_declined_call_gives_its_reason_as_text_and_a_denial() {
        let approval = Some(ItemKind::Approval);
        let declined = record(
            "a",
            approval,
            Some(json!({"approved": false})),
            Some(json!("No.")),
        );
        let approved = record(
            "b",
            approval,
            Some(json!({"approved": true})),
            Some(json!({"ok": 1})),
        );
        let waiting = record("c", approval, Some(json!({"approved": true})), None);
        let text = record("d", None, None, Some(json!("plain text")));
        assert_eq!(declined.approved(), Some(false));
        assert!(waiting.waits_to_run() && !approved.waits_to_run() && !declined.waits_to_run());
        let r = resumed_results(&[declined, approved, text]);
        let kinds: Vec<&str> = r.events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["tool-output-denied", "tool-result", "tool-result"]);
        assert_eq!(
            r.events[0].payload,
            json!({"toolCallId": "a", "toolName": "deploy", "args": {"target": "prod"},
                   "approval": {"id": "a", "approved": false, "reason": "No."}})
        );
        let contents: Vec<&str> = r
            .messages
            .iter()
            .map(|m| match m {
                Message::Tool { content, .. } => content.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(contents, ["No.", r#"{"ok":1}"#, "plain text"]);
    }
}
