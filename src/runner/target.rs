//! Finding what a command acts on: a run by its id or a unique prefix of it, and the pending
//! item of that run an `answer`, `review`, `approve` or `decline` means. The wording of "not found", "ambiguous"
//! and "not pending" lives here, once.

use anyhow::Result;

use super::Context;
use crate::cli::ItemArgs;
use crate::domain::{CallRecord, CallState, ItemKind};
use crate::error::{fail, Error};
use crate::items;
use crate::output::format;
use crate::store::{self, Run, Store};

fn no_run(input: &str) -> Error {
    let wording = store::NotFound::Run {
        run: input.to_string(),
    };
    Error::not_found(wording.to_string()).with_hint("list runs with: mastra-ask runs")
}

/// A run id or a prefix of it: at least 4 characters.
pub fn check_prefix(input: &str) -> Result<()> {
    if input.chars().count() < 4 {
        return fail(Error::usage(format!(
            "run id \"{input}\" is too short: give at least 4 characters"
        )));
    }
    Ok(())
}

impl Context<'_> {
    /// The store and the run `input` names (a full id or a unique prefix).
    pub fn store_and_run(&self, input: &str) -> Result<(Box<dyn Store>, Run)> {
        check_prefix(input)?;
        let Some(store) = self.existing_store()? else {
            return Err(self.looked_in(no_run(input).into()));
        };
        let run = find_run(store.as_ref(), input).map_err(|e| self.looked_in(e))?;
        Ok((store, run))
    }
}

impl Context<'_> {
    /// A "no run" error with the store it looked in as its hint (SPEC §5.3); other errors
    /// as they are.
    pub fn looked_in(&self, e: anyhow::Error) -> anyhow::Error {
        match e.downcast::<Error>() {
            Ok(e) if e.kind == crate::error::Kind::NotFound => {
                let hint = format!(
                    "looked in {}; list runs with: {} runs",
                    self.store_named(),
                    self.program()
                );
                e.with_hint(hint).into()
            }
            Ok(e) => e.into(),
            Err(e) => e,
        }
    }
}

/// The run with id `input`, or the only run whose id starts with it.
pub fn find_run(store: &dyn Store, input: &str) -> Result<Run> {
    check_prefix(input)?;
    let lower = input.to_ascii_lowercase();
    if let Some(run) = store.run(&lower)? {
        return Ok(run);
    }
    let ids = store.run_ids_with_prefix(&lower, 6)?;
    match ids.as_slice() {
        [] => fail(no_run(input)),
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

/// The pending item of `run` that a command for items of `kind` acts on: the one named by
/// `tool_call`, else the only one of that kind.
pub fn pending_item(
    ctx: &Context,
    store: &dyn Store,
    run: &Run,
    kind: ItemKind,
    tool_call: Option<&str>,
) -> Result<CallRecord> {
    let wrong_kind = |c: &CallRecord| {
        Error::usage(format!(
            "tool call {} of run {} is {}, not {}",
            c.call_id,
            run.id,
            items::of(c.kind()).article(),
            items::of(kind).article()
        ))
        .with_hint(items::of(c.kind()).use_hint(&ctx.program(), &format::shell_quote(&run.id)))
    };
    if let Some(id) = tool_call {
        let calls = store.calls(&run.id)?;
        let Some(call) = calls.into_iter().find(|c| c.call_id == id && c.is_item()) else {
            return fail(Error::not_found(format!(
                "run {} has no tool call {id}",
                run.id
            )));
        };
        if call.kind() != kind {
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
    let (mine, others): (Vec<_>, Vec<_>) = pending.into_iter().partition(|c| c.kind() == kind);
    match (mine.len(), others.first()) {
        (1, _) => Ok(mine.into_iter().next().expect("one item")),
        (0, Some(c)) => fail(wrong_kind(c)),
        (0, None) => fail(nothing_waits(run, kind)),
        (n, _) => {
            let ids: Vec<String> = mine
                .iter()
                .map(|c| format::shell_quote(&c.call_id))
                .collect();
            fail(Error::conflict(format!(
                "run {} has {n} pending {}s; choose one with --tool-call: {}",
                run.id,
                kind.noun(),
                ids.join(", ")
            )))
        }
    }
}

/// Why a run has nothing for a command to act on.
fn nothing_waits(run: &Run, kind: ItemKind) -> Error {
    let state = if run.finish_reason.as_deref() == Some(crate::store::EXPIRED) {
        "expired".to_string()
    } else {
        run.status.as_str().to_string()
    };
    let what = items::of(kind).waits_for();
    Error::conflict(format!(
        "run {} is {state}: nothing waits for {what}",
        run.id
    ))
}

/// The store, run and pending item an `answer` (questions), `review` (plans) or `approve` /
/// `decline` (approvals) names.
pub fn target(
    ctx: &Context,
    run: Option<&str>,
    kind: ItemKind,
    tool_call: Option<&str>,
) -> Result<(Box<dyn Store>, Run, CallRecord)> {
    let Some(input) = run else {
        return fail(
            Error::usage("which run? pass RUN")
                .with_hint("list what waits with: mastra-ask pending"),
        );
    };
    let (store, run) = ctx.store_and_run(input)?;
    let item = pending_item(ctx, store.as_ref(), &run, kind, tool_call)?;
    Ok((store, run, item))
}

/// `target` of the run and `--tool-call` an item command was given.
pub fn target_of(
    ctx: &Context,
    args: &ItemArgs,
    kind: ItemKind,
) -> Result<(Box<dyn Store>, Run, CallRecord)> {
    target(ctx, args.run.as_deref(), kind, args.tool_call.as_deref())
}

pub fn not_pending(call: &CallRecord) -> Error {
    let wording = store::Conflict::NotPending {
        call: call.call_id.clone(),
        state: call.state,
        by: call.resolved_by.clone(),
    };
    Error::conflict(wording.to_string())
}
