//! The CLI integration tests: one binary, a module per area.

mod common;
mod fake_server;
mod providers;
mod walkthrough;
