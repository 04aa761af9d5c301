//! What a store URL asks for that the driver does not read as libpq does: `sslmode` (libpq's
//! six), `sslrootcert`, `passfile`, and the TCP keepalive settings (`keepalives`,
//! `keepalives_idle`, `keepalives_interval`, `keepalives_count`, `tcp_user_timeout` in
//! milliseconds); `PGSSLMODE` and `PGSSLROOTCERT` as their defaults. These are taken out of
//! the URL; the driver parses the rest. Client certificates are refused, not ignored. Also
//! the session's `statement_timeout`, read from `options`, which sets the read deadline.
//! Pure string work.

use std::path::PathBuf;
use std::time::Duration;

use percent_encoding::percent_decode_str;

use super::tls::{Mode, RootCert};
use crate::store::{Error, Result};

/// The server's bound on one statement when the URL's `options` set none.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, PartialEq)]
pub struct Settings {
    pub sslmode: Mode,
    pub sslrootcert: RootCert,
    pub passfile: Option<String>,
    pub keepalives: bool,
    pub keepalives_idle: Duration,
    pub keepalives_interval: Duration,
    pub keepalives_count: u32,
    /// `None`: the read deadline.
    pub tcp_user_timeout: Option<Duration>,
}

/// Parameters that would need client certificates, which the store does not offer.
const REFUSED: &[&str] = &["sslcert", "sslkey", "sslcrl", "sslcrldir", "sslcertmode"];

/// `url` without the parameters read here, and what they say.
pub fn split(url: &str) -> Result<(String, Settings)> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let mut mode = env("PGSSLMODE");
    let mut root = env("PGSSLROOTCERT");
    let mut settings = Settings {
        sslmode: Mode::Prefer,
        sslrootcert: RootCert::Default,
        passfile: None,
        keepalives: true,
        keepalives_idle: Duration::from_secs(15),
        keepalives_interval: Duration::from_secs(5),
        keepalives_count: 3,
        tcp_user_timeout: None,
    };
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, q),
        None => (url, ""),
    };
    let mut kept = Vec::new();
    for param in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = param.split_once('=').unwrap_or((param, ""));
        let key = decode(key);
        let value = decode(value);
        let number = |unit: &str| -> Result<u64> {
            value.trim().parse().map_err(|_| {
                Error::usage(format!(
                    "the store URL's {key} must be a whole number of {unit}, not {value:?}"
                ))
            })
        };
        match key.as_str() {
            "sslmode" => mode = Some(value),
            "sslrootcert" => root = Some(value),
            "passfile" => settings.passfile = Some(value),
            "keepalives" => settings.keepalives = number("(0 or 1)")? != 0,
            "keepalives_idle" => settings.keepalives_idle = Duration::from_secs(number("seconds")?),
            "keepalives_interval" => {
                settings.keepalives_interval = Duration::from_secs(number("seconds")?);
            }
            "keepalives_count" => {
                settings.keepalives_count = u32::try_from(number("probes")?).unwrap_or(u32::MAX);
            }
            "tcp_user_timeout" => {
                let ms = number("milliseconds")?;
                settings.tcp_user_timeout = (ms > 0).then(|| Duration::from_millis(ms));
            }
            k if REFUSED.contains(&k) => {
                return Err(Error::usage(format!(
                    "the store URL's {k} is not supported: mastra-ask does not present client \
                     certificates"
                )))
            }
            _ => kept.push(param),
        }
    }
    if let Some(m) = mode {
        settings.sslmode = Mode::parse(&m).ok_or_else(|| {
            Error::usage(format!(
                "sslmode {m:?} is not one of disable, allow, prefer, require, verify-ca, verify-full"
            ))
        })?;
    }
    settings.sslrootcert = match root.as_deref() {
        None => RootCert::Default,
        Some("system") => RootCert::System,
        Some(path) => RootCert::File(PathBuf::from(path)),
    };
    let mut rest = base.to_string();
    if !kept.is_empty() {
        rest.push('?');
        rest.push_str(&kept.join("&"));
    }
    Ok((rest, settings))
}

fn decode(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// The `statement_timeout` that `options` (`-c statement_timeout=…` or
/// `--statement_timeout=…`) set; `None` for 0, PostgreSQL's "no bound".
pub fn statement_timeout(options: Option<&str>) -> Option<Duration> {
    let value = options
        .unwrap_or_default()
        .split_whitespace()
        .rev()
        .find_map(|word| {
            word.trim_start_matches('-')
                .strip_prefix("statement_timeout=")
        });
    let Some(value) = value else {
        return Some(STATEMENT_TIMEOUT);
    };
    let split = value
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(value.len());
    let (number, unit) = value.split_at(split);
    let Ok(number) = number.parse::<f64>() else {
        return Some(STATEMENT_TIMEOUT);
    };
    let ms = match unit.trim() {
        "" | "ms" => 1.0,
        "us" => 0.001,
        "s" => 1e3,
        "min" => 60e3,
        "h" => 3600e3,
        "d" => 86400e3,
        // The server refuses it, and says so.
        _ => return Some(STATEMENT_TIMEOUT),
    };
    let total = number * ms;
    if total <= 0.0 {
        return None;
    }
    Some(Duration::from_secs_f64((total / 1e3).min(1e9)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libpq_parameters_are_taken_out_and_the_rest_kept() {
        let (rest, s) = split(
            "postgres://u@h/db?sslmode=verify-full&connect_timeout=3&sslrootcert=%2Fca%20x.crt\
             &passfile=/p&keepalives_idle=7&tcp_user_timeout=2500&options=-c%20a%3Db",
        )
        .unwrap();
        assert_eq!(
            rest,
            "postgres://u@h/db?connect_timeout=3&options=-c%20a%3Db"
        );
        assert_eq!(s.sslmode, Mode::VerifyFull);
        assert_eq!(s.sslrootcert, RootCert::File("/ca x.crt".into()));
        assert_eq!(s.passfile.as_deref(), Some("/p"));
        assert_eq!(s.keepalives_idle, Duration::from_secs(7));
        assert_eq!(s.tcp_user_timeout, Some(Duration::from_millis(2500)));
        let (rest, s) = split("postgres://h/db").unwrap();
        assert_eq!(
            (rest.as_str(), s.sslmode),
            ("postgres://h/db", Mode::Prefer)
        );
        assert_eq!(
            split("postgres://h/db?sslmode=sure").unwrap_err().to_string(),
            "sslmode \"sure\" is not one of disable, allow, prefer, require, verify-ca, verify-full"
        );
        assert!(split("postgres://h/db?sslcert=/c.pem")
            .unwrap_err()
            .to_string()
            .contains("client certificates"));
        assert!(split("postgres://h/db?keepalives_idle=soon").is_err());
        assert_eq!(
            split("postgres://h/db?sslrootcert=system")
                .unwrap()
                .1
                .sslrootcert,
            RootCert::System
        );
    }

    #[test]
    fn the_statement_timeout_is_read_in_postgresqls_units() {
        let t = |o: &str| statement_timeout(Some(o));
        assert_eq!(statement_timeout(None), Some(STATEMENT_TIMEOUT));
        assert_eq!(t("-c lock_timeout=1s"), Some(STATEMENT_TIMEOUT));
        assert_eq!(t("-c statement_timeout=2s"), Some(Duration::from_secs(2)));
        assert_eq!(
            t("--statement_timeout=1500"),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            t("-c statement_timeout=2min"),
            Some(Duration::from_secs(120))
        );
        assert_eq!(t("-c statement_timeout=0"), None);
        assert_eq!(
            t("-c statement_timeout=1s -c statement_timeout=3s"),
            Some(Duration::from_secs(3))
        );
    }
}
