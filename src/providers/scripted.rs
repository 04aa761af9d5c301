//! `script:PATH`: a deterministic model for examples, demos and tests.
//!
//! The file holds `{"steps":[...]}`. The first call returns the first step; after a step
//! the next one in the file follows, unless the step has a `next` list of cases
//! (`branches`) that picks the step by what the model received. Which step a call gets is
//! worked out again from the whole conversation on every call, so any process that
//! continues a run gets the same one; nothing is kept between calls. A script whose
//! branches cannot be followed (a `goto` to no step) is refused when it is read; a step
//! whose cases all miss fails the run, as running past the last step does. A step's text,
//! arguments and `contains` cases may use what the person answered earlier
//! (`{{answer:CALL}}`, `template.rs`), found again in the conversation the same way.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use serde::Deserialize;
use serde_json::Value;

use super::branches::{self, Case, When};
use super::{template, BadArgs, ModelCall, Provider, Request, Response};
use crate::domain::{Message, ASK_USER};
use crate::error::{fail, Error};
use crate::limits::{self, MAX_SCRIPT_DELAY, MAX_SCRIPT_FILE};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Script {
    steps: Vec<Step>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Step {
    /// The name `goto` uses.
    id: Option<String>,
    text: Option<String>,
    tool_calls: Option<Vec<ScriptCall>>,
    delay_ms: Option<u64>,
    /// Cases that pick the step after this one; without them, the next in the file.
    next: Option<Vec<Case>>,
}

/// A tool call as a script or a `command:` model writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScriptCall {
    id: Option<String>,
    name: String,
    /// An object, or a string holding JSON text as a model would send it.
    #[serde(default = "empty_object")]
    args: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

pub struct Scripted {
    path: PathBuf,
    steps: Vec<Step>,
    /// Step id → index.
    ids: HashMap<String, usize>,
}

impl Scripted {
    pub fn load(path: &Path) -> Result<Scripted> {
        let shown = path.display();
        let bytes = limits::read_regular_file(path, MAX_SCRIPT_FILE).map_err(|e| match e {
            limits::ReadError::Io(e) => Error::invalid(format!("cannot read script {shown}: {e}")),
            other => Error::invalid(format!("script {shown} {other}")),
        })?;
        let script: Script = serde_json::from_slice(&bytes)
            .map_err(|e| Error::invalid(format!("script {shown}: {e}")))?;
        let ids =
            check(&script.steps).map_err(|e| Error::invalid(format!("script {shown}: {e}")))?;
        Ok(Scripted {
            path: path.to_path_buf(),
            steps: script.steps,
            ids,
        })
    }

    /// The step's number (and id) as an error names it.
    fn label(&self, at: usize) -> String {
        match self.steps.get(at).and_then(|s| s.id.as_deref()) {
            Some(id) => format!("step {} (\"{id}\")", at + 1),
            None => format!("step {}", at + 1),
        }
    }

    /// The step that follows step `at`, given what the model received after it.
    fn after(&self, at: usize, received: &[Message], answers: &Answers) -> Result<usize> {
        let Some(step) = self.steps.get(at) else {
            return self.past_the_end(at);
        };
        let Some(cases) = &step.next else {
            return Ok(at + 1);
        };
        let inputs = branches::received(received);
        let mut hit = None;
        for case in cases {
            let holds = match &case.when {
                None => true,
                Some(When::Contains(text)) => {
                    When::Contains(self.fill(at, text, answers)?).matches(&inputs)
                }
                Some(when) => when.matches(&inputs),
            };
            if holds {
                hit = Some(case);
                break;
            }
        }
        match hit {
            Some(case) => Ok(self.ids[&case.goto]),
            None => fail(Error::provider(format!(
                "script {}: {} has no case for what the model received ({})",
                self.path.display(),
                self.label(at),
                branches::describe(&inputs)
            ))),
        }
    }

    /// The step for the next call of a conversation, and the answers given so far:
    /// replayed from the first step through each of the model's messages and what
    /// followed it.
    fn replay(&self, messages: &[Message]) -> Result<(usize, Answers)> {
        let made: Vec<usize> = messages
            .iter()
            .enumerate()
            .filter(|(_, m)| matches!(m, Message::Assistant { .. }))
            .map(|(i, _)| i)
            .collect();
        let mut at = 0;
        let mut answers = Answers::new();
        for (k, &i) in made.iter().enumerate() {
            let end = made.get(k + 1).copied().unwrap_or(messages.len());
            let received = &messages[i + 1..end];
            self.note_answers(at, &messages[i], received, &mut answers);
            at = self.after(at, received, &answers)?;
        }
        Ok((at, answers))
    }

    /// Records the answers to step `at`'s named `ask_user` calls, made as `message` (the
    /// calls in the script's order, under the ids the run gave them) and answered in
    /// `received`.
    fn note_answers(
        &self,
        at: usize,
        message: &Message,
        received: &[Message],
        answers: &mut Answers,
    ) {
        let (Some(step), Message::Assistant { tool_calls, .. }) = (self.steps.get(at), message)
        else {
            return;
        };
        for (scripted, made) in step.tool_calls.iter().flatten().zip(tool_calls) {
            let Some(name) = scripted.id.as_ref().filter(|_| scripted.name == ASK_USER) else {
                continue;
            };
            let answer = received.iter().find_map(|m| match m {
                Message::Tool {
                    tool_call_id,
                    content,
                    ..
                } if *tool_call_id == made.id => branches::answer(content),
                _ => None,
            });
            if let Some(answer) = answer {
                answers.insert(name.clone(), answer);
            }
        }
    }

    /// `text` of step `at` with its templates filled, or the error that names the call
    /// that has no answer yet.
    fn fill(&self, at: usize, text: &str, answers: &Answers) -> Result<String> {
        template::fill(text, &|name| answers.get(name).cloned())
            .map_err(|name| self.unanswered(at, &name))
    }

    fn unanswered(&self, at: usize, name: &str) -> anyhow::Error {
        Error::provider(format!(
            "script {}: {} uses {{{{answer:{name}}}}}, but the call \"{name}\" has no answer yet",
            self.path.display(),
            self.label(at)
        ))
        .into()
    }

    fn past_the_end<T>(&self, at: usize) -> Result<T> {
        fail(Error::provider(format!(
            "script {} has no step {} (it has {})",
            self.path.display(),
            at + 1,
            self.steps.len()
        )))
    }
}

/// What the person answered so far: the script's id of an `ask_user` call → the answer.
type Answers = HashMap<String, String>;

/// Checks what serde cannot: every step says something, delays are bounded, ids are
/// unique, every branch leads to a step, and every template names an `ask_user` call.
/// Returns the ids.
fn check(steps: &[Step]) -> Result<HashMap<String, usize>, String> {
    let mut ids = HashMap::new();
    let questions: Vec<&str> = steps
        .iter()
        .flat_map(|s| s.tool_calls.iter().flatten())
        .filter(|c| c.name == ASK_USER)
        .filter_map(|c| c.id.as_deref())
        .collect();
    for (i, step) in steps.iter().enumerate() {
        let n = i + 1;
        if let Some(name) = templates(step).into_iter().find(|t| !questions.contains(t)) {
            return Err(format!(
                "step {n} uses {{{{answer:{name}}}}}, but no ask_user call of the script has the id \"{name}\""
            ));
        }
        if step.text.is_none() && step.tool_calls.is_none() {
            return Err(format!("step {n} has neither text nor toolCalls"));
        }
        if step
            .delay_ms
            .is_some_and(|ms| ms > MAX_SCRIPT_DELAY.as_millis() as u64)
        {
            return Err(format!(
                "step {n} has a delayMs longer than the maximum, {} ms",
                MAX_SCRIPT_DELAY.as_millis()
            ));
        }
        if let Some(id) = &step.id {
            if id.is_empty() {
                return Err(format!("step {n} has an empty id"));
            }
            if let Some(first) = ids.insert(id.clone(), i) {
                return Err(format!(
                    "steps {} and {n} have the same id \"{id}\"",
                    first + 1
                ));
            }
        }
    }
    for (i, step) in steps.iter().enumerate() {
        let n = i + 1;
        let Some(cases) = &step.next else { continue };
        if cases.is_empty() {
            return Err(format!("step {n} has an empty next list"));
        }
        for (k, case) in cases.iter().enumerate() {
            if !ids.contains_key(&case.goto) {
                return Err(format!(
                    "step {n} goes to \"{}\", but no step has that id",
                    case.goto
                ));
            }
            if case.when.is_none() && k + 1 < cases.len() {
                return Err(format!(
                    "step {n}: a case without \"when\" matches everything, so it must be the last"
                ));
            }
        }
    }
    Ok(ids)
}

/// The call names of every template in a step.
fn templates(step: &Step) -> Vec<&str> {
    let mut names: Vec<&str> = step
        .text
        .as_deref()
        .map(template::names)
        .unwrap_or_default();
    for call in step.tool_calls.iter().flatten() {
        match &call.args {
            Value::String(raw) => names.extend(template::names(raw)),
            args => names.extend(template::names_in(args)),
        }
    }
    for case in step.next.iter().flatten() {
        if let Some(When::Contains(text)) = &case.when {
            names.extend(template::names(text));
        }
    }
    names
}

pub(super) fn call_of(c: &ScriptCall) -> ModelCall {
    let args = match &c.args {
        Value::String(raw) => serde_json::from_str(raw).map_err(|e| BadArgs {
            raw: raw.clone(),
            message: format!("arguments are not valid JSON: {e}"),
        }),
        other => Ok(other.clone()),
    };
    ModelCall {
        id: c.id.clone(),
        name: c.name.clone(),
        args,
    }
}

impl Provider for Scripted {
    fn complete(&self, request: &Request, on_text: &mut dyn FnMut(&str)) -> Result<Response> {
        let (at, answers) = self.replay(request.messages)?;
        let Some(step) = self.steps.get(at) else {
            return self.past_the_end(at);
        };
        let text = match &step.text {
            Some(t) => Some(self.fill(at, t, &answers)?),
            None => None,
        };
        let mut calls = vec![];
        for scripted in step.tool_calls.iter().flatten() {
            let mut call = call_of(scripted);
            if let Ok(args) = &call.args {
                call.args = Ok(template::fill_in(args, &|name| answers.get(name).cloned())
                    .map_err(|name| self.unanswered(at, &name))?);
            }
            calls.push(call);
        }
        if let Some(ms) = step.delay_ms {
            std::thread::sleep(Duration::from_millis(ms));
        }
        if let Some(text) = text.as_deref().filter(|t| !t.is_empty()) {
            on_text(text);
        }
        Ok(Response {
            text,
            calls,
            usage: Default::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{damage, json_input, Rng};
    use serde_json::json;

    /// A conversation in which the model already answered `n` times.
    fn history(n: usize) -> Vec<Message> {
        let mut m = vec![Message::User {
            content: "go".into(),
        }];
        for _ in 0..n {
            m.push(Message::Assistant {
                content: Some("ok".into()),
                tool_calls: vec![],
            });
        }
        m
    }

    fn load(script: Value) -> Result<Scripted> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("script.json");
        std::fs::write(&file, script.to_string()).unwrap();
        Scripted::load(&file)
    }

    fn call(script: &Scripted, messages: &[Message]) -> Result<Response> {
        let request = Request {
            system: "",
            messages,
            tools: &[],
            settings: &Default::default(),
        };
        script.complete(&request, &mut |_| {})
    }

    fn text_of(script: &Scripted, messages: &[Message]) -> String {
        call(script, messages)
            .unwrap_or_else(|e| panic!("{e:#}"))
            .text
            .unwrap_or_default()
    }

    fn assistant() -> Message {
        Message::Assistant {
            content: None,
            tool_calls: vec![],
        }
    }

    fn result(tool: &str, content: &str) -> Message {
        Message::Tool {
            tool_call_id: "c".into(),
            tool_name: tool.into(),
            content: content.into(),
        }
    }

    fn answered(label: &str) -> Message {
        answered_to("c", label)
    }

    fn answered_to(id: &str, label: &str) -> Message {
        Message::Tool {
            tool_call_id: id.into(),
            tool_name: ASK_USER.into(),
            content: json!({"content": format!("User answered: {label}"), "isError": false})
                .to_string(),
        }
    }

    /// The model's message that asked one question, under the id the run gave the call.
    fn asked(id: &str) -> Message {
        Message::Assistant {
            content: None,
            tool_calls: vec![crate::domain::ToolCall {
                id: id.into(),
                name: ASK_USER.into(),
                args: json!({"question": "Q?"}),
                invalid_args: None,
            }],
        }
    }

    #[test]
    fn a_step_uses_the_answer_to_a_named_call() {
        let s = load(json!({"steps": [
            {"id": "ask", "toolCalls": [{"id": "v", "name": "ask_user", "args": {"question": "Which?"}}]},
            {"text": "You said {{answer:v}}.",
             "toolCalls": [{"name": "tag", "args": {"version": "{{answer:v}}", "n": 1}}],
             "next": [{"when": {"contains": "v{{answer:v}} done"}, "goto": "done"},
                      {"goto": "ask"}]},
            {"id": "done", "text": "Done with {{answer:v}}."}
        ]}))
        .unwrap();
        let go = Message::User {
            content: "go".into(),
        };
        // The run may give the call another id than the script's (a repeated id): the
        // answer is found under the id the call was made with.
        let mut m = vec![go, asked("gen_7"), answered_to("gen_7", "1.2.3")];
        let r = call(&s, &m).unwrap();
        assert_eq!(r.text.as_deref(), Some("You said 1.2.3."));
        assert_eq!(r.calls[0].args, Ok(json!({"version": "1.2.3", "n": 1})));
        // A result that does not contain the filled text misses the case: asked again,
        // the latest answer is the one used.
        m.push(assistant());
        m.push(result("tag", "v9 done"));
        m.push(asked("gen_8"));
        m.push(answered_to("gen_8", "2.0.0"));
        assert_eq!(text_of(&s, &m), "You said 2.0.0.");
        m.push(assistant());
        m.push(result("tag", "v2.0.0 done"));
        assert_eq!(text_of(&s, &m), "Done with 2.0.0.");
        // No answer yet (the question's result was an error): the call fails, naming it.
        let unanswered = vec![
            Message::User {
                content: "go".into(),
            },
            asked("v"),
            result(ASK_USER, r#"{"error":true,"message":"invalid"}"#),
        ];
        let e = format!("{:#}", call(&s, &unanswered).unwrap_err());
        assert!(
            e.ends_with("step 2 uses {{answer:v}}, but the call \"v\" has no answer yet"),
            "{e}"
        );
    }

    #[test]
    fn a_template_must_name_a_question_of_the_script() {
        let cases = [
            json!([{"text": "{{answer:v}}"}]),
            json!([{"toolCalls": [{"id": "v", "name": "tag", "args": {"x": "{{answer:v}}"}}]}]),
            json!([{"toolCalls": [{"name": "tag", "args": "{\"x\": \"{{answer:v}}\"}"}]}]),
            json!([{"id": "a", "text": "t", "next": [{"when": {"contains": "{{answer:v}}"}, "goto": "a"}]}]),
        ];
        for steps in cases {
            let e = format!("{:#}", load(json!({ "steps": steps })).err().unwrap());
            assert!(
                e.contains(
                    "step 1 uses {{answer:v}}, but no ask_user call of the script has the id \"v\""
                ),
                "{steps}: {e}"
            );
        }
    }

    #[test]
    fn steps_follow_in_order_without_branches() {
        let s = load(json!({"steps": [{"text": "one"}, {"text": "two"}]})).unwrap();
        assert_eq!(text_of(&s, &history(0)), "one");
        assert_eq!(text_of(&s, &history(1)), "two");
        let e = format!("{:#}", call(&s, &history(2)).unwrap_err());
        assert!(e.ends_with("script.json has no step 3 (it has 2)"), "{e}");
    }

    #[test]
    fn a_branch_follows_what_the_model_received() {
        let s = load(json!({"steps": [
            {"id": "ask", "toolCalls": [{"name": "ask_user", "args": {"question": "Which?"}}],
             "next": [
                {"when": {"answer": "beta"}, "goto": "beta"},
                {"when": {"contains": "stable"}, "goto": "stable"},
                {"goto": "other"}
             ]},
            {"id": "stable", "text": "Stable it is."},
            {"id": "beta", "text": "Beta it is.", "next": [{"goto": "ask"}]},
            {"id": "other", "text": "Something else."}
        ]}))
        .unwrap();
        let first = |label: &str| {
            vec![
                Message::User {
                    content: "go".into(),
                },
                assistant(),
                answered(label),
            ]
        };
        assert_eq!(text_of(&s, &first("beta")), "Beta it is.");
        assert_eq!(text_of(&s, &first("stable")), "Stable it is.");
        assert_eq!(text_of(&s, &first("nightly")), "Something else.");
        // After "beta" the script goes back to the question, then (a reply) on again.
        let mut again = first("beta");
        again.push(assistant());
        again.push(Message::User {
            content: "ask me again".into(),
        });
        assert_eq!(call(&s, &again).unwrap().calls[0].name, "ask_user");
        again.push(assistant());
        again.push(answered("stable"));
        assert_eq!(text_of(&s, &again), "Stable it is.");
        // A step after a branch with no cases falls through in file order.
        let mut on = first("stable");
        on.push(assistant());
        on.push(Message::User {
            content: "and then?".into(),
        });
        assert_eq!(text_of(&s, &on), "Beta it is.");
    }

    #[test]
    fn a_step_whose_cases_all_miss_fails_the_call() {
        let s = load(json!({"steps": [
            {"id": "plan", "toolCalls": [{"name": "submit_plan", "args": {"path": "P.md"}}],
             "next": [{"when": {"plan": "approved"}, "goto": "done"}]},
            {"id": "done", "text": "Done."}
        ]}))
        .unwrap();
        let messages = vec![
            Message::User {
                content: "go".into(),
            },
            assistant(),
            result(
                "submit_plan",
                r#"{"content":"Failed to submit plan: P.md does not exist","isError":true}"#,
            ),
        ];
        let e = format!("{:#}", call(&s, &messages).unwrap_err());
        assert!(
            e.ends_with("script.json: step 1 (\"plan\") has no case for what the model received (a result of submit_plan: {\"content\":\"Failed to submit plan: P.md does not exist\",\"isError\":true})"),
            "{e}"
        );
    }

    #[test]
    fn branches_to_nowhere_are_refused_when_the_script_is_read() {
        let step = |extra: Value| {
            let mut s = json!({"text": "t"});
            s.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            s
        };
        let cases = [
            (
                json!([step(json!({"next": [{"goto": "nowhere"}]}))]),
                "step 1 goes to \"nowhere\", but no step has that id",
            ),
            (
                json!([step(json!({"id": "a"})), step(json!({"id": "a"}))]),
                "steps 1 and 2 have the same id \"a\"",
            ),
            (json!([step(json!({"id": ""}))]), "step 1 has an empty id"),
            (
                json!([step(json!({"id": "a", "next": []}))]),
                "step 1 has an empty next list",
            ),
            (
                json!([step(
                    json!({"id": "a", "next": [{"goto": "a"}, {"when": {"answer": "x"}, "goto": "a"}]})
                )]),
                "step 1: a case without \"when\" matches everything, so it must be the last",
            ),
            (
                json!([step(
                    json!({"next": [{"when": {"plan": "later"}, "goto": "a"}]})
                )]),
                "unknown variant `later`",
            ),
            (
                json!([step(json!({"next": [{"if": {}, "goto": "a"}]}))]),
                "unknown field `if`",
            ),
            (
                json!([{"id": "a"}]),
                "step 1 has neither text nor toolCalls",
            ),
        ];
        for (steps, expected) in cases {
            let e = format!("{:#}", load(json!({ "steps": steps })).err().unwrap());
            assert!(e.contains(expected), "{steps}: {e}");
        }
    }

    #[test]
    fn the_release_example_branches_on_each_decision() {
        let example: Value =
            serde_json::from_str(include_str!("../../examples/release/script.json")).unwrap();
        let s = load(example).unwrap();
        let mut m = vec![Message::User {
            content: "Prepare the next release".into(),
        }];
        for (id, label) in [
            ("call_version", "3.1.0"),
            ("call_channel", "beta"),
            ("call_chores", "Add tests, Update docs"),
        ] {
            m.push(asked(id));
            m.push(answered_to(id, label));
        }
        let plan = crate::tools::submit_plan::Plan::from_text(
            "RELEASE_PLAN.md",
            "# Release plan\n\n1. Go.",
        );
        let decided = |d: Value| {
            let d = crate::tools::submit_plan::Decision::from_json(&d).unwrap();
            result("submit_plan", &d.result(&plan).to_string())
        };
        let after = |m: &[Message], received: Message| {
            let mut m = m.to_vec();
            m.push(assistant());
            m.push(received);
            m
        };
        assert_eq!(
            call(&s, &m).unwrap().calls[0].args,
            Ok(json!({"path": "RELEASE_PLAN.md"}))
        );
        let approved = after(&m, decided(json!({"action": "approved"})));
        assert!(text_of(&s, &approved).starts_with("The plan is approved."));
        // It tags the version it was told, and says so once it is tagged.
        let tag = call(&s, &approved).unwrap();
        assert!(tag.text.unwrap().contains("I tag v3.1.0 now"));
        assert_eq!(tag.calls[0].args, Ok(json!({"version": "3.1.0"})));
        let tagged = after(
            &approved,
            result("tag_release", r#"{"tag":"v3.1.0","note":"n"}"#),
        );
        assert_eq!(
            text_of(&s, &tagged),
            "Tagged v3.1.0. Release preparation for the beta channel is underway: the announcement comes next."
        );
        // Approved with another version (changed arguments): tagged all the same.
        let other = after(
            &approved,
            result("tag_release", r#"{"tag":"v3.1.1","note":"n"}"#),
        );
        assert_eq!(
            text_of(&s, &other),
            "Tagged the release with the version you approved in place of v3.1.0 (the tool's result says which). Release preparation for the beta channel is underway: the announcement comes next."
        );
        let declined = after(
            &approved,
            result("tag_release", "Tool call was not approved by the user"),
        );
        assert!(text_of(&s, &declined).starts_with("I did not tag the release"));
        let feedback = after(
            &m,
            decided(json!({"action": "rejected", "feedback": "Add a rollback step."})),
        );
        assert_eq!(
            call(&s, &feedback).unwrap().calls[0].args,
            Ok(json!({"path": "RELEASE_PLAN-v2.md"}))
        );
        let silent = after(&m, decided(json!({"action": "rejected"})));
        let waits = call(&s, &silent).unwrap();
        assert!(waits.calls.is_empty());
        let replied = after(
            &silent,
            Message::User {
                content: "Add a rollback step.".into(),
            },
        );
        assert_eq!(
            call(&s, &replied).unwrap().calls[0].args,
            Ok(json!({"path": "RELEASE_PLAN-v2.md"}))
        );
        let missing = after(
            &m,
            result(
                "submit_plan",
                r#"{"content":"Failed to submit plan: RELEASE_PLAN.md does not exist","isError":true}"#,
            ),
        );
        assert!(text_of(&s, &missing).contains("--cwd"));
    }

    #[test]
    fn no_script_makes_loading_or_a_model_call_panic() {
        let example: Value =
            serde_json::from_str(include_str!("../../examples/release/script.json")).unwrap();
        let strings = json!({"steps": [
            {"toolCalls": [{"name": "ask_user", "args": "{\"question\": \"Q?\"}"}]},
            {"toolCalls": [{"id": "x", "name": "ask_user", "args": "{\"question"}]},
            {"text": "done", "delayMs": 0}
        ]});
        let examples = [example, strings];
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("script.json");
        let mut rng = Rng::new(4);
        let mut loaded = 0;
        for _ in 0..1000 {
            let bytes = if rng.chance(30) {
                let e = rng.pick(&examples).to_string();
                damage(&mut rng, &e)
            } else {
                serde_json::to_vec(&json_input(&mut rng, &examples)).unwrap()
            };
            std::fs::write(&file, bytes).unwrap();
            let Ok(mut script) = Scripted::load(&file) else {
                continue;
            };
            loaded += 1;
            for step in &mut script.steps {
                step.delay_ms = None;
            }
            let linear = script.steps.iter().all(|s| s.next.is_none());
            for n in 0..=script.steps.len() + 1 {
                let result = call(&script, &history(n));
                if linear {
                    assert_eq!(result.is_ok(), n < script.steps.len());
                }
            }
        }
        assert!(
            loaded > 50,
            "only {loaded} generated files were valid scripts"
        );
    }
}
