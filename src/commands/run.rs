//! `run`: start a run of an agent on a prompt and drive its first leg.

use anyhow::Result;

use super::waiting::{self, WaitOptions, Waiter};
use super::{flow, read_stdin, Ctx};
use crate::agent::def::absolute;
use crate::agent::driver::new_message_id;
use crate::agent::{lease, AgentDef};
use crate::cli::RunArgs;
use crate::domain::Event;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::providers;
use crate::store::{self, Access, NewRun};

pub fn run(ctx: &Ctx, args: RunArgs) -> Result<Exit> {
    let deadline = waiting::deadline(args.wait.timeout);
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
    let cwd = working_dir(args.cwd.as_deref())?;
    let provider = providers::from_spec(&agent.model)?;

    let store = store::open(&ctx.location, Access::Create)?.expect("created on demand");
    let run_id = uuid::Uuid::now_v7().to_string();
    let lease = lease::mine();
    let agent_json = serde_json::to_value(&agent)?;
    let start = [Event::start(&agent.id, &new_message_id())];
    let events = store.create_run(&NewRun {
        id: &run_id,
        agent_id: &agent.id,
        agent: &agent_json,
        cwd: &cwd,
        prompt: &prompt,
        lease: &lease,
        events: &start,
        expires_in_ms: args.wait.expires_in.map(|d| d.as_millis() as i64),
    })?;
    ctx.out.stored_events(&run_id, &events);
    if !args.wait.wait {
        return flow::drive(ctx, store.as_ref(), &run_id, &lease, provider.as_ref());
    }
    let waiter = Waiter::register(ctx, store.as_ref(), &run_id)?;
    let status = flow::drive_leg(ctx, store.as_ref(), &run_id, &lease, provider.as_ref())?;
    if status == crate::domain::RunStatus::Suspended {
        flow::report(ctx, store.as_ref(), &run_id, status, true)?;
    }
    let opts = WaitOptions {
        drive: true,
        deadline,
        expire_at_deadline: true,
    };
    let run = waiting::until_end(ctx, store.as_ref(), &run_id, &opts)?;
    drop(waiter);
    flow::report(ctx, store.as_ref(), &run_id, run.status, false)
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
