//! `approve` and `decline`: decide a tool call that waits for approval (SPEC §11), then
//! advance the run like `answer` does (drive the leg it resumes, in which an approved tool
//! runs first; prompt on at a terminal for what the run asks next). The verb is the
//! decision: neither ever prompts for it, and a `--json` that says otherwise is refused.

use anyhow::Result;

use super::Ctx;
use crate::cli::{ApproveArgs, ItemArgs};
use crate::domain::{ItemKind, Resolution, Via};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::runner::advance::{Advance, Policy};
use crate::runner::input::{parse_json_flag, who};
use crate::runner::target::target;
use crate::tools::approval::Decision;

/// `approve` (`decline` is `None`) or `decline` with its `--reason`.
pub fn run(ctx: &Ctx, args: &ApproveArgs, decline: Option<Option<String>>) -> Result<Exit> {
    let (decision, via) = decision(args, decline)?;
    let (store, run, item) = target(
        ctx,
        Some(&args.run),
        ItemKind::Approval,
        args.tool_call.as_deref(),
    )?;
    let resolution = Resolution {
        resume_data: decision.resume_data(),
        result: decision.result(),
        by: who(args.as_.clone()),
        via,
    };
    let item_args = ItemArgs {
        run: Some(args.run.clone()),
        tool_call: args.tool_call.clone(),
        as_: args.as_.clone(),
        no_resume: args.no_resume,
    };
    let policy = Policy::acting(ctx, &item_args, &resolution.by);
    Advance::new(ctx, store.as_ref(), &run.id, policy).resolve(&item, &resolution)
}

/// The decision the command stands for, checked before anything is looked up.
pub fn decision(args: &ApproveArgs, decline: Option<Option<String>>) -> Result<(Decision, Via)> {
    let approving = decline.is_none();
    let verb = if approving { "approve" } else { "decline" };
    if let Some(j) = &args.json {
        let d = Decision::from_json(&parse_json_flag(j)?)
            .map_err(|e| Error::invalid(format!("--json: {e}")))?;
        if d.approved != approving {
            let other = if d.approved { "approve" } else { "decline" };
            return fail(
                Error::usage(format!(
                    "--json says {{\"approved\": {}}}, but the command is {verb}",
                    d.approved
                ))
                .with_hint(format!("to {other} the call, use: mastra-ask {other} RUN")),
            );
        }
        return Ok((d, Via::Json));
    }
    match decline {
        None => Ok((Decision::approve(), Via::Flag)),
        Some(Some(reason)) if reason.trim().is_empty() => fail(
            Error::usage("the reason is empty")
                .with_hint("write why, or leave out --reason to decline with the default reason"),
        ),
        Some(reason) => Ok((Decision::decline(reason), Via::Flag)),
    }
}
