//! `serve`, the reviewers' inbox (SPEC §13): frontend 2, web pages for people and Mastra's
//! agent API for programs, over the same store as the commands.
//!
//! Async inside (tokio, hyper, axum), built only when `serve` runs: no other command pays
//! for a runtime. The store and the run layer are synchronous and are called from blocking
//! tasks (`pool`). Serve records a decision in one place only (`decide`), through the run
//! layer like every command: the runner decides who continues, and serve drives a leg only
//! when it does (`--drive`, for runs its own user started on its host). Everything else
//! (sign-in, pages, the API's shapes, bounds) is independent of how recording works. It
//! never runs a command a run names, and never prints a token, cookie, link secret or
//! answer.
//!
//! Files: `listen` (sockets, TLS, connection bounds, shutdown), `app` (the routes and the
//! shared state), `middleware` (security headers, body caps, the request log), `auth`
//! (tokens, sessions, csrf, same origin, slowed sign-ins), `api` (Mastra's routes),
//! `pages/` (HTML), `events` (what changed, for live pages and the hook), `hooks` (serve's
//! own hooks, from one bounded queue), `escalations`, `notifications` (each allowed reviewer
//! told of each new item on their channel, SPEC §17), `decide` (decisions), `frames` (an
//! answer's event stream), `pool` (the store from async code, and the places of legs),
//! `places` (bounded places, capped per key), `start` (the checks of `serve`'s flags).

mod api;
mod app;
mod auth;
mod decide;
mod escalations;
mod events;
mod form;
mod frames;
mod hooks;
mod listen;
mod middleware;
mod notifications;
mod pages;
mod places;
mod pool;
pub mod start;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub use decide::Serving;

/// A request body may hold this much (the answer cap, SPEC §9).
pub const MAX_BODY: usize = 1 << 20;
/// A request's headers may hold this much.
pub const MAX_HEADERS: usize = 16 << 10;
/// A client must have sent its whole request within this.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// An event stream sends a comment this often, so that proxies and clients see it alive.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// Open connections at most; more wait in the kernel's queue.
pub const MAX_CONNECTIONS: usize = 1024;
/// A new connection must send its first byte within this (a TLS client its hello).
pub const FIRST_BYTE: Duration = Duration::from_secs(5);
/// Connections of one client address that have not sent a whole request head yet, at most;
/// past it a new one is closed at once.
pub const WAITING_PER_ADDRESS: usize = 32;
/// Open event streams of live pages at most; past it, 503. (An answer's stream needs no
/// place of these: the leg it carries has a place of its own, `pool::MAX_LEGS`.)
pub const MAX_STREAMS: usize = 512;
/// Of those, one reviewer's at most (in all their sessions)...
pub const STREAMS_PER_REVIEWER: usize = 32;
/// ...and one session's.
pub const STREAMS_PER_SESSION: usize = 8;
/// On SIGTERM or SIGINT, requests in flight get this long to finish.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// How `serve` was started, checked by the command.
pub struct Config {
    /// The store, how it was named, and `--drive`.
    pub serving: Serving,
    pub listen: SocketAddr,
    /// The certificate chain and key files (PEM) for HTTPS.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// The origin of `--public-url` (`scheme://host[:port]`), the only `Origin` a POST
    /// may come from; without it, the address listened at (and `localhost` for a loopback
    /// one).
    pub public: Option<String>,
    /// The client's address is the last `X-Forwarded-For` hop.
    pub behind_proxy: bool,
    /// Serve's own `--on-suspend` (its flag or environment, never a run's): run for each
    /// item that becomes pending, with its `pending -o json` line on stdin.
    pub on_suspend: Option<String>,
    /// `--on-escalate CMD`: serve's own command for each item whose escalation is due, in
    /// any run of the store (SPEC §14).
    pub on_escalate: Option<String>,
    /// Serve's own `--on-resolve CMD` (its flag or environment): run once for each item of
    /// any run of the store resolved while serve runs, or lately, that no process told of
    /// (SPEC §17).
    pub on_resolve: Option<String>,
    /// `--ntfy-token-file`'s tokens, by ntfy server (SPEC §17): never stored.
    pub ntfy_tokens: crate::notify::Tokens,
}

/// Runs the inbox until SIGTERM or SIGINT, then finishes what is in flight and returns.
pub fn run(config: Config) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(64)
        .enable_all()
        .build()?;
    runtime.block_on(listen::serve(config))
}
