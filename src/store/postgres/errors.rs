//! PostgreSQL's errors sorted into the store's (`store::Error`), by SQLSTATE class and by
//! what the driver saw (a closed connection, a socket error). The wording and the hints are
//! the store's; this only says which one an error is and what the store was doing.

use postgres::error::SqlState;

use crate::store::{Cause, Engine, Error, Wait};

/// `e`, met while `doing` (empty when nothing better is known). A broken connection is
/// `Lost`; `connect` makes it `Unreachable`.
pub fn classify(doing: &str, e: postgres::Error) -> Error {
    let code = e.code().map(|c| c.code().to_string());
    let closed = e.is_closed()
        || matches!(
            e.to_string().as_str(),
            "error connecting to server"
                | "timeout waiting for server"
                | "error performing TLS handshake"
                | "authentication error"
                | "error communicating with the server"
        );
    let cause = Cause {
        engine: Engine::Postgres,
        doing: doing.to_string(),
        detail: chain(&e),
        source: Some(Box::new(e)),
    };
    let Some(code) = code else {
        return if closed {
            Error::Lost(cause)
        } else {
            Error::Other(cause)
        };
    };
    match code.as_str() {
        c if c == SqlState::LOCK_NOT_AVAILABLE.code() => Error::Timeout(Wait::Lock, cause),
        c if c == SqlState::QUERY_CANCELED.code() => Error::Timeout(Wait::Statement, cause),
        c if c == SqlState::INSUFFICIENT_PRIVILEGE.code() => Error::Denied(cause),
        c if c == SqlState::UNDEFINED_TABLE.code() => Error::Corrupt(cause),
        // Refused logins, a missing database.
        c if c.starts_with("28") || c.starts_with("3D") => Error::Unreachable(cause),
        // Connection exceptions, a server going away.
        c if c.starts_with("08") || c.starts_with("57P") => Error::Lost(cause),
        c if c.starts_with("53") => Error::Full(cause),
        c if c.starts_with("XX") => Error::Corrupt(cause),
        _ => Error::Other(cause),
    }
}

/// The error and its causes on one line ("db error: FATAL: …").
fn chain(e: &postgres::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        parts.push(s.to_string());
        source = s.source();
    }
    parts.join(": ").replace('\n', " ")
}

impl From<postgres::Error> for Error {
    fn from(e: postgres::Error) -> Error {
        classify("", e)
    }
}
