//! How long a Mastra server may keep us waiting (SPEC §12): 15 s to connect; a JSON request
//! 60 s in all (or the idle deadline, when that is shorter); a stream must start, and then
//! never fall silent, within the idle deadline (default 200 s, above the 180 s request limit
//! of `mastra dev`/`build`, set with `MASTRA_ASK_SERVER_IDLE_TIMEOUT`); and a command's own
//! hard deadline (`wait --timeout`), which no request may outlast.
//!
//! The numbers and the budget of one request, nothing else: no IO besides the one
//! environment lookup, no sleeping.

use std::time::{Duration, Instant};

use super::error::RemoteError;
use crate::duration;
use crate::limits::MAX_SERVER_IDLE_TIMEOUT;

/// The environment variable with the idle deadline.
pub const IDLE_ENV: &str = "MASTRA_ASK_SERVER_IDLE_TIMEOUT";
/// The longest wait for a connection.
pub const CONNECT: Duration = Duration::from_secs(15);
/// The longest a JSON request may take, answer included.
pub const JSON_TOTAL: Duration = Duration::from_secs(60);
/// The longest silence of a stream when the environment does not say otherwise.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(200);

/// The deadlines of one command's requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// The longest silence: before a stream's status line and headers, between its frames.
    pub idle: Duration,
    /// No request lasts past this (`wait --timeout`).
    pub hard: Option<Instant>,
}

impl Default for Deadlines {
    fn default() -> Deadlines {
        Deadlines {
            idle: DEFAULT_IDLE,
            hard: None,
        }
    }
}

impl Deadlines {
    /// The idle deadline of `lookup` (the environment), the default when unset or empty; a
    /// bad value, zero, or one past the maximum is a usage error.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Deadlines, RemoteError> {
        let Some(text) = lookup(IDLE_ENV).filter(|v| !v.trim().is_empty()) else {
            return Ok(Deadlines::default());
        };
        let idle = duration::parse_max(&text, MAX_SERVER_IDLE_TIMEOUT)
            .map_err(|e| RemoteError::Config(format!("{IDLE_ENV}: {e}")))?;
        if idle.is_zero() {
            return Err(RemoteError::Config(format!(
                "{IDLE_ENV} must be more than 0"
            )));
        }
        Ok(Deadlines { idle, hard: None })
    }

    pub fn from_env() -> Result<Deadlines, RemoteError> {
        Deadlines::from_lookup(|name| std::env::var(name).ok())
    }

    /// The same, with a hard deadline no request outlasts.
    pub fn until(self, hard: Instant) -> Deadlines {
        Deadlines {
            hard: Some(hard),
            ..self
        }
    }

    /// What a JSON request starting now may take in all; zero once the hard deadline passed.
    pub fn json_budget(&self, now: Instant) -> Duration {
        let mut budget = JSON_TOTAL.min(self.idle);
        if let Some(hard) = self.hard {
            budget = budget.min(hard.saturating_duration_since(now));
        }
        budget
    }

    /// The longest wait for a connection.
    pub fn connect(&self) -> Duration {
        CONNECT.min(self.idle)
    }

    /// Whether the hard deadline has passed.
    pub fn passed(&self, now: Instant) -> bool {
        self.hard.is_some_and(|h| now >= h)
    }

    /// The idle deadline as messages name it: `200s (MASTRA_ASK_SERVER_IDLE_TIMEOUT)`.
    pub fn idle_shown(&self) -> String {
        format!("{} ({IDLE_ENV})", duration::show(self.idle))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: &str) -> Result<Deadlines, RemoteError> {
        let value = value.to_string();
        Deadlines::from_lookup(move |n| (n == IDLE_ENV).then(|| value.clone()))
    }

    #[test]
    fn the_idle_deadline_comes_from_the_environment_within_its_maximum() {
        assert_eq!(with("").unwrap().idle, DEFAULT_IDLE);
        assert_eq!(with("2s").unwrap().idle, Duration::from_secs(2));
        assert_eq!(with("1d").unwrap().idle, Duration::from_secs(86_400));
        for bad in ["0", "0s", "soon", "25h", "-1"] {
            let e = with(bad).unwrap_err();
            assert!(e.to_string().starts_with(IDLE_ENV), "{bad}: {e}");
            assert_eq!(crate::error::Kinded::kind(&e), crate::error::Kind::Usage);
        }
    }

    #[test]
    fn a_json_request_gets_the_least_of_its_limits() {
        let now = Instant::now();
        let d = Deadlines::default();
        assert_eq!(d.json_budget(now), JSON_TOTAL);
        assert_eq!(d.connect(), CONNECT);
        let short = with("2s").unwrap();
        assert_eq!(short.json_budget(now), Duration::from_secs(2));
        assert_eq!(short.connect(), Duration::from_secs(2));
        let hard = d.until(now + Duration::from_secs(5));
        assert_eq!(hard.json_budget(now), Duration::from_secs(5));
        assert_eq!(
            hard.json_budget(now + Duration::from_secs(9)),
            Duration::ZERO
        );
        assert!(hard.passed(now + Duration::from_secs(5)));
        assert!(!hard.passed(now));
        assert_eq!(d.idle_shown(), "3m20s (MASTRA_ASK_SERVER_IDLE_TIMEOUT)");
    }
}
