//! `run`: start a run of an agent on a prompt and drive its first leg.

use anyhow::Result;

use crate::agent::def::absolute;
use crate::agent::AgentDef;
use crate::cli::RunArgs;
use crate::context::Ctx;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::providers;
use crate::runner::start::{prompt_of, start, Start};

pub fn run(ctx: &Ctx, args: RunArgs) -> Result<Exit> {
    if args.quiet && ctx.out.is_json() {
        return fail(Error::usage(
            "-q prints only the run id; with -o json the events carry it (runId)",
        ));
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
            if let Some(m) = model {
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
    let provider = providers::from_spec(&agent.model)?;

    if args.quiet {
        ctx.out.hide_agent_text();
    }
    start(
        ctx,
        Start {
            agent: &agent,
            cwd: &cwd,
            prompt: &prompt,
            provider,
            wait: &args.wait,
            print_id: args.quiet,
        },
    )
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
