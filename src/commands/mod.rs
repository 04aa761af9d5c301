//! The terminal frontend: one file per subcommand, each reading its flags, calling the run
//! layer (`runner`) or the store, and printing; `approve` and `decline` share one file, and
//! `server/` holds the same commands on a Mastra server's runs (`--server`). Nothing below
//! imports from here.

mod answer;
mod approve;
mod ask;
mod cancel;
mod generate;
mod pending;
mod plan;
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
mod tool;
mod wait;

use anyhow::Result;

use crate::cli::Command;
use crate::context::Ctx;
use crate::exit::Exit;
use crate::items::approval::Verdict;

/// The commands that exist only on this store (none of them works on a Mastra server), by
/// name; `None` for those that also work with `--server`.
pub fn local_only(command: &Command) -> Option<&'static str> {
    Some(match command {
        Command::Show(_) => "show",
        Command::Runs(_) => "runs",
        Command::Cancel(_) => "cancel",
        Command::Resume(_) => "resume",
        Command::Ask(_) => "ask",
        Command::Plan(_) => "plan",
        Command::Reply(_) => "reply",
        Command::Prune(_) => "prune",
        Command::Serve(_) => "serve",
        Command::Reviewer(_) => "reviewer",
        Command::Tool(_) => "tool",
        Command::Completions(_) => "completions",
        Command::Man(_) => "man",
        Command::Run(_)
        | Command::Pending(_)
        | Command::Answer(_)
        | Command::Review(_)
        | Command::Approve(_)
        | Command::Decline(_)
        | Command::Wait(_)
        | Command::Agents => return None,
    })
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
        Command::Approve(a) => approve::run(ctx, &a, Verdict::Approve),
        Command::Decline(a) => {
            approve::run(ctx, &a.decision, Verdict::Decline { reason: a.reason })
        }
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
    }
}
