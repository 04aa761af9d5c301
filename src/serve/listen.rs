//! The socket side: listen, TLS (rustls) when asked, HTTP/1.1 connections with capped
//! headers (`MAX_HEADERS`) and a header deadline (`REQUEST_TIMEOUT`), at most
//! `MAX_CONNECTIONS` at once. One client address cannot hold them all (SPEC §13): a
//! connection must send its first byte within `FIRST_BYTE`, and one address may have at
//! most `WAITING_PER_ADDRESS` connections that have not yet sent a whole request head; past
//! that a new one is closed at once (not behind a proxy, where every client is the proxy).
//! Then the shutdown: on SIGTERM or SIGINT stop accepting, end the live pages' streams, let
//! requests in flight (followed legs included) finish for up to `SHUTDOWN_GRACE`, stop
//! serve's hooks, and return.

use std::fs::File;
use std::io::Read;
use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt;

use super::app::{self, App};
use super::escalations::{Commands, Escalator};
use super::events::Watcher;
use super::hooks::Hooks;
use super::notifications::Notifier;
use super::places::Places;
use super::{
    Config, FIRST_BYTE, MAX_CONNECTIONS, MAX_HEADERS, REQUEST_TIMEOUT, SHUTDOWN_GRACE,
    WAITING_PER_ADDRESS,
};
use crate::error::Error;

/// A PEM file may be this large.
const MAX_PEM: u64 = 1 << 20;

pub async fn serve(config: Config) -> Result<()> {
    let tls = match &config.tls {
        Some((cert, key)) => Some(acceptor(cert, key)?),
        None => None,
    };
    let listener = TcpListener::bind(config.listen).await.map_err(|e| {
        Error::new(
            crate::error::Kind::Io,
            format!("could not listen on {}: {e}", config.listen),
        )
    })?;
    let (changes_tx, changes) = watch::channel(0u64);
    let (stop_tx, stop) = watch::channel(false);
    let serving = config.serving.clone();
    let hooks = (config.on_suspend.is_some()
        || config.on_escalate.is_some()
        || config.on_resolve.is_some())
    .then(Hooks::start);
    let hook = config
        .on_suspend
        .clone()
        .zip(hooks.clone())
        .map(|(cmd, hooks)| (serving.clone(), cmd, hooks));
    let notifier = Notifier::start(serving.location.clone(), config.ntfy_tokens.clone());
    let watcher = Watcher::start(serving.location.clone(), hook, changes_tx, notifier.poker());
    let local = listener.local_addr()?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let origins = match &config.public {
        Some(public) => vec![public.clone()],
        None if local.ip().is_loopback() => vec![
            format!("{scheme}://{local}"),
            format!("{scheme}://localhost:{}", local.port()),
        ],
        None => vec![format!("{scheme}://{local}")],
    };
    let origin = origins[0].clone();
    let cmds = Commands {
        on_escalate: config.on_escalate.clone(),
        on_resolve: config.on_resolve.clone(),
    };
    let escalator = hooks
        .clone()
        .filter(|_| cmds.on_escalate.is_some() || cmds.on_resolve.is_some())
        .map(|hooks| Escalator::start(serving.clone(), cmds, hooks));
    let state = Arc::new(App::new(
        serving,
        origins,
        config.behind_proxy,
        changes,
        stop,
    ));
    let router = app::router(state);
    eprintln!(
        "serving the inbox at {origin} (listening on {local}{}); stop it with Ctrl-C",
        if tls.is_some() { ", TLS" } else { "" }
    );
    if config.serving.drive {
        eprintln!(
            "--drive: an answer to a run this user started on this host continues it here, with this process's environment"
        );
    }
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    // Connections that have not sent a whole request head yet, by client address.
    let waiting: Places<IpAddr> = Places::new(MAX_CONNECTIONS, WAITING_PER_ADDRESS);
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => p?,
            _ = term.recv() => break,
            _ = int.recv() => break,
        };
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of file descriptors and the like: wait a little, keep serving.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = term.recv() => break,
            _ = int.recv() => break,
        };
        // Behind a proxy every client is the proxy: there the proxy limits.
        let head = if config.behind_proxy {
            None
        } else {
            // Past the address's cap, the connection is dropped: closed at once.
            let Some(place) = waiting.take(peer.ip()) else {
                continue;
            };
            Some(place)
        };
        let head = std::sync::Mutex::new(head);
        let _ = tcp.set_nodelay(true);
        let router = router.clone();
        let tls = tls.clone();
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            let _permit = permit;
            // A client that says nothing is not kept waiting for.
            let mut first = [0u8; 1];
            if !matches!(
                tokio::time::timeout(FIRST_BYTE, tcp.peek(&mut first)).await,
                Ok(Ok(1..))
            ) {
                return;
            }
            let service =
                hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                    // A whole request head came: the address's place is free again.
                    head.lock().unwrap_or_else(|p| p.into_inner()).take();
                    request.extensions_mut().insert(ConnectInfo(peer));
                    router.clone().oneshot(request)
                });
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(REQUEST_TIMEOUT)
                .max_buf_size(MAX_HEADERS);
            match tls {
                Some(acceptor) => {
                    let Ok(Ok(stream)) =
                        tokio::time::timeout(REQUEST_TIMEOUT, acceptor.accept(tcp)).await
                    else {
                        return;
                    };
                    let conn = http.serve_connection(TokioIo::new(stream), service);
                    let _ = watcher.watch(conn).await;
                }
                None => {
                    let conn = http.serve_connection(TokioIo::new(tcp), service);
                    let _ = watcher.watch(conn).await;
                }
            }
        });
    }
    drop(listener);
    eprintln!(
        "stopping: finishing the requests in flight (up to {}s)",
        SHUTDOWN_GRACE.as_secs()
    );
    let _ = stop_tx.send(true);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        eprintln!(
            "some requests were still running after {}s; stopped",
            SHUTDOWN_GRACE.as_secs()
        );
    }
    drop(watcher);
    drop(notifier);
    drop(escalator);
    // No hook outlives serve: what runs is killed, what waits is not run.
    if let Some(hooks) = hooks {
        hooks.stop();
    }
    Ok(())
}

/// Reads a PEM file with a cap.
fn pem(path: &Path, what: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|f| f.take(MAX_PEM + 1).read_to_end(&mut bytes))
        .with_context(|| format!("reading the TLS {what} {}", path.display()))?;
    if bytes.len() as u64 > MAX_PEM {
        anyhow::bail!(Error::usage(format!(
            "the TLS {what} {} is larger than 1 MiB",
            path.display()
        )));
    }
    Ok(bytes)
}

/// The TLS acceptor of a certificate chain and its key (PEM).
pub fn acceptor(cert: &Path, key: &Path) -> Result<tokio_rustls::TlsAcceptor> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let bad = |what: &str, path: &Path, e: &dyn std::fmt::Display| {
        Error::usage(format!(
            "the TLS {what} {} cannot be read: {e}",
            path.display()
        ))
    };
    let certs: Vec<CertificateDer> = CertificateDer::pem_slice_iter(&pem(cert, "certificate")?)
        .collect::<Result<_, _>>()
        .map_err(|e| bad("certificate", cert, &e))?;
    if certs.is_empty() {
        anyhow::bail!(bad("certificate", cert, &"it holds no certificate"));
    }
    let key_der =
        PrivateKeyDer::from_pem_slice(&pem(key, "key")?).map_err(|e| bad("key", key, &e))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| bad("certificate", cert, &e))?
        .with_no_client_auth()
        .with_single_cert(certs, key_der)
        .map_err(|e| bad("key", key, &e))?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}
