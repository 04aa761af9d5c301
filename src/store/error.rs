//! The store's errors, typed: busy, not found, conflict, a newer schema, a damaged or unsafe
//! store, denied, full, unreachable, a wait past its bound, I/O — each keeping its source.
//!
//! The user-facing wording of every store error lives here, with its hint and its kind (which
//! decides the exit code and the JSON error code). The backends only sort their drivers'
//! errors into these (`sqlite/errors.rs`, `postgres/errors.rs`); nothing here knows rusqlite
//! or postgres types, and nothing outside the store needs to.

use std::fmt;
use std::path::PathBuf;

use super::{LedgerKind, LedgerState};
use crate::domain::review::Verdict;
use crate::domain::{CallState, RunStatus};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An underlying error, kept as the source.
pub type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The database engine an error comes from: the hints differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// What the store was doing when its database failed, what the database said, and the
/// database's own error.
#[derive(Debug)]
pub struct Cause {
    pub engine: Engine,
    /// E.g. "writing to the store"; empty when nothing more precise is known.
    pub doing: String,
    /// The database's message, one line.
    pub detail: String,
    pub source: Option<Source>,
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.doing.is_empty() {
            f.write_str(&self.detail)
        } else {
            write!(f, "{}: {}", self.doing, self.detail)
        }
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// A PostgreSQL wait that has a bound (SPEC §9), named in the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Connecting, the startup and authentication exchange included (`connect_timeout`).
    Connect,
    /// One statement (`statement_timeout`).
    Statement,
    /// A lock another connection holds (`lock_timeout`).
    Lock,
    /// Any answer of a server that fell silent (the read deadline, `statement_timeout` plus
    /// a margin).
    Silence,
}

impl Wait {
    /// The setting that bounds it.
    pub fn setting(self) -> &'static str {
        match self {
            Wait::Connect => "connect_timeout",
            Wait::Statement => "statement_timeout",
            Wait::Lock => "lock_timeout",
            Wait::Silence => "statement_timeout",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotFound {
    #[error("no run {run}")]
    Run { run: String },
    #[error("run {run} has no tool call {call}")]
    Call { run: String, call: String },
    #[error("no reviewer {name}")]
    Reviewer { name: String },
    #[error("no policy {name}")]
    Policy { name: String },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Conflict {
    #[error("reviewer {name} exists already")]
    ReviewerExists { name: String },
    /// The item was resolved, expired or cancelled already (`by` names who resolved it).
    #[error("tool call {call} is not pending: it was {}{}", state.as_str(), by_whom(by))]
    NotPending {
        call: String,
        state: CallState,
        by: Option<String>,
    },
    /// A reviewer decided on this item already (SPEC §14: each decides once).
    #[error("reviewer {by} {} tool call {call} already; each reviewer decides once", verdict.as_str())]
    Decided {
        call: String,
        by: String,
        verdict: Verdict,
    },
    #[error("run {run} is not suspended: it is {}", status.as_str())]
    NotSuspended { run: String, status: RunStatus },
    #[error("run {run} is already {}", status.as_str())]
    Finished { run: String, status: RunStatus },
    #[error("run {run} is not completed (it is {}); reply continues a completed run", status.as_str())]
    NotCompleted { run: String, status: RunStatus },
    /// A server's item that a process sharing this store answered already (SPEC §12).
    #[error("{} {call} of run {run} was already answered by {by} ({})", kind.noun(), match state {
        LedgerState::Delivered => "the server took that answer",
        LedgerState::Sending => "that answer is being sent, or it is unknown whether it arrived",
    })]
    Answered {
        run: String,
        call: String,
        kind: LedgerKind,
        by: String,
        state: LedgerState,
    },
}

fn by_whom(by: &Option<String>) -> String {
    by.as_deref()
        .map(|b| format!(" by {b}"))
        .unwrap_or_default()
}

/// Why a SQLite store file is refused before it is opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsafe {
    #[error("it belongs to another user (uid {owner}), who could read and change every run in it")]
    Owner { owner: u32 },
    #[error(
        "it is writable by group or others (mode {mode:03o}), who could change every run in it"
    )]
    Writable { mode: u32 },
    #[error("it is a symbolic link to {}, which does not exist", target.display())]
    DanglingLink { target: PathBuf },
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    NotFound(#[from] NotFound),
    #[error(transparent)]
    Conflict(#[from] Conflict),
    /// A `--db` value or a setting the store cannot take (exit 2, nothing changed).
    #[error("{0}")]
    Usage(String),
    /// A policy does not let this identity make this decision (SPEC §14): the message says
    /// who may. Nothing changed (exit 77).
    #[error("{0}")]
    Forbidden(String),
    /// A libpq keyword/value string where a `postgres://` URL belongs (its keys, never its
    /// values).
    #[error("the store location (--db or MASTRA_ASK_DB) is a libpq keyword/value string ({}), not a postgres:// URL", keys.join(", "))]
    Keywords { keys: Vec<String> },
    /// SQLite's write lock stayed held past the busy timeout.
    #[error(transparent)]
    Busy(Cause),
    /// A PostgreSQL wait passed its bound.
    #[error("{1}")]
    Timeout(Wait, #[source] Cause),
    /// The PostgreSQL server cannot be reached or refused the login.
    #[error(transparent)]
    Unreachable(Cause),
    /// The connection to the PostgreSQL server broke in the middle of a command.
    #[error(transparent)]
    Lost(Cause),
    /// TLS with the PostgreSQL server failed, or the server wants TLS where none was asked.
    #[error(transparent)]
    Tls(Cause),
    /// The PostgreSQL role lacks a privilege the message names; the hint is the grant.
    #[error("{0}")]
    Privilege(Cause, String),
    #[error("the store at {store} was written by a newer mastra-ask (schema version {found}; this one knows versions up to {known})")]
    NewerSchema {
        store: String,
        found: i64,
        known: i64,
    },
    /// Not a store, or a damaged one.
    #[error(transparent)]
    Corrupt(Cause),
    #[error(transparent)]
    Denied(Cause),
    #[error(transparent)]
    Full(Cause),
    /// A store file that others may change, or a path that leads nowhere.
    #[error("refusing the store at {}: {why}", path.display())]
    Unsafe { path: PathBuf, why: Unsafe },
    /// A row of this run that this program cannot read.
    #[error("run {run} is damaged in the store: {what}")]
    Damaged { run: String, what: String },
    #[error("{doing}: {source}")]
    Io {
        doing: String,
        #[source]
        source: std::io::Error,
    },
    /// Anything else the database reported.
    #[error(transparent)]
    Other(Cause),
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage(message.into())
    }

    pub fn io(doing: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            doing: doing.into(),
            source,
        }
    }

    /// The error with `doing` as its context, unless it has one already.
    pub fn doing(mut self, doing: &str) -> Error {
        let cause = match &mut self {
            Error::Busy(c)
            | Error::Timeout(_, c)
            | Error::Unreachable(c)
            | Error::Lost(c)
            | Error::Tls(c)
            | Error::Privilege(c, _)
            | Error::Corrupt(c)
            | Error::Denied(c)
            | Error::Full(c)
            | Error::Other(c) => c,
            _ => return self,
        };
        if cause.doing.is_empty() {
            cause.doing = doing.to_string();
        }
        self
    }

    /// What a person can do about it.
    pub fn hint(&self, program: &str) -> Option<String> {
        use Engine::{Postgres, Sqlite};
        let hint = match self {
            Error::NotFound(NotFound::Run { .. }) => format!("list runs with: {program} runs"),
            Error::NotFound(NotFound::Reviewer { .. }) => {
                format!("list reviewers with: {program} reviewer list")
            }
            Error::NotFound(NotFound::Policy { .. }) => {
                format!("list policies with: {program} policy list")
            }
            Error::Conflict(Conflict::ReviewerExists { name }) => {
                format!("to give {name} a new token: {program} reviewer rotate {name}")
            }
            Error::Busy(_) => "another process held the store's write lock for longer than the \
                busy timeout (MASTRA_ASK_BUSY_TIMEOUT, 10s by default); try again"
                .into(),
            Error::Timeout(wait, _) => match wait {
                Wait::Connect => {
                    "the server did not answer within connect_timeout (10s by \
                    default); check the server, or raise it in the store URL \
                    (?connect_timeout=SECONDS)"
                }
                Wait::Statement => {
                    "a statement ran past statement_timeout (60s by default); \
                    try again, or raise it in the store URL (?options=-c statement_timeout=120s)"
                }
                Wait::Lock => {
                    "another connection held a lock on the store past lock_timeout \
                    (10s by default); try again, or raise it in the store URL \
                    (?options=-c lock_timeout=30s)"
                }
                Wait::Silence => {
                    "the server, or the network to it, stopped answering for longer than \
                    statement_timeout allows (a stopped server process, a connection dropped \
                    on the way); check the server and try again"
                }
            }
            .into(),
            Error::Tls(c) => tls_hint(&c.detail),
            Error::Keywords { .. } => "write it as a URL, postgres://USER@HOST:PORT/DBNAME \
                (the password in PGPASSWORD or ~/.pgpass); for a file of that name, \
                write ./NAME"
                .into(),
            Error::Privilege(_, grant) => grant.clone(),
            Error::Unreachable(_) => "check the store URL (host, port, user, password in \
                PGPASSWORD) and that the server is up"
                .into(),
            Error::NewerSchema { .. } => "use the newer mastra-ask, or another store (--db)".into(),
            Error::Corrupt(c) if c.engine == Sqlite => "the store file is damaged or not a \
                mastra-ask store; restore it from a backup, or move it aside to start a new one"
                .into(),
            Error::Corrupt(_) => "the schema mastra_ask in this database is not a mastra-ask \
                store; use another database"
                .into(),
            Error::Denied(c) if c.engine == Sqlite => {
                "check that you may read and write the store file and its directory".into()
            }
            Error::Denied(_) => "check the role's privileges on the database and on schema \
                mastra_ask (docs/teams-postgresql.md gives the grants)"
                .into(),
            Error::Full(c) if c.engine == Postgres => {
                "the database server is out of space; ask its administrator".into()
            }
            Error::Full(_) => {
                "check the free space (and any file size limit) where the store is".into()
            }
            Error::Unsafe { path, why } => match why {
                Unsafe::Owner { .. } => "use a store of your own (--db or MASTRA_ASK_DB); \
                    mastra-ask never uses a store another user could have changed"
                    .into(),
                Unsafe::Writable { .. } => format!(
                    "if nobody else changed it, make it private with: chmod go-w {}",
                    path.display()
                ),
                Unsafe::DanglingLink { .. } => {
                    "point --db (or MASTRA_ASK_DB) at a file, or remove the link".into()
                }
            },
            Error::Damaged { .. } => "the other runs are not affected; restore the store from \
                a backup to get this run back"
                .into(),
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => {
                let me = crate::sys::login_name();
                format!(
                    "the user {me} may not write there: have an administrator make the \
                     directory for it (sudo install -d -o {me} -m 0700 DIR), or use another \
                     store (--db or MASTRA_ASK_DB)"
                )
            }
            Error::NotFound(_)
            | Error::Conflict(_)
            | Error::Usage(_)
            | Error::Forbidden(_)
            | Error::Io { .. }
            | Error::Lost(_)
            | Error::Other(_) => return None,
        };
        Some(hint)
    }
}

/// What to do when TLS is what failed, by what failed.
fn tls_hint(detail: &str) -> String {
    let has = |s: &str| detail.contains(s);
    if has("no encryption") {
        "the server takes this connection only over TLS (a hostssl line in pg_hba.conf): use \
         sslmode=require or sslmode=verify-full in the store URL, not sslmode=disable"
            .into()
    } else if has("does not support TLS") {
        "the server does not accept TLS: turn ssl on in the server, or use sslmode=prefer \
         (TLS when the server offers it) in the store URL"
            .into()
    } else if has("not valid for name") || has("NotValidForName") {
        "the server's certificate is not for the host named in the store URL: use a host name \
         the certificate names, or sslmode=verify-ca to check the certificate's CA only"
            .into()
    } else if has("UnknownIssuer") || has("CaUsedAsEndEntity") || has("BadSignature") {
        "the server's certificate is not signed by a CA trusted here: name the CA's \
         certificate with sslrootcert=FILE in the store URL (or SSL_CERT_FILE), or use \
         sslmode=require to encrypt without checking the certificate"
            .into()
    } else {
        "TLS with the server failed: check sslmode and sslrootcert in the store URL".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Kind, Kinded};

    fn cause(engine: Engine, doing: &str) -> Cause {
        Cause {
            engine,
            doing: doing.into(),
            detail: "database is locked".into(),
            source: None,
        }
    }

    #[test]
    fn refusals_have_one_wording_and_a_kind() {
        let e: Error = Conflict::NotPending {
            call: "q".into(),
            state: CallState::Resolved,
            by: Some("ann".into()),
        }
        .into();
        assert_eq!(
            e.to_string(),
            "tool call q is not pending: it was resolved by ann"
        );
        assert_eq!(e.kind(), Kind::Conflict);
        let e: Error = NotFound::Call {
            run: "r".into(),
            call: "q".into(),
        }
        .into();
        assert_eq!(e.to_string(), "run r has no tool call q");
        assert_eq!(e.kind(), Kind::NotFound);
        assert_eq!(Error::usage("bad").kind(), Kind::Usage);
        let e = Error::NewerSchema {
            store: "s.db".into(),
            found: 9,
            known: 2,
        };
        assert_eq!(
            (e.kind(), e.to_string()),
            (
                Kind::Store,
                "the store at s.db was written by a newer mastra-ask (schema version 9; this \
                 one knows versions up to 2)"
                    .into()
            )
        );
    }

    #[test]
    fn a_cause_gets_the_context_it_lacks_and_keeps_the_one_it_has() {
        let e = Error::Busy(cause(Engine::Sqlite, "")).doing("writing to the store");
        assert_eq!(e.to_string(), "writing to the store: database is locked");
        let e = Error::Busy(cause(Engine::Sqlite, "waiting for the store's write lock"))
            .doing("writing to the store");
        assert_eq!(
            e.to_string(),
            "waiting for the store's write lock: database is locked"
        );
        assert!(e
            .hint("mastra-ask")
            .unwrap()
            .contains("MASTRA_ASK_BUSY_TIMEOUT"));
    }

    #[test]
    fn a_store_that_may_not_be_created_says_who_must_make_its_directory() {
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let hint = Error::io("creating the store at /srv/x/ci.db", denied)
            .hint("mastra-ask")
            .unwrap();
        let me = crate::sys::login_name();
        assert!(
            hint.starts_with(&format!("the user {me} may not write there"))
                && hint.contains(&format!("sudo install -d -o {me} -m 0700 DIR")),
            "{hint}"
        );
        let other = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(Error::io("reading", other).hint("mastra-ask"), None);
    }

    #[test]
    fn hints_differ_by_backend_and_name_the_wait() {
        let sqlite = Error::Denied(cause(Engine::Sqlite, ""))
            .hint("mastra-ask")
            .unwrap();
        let pg = Error::Denied(cause(Engine::Postgres, ""))
            .hint("mastra-ask")
            .unwrap();
        assert!(sqlite.contains("store file") && pg.contains("schema mastra_ask"));
        let tls = |detail: &str| {
            Error::Tls(Cause {
                detail: detail.into(),
                ..cause(Engine::Postgres, "")
            })
            .hint("mastra-ask")
            .unwrap()
        };
        assert!(tls("invalid peer certificate: UnknownIssuer").contains("sslrootcert=FILE"));
        assert!(tls("certificate not valid for name \"db\"").contains("verify-ca"));
        assert!(tls("server does not support TLS").contains("turn ssl on"));
        assert!(tls("no pg_hba.conf entry for host, no encryption").contains("hostssl"));
        for (wait, setting) in [
            (Wait::Connect, "connect_timeout"),
            (Wait::Statement, "statement_timeout"),
            (Wait::Lock, "lock_timeout"),
            (Wait::Silence, "statement_timeout"),
        ] {
            let e = Error::Timeout(wait, cause(Engine::Postgres, ""));
            assert_eq!(wait.setting(), setting);
            assert!(e.hint("mastra-ask").unwrap().contains(setting), "{wait:?}");
            assert_eq!(e.kind(), Kind::Store);
        }
    }
}
