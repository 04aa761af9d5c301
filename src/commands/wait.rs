//! `wait`: block until a run is neither running nor suspended; exit by its final state.

use anyhow::Result;

use super::oneshot::{self, is_plan_run};
use super::waiting::{self, WaitOptions, Waiter};
use super::{flow, Ctx};
use crate::cli::WaitArgs;
use crate::exit::Exit;

pub fn run(ctx: &Ctx, args: WaitArgs) -> Result<Exit> {
    let (store, run) = ctx.store_and_run(&args.run)?;
    let _waiter = args
        .drive
        .then(|| Waiter::register(ctx, store.as_ref(), &run.id))
        .transpose()?;
    let opts = WaitOptions {
        drive: args.drive,
        deadline: waiting::deadline(args.timeout),
        expire_at_deadline: false,
    };
    let run = waiting::until_end(ctx, store.as_ref(), &run.id, &opts)?;
    if is_plan_run(&run) || run.agent_id == "ask" {
        return oneshot::outcome(ctx, store.as_ref(), &run);
    }
    if ctx.out.is_json() {
        ctx.out.json_line(&super::runs::summary(&run));
    }
    flow::report(ctx, store.as_ref(), &run.id, run.status, false)
}
