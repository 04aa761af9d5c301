//! The terminal frontend's context, built once by `lib::main`: the run layer's context
//! (`runner::Context`, which it dereferences to) with the terminal's printer, and what only
//! the command line knows. Here too the printer becomes the run layer's `Report`.

use std::ops::Deref;

use serde_json::Value;

use crate::domain::{Sink, StoredEvent};
use crate::output::Out;
use crate::report::Report;
use crate::runner::Context;

/// What every command gets.
pub struct Ctx<'a> {
    pub run: Context<'a>,
    pub out: &'a Out,
    /// `--server-token-file` was given.
    pub token_file_given: bool,
}

impl<'a> Deref for Ctx<'a> {
    type Target = Context<'a>;

    fn deref(&self) -> &Context<'a> {
        &self.run
    }
}

impl Report for Out {
    fn json(&self) -> bool {
        self.is_json()
    }

    fn info(&self, line: &str) {
        Out::info(self, line)
    }

    fn warn(&self, line: &str) {
        Out::warn(self, line)
    }

    fn line(&self, line: &str) {
        Out::line(self, line)
    }

    fn json_line(&self, value: &Value) {
        Out::json_line(self, value)
    }

    fn lines(&self, text: &str) {
        self.write(text)
    }

    fn json_lines(&self, text: &str) {
        Out::json_lines(self, text)
    }

    fn leg(&self) -> Box<dyn Sink + '_> {
        Box::new(self.leg_sink())
    }

    fn stored_events(&self, run_id: &str, events: &[StoredEvent]) {
        Out::stored_events(self, run_id, events)
    }

    fn streamed(&self) -> Box<dyn Sink + '_> {
        Box::new(self.sink())
    }

    fn chunk(&self, line: &str) {
        self.json_text_line(line)
    }
}
