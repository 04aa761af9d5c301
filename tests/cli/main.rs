//! The CLI integration tests: one binary, a module per area.

mod bad_input;
mod common;
mod docs;
mod escaping;
mod faults;
mod generated;
mod hostile;
mod invariants;
mod kill_loop;
mod race;
mod resume;
mod rng;
mod scripts;
mod several;
mod store;
mod stress;
mod tools;
mod walkthrough;
