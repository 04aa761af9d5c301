//! `pending`: what waits for a person, oldest first, with every command that resolves it.

use anyhow::Result;

use crate::cli::PendingArgs;
use crate::context::Ctx;
use crate::exit::Exit;
use crate::items::ItemView;
use crate::runner::target::find_run;
use crate::runner::view::list;

pub fn run(ctx: &Ctx, args: PendingArgs) -> Result<Exit> {
    let Some(store) = ctx.existing_store()? else {
        // No store yet (no file, or a database without the tables): nothing is pending,
        // said as for an empty store.
        list(ctx, &[], args.quiet);
        return Ok(Exit::Success);
    };
    let run_id = match &args.run {
        Some(r) => Some(
            find_run(store.as_ref(), r)
                .map_err(|e| ctx.looked_in(e))?
                .id,
        ),
        None => None,
    };
    let items = store.pending(run_id.as_deref())?;
    let shown: Vec<ItemView> = items.iter().map(ItemView::pending).collect();
    list(ctx, &shown, args.quiet);
    Ok(Exit::Success)
}
