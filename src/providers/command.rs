//! `command:<argv>`: a model that is a program, run once per model call. It gets
//! `{"messages":[...],"tools":[...],"modelSettings"?:{...}}` on stdin (our stored message
//! shape, a system message first; the agent's settings under Mastra's names) and prints one assistant message `{"content"?, "toolCalls"?: [{"id"?, "name",
//! "args"}]}` on stdout.
//!
//! The program runs in its own process group, bounded by the read timeout: past it, or when
//! this process is interrupted, the whole group is killed (`group`), so nothing it started
//! lives on; what it printed before it exited is read whatever it left holding its pipes
//! (`sys::pipe`). A non-zero exit or a message that does not parse is a provider error. The
//! program gets the environment of the driving process (it is the user's model, and needs
//! its keys; what a model says never chooses its argv); nothing here prints or touches the
//! store.

use std::io::Write;
use std::path::Path;
use std::process::{Command as Process, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Deserialize;
use serde_json::{json, Value};

use super::scripted::{call_of, ScriptCall};
use super::settings::{Settings, READ_TIMEOUT};
use super::{Provider, Request, Response};
use crate::duration;
use crate::error::{fail, Error, Kind};
use crate::limits::show_size;
use crate::limits::{
    MAX_MODEL_PROGRAM_OUTPUT as MAX_OUTPUT, MAX_MODEL_PROGRAM_STDERR as MAX_STDERR,
};
use crate::sys::group::{self, End, Group};
use crate::sys::pipe::{self, Ended, Keep};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Reply {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ScriptCall>>,
}

pub struct CommandModel {
    argv: Vec<String>,
    timeout: Duration,
}

impl CommandModel {
    /// Checks that the program exists (a path, or a name found in PATH).
    pub fn new(argv: Vec<String>, settings: &Settings) -> Result<CommandModel> {
        let program = argv.first().map(String::as_str).unwrap_or_default();
        if !found(program) {
            return fail(Error::usage(format!(
                "command: program {program} not found{}",
                if program.contains('/') {
                    ""
                } else {
                    " in PATH"
                }
            )));
        }
        Ok(CommandModel {
            argv,
            timeout: settings.read_timeout,
        })
    }

    fn shown(&self) -> String {
        shell_words::join(&self.argv)
    }
}

fn found(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// What the program reads on stdin: the messages and tools, and the agent's
/// `modelSettings` (Mastra's names) when it has any.
pub fn input(request: &Request) -> Value {
    let mut messages = vec![json!({"role": "system", "content": request.system})];
    messages.extend(request.messages.iter().map(|m| json!(m)));
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description, "parameters": t.parameters}))
        .collect();
    let mut input = json!({"messages": messages, "tools": tools});
    if !request.settings.is_empty() {
        input["modelSettings"] = json!(request.settings);
    }
    input
}

/// The assistant message the program printed.
pub fn parse_reply(stdout: &str) -> Result<Response, String> {
    if stdout.trim().is_empty() {
        return Err("printed nothing".into());
    }
    let reply: Reply = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("printed an invalid message: {e}"))?;
    if reply.content.is_none() && reply.tool_calls.is_none() {
        return Err("printed a message with neither content nor toolCalls".into());
    }
    Ok(Response {
        text: reply.content.filter(|t| !t.is_empty()),
        calls: reply.tool_calls.iter().flatten().map(call_of).collect(),
        usage: Default::default(),
    })
}

fn last_line(stderr: &[u8]) -> Option<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(super::wire::one_line)
}

impl Provider for CommandModel {
    fn complete(&self, request: &Request, on_text: &mut dyn FnMut(&str)) -> Result<Response> {
        let shown = self.shown();
        let failed = |what: String| -> Result<Response> {
            fail(Error::provider(format!("model command {shown} {what}")))
        };
        let Some((program, args)) = self.argv.split_first() else {
            return failed("has no program".into());
        };
        let mut group = match Group::spawn(
            Process::new(program)
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        ) {
            Ok(g) => g,
            Err(e) => return failed(format!("cannot start: {e}")),
        };
        let deadline = Instant::now() + self.timeout;
        let child = group.child();
        let stdin = child.stdin.take();
        let body = input(request).to_string();
        // A program that exits without reading its input is no error here.
        std::thread::spawn(move || {
            if let Some(mut s) = stdin {
                let _ = s.write_all(body.as_bytes());
            }
        });
        let ended = Ended::default();
        let too_much = Arc::new(AtomicBool::new(false));
        let keep = Keep::Head {
            cap: MAX_OUTPUT,
            too_much: Some(Arc::clone(&too_much)),
        };
        let stdout = pipe::capture(child.stdout.take(), keep, &ended);
        let stderr = pipe::capture(child.stderr.take(), Keep::Tail(MAX_STDERR as usize), &ended);
        let end = group.wait(deadline);
        ended.now();
        let status = match end {
            Ok(End::Exited(status)) => status,
            Ok(End::TimedOut) => {
                return failed(format!(
                    "did not answer within {} (raise {READ_TIMEOUT})",
                    duration::show(self.timeout)
                ))
            }
            Ok(End::Interrupted(sig)) => {
                group::reraise(group, sig);
                return fail(Error::new(Kind::Interrupted, "interrupted"));
            }
            Err(e) => return failed(format!("could not be waited for: {e}")),
        };
        let stderr = stderr.bytes().unwrap_or_default();
        let Some(stdout) = stdout.bytes() else {
            return failed("exited, but its output could not be read".into());
        };
        if !status.success() {
            let how = match status.code() {
                Some(code) => format!("exited with status {code}"),
                None => "was killed by a signal".to_string(),
            };
            let said = last_line(&stderr)
                .map(|l| format!(": {l}"))
                .unwrap_or_default();
            return failed(format!("{how}{said}"));
        }
        if too_much.load(Ordering::SeqCst) {
            return failed(format!("printed more than {}", show_size(MAX_OUTPUT)));
        }
        let response = match parse_reply(&String::from_utf8_lossy(&stdout)) {
            Ok(r) => r,
            Err(e) => {
                return failed(format!(
                    "{e}; it must print one assistant message {{\"content\"?, \"toolCalls\"?: [{{\"id\"?, \"name\", \"args\"}}]}}"
                ))
            }
        };
        if let Some(text) = &response.text {
            on_text(text);
        }
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Message;
    use crate::providers::BadArgs;
    use crate::tools::ToolSpec;

    #[test]
    fn input_is_the_stored_shape_after_a_system_message() {
        let messages = vec![
            Message::User {
                content: "Go".into(),
            },
            Message::Tool {
                tool_call_id: "q1".into(),
                tool_name: "ask_user".into(),
                content: "{}".into(),
            },
        ];
        let tools = [ToolSpec {
            name: "ask_user".into(),
            description: "Ask.".into(),
            parameters: json!({"type": "object"}),
        }];
        let request = Request {
            system: "Be brief.",
            messages: &messages,
            tools: &tools,
            settings: &Default::default(),
        };
        assert_eq!(
            input(&request),
            json!({
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Go"},
                    {"role": "tool", "toolCallId": "q1", "toolName": "ask_user", "content": "{}"},
                ],
                "tools": [{"name": "ask_user", "description": "Ask.", "parameters": {"type": "object"}}],
            })
        );
        let settings = serde_json::from_value(json!({"seed": 7, "topP": 0.5})).unwrap();
        let request = Request {
            settings: &settings,
            ..request
        };
        assert_eq!(
            input(&request)["modelSettings"],
            json!({"topP": 0.5, "seed": 7})
        );
    }

    #[test]
    fn replies() {
        let r = parse_reply("{\"content\":\"Hi\"}\n").unwrap();
        assert_eq!(r.text.as_deref(), Some("Hi"));
        let r = parse_reply(r#"{"toolCalls":[{"name":"ask_user","args":{"question":"Q?"}},{"id":"x","name":"ask_user","args":"{\"q"}]}"#)
            .unwrap();
        assert_eq!(r.calls[0].id, None);
        assert_eq!(r.calls[0].args, Ok(json!({"question": "Q?"})));
        assert!(matches!(&r.calls[1].args, Err(BadArgs { raw, .. }) if raw == "{\"q"));
        assert_eq!(parse_reply(" \n").unwrap_err(), "printed nothing");
        assert!(parse_reply("{}")
            .unwrap_err()
            .contains("neither content nor toolCalls"));
        assert!(parse_reply("not json")
            .unwrap_err()
            .starts_with("printed an invalid message"));
        assert!(parse_reply(r#"{"tool_calls":[]}"#)
            .unwrap_err()
            .contains("unknown field `tool_calls`"));
    }

    #[test]
    fn last_stderr_line() {
        assert_eq!(
            last_line(b"warming up\nerror: no model\n\n").as_deref(),
            Some("error: no model")
        );
        assert_eq!(last_line(b""), None);
    }
}
