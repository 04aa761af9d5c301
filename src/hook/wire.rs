//! What Claude Code sends a `PreToolUse` command hook and what it reads back (as observed
//! with 2.1.332: ../CLAUDE-CODE.md): the input read from stdin with a cap and checked field
//! by field, and the four answers. Nothing here reads the store or decides anything.

use std::io::Read;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::limits::{read_capped, ReadError};

/// The most stdin the hook reads (a `tool_input` of up to about this size).
pub const MAX_INPUT: u64 = 1 << 20;

/// The longest `tool_use_id` kept: with `/N` appended (a question of an `AskUserQuestion`
/// call) it is still an id `--tool-call` takes (64 characters).
const MAX_TOOL_USE_ID: usize = 60;

/// One `PreToolUse` call, as checked.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    pub session_id: String,
    #[serde(default)]
    pub transcript_path: Option<String>,
    pub cwd: String,
    pub hook_event_name: String,
    pub tool_name: String,
    pub tool_input: Value,
    pub tool_use_id: String,
}

impl Input {
    /// The tool's input object.
    pub fn object(&self) -> &Map<String, Value> {
        self.tool_input
            .as_object()
            .expect("checked to be an object when read")
    }
}

/// Reads and checks the call: at most `MAX_INPUT` bytes of JSON with every field a
/// `PreToolUse` call has; the problem, one line, otherwise.
pub fn read(reader: impl Read) -> Result<Input, String> {
    let bytes = read_capped(reader, MAX_INPUT).map_err(|e| match e {
        ReadError::Io(e) => format!("cannot read the hook input from stdin: {e}"),
        other => format!("the hook input on stdin {other}"),
    })?;
    let input: Input = serde_json::from_slice(&bytes)
        .map_err(|e| format!("the hook input is not a PreToolUse call: {e}"))?;
    if input.hook_event_name != "PreToolUse" {
        return Err(format!(
            "the hook input is a {} event, not PreToolUse",
            shown(&input.hook_event_name)
        ));
    }
    if uuid::Uuid::try_parse(&input.session_id).is_err() {
        return Err("the hook input's session_id is not a UUID".into());
    }
    let id = &input.tool_use_id;
    if id.is_empty()
        || id.len() > MAX_TOOL_USE_ID
        || !id.bytes().all(|b| b.is_ascii_graphic() && b != b'/')
    {
        return Err("the hook input's tool_use_id is not 1 to 60 printable characters".into());
    }
    if input.tool_name.is_empty() || input.tool_name.len() > 200 {
        return Err("the hook input's tool_name is empty or too long".into());
    }
    if !input.tool_input.is_object() {
        return Err("the hook input's tool_input is not an object".into());
    }
    if !std::path::Path::new(&input.cwd).is_absolute() {
        return Err("the hook input's cwd is not an absolute path".into());
    }
    Ok(input)
}

/// What the hook tells Claude Code.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// Run the tool, with this input in place of the model's when given.
    Allow(Option<Value>),
    /// Never run it; the model reads the reason.
    Deny(String),
    /// End `claude -p` with `tool_deferred`; `--resume` asks again.
    Defer(String),
    /// Let the person at the terminal decide (outside `-p`).
    Ask(String),
    /// No decision: a tool a Claude Code run's gate does not pause goes Claude Code's own
    /// way (read-only tools run; others ask the SDK host, which denies them).
    Pass,
}

impl Answer {
    /// The JSON line Claude Code reads on stdout.
    pub fn json(&self) -> Value {
        let (decision, reason) = match self {
            Answer::Pass => return json!({}),
            Answer::Allow(_) => ("allow", None),
            Answer::Deny(r) => ("deny", Some(r)),
            Answer::Defer(r) => ("defer", Some(r)),
            Answer::Ask(r) => ("ask", Some(r)),
        };
        let mut out = json!({"hookEventName": "PreToolUse", "permissionDecision": decision});
        if let Some(r) = reason {
            out["permissionDecisionReason"] = json!(r);
        }
        if let Answer::Allow(Some(input)) = self {
            out["updatedInput"] = input.clone();
        }
        json!({ "hookSpecificOutput": out })
    }
}

/// A short, printable rendering of a name the input gave.
fn shown(text: &str) -> String {
    let mut out = String::new();
    crate::output::sanitize::push_one_line(&mut out, &text.chars().take(40).collect::<String>());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(fields: Value) -> Result<Input, String> {
        let mut input = json!({
            "session_id": "6f1c1f0e-4a55-4a6a-9d1e-1b2c3d4e5f60",
            "transcript_path": "/h/.claude/projects/p/6f1c1f0e-4a55-4a6a-9d1e-1b2c3d4e5f60.jsonl",
            "cwd": "/work",
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "toolu_01"
        });
        for (k, v) in fields.as_object().unwrap() {
            input[k] = v.clone();
        }
        read(input.to_string().as_bytes())
    }

    #[test]
    fn a_call_is_read_and_each_bad_field_is_named() {
        assert_eq!(call(json!({})).unwrap().tool_use_id, "toolu_01");
        let problem = |f: Value| call(f).unwrap_err();
        assert_eq!(
            problem(json!({"hook_event_name": "Stop\u{1b}[2J"})),
            "the hook input is a Stop\\x1b[2J event, not PreToolUse"
        );
        assert_eq!(
            problem(json!({"session_id": "../x"})),
            "the hook input's session_id is not a UUID"
        );
        assert_eq!(
            problem(json!({"tool_use_id": "a/b"})),
            "the hook input's tool_use_id is not 1 to 60 printable characters"
        );
        assert_eq!(
            problem(json!({"tool_input": "rm -rf /"})),
            "the hook input's tool_input is not an object"
        );
        assert_eq!(
            problem(json!({"cwd": "rel"})),
            "the hook input's cwd is not an absolute path"
        );
        assert!(read(&b"not json"[..])
            .unwrap_err()
            .starts_with("the hook input is not a PreToolUse call: "));
        let huge = vec![b' '; MAX_INPUT as usize + 1];
        assert!(read(&huge[..])
            .unwrap_err()
            .starts_with("the hook input on stdin "));
    }

    #[test]
    fn each_answer_is_the_json_claude_code_reads() {
        assert_eq!(
            Answer::Allow(Some(json!({"command": "ls"}))).json(),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "allow", "updatedInput": {"command": "ls"}}})
        );
        assert_eq!(
            Answer::Deny("no".into()).json(),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no"}})
        );
    }
}
