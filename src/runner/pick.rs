//! The place a command's run lives, picked once: this store, or `--server`'s. The commands
//! that act on one item (`answer`, `review`) do the same with either place; this says how
//! each place is made for them, so that no command repeats it. It decides nothing itself:
//! what happens at the place is the command's `AtPlace`.

use anyhow::Result;

use super::{Context, Local, Mastra, Place, PlanFiles, Server};
use crate::exit::Exit;
use crate::policy::Deciding;

/// What a command does at the place its run lives, written once for every place.
pub trait AtPlace {
    fn at<P: Place>(self, place: P) -> Result<Exit>;
}

/// Runs `then` at the run's place: this store, deciding as `deciding` says; or the
/// context's server, on the runs of `agent` (all agents' when `None`), its plans read as
/// `plans` says.
pub fn at_place(
    ctx: &Context,
    deciding: Deciding,
    agent: Option<String>,
    plans: Option<PlanFiles>,
    then: impl AtPlace,
) -> Result<Exit> {
    match &ctx.server {
        None => {
            let store = ctx.existing_store()?;
            then.at(Local::new(ctx, store.as_deref(), "", false).deciding(deciding))
        }
        Some(config) => {
            let server = Server::connect(ctx, config, None)?;
            let place = Mastra::new(ctx, &server, agent).claiming(deciding.claimed);
            then.at(match plans {
                Some(plans) => place.reading_plans(plans),
                None => place,
            })
        }
    }
}
