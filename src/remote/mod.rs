//! Mastra servers (`--server URL`, SPEC §12): a blocking client for the HTTP routes with which
//! a Mastra application lets a person answer its suspended agent runs, on the wire observed
//! on a real server (shared/MASTRA-SERVER.md).
//!
//! It lists agents and pending calls, starts runs and resumes them by the route the item's
//! kind needs, streaming each leg to `data: [DONE]`, every request within its deadline and
//! every listing within its caps. It never touches the store (the
//! exactly-once ledger is the caller's), never prompts and never prints: messages it builds
//! are free of credentials and server stacks, and the caller decides how to show them.

mod client;
mod config;
mod deadline;
mod error;
mod interrupt;
mod stream;
mod suspended;
mod transport;
mod wire;

pub use crate::net::{Origin, Scheme};
pub use client::{new_run_id, Answer, Client, Start};
pub use config::{read_token, ServerConfig, DEFAULT_PREFIX, TOKEN_ENV, URL_ENV};
pub use deadline::{Deadlines, IDLE_ENV};
pub use error::{Delivery, Issue, RemoteError};
pub use interrupt::{Stop, StopGuard};
pub use stream::{Chunk, Leg, LegEnd, Listener, MAX_FRAME};
pub use suspended::SuspendedCall;
pub use wire::AgentInfo;
