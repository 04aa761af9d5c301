//! `--server URL` (SPEC §12): the commands that work on a Mastra server's runs instead of
//! this store's — `agents`, `pending`, `answer`, `review`, `approve`, `decline`, `run` and
//! `wait` — and the usage error for every other one.
//!
//! These are orchestration over `remote` (the wire), the store's ledger (exactly once among
//! the processes that share a store) and the pieces local runs use: `items` to show items,
//! `prompting`/`ui` to ask a person, `answer`/`review` to read and check answers. The server
//! keeps its own runs: nothing here drives a model or stores a run. Credentials never reach
//! a printed line or the store (`ServerConfig::display` is what both see).

mod agents;
mod claims;
mod ledger;
mod leg;
mod listing;
mod pending;
mod plan;
mod resolve;
mod run;
mod wait;

use anyhow::Result;

use crate::cli::Command;
use crate::context::Ctx;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::approval::Verdict;
use crate::remote::{Client, Deadlines, RemoteError, ServerConfig};

/// The commands that work with `--server`.
pub const COMMANDS: &str = "agents, pending, answer, review, approve, decline, run, wait";

/// A command's view of the server it works on.
pub struct Server<'a> {
    pub ctx: &'a Ctx<'a>,
    pub client: Client,
    pub config: ServerConfig,
    /// The deadlines of its requests (`MASTRA_ASK_SERVER_IDLE_TIMEOUT`).
    pub deadlines: Deadlines,
    /// The server as shown and stored (no credentials).
    pub shown: String,
}

impl<'a> Server<'a> {
    fn new(ctx: &'a Ctx<'a>, config: &ServerConfig) -> Result<Server<'a>> {
        let deadlines = Deadlines::from_env().map_err(error)?;
        if config.credential_withheld() {
            ctx.out.warn(&format!(
                "the token is not sent to {}: it is plain http and not on this machine (use https)",
                config.origin().host
            ));
        }
        Ok(Server {
            ctx,
            client: Client::with_deadlines(config.clone(), deadlines).map_err(error)?,
            config: config.clone(),
            deadlines,
            shown: config.display().to_string(),
        })
    }

    /// `mastra-ask --server URL pending` as a person would type it.
    pub fn pending_command(&self) -> String {
        format!("{} pending", self.ctx.program())
    }
}

pub fn dispatch(ctx: &Ctx, config: &ServerConfig, command: Command) -> Result<Exit> {
    let server = Server::new(ctx, config)?;
    match command {
        Command::Agents => agents::run(&server),
        Command::Pending(a) => pending::run(&server, a),
        Command::Answer(a) => resolve::answer(&server, a),
        Command::Review(a) => resolve::review(&server, a),
        Command::Approve(a) => resolve::decide(&server, &a, Verdict::Approve),
        Command::Decline(a) => {
            resolve::decide(&server, &a.decision, Verdict::Decline { reason: a.reason })
        }
        Command::Run(a) => run::run(&server, a),
        Command::Wait(a) => wait::run(&server, a),
        other => fail(
            Error::usage(format!(
                "{} does not work with --server; on a Mastra server these do: {COMMANDS}",
                name(&other)
            ))
            .with_hint(
                "leave out --server (and unset MASTRA_SERVER_URL) to work on this store's runs",
            ),
        ),
    }
}

/// Refuses, without `--server`, the flags and commands that only mean something with one.
pub fn refuse_server_flags(ctx: &Ctx, command: &Command) -> Result<()> {
    let flag = match command {
        _ if ctx.token_file_given => Some("--server-token-file"),
        Command::Pending(a) if a.agent.is_some() => Some("pending --agent"),
        Command::Answer(a) if a.agent.is_some() => Some("answer --agent"),
        Command::Review(a) if a.agent.is_some() => Some("review --agent"),
        Command::Approve(a) if a.agent.is_some() => Some("approve --agent"),
        Command::Decline(a) if a.decision.agent.is_some() => Some("decline --agent"),
        Command::Review(a) if a.plan_root.is_some() => Some("review --plan-root"),
        Command::Review(a) if a.plan_file.is_some() => Some("review --plan-file"),
        Command::Review(a) if a.unseen => Some("review --unseen"),
        _ => None,
    };
    match flag {
        Some(flag) => fail(needs_server(flag)),
        None => Ok(()),
    }
}

/// What only works on a Mastra server.
pub fn needs_server(what: &str) -> Error {
    Error::usage(format!("{what} works on a Mastra server's runs only"))
        .with_hint("pass --server URL (or set MASTRA_SERVER_URL)")
}

fn name(command: &Command) -> &'static str {
    match command {
        Command::Run(_) => "run",
        Command::Pending(_) => "pending",
        Command::Answer(_) => "answer",
        Command::Review(_) => "review",
        Command::Approve(_) => "approve",
        Command::Decline(_) => "decline",
        Command::Show(_) => "show",
        Command::Runs(_) => "runs",
        Command::Cancel(_) => "cancel",
        Command::Resume(_) => "resume",
        Command::Tool(_) => "tool",
        Command::Ask(_) => "ask",
        Command::Plan(_) => "plan",
        Command::Wait(_) => "wait",
        Command::Reply(_) => "reply",
        Command::Prune(_) => "prune",
        Command::Completions(_) => "completions",
        Command::Man(_) => "man",
        Command::Agents => "agents",
        Command::Serve(_) => "serve",
        Command::Reviewer(_) => "reviewer",
    }
}

/// A server's error as the command error (its kind, wording and hint).
pub fn error(e: RemoteError) -> anyhow::Error {
    Error::from(e).into()
}
