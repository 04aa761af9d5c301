//! `resume`: continue a run whose driver is gone (expired lease, or a dead process on this
//! host) or that failed. Only on the run's own host (`runner::again` checks and takes it).

use anyhow::Result;

use crate::context::Ctx;
use crate::exit::Exit;
use crate::runner::{Advance, Local, Policy};
use crate::store::Who;

pub fn run(ctx: &Ctx, input: &str) -> Result<Exit> {
    let (store, run) = ctx.store_and_run(input)?;
    let place = Local::resuming(ctx, store.as_ref(), run)?;
    let policy = Policy::driving(ctx, Who::this_process(None));
    Advance::over(ctx, Box::new(place), policy).run()
}
