//! The two human-input tools the model can call: `ask_user` and `submit_plan`.
//!
//! A tool validates its input, then either returns a result object for the model or asks
//! the host to suspend. Tools never prompt, print, or touch the store; after a person
//! decides, they turn the decision into resume data and the result object.

pub mod ask_user;
pub mod beneath;
pub mod schema;
pub mod submit_plan;

use std::path::Path;

use serde_json::Value;

use crate::domain::{ToolOutcome, ASK_USER, SUBMIT_PLAN};

/// A tool as offered to a model: name, description and JSON Schema of its input.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub parameters: Value,
}

/// The specs of the named tools, in the order given; unknown names are skipped.
pub fn specs(names: &[String]) -> Vec<ToolSpec> {
    names
        .iter()
        .filter_map(|n| match n.as_str() {
            ASK_USER => Some(ask_user::spec()),
            SUBMIT_PLAN => Some(submit_plan::spec()),
            _ => None,
        })
        .collect()
}

/// Runs a tool inside an agent run whose working directory is `cwd`.
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
