//! The run store: the only module that writes SQL.
//!
//! One interface (`Store`), one method per state transition, each one transaction. The
//! SQLite backend is the embedded default; a PostgreSQL backend can sit behind the same
//! trait. Callers never see a connection or a query.

mod location;
mod postgres;
mod sqlite;

use anyhow::Result;
use serde_json::Value;

use crate::domain::{
    CallRecord, CallState, Event, Message, Resolution, RunStatus, StoredEvent, Usage,
};

pub use location::Location;
pub use sqlite::hint_for;

/// Who drives a running run, until when (Unix ms).
#[derive(Clone, Debug, PartialEq)]
pub struct Lease {
    pub token: String,
    /// The driver's host identity (`sys::host_id`).
    pub host: String,
    pub pid: u32,
    /// The driver's process start time (`sys::Process`), 0 when unknown.
    pub start: u64,
    pub expires_at: i64,
}

/// A run as stored (without its messages and events).
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub id: String,
    pub agent_id: String,
    /// The agent definition as it was at `run` (JSON).
    pub agent: Value,
    pub cwd: String,
    /// The host that started the run (`sys::host_id`); only a process there drives it.
    /// Empty for runs stored before hosts were recorded.
    pub host: String,
    pub status: RunStatus,
    pub output: Option<String>,
    pub finish_reason: Option<String>,
    pub error: Option<String>,
    pub usage: Usage,
    pub lease: Option<Lease>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A new run: stored as `running`, driven by `lease`, with the prompt as first message.
pub struct NewRun<'a> {
    pub id: &'a str,
    pub agent_id: &'a str,
    pub agent: &'a Value,
    pub cwd: &'a str,
    pub prompt: &'a str,
    pub lease: &'a Lease,
    pub events: &'a [Event],
    /// Pending items of this run expire this long after they are created.
    pub expires_in_ms: Option<i64>,
}

/// A call of a step that suspends, as the driver hands it to the store.
pub struct NewCall {
    pub call_id: String,
    pub tool_name: String,
    pub args: Value,
    pub state: CallState,
    pub payload: Option<Value>,
    pub result: Option<Value>,
    pub error: Option<Value>,
}

/// Where a step leaves the run.
pub enum Transition {
    Running,
    Suspended,
    Completed {
        output: String,
        finish_reason: String,
    },
    Failed {
        error: String,
    },
}

impl Transition {
    /// The run's `status`, `output`, `finish_reason` and `error` after it.
    pub fn columns(&self) -> (RunStatus, Option<&str>, Option<&str>, Option<&str>) {
        match self {
            Transition::Running => (RunStatus::Running, None, None, None),
            Transition::Suspended => (RunStatus::Suspended, None, None, None),
            Transition::Completed {
                output,
                finish_reason,
            } => (
                RunStatus::Completed,
                Some(output),
                Some(finish_reason),
                None,
            ),
            Transition::Failed { error } => (RunStatus::Failed, None, None, Some(error)),
        }
    }
}

/// Everything one step of the loop stores, in one transaction.
pub struct StepCommit {
    pub messages: Vec<Message>,
    pub calls: Vec<NewCall>,
    pub events: Vec<Event>,
    pub usage: Usage,
    pub transition: Transition,
}

/// A pending item with what a listing shows beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingItem {
    pub call: CallRecord,
    pub agent_id: String,
    /// Pending items of the same run, this one included.
    pub pending_in_run: usize,
}

/// Messages and events a step's results add to the run when its last item is resolved.
pub struct StepResults {
    pub messages: Vec<Message>,
    pub events: Vec<Event>,
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
}

/// Which runs `list_runs` returns.
pub struct RunFilter {
    pub status: Option<RunStatus>,
    pub limit: usize,
}

/// The store interface shared by every backend.
pub trait Store: Send {
    fn create_run(&self, run: &NewRun) -> Result<Vec<StoredEvent>>;
    fn run(&self, id: &str) -> Result<Option<Run>>;
    /// Ids of runs starting with `prefix`, at most `limit`.
    fn run_ids_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<String>>;
    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>>;
    fn messages(&self, run_id: &str) -> Result<Vec<Message>>;
    fn events(&self, run_id: &str) -> Result<Vec<StoredEvent>>;
    /// The calls of the run's suspended steps, in order.
    fn calls(&self, run_id: &str) -> Result<Vec<CallRecord>>;
    /// Pending items, oldest first.
    fn pending(&self, run_id: Option<&str>) -> Result<Vec<PendingItem>>;

    /// Stores one step of a run driven under `lease`. `None` when the lease is no longer
    /// held (the run was cancelled or taken over): nothing is stored and the driver stops.
    fn commit_step(
        &self,
        run_id: &str,
        lease: &Lease,
        step: &StepCommit,
    ) -> Result<Option<Vec<StoredEvent>>>;
    /// Extends the lease; false when it is no longer held.
    fn renew_lease(&self, run_id: &str, lease: &Lease) -> Result<bool>;
    /// Gives the run to `lease` if it is still in `status` with the lease token `expected`
    /// (compare and swap), and sets it running.
    fn take_lease(
        &self,
        run_id: &str,
        status: RunStatus,
        expected: Option<&str>,
        lease: &Lease,
    ) -> Result<bool>;
    /// Resolves one pending item exactly once. When it is the last of its step, `results`
    /// builds the step's results from its calls, which are appended in the same transaction
    /// that sets the run running under `driver` — or with no lease when `driver` is `None`
    /// or a live waiter (a heartbeat within `LEASE_MS`) will drive it.
    fn resolve(
        &self,
        run_id: &str,
        call_id: &str,
        resolution: &Resolution,
        driver: Option<&Lease>,
        results: &dyn Fn(&[CallRecord]) -> StepResults,
    ) -> Result<Resolved>;
    /// Cancels a run that is not finished; its pending items are closed. Returns the status
    /// it had.
    fn cancel(&self, run_id: &str) -> Result<RunStatus>;

    /// Closes every pending item whose deadline passed as expired and fails its run (finish
    /// reason `expired`). Returns how many runs it failed.
    fn expire_due(&self, now: i64) -> Result<usize>;
    /// Closes a suspended run's pending items as expired and fails it with `error`.
    /// False when the run was not suspended.
    fn expire_run(&self, run_id: &str, error: &str) -> Result<bool>;

    /// Whether a live waiter (a heartbeat within `LEASE_MS`) will drive the run.
    fn has_waiter(&self, run_id: &str) -> Result<bool>;
    /// Registers a process that waits for the run and drives it after answers.
    fn add_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()>;
    fn beat_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()>;
    fn remove_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()>;

    /// Adds the user's next message to a completed run and sets it running under `lease`.
    fn reply(&self, run_id: &str, message: &str, lease: &Lease) -> Result<()>;
    /// Blocks until something may have changed, or `timeout` passed. PostgreSQL wakes at
    /// once through LISTEN/NOTIFY; SQLite just sleeps (callers poll).
    fn wait_for_change(&self, run_id: &str, timeout: std::time::Duration) -> Result<()>;
    /// Deletes finished runs last updated before `before` (Unix ms) whose status is one of
    /// `statuses`; returns how many.
    fn prune(&self, before: i64, statuses: &[RunStatus]) -> Result<usize>;
}

/// The `finish_reason` of a run failed because its input expired.
pub const EXPIRED: &str = "expired";

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
    match location {
        Location::Sqlite(path) => {
            Ok(sqlite::SqliteStore::open(path, access)?.map(|s| Box::new(s) as Box<dyn Store>))
        }
        Location::Postgres(url) => {
            Ok(postgres::PgStore::open(url, access)?.map(|s| Box::new(s) as Box<dyn Store>))
        }
    }
}

/// Current time in Unix milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A lease lasts this long without renewal.
pub const LEASE_MS: i64 = 10_000;
/// The driver renews its lease this often.
pub const RENEW_MS: u64 = 2_000;

/// `url` without its password, for messages and printed commands.
pub use postgres::redact;
