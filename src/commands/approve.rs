//! `approve` and `decline`: decide a tool call that waits for approval (SPEC §11), in this
//! store or on `--server`'s, then advance the run like `answer` does (drive the leg it
//! resumes, in which an approved tool runs first, or stream the server's; prompt on at a
//! terminal for what the run asks next). The verb is the decision: neither ever prompts for
//! it, and a `--json` that says otherwise is refused.

use anyhow::Result;

use crate::cli::ApproveArgs;
use crate::context::Ctx;
use crate::domain::ItemKind;
use crate::exit::Exit;
use crate::items::approval::{decided, decision, Verdict};
use crate::items::input::who;
use crate::runner::{Advance, Local, Mastra, Place, Server};

pub fn run(ctx: &Ctx, args: &ApproveArgs, verdict: Verdict) -> Result<Exit> {
    let by = who(args.as_.clone());
    match &ctx.server {
        None => {
            let store = ctx.existing_store()?;
            let place = Local::new(ctx, store.as_deref(), "", false);
            decide(ctx, place, args, &verdict, &by)
        }
        Some(config) => {
            let server = Server::connect(ctx, config, None)?;
            let place = Mastra::new(ctx, &server, args.agent.clone());
            decide(ctx, place, args, &verdict, &by)
        }
    }
}

fn decide<P: Place>(
    ctx: &Ctx,
    place: P,
    args: &ApproveArgs,
    verdict: &Verdict,
    by: &str,
) -> Result<Exit> {
    let mut advance = Advance::acting(ctx, place, args.no_resume, by)?;
    let (decision, via) = decision(args, verdict)?;
    let call = args.tool_call.as_deref();
    let item = advance.target(Some(&args.run), &[ItemKind::Approval], call)?;
    advance.resolve(&item, &decided(&decision, by, via))
}
