//! The tools a model can call: the two human-input tools `ask_user` and `submit_plan`, and
//! the agent's own command tools (SPEC §11), some of which wait for approval.
//!
//! A tool validates its input, then either returns a result for the model or asks the host
//! to suspend (for an answer, or for an approval). Tools never prompt, print, or touch the
//! store; after a person decides, they turn the decision into resume data and the result.
//! A command tool's program runs here (`program`), in its own process group.

pub mod approval;
pub mod ask_user;
pub mod beneath;
pub mod command;
pub mod expired;
pub mod model_path;
pub mod program;
pub mod schema;
pub mod submit_plan;
pub mod write_file;

use std::path::Path;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::domain::{ToolCall, ToolOutcome, ASK_USER, HUMAN_TOOLS, SUBMIT_PLAN};
use command::CommandTool;

/// A tool as offered to a model: name, description and JSON Schema of its input.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// One tool of an agent, as its file and the stored run write it: a built-in by its name, or
/// a command tool (an object).
#[derive(Clone, Debug, PartialEq)]
pub enum ToolEntry {
    Builtin(String),
    Command(CommandTool),
}

impl ToolEntry {
    pub fn name(&self) -> &str {
        match self {
            ToolEntry::Builtin(n) => n,
            ToolEntry::Command(t) => &t.name,
        }
    }

    /// The built-in tools, in the order they are offered.
    pub fn builtins() -> Vec<ToolEntry> {
        HUMAN_TOOLS
            .iter()
            .map(|t| ToolEntry::Builtin(t.to_string()))
            .collect()
    }
}

impl Serialize for ToolEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolEntry::Builtin(n) => s.serialize_str(n),
            ToolEntry::Command(t) => t.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ToolEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ToolEntry, D::Error> {
        use serde::de::Error;
        match Value::deserialize(d)? {
            Value::String(n) => Ok(ToolEntry::Builtin(n)),
            v @ Value::Object(_) => {
                let name = v["name"].as_str().unwrap_or("?").to_string();
                serde_json::from_value(v)
                    .map(ToolEntry::Command)
                    .map_err(|e| D::Error::custom(format!("command tool \"{name}\": {e}")))
            }
            _ => Err(D::Error::custom(
                "a tool is a built-in's name (\"ask_user\", \"submit_plan\") or a command tool object",
            )),
        }
    }
}

/// The tools of one agent in one run, as the driver uses them.
pub struct Toolbox<'a> {
    pub entries: &'a [ToolEntry],
    /// The run's working directory.
    pub cwd: &'a Path,
    pub run_id: &'a str,
}

impl Toolbox<'_> {
    /// The tools' names, in the order they are offered.
    pub fn names(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.name().to_string()).collect()
    }

    /// What a model is offered.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                ToolEntry::Builtin(n) => builtin_spec(n),
                ToolEntry::Command(t) => Some(t.spec()),
            })
            .collect()
    }

    /// The command tool of this name.
    pub fn command(&self, name: &str) -> Option<&CommandTool> {
        self.entries.iter().find_map(|e| match e {
            ToolEntry::Command(t) if t.name == name => Some(t),
            _ => None,
        })
    }

    /// What a call does inside a step: a built-in's outcome; for a command tool, its
    /// validation object, a wait for approval, or the program's outcome (`started` is told
    /// its process group before it is waited for, as in `run`). `None` when the agent has
    /// no such tool.
    pub fn evaluate(
        &self,
        call: &ToolCall,
        started: &mut dyn FnMut(crate::sys::group::Recorded) -> bool,
    ) -> Option<ToolOutcome> {
        let entry = self.entries.iter().find(|e| e.name() == call.name)?;
        let tool = match entry {
            ToolEntry::Builtin(n) => return evaluate(n, &call.args, self.cwd),
            ToolEntry::Command(t) => t,
        };
        if let Err(invalid) = tool.validate(&call.args) {
            return Some(ToolOutcome::Result(invalid));
        }
        if tool.require_approval {
            return Some(ToolOutcome::Approval);
        }
        Some(self.run(tool, call, started))
    }

    /// Runs a command tool's program for `call` (approved, or needing no approval).
    pub fn run(
        &self,
        tool: &CommandTool,
        call: &ToolCall,
        started: &mut dyn FnMut(crate::sys::group::Recorded) -> bool,
    ) -> ToolOutcome {
        program::run(
            &program::Call {
                tool,
                run_id: self.run_id,
                call_id: &call.id,
                args: &call.args,
                cwd: self.cwd,
            },
            started,
        )
    }
}

fn builtin_spec(name: &str) -> Option<ToolSpec> {
    match name {
        ASK_USER => Some(ask_user::spec()),
        SUBMIT_PLAN => Some(submit_plan::spec()),
        _ => None,
    }
}

/// Runs a built-in tool inside an agent run whose working directory is `cwd`.
/// `None` when no such tool exists.
pub fn evaluate(name: &str, args: &Value, cwd: &Path) -> Option<ToolOutcome> {
    match name {
        ASK_USER => Some(ask_user::evaluate(args)),
        SUBMIT_PLAN => Some(submit_plan::evaluate(args, cwd)),
        _ => None,
    }
}

/// A tool called outside any run: the readable fallback text, or the error object.
pub fn fallback(name: &str, args: &Value) -> Option<Result<String, Value>> {
    match name {
        ASK_USER => Some(ask_user::fallback(args)),
        SUBMIT_PLAN => Some(submit_plan::fallback(args)),
        _ => None,
    }
}

/// The problems a tool's error result names, on one line (`- field: problem` lines joined,
/// or its content).
pub fn problems(result: &Value) -> String {
    let lines: Vec<&str> = result["message"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .collect();
    if lines.is_empty() {
        result["content"]
            .as_str()
            .unwrap_or("invalid input")
            .to_string()
    } else {
        lines.join("; ")
    }
}
