//! `run --server URL --agent ID PROMPT`: a run of one of the server's agents, under a run id
//! chosen here (printed first), streamed to its suspension or end and followed like any
//! resumed leg; and `wait --server URL RUN`: watching the listing until the run is no
//! longer suspended (Mastra says nothing more about a run than that).

use std::time::{Duration, Instant};

use anyhow::Result;

use super::leg;
use super::listing;
use super::resolve::Session;
use super::{error, Server};
use crate::cli::{RunArgs, WaitArgs};
use crate::error::{fail, Error, Kind};
use crate::exit::Exit;
use crate::output::format;
use crate::remote::{new_run_id, Client, Start};
use crate::runner::start::prompt_of;

/// How often `wait` lists the server's suspended runs.
const POLL: Duration = Duration::from_secs(1);

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
            with_steps = Client::new(server.config.clone())
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

pub fn wait(server: &Server, args: WaitArgs) -> Result<Exit> {
    let ctx = server.ctx;
    if args.drive {
        return fail(Error::usage(
            "--drive does not work with --server: the server drives its own runs",
        ));
    }
    let deadline = args.timeout.map(|t| Instant::now() + t);
    let items = listing::items(server, None)?;
    let run_id = match listing::run_of(server, &items, &args.run) {
        Ok(id) => id,
        Err(_) => args.run.clone(),
    };
    loop {
        let items = listing::items(server, None)?;
        if !items.iter().any(|i| i.run_id == run_id) {
            ctx.out.info(&format!(
                "run {} is not suspended on {} (Mastra reports nothing more about a run: whether it finished or failed is the server's to say)",
                format::shell_quote(&run_id),
                server.shown
            ));
            return Ok(Exit::Success);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return fail(Error::new(
                Kind::TimedOut,
                format!(
                    "timed out waiting for run {}: it is still suspended",
                    format::shell_quote(&run_id)
                ),
            ));
        }
        let nap = deadline.map_or(POLL, |d| {
            POLL.min(d.saturating_duration_since(Instant::now()))
        });
        std::thread::sleep(nap);
    }
}
