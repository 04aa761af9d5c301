//! `approve` and `decline`: decide a tool call that waits for approval (SPEC §11), then
//! advance the run like `answer` does (drive the leg it resumes, in which an approved tool
//! runs first; prompt on at a terminal for what the run asks next). The verb is the
//! decision: neither ever prompts for it, and a `--json` that says otherwise is refused.
//! `approve --args` approves with changes (SPEC §14.1); `--all` is `approve_all`.

use anyhow::Result;

use crate::agent::approved::check_changed_args;
use crate::cli::ApproveArgs;
use crate::context::Ctx;
use crate::domain::ItemKind;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::approval::{decided, decision, Verdict};
use crate::items::input::who;
use crate::policy::Deciding;
use crate::runner::target::target;
use crate::runner::{Advance, Policy};
use crate::store::Run;
use serde_json::Value;

/// `changed`: `approve --args JSON`, the arguments approved in place of the proposed ones.
pub fn run(ctx: &Ctx, args: &ApproveArgs, verdict: Verdict, changed: Option<&str>) -> Result<Exit> {
    if args.all {
        return super::approve_all::run(ctx, args, verdict);
    }
    let (decision, via) = decision(args, &verdict)?;
    let (store, run, item) = target(
        ctx,
        Some(&args.run),
        ItemKind::Approval,
        args.tool_call.as_deref(),
    )?;
    let by = who(args.as_.clone());
    let resolution = decided(&decision, &by, via);
    let changed = changed
        .map(|json| changed_args(&run, &item.tool_name, json))
        .transpose()?;
    let policy = Policy::acting(ctx, !args.no_resume, &by);
    Advance::new(ctx, store.as_ref(), &run.id, policy)
        .deciding(Deciding {
            claimed: args.as_.is_some(),
            args: changed,
            ..Deciding::default()
        })
        .resolve(&run, &item, &resolution)
}

/// `--args JSON`, checked against the tool's input schema before anything is stored.
fn changed_args(run: &Run, tool: &str, json: &str) -> Result<Value> {
    let value: Value = serde_json::from_str(json)
        .map_err(|e| Error::invalid(format!("--args is not valid JSON: {e}")))?;
    if let Err(problems) = check_changed_args(run, tool, &value) {
        return fail(
            Error::invalid(format!("--args do not fit tool {tool}: {problems}"))
                .with_hint("nothing was recorded; give arguments its input schema takes"),
        );
    }
    Ok(value)
}
