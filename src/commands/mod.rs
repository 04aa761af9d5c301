//! The terminal frontend: one file per subcommand, each reading its flags, picking the place
//! the runs it works on live (this store, or the Mastra server of `--server`: SPEC §12),
//! calling the run layer (`runner`) or the store, and printing; `approve` and `decline`
//! share one file. Here: the dispatch, and the refusal of what works only with `--server`
//! or only without it. Nothing below imports from here.

mod agents;
mod answer;
mod approve;
mod approve_all;
mod ask;
mod cancel;
mod generate;
mod hook;
mod mcp;
mod pending;
mod plan;
mod policy;
mod prune;
mod reply;
mod resume;
mod review;
mod reviewer;
mod run;
mod runs;
mod serve;
mod show;
mod starting;
mod store_grant;
mod tool;
mod wait;

use anyhow::Result;

use crate::cli::Command;
use crate::context::Ctx;
use crate::error::{fail, Error};
use crate::exit::Exit;
use approve::Verdict;

/// The commands that work with `--server`.
pub const SERVER_COMMANDS: &str = "agents, pending, answer, review, approve, decline, run, wait";

/// The commands that exist only on this store, by name; `None` for those that also work
/// with `--server`.
pub fn local_only(command: &Command) -> Option<&'static str> {
    (!works_on_a_server(command)).then(|| name(command))
}

pub fn dispatch(ctx: &Ctx, command: Command) -> Result<Exit> {
    match &ctx.server {
        Some(_) if !works_on_a_server(&command) => return fail(not_on_a_server(&command)),
        Some(_) => starting::refuse_with_server(&command)?,
        None => refuse_server_flags(ctx, &command)?,
    }
    match command {
        Command::Run(a) => run::run(ctx, a),
        Command::Pending(a) => pending::run(ctx, a),
        Command::Answer(a) => answer::run(ctx, a),
        Command::Review(a) => review::run(ctx, a),
        Command::Approve(a) => approve::run(ctx, &a.decision, Verdict::Approve, a.args.as_deref()),
        Command::Decline(a) => approve::run(
            ctx,
            &a.decision,
            Verdict::Decline { reason: a.reason },
            None,
        ),
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
        Command::Agents => agents::run(ctx),
        Command::Serve(a) => serve::run(ctx, a),
        Command::Mcp(a) => mcp::run(ctx, a),
        Command::Reviewer(a) => reviewer::run(ctx, a),
        Command::Policy(a) => policy::run(ctx, a),
        Command::Store(a) => store_grant::run(ctx, a),
        Command::Hook(a) => hook::run(ctx, a),
    }
}

fn works_on_a_server(command: &Command) -> bool {
    SERVER_COMMANDS.split(", ").any(|c| c == name(command))
}

fn not_on_a_server(command: &Command) -> Error {
    let name = name(command);
    Error::usage(format!(
        "{name} does not work with --server; on a Mastra server these do: {SERVER_COMMANDS}"
    ))
    .with_hint("leave out --server to work on this store's runs")
}

/// Refuses, without `--server`, the flags and commands that only mean something with one.
fn refuse_server_flags(ctx: &Ctx, command: &Command) -> Result<()> {
    let flag = match command {
        _ if ctx.token_file_given => Some("--server-token-file"),
        Command::Pending(a) if a.agent.is_some() => Some("pending --agent"),
        Command::Answer(a) if a.agent.is_some() => Some("answer --agent"),
        Command::Review(a) if a.agent.is_some() => Some("review --agent"),
        Command::Approve(a) if a.decision.agent.is_some() => Some("approve --agent"),
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
fn needs_server(what: &str) -> Error {
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
        Command::Hook(_) => "hook",
        Command::Completions(_) => "completions",
        Command::Man(_) => "man",
        Command::Agents => "agents",
        Command::Serve(_) => "serve",
        Command::Mcp(_) => "mcp",
        Command::Reviewer(_) => "reviewer",
        Command::Policy(_) => "policy",
        Command::Store(_) => "store",
    }
}
