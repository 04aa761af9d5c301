//! The checks of `serve`'s flags before anything listens (SPEC §13): a listen address that
//! is not loopback needs TLS or `--behind-proxy`, which needs an https `--public-url`; a
//! public URL must be an origin (`scheme://host[:port]`), the default port left out, as it
//! is recorded in the store and compared with a POST's `Origin`.

use std::path::PathBuf;

use anyhow::Result;

use crate::cli::ServeArgs;
use crate::error::{fail, Error};

/// What the flags come to.
pub struct Checked {
    /// The certificate chain and key files (PEM) for HTTPS.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// The origin of `--public-url`.
    pub public: Option<String>,
    /// `--ntfy-token-file`'s tokens.
    pub ntfy_tokens: crate::notify::Tokens,
}

pub fn check(args: &ServeArgs) -> Result<Checked> {
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
    let ntfy_tokens = match &args.ntfy_token_file {
        Some(path) => crate::notify::Tokens::read(path).map_err(Error::usage)?,
        None => crate::notify::Tokens::default(),
    };
    Ok(Checked {
        tls,
        public,
        ntfy_tokens,
    })
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
