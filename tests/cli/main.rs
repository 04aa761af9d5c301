//! The CLI integration tests: one binary, a module per area.

mod common;
mod walkthrough;
