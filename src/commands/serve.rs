//! `serve`: checks its flags (a non-loopback address needs TLS or `--behind-proxy`, which
//! needs an https `--public-url`; the public URL is recorded once), builds serve's own
//! `--on-suspend` hook, and hands over to the inbox (`crate::serve`). Thin: everything a
//! request does is there.

use std::sync::Arc;

use anyhow::Result;

use crate::cli::ServeArgs;
use crate::context::Ctx;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::serve::{self, Config};
use crate::store::{PublicUrl, Reviewers};

pub fn run(ctx: &Ctx, args: ServeArgs) -> Result<Exit> {
    if args.drive {
        return fail(
            Error::usage("serve --drive is not available yet")
                .with_hint("without it, an answer given in the inbox is recorded, and the run's waiting process (run --wait, wait --drive) or `mastra-ask resume` on its host continues it"),
        );
    }
    let loopback = args.listen.ip().is_loopback();
    let tls = args.tls_cert.clone().zip(args.tls_key.clone());
    if !loopback && tls.is_none() && !args.behind_proxy {
        return fail(
            Error::usage(format!(
                "serve would listen on {} without TLS: tokens and answers would cross the network in clear",
                args.listen
            ))
            .with_hint("give --tls-cert FILE --tls-key FILE, or --behind-proxy with an https --public-url when a TLS-terminating proxy is in front"),
        );
    }
    let public = args.public_url.as_deref().map(origin).transpose()?;
    if args.behind_proxy && !public.as_deref().is_some_and(|u| u.starts_with("https://")) {
        return fail(Error::usage(
            "--behind-proxy needs --public-url https://...: the address people reach through the proxy",
        ));
    }
    let store = ctx.create_store()?;
    if let Some(url) = &public {
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
    let config = Config {
        location: ctx.location.clone(),
        listen: args.listen,
        tls,
        public,
        behind_proxy: args.behind_proxy,
        hook: hook(ctx),
    };
    serve::run(config)?;
    Ok(Exit::Success)
}

/// The origin of a public URL (`scheme://host[:port]`, the default port left out), or a
/// usage error when it is not one.
fn origin(url: &str) -> Result<String> {
    let bad = |why: &str| {
        Error::usage(format!("--public-url {url}: {why}"))
            .with_hint("give the address people open, e.g. https://inbox.example.com")
    };
    let lower = url.trim().trim_end_matches('/').to_string();
    let (scheme, rest) = lower
        .split_once("://")
        .ok_or_else(|| bad("not an http or https URL"))?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return fail(bad("not an http or https URL"));
    }
    if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) {
        return fail(bad(
            "it must be scheme://host[:port], with no path, query or user",
        ));
    }
    let host = rest.to_ascii_lowercase();
    let host = match (scheme.as_str(), host.rsplit_once(':')) {
        ("https", Some((h, "443"))) | ("http", Some((h, "80"))) => h.to_string(),
        (_, Some((_, port))) if port.parse::<u16>().is_err() && !host.ends_with(']') => {
            return fail(bad("its port is not a number"))
        }
        _ => host,
    };
    Ok(format!("{scheme}://{host}"))
}

/// Serve's own `--on-suspend` (its flag or environment, never a run's): the item's
/// `pending -o json` line on stdin, as the commands run it.
fn hook(ctx: &Ctx) -> Option<serve::Hook> {
    let cmd = ctx.on_suspend.clone().filter(|c| !c.trim().is_empty())?;
    let (location, db_flag, store_from) =
        (ctx.location.clone(), ctx.db_flag.clone(), ctx.store_from);
    Some(Arc::new(move |items| {
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
        crate::runner::notify::on_suspend(&ctx, items);
    }))
}

#[cfg(test)]
mod tests {
    use super::origin;

    #[test]
    fn public_urls_become_origins() {
        assert_eq!(
            origin("https://Inbox.example.com/").unwrap(),
            "https://inbox.example.com"
        );
        assert_eq!(
            origin("https://inbox.example.com:443").unwrap(),
            "https://inbox.example.com"
        );
        assert_eq!(
            origin("http://127.0.0.1:4180").unwrap(),
            "http://127.0.0.1:4180"
        );
        for bad in [
            "ftp://x",
            "https://",
            "https://a/b",
            "https://u@h",
            "inbox.example.com",
            "https://h:x",
        ] {
            assert!(origin(bad).is_err(), "{bad}");
        }
    }
}
