//! `mcp`: an MCP server over stdio (SPEC §16), for any agent that speaks MCP. Reads its
//! flags (the review, expiry and escalation of every call's run, as `ask` takes them, and
//! `--wait`), refuses a policy that cannot be (the store resolves it as it would for a
//! run), and hands stdin and stdout to `crate::mcp`.

use anyhow::Result;

use crate::cli::{McpArgs, WaitFlags};
use crate::context::Ctx;
use crate::exit::Exit;
use crate::mcp::{self, Setup};

pub fn run(ctx: &Ctx, args: McpArgs) -> Result<Exit> {
    let flags = WaitFlags {
        wait: false,
        timeout: None,
        expires_in: args.expires_in,
        review: args.review,
    };
    let watched = super::starting::watched(ctx, &flags, Default::default())?;
    // A policy nobody can satisfy is refused now, not at the first call.
    if !watched.review.policy.is_empty() {
        use crate::store::Policies;
        ctx.create_store()?
            .resolve_policy(&watched.review.policy, "mcp")?;
    }
    let setup = Setup {
        location: ctx.location.clone(),
        db_flag: ctx.db_flag.clone(),
        store_from: ctx.store_from,
        on_suspend: ctx.on_suspend.clone(),
        on_resolve: ctx.on_resolve.clone(),
        wait: args.wait,
        watched,
        cwd: std::env::current_dir()?,
    };
    let stdin = std::io::stdin();
    mcp::serve(&setup, &mut stdin.lock(), std::io::stdout())?;
    Ok(Exit::Success)
}
