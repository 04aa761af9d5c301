//! The CLI integration tests: one binary, a module per area.

mod bad_input;
mod common;
mod docs;
mod escaping;
mod prompts;
mod pty;
mod race;
mod resume;
mod several;
mod store;
mod tools;
mod walkthrough;
