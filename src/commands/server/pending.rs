//! `pending --server URL`: every suspended tool call of every agent of the server (or of
//! `--agent ID`, or of `--run RUN`), in the shapes of local items (`items::list`).

use anyhow::Result;

use super::listing::{self, shown};
use super::Server;
use crate::cli::PendingArgs;
use crate::exit::Exit;

pub fn run(server: &Server, args: PendingArgs) -> Result<Exit> {
    let mut items = listing::items(server, args.agent.as_deref())?;
    if let Some(input) = &args.run {
        let run_id = listing::run_of(server, &items, input)?;
        items.retain(|i| i.run_id == run_id);
    }
    crate::runner::view::list(server.ctx, &shown(&items), args.quiet);
    Ok(Exit::Success)
}
