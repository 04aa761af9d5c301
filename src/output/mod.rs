//! Everything the program prints: data on stdout, hints and progress on stderr, JSON lines
//! in JSON mode, untrusted text always sanitized. A closed stdout (`| head`) ends output
//! quietly instead of failing.
//!
//! Every text-mode line goes through the sanitizer here, whatever its caller already did
//! (escaping twice changes nothing), so no path can put a raw control or invisible
//! character on a terminal. JSON lines keep their value: a server's chunk is passed through
//! byte for byte, except that raw controls, bidi and invisible characters in it (which JSON
//! allows raw) are written as `\u` escapes, as in every other JSON line.

pub mod events;
pub mod format;
pub mod sanitize;
pub mod spinner;
pub mod usage;

use std::cell::Cell;
use std::io::{self, Write};

use console::style;
use serde_json::{json, Value};

use crate::domain::{Event, EventKind, Sink, StoredEvent};
use spinner::Spinner;

pub struct Out {
    json: bool,
    stdout_closed: Cell<bool>,
    /// The text mode's current line on stdout has text without a final newline.
    open_line: Cell<bool>,
    /// The agent's text is not printed (`run -q`: stdout carries only the run id).
    hide_text: Cell<bool>,
}

impl Out {
    pub fn new(json: bool) -> Out {
        Out {
            json,
            stdout_closed: Cell::new(false),
            open_line: Cell::new(false),
            hide_text: Cell::new(false),
        }
    }

    /// From now on, the agent's text is not printed.
    pub fn hide_agent_text(&self) {
        self.hide_text.set(true);
    }

    pub fn is_json(&self) -> bool {
        self.json
    }

    /// Writes text to stdout (sanitized in text mode; newlines and tabs kept).
    pub fn write(&self, s: &str) {
        if self.json {
            self.emit(s);
        } else {
            self.emit(&sanitize::block_cow(s));
        }
    }

    /// Writes to stdout as is; a broken pipe closes it for the rest of the command.
    fn emit(&self, s: &str) {
        if self.stdout_closed.get() {
            return;
        }
        let mut out = io::stdout().lock();
        if out
            .write_all(s.as_bytes())
            .and_then(|_| out.flush())
            .is_err()
        {
            self.stdout_closed.set(true);
        }
    }

    /// One line of data on stdout.
    pub fn line(&self, s: &str) {
        self.write(&format!("{s}\n"));
    }

    pub fn json_line(&self, v: &Value) {
        self.emit(&format!("{}\n", sanitize::json(&v.to_string())));
    }

    /// JSON lines on stdout, each a serialised value ending in a newline, written at once
    /// (`sanitize::json_lines`: each the same value).
    pub fn json_lines(&self, text: &str) {
        self.emit(&sanitize::json_lines(text));
    }

    /// One line of JSON text on stdout as given (a Mastra server's chunk), its raw
    /// controls, bidi and invisible characters escaped (`sanitize::json`: the same value).
    pub fn json_text_line(&self, line: &str) {
        self.emit(&format!("{}\n", sanitize::json(line)));
    }

    /// A hint or progress line on stderr (text mode only).
    pub fn info(&self, s: &str) {
        if !self.json {
            self.end_open_line();
            let _ = io::stderr().write_all(format!("{}\n", sanitize::block(s)).as_bytes());
        }
    }

    pub fn warn(&self, s: &str) {
        if !self.json {
            self.end_open_line();
            let line = format!(
                "{} {}\n",
                style("warning:").yellow().bold().for_stderr(),
                sanitize::block(s)
            );
            let _ = io::stderr().write_all(line.as_bytes());
        }
    }

    /// Finishes agent text that did not end with a newline.
    fn end_open_line(&self) {
        if self.open_line.replace(false) {
            self.emit("\n");
        }
    }

    /// An error, printed once: prose in text mode, one JSON line in JSON mode.
    pub fn error(&self, code: &str, message: &str, hint: Option<&str>) {
        let message = sanitize::one_line(message);
        let mut err = io::stderr();
        if self.json {
            let mut e = json!({"code": code, "message": message});
            if let Some(h) = hint {
                e["hint"] = json!(h);
            }
            let _ = writeln!(
                err,
                "{}",
                sanitize::json(&json!({ "error": e }).to_string())
            );
            return;
        }
        self.end_open_line();
        let _ = writeln!(
            err,
            "{} {message}",
            style("error:").red().bold().for_stderr()
        );
        if let Some(h) = hint {
            let _ = writeln!(
                err,
                "{} {}",
                style("hint:").cyan().for_stderr(),
                sanitize::one_line(h)
            );
        }
    }

    /// Lines that follow an error on stderr (text mode only), e.g. the parser's usage.
    pub fn details(&self, text: &str) {
        if !self.json && !text.is_empty() {
            let _ = writeln!(io::stderr(), "{}", sanitize::block(text));
        }
    }

    /// Prints events already stored (e.g. the results a resumption appended).
    pub fn stored_events(&self, run_id: &str, events: &[StoredEvent]) {
        let mut sink = self.sink();
        for e in events {
            sink.event(run_id, &e.event);
        }
    }

    pub fn sink(&self) -> EventPrinter<'_> {
        EventPrinter {
            out: self,
            spins: false,
            spinner: None,
        }
    }

    /// The printer of a leg this process drives: as `sink`, and on a terminal in text mode
    /// a spinner while the model thinks (from a step's start to its first text or event).
    pub fn leg_sink(&self) -> EventPrinter<'_> {
        EventPrinter {
            spins: true,
            ..self.sink()
        }
    }
}

/// The JSON envelope of an event.
pub fn envelope(run_id: &str, e: &Event) -> Value {
    json!({"type": e.kind, "runId": run_id, "from": "AGENT", "payload": e.payload})
}

/// Prints a run's events as they happen: every event as a JSON line in JSON mode; in text
/// mode the agent's text on stdout, and on stderr every tool call that failed (a
/// `tool-error`, or a result that is an error: `isError: true`, invalid input), so a person
/// sees why the run went on without them.
pub struct EventPrinter<'a> {
    out: &'a Out,
    /// Show a spinner from each step's start to its next event.
    spins: bool,
    spinner: Option<Spinner>,
}

impl Sink for EventPrinter<'_> {
    fn event(&mut self, run_id: &str, e: &Event) {
        let out = self.out;
        if out.json {
            out.json_line(&envelope(run_id, e));
            return;
        }
        // Gone (its line cleared) before anything else is printed.
        drop(self.spinner.take());
        match e.kind {
            EventKind::StepStart if self.spins => self.spinner = Some(Spinner::start("thinking")),
            EventKind::TextDelta if out.hide_text.get() => {}
            EventKind::TextDelta => {
                let text = e.payload["text"].as_str().unwrap_or_default();
                if !text.is_empty() {
                    out.write(&sanitize::block(text));
                    out.open_line.set(!text.ends_with('\n'));
                }
            }
            EventKind::StepFinish | EventKind::Finish => out.end_open_line(),
            EventKind::ToolError => failed_call(
                out,
                e,
                e.payload["error"]["message"].as_str().unwrap_or_default(),
            ),
            EventKind::ToolResult => {
                if let Some(why) = failure_of(&e.payload["result"]) {
                    failed_call(out, e, &why);
                }
            }
            _ => {}
        }
    }
}

/// `warning: tool call ID (NAME) failed: WHY` on stderr.
fn failed_call(out: &Out, e: &Event, why: &str) {
    out.warn(&format!(
        "tool call {} ({}) failed: {}",
        sanitize::one_line(e.payload["toolCallId"].as_str().unwrap_or_default()),
        sanitize::one_line(e.payload["toolName"].as_str().unwrap_or_default()),
        sanitize::one_line(why),
    ));
}

/// Why a tool's result is a failure, if it is one: the content of an `isError: true`
/// result, or the problems of a validation object.
fn failure_of(result: &Value) -> Option<String> {
    if result["isError"] == Value::Bool(true) {
        return Some(
            result["content"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| result["content"].to_string()),
        );
    }
    (result["error"] == Value::Bool(true))
        .then(|| format!("invalid input: {}", crate::tools::problems(result)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_results_are_told_from_good_ones() {
        assert_eq!(
            failure_of(
                &json!({"content": "Failed to submit plan: P.md does not exist", "isError": true})
            ),
            Some("Failed to submit plan: P.md does not exist".to_string())
        );
        assert_eq!(
            failure_of(
                &json!({"error": true, "message": "Tool input validation failed for ask_user. Please fix the following errors and try again:\n- question: Required\n\nProvided arguments: {}", "validationErrors": {}})
            ),
            Some("invalid input: question: Required".to_string())
        );
        assert_eq!(
            failure_of(&json!({"content": "User answered: a", "isError": false})),
            None
        );
        assert_eq!(failure_of(&json!("Tool \"x\" not found.")), None);
    }
}
