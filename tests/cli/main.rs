//! The CLI integration tests: one binary, a module per area.

mod bad_input;
mod common;
mod db;
mod docs;
mod escaping;
mod fake_server;
mod generated;
mod postgres;
mod prompts;
mod providers;
mod pty;
mod race;
mod resume;
mod scripts;
mod several;
mod store;
mod tools;
mod walkthrough;
