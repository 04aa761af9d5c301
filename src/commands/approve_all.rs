//! `approve RUN --all` / `decline RUN --all` (SPEC §14.1): one decision for every approval
//! item of a run, listed on stderr first, recorded by the store in one transaction (all or
//! none: a refusal of any records nothing). At a terminal it asks once to confirm (starting
//! on No); without one it needs `--yes`. Then the run goes on as after any decision: this
//! process drives the leg it resumes, unless a waiter does or `--no-resume`.

use anyhow::Result;

use super::approve::{decision, Verdict};

use crate::agent::lease;
use crate::cli::ApproveArgs;
use crate::context::Ctx;
use crate::domain::ItemKind;
use crate::error::{fail, Error, Kind};
use crate::exit::Exit;
use crate::items::approval::decided;
use crate::items::ItemView;
use crate::output::sanitize;
use crate::policy::ItemGate;
use crate::runner::advance::{model_for, on_own_host};
use crate::runner::view::announce;
use crate::runner::{Advance, Continues, Local, Outcome, Policy};
use crate::store::{Decide, Resolved, Who};
use crate::ui;

pub fn run(ctx: &Ctx, args: &ApproveArgs, verdict: Verdict) -> Result<Exit> {
    let (decision, via) = decision(args, &verdict)?;
    let (store, run) = ctx.store_and_run(&args.run)?;
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
    let d = Decide {
        resolution: &resolution,
        identity: &who.identity,
        claimed: args.as_.is_some(),
        args: None,
    };
    let drive = !args.no_resume && on_own_host(&run);
    let model = if drive { model_for(&run).ok() } else { None };
    let offer = model.as_ref().map(|_| lease::mine());
    let ids: Vec<String> = items.iter().map(|i| i.call.call_id.clone()).collect();
    let outcomes = store.decide_all(&run.id, &ids, &d, offer.as_ref())?;

    let mut partial = false;
    let decisions = store.decisions(&run.id)?;
    for ((call_id, resolved), item) in outcomes.iter().zip(&items) {
        let line = match resolved {
            Resolved::Partial { .. } => {
                partial = true;
                let summary = ItemGate::of(&run, &item.call, &decisions)
                    .map(|g| g.summary())
                    .unwrap_or_default();
                format!("{verb}: recorded; {summary}")
            }
            _ => format!("{verb}d"),
        };
        ctx.report
            .info(&format!("  {} {line}", sanitize::one_line(call_id)));
    }
    let policy = Policy::acting(ctx, !args.no_resume, who.clone());
    let last = outcomes
        .into_iter()
        .map(|(_, r)| r)
        .find(|r| matches!(r, Resolved::Resumed { .. }));
    match last {
        Some(Resolved::Resumed {
            events,
            driving: true,
        }) => {
            let (Some(lease), Some(model)) = (offer, model) else {
                unreachable!("the store drives only with the lease offered")
            };
            ctx.report.stored_events(&run.id, &events);
            let place = Local::new(ctx, Some(store.as_ref()), &run.id, false)
                .holding(lease, model)
                .seen_up_to(events.last().map(|e| e.seq));
            Advance::over(ctx, Box::new(place), policy).run()
        }
        Some(_) => {
            let outcome = if store.has_waiter(&run.id)? {
                Outcome::Waiter
            } else if on_own_host(&run) {
                Outcome::Recorded(Continues::Here)
            } else {
                Outcome::Recorded(Continues::OnHost(run.host.clone().unwrap_or_default()))
            };
            if let Some(words) = outcome.wording(&ctx.program(), &run.id) {
                ctx.report.info(&words);
            }
            Ok(Exit::Success)
        }
        None => {
            if !partial {
                announce(ctx, store.as_ref(), &run.id)?;
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
