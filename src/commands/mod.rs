//! One file per subcommand: thin orchestration over the store, the agent and the output.
//! `approve` and `decline` share one file. Shared pieces: the context (`Ctx`, here), finding runs and items (`target`), reading
//! input (`input`), showing items (`items`), the `--on-suspend` hook (`notify`), prompting
//! at a terminal (`prompting`), starting runs (`start`), waiters (`waiter`), what a finished
//! run's waiter prints (`outcome`), and the one loop that moves a run (`advance`).
//!
//! Imports among these go one way: commands -> advance -> prompting, items, notify,
//! outcome -> target, input.

mod advance;
mod answer;
mod approve;
mod ask;
mod cancel;
pub mod generate;
mod input;
mod items;
mod notify;
mod oneshot;
mod outcome;
mod pending;
mod plan;
mod policy;
mod prompting;
mod prune;
mod reply;
mod resume;
mod review;
mod reviewer;
mod run;
mod runs;
mod serve;
mod server;
mod show;
mod start;
mod store_grant;
mod target;
mod tool;
mod wait;
mod waiter;

use anyhow::Result;

use crate::cli::Command;
use crate::exit::Exit;
use crate::output::{format, Out};
use crate::store::{self, Access, Location, Store};

/// What every command gets, built once.
pub struct Ctx {
    pub location: Location,
    /// `--db` as given on the command line, repeated in the commands we print.
    pub db_flag: Option<String>,
    pub out: Out,
    /// `--no-input`: never prompt.
    pub no_input: bool,
    /// `--on-suspend CMD`.
    pub on_suspend: Option<String>,
    /// `--server URL` (with its token): the commands work on that Mastra server's runs.
    pub server: Option<crate::remote::ServerConfig>,
    /// `--server-token-file` was given.
    pub token_file_given: bool,
}

pub fn dispatch(ctx: &Ctx, command: Command) -> Result<Exit> {
    if let Some(config) = &ctx.server {
        return server::dispatch(ctx, config, command);
    }
    server::refuse_server_flags(ctx, &command)?;
    match command {
        Command::Run(a) => run::run(ctx, a),
        Command::Pending(a) => pending::run(ctx, a),
        Command::Answer(a) => answer::run(ctx, a),
        Command::Review(a) => review::run(ctx, a),
        Command::Approve(a) => approve::run(ctx, &a, None),
        Command::Decline(a) => approve::run(ctx, &a.decision, Some(a.reason)),
        Command::Show(a) => show::run(ctx, &a.run),
        Command::Runs(a) => runs::run(ctx, a),
        Command::Cancel(a) => cancel::run(ctx, &a.run),
        Command::Resume(a) => resume::run(ctx, &a.run),
        Command::Tool(a) => tool::run(ctx, a),
        Command::Ask(a) => ask::run(ctx, a),
        Command::Plan(a) => plan::run(ctx, a),
        Command::Wait(a) => wait::run(ctx, a),
        Command::Reply(a) => reply::run(ctx, a),
        Command::Prune(a) => prune::run(ctx, a),
        Command::Completions(a) => generate::completions(ctx, a),
        Command::Man(a) => generate::man(ctx, a),
        Command::Agents => crate::error::fail(server::needs_server("agents")),
        Command::Serve(a) => serve::run(ctx, a),
        Command::Reviewer(a) => reviewer::run(ctx, a),
        Command::Policy(a) => policy::run(ctx, a),
        Command::Store(a) => store_grant::run(ctx, a),
    }
}

impl Ctx {
    /// The store, if one exists (never creates it), with overdue items expired.
    pub fn existing_store(&self) -> Result<Option<Box<dyn Store>>> {
        let store = store::open(&self.location, Access::Existing)?;
        if let Some(s) = &store {
            s.expire_due(store::now_ms())?;
        }
        Ok(store)
    }

    /// The store, created when there is none yet.
    pub fn create_store(&self) -> Result<Box<dyn Store>> {
        store::open(&self.location, Access::Create)?
            .ok_or_else(|| anyhow::anyhow!("the store could not be created"))
    }

    /// Whether prompts may appear: stdin and stderr are terminals and `--no-input` is not
    /// given.
    pub fn interactive(&self) -> bool {
        use std::io::IsTerminal;
        !self.no_input && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }

    /// `mastra-ask` with the `--db` this command was given, and the `--server` (as shown:
    /// no credentials) it works on.
    pub fn program(&self) -> String {
        let mut words = vec!["mastra-ask".to_string()];
        if let Some(db) = &self.db_flag {
            words.push(format::flag("--db", &store::redact(db)));
        }
        if let Some(server) = &self.server {
            words.push(format::flag("--server", server.display()));
        }
        words.join(" ")
    }
}
