//! The run store: the only module that writes SQL.
//!
//! One interface (`Store`), one method per state transition, each one transaction. The
//! transitions are written once (`transitions.rs`) over what each backend provides
//! (`backend.rs`): SQLite, the embedded default, and PostgreSQL, for teams whose runners and
//! reviewers are on different machines. Callers never see a connection or a query; errors
//! are typed (`error.rs`).

mod backend;
mod columns;
mod damage;
mod error;
mod identity;
mod lease;
mod ledger;
mod location;
mod policy;
mod postgres;
mod redact;
mod reviewers;
pub mod secret;
mod sqlite;
mod transitions;

use std::time::Duration;

use serde_json::Value;

use crate::domain::review::{DecisionRecord, OnExpiry, PolicySpec, RunGate};
use crate::domain::{CallRecord, Event, RunStatus, StoredEvent, Usage};

pub use backend::{
    Backend, Batch, CallHead, Durability, Origin, Outcome, RunInsert, RunRow, Tx, Work,
};
pub use error::{Cause, Conflict, Engine, Error, NotFound, Result, Unsafe, Wait};
pub use identity::{same_starter, Identity, Who};
pub use lease::{holder_alive, holder_alive_with, Lease};
pub use ledger::{LedgerEntry, LedgerFilter, LedgerKey, LedgerKind, LedgerState};
pub use location::Location;
pub use policy::{NamedPolicy, Policies};
pub use redact::{pasteable, redact};
pub use reviewers::{
    check_name, NewReviewer, NewTap, PublicUrl, Reviewer, Reviewers, TapRow, LINK_MS,
    SESSION_IDLE_MS, SESSION_MAX_MS, TAP_MS,
};
pub use transitions::{Decide, Store, EXPIRED};

/// A run as stored (without its messages and events).
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub id: String,
    pub agent_id: String,
    /// The agent definition as it was at `run` (JSON).
    pub agent: Value,
    pub cwd: String,
    /// The host the run belongs to (`sys::host_id` of the process that created it); `None`
    /// for runs stored before hosts were recorded.
    pub host: Option<String>,
    /// The effective uid of the process that created it; `None` for runs stored before
    /// users were recorded.
    pub os_uid: Option<u32>,
    pub status: RunStatus,
    pub output: Option<String>,
    pub finish_reason: Option<String>,
    pub error: Option<String>,
    pub usage: Usage,
    pub lease: Option<Lease>,
    pub created_at: i64,
    pub updated_at: i64,
    /// Who may answer it and who started it (SPEC §14).
    pub gate: RunGate,
}

/// What drives a run's legs (SPEC §5.1, §15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrivenBy {
    /// Our loop, calling the agent's model (or nothing: a one-step run).
    Loop,
    /// `claude -p`, which a process here starts and hosts (a Claude Code agent's run).
    ClaudeCode,
    /// Nobody here: a Claude Code session that reached `hook claude-code`, recorded here
    /// and continued by `claude -p --resume` on its host.
    Nobody,
}

impl Run {
    /// What drives its legs.
    pub fn driven_by(&self) -> DrivenBy {
        if self.agent.get("claudeCode").is_some() {
            DrivenBy::ClaudeCode
        } else if self.agent_id == crate::domain::CLAUDE_CODE
            && self.agent["model"] == crate::providers::NO_MODEL
        {
            DrivenBy::Nobody
        } else {
            DrivenBy::Loop
        }
    }
}

#[cfg(test)]
impl Run {
    /// A suspended run `r` of agent `a` with nothing in it, for unit tests to change with
    /// `Run { field, ..Run::sample() }`.
    pub fn sample() -> Run {
        Run {
            id: "r".into(),
            agent_id: "a".into(),
            agent: Value::Null,
            cwd: "/".into(),
            host: None,
            os_uid: None,
            status: RunStatus::Suspended,
            output: None,
            finish_reason: None,
            error: None,
            usage: Default::default(),
            lease: None,
            created_at: 0,
            updated_at: 0,
            gate: Default::default(),
        }
    }
}

/// Who may answer a new run's items and who starts it (SPEC §14): what `create_run`
/// resolves (names and groups to members, at this moment) and stores with the run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReview {
    pub policy: PolicySpec,
    pub starter: Identity,
    pub on_expiry: OnExpiry,
    /// Items escalate this long after they are created (`--escalate-after`).
    pub escalate_after: Option<Duration>,
}

impl RunReview {
    /// A run started by this process's user under `policy`, failing at its deadline.
    pub fn local(policy: PolicySpec) -> RunReview {
        RunReview {
            policy,
            starter: Identity::local(),
            on_expiry: OnExpiry::Fail,
            escalate_after: None,
        }
    }
}

/// A new run: stored as `running`, driven by `lease` (whose host becomes the run's), with
/// the prompt as first message.
pub struct NewRun<'a> {
    pub id: &'a str,
    pub agent_id: &'a str,
    pub agent: &'a Value,
    pub cwd: &'a str,
    pub prompt: &'a str,
    pub lease: &'a Lease,
    /// A waiter (`--wait`) registered in the same transaction.
    pub waiter: Option<&'a Lease>,
    pub events: &'a [Event],
    /// Pending items of this run expire this long after they are created.
    pub expires_in: Option<Duration>,
    /// Who may answer it (SPEC §14).
    pub review: &'a RunReview,
}

/// A pending item with what a listing shows beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingItem {
    pub call: CallRecord,
    pub agent_id: String,
    /// Pending items of the same run, this one included.
    pub pending_in_run: usize,
    /// Its page in the inbox, once `serve --public-url` recorded the inbox's address.
    pub url: Option<String>,
    /// Whether its run is under a policy (SPEC §14): only then is the run read for its gate.
    pub gated: bool,
}

/// What resolving an item did.
#[derive(Debug, PartialEq)]
pub enum Resolved {
    /// Recorded; other items of the step still wait.
    Recorded { still_pending: usize },
    /// The last item: the results were appended and the run is `running` again, driven by
    /// the lease given (`driving`), or free for a live waiter or `resume` to take.
    Resumed {
        events: Vec<StoredEvent>,
        driving: bool,
    },
    /// The last item of a one-step run (`Store::decide_ending`): the results and its last
    /// step were stored and the run ended in the same transaction; `waiter`: a live waiter
    /// watches it (and tells its end).
    Ended {
        events: Vec<StoredEvent>,
        waiter: bool,
    },
    /// Under a policy (SPEC §14): the decision was recorded, and the item waits for
    /// `needed` more approvals (of the same arguments); `decisions` are its decisions so far.
    Partial {
        needed: u32,
        decisions: Vec<DecisionRecord>,
    },
}

/// What `store grant` gives a PostgreSQL role (SPEC §14).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub role: String,
    /// The inbox's rights besides a runner's: sessions, sign-in links, settings, and
    /// deciding as the reviewer it signed in.
    pub serve: bool,
}

/// Which runs `list_runs` returns.
pub struct RunFilter {
    pub status: Option<RunStatus>,
    pub limit: usize,
}

/// Whether a command may create the store when there is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Create,
    /// Read-only commands and commands on existing runs: no store means nothing to find.
    Existing,
}

/// Opens the store at `location`. `Ok(None)` when it does not exist and `access` is
/// `Existing`.
pub fn open(location: &Location, access: Access) -> Result<Option<Box<dyn Store>>> {
    Ok(match location {
        Location::Sqlite(path) => {
            sqlite::SqliteStore::open(path, access)?.map(|s| Box::new(s) as Box<dyn Store>)
        }
        Location::Postgres(url) => {
            postgres::PgStore::open(url, access)?.map(|s| Box::new(s) as Box<dyn Store>)
        }
    })
}

/// Current time in Unix milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_millis()).ok())
        .unwrap_or(0)
}

/// A lease lasts this long without renewal.
pub const LEASE_MS: i64 = 10_000;
/// The driver renews its lease this often.
pub const RENEW_MS: u64 = 2_000;
