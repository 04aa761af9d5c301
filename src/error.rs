//! The errors a user can act on: each has a kind that decides the exit code and the JSON
//! error code, a one-line message, and maybe a hint for the next step.
//!
//! This is the command error, the one shape every error takes at the boundary (`lib::main`
//! prints it once). Typed errors of the layers below (the store's `store::Error`, a Mastra
//! server's `remote::RemoteError`) offer their kind and hint (`Kinded`) and convert into it
//! with their source kept; anything else (IO) travels as `anyhow` with context and exits 1.

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
    /// The person interrupted (Ctrl-C, Esc), or a waiter got SIGINT.
    Interrupted,
    /// A waiter got SIGHUP (its terminal or job went away).
    HungUp,
    /// A waiter got SIGTERM (a cancelled CI job).
    Terminated,
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
            Kind::HungUp => Exit::HungUp,
            Kind::Terminated => Exit::Terminated,
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
            Kind::HungUp => "HANGUP",
            Kind::Terminated => "TERMINATED",
            Kind::TimedOut => "TIMEOUT",
            Kind::Store => "STORE",
            Kind::Io => "IO",
            Kind::Internal => "INTERNAL",
        }
    }
}

/// What the error came from, kept for its chain.
type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

#[derive(Debug)]
pub struct Error {
    pub kind: Kind,
    pub message: String,
    pub hint: Option<String>,
    source: Option<Source>,
}

impl Error {
    pub fn new(kind: Kind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            hint: None,
            source: None,
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

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// What every typed error of the program offers: the kind that decides its exit code and
/// JSON code, and the next step for a person, if there is one.
pub trait Kinded {
    fn kind(&self) -> Kind;
    /// The next step, its commands written as `program` (`ctx.program()`: with `--db`
    /// where the store is not the default one).
    fn hint(&self, program: &str) -> Option<String>;
}

/// The program's name, where no command line is at hand.
const PROGRAM: &str = "mastra-ask";

impl Kinded for Error {
    fn kind(&self) -> Kind {
        self.kind
    }
    fn hint(&self, _program: &str) -> Option<String> {
        self.hint.clone()
    }
}

/// A store error's kind: what it means to the command that met it.
impl Kinded for crate::store::Error {
    fn kind(&self) -> Kind {
        use crate::store::Error;
        match self {
            Error::NotFound(_) => Kind::NotFound,
            Error::Conflict(_) => Kind::Conflict,
            Error::Usage(_) | Error::Keywords { .. } => Kind::Usage,
            Error::Forbidden(_) => Kind::Forbidden,
            Error::Io { .. } => Kind::Io,
            Error::Busy(_)
            | Error::Timeout(..)
            | Error::Unreachable(_)
            | Error::Lost(_)
            | Error::Tls(_)
            | Error::Privilege(..)
            | Error::NewerSchema { .. }
            | Error::Corrupt(_)
            | Error::Denied(_)
            | Error::Full(_)
            | Error::Unsafe { .. }
            | Error::Damaged { .. }
            | Error::Other(_) => Kind::Store,
        }
    }
    fn hint(&self, program: &str) -> Option<String> {
        crate::store::Error::hint(self, program)
    }
}

/// A Mastra server error's kind, as SPEC §12 gives it when nothing else is known. The caller
/// makes `NoSuspendedRun`/`NotSuspended` a conflict when its ledger or the listing shows the
/// call was resolved.
impl Kinded for crate::remote::RemoteError {
    fn kind(&self) -> Kind {
        use crate::remote::RemoteError;
        match self {
            RemoteError::Config(_) | RemoteError::Mismatch(_) | RemoteError::Invalid { .. } => {
                Kind::Usage
            }
            RemoteError::UnknownAgent { .. }
            | RemoteError::NoSuspendedRun { .. }
            | RemoteError::NotSuspended { .. } => Kind::NotFound,
            RemoteError::Decided { .. } => Kind::Conflict,
            RemoteError::Forbidden { .. } => Kind::Forbidden,
            RemoteError::Transport { .. }
            | RemoteError::Unauthorized { .. }
            | RemoteError::NoRoute { .. }
            | RemoteError::Server { .. }
            | RemoteError::Protocol { .. }
            | RemoteError::Capped { .. } => Kind::Server,
            RemoteError::Stopped { .. } => Kind::Interrupted,
        }
    }
    fn hint(&self, _program: &str) -> Option<String> {
        crate::remote::RemoteError::hint(self)
    }
}

/// `e` as one of the program's typed errors: the one list of them.
fn typed_error<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a dyn Kinded> {
    if let Some(mine) = e.downcast_ref::<Error>() {
        return Some(mine);
    }
    if let Some(store) = e.downcast_ref::<crate::store::Error>() {
        return Some(store);
    }
    e.downcast_ref::<crate::remote::RemoteError>()
        .map(|r| r as &dyn Kinded)
}

/// The first typed error of `e`'s chain, as its kind and its own wording: what a frontend
/// that answers in a protocol of its own (serve's HTTP statuses) maps its refusals from.
pub fn kind_of(e: &anyhow::Error) -> Option<(Kind, String)> {
    e.chain()
        .find_map(|c| typed_error(c).map(|t| (t.kind(), c.to_string())))
}

/// A typed error as the command error: its kind, wording and hint, itself as the source.
fn kinded<E: Kinded + std::error::Error + Send + Sync + 'static>(e: E) -> Error {
    Error {
        kind: e.kind(),
        message: e.to_string(),
        hint: e.hint(PROGRAM),
        source: Some(Box::new(e)),
    }
}

impl From<crate::store::Error> for Error {
    fn from(e: crate::store::Error) -> Error {
        kinded(e)
    }
}

impl From<crate::remote::RemoteError> for Error {
    fn from(e: crate::remote::RemoteError) -> Error {
        kinded(e)
    }
}

/// At the boundary: any error as the command error. Its message is the chain of what went
/// wrong down to the first typed error (whose own causes its message already says), its
/// kind and hint are that error's (an I/O error without one is `Io`, anything else
/// `Internal`), and the whole chain is kept as its source.
impl From<anyhow::Error> for Error {
    fn from(e: anyhow::Error) -> Error {
        Error::at_boundary(e, PROGRAM)
    }
}

impl Error {
    /// `e` as the command error (`From<anyhow::Error>`), its hints' commands written as
    /// `program`.
    pub fn at_boundary(e: anyhow::Error, program: &str) -> Error {
        if e.chain().next().is_some_and(|c| c.is::<Error>()) {
            let mut mine = e.downcast::<Error>().expect("checked above");
            // A typed error converted on its way up: its hint, unless one was put in its
            // place, with the commands as this command line writes them.
            let typed = mine.source.as_deref().and_then(|s| typed_error(s));
            if let Some(t) = typed.filter(|t| t.hint(PROGRAM) == mine.hint) {
                mine.hint = t.hint(program);
            }
            return mine;
        }
        let mut message = Vec::new();
        let mut typed = None;
        for c in e.chain() {
            message.push(c.to_string());
            typed = typed_error(c).map(|t| (t.kind(), t.hint(program)));
            if typed.is_some() {
                break;
            }
        }
        let (kind, hint) = typed.unwrap_or_else(|| {
            let io = e.chain().any(|c| c.is::<std::io::Error>());
            (if io { Kind::Io } else { Kind::Internal }, None)
        });
        Error {
            kind,
            message: message.join(": "),
            hint,
            source: Some(e.into()),
        }
    }
}

/// Shorthand for returning a kinded error from a function that returns `anyhow::Result`.
pub fn fail<T>(e: Error) -> anyhow::Result<T> {
    Err(e.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{self, Conflict};
    use anyhow::Context;
    use std::error::Error as _;

    #[test]
    fn a_command_error_is_taken_as_it_is() {
        let e: Error = anyhow::Error::from(Error::conflict("taken").with_hint("wait")).into();
        assert_eq!((e.kind, e.message.as_str()), (Kind::Conflict, "taken"));
        assert_eq!(e.hint.as_deref(), Some("wait"));
    }

    /// A store error keeps its kind, hint and wording, its context before it, and itself as
    /// the source.
    #[test]
    fn a_store_error_converts_with_its_context_and_source() {
        let refused = store::Error::Conflict(Conflict::Finished {
            run: "r1".into(),
            status: crate::domain::RunStatus::Completed,
        });
        let e: Error = anyhow::Error::from(refused).context("cancelling r1").into();
        assert_eq!(e.kind, Kind::Conflict);
        assert_eq!(e.message, "cancelling r1: run r1 is already completed");
        let source = e.source().expect("kept");
        assert!(source.to_string().contains("cancelling r1"), "{source}");

        let missing = store::Error::NotFound(store::NotFound::Run { run: "r2".into() });
        let e = Error::from(missing);
        assert_eq!(e.kind, Kind::NotFound);
        assert_eq!(e.hint.as_deref(), Some("list runs with: mastra-ask runs"));
        assert!(e.source().is_some_and(|s| s.is::<store::Error>()));
    }

    /// A server's error keeps its kind, hint and wording, its context before it, and itself
    /// as the source.
    #[test]
    fn a_server_error_converts_with_its_kind_and_hint() {
        use crate::remote::{Delivery, RemoteError};
        let refused = RemoteError::Transport {
            server: "http://127.0.0.1:9/api".into(),
            delivery: Delivery::NotSent,
            detail: "connection refused".into(),
        };
        let e: Error = anyhow::Error::from(refused).context("listing").into();
        assert_eq!(e.kind, Kind::Server);
        assert_eq!(
            e.message,
            "listing: http://127.0.0.1:9/api: connection refused (the request did not reach the server)"
        );
        assert_eq!(
            e.hint.as_deref(),
            Some("is the server running, and is the URL right?")
        );
        let stopped = RemoteError::Stopped {
            server: "s".into(),
            delivery: Delivery::Unknown,
        };
        let e = Error::from(stopped);
        assert_eq!(e.kind.exit(), crate::exit::Exit::Interrupted);
        assert!(e.source().is_some_and(|s| s.is::<RemoteError>()));
    }

    #[test]
    fn an_untyped_error_is_io_or_internal() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let e: Error = Err::<(), _>(io).context("writing x").unwrap_err().into();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (Kind::Io, "writing x: denied")
        );
        let e: Error = anyhow::anyhow!("odd").into();
        assert_eq!((e.kind, e.hint), (Kind::Internal, None));
    }
}
