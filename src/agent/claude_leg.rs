//! One leg of a Claude Code run (SPEC §15): `claude -p` in the SDK's mode, started here
//! with the run's id as its session, the hook on its command line and only the allowed
//! variables, and this process as the SDK host: it sends the prompt (or a reply), answers
//! every control request (an unanswered one hangs Claude Code), stores the assistant's text
//! as the run's transcript, closes stdin after the `result` line and ends the leg by it.
//!
//! The gated calls are recorded by the hook (`hook`, `Store::gate_step`) on the run this leg
//! still holds; a leg that ends `tool_deferred` suspends the run on them once `claude` has
//! exited (so no decision can start a second `claude` on the session meanwhile). Every `tool_use` of a gated tool that ran is compared with the decision recorded
//! for it: one that ran without fails the run ("gate bypassed"). Every read is capped and
//! every wait has a deadline: a hung `claude` is killed and the run fails.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::{json, Value};

use super::claude_code::{hook_command, is_item_of, ClaudeCodeDef};
use super::driver::{new_message_id, Ended};
use super::lease::Heartbeat;
use crate::domain::{CallState, Event, Message, Sink, StepCommit, Transition, Usage};
use crate::output::sanitize::one_line;
use crate::runner::Context;
use crate::store::{Lease, Location, Run, Store};

/// The longest leg: then `claude` is killed and the run fails.
const LEG_LIMIT: Duration = Duration::from_secs(60 * 60);
/// How long `claude` may take to exit once its stdin is closed.
const EXIT_LIMIT: Duration = Duration::from_secs(30);
/// The longest line of Claude Code's output read.
const MAX_LINE: u64 = 8 << 20;
/// How much of its stderr is kept (its last line names a failure).
const STDERR_TAIL: usize = 16 << 10;

/// What the stdout reader hands the leg.
enum Line {
    Json(Value),
    Unreadable(String),
}

/// How a leg went, before it is stored.
enum Outcome {
    /// The `result` line, and the exit status.
    Result(Value),
    /// It must fail the run with this error.
    Fails(String),
}

/// Drives one leg of `run` under `lease`: a new session (`first`) or `--resume`.
pub fn drive(
    store: &dyn Store,
    ctx: &Context,
    run: &Run,
    def: &ClaudeCodeDef,
    lease: &Lease,
    first: bool,
    sink: &mut dyn Sink,
) -> Result<Ended> {
    let _heartbeat = Heartbeat::lease(ctx.location.clone(), run.id.clone(), lease.clone());
    let mut leg = Leg {
        store,
        run,
        def,
        lease,
        sink,
        held: true,
    };
    let outcome = leg.run_claude(ctx, first)?;
    leg.end(outcome)
}

struct Leg<'a> {
    store: &'a dyn Store,
    run: &'a Run,
    def: &'a ClaudeCodeDef,
    lease: &'a Lease,
    sink: &'a mut dyn Sink,
    /// This leg still holds the run's lease (the hook's suspension or a cancel ends it).
    held: bool,
}

impl Leg<'_> {
    fn run_claude(&mut self, ctx: &Context, first: bool) -> Result<Outcome> {
        let prompt = self.prompt(first)?;
        let program = std::env::current_exe()?;
        let db = match &ctx.location {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(url) => url.clone(),
        };
        let hook = hook_command(&program, &db, &self.run.id);
        let mut command = Command::new(self.def.program());
        command
            .args(self.def.leg_args(&self.run.id, !first, &hook))
            .current_dir(&self.run.cwd)
            .env_clear()
            .envs(self.def.passed_env(std::env::vars_os()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                return Ok(Outcome::Fails(format!(
                    "cannot start Claude Code ({}): {e}",
                    one_line(self.def.program())
                )))
            }
        };
        let stdin = child.stdin.take();
        let lines = read_lines(child.stdout.take().expect("piped"));
        let stderr = read_tail(child.stderr.take().expect("piped"));
        let outcome = self.host(&mut child, stdin, prompt.as_deref(), &lines);
        let status = exit_within(&mut child, EXIT_LIMIT);
        // A process Claude Code left running may hold its stderr open: wait a moment only.
        let tail = stderr.recv_timeout(EXIT_LIMIT).unwrap_or_default();
        let last = tail.lines().rev().find(|l| !l.trim().is_empty());
        let said = last
            .map(|l| format!(": {}", one_line(l)))
            .unwrap_or_default();
        Ok(match (outcome?, status) {
            (Outcome::Fails(why), Some(s)) if why.is_empty() && !s.success() => {
                Outcome::Fails(format!("Claude Code exited with {s}{said}"))
            }
            (Outcome::Fails(why), _) => Outcome::Fails(why),
            (Outcome::Result(result), Some(s)) if s.success() => Outcome::Result(result),
            (Outcome::Result(_), Some(s)) => {
                Outcome::Fails(format!("Claude Code exited with {s}{said}"))
            }
            (Outcome::Result(_), None) => Outcome::Fails(format!(
                "Claude Code did not exit within {}s of its result and was killed{said}",
                EXIT_LIMIT.as_secs()
            )),
        }
        .or_no_result(&said))
    }

    /// What the leg sends first: the run's prompt on a new session, a reply (the user's
    /// message stored last) on a resumed one, else nothing (a deferred call is asked again).
    fn prompt(&self, first: bool) -> Result<Option<String>> {
        let messages = self.store.messages(&self.run.id)?;
        let message = if first {
            messages.first()
        } else {
            messages.last()
        };
        Ok(match message {
            Some(Message::User { content }) => Some(content.clone()),
            _ => None,
        })
    }

    /// The SDK host: sends `prompt`, answers control requests, stores the transcript,
    /// until the `result` line (then stdin is closed) or the leg's deadline.
    fn host(
        &mut self,
        child: &mut Child,
        mut stdin: Option<ChildStdin>,
        prompt: Option<&str>,
        lines: &Receiver<Line>,
    ) -> Result<Outcome> {
        if let Some(prompt) = prompt {
            let line = json!({"type": "user", "message": {"role": "user", "content": prompt}});
            send(&mut stdin, &line);
        }
        let until = Instant::now() + LEG_LIMIT;
        let mut gated = std::collections::HashMap::new();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let line = match lines.recv_timeout(left) {
                Ok(Line::Json(line)) => line,
                Ok(Line::Unreadable(what)) => {
                    let _ = child.kill();
                    return Ok(Outcome::Fails(format!(
                        "Claude Code printed something that is not a JSON line: {what}"
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Ok(Outcome::Fails(String::new()));
                }
                Err(RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    return Ok(Outcome::Fails(format!(
                        "Claude Code did not finish within {} minutes and was killed",
                        LEG_LIMIT.as_secs() / 60
                    )));
                }
            };
            match line["type"].as_str() {
                Some("control_request") => send(&mut stdin, &self.answer(&line)),
                Some("assistant") => self.assistant(&line, &mut gated)?,
                Some("user") => {
                    if let Some(bypassed) = self.bypassed(&line, &gated)? {
                        let _ = child.kill();
                        return Ok(Outcome::Fails(bypassed));
                    }
                }
                Some("result") => {
                    drop(stdin);
                    return Ok(Outcome::Result(line));
                }
                _ => {}
            }
        }
    }

    /// The answer to a control request: a tool no hook decided is not allowed in this run.
    fn answer(&self, request: &Value) -> Value {
        let id = &request["request_id"];
        if request["request"]["subtype"] == "can_use_tool" {
            let tool = request["request"]["tool_name"]
                .as_str()
                .unwrap_or("this tool");
            let message = format!(
                "{} is not allowed in this run: mastra-ask's gate does not cover it, and the run's permission mode does not allow it",
                one_line(tool)
            );
            return json!({"type": "control_response", "response": {"subtype": "success",
                "request_id": id, "response": {"behavior": "deny", "message": message}}});
        }
        json!({"type": "control_response", "response": {"subtype": "error",
            "request_id": id, "error": "mastra-ask does not answer this request"}})
    }

    /// An assistant message: its text stored as the transcript's, its gated calls noted.
    fn assistant(
        &mut self,
        line: &Value,
        gated: &mut std::collections::HashMap<String, String>,
    ) -> Result<()> {
        let mut text = String::new();
        for block in line["message"]["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("text") => text.push_str(block["text"].as_str().unwrap_or_default()),
                Some("tool_use") => {
                    let name = block["name"].as_str().unwrap_or_default();
                    if self.def.gates(name) {
                        let id = block["id"].as_str().unwrap_or_default();
                        gated.insert(id.to_string(), name.to_string());
                    }
                }
                _ => {}
            }
        }
        if text.is_empty() || !self.held {
            return Ok(());
        }
        let message_id = new_message_id();
        let step = StepCommit {
            messages: vec![Message::Assistant {
                content: Some(text.clone()),
                tool_calls: Vec::new(),
            }],
            calls: Vec::new(),
            events: vec![Event::text_delta(&message_id, &text)],
            usage: Usage::default(),
            transition: Transition::Running,
        };
        self.store_step(&step)?;
        Ok(())
    }

    /// "gate bypassed" when a tool result says a gated call ran with no decision recorded
    /// that allowed it.
    fn bypassed(
        &self,
        line: &Value,
        gated: &std::collections::HashMap<String, String>,
    ) -> Result<Option<String>> {
        for block in line["message"]["content"].as_array().into_iter().flatten() {
            if block["type"] != "tool_result" || block["is_error"] == true {
                continue;
            }
            let id = block["tool_use_id"].as_str().unwrap_or_default();
            let Some(name) = gated.get(id) else { continue };
            let calls = self.store.calls(&self.run.id)?;
            let own: Vec<_> = calls
                .iter()
                .filter(|c| is_item_of(&c.call_id, id))
                .collect();
            let allowed = !own.is_empty()
                && own.iter().all(|c| {
                    c.state == CallState::Resolved
                        && c.approved() != Some(false)
                        && c.resume_data
                            .as_ref()
                            .is_none_or(|r| r["action"] != "rejected")
                });
            if !allowed {
                return Ok(Some(format!(
                    "gate bypassed: Claude Code ran {} call {} without a decision recorded in mastra-ask",
                    one_line(name),
                    one_line(id)
                )));
            }
        }
        Ok(None)
    }

    /// Stores `step` while this leg holds the lease; the run as stored, or `None` once the
    /// lease is gone (the hook suspended the run, or it was cancelled).
    fn store_step(&mut self, step: &StepCommit) -> Result<Option<Box<crate::store::RunRow>>> {
        if !self.held {
            return Ok(None);
        }
        match self.store.store_step(&self.run.id, self.lease, step)? {
            Some((events, row)) => {
                for e in &events {
                    self.sink.event(&self.run.id, &e.event);
                }
                Ok(Some(Box::new(row)))
            }
            None => {
                self.held = false;
                Ok(None)
            }
        }
    }

    /// Ends the leg by `outcome`: completed, failed, or suspended by the hook.
    fn end(mut self, outcome: Outcome) -> Result<Ended> {
        let result = match outcome {
            Outcome::Fails(why) => return self.fail(why),
            Outcome::Result(result) => result,
        };
        let usage = usage_of(&result["usage"]);
        if result["stop_reason"] == "tool_deferred" || result["terminal_reason"] == "tool_deferred"
        {
            return self.suspend(&result["deferred_tool_use"], usage);
        }
        let text = result["result"].as_str().unwrap_or_default().to_string();
        if result["is_error"] == true || result["subtype"] != "success" {
            let why = if text.is_empty() {
                result["errors"].to_string()
            } else {
                text
            };
            return self.fail(format!("Claude Code failed: {}", one_line(&why)));
        }
        let step = StepCommit {
            messages: Vec::new(),
            calls: Vec::new(),
            events: vec![Event::finish("stop", &text, usage)],
            usage,
            transition: Transition::Completed {
                output: text,
                finish_reason: "stop".into(),
            },
        };
        self.ended(&step)
    }

    /// Claude Code stopped on a `deferred` call: the run suspends on the items the hook
    /// recorded for it (now that Claude Code has exited, so no decision can start another
    /// `claude` on the session while this one still runs).
    fn suspend(mut self, deferred: &Value, usage: Usage) -> Result<Ended> {
        let id = deferred["id"].as_str().unwrap_or_default();
        let recorded = self
            .store
            .calls(&self.run.id)?
            .iter()
            .any(|c| c.state == CallState::Pending && is_item_of(&c.call_id, id));
        if !recorded {
            return self.fail(format!(
                "Claude Code deferred tool call {} ({}), which the gate did not record",
                one_line(if id.is_empty() { "?" } else { id }),
                one_line(deferred["name"].as_str().unwrap_or("?"))
            ));
        }
        let step = StepCommit {
            messages: Vec::new(),
            calls: Vec::new(),
            events: Vec::new(),
            usage,
            transition: Transition::Suspended,
        };
        self.ended(&step)
    }

    /// Fails the run with `why` (an empty one: Claude Code's output ended with no result).
    fn fail(mut self, why: String) -> Result<Ended> {
        let error = if why.is_empty() {
            "Claude Code ended without a result".to_string()
        } else {
            why
        };
        let step = StepCommit {
            messages: Vec::new(),
            calls: Vec::new(),
            events: vec![Event::error(&error)],
            usage: Usage::default(),
            transition: Transition::Failed {
                error: error.clone(),
            },
        };
        match self.store_step(&step)? {
            Some(row) => Ok(Ended::At(row)),
            // The run was suspended or cancelled meanwhile: it stays so.
            None => Err(anyhow::anyhow!(error)),
        }
    }

    fn ended(&mut self, step: &StepCommit) -> Result<Ended> {
        Ok(match self.store_step(step)? {
            Some(row) => Ended::At(row),
            None => Ended::Stopped,
        })
    }
}

impl Outcome {
    /// An output that ended with no result line names stderr's last line.
    fn or_no_result(self, said: &str) -> Outcome {
        match self {
            Outcome::Fails(why) if why.is_empty() => {
                Outcome::Fails(format!("Claude Code ended without a result{said}"))
            }
            other => other,
        }
    }
}

/// The leg's usage from a result's `usage`.
fn usage_of(u: &Value) -> Usage {
    let input = u["input_tokens"].as_u64().unwrap_or(0);
    let output = u["output_tokens"].as_u64().unwrap_or(0);
    Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input.saturating_add(output),
    }
}

/// Writes one JSON line to Claude Code; a closed stdin (it exited) is seen at its exit.
fn send(stdin: &mut Option<ChildStdin>, line: &Value) {
    if let Some(s) = stdin {
        if writeln!(s, "{line}").and_then(|()| s.flush()).is_err() {
            *stdin = None;
        }
    }
}

/// Reads `stdout` line by line (each capped) on a thread of its own.
fn read_lines(stdout: impl Read + Send + 'static) -> Receiver<Line> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut buf = Vec::new();
            match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let line = if buf.last() != Some(&b'\n') && buf.len() as u64 >= MAX_LINE {
                Line::Unreadable(format!("a line over {} MiB", MAX_LINE >> 20))
            } else if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            } else {
                match serde_json::from_slice(&buf) {
                    Ok(v) => Line::Json(v),
                    Err(_) => {
                        let text = String::from_utf8_lossy(&buf[..buf.len().min(200)]);
                        Line::Unreadable(one_line(text.trim_end()))
                    }
                }
            };
            let stop = matches!(line, Line::Unreadable(_));
            if tx.send(line).is_err() || stop {
                return;
            }
        }
    });
    rx
}

/// Reads `stderr` to its end on a thread of its own, keeping its last `STDERR_TAIL` bytes.
fn read_tail(stderr: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = stderr;
        let mut tail: Vec<u8> = Vec::new();
        let mut chunk = [0u8; 8192];
        while let Ok(n) = reader.read(&mut chunk) {
            if n == 0 {
                break;
            }
            tail.extend_from_slice(&chunk[..n]);
            if tail.len() > STDERR_TAIL {
                tail.drain(..tail.len() - STDERR_TAIL);
            }
        }
        let _ = tx.send(String::from_utf8_lossy(&tail).into_owned());
    });
    rx
}

/// The child's exit status once it exits within `limit`; else it is killed (`None`).
fn exit_within(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let until = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}
