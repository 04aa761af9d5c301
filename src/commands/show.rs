//! `show`: one run in full: status, transcript, items with who resolved them, events.

use anyhow::Result;

use crate::context::Ctx;
use crate::exit::Exit;
use crate::runner::in_full::InFull;

pub fn run(ctx: &Ctx, input: &str) -> Result<Exit> {
    let (store, run) = ctx.store_and_run(input)?;
    InFull::read(store.as_ref(), run)?.report(ctx.report);
    Ok(Exit::Success)
}
