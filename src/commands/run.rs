//! `run`: start a run of an agent on a prompt and drive its first leg; with `--server`, a
//! run of one of the server's agents (`--agent ID`) under a run id chosen here (printed
//! first), recorded in this store's ledger, its first leg streamed from the server.

use anyhow::Result;

use crate::agent::def::absolute;
use crate::agent::AgentDef;
use crate::cli::RunArgs;
use crate::context::Ctx;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::input::read_stdin;
use crate::providers;
use crate::remote::{self, ServerConfig};
use crate::runner::start::{start, Start};
use crate::runner::{Advance, Mastra, Policy, Server};
use crate::store::Who;

pub fn run(ctx: &Ctx, args: RunArgs) -> Result<Exit> {
    if args.quiet && ctx.out.is_json() {
        return fail(Error::usage(
            "-q prints only the run id; with -o json the events carry it (runId)",
        ));
    }
    if let Some(config) = &ctx.server {
        return on_server(ctx, config, args);
    }
    let prompt = prompt_of(&args)?;
    let here = absolute(std::path::Path::new("."))?;
    let override_model = args
        .model
        .as_deref()
        .filter(|m| !m.is_empty())
        .map(|m| providers::normalize_spec(m, &here))
        .transpose()?;
    let mut agent = match (&args.agent, override_model) {
        (Some(file), model) => {
            let mut def = AgentDef::load(file)?;
            // A Claude Code agent's model is claude's (`claudeCode.args`): `--model` and
            // MASTRA_ASK_MODEL are for our own loop.
            if let Some(m) = model.filter(|_| def.claude_code.is_none()) {
                def.model = m;
            }
            def
        }
        (None, Some(model)) => AgentDef::assistant(&model),
        (None, None) => {
            return fail(Error::usage("the default agent needs a model").with_hint(
                "pass --agent FILE, or --model SPEC (or set MASTRA_ASK_MODEL), e.g. --model script:examples/release/script.json",
            ))
        }
    };
    if let Some(n) = args.max_steps {
        agent = agent.with_max_steps(n)?;
    }
    if args.require_approval {
        agent = agent.require_approval();
    }
    let cwd = working_dir(args.cwd.as_deref())?;
    let drive = crate::agent::Drive::of(&agent)?;

    if args.quiet {
        ctx.out.hide_agent_text();
    }
    start(
        ctx,
        Start {
            agent: &agent,
            cwd: &cwd,
            prompt: &prompt,
            drive,
            watched: super::starting::watched(ctx, &args.wait, agent.policy_spec())?,
            print_id: args.quiet,
        },
    )
}

/// `run --server URL --agent ID PROMPT`.
fn on_server(ctx: &Ctx, config: &ServerConfig, args: RunArgs) -> Result<Exit> {
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
    let mut server = Server::connect(ctx, config, None)?;
    if let Some(n) = args.max_steps {
        server = server.with_max_steps(n)?;
    }
    let run_id = remote::new_run_id();
    if args.quiet {
        ctx.out.line(&run_id);
        ctx.out.hide_agent_text();
    } else {
        ctx.out.info(&format!("run {run_id}"));
    }
    let start = remote::Start {
        run_id,
        prompt,
        // Mastra's `requireToolApproval`: every tool call of the run waits for approval.
        require_tool_approval: args.require_approval,
    };
    let place = Mastra::starting(ctx, &server, agent, start);
    let policy = Policy::driving(ctx, Who::this_process(None));
    Advance::over(ctx, Box::new(place), policy).run()
}

/// The run's working directory: `--cwd`, else the current one; absolute and existing.
fn working_dir(dir: Option<&std::path::Path>) -> Result<String> {
    let dir = dir.unwrap_or(std::path::Path::new("."));
    let resolved = dir
        .canonicalize()
        .map_err(|e| Error::usage(format!("--cwd {}: {e}", dir.display())))?;
    if !resolved.is_dir() {
        return fail(Error::usage(format!(
            "--cwd {} is not a directory",
            dir.display()
        )));
    }
    resolved
        .to_str()
        .map(str::to_string)
        .ok_or_else(|| Error::usage("the working directory's path is not valid UTF-8").into())
}

/// The prompt: PROMPT, or stdin for `-`; never empty.
pub fn prompt_of(args: &RunArgs) -> Result<String> {
    let prompt = match args.prompt.as_deref() {
        None => {
            return fail(
                Error::usage("no prompt given")
                    .with_hint("pass PROMPT, or - to read it from stdin"),
            )
        }
        Some("-") => read_stdin("the prompt")?,
        Some(p) => p.to_string(),
    };
    if prompt.trim().is_empty() {
        return fail(Error::usage("the prompt is empty"));
    }
    Ok(prompt)
}
