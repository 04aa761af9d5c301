//! Finding what a command acts on: a run by its id or a unique prefix of it, and the pending
//! item of that run an `answer`, `review`, `approve` or `decline` means, wherever the run
//! lives: the place loads the run and says why a call is not pending; choosing among its
//! pending items is done here, once. The wording of "not found", "ambiguous", "of another
//! kind" and "not pending" lives here too.

use anyhow::Result;

use super::place::Place;
use super::Context;
use crate::domain::{CallRecord, ItemKind};
use crate::error::{fail, Error};
use crate::items::{self, Item};
use crate::output::format;
use crate::store::{self, Run, Store};

/// No run `input` in this store.
pub fn no_run(input: &str) -> Error {
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
        many => fail(ambiguous(input, many)),
    }
}

/// A prefix that several runs' ids start with.
pub fn ambiguous(input: &str, ids: &[String]) -> Error {
    let shown: Vec<String> = ids
        .iter()
        .take(5)
        .map(|id| format::shell_quote(id))
        .collect();
    let more = if ids.len() > 5 { ", ..." } else { "" };
    Error::conflict(format!(
        "run id prefix {input} is ambiguous: {}{more}",
        shown.join(", ")
    ))
}

/// No RUN was given to a command that acts on one item.
pub fn which_run(ctx: &Context) -> Error {
    Error::usage("which run? pass RUN")
        .with_hint(format!("list what waits with: {} pending", ctx.program()))
}

/// The pending item of the place's run that a command for items of `kinds` acts on: the
/// one named by `tool_call`, else the only one of those kinds.
pub fn select(
    ctx: &Context,
    place: &mut dyn Place,
    kinds: &[ItemKind],
    tool_call: Option<&str>,
) -> Result<Item> {
    let pending = place.pending()?;
    if let Some(id) = tool_call {
        let Some(item) = pending.into_iter().find(|i| i.call_id() == id) else {
            return Err(place.not_pending(id, kinds)?.into());
        };
        if !kinds.contains(&item.kind()) {
            return fail(wrong_kind(ctx, place, &item, kinds));
        }
        return Ok(item);
    }
    let (mut mine, others): (Vec<Item>, Vec<Item>) =
        pending.into_iter().partition(|i| kinds.contains(&i.kind()));
    match (mine.len(), others.first()) {
        (1, _) => Ok(mine.swap_remove(0)),
        (0, Some(other)) => fail(wrong_kind(ctx, place, other, kinds)),
        (0, None) => fail(place.nothing_waits(kinds)),
        (n, _) => {
            let what = match mine.iter().all(|i| i.kind() == mine[0].kind()) {
                true => format!("{}s", mine[0].kind().noun()),
                false => "items".to_string(),
            };
            let ids: Vec<String> = mine
                .iter()
                .map(|i| format::shell_quote(i.call_id()))
                .collect();
            fail(Error::conflict(format!(
                "run {} has {n} pending {what}; choose one with --tool-call: {}",
                format::shell_quote(place.run_id()),
                ids.join(", ")
            )))
        }
    }
}

/// An item that a command for items of `kinds` does not act on (the kinds the place cannot
/// hold are not named), with the command that does.
pub fn wrong_kind(ctx: &Context, place: &dyn Place, item: &Item, kinds: &[ItemKind]) -> Error {
    let wanted: Vec<&str> = kinds
        .iter()
        .filter(|k| place.holds(**k))
        .map(|k| items::of(*k).article())
        .collect();
    let kind = items::of(item.kind());
    Error::usage(format!(
        "tool call {} of run {} is {}, not {}",
        format::shell_quote(item.call_id()),
        format::shell_quote(item.run_id()),
        kind.article(),
        wanted.join(" or ")
    ))
    .with_hint(kind.use_hint(&ctx.program(), &format::shell_quote(item.run_id())))
}

/// Why a run of this store has nothing for a command to act on.
pub fn nothing_waits(run: &Run, kind: ItemKind) -> Error {
    let state = if run.finish_reason.as_deref() == Some(crate::store::EXPIRED) {
        "expired".to_string()
    } else {
        run.status.as_str().to_string()
    };
    // A run its stopped waiter cancelled says so: the job that waited is gone (SPEC §5.3).
    let why = match (&run.status, &run.error) {
        (crate::domain::RunStatus::Cancelled, Some(error)) => {
            format!(" ({})", crate::output::sanitize::one_line(error))
        }
        _ => String::new(),
    };
    let what = items::of(kind).waits_for();
    Error::conflict(format!(
        "run {} is {state}{why}: nothing waits for {what}",
        run.id
    ))
}

pub fn not_pending(call: &CallRecord) -> Error {
    let wording = store::Conflict::NotPending {
        call: call.call_id.clone(),
        state: call.state,
        by: call.resolved_by.clone(),
    };
    Error::conflict(wording.to_string())
}
