//! `serve`: checks its flags (`serve::start`), records the public URL once, builds serve's
//! own `--on-suspend` hook (its flag or environment, never a run's), and hands over to the
//! inbox (`crate::serve`). Thin: everything a request does is there.

use std::sync::Arc;

use anyhow::Result;

use crate::cli::ServeArgs;
use crate::context::Ctx;
use crate::exit::Exit;
use crate::serve::{self, Config};
use crate::store::{PublicUrl, Reviewers};

pub fn run(ctx: &Ctx, args: ServeArgs) -> Result<Exit> {
    let checked = serve::start::check(&args)?;
    let store = ctx.create_store()?;
    if let Some(url) = &checked.public {
        if let PublicUrl::Replaced(old) = store.record_public_url(url, args.replace_public_url)? {
            ctx.out.warn(&format!(
                "the public URL was {old}; links now point at {url}"
            ));
        }
    }
    drop(store);
    if rustix::process::geteuid().is_root() {
        ctx.out
            .warn("serve runs as root; run it as an unprivileged user that owns the store");
    }
    serve::run(Config {
        location: ctx.location.clone(),
        listen: args.listen,
        tls: checked.tls,
        public: checked.public,
        behind_proxy: args.behind_proxy,
        hook: hook(ctx),
        db_flag: ctx.db_flag.clone(),
        store_from: ctx.store_from,
        on_escalate: args.on_escalate.clone().filter(|c| !c.trim().is_empty()),
        drive: args.drive,
    })?;
    Ok(Exit::Success)
}

/// Serve's own `--on-suspend`: the item's `pending -o json` line on stdin, as the commands
/// run it.
fn hook(ctx: &Ctx) -> Option<serve::Hook> {
    let cmd = ctx.on_suspend.clone().filter(|c| !c.trim().is_empty())?;
    let (location, db_flag, store_from) =
        (ctx.location.clone(), ctx.db_flag.clone(), ctx.store_from);
    Some(Arc::new(move |items, gates| {
        let out = crate::output::Out::new(false);
        let ctx = crate::runner::Context {
            location: location.clone(),
            db_flag: db_flag.clone(),
            store_from,
            on_suspend: Some(cmd.clone()),
            interactive: false,
            server: None,
            report: &out,
        };
        crate::runner::notify::on_suspend(&ctx, items, gates);
    }))
}
