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
use crate::runner::{at_place, Advance, AtPlace, Place, PlanFiles};

pub fn run(ctx: &Ctx, args: ReviewArgs) -> Result<Exit> {
    let by = who(args.item.as_.clone());
    let plans = PlanFiles {
        root: args.plan_root.clone(),
        file: args.plan_file.clone(),
    };
    let reviewing = Reviewing {
        ctx,
        args: &args,
        by: &by,
    };
    at_place(
        ctx,
        claim(&args.item),
        args.agent.clone(),
        Some(plans),
        reviewing,
    )
}

struct Reviewing<'a> {
    ctx: &'a Ctx<'a>,
    args: &'a ReviewArgs,
    by: &'a str,
}

impl AtPlace for Reviewing<'_> {
    fn at<P: Place>(self, place: P) -> Result<Exit> {
        review(self.ctx, place, self.args, self.by)
    }
}

fn review<P: Place>(ctx: &Ctx, place: P, args: &ReviewArgs, by: &str) -> Result<Exit> {
    let mut advance =
        Advance::acting(ctx, place, args.item.no_resume, by)?.next_within(args.item.timeout);
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
