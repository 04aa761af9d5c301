//! `approve` and `decline`: decide a tool call that waits for approval (SPEC §11), in this
//! store or on `--server`'s, then advance the run like `answer` does (drive the leg it
//! resumes, in which an approved tool runs first, or stream the server's; prompt on at a
//! terminal for what the run asks next). The verb is the decision: neither ever prompts for
//! it, and a `--json` that says otherwise is refused. `approve --args` approves with changes
//! (SPEC §14.1, this store only); `--all` is `approve_all`.

use anyhow::Result;

use crate::agent::approved::check_changed_args;
use crate::cli::ApproveArgs;
use crate::context::Ctx;
use crate::domain::ItemKind;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::approval::{decided, decision, Verdict};
use crate::items::input::who;
use crate::items::Item;
use crate::policy::Deciding;
use crate::runner::{Advance, Local, Mastra, Place, Server};
use crate::store::Run;
use serde_json::Value;

/// `changed`: `approve --args JSON`, the arguments approved in place of the proposed ones
/// (refused with `--server` before this).
pub fn run(ctx: &Ctx, args: &ApproveArgs, verdict: Verdict, changed: Option<&str>) -> Result<Exit> {
    if args.all {
        return super::approve_all::run(ctx, args, verdict);
    }
    let by = who(args.as_.clone());
    match &ctx.server {
        None => {
            let store = ctx.existing_store()?;
            let place = Local::new(ctx, store.as_deref(), "", false).deciding(Deciding {
                claimed: args.as_.is_some(),
                ..Deciding::default()
            });
            decide(ctx, place, args, &verdict, &by, |place, item| {
                let Some(json) = changed else {
                    return Ok(());
                };
                let value = changed_args(place.loaded()?, item.tool_name(), json)?;
                place.approving_with(value);
                Ok(())
            })
        }
        Some(config) => {
            let server = Server::connect(ctx, config, None)?;
            let place = Mastra::new(ctx, &server, args.agent.clone()).claiming(args.as_.is_some());
            decide(ctx, place, args, &verdict, &by, |_, _| Ok(()))
        }
    }
}

/// Finds the item, lets `prepare` look at it (and its place) before anything is recorded,
/// then resolves it.
fn decide<P: Place>(
    ctx: &Ctx,
    place: P,
    args: &ApproveArgs,
    verdict: &Verdict,
    by: &str,
    prepare: impl FnOnce(&mut P, &Item) -> Result<()>,
) -> Result<Exit> {
    let mut advance = Advance::acting(ctx, place, args.no_resume, by)?.next_within(args.timeout);
    let (decision, via) = decision(args, verdict)?;
    let call = args.tool_call.as_deref();
    let item = advance.target(Some(&args.run), &[ItemKind::Approval], call)?;
    prepare(advance.place(), &item)?;
    advance.resolve(&item, &decided(&decision, by, via))
}

/// `--args JSON`, checked against the tool's input schema before anything is stored.
fn changed_args(run: &Run, tool: &str, json: &str) -> Result<Value> {
    let value: Value = serde_json::from_str(json)
        .map_err(|e| Error::invalid(format!("--args is not valid JSON: {e}")))?;
    if let Err(problems) = check_changed_args(run, tool, &value) {
        return fail(
            Error::invalid(format!("--args do not fit tool {tool}: {problems}"))
                .with_hint("nothing was recorded; give arguments its input schema takes"),
        );
    }
    Ok(value)
}
