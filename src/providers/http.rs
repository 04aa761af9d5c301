//! Blocking HTTP for the chat providers: one configured client (timeouts, and the proxy,
//! trust and redirect rules every outgoing request shares: `net`), the failures of an
//! attempt sorted into what may be retried, and the backoff between attempts (exponential
//! with jitter, honouring `Retry-After`).
//!
//! It knows nothing of chat completions and never builds an error text that could hold a
//! request header: the API key goes into the `Authorization` header and nowhere else, and
//! never to another server than the one named (a redirect elsewhere is refused).

use std::io;
use std::time::Duration;

use super::settings::Settings;
use crate::duration;
use crate::limits::{MAX_RETRY_DELAY, MAX_RETRY_WAIT};
use crate::net::redirect::{self, Refused, MAX_REDIRECTS};
use crate::net::{Agents, Origin, Timeouts};

/// Retries after the first attempt.
pub const MAX_RETRIES: u32 = 3;
pub use crate::limits::{MAX_ERROR_BODY, MAX_RETRY_AFTER};

/// Why an attempt failed before a usable response arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trouble {
    Refused,
    /// Reset, aborted, or closed before the response was complete.
    Dropped,
    ConnectTimeout,
    ReadTimeout,
    HostNotFound,
    Other(String),
}

impl Trouble {
    /// Worth another attempt: the request may not have reached the model, or it broke off.
    /// A timeout is not retried: the server is there but slow, and another try costs as
    /// much again.
    pub fn retryable(&self) -> bool {
        matches!(self, Trouble::Refused | Trouble::Dropped)
    }

    /// What happened, for a one-line error.
    pub fn describe(&self, settings: &Settings) -> String {
        match self {
            Trouble::Refused => "connection refused, is the server running?".into(),
            Trouble::Dropped => "the connection was reset or closed early".into(),
            Trouble::ConnectTimeout => format!(
                "no connection within {} (raise {})",
                duration::show(settings.connect_timeout),
                super::settings::CONNECT_TIMEOUT
            ),
            Trouble::ReadTimeout => format!(
                "no answer for {} (raise {})",
                duration::show(settings.read_timeout),
                super::settings::READ_TIMEOUT
            ),
            Trouble::HostNotFound => "host not found".into(),
            Trouble::Other(text) => text.clone(),
        }
    }
}

/// A configured client of one server.
pub struct Client {
    agents: Agents,
}

impl Client {
    /// A client of the server at `base_url` (an http or https URL); fails when the
    /// environment's proxy for it is not a usable URL.
    pub fn new(settings: &Settings, base_url: &str) -> Result<Client, String> {
        let uri = base_url
            .parse::<ureq::http::Uri>()
            .map_err(|e| format!("{base_url} is not a URL: {e}"))?;
        let origin = Origin::of(&uri)?;
        let timeouts = Timeouts {
            connect: settings.connect_timeout,
            per_read: Some(settings.read_timeout),
            per_write: Some(settings.read_timeout),
            idle_age: None,
        };
        Ok(Client {
            agents: Agents::new(&origin, timeouts)?,
        })
    }

    /// POSTs a JSON body; any status comes back as a response. A redirect is followed only
    /// to the same server, keeping the POST (307, 308).
    pub fn post_json(
        &self,
        url: &str,
        body: &str,
        bearer: Option<&str>,
    ) -> Result<ureq::http::Response<ureq::Body>, Trouble> {
        let mut url = url.to_string();
        for _ in 0..=MAX_REDIRECTS {
            let agent = self.agents.for_url(&url).map_err(Trouble::Other)?;
            let mut request = agent.post(&url).header("Content-Type", "application/json");
            if let Some(key) = bearer {
                request = request.header("Authorization", format!("Bearer {key}"));
            }
            let response = request.send(body).map_err(|e| trouble(&e))?;
            let status = response.status().as_u16();
            let Some(next) = redirect::of_response(&response, &url, true) else {
                return Ok(response);
            };
            url = next.map_err(|refused| {
                Trouble::Other(match refused {
                    Refused::NoLocation => {
                        format!("a redirect (HTTP {status}) without a usable Location")
                    }
                    Refused::NotKept(next) | Refused::Elsewhere(next) => format!(
                        "it redirects the request (HTTP {status}) to {next}, which is not followed: use that base URL if it is the right one"
                    ),
                })
            })?;
        }
        Err(Trouble::Other(format!(
            "more than {MAX_REDIRECTS} redirects"
        )))
    }
}

/// Sorts a client error.
pub fn trouble(e: &ureq::Error) -> Trouble {
    match e {
        ureq::Error::Io(io) => io_trouble(io),
        ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve) => {
            Trouble::ConnectTimeout
        }
        ureq::Error::Timeout(_) => Trouble::ReadTimeout,
        ureq::Error::HostNotFound => Trouble::HostNotFound,
        ureq::Error::ConnectionFailed => Trouble::Refused,
        ureq::Error::Protocol(_) => Trouble::Dropped,
        // Never the request itself: ureq's errors carry no headers.
        other => Trouble::Other(other.to_string()),
    }
}

/// Sorts an error met while reading a body (ureq wraps its own errors in `io::Error`).
pub fn io_trouble(e: &io::Error) -> Trouble {
    if let Some(inner) = e.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>()) {
        return trouble(inner);
    }
    use io::ErrorKind as K;
    match e.kind() {
        K::ConnectionRefused => Trouble::Refused,
        K::ConnectionReset
        | K::ConnectionAborted
        | K::BrokenPipe
        | K::UnexpectedEof
        | K::NotConnected => Trouble::Dropped,
        K::TimedOut | K::WouldBlock => Trouble::ReadTimeout,
        _ => Trouble::Other(e.to_string()),
    }
}

/// `Retry-After` in seconds (the HTTP-date form is not honoured; backoff applies then).
pub fn retry_after(value: Option<&str>) -> Option<Duration> {
    let secs: f64 = value?.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

/// How long to wait before retry number `retry` (1-based): the server's `Retry-After` when
/// it gave one, else `base` doubled per retry plus up to half as much again at random
/// (`jitter` in 0..1), never more than [`MAX_RETRY_WAIT`]. `None`: do not retry.
pub fn backoff(
    retry: u32,
    base: Duration,
    retry_after: Option<Duration>,
    jitter: f64,
) -> Option<Duration> {
    if retry == 0 || retry > MAX_RETRIES {
        return None;
    }
    if let Some(wait) = retry_after {
        return (wait <= MAX_RETRY_AFTER).then_some(wait);
    }
    let exp = base.min(MAX_RETRY_DELAY).saturating_mul(1 << (retry - 1));
    Some((exp + exp.mul_f64(jitter.clamp(0.0, 1.0) / 2.0)).min(MAX_RETRY_WAIT))
}

/// A number in 0..1 for jitter.
pub fn jitter() -> f64 {
    let bits = uuid::Uuid::new_v4().as_u128() as u64;
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_stops_after_three() {
        let base = Duration::from_millis(500);
        assert_eq!(
            backoff(1, base, None, 0.0),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            backoff(2, base, None, 0.0),
            Some(Duration::from_millis(1000))
        );
        assert_eq!(
            backoff(3, base, None, 1.0),
            Some(Duration::from_millis(3000))
        );
        assert_eq!(backoff(4, base, None, 0.0), None);
        assert_eq!(backoff(0, base, None, 0.0), None);
        // However large the configured delay, a wait stays bounded.
        let huge = Duration::from_secs(u64::MAX / 2);
        assert_eq!(backoff(3, huge, None, 1.0), Some(MAX_RETRY_WAIT));
        let j = backoff(1, base, None, jitter()).unwrap();
        assert!(j >= base && j <= base * 3 / 2);
    }

    #[test]
    fn retry_after_wins_unless_too_long() {
        let base = Duration::from_millis(500);
        assert_eq!(
            backoff(1, base, Some(Duration::ZERO), 0.5),
            Some(Duration::ZERO)
        );
        assert_eq!(
            backoff(3, base, Some(Duration::from_secs(2)), 0.5),
            Some(Duration::from_secs(2))
        );
        assert_eq!(backoff(1, base, Some(Duration::from_secs(3600)), 0.5), None);
        assert_eq!(backoff(4, base, Some(Duration::ZERO), 0.5), None);
    }

    #[test]
    fn retry_after_header_values() {
        assert_eq!(retry_after(Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(Some(" 0.5 ")), Some(Duration::from_millis(500)));
        assert_eq!(retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(retry_after(Some("-1")), None);
        assert_eq!(retry_after(Some("NaN")), None);
        assert_eq!(retry_after(None), None);
    }

    #[test]
    fn errors_are_sorted_for_retrying() {
        let io = |k| io::Error::new(k, "x");
        assert_eq!(
            io_trouble(&io(io::ErrorKind::ConnectionReset)),
            Trouble::Dropped
        );
        assert_eq!(
            io_trouble(&io(io::ErrorKind::ConnectionRefused)),
            Trouble::Refused
        );
        assert_eq!(
            io_trouble(&io(io::ErrorKind::TimedOut)),
            Trouble::ReadTimeout
        );
        let wrapped = io::Error::other(ureq::Error::Timeout(ureq::Timeout::PerRead));
        assert_eq!(io_trouble(&wrapped), Trouble::ReadTimeout);
        assert!(Trouble::Dropped.retryable() && Trouble::Refused.retryable());
        assert!(!Trouble::ReadTimeout.retryable() && !Trouble::HostNotFound.retryable());
    }
}
