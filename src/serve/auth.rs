//! Who is asking, and whether their request may change anything (SPEC §13): the API's
//! `Authorization: Bearer` token (never the cookie), the pages' session cookie, the csrf
//! field every form carries (tied to the session, or before sign-in to a pre-session
//! cookie), the same-origin check of every POST, and failed sign-ins slowed per client
//! address and overall.
//!
//! Secrets are compared only through the store's hashes and `secret::same`; none is kept,
//! logged or put in a page here, except the csrf value (derived, not the secret).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::{header, HeaderMap, HeaderValue};

use crate::store::secret;

/// The session cookie.
pub const SESSION_COOKIE: &str = "__Host-mastra-ask-session";
/// The pre-session cookie the sign-in forms' csrf value is tied to.
pub const PRE_COOKIE: &str = "__Host-mastra-ask-pre";

/// The path a page that sent a signed-out person to sign in remembers (SPEC §13).
pub const NEXT_COOKIE: &str = "__Host-mastra-ask-next";

/// The value of cookie `name`, if the request has one (secrets and ids: 128 bytes at most).
pub fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    cookie_of(headers, name, 128)
}

/// Where a sign-in returns to: the remembered path when it is a path of this server (one
/// `/`, then printable ASCII a cookie may hold, no backslash: never `//host` or `/\host`,
/// which a browser reads as another server), else the inbox.
pub fn return_path(headers: &HeaderMap) -> &str {
    cookie_of(headers, NEXT_COOKIE, 1024)
        .filter(|p| is_own_path(p))
        .unwrap_or("/")
}

/// Whether `p` is a path of this server that a cookie can hold.
pub fn is_own_path(p: &str) -> bool {
    p.starts_with('/')
        && !p.starts_with("//")
        && p.len() <= 1024
        && p.bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b'"' | b',' | b';' | b'\\'))
}

fn cookie_of<'h>(headers: &'h HeaderMap, name: &str, max: usize) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty() && v.len() <= max)
}

/// The token of `Authorization: Bearer TOKEN`.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty() && token.len() <= 256)
        .then_some(token)
}

/// A `Set-Cookie` value: `__Host-` (so: `Secure`, `Path=/`, no `Domain`), HttpOnly,
/// `SameSite=Lax` (a link tapped in mail or chat arrives signed in). `max_age` 0 deletes.
pub fn set_cookie(name: &str, value: &str, max_age: Duration) -> HeaderValue {
    let text = format!(
        "{name}={value}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age={}",
        max_age.as_secs()
    );
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// The csrf value of forms of a session (or of a pre-session, `purpose` "sign-in").
pub fn csrf_of(purpose: &str, id: &str) -> String {
    secret::derive(&format!("csrf {purpose}"), id)
}

/// Whether `given` is the csrf value for `id`.
pub fn csrf_ok(purpose: &str, id: &str, given: Option<&str>) -> bool {
    given.is_some_and(|g| secret::same(&csrf_of(purpose, id), g))
}

/// Whether a POST may come from where it says: its `Origin` must be one of the server's.
/// Under `Referrer-Policy: no-referrer` (which every page sends) a browser posts a form with
/// `Origin: null`; then `Sec-Fetch-Site` must say `same-origin` (a browser sets it, and no
/// page can). A request that names neither (a program, not a browser) passes this check
/// and must still carry its csrf value or token.
pub fn same_origin(headers: &HeaderMap, origins: &[String]) -> bool {
    let from = |h: &str| headers.get(h).and_then(|v: &HeaderValue| v.to_str().ok());
    let site_ok = match from("sec-fetch-site") {
        Some(site) => site == "same-origin" || site == "none",
        None => true,
    };
    match from("origin") {
        Some("null") | None => site_ok,
        Some(origin) => site_ok && origins.iter().any(|o| o == origin),
    }
}

/// The client's address: the peer's, or behind a proxy the last `X-Forwarded-For` hop
/// (the one the proxy added).
pub fn client(headers: &HeaderMap, peer: SocketAddr, behind_proxy: bool) -> IpAddr {
    if behind_proxy {
        let last = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .next_back()
            .and_then(|hop| hop.trim().parse().ok());
        if let Some(ip) = last {
            return ip;
        }
    }
    peer.ip()
}

/// Failed sign-ins slow the next ones: per client address after a few, and everyone's when
/// many fail at once (a spread-out guess). The memory it keeps is bounded.
pub struct Limiter {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Per address: failures in the current window and when it began.
    clients: HashMap<IpAddr, (u32, Instant)>,
    /// Everyone's failures in the current window and when it began.
    all: (u32, Option<Instant>),
}

/// Failures are counted over this long.
const WINDOW: Duration = Duration::from_secs(15 * 60);
/// Failures of one address before its sign-ins are slowed.
const FREE_TRIES: u32 = 5;
/// Failures of everyone within a minute before every sign-in is slowed.
const ALL_TRIES: u32 = 100;
/// The longest pause before an answer.
const MAX_DELAY: Duration = Duration::from_secs(10);
/// Addresses remembered at most.
const MAX_CLIENTS: usize = 10_000;

impl Limiter {
    pub fn new() -> Limiter {
        Limiter {
            state: Mutex::new(State::default()),
        }
    }

    /// How long a sign-in from `ip` waits before it is looked at.
    pub fn delay(&self, ip: IpAddr) -> Duration {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        let mine = match state.clients.get(&ip) {
            Some((n, since)) if now.duration_since(*since) < WINDOW && *n >= FREE_TRIES => {
                let doublings = (*n - FREE_TRIES).min(6);
                Duration::from_millis(250 << doublings)
            }
            _ => Duration::ZERO,
        };
        let everyone = match state.all {
            (n, Some(since))
                if now.duration_since(since) < Duration::from_secs(60) && n >= ALL_TRIES =>
            {
                Duration::from_secs(1)
            }
            _ => Duration::ZERO,
        };
        (mine + everyone).min(MAX_DELAY)
    }

    /// A failed sign-in from `ip`.
    pub fn failed(&self, ip: IpAddr) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if state.clients.len() >= MAX_CLIENTS && !state.clients.contains_key(&ip) {
            state
                .clients
                .retain(|_, (_, since)| now.duration_since(*since) < WINDOW);
            if state.clients.len() >= MAX_CLIENTS {
                state.clients.clear();
            }
        }
        let entry = state.clients.entry(ip).or_insert((0, now));
        if now.duration_since(entry.1) >= WINDOW {
            *entry = (0, now);
        }
        entry.0 += 1;
        state.all = match state.all {
            (n, Some(since)) if now.duration_since(since) < Duration::from_secs(60) => {
                (n + 1, Some(since))
            }
            _ => (1, Some(now)),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_slow_only_their_address_until_many_fail() {
        let limiter = Limiter::new();
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        for _ in 0..FREE_TRIES {
            assert_eq!(limiter.delay(a), Duration::ZERO);
            limiter.failed(a);
        }
        assert!(limiter.delay(a) > Duration::ZERO);
        assert_eq!(limiter.delay(b), Duration::ZERO);
        for _ in 0..ALL_TRIES {
            limiter.failed(a);
        }
        assert!(limiter.delay(b) > Duration::ZERO);
        assert!(limiter.delay(a) <= MAX_DELAY);
    }

    #[test]
    fn origins_and_cookies() {
        let mut h = HeaderMap::new();
        let origins = vec!["http://127.0.0.1:4180".to_string()];
        assert!(same_origin(&h, &origins));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://evil.example"),
        );
        assert!(!same_origin(&h, &origins));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:4180"),
        );
        assert!(same_origin(&h, &origins));
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; __Host-mastra-ask-session=xyz"),
        );
        assert_eq!(cookie(&h, SESSION_COOKIE), Some("xyz"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer mra_abc"),
        );
        assert_eq!(bearer(&h), Some("mra_abc"));
        assert!(csrf_ok("session", "s1", Some(&csrf_of("session", "s1"))));
        assert!(!csrf_ok("session", "s1", Some(&csrf_of("session", "s2"))));
        assert!(!csrf_ok("session", "s1", None));
    }

    #[test]
    fn only_a_path_of_this_server_is_returned_to() {
        for p in ["/", "/runs/r1/items/c%201", "/runs/r1?x=1"] {
            assert!(is_own_path(p), "{p}");
        }
        for p in [
            "",
            "//evil.example",
            "/\\evil.example",
            "https://evil.example",
            "evil",
            "/a b",
            "/a;b",
            "/\u{e9}",
        ] {
            assert!(!is_own_path(p), "{p}");
        }
    }
}
