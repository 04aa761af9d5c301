//! `wait`: block until a run is neither running nor suspended; exit by its final state.
//! With `--drive`, become the run's waiter: drive it after each answer.

use anyhow::Result;

use crate::cli::WaitArgs;
use crate::context::Ctx;
use crate::exit::Exit;
use crate::items::input::who;
use crate::runner::advance::{on_own_host, Advance, Policy, Wait};
use crate::runner::waiter::Waiter;

pub fn run(ctx: &Ctx, args: WaitArgs) -> Result<Exit> {
    let (store, run) = ctx.store_and_run(&args.run)?;
    let drive = args.drive && on_own_host(&run);
    if args.drive && !drive {
        ctx.out.warn(&format!(
            "run {} belongs to another host: waiting without driving it",
            run.id
        ));
    }
    let _waiter = drive
        .then(|| Waiter::register(&ctx.location, store.as_ref(), &run.id))
        .transpose()?;
    let seen = store.events(&run.id)?.last().map(|e| e.seq);
    let policy = Policy {
        drive,
        prompt: false,
        wait: Some(Wait {
            deadline: args.timeout.map(|t| std::time::Instant::now() + t),
            expire_at_deadline: false,
            summary: true,
        }),
        by: who(None),
    };
    Advance::new(ctx, store.as_ref(), &run.id, policy)
        .with_run(run)
        .seen_up_to(seen)
        .run()
}
