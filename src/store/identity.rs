//! Who decides, as the store can check it (SPEC §14), in one place: through `serve`, the
//! reviewer it signed in; a local command on SQLite, the reviewer whose `--os-user` is the
//! effective uid's user name (never `$USER`); on PostgreSQL, the reviewer whose `--pg-role`
//! is the session's role, asked of the server in the transaction that decides. An identity
//! that maps to no reviewer is still recorded, as what it is (an OS user, a role).
//!
//! A name typed with `--as` is a claim and never reaches this module. No SQL here.

use super::backend::Tx;
use super::error::{Error, Result};
use crate::domain::review::{Checked, CheckedAs, RunGate};

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
}

/// Who decides, as a frontend names them: the identity the store checks, and the name the
/// decision is shown by. Every frontend that records a decision builds one (a command at
/// this machine, a reviewer serve signed in, and every channel after them); nothing infers
/// it from the channel an answer came through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Who {
    pub identity: Identity,
    /// The name shown with the decision: a reviewer's name, or at a terminal `--as` (a
    /// claim, recorded apart from the identity), `MASTRA_ASK_USER` or the login name.
    pub by: String,
}

impl Who {
    /// A command at this machine, by this process's user; shown as `claim` (`--as`), else
    /// `MASTRA_ASK_USER`, else the login name.
    pub fn this_process(claim: Option<String>) -> Who {
        let by = claim
            .filter(|s| !s.trim().is_empty())
            .or_else(|| {
                std::env::var("MASTRA_ASK_USER")
                    .ok()
                    .filter(|s| !s.is_empty())
            })
            .unwrap_or_else(crate::sys::login_name);
        Who {
            identity: Identity::local(),
            by,
        }
    }

    /// A reviewer a frontend signed in (by token, link, session or a one-tap secret).
    pub fn reviewer(name: &str) -> Who {
        Who {
            identity: Identity::Reviewer(name.to_string()),
            by: name.to_string(),
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

/// Refuses (`Forbidden`) `me` going on with run `run_id`, which `gate` says someone else
/// started (an agent's session that another user's process names: SPEC §15).
pub fn same_starter(run_id: &str, gate: &RunGate, me: &Checked) -> Result<()> {
    match &gate.started_by {
        Some(s) if s.name == me.name && s.kind == me.kind => Ok(()),
        other => Err(Error::Forbidden(format!(
            "run {run_id} was started by {}, not by {me}",
            other
                .as_ref()
                .map_or("someone unknown".into(), ToString::to_string)
        ))),
    }
}

/// Refuses (`Forbidden`) a decision made from inside Claude Code (SPEC §15): a process
/// with `CLAUDECODE=1` in its environment (Claude Code's tools run so), or whose
/// `CLAUDE_CODE_SESSION_ID` names the run decided on. The agent is never its own reviewer,
/// whatever the policy.
pub fn not_inside_agent(run_id: &str) -> Result<()> {
    let inside = std::env::var("CLAUDECODE").is_ok_and(|v| v == "1")
        || std::env::var("CLAUDE_CODE_SESSION_ID").is_ok_and(|s| s == run_id);
    if inside {
        return Err(Error::Forbidden(format!(
            "a decision on run {run_id} cannot be made from inside Claude Code (CLAUDECODE or CLAUDE_CODE_SESSION_ID is set): a person decides it from another shell, or in serve"
        )));
    }
    Ok(())
}
