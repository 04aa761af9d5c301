//! `reply`: the user's next message to a completed run, which then runs again in this
//! process (after a plan rejected without feedback, or to go on talking).

use anyhow::Result;

use super::resume;
use crate::agent::lease;
use crate::cli::ReplyArgs;
use crate::context::Ctx;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::input::read_stdin;
use crate::runner::advance::{model_for, on_own_host, Advance, Policy};
use crate::runner::Local;
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
    if !on_own_host(&run) {
        return fail(resume::elsewhere(&run));
    }
    let model = model_for(&run)?;
    let me = lease::mine();
    store.reply(&run.id, &message, &me)?;
    let place = Local::new(ctx, Some(store.as_ref()), &run.id, false).holding(me, model);
    let policy = Policy::driving(ctx, Who::this_process(None));
    Advance::over(ctx, Box::new(place), policy).run()
}
