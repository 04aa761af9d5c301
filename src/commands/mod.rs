//! One file per subcommand: thin orchestration over the store, the agent and the output.
//! The helpers here are what several commands share: the context, finding runs by id
//! prefix, choosing a pending item, driving a leg and reporting how it ended.

mod answer;
mod ask;
mod cancel;
mod flow;
pub mod generate;
mod inline;
mod items;
mod notify;
mod oneshot;
mod pending;
mod plan;
mod prune;
mod reply;
mod resume;
mod review;
mod run;
mod runs;
mod show;
mod start;
mod tool;
mod wait;
mod waiting;

use anyhow::Result;

use crate::cli::Command;
use crate::domain::{CallRecord, CallState, ASK_USER};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::output::{format, Out};
use crate::store::{self, Access, Location, Run, Store};

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
}

pub fn dispatch(ctx: &Ctx, command: Command) -> Result<Exit> {
    match command {
        Command::Run(a) => run::run(ctx, a),
        Command::Pending(a) => pending::run(ctx, a),
        Command::Answer(a) => answer::run(ctx, a),
        Command::Review(a) => review::run(ctx, a),
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

    /// The store and the run `input` names (a full id or a unique prefix).
    pub fn store_and_run(&self, input: &str) -> Result<(Box<dyn Store>, Run)> {
        check_prefix(input)?;
        let Some(store) = self.existing_store()? else {
            return fail(no_run(input));
        };
        let run = find_run(store.as_ref(), input)?;
        Ok((store, run))
    }

    /// Whether prompts may appear: stdin and stderr are terminals and `--no-input` is not
    /// given.
    pub fn interactive(&self) -> bool {
        use std::io::IsTerminal;
        !self.no_input && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }

    /// `mastra-ask` with the `--db` this command was given.
    pub fn program(&self) -> String {
        match &self.db_flag {
            Some(db) => format!(
                "mastra-ask --db {}",
                format::shell_quote(&store::redact(db))
            ),
            None => "mastra-ask".to_string(),
        }
    }
}

fn no_run(input: &str) -> Error {
    let wording = store::NotFound::Run {
        run: input.to_string(),
    };
    Error::not_found(wording.to_string()).with_hint("list runs with: mastra-ask runs")
}

fn check_prefix(input: &str) -> Result<()> {
    if input.chars().count() < 4 {
        return fail(Error::usage(format!(
            "run id \"{input}\" is too short: give at least 4 characters"
        )));
    }
    Ok(())
}

/// The run with id `input`, or the only run whose id starts with it.
pub fn find_run(store: &dyn Store, input: &str) -> Result<Run> {
    check_prefix(input)?;
    let input = input.to_ascii_lowercase();
    if let Some(run) = store.run(&input)? {
        return Ok(run);
    }
    let ids = store.run_ids_with_prefix(&input, 6)?;
    match ids.as_slice() {
        [] => fail(no_run(&input)),
        [id] => Ok(store.run(id)?.ok_or_else(|| no_run(id))?),
        many => {
            let shown: Vec<&str> = many.iter().take(5).map(String::as_str).collect();
            let more = if many.len() > 5 { ", ..." } else { "" };
            fail(Error::conflict(format!(
                "run id prefix {input} is ambiguous: {}{more}",
                shown.join(", ")
            )))
        }
    }
}

/// The pending item of `run` that `answer` (questions) or `review` (plans) acts on.
pub fn pending_item(
    ctx: &Ctx,
    store: &dyn Store,
    run: &Run,
    tool: &str,
    tool_call: Option<&str>,
) -> Result<CallRecord> {
    let (command, kind) = if tool == ASK_USER {
        ("answer", "question")
    } else {
        ("review", "plan")
    };
    let other = if tool == ASK_USER { "review" } else { "answer" };
    let wrong_kind = |c: &CallRecord| {
        Error::usage(format!(
            "tool call {} of run {} is a {}, not a {kind}",
            c.call_id,
            run.id,
            if c.is_question() { "question" } else { "plan" }
        ))
        .with_hint(format!("use: {} {other} {}", ctx.program(), run.id))
    };
    if let Some(id) = tool_call {
        let calls = store.calls(&run.id)?;
        let Some(call) = calls
            .into_iter()
            .find(|c| c.call_id == id && c.payload.is_some())
        else {
            return fail(Error::not_found(format!(
                "run {} has no tool call {id}",
                run.id
            )));
        };
        if call.tool_name != tool {
            return fail(wrong_kind(&call));
        }
        if call.state != CallState::Pending {
            return fail(not_pending(&call));
        }
        return Ok(call);
    }
    let pending: Vec<CallRecord> = store
        .pending(Some(&run.id))?
        .into_iter()
        .map(|p| p.call)
        .collect();
    let (mine, others): (Vec<_>, Vec<_>) = pending.into_iter().partition(|c| c.tool_name == tool);
    match (mine.len(), others.first()) {
        (1, _) => Ok(mine.into_iter().next().expect("one item")),
        (0, Some(c)) => fail(wrong_kind(c)),
        (0, None) => fail(Error::conflict(format!(
            "run {} is {}: nothing waits for {command}",
            run.id,
            run.status.as_str()
        ))),
        (n, _) => {
            let ids: Vec<&str> = mine.iter().map(|c| c.call_id.as_str()).collect();
            fail(Error::conflict(format!(
                "run {} has {n} pending {kind}s; choose one with --tool-call: {}",
                run.id,
                ids.join(", ")
            )))
        }
    }
}

/// The store, run and pending item an `answer` (questions) or `review` (plans) names.
pub fn target(
    ctx: &Ctx,
    run: Option<&str>,
    tool: &str,
    tool_call: Option<&str>,
) -> Result<(Box<dyn Store>, Run, CallRecord)> {
    let Some(input) = run else {
        return fail(
            Error::usage("which run? pass RUN")
                .with_hint("list what waits with: mastra-ask pending"),
        );
    };
    let (store, run) = ctx.store_and_run(input)?;
    let item = pending_item(ctx, store.as_ref(), &run, tool, tool_call)?;
    Ok((store, run, item))
}

pub fn not_pending(call: &CallRecord) -> Error {
    let wording = store::Conflict::NotPending {
        call: call.call_id.clone(),
        state: call.state,
        by: call.resolved_by.clone(),
    };
    Error::conflict(wording.to_string())
}

/// Who resolves an item: `--as`, else `MASTRA_ASK_USER`, else the login name.
pub fn who(as_: Option<String>) -> String {
    as_.filter(|s| !s.trim().is_empty())
        .or_else(|| {
            std::env::var("MASTRA_ASK_USER")
                .ok()
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(crate::sys::login_name)
}

/// Reads all of stdin (for `-`), without its final newline.
pub fn read_stdin(what: &str) -> Result<String> {
    use std::io::Read;
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .map_err(|e| Error::invalid(format!("cannot read {what} from stdin: {e}")))?;
    if s.ends_with('\n') {
        s.pop();
        if s.ends_with('\r') {
            s.pop();
        }
    }
    Ok(s)
}

/// `--json VALUE` parsed.
pub fn parse_json_flag(s: &str) -> Result<serde_json::Value> {
    serde_json::from_str(s)
        .map_err(|e| Error::invalid(format!("--json is not valid JSON: {e}")).into())
}
