//! Running one call of a command tool (SPEC §11): the program without a shell, in the run's
//! working directory, in a process group of its own (`sys::group`), with the arguments as
//! JSON on stdin, `MASTRA_ASK_RUN_ID` / `MASTRA_ASK_TOOL_CALL_ID` set and the model keys
//! (`*_API_KEY`, other `MASTRA_ASK_*`) removed from its environment.
//!
//! Its stdout is the result: JSON when it parses, else the text. A non-zero exit, the
//! timeout (the whole group is killed) or more than `MAX_TOOL_OUTPUT` on stdout (killed at
//! once) is a tool error whose message ends with the tail of its stderr. Whatever the
//! program left running in its group is killed when it exits. Nothing here
//! decides whether the call may run (approval) or stores anything: the caller gets the
//! outcome and, before waiting, the group as another driver could find it again.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::command::CommandTool;
use crate::domain::ToolOutcome;
use crate::limits::{show_size, MAX_TOOL_OUTPUT, TOOL_STDERR_TAIL};
use crate::sys::group::{self, End, Group, Recorded};

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
        .stderr(Stdio::piped());
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.ends_with("_API_KEY") || k.starts_with("MASTRA_ASK_") {
            command.env_remove(&key);
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
    let stdout = capped(child.stdout.take(), Arc::clone(&too_much));
    let stderr = tail(child.stderr.take());
    let end = group.wait_unless(deadline, &too_much);
    // What the program left running in its group ends with it, and so do its pipes.
    recorded.kill();
    let stderr = collect(&stderr, deadline);
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
    let out = collect(&stdout, deadline);
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

/// Reads a pipe on a thread, at most `MAX_TOOL_OUTPUT` bytes; more sets `too_much` (the
/// waiter then kills the group). The bytes arrive when the pipe closes.
fn capped(
    pipe: Option<impl Read + Send + 'static>,
    too_much: Arc<AtomicBool>,
) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(p) = pipe {
            let _ = p.take(MAX_TOOL_OUTPUT + 1).read_to_end(&mut out);
        }
        if out.len() as u64 > MAX_TOOL_OUTPUT {
            too_much.store(true, Ordering::SeqCst);
            out.clear();
        }
        let _ = tx.send(out);
    });
    rx
}

/// Reads a pipe to its end on a thread, keeping only its last `TOOL_STDERR_TAIL` bytes (cut
/// to whole lines where it can).
fn tail(pipe: Option<impl Read + Send + 'static>) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut kept: Vec<u8> = Vec::new();
        if let Some(mut p) = pipe {
            let mut buf = [0u8; 8192];
            while let Ok(n) = p.read(&mut buf) {
                if n == 0 {
                    break;
                }
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > 2 * TOOL_STDERR_TAIL {
                    kept.drain(..kept.len() - TOOL_STDERR_TAIL);
                }
            }
        }
        if kept.len() > TOOL_STDERR_TAIL {
            kept.drain(..kept.len() - TOOL_STDERR_TAIL);
            if let Some(nl) = kept.iter().position(|&b| b == b'\n') {
                kept.drain(..=nl);
            }
        }
        let _ = tx.send(kept);
    });
    rx
}

/// What a pipe gave, waiting no later than `deadline` (a program may leave a background
/// process holding it open).
fn collect(rx: &Receiver<Vec<u8>>, deadline: Instant) -> Vec<u8> {
    let left = deadline.saturating_duration_since(Instant::now());
    rx.recv_timeout(left.max(Duration::from_millis(200)))
        .unwrap_or_default()
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
