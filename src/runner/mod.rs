//! The run layer: the one loop that moves runs (SPEC §5.1-5.3, §12), under every frontend
//! (the subcommands, serve, the hook, the MCP server), for runs of this store and of a
//! Mastra server alike. A frontend builds a `Context` (no terminal in it: it reports through
//! a `Report`), picks the place the run lives (`local`: this store, its lease and driver,
//! and what it last read of the run, `read`; `mastra`: a server, the ledger and a streamed
//! leg; both behind `place::Place`, `pick` for the commands), finds what it acts on
//! (`target`), and hands the run to `Advance`: a new run (`start`; a one-step run:
//! `oneshot`), a decision through the one door (`decide`: `Advance::decide`, whose `Outcome`
//! says who moves the run on), a run taken up again (`again`: `resume`, `reply`), or a
//! waiter (`waiter`). Beside the loop: the `--on-suspend` hook (`notify`), the
//! `--on-resolve` hook (`resolved`), escalation (`escalate`), prompting at a terminal
//! (`prompt`, over the item kinds of `items`; `elsewhere` leaves a prompt whose item another
//! process decides), how a run's end is told (`end`), following a run from its stored
//! events (`watch`), the layout of items in listings and announcements (`view`), and a run
//! in full as `show` gives it (`in_full`).
//!
//! Imports go one way: frontends -> runner -> items, agent, remote, store, ui, output.
//! Nothing here imports a frontend, writes SQL or prints except through the context's
//! `Report`.

pub mod advance;
pub mod again;
mod context;
pub mod decide;
pub mod elsewhere;
pub mod end;
pub mod escalate;
pub mod in_full;
pub mod local;
pub mod mastra;
pub mod notify;
pub mod oneshot;
pub mod pick;
pub mod place;
pub mod prompt;
pub mod read;
pub mod record;
pub mod resolved;
pub mod start;
pub mod target;
pub mod view;
pub mod waiter;
pub mod watch;

pub use advance::{Advance, Policy, Wait};
pub use context::{at_a_terminal, Context, StoreFrom};
pub use local::Local;
pub use mastra::{Mastra, PlanFiles, Server};
pub use pick::Picked;
pub use place::Place;
pub use record::{Continues, Outcome};
pub use watch::{Followed, Watch};
