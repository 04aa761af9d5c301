//! Running one call of a command tool (SPEC §11): the program without a shell, in the run's
//! working directory, in a process group of its own (`sys::group`), with the arguments as
//! JSON on stdin and an allow-listed environment ([`ALLOWED`], `LC_*`, the names the tool
//! declares in `"env"`, and `MASTRA_ASK_RUN_ID` / `MASTRA_ASK_TOOL_CALL_ID`): nothing else of
//! the driver's environment (its model keys, `MASTRA_SERVER_TOKEN`, `PGPASSWORD`, cloud
//! tokens) reaches a program that a model's arguments drive, unless the tool names it.
//!
//! Its stdout is the result: JSON when it parses, else the text, as printed before its own
//! process exited (`sys::pipe`: a daemon left holding the pipe neither hides nor delays it).
//! A non-zero exit, the timeout (the whole group is killed) or more than `MAX_TOOL_OUTPUT`
//! on stdout (killed at once) is a tool error whose message ends with the tail of its
//! stderr. Whatever the program left running in its group is killed when it exits. Nothing
//! here decides whether the call may run (approval) or stores anything: the caller gets the
//! outcome and, before waiting, the group as another driver could find it again.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::command::CommandTool;
use crate::domain::ToolOutcome;
use crate::limits::{show_size, MAX_TOOL_OUTPUT, TOOL_STDERR_TAIL};
use crate::sys::group::{self, End, Group, Recorded};
use crate::sys::pipe::{self, Ended, Keep};

/// The variables of the driver's environment every command tool gets (with `LC_*`).
pub const ALLOWED: [&str; 9] = [
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TZ", "TMPDIR",
];

/// One call to run.
pub struct Call<'a> {
    pub tool: &'a CommandTool,
    pub run_id: &'a str,
    pub call_id: &'a str,
    pub args: &'a Value,
    /// The run's working directory.
    pub cwd: &'a Path,
}

/// Runs the call to its end. `started` is told the process group before it is waited for;
/// when it says no (the group could not be recorded), the group is killed at once.
pub fn run(call: &Call, started: &mut dyn FnMut(Recorded) -> bool) -> ToolOutcome {
    let tool = call.tool;
    let Some((program, args)) = tool.command.split_first() else {
        return failure(tool, "has no program to run", &[]);
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(call.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_clear();
    for (key, value) in std::env::vars_os() {
        let k = key.to_string_lossy();
        let passed = ALLOWED.contains(&k.as_ref())
            || k.starts_with("LC_")
            || tool.env.iter().any(|name| *name == k);
        if passed {
            command.env(&key, value);
        }
    }
    command
        .env("MASTRA_ASK_RUN_ID", call.run_id)
        .env("MASTRA_ASK_TOOL_CALL_ID", call.call_id);
    let mut group = match Group::spawn(&mut command) {
        Ok(g) => g,
        Err(e) => return failure(tool, &format!("could not start {program}: {e}"), &[]),
    };
    let recorded = group.recorded();
    if !started(recorded) {
        group.kill();
        return failure(
            tool,
            "was stopped before it ran: its start could not be recorded",
            &[],
        );
    }
    let deadline = Instant::now() + tool.timeout();
    let child = group.child();
    let stdin = child.stdin.take();
    let body = call.args.to_string();
    // A program that exits without reading its input is no error here.
    std::thread::spawn(move || {
        if let Some(mut s) = stdin {
            let _ = s.write_all(body.as_bytes());
        }
    });
    let too_much = Arc::new(AtomicBool::new(false));
    let ended = Ended::default();
    let stdout = pipe::capture(
        child.stdout.take(),
        Keep::Head {
            cap: MAX_TOOL_OUTPUT,
            too_much: Some(Arc::clone(&too_much)),
        },
        &ended,
    );
    let stderr = pipe::capture(child.stderr.take(), Keep::Tail(TOOL_STDERR_TAIL), &ended);
    let end = group.wait_unless(deadline, &too_much);
    // What the program left running in its group ends with it, and so do its pipes.
    recorded.kill();
    ended.now();
    let stderr = stderr.bytes().unwrap_or_default();
    let status = match end {
        Ok(Some(End::Exited(status))) => status,
        Ok(Some(End::TimedOut)) => {
            let what = format!(
                "did not finish within {} ms; its process group was ended",
                tool.timeout().as_millis()
            );
            return failure(tool, &what, &stderr);
        }
        Ok(Some(End::Interrupted(sig))) => {
            group::reraise(group, sig);
            return failure(tool, "was interrupted", &stderr);
        }
        Ok(None) => {
            let what = format!(
                "printed more than {} on stdout; it was stopped",
                show_size(MAX_TOOL_OUTPUT)
            );
            return failure(tool, &what, &stderr);
        }
        Err(e) => return failure(tool, &format!("could not be waited for: {e}"), &stderr),
    };
    if !status.success() {
        let how = match status.code() {
            Some(code) => format!("exited with status {code}"),
            None => "was killed by a signal".to_string(),
        };
        return failure(tool, &how, &stderr);
    }
    let Some(out) = stdout.bytes() else {
        return failure(tool, "exited, but its output could not be read", &stderr);
    };
    if too_much.load(Ordering::SeqCst) {
        let what = format!("printed more than {} on stdout", show_size(MAX_TOOL_OUTPUT));
        return failure(tool, &what, &stderr);
    }
    ToolOutcome::Result(result_of(&String::from_utf8_lossy(&out)))
}

/// The result of what the program printed: JSON when it parses, else the text without its
/// final newline.
pub fn result_of(stdout: &str) -> Value {
    let trimmed = stdout.trim();
    match serde_json::from_str(trimmed) {
        Ok(v) if !trimmed.is_empty() => v,
        _ => Value::String(stdout.trim_end_matches(['\n', '\r']).to_string()),
    }
}

/// The tool error for a call that failed: `{name, message}`, the message ending with the
/// tail of the program's stderr.
fn failure(tool: &CommandTool, what: &str, stderr: &[u8]) -> ToolOutcome {
    let mut message = format!("Tool \"{}\" {what}", tool.name);
    let said = String::from_utf8_lossy(stderr);
    let said = said.trim();
    if !said.is_empty() {
        message.push_str(&format!("; its stderr ends with:\n{said}"));
    }
    ToolOutcome::Error(json!({"name": "ToolExecutionError", "message": message}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_is_json_when_it_parses_else_text() {
        assert_eq!(result_of("{\"tag\":\"v2\"}\n"), json!({"tag": "v2"}));
        assert_eq!(result_of("42\n"), json!(42));
        assert_eq!(result_of("tagged v2\n"), json!("tagged v2"));
        assert_eq!(result_of("two\nlines\r\n"), json!("two\nlines"));
        assert_eq!(result_of(""), json!(""));
        assert_eq!(result_of("  \n"), json!("  "));
    }
}
