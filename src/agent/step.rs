//! The pure part of the loop: one model response in, everything to store for it out.
//!
//! No IO here: tools are reached through the `evaluate` function (which may run a command
//! tool's program) and fresh ids through `new_id`, so the whole decision (complete,
//! continue, suspend for an answer or an approval, out of budget) is unit-tested without a
//! store or a model.

use std::collections::HashSet;

use serde_json::{json, Value};

use crate::domain::{
    call_result, CallState, Event, ItemKind, Message, NewCall, StepCommit, ToolCall, ToolOutcome,
    Transition, Usage,
};
use crate::limits::MAX_TOOL_CALL_ID_CHARS;
use crate::providers::{ModelCall, Response};
use crate::tools::approval;

/// What the step function needs besides the response.
pub struct StepContext<'a> {
    pub message_id: &'a str,
    /// Tool-call ids the run already used (the model may reuse them).
    pub used_ids: &'a HashSet<String>,
    /// The tools the agent has.
    pub tools: &'a [String],
    /// This is the last model call the leg's budget allows.
    pub last_in_budget: bool,
    /// Usage of the run before this step.
    pub usage_before: Usage,
}

/// What became of one call before any person is involved.
enum Outcome {
    Result(Value),
    /// No tool ran (unknown tool, unparsable arguments): `error` (`{name, message}`) for the
    /// `tool-error` event, `text` for the model (Mastra's `error-text`).
    Error {
        error: Value,
        text: String,
    },
    Suspend {
        kind: ItemKind,
        payload: Value,
        schema: Value,
    },
    /// The call waits for approval before its tool runs.
    Approval,
}

/// Decides what one model response does to the run: it completes (text only), suspends
/// (a call waits for a person), or goes on with every result known.
pub fn step(
    response: &Response,
    ctx: &StepContext,
    evaluate: &mut dyn FnMut(&ToolCall) -> Option<ToolOutcome>,
    new_id: &mut dyn FnMut() -> String,
) -> StepCommit {
    let text = response.text.clone().filter(|t| !t.is_empty());
    let mut events = vec![Event::step_start(ctx.message_id)];
    if let Some(t) = &text {
        events.push(Event::text_delta(ctx.message_id, t));
    }
    if response.calls.is_empty() {
        return completed(ctx, response, text, events);
    }
    let calls = with_ids(response, ctx.used_ids, new_id);
    events.extend(calls.iter().map(Event::tool_call));
    let outcomes: Vec<Outcome> = calls
        .iter()
        .zip(&response.calls)
        .map(|(call, raw)| outcome(call, raw, ctx.tools, evaluate))
        .collect();
    let assistant = Message::Assistant {
        content: text.clone(),
        tool_calls: calls.clone(),
    };
    let waits = |o: &Outcome| matches!(o, Outcome::Suspend { .. } | Outcome::Approval);
    if outcomes.iter().any(waits) {
        suspended(ctx, response, assistant, &calls, outcomes, events)
    } else {
        continued(ctx, response, text, assistant, &calls, outcomes, events)
    }
}

/// A text-only response: the run completes with it.
fn completed(
    ctx: &StepContext,
    response: &Response,
    text: Option<String>,
    mut events: Vec<Event>,
) -> StepCommit {
    let output = text.clone().unwrap_or_default();
    events.push(Event::step_finish(ctx.message_id, "stop"));
    events.push(Event::finish(
        "stop",
        &output,
        ctx.usage_before + response.usage,
    ));
    StepCommit {
        messages: vec![Message::Assistant {
            content: text,
            tool_calls: vec![],
        }],
        calls: vec![],
        events,
        usage: response.usage,
        transition: Transition::Completed {
            output,
            finish_reason: "stop".into(),
        },
    }
}

/// The response's calls with the ids they keep: the model's own when it is new in the run
/// and typable, else a fresh one (in the history sent back too).
fn with_ids(
    response: &Response,
    used: &HashSet<String>,
    new_id: &mut dyn FnMut() -> String,
) -> Vec<ToolCall> {
    let mut seen: HashSet<String> = HashSet::new();
    response
        .calls
        .iter()
        .map(|c| {
            let mut id =
                c.id.clone()
                    .filter(|id| typable(id))
                    .unwrap_or_else(&mut *new_id);
            while used.contains(&id) || seen.contains(&id) {
                id = new_id();
            }
            seen.insert(id.clone());
            let (args, invalid_args) = match &c.args {
                Ok(v) => (v.clone(), None),
                Err(bad) => (Value::Null, Some(bad.raw.clone())),
            };
            ToolCall {
                id,
                name: c.name.clone(),
                args,
                invalid_args,
            }
        })
        .collect()
}

/// What one call comes to before any person is involved.
fn outcome(
    call: &ToolCall,
    raw: &ModelCall,
    tools: &[String],
    evaluate: &mut dyn FnMut(&ToolCall) -> Option<ToolOutcome>,
) -> Outcome {
    if let Err(bad) = &raw.args {
        return Outcome::Error {
            error: json!({"name": "ToolArgumentsError", "message": bad.message}),
            text: invalid_arguments_text(&call.name),
        };
    }
    let offered = tools.contains(&call.name);
    match offered.then(|| evaluate(call)).flatten() {
        None => {
            let text = not_found_text(&call.name, tools);
            Outcome::Error {
                error: json!({"name": "ToolNotFoundError", "message": text}),
                text,
            }
        }
        Some(ToolOutcome::Result(r)) => Outcome::Result(r),
        Some(ToolOutcome::Error(error)) => Outcome::Error {
            text: error_text(&error),
            error,
        },
        Some(ToolOutcome::Suspend {
            kind,
            payload,
            resume_schema,
        }) => Outcome::Suspend {
            kind,
            payload,
            schema: resume_schema,
        },
        Some(ToolOutcome::Approval) => Outcome::Approval,
    }
}

/// A step in which some call waits for a person: every call is stored with the step (the
/// others with their results), and the run suspends.
fn suspended(
    ctx: &StepContext,
    response: &Response,
    assistant: Message,
    calls: &[ToolCall],
    outcomes: Vec<Outcome>,
    mut events: Vec<Event>,
) -> StepCommit {
    events.push(Event::step_finish(ctx.message_id, "tool-calls"));
    let mut new_calls = Vec::new();
    for (call, outcome) in calls.iter().zip(outcomes) {
        let mut record = NewCall {
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            args: event_args(call),
            state: CallState::Done,
            kind: None,
            payload: None,
            result: None,
            error: None,
        };
        match outcome {
            Outcome::Result(r) => record.result = Some(r),
            Outcome::Error { error, text } => {
                record.result = Some(Value::String(text));
                record.error = Some(error);
            }
            Outcome::Suspend {
                kind,
                payload,
                schema,
            } => {
                events.push(Event::suspended(call, &payload, &schema));
                record.state = CallState::Pending;
                record.kind = Some(kind);
                record.payload = Some(payload);
            }
            Outcome::Approval => {
                events.push(Event::approval(call, &approval::resume_schema()));
                record.state = CallState::Pending;
                record.kind = Some(ItemKind::Approval);
            }
        }
        new_calls.push(record);
    }
    StepCommit {
        messages: vec![assistant],
        calls: new_calls,
        events,
        usage: response.usage,
        transition: Transition::Suspended,
    }
}

/// A step whose every result is known: they go to the model at once, and the run goes on
/// (or completes with finish reason `tool-calls` when the leg's budget is spent).
fn continued(
    ctx: &StepContext,
    response: &Response,
    text: Option<String>,
    assistant: Message,
    calls: &[ToolCall],
    outcomes: Vec<Outcome>,
    mut events: Vec<Event>,
) -> StepCommit {
    let mut messages = vec![assistant];
    for (call, outcome) in calls.iter().zip(outcomes) {
        let (result, error) = match outcome {
            Outcome::Result(r) => (r, None),
            Outcome::Error { error, text } => (Value::String(text), Some(error)),
            Outcome::Suspend { .. } | Outcome::Approval => unreachable!("no call waits"),
        };
        let (message, event) = call_result(
            &call.id,
            &call.name,
            &event_args(call),
            &result,
            error.as_ref(),
        );
        messages.push(message);
        events.push(event);
    }
    events.push(Event::step_finish(ctx.message_id, "tool-calls"));
    let transition = if ctx.last_in_budget {
        let output = text.unwrap_or_default();
        let usage = ctx.usage_before + response.usage;
        events.push(Event::finish("tool-calls", &output, usage));
        Transition::Completed {
            output,
            finish_reason: "tool-calls".into(),
        }
    } else {
        Transition::Running
    };
    StepCommit {
        messages,
        calls: vec![],
        events,
        usage: response.usage,
        transition,
    }
}

/// Whether a tool-call id the model chose can be kept: 1 to 64 printable ASCII characters
/// (no space), so it can be typed after `--tool-call` and printed as it is. Anything else
/// (control or invisible characters, other scripts, a huge id) is replaced by a generated
/// one, as a reused id is.
pub fn typable(id: &str) -> bool {
    (1..=MAX_TOOL_CALL_ID_CHARS).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_graphic())
}

/// What the model receives for a tool that failed (`{name, message}`): its message, as
/// Mastra's `error-text`.
pub fn error_text(error: &Value) -> String {
    error["message"]
        .as_str()
        .unwrap_or("the tool call failed")
        .to_string()
}

/// What the model gets for a call of a tool it was not offered (Mastra's wording).
fn not_found_text(name: &str, tools: &[String]) -> String {
    format!(
        "Tool \"{name}\" not found. Available tools: {}. Call tools by their exact name only \
         — never add prefixes, namespaces, or colons.",
        tools.join(", ")
    )
}

/// What the model gets for a call whose arguments are not JSON (Mastra's wording).
fn invalid_arguments_text(name: &str) -> String {
    format!(
        "Tool \"{name}\" received invalid arguments — the provided JSON could not be parsed. \
         Please provide valid JSON arguments."
    )
}

/// The arguments events show for a call: the model's raw text when it was not JSON.
fn event_args(call: &ToolCall) -> Value {
    match &call.invalid_args {
        Some(raw) => Value::String(raw.clone()),
        None => call.args.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{resumed_results, CallRecord, EventKind};
    use crate::providers::{BadArgs, ModelCall};
    use crate::tools;

    fn call(id: Option<&str>, name: &str, args: Value) -> ModelCall {
        ModelCall {
            id: id.map(str::to_string),
            name: name.into(),
            args: Ok(args),
        }
    }

    fn run_step(response: Response, used: &[&str], last: bool) -> StepCommit {
        let used: HashSet<String> = used.iter().map(|s| s.to_string()).collect();
        let tools = vec!["ask_user".to_string(), "submit_plan".to_string()];
        let ctx = StepContext {
            message_id: "m1",
            used_ids: &used,
            tools: &tools,
            last_in_budget: last,
            usage_before: Usage::default(),
        };
        let mut n = 0;
        step(
            &response,
            &ctx,
            &mut |c| tools::evaluate(&c.name, &c.args, std::path::Path::new("/nonexistent")),
            &mut || {
                n += 1;
                format!("gen_{n}")
            },
        )
    }

    fn kinds(c: &StepCommit) -> Vec<&str> {
        c.events.iter().map(|e| e.kind.as_str()).collect()
    }

    #[test]
    fn text_completes_the_run() {
        let c = run_step(
            Response {
                text: Some("Done.".into()),
                ..Default::default()
            },
            &[],
            false,
        );
        assert_eq!(
            kinds(&c),
            ["step-start", "text-delta", "step-finish", "finish"]
        );
        assert!(
            matches!(c.transition, Transition::Completed { ref output, ref finish_reason } if output == "Done." && finish_reason == "stop")
        );
    }

    #[test]
    fn two_questions_suspend_together_and_ids_are_made_unique() {
        let r = Response {
            calls: vec![
                call(Some("call_0"), "ask_user", json!({"question": "A?"})),
                call(Some("call_1"), "ask_user", json!({"question": "B?"})),
                call(Some("call_1"), "nope", json!({})),
            ],
            ..Default::default()
        };
        let c = run_step(r, &["call_0"], false);
        assert!(matches!(c.transition, Transition::Suspended));
        let ids: Vec<&str> = c.calls.iter().map(|c| c.call_id.as_str()).collect();
        assert_eq!(ids, ["gen_1", "call_1", "gen_2"]);
        assert_eq!(
            kinds(&c),
            [
                "step-start",
                "tool-call",
                "tool-call",
                "tool-call",
                "step-finish",
                "tool-call-suspended",
                "tool-call-suspended"
            ]
        );
        assert_eq!(c.calls[2].state, CallState::Done);
        assert_eq!(
            c.calls[2].error.as_ref().unwrap()["name"],
            "ToolNotFoundError"
        );
        let Message::Assistant { tool_calls, .. } = &c.messages[0] else {
            panic!()
        };
        assert_eq!(tool_calls[0].id, "gen_1");
    }

    #[test]
    fn approvals_suspend_beside_questions_and_tools_without_approval_run_at_once() {
        let used = HashSet::new();
        let tools: Vec<String> = ["ask_user", "deploy", "echo", "broken"]
            .map(String::from)
            .to_vec();
        let ctx = StepContext {
            message_id: "m1",
            used_ids: &used,
            tools: &tools,
            last_in_budget: false,
            usage_before: Usage::default(),
        };
        let response = Response {
            calls: vec![
                call(Some("q"), "ask_user", json!({"question": "Q?"})),
                call(Some("a"), "deploy", json!({"target": "prod"})),
                call(Some("e"), "echo", json!({})),
                call(Some("b"), "broken", json!({})),
            ],
            ..Default::default()
        };
        let c = step(
            &response,
            &ctx,
            &mut |c| match c.name.as_str() {
                "deploy" => Some(ToolOutcome::Approval),
                "echo" => Some(ToolOutcome::Result(json!("hi"))),
                "broken" => Some(ToolOutcome::Error(
                    json!({"name": "ToolExecutionError", "message": "exited with status 1"}),
                )),
                _ => tools::evaluate(&c.name, &c.args, std::path::Path::new("/")),
            },
            &mut || "gen".into(),
        );
        assert!(matches!(c.transition, Transition::Suspended));
        assert_eq!(
            kinds(&c),
            [
                "step-start",
                "tool-call",
                "tool-call",
                "tool-call",
                "tool-call",
                "step-finish",
                "tool-call-suspended",
                "tool-call-approval"
            ]
        );
        let approval = &c.events[7].payload;
        assert_eq!(approval["toolCallId"], "a");
        assert_eq!(approval["resumeSchema"], approval::resume_schema());
        let calls: Vec<(&str, CallState, Option<ItemKind>)> = c
            .calls
            .iter()
            .map(|r| (r.call_id.as_str(), r.state, r.kind))
            .collect();
        assert_eq!(
            calls,
            [
                ("q", CallState::Pending, Some(ItemKind::Question)),
                ("a", CallState::Pending, Some(ItemKind::Approval)),
                ("e", CallState::Done, None),
                ("b", CallState::Done, None)
            ]
        );
        assert_eq!(c.calls[1].payload, None);
        assert_eq!(c.calls[2].result, Some(json!("hi")));
        assert_eq!(
            c.calls[3].error.as_ref().unwrap()["name"],
            "ToolExecutionError"
        );
    }

    #[test]
    fn ids_that_cannot_be_typed_are_replaced_everywhere() {
        let hostile = [
            "a\u{1b}]52;c;cHduZWQ=\u{7}",
            "\u{9b}31m",
            "rtl\u{202e}x",
            "\0a",
            "cr\r",
            "has space",
            "zero\u{200b}width",
            "ünï",
            "",
        ];
        let long = "L".repeat(100 * 1024);
        let mut calls: Vec<ModelCall> = hostile
            .iter()
            .chain([&long.as_str(), &"x".repeat(64).as_str(), &"-rf", &"call_ok"])
            .map(|id| call(Some(id), "ask_user", json!({"question": "Q?"})))
            .collect();
        calls.push(call(None, "nope", json!({})));
        let c = run_step(
            Response {
                calls,
                ..Default::default()
            },
            &[],
            false,
        );
        let ids: Vec<&str> = c.calls.iter().map(|c| c.call_id.as_str()).collect();
        let generated: Vec<String> = (1..=10).map(|n| format!("gen_{n}")).collect();
        assert_eq!(
            ids[..10],
            generated.iter().map(String::as_str).collect::<Vec<_>>()[..]
        );
        assert_eq!(
            ids[10..],
            ["x".repeat(64).as_str(), "-rf", "call_ok", "gen_11"]
        );
        // The history sent back to the model and the events use the same ids.
        let Message::Assistant { tool_calls, .. } = &c.messages[0] else {
            panic!()
        };
        let in_history: Vec<&str> = tool_calls.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(in_history, ids);
        let in_events: Vec<&str> = c
            .events
            .iter()
            .filter(|e| e.kind == EventKind::ToolCall)
            .map(|e| e.payload["toolCallId"].as_str().unwrap())
            .collect();
        assert_eq!(in_events, ids);
    }

    #[test]
    fn immediate_results_continue_until_the_budget_ends() {
        let r = Response {
            calls: vec![call(None, "ask_user", json!({"question": ""}))],
            ..Default::default()
        };
        let c = run_step(r.clone(), &[], false);
        assert!(matches!(c.transition, Transition::Running));
        assert_eq!(
            kinds(&c),
            ["step-start", "tool-call", "tool-result", "step-finish"]
        );
        assert_eq!(c.messages.len(), 2);
        let c = run_step(r, &[], true);
        assert!(
            matches!(c.transition, Transition::Completed { ref finish_reason, .. } if finish_reason == "tool-calls")
        );
        assert_eq!(
            c.events.last().unwrap().payload["finishReason"],
            "tool-calls"
        );
    }

    #[test]
    fn unparsable_arguments_become_a_tool_error() {
        let r = Response {
            calls: vec![ModelCall {
                id: Some("x".into()),
                name: "ask_user".into(),
                args: Err(BadArgs {
                    raw: "{\"q".into(),
                    message: "bad json".into(),
                }),
            }],
            ..Default::default()
        };
        let c = run_step(r, &[], false);
        assert_eq!(
            kinds(&c),
            ["step-start", "tool-call", "tool-error", "step-finish"]
        );
        let Message::Tool { content, .. } = &c.messages[1] else {
            panic!()
        };
        // Mastra's error-text: the plain message, not a JSON object.
        assert_eq!(
            content,
            "Tool \"ask_user\" received invalid arguments — the provided JSON could not be parsed. Please provide valid JSON arguments."
        );
        // The event keeps the reason and the raw arguments.
        assert_eq!(
            c.events[2].payload,
            json!({"toolCallId": "x", "toolName": "ask_user", "args": "{\"q",
                   "error": {"name": "ToolArgumentsError", "message": "bad json"}})
        );
    }

    #[test]
    fn an_unknown_tool_gets_mastras_text_whether_or_not_the_step_suspends() {
        let expected = "Tool \"deploy\" not found. Available tools: ask_user, submit_plan. Call tools by their exact name only — never add prefixes, namespaces, or colons.";
        let deploy = call(Some("d"), "deploy", json!({"env": "prod"}));
        let c = run_step(
            Response {
                calls: vec![deploy.clone()],
                ..Default::default()
            },
            &[],
            false,
        );
        let Message::Tool { content, .. } = &c.messages[1] else {
            panic!()
        };
        assert_eq!(content, expected);
        assert_eq!(c.events[2].payload["error"]["message"], expected);
        assert_eq!(c.events[2].payload["args"], json!({"env": "prod"}));

        // Beside a question, the result waits in the call's record for the resumption.
        let c = run_step(
            Response {
                calls: vec![
                    call(Some("q"), "ask_user", json!({"question": "Q?"})),
                    deploy,
                    ModelCall {
                        id: Some("b".into()),
                        name: "ask_user".into(),
                        args: Err(BadArgs {
                            raw: "{".into(),
                            message: "cut off".into(),
                        }),
                    },
                ],
                ..Default::default()
            },
            &[],
            false,
        );
        assert!(matches!(c.transition, Transition::Suspended));
        assert_eq!(c.calls[1].result, Some(json!(expected)));
        assert_eq!(c.calls[2].args, json!("{"));
        let records: Vec<CallRecord> = c
            .calls
            .iter()
            .enumerate()
            .map(|(i, n)| CallRecord {
                seq: i as i64,
                result: n.result.clone().or(Some(
                    json!({"content": "User answered: a", "isError": false}),
                )),
                error: n.error.clone(),
                approved_args: None,
                digest: None,
                ..CallRecord::fixture("r", &n.call_id, &n.tool_name, n.args.clone())
            })
            .collect();
        let resumed = resumed_results(&records);
        let contents: Vec<String> = resumed
            .messages
            .iter()
            .map(|m| match m {
                Message::Tool { content, .. } => content.clone(),
                _ => panic!("a tool message"),
            })
            .collect();
        assert_eq!(
            contents,
            [
                r#"{"content":"User answered: a","isError":false}"#.to_string(),
                expected.to_string(),
                invalid_arguments_text("ask_user"),
            ]
        );
        assert_eq!(resumed.events[2].kind, EventKind::ToolError);
        assert_eq!(resumed.events[2].payload["args"], "{");
    }

    #[test]
    fn no_model_response_makes_the_step_panic() {
        use crate::testing::{json_input, string, Rng, CASES};
        let examples = [
            json!({"question": "Q?"}),
            json!({"question": "Which?", "options": [{"label": "a"}], "selectionMode": "multi_select"}),
            json!({"path": "plan.md"}),
        ];
        let mut rng = Rng::new(7);
        for _ in 0..CASES {
            let calls = (0..rng.below(5))
                .map(|_| ModelCall {
                    id: match rng.below(4) {
                        0 => None,
                        1 => Some(rng.pick(&["call_0", "call_1", ""]).to_string()),
                        _ => Some(string(&mut rng)),
                    },
                    name: match rng.below(4) {
                        0 => "ask_user".into(),
                        1 => "submit_plan".into(),
                        2 => "nope".into(),
                        _ => string(&mut rng),
                    },
                    args: if rng.chance(85) {
                        Ok(json_input(&mut rng, &examples))
                    } else {
                        Err(BadArgs {
                            raw: string(&mut rng),
                            message: string(&mut rng),
                        })
                    },
                })
                .collect();
            let response = Response {
                text: rng.chance(50).then(|| string(&mut rng)),
                calls,
                usage: Usage {
                    input_tokens: rng.next_u64() % 1000,
                    output_tokens: rng.next_u64() % 1000,
                    total_tokens: rng.next_u64() % 2000,
                },
            };
            let used = ["call_0", "gen_1"];
            let c = run_step(response, &used, rng.chance(20));
            // Ids are unique in the run; the step suspends exactly when an item waits.
            let Message::Assistant { tool_calls, .. } = &c.messages[0] else {
                panic!("the first message is the model's")
            };
            let ids: HashSet<&str> = tool_calls.iter().map(|t| t.id.as_str()).collect();
            assert_eq!(ids.len(), tool_calls.len());
            assert!(ids.iter().all(|id| typable(id) && !used.contains(id)));
            let waits = c.calls.iter().any(|c| c.state == CallState::Pending);
            assert_eq!(matches!(c.transition, Transition::Suspended), waits);
            assert_eq!(kinds(&c)[0], "step-start");
        }
    }
}
