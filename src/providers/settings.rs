//! The knobs of the model providers that come from the environment: timeouts, streaming,
//! the retry delay. Read once when a provider is built, so a bad value fails before
//! anything is stored.
//!
//! No secrets here (keys are read by the provider that sends them) and no IO besides the
//! environment lookup the caller passes in.

use std::time::Duration;

use crate::duration;
use crate::limits::{MAX_CONNECT_TIMEOUT, MAX_READ_TIMEOUT, MAX_RETRY_DELAY};

pub const CONNECT_TIMEOUT: &str = "MASTRA_ASK_CONNECT_TIMEOUT";
pub const READ_TIMEOUT: &str = "MASTRA_ASK_READ_TIMEOUT";
pub const STREAM: &str = "MASTRA_ASK_STREAM";
pub const RETRY_DELAY: &str = "MASTRA_ASK_RETRY_DELAY";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Opening a connection (TCP and TLS).
    pub connect_timeout: Duration,
    /// The longest silence while waiting for the response or for the next bytes of a
    /// stream; for `command:` models, the longest a program may take.
    pub read_timeout: Duration,
    /// Ask for server-sent events (the default) instead of one JSON body.
    pub stream: bool,
    /// The first retry waits about this long; each next one twice as long.
    pub retry_delay: Duration,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(300),
            stream: true,
            retry_delay: Duration::from_millis(500),
        }
    }
}

impl Settings {
    /// The settings from `lookup` (the environment), defaults for what is unset or empty.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Settings, String> {
        let mut s = Settings::default();
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let dur = |name: &str, default: Duration, max: Duration| match get(name) {
            None => Ok(default),
            Some(v) => duration::parse_max(&v, max).map_err(|e| format!("{name}: {e}")),
        };
        s.connect_timeout = dur(CONNECT_TIMEOUT, s.connect_timeout, MAX_CONNECT_TIMEOUT)?;
        s.read_timeout = dur(READ_TIMEOUT, s.read_timeout, MAX_READ_TIMEOUT)?;
        s.retry_delay = dur(RETRY_DELAY, s.retry_delay, MAX_RETRY_DELAY)?;
        for (name, d) in [
            (CONNECT_TIMEOUT, s.connect_timeout),
            (READ_TIMEOUT, s.read_timeout),
        ] {
            if d.is_zero() {
                return Err(format!("{name} must be more than 0"));
            }
        }
        if let Some(v) = get(STREAM) {
            s.stream = match v.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => true,
                "0" | "false" | "no" | "off" => false,
                _ => return Err(format!("{STREAM} must be 1 or 0, not \"{v}\"")),
            };
        }
        Ok(s)
    }

    pub fn from_env() -> Result<Settings, String> {
        Settings::from_lookup(|name| std::env::var(name).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(&str, &str)]) -> Result<Settings, String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_lookup(move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn defaults_and_overrides() {
        assert_eq!(with(&[]), Ok(Settings::default()));
        let s = with(&[
            (CONNECT_TIMEOUT, "2s"),
            (READ_TIMEOUT, "300ms"),
            (STREAM, "0"),
            (RETRY_DELAY, "0"),
        ])
        .unwrap();
        assert_eq!(s.connect_timeout, Duration::from_secs(2));
        assert_eq!(s.read_timeout, Duration::from_millis(300));
        assert!(!s.stream);
        assert_eq!(s.retry_delay, Duration::ZERO);
        assert_eq!(with(&[(STREAM, "")]), Ok(Settings::default()));
    }

    #[test]
    fn bad_values_name_the_variable() {
        assert!(with(&[(READ_TIMEOUT, "soon")])
            .unwrap_err()
            .starts_with(READ_TIMEOUT));
        assert!(with(&[(CONNECT_TIMEOUT, "0s")])
            .unwrap_err()
            .contains("more than 0"));
        assert!(with(&[(STREAM, "maybe")]).unwrap_err().starts_with(STREAM));
    }

    #[test]
    fn every_duration_has_a_maximum() {
        for (name, max) in [
            (CONNECT_TIMEOUT, "10m"),
            (READ_TIMEOUT, "1d"),
            (RETRY_DELAY, "10m"),
        ] {
            assert!(with(&[(name, max)]).is_ok(), "{name}");
            for too_long in ["99999999999d", "9223372036854775807ms", "366d"] {
                assert_eq!(
                    with(&[(name, too_long)]).unwrap_err(),
                    format!("{name}: duration \"{too_long}\" is longer than the maximum, {max}")
                );
            }
        }
    }
}
