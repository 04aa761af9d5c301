//! PostgreSQL's errors sorted into the store's (`store::Error`), by SQLSTATE class and by
//! what the driver saw (a closed connection, a socket error, TLS, a server gone silent).
//! The wording and the hints are the store's; this only says which one an error is, what
//! the store was doing, and (`explain`) which privilege a refusal is about.

use tokio_postgres::error::SqlState;

use super::connect::Identity;
use super::session::Silent;
use crate::store::{Cause, Engine, Error, Wait};

/// The SQLSTATE the store's guards raise (migration 9): a policy does not allow it.
const REFUSED: &str = "MA403";

/// `e`, met while `doing` (empty when nothing better is known). A broken connection is
/// `Lost`; `connect` makes it `Unreachable`.
pub fn classify(doing: &str, e: tokio_postgres::Error) -> Error {
    let code = e.code().map(|c| c.code().to_string());
    if code.as_deref() == Some(REFUSED) {
        // The store's own guards (migration 9): a policy refused what this role asked.
        let message = e
            .as_db_error()
            .map_or_else(|| e.to_string(), |d| d.message().to_string());
        return Error::Forbidden(message);
    }
    let shown = e.to_string();
    let silent = silence(&e);
    let closed = e.is_closed()
        || matches!(
            shown.as_str(),
            "error connecting to server"
                | "timeout waiting for server"
                | "authentication error"
                | "error communicating with the server"
        );
    let mut cause = Cause {
        engine: Engine::Postgres,
        doing: doing.to_string(),
        detail: chain(&e),
        source: Some(Box::new(e)),
    };
    if let Some(Silent(after)) = silent {
        cause.detail = format!(
            "the server sent nothing for {}s (the read deadline: statement_timeout plus 5s)",
            after.as_secs_f64()
        );
        return Error::Timeout(Wait::Silence, cause);
    }
    if shown == "error performing TLS handshake" {
        return Error::Tls(cause);
    }
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

/// The read deadline that ended the session, if that is what `e` is.
fn silence(e: &tokio_postgres::Error) -> Option<Silent> {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(silent) = s.downcast_ref::<Silent>() {
            return Some(*silent);
        }
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if let Some(silent) = io.get_ref().and_then(|i| i.downcast_ref::<Silent>()) {
                return Some(*silent);
            }
        }
        source = s.source();
    }
    None
}

/// A refused privilege (`Denied`) with what the role needs, and the grant that gives it.
pub fn explain(e: Error, who: &Identity) -> Error {
    let Error::Denied(mut cause) = e else {
        return e;
    };
    let role = ident(&who.user);
    let detail = cause.detail.clone();
    let after = |prefix: &str| {
        detail
            .split_once(prefix)
            .map(|(_, rest)| rest.trim().trim_matches('"').to_string())
    };
    let (needs, grant) = if let Some(db) = after("permission denied for database") {
        (
            format!(
                "the role {role} needs CREATE on database {} to create the schema mastra_ask \
                 at first use",
                ident(&db)
            ),
            format!(
                "let the store's owner (an administrator's role: no policy binds it) run the \
                 first mastra-ask command, then mastra-ask store grant {role}; or make {role} \
                 the owner, as the database's owner: GRANT CREATE ON DATABASE {} TO {role}",
                ident(&db)
            ),
        )
    } else if detail.contains("permission denied for schema") {
        (
            format!("the role {role} needs USAGE on schema mastra_ask"),
            format!(
                "as the schema's owner: GRANT USAGE ON SCHEMA mastra_ask TO {role}; GRANT \
                 SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA mastra_ask TO {role}"
            ),
        )
    } else if detail.contains("permission denied for table")
        || detail.contains("permission denied for sequence")
    {
        (
            format!(
                "the role {role} needs SELECT, INSERT, UPDATE and DELETE on the store's tables"
            ),
            format!(
                "as the schema's owner: GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN \
                 SCHEMA mastra_ask TO {role}"
            ),
        )
    } else if detail.contains("must be owner of") {
        (
            format!("the role {role} does not own the store's tables, so it cannot upgrade them"),
            "run one mastra-ask command as the role that owns schema mastra_ask: it upgrades \
             the store"
                .to_string(),
        )
    } else {
        return Error::Denied(cause);
    };
    cause.detail = format!("{detail}: {needs}");
    Error::Privilege(cause, grant)
}

/// `name` as an SQL identifier: bare when PostgreSQL would keep it as it is.
fn ident(name: &str) -> String {
    let bare = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if bare {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// The error and its causes on one line ("db error: FATAL: …").
fn chain(e: &tokio_postgres::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        parts.push(s.to_string());
        source = s.source();
    }
    parts.join(": ").replace('\n', " ")
}

impl From<tokio_postgres::Error> for Error {
    fn from(e: tokio_postgres::Error) -> Error {
        classify("", e)
    }
}
