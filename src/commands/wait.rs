//! `wait`: block until a run is neither running nor suspended; exit by its final state.
//! With `--drive`, become the run's waiter: drive it after each answer. With `--server`,
//! watch the server's listing until the run is no longer suspended, strictly (SPEC §12):
//! a RUN that no listed run matches is not found (3) unless this store's ledger knows it by
//! its full id; `--timeout` is a hard deadline (124 at it, whatever the server does).

use std::time::Instant;

use anyhow::Result;

use crate::cli::WaitArgs;
use crate::context::Ctx;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::remote::ServerConfig;
use crate::runner::advance::{on_own_host, Advance, Policy, Wait};
use crate::runner::read::Read;
use crate::runner::waiter::Waiter;
use crate::runner::{Local, Mastra, Place, Server};
use crate::store::{DrivenBy, Who};

pub fn run(ctx: &Ctx, args: WaitArgs) -> Result<Exit> {
    if let Some(config) = &ctx.server {
        return on_server(ctx, config, args);
    }
    let (store, run) = ctx.store_and_run(&args.run)?;
    if run.driven_by() == DrivenBy::Nobody {
        return fail(Error::conflict(format!(
            "run {id} is a Claude Code session: wait cannot follow it, as Claude Code runs it; `claude -p --resume {id}` on the host that ran it continues it",
            id = run.id
        )));
    }
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
    let policy = policy(drive, args.timeout.map(|t| Instant::now() + t));
    let place = Local::new(ctx, Some(store.as_ref()), &run.id, policy.every_event(ctx))
        .knowing(Read::fresh(run))
        .seen_up_to(seen);
    Advance::over(ctx, Box::new(place), policy).run()
}

fn on_server(ctx: &Ctx, config: &ServerConfig, args: WaitArgs) -> Result<Exit> {
    if args.drive {
        return fail(Error::usage(
            "--drive does not work with --server: the server drives its own runs",
        ));
    }
    let deadline = args.timeout.map(|t| Instant::now() + t);
    let server = Server::connect(ctx, config, deadline)?;
    let mut place = Mastra::new(ctx, &server, None).watching();
    place.load(&args.run)?;
    Advance::over(ctx, Box::new(place), policy(false, deadline)).run()
}

/// A waiter's policy: drive only when `drive`, stop watching at `deadline`.
fn policy(drive: bool, deadline: Option<Instant>) -> Policy {
    Policy {
        drive,
        prompt: false,
        wait: Some(Wait {
            deadline,
            expire_at_deadline: false,
            summary: true,
            started_it: false,
        }),
        who: Who::this_process(None),
    }
}
