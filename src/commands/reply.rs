//! `reply`: the user's next message to a completed run, which then runs again in this
//! process (after a plan rejected without feedback, or to go on talking).

use anyhow::Result;

use crate::cli::ReplyArgs;
use crate::context::Ctx;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::input::read_stdin;
use crate::runner::{Advance, Local, Policy};
use crate::store::Who;

pub fn run(ctx: &Ctx, args: ReplyArgs) -> Result<Exit> {
    let message = match args.message.as_str() {
        "-" => read_stdin("the message")?,
        m => m.to_string(),
    };
    if message.trim().is_empty() {
        return fail(Error::usage("the message is empty"));
    }
    let (store, run) = ctx.store_and_run(&args.run)?;
    let place = Local::replying(ctx, store.as_ref(), &run, &message)?;
    let policy = Policy::driving(ctx, Who::this_process(None));
    Advance::over(ctx, Box::new(place), policy).run()
}
