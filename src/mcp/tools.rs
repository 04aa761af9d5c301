//! The five tools `mastra-ask mcp` offers (SPEC §16) and what a call of each becomes: the
//! input checked (Mastra's validation object for bad input, as the model would get it from
//! the tool itself), then a one-step run of agent `mcp` to start, or the run an
//! `await_answer` names. `ask_user` and `submit_plan` are the tools of `tools/`, schemas and
//! checks alike; `request_approval` and `approval_prompt` are approval items (a command
//! tool that needs approval and never runs: its one-step run ends when the item is
//! decided).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::domain::{ToolOutcome, ASK_USER, SUBMIT_PLAN};
use crate::tools::command::CommandTool;
use crate::tools::schema::{self, Problems};
use crate::tools::{ask_user, submit_plan, ToolEntry, ToolSpec};

pub const REQUEST_APPROVAL: &str = "request_approval";
pub const APPROVAL_PROMPT: &str = "approval_prompt";
pub const AWAIT_ANSWER: &str = "await_answer";

/// The longest `action`, `details` or run id accepted.
const MAX_TEXT: usize = 10_000;

/// Every tool, in the order `tools/list` gives them.
pub fn specs() -> Vec<ToolSpec> {
    vec![
        ask_user::spec(),
        submit_plan::spec(),
        request_approval(),
        approval_prompt(),
        ToolSpec {
            name: AWAIT_ANSWER.into(),
            description: "Wait for the answer to an earlier call of this server that returned \
                \"pending\": give the run id it named. Returns the answer, or \"pending\" again."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"id": {"type": "string", "minLength": 1, "description": "The run id the pending result named."}},
                "required": ["id"],
                "additionalProperties": false
            }),
        },
    ]
}

fn request_approval() -> ToolSpec {
    ToolSpec {
        name: REQUEST_APPROVAL.into(),
        description: "Ask a person whether you may do something before you do it. The result \
            is \"approved\", or \"declined: REASON\"."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "minLength": 1, "description": "What you want to do."},
                "details": {"type": "string", "description": "Anything the person needs to decide."}
            },
            "required": ["action"],
            "additionalProperties": false
        }),
    }
}

fn approval_prompt() -> ToolSpec {
    ToolSpec {
        name: APPROVAL_PROMPT.into(),
        description: "Claude Code's permission prompt (--permission-prompt-tool): asks a \
            person whether a tool call may run. The result is the JSON text \
            {\"behavior\":\"allow\",\"updatedInput\":{...}} or {\"behavior\":\"deny\",\"message\":\"...\"}; \
            while nobody decided it denies, and the same call retried later finds the decision."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "tool_name": {"type": "string", "minLength": 1, "description": "The tool that asks to run."},
                "input": {"type": "object", "description": "Its input."},
                "tool_use_id": {"type": "string"}
            },
            "required": ["tool_name", "input"],
            "additionalProperties": false
        }),
    }
}

/// `tools/list`'s entries; with `tasks`, the human-input tools may be called as tasks.
pub fn listed(tasks: bool) -> Value {
    let tools: Vec<Value> = specs()
        .into_iter()
        .map(|t| {
            let mut entry =
                json!({"name": t.name, "description": t.description, "inputSchema": t.parameters});
            if tasks && asks_a_person(&t.name) {
                entry["execution"] = json!({"taskSupport": "optional"});
            }
            entry
        })
        .collect();
    json!({ "tools": tools })
}

/// Whether a call of `tool` may be a task: one that asks a person and can wait
/// (`approval_prompt` answers Claude Code, which takes no task).
pub fn asks_a_person(tool: &str) -> bool {
    tool != AWAIT_ANSWER && tool != APPROVAL_PROMPT
}

/// What a call asks for, once its input is checked.
#[derive(Debug, PartialEq)]
pub enum Call {
    /// A new one-step run: its tool entry, the call's name and input, the prompt shown in
    /// listings, and the working directory it runs in.
    Start {
        tool: &'static str,
        entry: Box<ToolEntry>,
        args: Value,
        prompt: String,
        cwd: PathBuf,
    },
    /// The answer of the run of an earlier call.
    Await(String),
}

/// A call of `name` with `args`: `None` when there is no such tool; `Err` the result the
/// model gets for bad input (nothing is stored). `roots` are the directories a plan may be
/// in, the first the default (the client's roots, else the server's working directory).
pub fn call(name: &str, args: &Value, roots: &[PathBuf]) -> Option<Result<Call, Value>> {
    Some(match name {
        ASK_USER => ask_user::question(args).map(|q| Call::Start {
            tool: ASK_USER,
            entry: Box::new(ToolEntry::Builtin(ASK_USER.into())),
            args: args.clone(),
            prompt: q.text,
            cwd: roots[0].clone(),
        }),
        SUBMIT_PLAN => plan(args, roots),
        REQUEST_APPROVAL => approval(args, &roots[0]),
        APPROVAL_PROMPT => prompt(args, &roots[0]),
        AWAIT_ANSWER => {
            let mut p = Problems::default();
            let id = schema::object(args, "root", &["id"], &mut p)
                .and_then(|map| schema::required(map, "id", &mut p))
                .and_then(|v| schema::string(v, "id", true, MAX_TEXT, &mut p));
            match id {
                Some(id) if p.is_empty() => Ok(Call::Await(id.to_string())),
                _ => Err(p.into_result(AWAIT_ANSWER, args)),
            }
        }
        _ => return None,
    })
}

/// `submit_plan`: §2.2's rules, in the root the path lies in (a relative path: the first).
fn plan(args: &Value, roots: &[PathBuf]) -> Result<Call, Value> {
    let path = args.get("path").and_then(Value::as_str).map(Path::new);
    let root = match path {
        Some(p) if p.is_absolute() => roots
            .iter()
            .find(|r| crate::tools::beneath::relative(r, p).is_ok())
            .unwrap_or(&roots[0]),
        _ => &roots[0],
    };
    match submit_plan::evaluate(args, root) {
        ToolOutcome::Suspend { payload, .. } => Ok(Call::Start {
            tool: SUBMIT_PLAN,
            entry: Box::new(ToolEntry::Builtin(SUBMIT_PLAN.into())),
            args: args.clone(),
            prompt: format!("Review the plan {}", payload["path"].as_str().unwrap_or("")),
            cwd: root.clone(),
        }),
        ToolOutcome::Result(r) | ToolOutcome::Error(r) => Err(r),
        ToolOutcome::Approval => Err(json!({"content": "Failed to submit plan", "isError": true})),
    }
}

/// `request_approval`: `{action, details?}`.
fn approval(args: &Value, cwd: &Path) -> Result<Call, Value> {
    let mut p = Problems::default();
    let map = schema::object(args, "root", &["action", "details"], &mut p);
    let action = map
        .and_then(|m| schema::required(m, "action", &mut p))
        .and_then(|v| schema::string(v, "action", true, MAX_TEXT, &mut p));
    if let Some(details) = map.and_then(|m| schema::field(m, "details")) {
        schema::string(details, "details", false, MAX_TEXT, &mut p);
    }
    let action = match action {
        Some(a) if p.is_empty() => a.to_string(),
        _ => return Err(p.into_result(REQUEST_APPROVAL, args)),
    };
    let tool = never_run(request_approval());
    Ok(Call::Start {
        tool: REQUEST_APPROVAL,
        entry: Box::new(ToolEntry::Command(tool)),
        args: args.clone(),
        prompt: action,
        cwd: cwd.to_path_buf(),
    })
}

/// The approval item's tool as a command tool that waits for approval and never runs:
/// deciding the item ends the one-step run.
fn never_run(spec: ToolSpec) -> CommandTool {
    CommandTool {
        name: spec.name,
        description: spec.description,
        input_schema: spec.parameters,
        command: vec!["false".into()],
        require_approval: true,
        timeout_ms: None,
        env: Vec::new(),
        review: None,
    }
}

/// `approval_prompt`: `{tool_name, input, tool_use_id?}`, an approval item like
/// `request_approval`'s; what is asked is the tool and its input (the id differs on retry).
fn prompt(args: &Value, cwd: &Path) -> Result<Call, Value> {
    let mut p = Problems::default();
    let map = schema::object(args, "root", &["tool_name", "input", "tool_use_id"], &mut p);
    let name = map
        .and_then(|m| schema::required(m, "tool_name", &mut p))
        .and_then(|v| schema::string(v, "tool_name", true, MAX_TEXT, &mut p));
    match map.and_then(|m| schema::required(m, "input", &mut p)) {
        Some(Value::Object(_)) | None => {}
        Some(other) => p.add(
            "input",
            format!("Expected object, received {}", schema::type_name(other)),
        ),
    }
    if let Some(id) = map.and_then(|m| schema::field(m, "tool_use_id")) {
        schema::string(id, "tool_use_id", false, MAX_TEXT, &mut p);
    }
    let name = match name {
        Some(n) if p.is_empty() => n.to_string(),
        _ => return Err(p.into_result(APPROVAL_PROMPT, args)),
    };
    let asked = json!({"tool_name": name, "input": args["input"]});
    let tool = never_run(approval_prompt());
    Ok(Call::Start {
        tool: APPROVAL_PROMPT,
        entry: Box::new(ToolEntry::Command(tool)),
        args: asked,
        prompt: format!("May {name} run?"),
        cwd: cwd.to_path_buf(),
    })
}

/// The directories of the client's `roots/list` result that are `file:` URIs of
/// directories here.
pub fn roots_of(listed: &Value) -> Vec<PathBuf> {
    let Some(roots) = listed["roots"].as_array() else {
        return Vec::new();
    };
    roots
        .iter()
        .filter_map(|r| r["uri"].as_str()?.strip_prefix("file://").map(decode))
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && p.is_dir())
        .collect()
}

/// A URI's path with its `%XX` escapes decoded (bytes that make no UTF-8 are kept escaped).
fn decode(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_human_input_tools_are_the_tools_own_schemas() {
        let specs = specs();
        assert_eq!(specs[0], ask_user::spec());
        assert_eq!(specs[1], submit_plan::spec());
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                ASK_USER,
                SUBMIT_PLAN,
                REQUEST_APPROVAL,
                APPROVAL_PROMPT,
                AWAIT_ANSWER
            ]
        );
    }

    #[test]
    fn bad_input_is_mastras_validation_object() {
        let roots = [PathBuf::from("/")];
        let Some(Err(r)) = call(REQUEST_APPROVAL, &json!({"action": "", "x": 1}), &roots) else {
            panic!("expected a validation result")
        };
        assert_eq!(
            r["validationErrors"],
            json!({"root": ["Unrecognized key(s) in object: 'x'"], "action": ["String must contain at least 1 non-blank character"]})
        );
        assert!(call("nope", &json!({}), &roots).is_none());
        assert!(matches!(
            call(AWAIT_ANSWER, &json!({"id": "abc"}), &roots),
            Some(Ok(Call::Await(id))) if id == "abc"
        ));
    }

    #[test]
    fn roots_are_file_directories() {
        let dir = tempfile::tempdir().unwrap();
        let spaced = dir.path().join("a b");
        std::fs::create_dir(&spaced).unwrap();
        let uri = format!("file://{}", spaced.display()).replace(' ', "%20");
        let listed =
            json!({"roots": [{"uri": uri}, {"uri": "https://x"}, {"uri": "file:///no/such/dir"}]});
        assert_eq!(roots_of(&listed), vec![spaced]);
    }
}
