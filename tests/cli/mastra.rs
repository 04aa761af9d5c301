//! Mastra servers (SPEC §12), through the library's client for now: against the real Mastra
//! server of tests/fixtures/mastra-server (started by these tests; skipped with a message
//! when its npm packages are not installed, a failure in CI), and against the canned fake
//! server for what a well-behaved server never does; and the same client against a
//! mastra-ask `serve` (`peers`).

mod cli;
mod fixture;
mod flows;
mod hostile;
mod ledger;
mod one_loop;
mod peers;
mod strict;
mod transport;
