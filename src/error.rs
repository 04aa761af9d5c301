//! The errors a user can act on: each has a kind that decides the exit code and the JSON
//! error code, a one-line message, and maybe a hint for the next step.
//!
//! The store's errors are typed in `store::Error` and map to a kind there; anything else
//! (IO) travels as `anyhow` with context and exits 1.

use std::fmt;

use crate::exit::Exit;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Bad command-line use, e.g. a missing answer flag.
    Usage,
    /// Input that does not fit: a wrong answer, a malformed file.
    Invalid,
    NotFound,
    Conflict,
    /// A policy does not let this identity make this decision (SPEC §14).
    Forbidden,
    /// A model provider failed.
    Provider,
    /// A Mastra server failed, could not be reached, or refused the token (`--server`).
    Server,
    /// The person interrupted (Ctrl-C, Esc).
    Interrupted,
    /// A deadline passed: the items expired.
    TimedOut,
    /// The store failed: busy, damaged, unsafe, unreachable, full, refused.
    Store,
    /// Reading or writing a file failed.
    Io,
    /// Anything no one expected.
    Internal,
}

impl Kind {
    pub fn exit(self) -> Exit {
        match self {
            Kind::Usage | Kind::Invalid => Exit::Usage,
            Kind::NotFound => Exit::NotFound,
            Kind::Conflict => Exit::Conflict,
            Kind::Forbidden => Exit::Forbidden,
            Kind::Provider | Kind::Server | Kind::Store | Kind::Io | Kind::Internal => {
                Exit::Failure
            }
            Kind::Interrupted => Exit::Interrupted,
            Kind::TimedOut => Exit::TimedOut,
        }
    }

    /// The `code` of a JSON error line.
    pub fn code(self) -> &'static str {
        match self {
            Kind::Usage => "USAGE",
            Kind::Invalid => "INVALID_INPUT",
            Kind::NotFound => "NOT_FOUND",
            Kind::Conflict => "CONFLICT",
            Kind::Forbidden => "FORBIDDEN",
            Kind::Provider => "PROVIDER",
            Kind::Server => "SERVER",
            Kind::Interrupted => "INTERRUPTED",
            Kind::TimedOut => "TIMEOUT",
            Kind::Store => "STORE",
            Kind::Io => "IO",
            Kind::Internal => "INTERNAL",
        }
    }
}

#[derive(Debug)]
pub struct Error {
    pub kind: Kind,
    pub message: String,
    pub hint: Option<String>,
}

impl Error {
    pub fn new(kind: Kind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            hint: None,
        }
    }
    pub fn usage(message: impl Into<String>) -> Error {
        Error::new(Kind::Usage, message)
    }
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::new(Kind::Invalid, message)
    }
    pub fn not_found(message: impl Into<String>) -> Error {
        Error::new(Kind::NotFound, message)
    }
    pub fn conflict(message: impl Into<String>) -> Error {
        Error::new(Kind::Conflict, message)
    }
    pub fn provider(message: impl Into<String>) -> Error {
        Error::new(Kind::Provider, message)
    }
    pub fn with_hint(mut self, hint: impl Into<String>) -> Error {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Shorthand for returning a kinded error from a function that returns `anyhow::Result`.
pub fn fail<T>(e: Error) -> anyhow::Result<T> {
    Err(e.into())
}
