//! `review`: approve or reject a submitted plan, then advance the run (drive the leg it
//! resumes, prompt on at a terminal).

use anyhow::Result;

use crate::cli::ReviewArgs;
use crate::context::Ctx;
use crate::domain::ItemKind;
use crate::exit::Exit;
use crate::items::input::who;
use crate::items::plan::{decided, decision, plan_of, warn_if_changed};
use crate::policy::claim;
use crate::runner::advance::prompt_chosen;
use crate::runner::target::target_of;
use crate::runner::{Advance, Policy};

pub fn run(ctx: &Ctx, args: ReviewArgs) -> Result<Exit> {
    let item_args = &args.item;
    let by = who(item_args.as_.clone());
    let policy = Policy::acting(ctx, !item_args.no_resume, &by);
    if !args.approve && !args.reject && args.json.is_none() && ctx.interactive() {
        let (run, call) = (item_args.run.as_deref(), item_args.tool_call.as_deref());
        return prompt_chosen(ctx, run, call, policy, ItemKind::Plan, claim(item_args));
    }
    let (decision, via) = decision(&args)?;
    let (store, run, item) = target_of(ctx, item_args, ItemKind::Plan)?;
    let plan = plan_of(&item)?;
    warn_if_changed(ctx.report, &run, &plan);
    let resolution = decided(&decision, &plan, &by, via);
    Advance::new(ctx, store.as_ref(), &run.id, policy)
        .deciding(claim(item_args))
        .resolve(&run, &item, &resolution)
}
