//! `review`: approve or reject a submitted plan, in this store or on `--server`'s (its plan
//! read under `--plan-root` or from `--plan-file`), then advance the run (drive the leg it
//! resumes, or stream the server's; prompt on at a terminal).

use anyhow::Result;

use crate::cli::ReviewArgs;
use crate::context::Ctx;
use crate::domain::ItemKind;
use crate::exit::Exit;
use crate::items::input::who;
use crate::items::plan::{decision, resolution};
use crate::policy::claim;
use crate::runner::{Advance, Local, Mastra, Place, PlanFiles, Server};

pub fn run(ctx: &Ctx, args: ReviewArgs) -> Result<Exit> {
    let by = who(args.item.as_.clone());
    match &ctx.server {
        None => {
            let store = ctx.existing_store()?;
            review(
                ctx,
                Local::new(ctx, store.as_deref(), "", false).deciding(claim(&args.item)),
                &args,
                &by,
            )
        }
        Some(config) => {
            let server = Server::connect(ctx, config, None)?;
            let plans = PlanFiles {
                root: args.plan_root.clone(),
                file: args.plan_file.clone(),
            };
            let place = Mastra::new(ctx, &server, args.agent.clone()).reading_plans(plans);
            review(ctx, place, &args, &by)
        }
    }
}

fn review<P: Place>(ctx: &Ctx, place: P, args: &ReviewArgs, by: &str) -> Result<Exit> {
    let mut advance = Advance::acting(ctx, place, args.item.no_resume, by)?;
    let (run, call) = (args.item.run.as_deref(), args.item.tool_call.as_deref());
    if !args.approve && !args.reject && args.json.is_none() && ctx.interactive() {
        return advance.prompt_chosen(run, call, &[ItemKind::Plan]);
    }
    let (decision, via) = decision(args)?;
    let item = advance.target(run, &[ItemKind::Plan], call)?;
    let place = advance.place();
    let resolution = resolution(&decision, &item, place, args.unseen, ctx.report, by, via)?;
    advance.resolve(&item, &resolution)
}
