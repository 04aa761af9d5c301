//! The CLI integration tests: one binary, a module per area.

mod approval;
mod bad_input;
mod cancelled;
mod ci_docs;
mod command_tools;
mod common;
mod completion;
mod db;
mod doc_outputs;
mod docs;
mod escaping;
mod fake_server;
mod faults;
mod generated;
mod hostile;
mod ids;
mod invariants;
mod kill_loop;
mod mastra;
mod model_paths;
mod net;
mod pg_grants;
mod pg_guards;
mod pg_pooler;
mod pg_safety;
mod pg_tls;
mod policy;
mod policy_cli;
mod policy_race;
mod policy_runs;
mod postgres;
mod prompt_watch;
mod prompts;
mod providers;
mod pty;
mod race;
mod resume;
/// The same generators as the unit tests' property tests.
#[allow(dead_code)]
#[path = "../../src/testing.rs"]
mod rng;
mod safety;
mod scripts;
mod serve;
mod several;
mod snapshots;
mod steps;
mod store;
mod store_flag;
mod store_safety;
mod stress;
mod suite;
mod tool_processes;
mod tools;
mod transitions;
mod walkthrough;
