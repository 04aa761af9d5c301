//! SQLite's errors sorted into the store's (`store::Error`), by SQLite's error code. The
//! wording and the hints are the store's; this only says which one an error is and what
//! the store was doing.

use rusqlite::ErrorCode as Code;

use crate::store::{Cause, Engine, Error};

/// `e`, met while `doing` (e.g. "writing to the store"; empty when nothing better is known).
pub fn classify(doing: &str, e: rusqlite::Error) -> Error {
    let code = match &e {
        rusqlite::Error::SqliteFailure(f, _) => Some(f.code),
        rusqlite::Error::SqlInputError { error, .. } => Some(error.code),
        _ => None,
    };
    // SQLite's message without the statement it was about (a migration's is kilobytes).
    let detail = match &e {
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        e => e.to_string(),
    };
    let cause = Cause {
        engine: Engine::Sqlite,
        doing: doing.to_string(),
        detail,
        source: Some(Box::new(e)),
    };
    match code {
        Some(Code::DatabaseBusy | Code::DatabaseLocked) => Error::Busy(cause),
        Some(Code::NotADatabase | Code::DatabaseCorrupt) => Error::Corrupt(cause),
        Some(Code::ReadOnly | Code::CannotOpen | Code::PermissionDenied) => Error::Denied(cause),
        Some(Code::DiskFull | Code::SystemIoFailure) => Error::Full(cause),
        _ => Error::Other(cause),
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        classify("", e)
    }
}
