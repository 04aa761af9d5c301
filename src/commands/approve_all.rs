//! `approve RUN --all` / `decline RUN --all` (SPEC §14.1): one decision for every approval
//! item of a run, listed on stderr first, recorded by the store in one transaction (all or
//! none: a refusal of any records nothing). At a terminal it asks once to confirm (starting
//! on No); without one it needs `--yes`. Then the run goes on as after any decision: this
//! process drives the leg it resumes, unless a waiter does or `--no-resume`.

use anyhow::Result;

use super::approve::{decision, Verdict};
use crate::cli::ApproveArgs;
use crate::context::Ctx;
use crate::domain::ItemKind;
use crate::error::{fail, Error, Kind};
use crate::exit::Exit;
use crate::items::approval::decided;
use crate::items::{Item, ItemView};
use crate::output::sanitize;
use crate::policy::Deciding;
use crate::runner::read::Read;
use crate::runner::view::announce;
use crate::runner::{Advance, Local, Outcome, Policy};
use crate::store::Who;
use crate::ui;

pub fn run(ctx: &Ctx, args: &ApproveArgs, verdict: Verdict) -> Result<Exit> {
    let (decision, via) = decision(args, &verdict)?;
    let (store, run) = ctx.store_and_run(&args.run)?;
    let run_id = run.id.clone();
    let items: Vec<_> = store
        .pending(Some(&run.id))?
        .into_iter()
        .filter(|i| i.call.kind() == ItemKind::Approval)
        .collect();
    if items.is_empty() {
        return fail(Error::conflict(format!(
            "no tool call of run {} is waiting for approval",
            sanitize::one_line(&run.id)
        )));
    }
    let verb = verdict.verb();
    ctx.report.info(&format!(
        "{verb} {} of run {}:",
        all_calls(items.len()),
        sanitize::one_line(&run.id)
    ));
    for item in &items {
        ctx.report
            .info(&format!("  {}", ItemView::pending(item).describe()));
    }
    confirm(ctx, args, verb, items.len())?;

    let who = Who::this_process(args.as_.clone());
    let resolution = decided(&decision, &who.by, via);
    let items: Vec<Item> = items.into_iter().map(Item::stored).collect();
    let mut place = Local::new(ctx, Some(store.as_ref()), &run.id, false)
        .knowing(Read::known(run))
        .deciding(Deciding::claiming(args.as_.is_some()));
    let drive = !args.no_resume;
    let (each, then) = place.record_all(&items, &resolution, &who.identity, drive)?;
    for (outcome, item) in each.iter().zip(&items) {
        let line = match outcome {
            Outcome::Partial(summary) => format!("{verb}: recorded; {summary}"),
            _ => format!("{verb}d"),
        };
        let call = sanitize::one_line(item.call_id());
        ctx.report.info(&format!("  {call} {line}"));
    }
    crate::runner::resolved::told(ctx, store.as_ref(), Some(&run_id));
    match then {
        Some(outcome) => {
            let policy = Policy::acting(ctx, drive, who);
            Advance::over(ctx, Box::new(place), policy).carry_on(&outcome)
        }
        None => {
            if !each.iter().any(|o| matches!(o, Outcome::Partial(_))) {
                announce(ctx, store.as_ref(), &run_id)?;
            }
            Ok(Exit::Suspended)
        }
    }
}

/// Asks once at a terminal (starting on No); without one, `--yes` must say so.
fn confirm(ctx: &Ctx, args: &ApproveArgs, verb: &str, n: usize) -> Result<()> {
    if args.yes {
        return Ok(());
    }
    if !ctx.interactive() {
        return fail(
            Error::usage(format!("{verb} --all without a terminal needs --yes")).with_hint(
                format!("nothing was recorded; add --yes to {verb} {}", them(n)),
            ),
        );
    }
    let choices = [
        "No, decide nothing".to_string(),
        format!("Yes, {verb} {}", them(n)),
    ];
    match ui::pick(&format!("{verb} {}?", all_calls(n)), &choices)? {
        Some(1) => Ok(()),
        _ => fail(Error::new(Kind::Interrupted, "nothing recorded")),
    }
}

/// `the one tool call`, `all 2 tool calls`.
fn all_calls(n: usize) -> String {
    match n {
        1 => "the one tool call".to_string(),
        n => format!("all {n} tool calls"),
    }
}

/// `it`, `all 2`.
fn them(n: usize) -> String {
    match n {
        1 => "it".to_string(),
        n => format!("all {n}"),
    }
}
