//! The branches of a scripted model: which step comes after one, decided by what the
//! model received after it (the results of the step's tool calls, or the user's next
//! message), so a demo answers an approval, a rejection or a label as a real agent would.
//!
//! A step's `next` is a list of cases tried in order, `{"when": {...}, "goto": "<step
//! id>"}`; a case without `when` always matches. A `when` has exactly one key:
//! `plan` (`approved`, `rejected-with-feedback`, `rejected-without-feedback`), `answer`
//! (the exact answer to `ask_user`, several labels joined with `", "`), `failed` (a call of
//! that tool returned an error) or `contains` (a tool result or user message contains the
//! text). Pure functions over messages: no IO, no files, no knowledge of step order.

use serde::Deserialize;
use serde_json::Value;

use crate::domain::{Message, ASK_USER, SUBMIT_PLAN};
use crate::tools::submit_plan::APPROVED_TEXT;

/// One case of a step's `next` list.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Case {
    #[serde(default)]
    pub when: Option<When>,
    pub goto: String,
}

/// What must have been received for a case to match.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub enum When {
    /// A `submit_plan` result with this decision.
    Plan(PlanDecision),
    /// An `ask_user` result with exactly this answer.
    Answer(String),
    /// A call of this tool failed (an error text, `isError: true`, or invalid input).
    Failed(String),
    /// A tool result (as the model got it) or a user message contains this text.
    Contains(String),
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PlanDecision {
    Approved,
    RejectedWithFeedback,
    RejectedWithoutFeedback,
}

/// One thing the model received after a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Input<'a> {
    /// A tool message: the tool's name and the content the model got.
    Result { tool: &'a str, content: &'a str },
    /// The user's message (a prompt or a `reply`).
    User(&'a str),
}

/// What the model received in `messages` (those that follow one of its answers).
pub fn received(messages: &[Message]) -> Vec<Input<'_>> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                tool_name, content, ..
            } => Some(Input::Result {
                tool: tool_name,
                content,
            }),
            Message::User { content } => Some(Input::User(content)),
            Message::Assistant { .. } => None,
        })
        .collect()
}

/// The inputs on one line, for an error that says no case matched.
pub fn describe(inputs: &[Input]) -> String {
    if inputs.is_empty() {
        return "nothing".into();
    }
    let parts: Vec<String> = inputs
        .iter()
        .map(|i| match i {
            Input::Result { tool, content } => format!("a result of {tool}: {content}"),
            Input::User(text) => format!("a user message: {text}"),
        })
        .collect();
    super::wire::one_line(&parts.join("; "))
}

impl When {
    pub fn matches(&self, inputs: &[Input]) -> bool {
        inputs.iter().any(|input| self.holds(*input))
    }

    fn holds(&self, input: Input) -> bool {
        match (self, input) {
            (When::Contains(text), Input::Result { content, .. } | Input::User(content)) => {
                content.contains(text.as_str())
            }
            (When::Plan(d), Input::Result { tool, content }) if tool == SUBMIT_PLAN => {
                plan_decision(content) == Some(*d)
            }
            (When::Answer(a), Input::Result { tool, content }) if tool == ASK_USER => {
                answer(content).is_some_and(|got| &got == a)
            }
            (When::Failed(t), Input::Result { tool, content }) => tool == t && is_error(content),
            _ => false,
        }
    }
}

/// A successful result object of a tool, or `None` (an error, or not an object).
fn success(content: &str) -> Option<serde_json::Map<String, Value>> {
    match serde_json::from_str(content) {
        Ok(Value::Object(o)) if !is_error_object(&o) => Some(o),
        _ => None,
    }
}

fn is_error_object(o: &serde_json::Map<String, Value>) -> bool {
    o.get("isError") == Some(&Value::Bool(true)) || o.get("error") == Some(&Value::Bool(true))
}

/// Whether a tool message is an error: a plain error text (what the model gets when no
/// tool ran), an `isError: true` result, or a validation object (`error: true`).
fn is_error(content: &str) -> bool {
    match serde_json::from_str(content) {
        Ok(Value::Object(o)) => is_error_object(&o),
        _ => true,
    }
}

fn plan_decision(content: &str) -> Option<PlanDecision> {
    let o = success(content)?;
    let submitted = o.get("submittedPlan")?;
    // An approval may carry feedback too; its content says it is one.
    Some(
        if o.get("content").and_then(Value::as_str) == Some(APPROVED_TEXT) {
            PlanDecision::Approved
        } else if submitted.get("feedback").is_some_and(Value::is_string) {
            PlanDecision::RejectedWithFeedback
        } else {
            PlanDecision::RejectedWithoutFeedback
        },
    )
}

/// The answer in an `ask_user` result (`User answered: ...`), if it is one.
pub(super) fn answer(content: &str) -> Option<String> {
    let o = success(content)?;
    let text = o.get("content")?.as_str()?;
    text.strip_prefix("User answered: ").map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::submit_plan::{Decision, Plan};
    use serde_json::json;

    fn tool(name: &str, content: &str) -> Message {
        Message::Tool {
            tool_call_id: "c".into(),
            tool_name: name.into(),
            content: content.into(),
        }
    }

    fn plan_result(decision: Value) -> Message {
        let plan = Plan::from_text("PLAN.md", "# Plan\n\n1. Ship.");
        let d = Decision::from_json(&decision).unwrap();
        tool(SUBMIT_PLAN, &d.result(&plan).to_string())
    }

    fn when(v: Value) -> When {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn plan_decisions_are_told_apart() {
        // (A Mastra server's approval may carry feedback; its content says it is one.)
        let plan = Plan::from_text("PLAN.md", "# Plan\n\n1. Ship.");
        let with_feedback = Decision::Approved {
            feedback: Some("Nice.".into()),
        };
        let approved = [tool(SUBMIT_PLAN, &with_feedback.result(&plan).to_string())];
        let feedback = [plan_result(
            json!({"action": "rejected", "feedback": "Add a rollback."}),
        )];
        let silent = [plan_result(json!({"action": "rejected"}))];
        let failed = [tool(
            SUBMIT_PLAN,
            r#"{"content":"Failed to submit plan: PLAN.md does not exist","isError":true}"#,
        )];
        let cases = [
            ("approved", [true, false, false, false]),
            ("rejected-with-feedback", [false, true, false, false]),
            ("rejected-without-feedback", [false, false, true, false]),
        ];
        for (decision, expected) in cases {
            let w = when(json!({ "plan": decision }));
            let got: Vec<bool> = [&approved, &feedback, &silent, &failed]
                .iter()
                .map(|m| w.matches(&received(&m[..])))
                .collect();
            assert_eq!(got, expected, "{decision}");
        }
        let w = when(json!({"failed": "submit_plan"}));
        assert!(w.matches(&received(&failed)));
        assert!(!w.matches(&received(&approved)));
    }

    #[test]
    fn answers_errors_and_text() {
        let beta = [tool(
            ASK_USER,
            r#"{"content":"User answered: beta","isError":false}"#,
        )];
        assert!(when(json!({"answer": "beta"})).matches(&received(&beta)));
        assert!(!when(json!({"answer": "bet"})).matches(&received(&beta)));
        assert!(!when(json!({"failed": "ask_user"})).matches(&received(&beta)));
        assert!(when(json!({"contains": "answered: be"})).matches(&received(&beta)));

        let invalid = [tool(
            ASK_USER,
            r#"{"error":true,"message":"Tool input validation failed for ask_user.","validationErrors":{}}"#,
        )];
        assert!(when(json!({"failed": "ask_user"})).matches(&received(&invalid)));
        assert!(!when(json!({"answer": ""})).matches(&received(&invalid)));
        let unknown = [tool(
            "deploy",
            "Tool \"deploy\" not found. Available tools: ask_user.",
        )];
        assert!(when(json!({"failed": "deploy"})).matches(&received(&unknown)));
        assert!(!when(json!({"failed": "ask_user"})).matches(&received(&unknown)));

        let reply = [Message::User {
            content: "Use the stable channel.".into(),
        }];
        assert!(when(json!({"contains": "stable"})).matches(&received(&reply)));
        assert!(!when(json!({"answer": "stable"})).matches(&received(&reply)));
        assert_eq!(
            describe(&received(&reply)),
            "a user message: Use the stable channel."
        );
        assert_eq!(describe(&[]), "nothing");
    }

    #[test]
    fn conditions_are_one_known_key() {
        for bad in [
            json!({"plan": "maybe"}),
            json!({"colour": "red"}),
            json!({"answer": "a", "failed": "b"}),
            json!({}),
            json!("approved"),
        ] {
            assert!(
                serde_json::from_value::<When>(bad.clone()).is_err(),
                "{bad}"
            );
        }
        assert!(serde_json::from_value::<Case>(json!({"goto": "x", "else": 1})).is_err());
    }
}
