//! The place a command's run lives, picked once: this store, or `--server`'s. The commands
//! that act on one item (`answer`, `review`, `approve`, `decline`) do the same with either
//! place; this says how each place is made for them, so that no command repeats it. It
//! decides nothing itself.

use anyhow::Result;

use super::{Context, Local, Mastra, Place, PlanFiles, Server};
use crate::policy::Deciding;
use crate::store::Store;

/// What a place borrows: this store (when it exists yet), or a connection to the server.
pub enum Picked {
    Store(Option<Box<dyn Store>>),
    Server(Box<Server>),
}

impl Picked {
    /// The context's server, or this store.
    pub fn of(ctx: &Context) -> Result<Picked> {
        Ok(match &ctx.server {
            None => Picked::Store(ctx.existing_store()?),
            Some(config) => Picked::Server(Box::new(Server::connect(ctx, config, None)?)),
        })
    }

    /// The place: this store, deciding as `deciding` says; or the server, on the runs of
    /// `agent` (all agents' when `None`), its plans read as `plans` says.
    pub fn place<'a>(
        &'a self,
        ctx: &'a Context<'a>,
        deciding: Deciding,
        agent: Option<String>,
        plans: Option<PlanFiles>,
    ) -> Box<dyn Place + 'a> {
        match self {
            Picked::Store(store) => {
                Box::new(Local::new(ctx, store.as_deref(), "", false).deciding(deciding))
            }
            Picked::Server(server) => {
                let place = Mastra::new(ctx, server, agent).claiming(deciding.claimed);
                Box::new(match plans {
                    Some(plans) => place.reading_plans(plans),
                    None => place,
                })
            }
        }
    }
}
