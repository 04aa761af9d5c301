//! One file per subcommand: thin orchestration over the store, the agent and the output.
//! The helpers here are what several commands share: the context, finding runs by id
//! prefix, choosing a pending item, driving a leg and reporting how it ended.

mod answer;
mod cancel;
mod inline;
mod pending;
mod resume;
mod review;
mod run;
mod runs;
mod show;
mod tool;

use anyhow::Result;

use crate::agent::driver::{self, LegEnd};
use crate::cli::Command;
use crate::domain::{CallRecord, CallState, RunStatus, ASK_USER};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::output::{format, sanitize, Out};
use crate::providers;
use crate::store::{self, Access, Lease, Location, PendingItem, Run, Store};
use crate::tools::ask_user::{Mode, Question};

/// What every command gets, built once.
pub struct Ctx {
    pub location: Location,
    /// `--db` as given on the command line, repeated in the commands we print.
    pub db_flag: Option<String>,
    pub out: Out,
    /// `--no-input`: never prompt.
    pub no_input: bool,
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
    }
}

impl Ctx {
    /// The store, if one exists (never creates it).
    pub fn existing_store(&self) -> Result<Option<Box<dyn Store>>> {
        store::open(&self.location, Access::Existing)
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
            Some(db) => format!("mastra-ask --db {}", format::shell_quote(db)),
            None => "mastra-ask".to_string(),
        }
    }
}

fn no_run(input: &str) -> Error {
    Error::not_found(format!("no run {input}")).with_hint("list runs with: mastra-ask runs")
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

pub fn not_pending(call: &CallRecord) -> Error {
    let by = call
        .resolved_by
        .as_deref()
        .map(|b| format!(" by {b}"))
        .unwrap_or_default();
    Error::conflict(format!(
        "tool call {} is not pending: it was {}{by}",
        call.call_id,
        call.state.as_str()
    ))
}

/// Who resolves an item: `--as`, else `MASTRA_ASK_USER`, else the login name.
pub fn who(as_: Option<String>) -> String {
    as_.filter(|s| !s.trim().is_empty())
        .or_else(|| {
            std::env::var("MASTRA_ASK_USER")
                .ok()
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(login_name)
}

fn login_name() -> String {
    if let Some(name) = ["USER", "LOGNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
    {
        return name;
    }
    // SAFETY: getpwuid returns a pointer into static storage or null; we copy at once.
    unsafe {
        let pw = libc::getpwuid(libc::geteuid());
        if !pw.is_null() && !(*pw).pw_name.is_null() {
            return std::ffi::CStr::from_ptr((*pw).pw_name)
                .to_string_lossy()
                .into_owned();
        }
    }
    "unknown".into()
}

/// The provider for a stored run, checked before anything changes.
pub fn provider_for(run: &Run) -> Result<Box<dyn providers::Provider>> {
    let model = run.agent["model"].as_str().unwrap_or_default();
    providers::from_spec(model)
}

/// Drives a leg of `run` under `lease` and reports how it ended.
pub fn drive(
    ctx: &Ctx,
    store: &dyn Store,
    run_id: &str,
    lease: &Lease,
    provider: &dyn providers::Provider,
) -> Result<Exit> {
    let status = drive_leg(ctx, store, run_id, lease, provider)?;
    report(ctx, store, run_id, status)
}

/// Drives a leg of `run` under `lease`; the run's state when the leg ends.
fn drive_leg(
    ctx: &Ctx,
    store: &dyn Store,
    run_id: &str,
    lease: &Lease,
    provider: &dyn providers::Provider,
) -> Result<RunStatus> {
    let run = store.run(run_id)?.ok_or_else(|| no_run(run_id))?;
    let end = driver::drive(
        store,
        &ctx.location,
        &run,
        lease,
        provider,
        &mut ctx.out.sink(),
    )?;
    let status = match end {
        LegEnd::Status(s) => s,
        LegEnd::LostLease => match store.run(run_id)?.map(|r| r.status) {
            Some(RunStatus::Cancelled) => RunStatus::Cancelled,
            _ => {
                return fail(Error::conflict(format!(
                    "run {run_id} was taken over by another process"
                )))
            }
        },
    };
    Ok(status)
}

/// The exit code for a run's state, after telling what it waits for or why it failed. At a
/// terminal a suspended run is answered inline instead (see `inline`).
pub fn report(ctx: &Ctx, store: &dyn Store, run_id: &str, status: RunStatus) -> Result<Exit> {
    match status {
        RunStatus::Completed => Ok(Exit::Success),
        RunStatus::Suspended if ctx.interactive() => inline::settle(ctx, store, run_id, &who(None)),
        RunStatus::Suspended => {
            announce_pending(ctx, store, run_id)?;
            Ok(Exit::Suspended)
        }
        RunStatus::Cancelled => {
            ctx.out.info(&format!("run {run_id} was cancelled"));
            Ok(Exit::Cancelled)
        }
        RunStatus::Running => fail(Error::conflict(format!(
            "run {run_id} is being driven by another process"
        ))),
        RunStatus::Failed => {
            let error = store
                .run(run_id)?
                .and_then(|r| r.error)
                .unwrap_or_else(|| "unknown error".into());
            fail(
                Error::provider(format!("run {run_id} failed: {error}"))
                    .with_hint(format!("retry it with: {} resume {run_id}", ctx.program())),
            )
        }
    }
}

/// Tells on stderr what a suspended run waits for and the commands that answer it.
fn announce_pending(ctx: &Ctx, store: &dyn Store, run_id: &str) -> Result<()> {
    if ctx.out.is_json() {
        return Ok(());
    }
    let items = store.pending(Some(run_id))?;
    ctx.out.info(&format!(
        "run {run_id} is waiting for input ({} pending):",
        items.len()
    ));
    for item in &items {
        ctx.out.info(&format!("  {}", describe(&item.call)));
        for command in commands_for(ctx, item) {
            ctx.out.info(&format!("    {command}"));
        }
    }
    Ok(())
}

/// One line about an item: its id, kind and question or plan title (sanitized).
pub fn describe(call: &CallRecord) -> String {
    let payload = call.payload.clone().unwrap_or_default();
    let id = sanitize::one_line(&call.call_id);
    if let Some(q) = call
        .is_question()
        .then(|| Question::from_payload(&payload))
        .flatten()
    {
        let mut line = format!("{id} question: {}", sanitize::one_line(&q.text));
        if !q.options.is_empty() {
            let labels: Vec<String> = q.labels().iter().map(|l| sanitize::one_line(l)).collect();
            let multi = if q.mode == Mode::Multi {
                " (choose one or more)"
            } else {
                ""
            };
            line.push_str(&format!(" [{}]{multi}", labels.join(" | ")));
        }
        return line;
    }
    let title = payload["title"].as_str().unwrap_or_default();
    let path = payload["path"].as_str().unwrap_or_default();
    format!(
        "{id} plan: {} ({})",
        sanitize::one_line(if title.is_empty() {
            "(untitled)"
        } else {
            title
        }),
        sanitize::one_line(path)
    )
}

/// The commands that resolve an item; the first is the main one.
pub fn commands_for(ctx: &Ctx, item: &PendingItem) -> Vec<String> {
    let call = &item.call;
    let mut base = format!(
        "{} {} {}",
        ctx.program(),
        if call.is_question() {
            "answer"
        } else {
            "review"
        },
        call.run_id
    );
    if item.pending_in_run > 1 {
        base.push_str(&format!(
            " --tool-call {}",
            format::shell_quote(&call.call_id)
        ));
    }
    if !call.is_question() {
        return vec![
            format!("{base} --approve"),
            format!("{base} --reject --feedback <feedback>"),
        ];
    }
    let mode = call
        .payload
        .as_ref()
        .and_then(Question::from_payload)
        .map(|q| q.mode)
        .unwrap_or(Mode::FreeText);
    vec![match mode {
        Mode::FreeText => format!("{base} <answer>"),
        Mode::Single => format!("{base} <label>"),
        Mode::Multi => format!("{base} --multi <label>..."),
    }]
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

/// Records `resolution` for `item` exactly once; when it was the last pending item of its
/// step, drives the run's next leg in this process.
pub fn resolve_and_continue(
    ctx: &Ctx,
    store: &dyn Store,
    run: &Run,
    item: &CallRecord,
    resolution: &crate::domain::Resolution,
) -> Result<Exit> {
    let status = resolve_item(ctx, store, run, item, resolution)?;
    if status == RunStatus::Suspended && ctx.interactive() {
        return inline::settle(ctx, store, &run.id, &resolution.by);
    }
    report(ctx, store, &run.id, status)
}

/// `resolve_and_continue` without the report: the run's state afterwards.
fn resolve_item(
    ctx: &Ctx,
    store: &dyn Store,
    run: &Run,
    item: &CallRecord,
    resolution: &crate::domain::Resolution,
) -> Result<RunStatus> {
    let provider = provider_for(run)?;
    let lease = crate::agent::lease::mine();
    let resolved = store.resolve(
        &run.id,
        &item.call_id,
        resolution,
        Some(&lease),
        &crate::agent::step::resumed_results,
    )?;
    match resolved {
        store::Resolved::Recorded { still_pending } => {
            ctx.out.info(&format!(
                "recorded; {still_pending} more item(s) of this step must be resolved before the run continues"
            ));
            Ok(RunStatus::Suspended)
        }
        store::Resolved::Resumed { events } => {
            ctx.out.stored_events(&run.id, &events);
            drive_leg(ctx, store, &run.id, &lease, provider.as_ref())
        }
    }
}
