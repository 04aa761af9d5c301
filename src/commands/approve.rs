//! `approve` and `decline`: decide a tool call that waits for approval (SPEC §11), then
//! advance the run like `answer` does (drive the leg it resumes, in which an approved tool
//! runs first; prompt on at a terminal for what the run asks next). The verb is the
//! decision: neither ever prompts for it, and a `--json` that says otherwise is refused.

use anyhow::Result;

use crate::cli::ApproveArgs;
use crate::context::Ctx;
use crate::domain::ItemKind;
use crate::exit::Exit;
use crate::items::approval::{decided, decision, Verdict};
use crate::items::input::who;
use crate::runner::target::target;
use crate::runner::{Advance, Policy};

pub fn run(ctx: &Ctx, args: &ApproveArgs, verdict: Verdict) -> Result<Exit> {
    let (decision, via) = decision(args, &verdict)?;
    let (store, run, item) = target(
        ctx,
        Some(&args.run),
        ItemKind::Approval,
        args.tool_call.as_deref(),
    )?;
    let by = who(args.as_.clone());
    let resolution = decided(&decision, &by, via);
    let policy = Policy::acting(ctx, !args.no_resume, &by);
    Advance::new(ctx, store.as_ref(), &run.id, policy).resolve(&run, &item, &resolution)
}
