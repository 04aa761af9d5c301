//! `serve`: checks its flags (`serve::start`), records the public URL once, and hands over
//! to the inbox (`crate::serve`) with serve's own `--on-suspend` (its flag or environment,
//! never a run's). Thin: everything a request does is there.

use anyhow::Result;

use crate::cli::ServeArgs;
use crate::context::Ctx;
use crate::exit::Exit;
use crate::serve::{self, Config, Serving};
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
        serving: Serving {
            location: ctx.location.clone(),
            db_flag: ctx.db_flag.clone(),
            store_from: ctx.store_from,
            drive: args.drive,
        },
        listen: args.listen,
        tls: checked.tls,
        public: checked.public,
        behind_proxy: args.behind_proxy,
        on_suspend: ctx.on_suspend.clone().filter(|c| !c.trim().is_empty()),
        on_escalate: args.on_escalate.clone().filter(|c| !c.trim().is_empty()),
        on_resolve: ctx.on_resolve.clone().filter(|c| !c.trim().is_empty()),
        ntfy_tokens: checked.ntfy_tokens,
    })?;
    Ok(Exit::Success)
}
