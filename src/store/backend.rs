//! What a backend provides: one write transaction at a time, seen row by row (`Tx`), and
//! the reads (`Backend`). The transitions (`transitions.rs`) are written once over these.
//!
//! A backend keeps its SQL (but for what both run as written: `migrations`, `statements`),
//! its connection, its locking (`BEGIN IMMEDIATE`, `FOR UPDATE`), its notifications and its
//! encoding. It never decides a transition: no status check, no lease rule and no
//! user-facing wording belongs in an implementation of these traits.

use std::time::Duration;

use super::error::{Error, Result};
use super::reviewers::{ReviewerRow, SessionRow};
use super::{Lease, LedgerEntry, LedgerFilter, LedgerKey, NewRun, Run, RunFilter};
use serde_json::Value;

use crate::domain::review::{Checked, DecisionRecord, OnExpiry, Policy, RunGate};
use crate::domain::{
    CallRecord, CallState, Event, ItemKind, Message, NewCall, Resolution, RunStatus, StartedCall,
    StoredEvent, ToolProcess, Usage,
};

/// How a transaction reaches the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// On disk (`fsync`) before the commit returns: every person's decision, and every
    /// state a command reports (the end of a leg).
    Durable,
    /// Handed to the operating system at commit (PostgreSQL: to the server, with
    /// `synchronous_commit = off` for that transaction): safe from a crashed process, not
    /// from a power cut (nor, on PostgreSQL, from a crash of the server). For the start
    /// and the middle of a leg and for liveness data; the log is
    /// written in order, so the leg's durable end makes them durable too, and a leg cut
    /// short is what `resume` redoes anyway. And for how a Mastra server's leg ended (the
    /// ledger's settle): the server keeps that; the ledger's durable fact is the claim.
    Deferred,
}

/// A run's row as the transitions read and write it, locked until the transaction ends.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRow {
    /// The backend's handle of the row: SQLite's integer key. PostgreSQL names rows by
    /// their id and leaves it 0.
    pub key: i64,
    pub id: String,
    pub status: RunStatus,
    /// Who drives it, when it runs.
    pub lease: Option<Lease>,
    pub usage: Usage,
    pub outcome: Outcome,
    /// Pending items of this run expire this long after they are created.
    pub expires_in_ms: Option<i64>,
    pub updated_at: i64,
    /// Who may answer it (SPEC §14), read with the row: never changed after the run's
    /// start. What is wrong with it when it does not read, which only the transitions that
    /// need it refuse (`gate()`).
    pub gate: std::result::Result<RunGate, String>,
}

impl RunRow {
    /// `run` as this row (written by the transaction that returned it) says it is now.
    pub fn update(&self, run: &mut Run) {
        run.status = self.status;
        run.output.clone_from(&self.outcome.output);
        run.finish_reason.clone_from(&self.outcome.finish_reason);
        run.error.clone_from(&self.outcome.error);
        run.usage = self.usage;
        run.lease.clone_from(&self.lease);
        run.updated_at = self.updated_at;
    }

    /// What the run keeps about who may answer it; a gate that does not read is damage.
    pub fn gate(&self) -> Result<&RunGate> {
        self.gate.as_ref().map_err(|what| Error::Damaged {
            run: self.id.clone(),
            what: what.clone(),
        })
    }
}

/// What a run came to: its output and finish reason when it completed, its error when it
/// failed (or `expired`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub output: Option<String>,
    pub finish_reason: Option<String>,
    pub error: Option<String>,
}

/// A new run's row: `running`, driven by `lease`, on the host of its creator
/// (`new.lease.host`).
pub struct RunInsert<'a> {
    pub new: &'a NewRun<'a>,
    /// The creator's lease, valid from `at`.
    pub lease: &'a Lease,
    pub expires_in_ms: Option<i64>,
    pub at: i64,
    /// The effective uid of the process that creates it.
    pub os_uid: u32,
    /// Who may answer it (SPEC §14), resolved at start; `None` without a policy.
    pub policy: Option<&'a Policy>,
    /// Who starts it, as the store checked it.
    pub started_by: &'a Checked,
    pub on_expiry: OnExpiry,
    pub escalate_after_ms: Option<i64>,
}

/// A resolution as the store records it: the person's, the identity the store checked, and
/// for an approval what it approved (SPEC §14.1).
#[derive(Clone, Copy, Debug)]
pub struct Resolving<'a> {
    pub resolution: &'a Resolution,
    pub checked: &'a Checked,
    /// The arguments approved in place of the model's (approve with changes).
    pub approved_args: Option<&'a Value>,
    /// The digest of the arguments approved.
    pub digest: Option<&'a str>,
    /// The name typed with `--as`, if one was: a claim, which PostgreSQL keeps apart where
    /// it records who the session is instead (SQLite records `resolution.by` as given).
    pub claim: Option<&'a str>,
}

/// What the transitions need to know of one call.
#[derive(Clone, Debug, PartialEq)]
pub struct CallHead {
    pub state: CallState,
    /// The sequence number of the assistant message that made the call.
    pub step: i64,
    pub resolved_by: Option<String>,
    pub kind: Option<ItemKind>,
    pub tool_name: String,
    pub args: Value,
}

/// What appended rows are. SQLite's compact encoding stores references to what the run
/// holds already, and needs to know where to look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The run's prompt, when it is created.
    Prompt,
    /// One step of the loop: its assistant message (and tool results), calls and events.
    Step,
    /// The results of the step whose assistant message has this sequence number.
    Results { step: i64 },
    /// The user's next message (`reply`).
    Reply,
}

/// Rows one transition appends to a run; sequence numbers follow the run's last ones.
pub struct Batch<'a> {
    pub origin: Origin,
    pub messages: &'a [Message],
    pub calls: &'a [NewCall],
    /// When the pending calls among `calls` expire (Unix ms), if the run has deadlines.
    pub deadline: Option<i64>,
    pub events: &'a [Event],
    pub at: i64,
}

/// The row-level operations of one write transaction.
pub trait Tx {
    /// The run's row, locked until the transaction ends (SQLite holds the whole store's
    /// write lock already; PostgreSQL locks the row).
    fn lock_run(&mut self, run_id: &str) -> Result<Option<RunRow>>;
    /// Inserts a new run; its key (`RunRow::key`).
    fn insert_run(&mut self, run: &RunInsert) -> Result<i64>;
    /// Writes the row's status, output, finish reason, error, usage, lease and update time.
    fn save_run(&mut self, run: &RunRow) -> Result<()>;
    fn call(&mut self, run: &RunRow, call_id: &str) -> Result<Option<CallHead>>;
    /// The run's row, locked, and then its call `call_id` (PostgreSQL: in one flight).
    fn lock_run_with_call(
        &mut self,
        run_id: &str,
        call_id: &str,
    ) -> Result<Option<(RunRow, Option<CallHead>)>> {
        let Some(run) = self.lock_run(run_id)? else {
            return Ok(None);
        };
        let call = self.call(&run, call_id)?;
        Ok(Some((run, call)))
    }
    /// Records the decision that resolves a pending call, at the run's `updated_at`
    /// (PostgreSQL: through `mastra_ask.resolve_item`, which refuses a resolution its policy
    /// does not back).
    fn resolve_call(&mut self, run: &RunRow, call_id: &str, by: &Resolving) -> Result<()>;
    /// Records where an approved call's tool runs.
    fn set_tool_process(&mut self, run: &RunRow, call_id: &str, at: &ToolProcess) -> Result<()>;
    /// Records a command tool started for a step not yet stored (a `running` call), in
    /// place of one of the same call id recorded before.
    fn insert_running(&mut self, run: &RunRow, call: &StartedCall, at: i64) -> Result<()>;
    /// Removes the run's `running` calls (their step is being stored).
    fn clear_running(&mut self, run: &RunRow) -> Result<()>;
    /// Records what an approved call's tool gave: its result, and the error when it failed.
    fn set_tool_result(&mut self, run: &RunRow, call_id: &str, out: ToolOutput) -> Result<()>;
    /// How many messages the run has (its next message's sequence number).
    fn message_count(&mut self, run: &RunRow) -> Result<i64>;
    /// The calls of one step, in call order.
    fn step_calls(&mut self, run: &RunRow, step: i64) -> Result<Vec<CallRecord>>;
    /// The calls of one step and, when none of them is pending, the run's registered
    /// waiters (`waiters`): what follows a resolution. PostgreSQL reads both in one flight
    /// (the waiters whatever the calls are).
    fn step_calls_and_waiters(
        &mut self,
        run: &RunRow,
        step: i64,
    ) -> Result<(Vec<CallRecord>, Vec<Lease>)> {
        let calls = self.step_calls(run, step)?;
        let waiters = match calls.iter().any(|c| c.state == CallState::Pending) {
            true => Vec::new(),
            false => self.waiters(run)?,
        };
        Ok((calls, waiters))
    }
    /// Closes the run's pending calls as `state`.
    fn close_pending(&mut self, run: &RunRow, state: CallState, at: i64) -> Result<()>;
    fn append(&mut self, run: &RunRow, batch: &Batch) -> Result<Vec<StoredEvent>>;
    /// The run's registered waiters; `expires_at` is their last heartbeat plus `LEASE_MS`.
    fn waiters(&mut self, run: &RunRow) -> Result<Vec<Lease>>;
    /// Registers a waiter (or registers it again) with a heartbeat at `at`.
    fn put_waiter(&mut self, run: &RunRow, waiter: &Lease, at: i64) -> Result<()>;
    /// A heartbeat of a registered waiter; nothing when it is not registered.
    fn beat_waiter(&mut self, run: &RunRow, token: &str, at: i64) -> Result<()>;
    fn remove_waiter(&mut self, run: &RunRow, token: &str) -> Result<()>;
    /// Ids of the runs with a pending call whose deadline is `now` or earlier.
    fn due_runs(&mut self, now: i64) -> Result<Vec<String>>;
    /// Tells listeners that the run changed (PostgreSQL's NOTIFY; nothing for SQLite).
    fn notify(&mut self, run: &RunRow) -> Result<()>;
    /// The ledger's entry for `key`, locked until the transaction ends.
    fn ledger_entry(&mut self, key: &LedgerKey) -> Result<Option<LedgerEntry>>;
    /// Inserts an entry unless one with its key exists (committed by another transaction
    /// meanwhile included); whether it was inserted.
    fn insert_ledger(&mut self, entry: &LedgerEntry) -> Result<bool>;
    /// Writes an entry's state, outcome and update time.
    fn save_ledger(&mut self, entry: &LedgerEntry) -> Result<()>;
    fn delete_ledger(&mut self, key: &LedgerKey) -> Result<()>;
    /// The entries of one run of one server, oldest first.
    fn ledger_of_run(&mut self, server: &str, run_id: &str) -> Result<Vec<LedgerEntry>>;
    /// The entries `filter` picks, oldest first.
    fn ledger_matching(&mut self, filter: &LedgerFilter) -> Result<Vec<LedgerEntry>>;
    /// The row operations on reviewers, sessions, links and settings (`reviewers.rs`).
    fn reviewers(&mut self) -> &mut dyn super::reviewers::ReviewerTx;
    /// The row operations on policies and decisions (`policy.rs`).
    fn policies(&mut self) -> &mut dyn super::policy::PolicyTx;
}

/// A backend's list of migrations: its first (its own tables), then those both backends
/// share (2 to 8, `migrations`), then its own from 9 on.
macro_rules! migrations_list {
    ($first:expr; $($later:expr),* $(,)?) => {
        &[
            $first,
            crate::store::backend::migrations::HOSTS_AND_STARTS,
            crate::store::backend::migrations::RUNS_BY_CREATION,
            crate::store::backend::migrations::ITEM_KINDS_AND_TOOL_PROCESSES,
            crate::store::backend::migrations::LEDGER,
            crate::store::backend::migrations::REVIEWERS,
            crate::store::backend::migrations::RUN_USERS,
            crate::store::backend::migrations::LEDGER_STARTS,
            $($later),*
        ]
    };
}
pub(crate) use migrations_list;

/// Migrations whose SQL is the same for both backends (SQLite reads `BIGINT` as an
/// integer), in the place each takes in both lists (`migrations_list`).
pub mod migrations {
    /// 2: who a run belongs to (`runs.host`), and the process start times of drivers and
    /// waiters (pids are reused).
    pub const HOSTS_AND_STARTS: &str = "
ALTER TABLE runs ADD COLUMN host TEXT;
ALTER TABLE runs ADD COLUMN lease_start BIGINT;
ALTER TABLE waiters ADD COLUMN start BIGINT NOT NULL DEFAULT 0;
";
    /// 3: runs are listed newest first by their creation time, never by id (run ids are
    /// random, SPEC §1).
    /// (The index by status is ordered by creation too, in place of by id: one index
    /// kept up to date on every change of status, as before.)
    pub const RUNS_BY_CREATION: &str = "
CREATE INDEX runs_by_creation ON runs (created_at);
DROP INDEX runs_by_status;
CREATE INDEX runs_by_status ON runs (status, created_at);
";
    /// 4: approvals and the agent's own tools (SPEC §11): what kind of item a call is,
    /// stored (the items stored before were questions and plans, told apart by their tool),
    /// and where an approved tool runs, so that a later driver finds it.
    pub const ITEM_KINDS_AND_TOOL_PROCESSES: &str = "
ALTER TABLE calls ADD COLUMN kind TEXT;
UPDATE calls SET kind = CASE tool_name WHEN 'ask_user' THEN 'question' ELSE 'plan' END
    WHERE state <> 'done';
ALTER TABLE calls ADD COLUMN tool_pgid BIGINT;
ALTER TABLE calls ADD COLUMN tool_start BIGINT;
ALTER TABLE calls ADD COLUMN tool_host TEXT;
ALTER TABLE calls ADD COLUMN tool_started_at BIGINT;
";
    /// 5: the ledger of answers sent to Mastra servers (SPEC §12), one row per (server,
    /// run, tool call, kind).
    pub const LEDGER: &str = "
CREATE TABLE ledger (
    run_id TEXT NOT NULL,
    server TEXT NOT NULL,
    tool_call_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    state TEXT NOT NULL,
    resume_data TEXT NOT NULL,
    resolved_by TEXT NOT NULL,
    resolved_via TEXT NOT NULL,
    token TEXT NOT NULL,
    host TEXT NOT NULL,
    pid BIGINT NOT NULL,
    start BIGINT NOT NULL,
    outcome TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (server, run_id, tool_call_id, kind)
);
";
    /// 6: the reviewers' inbox (SPEC §13): reviewers (their tokens as hashes), sessions and
    /// single-use sign-in links (hashed too), and the inbox's settings (its public URL).
    /// An OS user or PostgreSQL role maps to one active reviewer at most (§14).
    pub const REVIEWERS: &str = "
CREATE TABLE reviewers (
    name TEXT PRIMARY KEY,
    groups TEXT NOT NULL,
    os_user TEXT,
    pg_role TEXT,
    token_hash TEXT,
    created_at BIGINT NOT NULL,
    rotated_at BIGINT,
    removed_at BIGINT
);
CREATE UNIQUE INDEX reviewers_by_token ON reviewers (token_hash);
CREATE UNIQUE INDEX reviewers_by_os_user ON reviewers (os_user) WHERE removed_at IS NULL;
CREATE UNIQUE INDEX reviewers_by_pg_role ON reviewers (pg_role) WHERE removed_at IS NULL;
CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,
    reviewer TEXT NOT NULL REFERENCES reviewers (name) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL
);
CREATE INDEX sessions_by_reviewer ON sessions (reviewer);
CREATE TABLE sign_in_links (
    secret_hash TEXT PRIMARY KEY,
    reviewer TEXT NOT NULL REFERENCES reviewers (name) ON DELETE CASCADE,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    created_at BIGINT NOT NULL
);
CREATE INDEX sign_in_links_by_reviewer ON sign_in_links (reviewer);
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
";
    /// 7: the OS user (effective uid) that started a run, beside its host: `serve --drive`
    /// drives only the runs its own user started on its own host (SPEC §13).
    pub const RUN_USERS: &str = "
ALTER TABLE runs ADD COLUMN os_uid BIGINT;
";
    /// 8: the ledger also records the runs this store started on a Mastra server (SPEC
    /// §12: kind `start`, an empty tool call id, how the first leg ended), so that `wait`
    /// knows a run that finished before it began and an answer goes straight to the run's
    /// agent. No table changes; the number marks stores that may hold such entries, which a
    /// program that does not know the kind must refuse rather than misread.
    pub const LEDGER_STARTS: &str = "
-- The ledger's kind column may hold 'start' from here on.
";
}

/// Statements both backends run as written. SQLite takes `$N` for a named parameter and
/// numbers the names by their first appearance, so in each statement here `$1` must first
/// appear before `$2`, `$2` before `$3`, and so on (a later repeat is free; the tests check).
pub mod statements {
    use crate::store::columns::LEDGER_COLUMNS;

    /// The active reviewer, other than `$3`, mapped to the OS user `$1` or the PostgreSQL
    /// role `$2`.
    pub const REVIEWER_MAPPED: &str = "SELECT name FROM reviewers \
        WHERE (os_user = $1 OR pg_role = $2) AND name <> $3 AND removed_at IS NULL LIMIT 1";

    /// The ledger entries of server `$1`'s run `$2`, oldest first.
    pub fn ledger_of_run() -> String {
        format!(
            "SELECT {LEDGER_COLUMNS} FROM ledger WHERE server = $1 AND run_id = $2 \
             ORDER BY created_at, tool_call_id"
        )
    }

    /// At most `$4` ledger entries of server `$1` whose run id starts with `$2`, only those
    /// still `sending` when `$3` (a boolean, which SQLite holds as 0 or 1), oldest first.
    pub fn ledger_matching() -> String {
        format!(
            "SELECT {LEDGER_COLUMNS} FROM ledger WHERE server = $1 \
             AND substr(run_id, 1, length($2)) = $2 AND (NOT $3 OR state = 'sending') \
             ORDER BY created_at, tool_call_id LIMIT $4"
        )
    }
}

/// 7, the parts both backends share: who may answer (SPEC §14) as stored with a run (its
/// resolved policy, who started it, what expiry does, when items escalate), the identity
/// checked for each resolution, when an item was escalated, what an approval approved
/// (the digest of the arguments, and the arguments when a person changed them, §14.1), and
/// the policies an administrator keeps by name. The decisions table (and, on PostgreSQL, what enforces the
/// policy against the store's other roles) is each backend's.
macro_rules! policy_migration {
    () => {
        "
ALTER TABLE runs ADD COLUMN policy TEXT;
ALTER TABLE runs ADD COLUMN started_by TEXT;
ALTER TABLE runs ADD COLUMN started_as TEXT;
ALTER TABLE runs ADD COLUMN on_expiry TEXT;
ALTER TABLE runs ADD COLUMN escalate_after_ms BIGINT;
ALTER TABLE calls ADD COLUMN checked_by TEXT;
ALTER TABLE calls ADD COLUMN checked_as TEXT;
ALTER TABLE calls ADD COLUMN escalated_at BIGINT;
ALTER TABLE calls ADD COLUMN approved_args TEXT;
ALTER TABLE calls ADD COLUMN digest TEXT;
CREATE TABLE policies (
    name TEXT PRIMARY KEY,
    rule TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
"
    };
}
pub(crate) use policy_migration;

/// What an approved call's tool gave: the result for the model, and `{name, message}` when
/// the tool failed.
pub type ToolOutput<'a> = (&'a Value, Option<&'a Value>);

/// The body of a write transaction.
pub type Work<'f> = &'f mut dyn FnMut(&mut dyn Tx) -> Result<()>;

/// A store backend: write transactions for the transitions, and the reads.
///
/// Reads decode defensively: a row this program cannot read is skipped from lists with a
/// warning naming its run (`damage`), and only reading that very run fails.
/// A pending call as a listing reads it: the call, its run's agent id, and whether the
/// run is under a policy.
pub type PendingCall = (CallRecord, String, bool);

/// How many resolved items `Backend::unclaimed_resolutions` gives at once, at most.
pub const RESOLVED_AT_ONCE: i64 = 100;

pub trait Backend: Send {
    /// Runs `f` in one write transaction, committed when it returns `Ok` and rolled back
    /// otherwise. For the transitions only: commands call the `Store` methods.
    fn transact(&self, durability: Durability, f: Work) -> Result<()>;
    fn run(&self, id: &str) -> Result<Option<Run>>;
    /// Ids from `from` (included) to `to` (excluded), in order, at most `limit`.
    fn run_ids_between(&self, from: &str, to: &str, limit: usize) -> Result<Vec<String>>;
    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>>;
    fn messages(&self, run_id: &str) -> Result<Vec<Message>>;
    fn events(&self, run_id: &str) -> Result<Vec<StoredEvent>>;
    /// The calls of the run's suspended steps, in order.
    fn calls(&self, run_id: &str) -> Result<Vec<CallRecord>>;
    /// The run's calls, and the inbox's public URL when one of them is pending: what the
    /// run's pending items are made of (PostgreSQL: one round trip).
    fn calls_and_url(&self, run_id: &str) -> Result<(Vec<CallRecord>, Option<String>)> {
        let calls = self.calls(run_id)?;
        let url = match calls.iter().any(|c| c.state == CallState::Pending) {
            true => self.setting(super::reviewers::PUBLIC_URL)?,
            false => None,
        };
        Ok((calls, url))
    }
    /// The run's messages and its calls: what a leg starts from (PostgreSQL: one round
    /// trip).
    fn messages_and_calls(&self, run_id: &str) -> Result<(Vec<Message>, Vec<CallRecord>)> {
        Ok((self.messages(run_id)?, self.calls(run_id)?))
    }
    /// Every pending call with its run's agent id and whether the run is under a policy,
    /// oldest first, handed to `each` as it is read (a row that does not read is left out,
    /// with a warning); deadlines are not looked at.
    fn each_pending_call(
        &self,
        run_id: Option<&str>,
        each: &mut dyn FnMut(PendingCall) -> Result<()>,
    ) -> Result<()>;
    /// Whether some pending call's deadline is `now` or earlier.
    fn any_due(&self, now: i64) -> Result<bool>;
    /// A mark of what is pending (how many items, and when the newest was created): it
    /// changes when items come or go. Cheap: the pending items' index only.
    fn pending_mark(&self) -> Result<(i64, i64)>;
    /// Every agent id with runs in the store, with the id of its latest run (by creation).
    fn latest_run_of_each_agent(&self) -> Result<Vec<(String, String)>>;
    /// Blocks until something may have changed, or `timeout` passed. PostgreSQL wakes at
    /// once through LISTEN/NOTIFY; SQLite at a write of its log (Linux; elsewhere it sleeps
    /// the timeout). A wake-up may be spurious (this process's own commits): callers read
    /// again.
    fn wait_for_change(&self, run_id: &str, timeout: Duration) -> Result<()>;
    /// Deletes finished runs last updated before `before` (Unix ms) whose status is one of
    /// `statuses`; returns how many.
    fn prune(&self, before: i64, statuses: &[RunStatus]) -> Result<usize>;
    /// The active reviewer whose token has this hash, read without a write transaction
    /// (serve signs every API request in with it).
    fn token_reviewer(&self, token_hash: &str) -> Result<Option<ReviewerRow>>;
    /// The session with this id hash and its reviewer's row (if the reviewer exists), read
    /// without a write transaction (serve looks it up on every page).
    fn session_of(&self, id_hash: &str) -> Result<Option<(SessionRow, Option<ReviewerRow>)>>;
    /// A setting (the public URL), read without a write transaction.
    fn setting(&self, key: &str) -> Result<Option<String>>;
    /// The decisions recorded under the run's policy, oldest first (SPEC §14).
    fn decisions(&self, run_id: &str) -> Result<Vec<DecisionRecord>>;
    /// The pending items (run id, tool call id) whose escalation is due at `now` and not yet
    /// claimed, oldest first.
    fn due_escalations(&self, now: i64) -> Result<Vec<(String, String)>>;
    /// The items (of run `run_id`, or of every run) resolved, expired or cancelled at
    /// `since` or later whose `--on-resolve` hook no process has claimed yet, oldest first,
    /// at most `RESOLVED_AT_ONCE` (a row that does not read is left out, with a warning).
    fn unclaimed_resolutions(&self, run_id: Option<&str>, since: i64) -> Result<Vec<CallRecord>>;
    /// Claims running the `--on-resolve` hook of an item (SPEC §17): of every process that
    /// tries, exactly one gets true; false when it is claimed already, or is no item that
    /// was resolved, expired or cancelled.
    fn claim_resolution(&self, run_id: &str, call_id: &str) -> Result<bool>;
    /// Lets PostgreSQL roles use the store (`store grant`, SPEC §14); a SQLite store has
    /// no roles and refuses.
    fn grant(&self, grant: &super::Grant) -> Result<()>;
}

#[cfg(test)]
mod tests {
    use super::statements;

    /// The numbers of `sql`'s `$N` parameters, each where it first appears.
    fn first_appearances(sql: &str) -> Vec<u32> {
        let mut found = Vec::new();
        for (i, _) in sql.match_indices('$') {
            let digits: String = sql[i + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let n: u32 = digits.parse().expect("a number after $");
            if !found.contains(&n) {
                found.push(n);
            }
        }
        found
    }

    #[test]
    fn shared_statements_number_their_parameters_in_order_of_first_appearance() {
        let all = [
            statements::REVIEWER_MAPPED.to_string(),
            statements::ledger_of_run(),
            statements::ledger_matching(),
        ];
        for sql in all {
            let found = first_appearances(&sql);
            let in_order: Vec<u32> = (1..).take(found.len()).collect();
            assert_eq!(found, in_order, "{sql}");
        }
    }
}
