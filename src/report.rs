//! How the layers below the frontends tell a person or a program what happens: one trait,
//! implemented by the terminal's printer (`output::Out`) and by every other frontend (an
//! HTTP frontend collects the lines and turns the events into a stream).
//!
//! The run layer and the item kinds report only through it: they never write to a terminal,
//! and they never decide how a line looks (sanitizing, colours and JSON framing are the
//! implementation's). Nothing here prints.

use serde_json::Value;

use crate::domain::{Sink, StoredEvent};

/// Where the run layer reports.
pub trait Report {
    /// The frontend takes events as data (JSON lines, an event stream): it gets every stored
    /// event of a run it follows, and the summary lines; a person's terminal gets text.
    fn json(&self) -> bool;
    /// A hint or progress line.
    fn info(&self, line: &str);
    /// Something went wrong that does not stop the command.
    fn warn(&self, line: &str);
    /// One line of data (a command's stdout).
    fn line(&self, line: &str);
    /// One JSON line of data.
    fn json_line(&self, value: &Value);
    /// Lines of data at once, each ending in a newline (a page of a listing): as `line`
    /// for each.
    fn lines(&self, text: &str) {
        for line in text.split_terminator('\n') {
            self.line(line);
        }
    }
    /// JSON lines of data at once, each a serialised value ending in a newline (a page of
    /// a listing): as `json_line` for each.
    fn json_lines(&self, text: &str) {
        for line in text.split_terminator('\n') {
            if let Ok(value) = serde_json::from_str::<Value>(line) {
                self.json_line(&value);
            }
        }
    }
    /// Receives the events of a leg this process drives, as they happen.
    fn leg(&self) -> Box<dyn Sink + '_>;
    /// Events already stored: the results an answer appended, a leg another process drove.
    fn stored_events(&self, run_id: &str, events: &[StoredEvent]);
    /// Receives the events of a leg a Mastra server runs, as they arrive (no spinner of
    /// this process's own).
    fn streamed(&self) -> Box<dyn Sink + '_> {
        self.leg()
    }
    /// One JSON line of data as a Mastra server sent it (JSON mode: its chunks are passed
    /// through unchanged).
    fn chunk(&self, line: &str) {
        if let Ok(value) = serde_json::from_str::<Value>(line) {
            self.json_line(&value);
        }
    }
}
