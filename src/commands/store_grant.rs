//! `store grant ROLE... [--serve]` (SPEC §14): on a PostgreSQL store, its owner lets other
//! roles in: a runner's role creates and drives runs and decides only as a run's policy
//! allows the reviewer mapped to it; a serve role also signs reviewers in. What the store
//! refuses to them whatever their grants is the store's (migration 9); this only asks for
//! the grants and says what they allow. A SQLite store has no roles and refuses.

use anyhow::Result;

use super::Ctx;
use crate::cli::{StoreCommand, StoreGrantArgs};
use crate::domain::review::is_name;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::output::format;
use crate::store::Grant;

pub fn run(ctx: &Ctx, command: StoreCommand) -> Result<Exit> {
    match command {
        StoreCommand::Grant(a) => grant(ctx, &a),
    }
}

fn grant(ctx: &Ctx, a: &StoreGrantArgs) -> Result<Exit> {
    if let Some(bad) = a.roles.iter().find(|r| !is_name(r)) {
        return fail(Error::usage(format!(
            "{} is not a role name mastra-ask takes: 1 to 64 letters, digits, `.`, `_`, `-` or `@`, not starting with `-`",
            format::shell_quote(bad)
        )));
    }
    let store = ctx.create_store()?;
    for role in &a.roles {
        store.grant(&Grant {
            role: role.clone(),
            serve: a.serve,
        })?;
        let what = if a.serve {
            "it may run serve: sign reviewers in, and decide as the reviewer signed in"
        } else {
            "it may create and drive runs; it decides only as the reviewer mapped to it (reviewer add --pg-role), as each run's policy allows"
        };
        ctx.out
            .info(&format!("granted the store to role {role}: {what}"));
    }
    Ok(Exit::Success)
}
