//! `script:PATH`: a deterministic model for examples, demos and tests.
//!
//! The file holds `{"steps":[...]}`; the Nth call of a run returns step N, where N counts the
//! assistant messages already in the conversation, whichever process makes the call.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use serde::Deserialize;
use serde_json::Value;

use super::{BadArgs, ModelCall, Provider, Request, Response};
use crate::domain::Message;
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
    text: Option<String>,
    tool_calls: Option<Vec<ScriptCall>>,
    delay_ms: Option<u64>,
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
        for (i, step) in script.steps.iter().enumerate() {
            if step.text.is_none() && step.tool_calls.is_none() {
                return fail(Error::invalid(format!(
                    "script {shown}: step {} has neither text nor toolCalls",
                    i + 1
                )));
            }
            if step
                .delay_ms
                .is_some_and(|ms| ms > MAX_SCRIPT_DELAY.as_millis() as u64)
            {
                return fail(Error::usage(format!(
                    "script {shown}: step {} has a delayMs longer than the maximum, {} ms",
                    i + 1,
                    MAX_SCRIPT_DELAY.as_millis()
                )));
            }
        }
        Ok(Scripted {
            path: path.to_path_buf(),
            steps: script.steps,
        })
    }
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
        let n = request
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        let Some(step) = self.steps.get(n) else {
            return fail(Error::provider(format!(
                "script {} has no step {} (it has {})",
                self.path.display(),
                n + 1,
                self.steps.len()
            )));
        };
        if let Some(ms) = step.delay_ms {
            std::thread::sleep(Duration::from_millis(ms));
        }
        if let Some(text) = step.text.as_deref().filter(|t| !t.is_empty()) {
            on_text(text);
        }
        Ok(Response {
            text: step.text.clone(),
            calls: step.tool_calls.iter().flatten().map(call_of).collect(),
            usage: Default::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{damage, json_input, Rng};

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

    #[test]
    fn no_script_makes_loading_or_a_model_call_panic() {
        let example: Value =
            serde_json::from_str(include_str!("../../examples/release/script.json")).unwrap();
        let strings = serde_json::json!({"steps": [
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
            for n in 0..=script.steps.len() + 1 {
                let messages = history(n);
                let request = Request {
                    system: "",
                    messages: &messages,
                    tools: &[],
                    settings: &Default::default(),
                };
                let result = script.complete(&request, &mut |_| {});
                assert_eq!(result.is_ok(), n < script.steps.len());
            }
        }
        assert!(
            loaded > 50,
            "only {loaded} generated files were valid scripts"
        );
    }
}
