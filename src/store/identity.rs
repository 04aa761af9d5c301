//! Who decides, as the store can check it (SPEC §14), in one place: through `serve`, the
//! reviewer it signed in; a local command on SQLite, the reviewer whose `--os-user` is the
//! effective uid's user name (never `$USER`); on PostgreSQL, the reviewer whose `--pg-role`
//! is the session's role, asked of the server in the transaction that decides. An identity
//! that maps to no reviewer is still recorded, as what it is (an OS user, a role).
//!
//! A name typed with `--as` is a claim and never reaches this module. No SQL here.

use super::backend::Tx;
use super::error::{Error, Result};
use crate::domain::review::{Checked, CheckedAs};

/// Who is deciding (or starting a run), before the store checks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Identity {
    /// A local command, run by this OS user (the effective uid's name). On PostgreSQL the
    /// session's role counts instead: the server cannot see the client's users.
    Local { os_user: String },
    /// A reviewer `serve` signed in (by token, link or session). On PostgreSQL only a role
    /// the store trusts to sign reviewers in (its owner, a `store grant --serve` role) may
    /// decide as one; the store's functions check.
    Reviewer(String),
}

impl Identity {
    /// This process's user.
    pub fn local() -> Identity {
        Identity::Local {
            os_user: crate::sys::effective_user(),
        }
    }

    /// Who makes `resolution`: through `serve` (`via` web or api) the reviewer it signed
    /// in, whose name is `by`; otherwise this process's user.
    pub fn of(resolution: &crate::domain::Resolution) -> Identity {
        use crate::domain::Via;
        match resolution.via {
            Via::Web | Via::Api => Identity::Reviewer(resolution.by.clone()),
            _ => Identity::local(),
        }
    }
}

/// `who` as the store checks it in this transaction: the reviewer it maps to, or what it
/// is when it maps to none. A reviewer named by `serve` must be an active one.
pub(super) fn check(tx: &mut dyn Tx, who: &Identity) -> Result<Checked> {
    let reviewer = |name: String| Checked {
        name,
        kind: CheckedAs::Reviewer,
    };
    match who {
        Identity::Reviewer(name) => {
            if tx.policies().member(name)?.is_none() {
                return Err(Error::Forbidden(format!(
                    "{name} is no reviewer of this store (removed, or never added)"
                )));
            }
            Ok(reviewer(name.clone()))
        }
        Identity::Local { os_user } => {
            if let Some(checked) = session(tx)? {
                return Ok(checked);
            }
            Ok(match tx.policies().mapped(Some(os_user), None)? {
                Some(name) => reviewer(name),
                None => Checked {
                    name: os_user.clone(),
                    kind: CheckedAs::OsUser,
                },
            })
        }
    }
}

/// A local command as the store checks it where it checks the session itself (PostgreSQL):
/// the reviewer mapped to the session's role, else the role. `None` where it checks the OS
/// user a command names (SQLite).
pub(super) fn session(tx: &mut dyn Tx) -> Result<Option<Checked>> {
    Ok(tx.policies().session()?.map(|(role, mapped)| match mapped {
        Some(name) => Checked {
            name,
            kind: CheckedAs::Reviewer,
        },
        None => Checked {
            name: role,
            kind: CheckedAs::PgRole,
        },
    }))
}
