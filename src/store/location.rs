//! Where the store lives: `--db`, then `MASTRA_ASK_DB`, then the XDG data directory
//! (`$XDG_DATA_HOME` when it is absolute, else `~/.local/share`, by etcetera's XDG rules).
//! A `postgres://` URL is a PostgreSQL store; so is a libpq keyword/value string
//! (`host=… dbname=…`), only to be refused there with a hint: it never becomes a file
//! name. This only decides where; what is found there is checked when the store is opened
//! (`sqlite/open.rs`, `postgres/connect.rs`).

use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq)]
pub enum Location {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Location {
    /// `flag` is `--db` or `MASTRA_ASK_DB` (clap reads both).
    pub fn resolve(flag: Option<&str>) -> Location {
        match flag.filter(|s| !s.is_empty()) {
            Some(s) if is_url(s) || keywords(s).is_some() => Location::Postgres(s.to_string()),
            Some(s) => Location::Sqlite(PathBuf::from(s)),
            None => Location::Sqlite(default_path()),
        }
    }
}

/// Whether `s` is a PostgreSQL URL.
pub fn is_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

/// libpq's connection keywords (PostgreSQL 17's list, "Parameter Key Words").
const KEYWORDS: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "require_auth",
    "channel_binding",
    "connect_timeout",
    "client_encoding",
    "options",
    "application_name",
    "fallback_application_name",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_count",
    "tcp_user_timeout",
    "replication",
    "gssencmode",
    "sslmode",
    "requiressl",
    "sslnegotiation",
    "sslcompression",
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslcertmode",
    "sslrootcert",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "requirepeer",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
    "krbsrvname",
    "gsslib",
    "gssdelegation",
    "service",
    "target_session_attrs",
    "load_balance_hosts",
];

/// The `key=value` pairs of `s` when it is a libpq keyword/value connection string: one or
/// more pairs separated by white space, every key one of libpq's, a value bare or in
/// single quotes (`\` escapes in both).
pub fn keywords(s: &str) -> Option<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            break;
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        chars.next_if_eq(&'=')?;
        if !KEYWORDS.contains(&key.as_str()) {
            return None;
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let quoted = chars.next_if_eq(&'\'').is_some();
        let mut value = String::new();
        loop {
            match chars.next() {
                Some('\\') => value.push(chars.next()?),
                Some('\'') if quoted => break,
                Some(c) if !quoted && c.is_whitespace() => break,
                Some(c) => value.push(c),
                None if quoted => return None,
                None => break,
            }
        }
        pairs.push((key, value));
    }
    (!pairs.is_empty()).then_some(pairs)
}

fn default_path() -> PathBuf {
    use etcetera::BaseStrategy;
    // No home directory at all (no `$HOME`, no password entry): the current directory.
    let data = etcetera::base_strategy::Xdg::new()
        .map_or_else(|_| PathBuf::from("."), |xdg| xdg.data_dir());
    data.join("mastra-ask").join("mastra-ask.db")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_strings_are_postgresql_locations_and_files_stay_files() {
        for s in [
            "host=127.0.0.1 port=54393 user=tester password=Kpw-KKK111 dbname=t3b",
            "dbname=x user=y",
            "dbname = x",
            "host='db one' password='it\\'s' sslmode=require",
            "password=a\\ b",
        ] {
            assert!(
                matches!(Location::resolve(Some(s)), Location::Postgres(_)),
                "{s}"
            );
        }
        for s in [
            "store.db",
            "./dbname=x",
            "dbname",
            "colour=blue",
            "dbname=x notakey=y",
            "host='unterminated",
            "my store.db",
        ] {
            assert!(
                matches!(Location::resolve(Some(s)), Location::Sqlite(_)),
                "{s}"
            );
        }
        assert_eq!(
            keywords("host='db one' password=p\\ w").unwrap(),
            [
                ("host".to_string(), "db one".to_string()),
                ("password".to_string(), "p w".to_string())
            ]
        );
    }
}
