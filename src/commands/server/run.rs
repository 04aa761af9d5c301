//! `run --server URL --agent ID PROMPT`: a run of one of the server's agents, under a run id
//! chosen here (printed first), streamed to its suspension or end and followed like any
//! resumed leg.

use anyhow::Result;

use super::leg;
use super::resolve::Session;
use super::{error, Server};
use crate::cli::RunArgs;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::remote::{new_run_id, Client, Start};
use crate::runner::start::prompt_of;

pub fn run(server: &Server, args: RunArgs) -> Result<Exit> {
    let ctx = server.ctx;
    if args.quiet && ctx.out.is_json() {
        return fail(Error::usage(
            "-q prints only the run id; with -o json the chunks carry it (runId)",
        ));
    }
    let local_only = [
        (args.model.is_some(), "--model"),
        (args.cwd.is_some(), "--cwd"),
        (args.wait.wait, "--wait"),
        (args.wait.expires_in.is_some(), "--expires-in"),
    ];
    if let Some((_, flag)) = local_only.iter().find(|(given, _)| *given) {
        return fail(Error::usage(format!(
            "{flag} does not work with --server: the server's agent has its own model and runs where the server runs"
        )));
    }
    let Some(agent) = args.agent.as_ref().and_then(|a| a.to_str()) else {
        return fail(
            Error::usage("with --server, run needs --agent ID (one of the server's agents)")
                .with_hint(format!("list them with: {} agents", ctx.program())),
        );
    };
    let prompt = prompt_of(&args)?;
    let run_id = new_run_id();
    if args.quiet {
        ctx.out.line(&run_id);
        ctx.out.hide_agent_text();
    } else {
        ctx.out.info(&format!("run {run_id}"));
    }
    let with_steps;
    let client = match args.max_steps {
        Some(n) => {
            with_steps = Client::with_deadlines(server.config.clone(), server.deadlines)
                .map_err(error)?
                .with_max_steps(n);
            &with_steps
        }
        None => &server.client,
    };
    let start = Start {
        run_id: run_id.clone(),
        prompt,
        // Mastra's `requireToolApproval`: every tool call of the run waits for approval.
        require_tool_approval: args.require_approval,
    };
    let session = Session::starting(server);
    let streamed =
        leg::stream(server, |on_chunk| client.start(agent, &start, on_chunk)).map_err(error)?;
    session.follow(&run_id, streamed)
}
