//! Connecting to a PostgreSQL store, bounded: the URL's `connect_timeout` (seconds, as
//! libpq; 10 by default) bounds the whole exchange — TCP, TLS, startup and authentication,
//! which the driver's own timeout does not cover — and every session gets a
//! `statement_timeout` (60 s) and a `lock_timeout` (10 s) unless the URL's `options` set
//! them. The password comes from the URL or `PGPASSWORD` and never appears in a message.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use postgres::Client;

use super::errors::classify;
use crate::store::{redact, Cause, Engine, Error, Result, Wait};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const STATEMENT_TIMEOUT: &str = "60s";
const LOCK_TIMEOUT: &str = "10s";

fn tls() -> Result<tokio_postgres_rustls::MakeRustlsConnect> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| Error::usage(format!("setting up TLS for the store: {e}")))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// The session options: the URL's, then the store's schema and the default bounds the URL
/// does not set.
fn options(given: Option<&str>) -> String {
    let given = given.unwrap_or_default();
    let mut options = vec![given.to_string(), "-c search_path=mastra_ask".into()];
    if !given.contains("statement_timeout") {
        options.push(format!("-c statement_timeout={STATEMENT_TIMEOUT}"));
    }
    if !given.contains("lock_timeout") {
        options.push(format!("-c lock_timeout={LOCK_TIMEOUT}"));
    }
    options.retain(|o| !o.is_empty());
    options.join(" ")
}

/// A connection to the server `url` names.
pub fn connect(url: &str) -> Result<Client> {
    let shown = redact(url);
    let mut config: postgres::Config = url
        .parse()
        .map_err(|e| Error::usage(format!("the store URL {shown} is not valid: {e}")))?;
    let timeout = config
        .get_connect_timeout()
        .copied()
        .filter(|t| !t.is_zero())
        .unwrap_or(CONNECT_TIMEOUT);
    config.connect_timeout(timeout);
    if config.get_password().is_none() {
        if let Ok(pw) = std::env::var("PGPASSWORD") {
            config.password(pw);
        }
    }
    config.application_name("mastra-ask");
    let options = options(config.get_options());
    config.options(&options);
    let doing = format!("connecting to the store at {shown}");
    let tls = tls()?;
    // The driver bounds only the TCP connect: the whole exchange runs on a thread of its
    // own, which is left behind if the server never answers.
    let (sent, received) = mpsc::channel();
    std::thread::Builder::new()
        .spawn(move || {
            let _ = sent.send(config.connect(tls));
        })
        .map_err(|e| Error::io(doing.clone(), e))?;
    match received.recv_timeout(timeout) {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(e)) => Err(match classify(&doing, e) {
            Error::Lost(cause) => Error::Unreachable(cause),
            other => other,
        }),
        Err(RecvTimeoutError::Timeout) => Err(Error::Timeout(
            Wait::Connect,
            Cause {
                engine: Engine::Postgres,
                doing,
                detail: format!(
                    "the server did not answer within {}s ({})",
                    timeout.as_secs_f64(),
                    Wait::Connect.setting()
                ),
                source: None,
            },
        )),
        Err(RecvTimeoutError::Disconnected) => Err(Error::Unreachable(Cause {
            engine: Engine::Postgres,
            doing,
            detail: "the connection attempt stopped without an answer".into(),
            source: None,
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_options_are_kept_and_the_missing_bounds_added() {
        assert_eq!(
            options(None),
            "-c search_path=mastra_ask -c statement_timeout=60s -c lock_timeout=10s"
        );
        assert_eq!(
            options(Some("-c lock_timeout=1s")),
            "-c lock_timeout=1s -c search_path=mastra_ask -c statement_timeout=60s"
        );
    }
}
