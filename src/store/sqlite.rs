//! The SQLite backend: WAL, a busy timeout, foreign keys, numbered migrations under
//! `PRAGMA user_version`, one `BEGIN IMMEDIATE` transaction per transition.

use std::fs::{self, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, Row};
use serde_json::Value;

use super::{
    now_ms, Access, Lease, NewRun, PendingItem, Resolved, Run, RunFilter, StepCommit, StepResults,
    Store, LEASE_MS,
};
use crate::domain::{
    CallRecord, CallState, Event, Message, Resolution, RunStatus, StoredEvent, Usage,
};
use crate::error::{fail, Error};

const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Numbered migrations: released ones are never edited, new ones are appended.
const MIGRATIONS: &[&str] = &[r#"
CREATE TABLE runs (
    id TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL,
    agent TEXT NOT NULL,
    cwd TEXT NOT NULL,
    status TEXT NOT NULL,
    output TEXT,
    finish_reason TEXT,
    error TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    total_tokens INTEGER NOT NULL DEFAULT 0,
    lease_token TEXT,
    lease_host TEXT,
    lease_pid INTEGER,
    lease_expires_at INTEGER,
    expires_in_ms INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX runs_by_status ON runs (status, id);
CREATE TABLE messages (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE events (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE calls (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    call_id TEXT NOT NULL,
    step INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    tool_name TEXT NOT NULL,
    args TEXT NOT NULL,
    state TEXT NOT NULL,
    payload TEXT,
    result TEXT,
    error TEXT,
    resume_data TEXT,
    resolved_by TEXT,
    resolved_via TEXT,
    resolved_at INTEGER,
    expires_at INTEGER,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (run_id, call_id)
) WITHOUT ROWID;
CREATE INDEX calls_pending ON calls (created_at) WHERE state = 'pending';
CREATE INDEX calls_expiring ON calls (expires_at) WHERE state = 'pending' AND expires_at IS NOT NULL;
CREATE TABLE waiters (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    token TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL,
    PRIMARY KEY (run_id, token)
) WITHOUT ROWID;
"#];

pub struct SqliteStore {
    conn: Connection,
}

impl SqliteStore {
    pub fn open(path: &Path, access: Access) -> Result<Option<SqliteStore>> {
        let exists = path.exists();
        if !exists && access == Access::Existing {
            return Ok(None);
        }
        if !exists {
            create_private(path)
                .with_context(|| format!("creating the store at {}", path.display()))?;
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("opening the store at {}", path.display()))?;
        let store = SqliteStore { conn };
        store
            .prepare(path)
            .with_context(|| format!("opening the store at {}", path.display()))?;
        Ok(Some(store))
    }

    fn prepare(&self, path: &Path) -> Result<()> {
        self.conn.busy_timeout(BUSY_TIMEOUT)?;
        self.conn
            .execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL;")?;
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version as usize >= MIGRATIONS.len() {
            return Ok(());
        }
        // First use: one process at a time switches to WAL and migrates (SQLite's busy
        // handler does not cover a journal-mode switch racing another's first write).
        let _setup = SetupLock::take(path)?;
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            anyhow::bail!("cannot switch the store to WAL mode (it is in {mode} mode)");
        }
        self.write(|c| {
            let version: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
            for (i, sql) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
                c.execute_batch(sql)
                    .with_context(|| format!("applying migration {}", i + 1))?;
                c.execute_batch(&format!("PRAGMA user_version = {}", i + 1))?;
            }
            Ok(())
        })
    }

    /// Runs `f` in one `BEGIN IMMEDIATE` transaction: committed when it succeeds, rolled
    /// back otherwise.
    fn write<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        match f(&self.conn) {
            Ok(v) => match self.conn.execute_batch("COMMIT") {
                Ok(()) => Ok(v),
                Err(e) => {
                    let _ = self.conn.execute_batch("ROLLBACK");
                    Err(e.into())
                }
            },
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }
}

/// An exclusive `flock` on the store file, held while a process sets the store up.
struct SetupLock {
    _file: std::fs::File,
}

impl SetupLock {
    fn take(path: &Path) -> Result<SetupLock> {
        use std::os::fd::AsRawFd;
        let file = std::fs::File::open(path)?;
        // SAFETY: flock on a descriptor we own; it blocks until the lock is ours.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(std::io::Error::last_os_error().into());
        }
        Ok(SetupLock { _file: file })
    }
}

/// Creates the store file with mode 0600 (its directory 0700); safe when several
/// processes do it at once.
fn create_private(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.exists() {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
        }
    }
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)?;
    Ok(())
}

fn to_json(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).expect("values built by this program serialize")
}

fn from_json<T: serde::de::DeserializeOwned>(s: &str) -> rusqlite::Result<T> {
    serde_json::from_str(s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn opt_json(s: Option<String>) -> rusqlite::Result<Option<Value>> {
    s.map(|s| from_json(&s)).transpose()
}

const RUN_COLUMNS: &str = "id, agent_id, agent, cwd, status, output, finish_reason, error, \
    input_tokens, output_tokens, total_tokens, lease_token, lease_host, lease_pid, \
    lease_expires_at, created_at, updated_at";

fn run_from_row(r: &Row) -> rusqlite::Result<Run> {
    let status: String = r.get(4)?;
    let lease_token: Option<String> = r.get(11)?;
    Ok(Run {
        id: r.get(0)?,
        agent_id: r.get(1)?,
        agent: from_json(&r.get::<_, String>(2)?)?,
        cwd: r.get(3)?,
        status: RunStatus::parse(&status).unwrap_or(RunStatus::Failed),
        output: r.get(5)?,
        finish_reason: r.get(6)?,
        error: r.get(7)?,
        usage: Usage {
            input_tokens: r.get::<_, i64>(8)? as u64,
            output_tokens: r.get::<_, i64>(9)? as u64,
            total_tokens: r.get::<_, i64>(10)? as u64,
        },
        lease: match lease_token {
            Some(token) => Some(Lease {
                token,
                host: r.get::<_, Option<String>>(12)?.unwrap_or_default(),
                pid: r.get::<_, Option<i64>>(13)?.unwrap_or(0) as u32,
                expires_at: r.get::<_, Option<i64>>(14)?.unwrap_or(0),
            }),
            None => None,
        },
        created_at: r.get(15)?,
        updated_at: r.get(16)?,
    })
}

const CALL_COLUMNS: &str = "c.run_id, c.call_id, c.seq, c.step, c.tool_name, c.args, c.state, \
    c.payload, c.result, c.error, c.resume_data, c.resolved_by, c.resolved_via, \
    c.resolved_at, c.expires_at, c.created_at";

fn call_from_row(r: &Row) -> rusqlite::Result<CallRecord> {
    let state: String = r.get(6)?;
    Ok(CallRecord {
        run_id: r.get(0)?,
        call_id: r.get(1)?,
        seq: r.get(2)?,
        step: r.get(3)?,
        tool_name: r.get(4)?,
        args: from_json(&r.get::<_, String>(5)?)?,
        state: CallState::parse(&state).unwrap_or(CallState::Cancelled),
        payload: opt_json(r.get(7)?)?,
        result: opt_json(r.get(8)?)?,
        error: opt_json(r.get(9)?)?,
        resume_data: opt_json(r.get(10)?)?,
        resolved_by: r.get(11)?,
        resolved_via: r.get(12)?,
        resolved_at: r.get(13)?,
        expires_at: r.get(14)?,
        created_at: r.get(15)?,
    })
}

fn next_seq(c: &Connection, table: &str, run_id: &str) -> Result<i64> {
    let sql = format!("SELECT coalesce(max(seq) + 1, 0) FROM {table} WHERE run_id = ?1");
    Ok(c.query_row(&sql, [run_id], |r| r.get(0))?)
}

/// Appends messages; returns the sequence number of the first one.
fn append_messages(c: &Connection, run_id: &str, messages: &[Message]) -> Result<i64> {
    let first = next_seq(c, "messages", run_id)?;
    let mut stmt =
        c.prepare_cached("INSERT INTO messages (run_id, seq, body) VALUES (?1, ?2, ?3)")?;
    for (i, m) in messages.iter().enumerate() {
        stmt.execute(params![run_id, first + i as i64, to_json(m)])?;
    }
    Ok(first)
}

fn append_events(
    c: &Connection,
    run_id: &str,
    events: &[Event],
    at: i64,
) -> Result<Vec<StoredEvent>> {
    let first = next_seq(c, "events", run_id)?;
    let mut stmt = c.prepare_cached(
        "INSERT INTO events (run_id, seq, kind, payload, at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut stored = Vec::with_capacity(events.len());
    for (i, e) in events.iter().enumerate() {
        let seq = first + i as i64;
        stmt.execute(params![run_id, seq, e.kind, to_json(&e.payload), at])?;
        stored.push(StoredEvent {
            seq,
            at,
            event: e.clone(),
        });
    }
    Ok(stored)
}

fn lease_params(lease: Option<&Lease>) -> (Option<&str>, Option<&str>, Option<i64>, Option<i64>) {
    match lease {
        Some(l) => (
            Some(l.token.as_str()),
            Some(l.host.as_str()),
            Some(l.pid as i64),
            Some(now_ms() + LEASE_MS),
        ),
        None => (None, None, None, None),
    }
}

/// Runs with a pending item whose deadline passed.
fn due_runs(c: &Connection, now: i64) -> Result<Vec<String>> {
    let runs = c
        .prepare_cached(
            "SELECT DISTINCT run_id FROM calls WHERE state = 'pending' \
             AND expires_at IS NOT NULL AND expires_at <= ?1",
        )?
        .query_map([now], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(runs)
}

/// Closes the runs' pending items as expired and fails the runs.
fn expire(c: &Connection, runs: &[String], error: &str, now: i64) -> Result<usize> {
    for run in runs {
        c.execute(
            "UPDATE calls SET state = 'expired', resolved_at = ?2 \
             WHERE run_id = ?1 AND state = 'pending'",
            params![run, now],
        )?;
        c.execute(
            "UPDATE runs SET status = 'failed', finish_reason = ?2, error = ?3, \
             lease_token = NULL, lease_host = NULL, lease_pid = NULL, lease_expires_at = NULL, \
             updated_at = ?4 WHERE id = ?1 AND status = 'suspended'",
            params![run, super::EXPIRED, error, now],
        )?;
    }
    Ok(runs.len())
}

/// Whether a waiter of the run sent a heartbeat within the lease time.
fn waiter_alive(c: &Connection, run_id: &str, now: i64) -> Result<bool> {
    Ok(c.query_row(
        "SELECT EXISTS (SELECT 1 FROM waiters WHERE run_id = ?1 AND heartbeat_at > ?2)",
        params![run_id, now - LEASE_MS],
        |r| r.get(0),
    )?)
}

const EXPIRED_ERROR: &str = "no answer came before the deadline; the pending items expired";

impl Store for SqliteStore {
    fn create_run(&self, run: &NewRun) -> Result<Vec<StoredEvent>> {
        let now = now_ms();
        self.write(|c| {
            let (token, host, pid, expires) = lease_params(Some(run.lease));
            c.execute(
                "INSERT INTO runs (id, agent_id, agent, cwd, status, lease_token, lease_host, \
                 lease_pid, lease_expires_at, expires_in_ms, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
                params![
                    run.id,
                    run.agent_id,
                    to_json(run.agent),
                    run.cwd,
                    token,
                    host,
                    pid,
                    expires,
                    run.expires_in_ms,
                    now
                ],
            )?;
            append_messages(
                c,
                run.id,
                &[Message::User {
                    content: run.prompt.to_string(),
                }],
            )?;
            append_events(c, run.id, run.events, now)
        })
    }

    fn run(&self, id: &str) -> Result<Option<Run>> {
        let sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1");
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row([id], run_from_row)
            .optional()?)
    }

    fn run_ids_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id FROM runs WHERE id >= ?1 AND id < ?1 || char(1114111) ORDER BY id LIMIT ?2",
        )?;
        let ids = stmt
            .query_map(params![prefix, limit as i64], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(ids)
    }

    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE ?1 IS NULL OR status = ?1 ORDER BY id DESC LIMIT ?2"
        );
        let status = filter.status.map(RunStatus::as_str);
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let runs = stmt
            .query_map(params![status, filter.limit as i64], run_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(runs)
    }

    fn messages(&self, run_id: &str) -> Result<Vec<Message>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT body FROM messages WHERE run_id = ?1 ORDER BY seq")?;
        let messages = stmt
            .query_map([run_id], |r| from_json(&r.get::<_, String>(0)?))?
            .collect::<rusqlite::Result<Vec<Message>>>()?;
        Ok(messages)
    }

    fn events(&self, run_id: &str) -> Result<Vec<StoredEvent>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, at, kind, payload FROM events WHERE run_id = ?1 ORDER BY seq",
        )?;
        let events = stmt
            .query_map([run_id], |r| {
                Ok(StoredEvent {
                    seq: r.get(0)?,
                    at: r.get(1)?,
                    event: Event {
                        kind: r.get(2)?,
                        payload: from_json(&r.get::<_, String>(3)?)?,
                    },
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(events)
    }

    fn calls(&self, run_id: &str) -> Result<Vec<CallRecord>> {
        let sql = format!(
            "SELECT {CALL_COLUMNS} FROM calls c WHERE c.run_id = ?1 ORDER BY c.step, c.seq"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let calls = stmt
            .query_map([run_id], call_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(calls)
    }

    fn pending(&self, run_id: Option<&str>) -> Result<Vec<PendingItem>> {
        let sql = format!(
            "SELECT {CALL_COLUMNS}, r.agent_id, \
             (SELECT count(*) FROM calls p WHERE p.run_id = c.run_id AND p.state = 'pending') \
             FROM calls c JOIN runs r ON r.id = c.run_id \
             WHERE c.state = 'pending' AND (?1 IS NULL OR c.run_id = ?1) \
             AND (c.expires_at IS NULL OR c.expires_at > ?2) \
             ORDER BY c.created_at, c.run_id, c.step, c.seq"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let items = stmt
            .query_map(params![run_id, now_ms()], |r| {
                Ok(PendingItem {
                    call: call_from_row(r)?,
                    agent_id: r.get(16)?,
                    pending_in_run: r.get::<_, i64>(17)? as usize,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(items)
    }

    fn commit_step(
        &self,
        run_id: &str,
        lease: &Lease,
        step: &StepCommit,
    ) -> Result<Option<Vec<StoredEvent>>> {
        let now = now_ms();
        self.write(|c| {
            let (status, output, reason, error) = step.transition.columns();
            let keep_lease = status == RunStatus::Running;
            let (token, host, pid, expires) = lease_params(keep_lease.then_some(lease));
            let changed = c.execute(
                "UPDATE runs SET status = ?3, output = coalesce(?4, output), \
                 finish_reason = coalesce(?5, finish_reason), error = ?6, \
                 input_tokens = input_tokens + ?7, output_tokens = output_tokens + ?8, \
                 total_tokens = total_tokens + ?9, lease_token = ?10, lease_host = ?11, \
                 lease_pid = ?12, lease_expires_at = ?13, updated_at = ?14 \
                 WHERE id = ?1 AND status = 'running' AND lease_token = ?2",
                params![
                    run_id,
                    lease.token,
                    status.as_str(),
                    output,
                    reason,
                    error,
                    step.usage.input_tokens as i64,
                    step.usage.output_tokens as i64,
                    step.usage.total_tokens as i64,
                    token,
                    host,
                    pid,
                    expires,
                    now
                ],
            )?;
            if changed == 0 {
                return Ok(None);
            }
            let first = append_messages(c, run_id, &step.messages)?;
            if !step.calls.is_empty() {
                let mut stmt = c.prepare_cached(
                    "INSERT INTO calls (run_id, call_id, step, seq, tool_name, args, state, \
                     payload, result, error, created_at, expires_at) \
                     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, \
                     CASE WHEN ?7 = 'pending' THEN ?11 + expires_in_ms END \
                     FROM runs WHERE id = ?1",
                )?;
                for (i, call) in step.calls.iter().enumerate() {
                    stmt.execute(params![
                        run_id,
                        call.call_id,
                        first,
                        i as i64,
                        call.tool_name,
                        to_json(&call.args),
                        call.state.as_str(),
                        call.payload.as_ref().map(to_json),
                        call.result.as_ref().map(to_json),
                        call.error.as_ref().map(to_json),
                        now
                    ])?;
                }
            }
            Ok(Some(append_events(c, run_id, &step.events, now)?))
        })
    }

    fn renew_lease(&self, run_id: &str, lease: &Lease) -> Result<bool> {
        let changed = self.conn.execute(
            "UPDATE runs SET lease_expires_at = ?3 \
             WHERE id = ?1 AND status = 'running' AND lease_token = ?2",
            params![run_id, lease.token, now_ms() + LEASE_MS],
        )?;
        Ok(changed == 1)
    }

    fn take_lease(
        &self,
        run_id: &str,
        status: RunStatus,
        expected: Option<&str>,
        lease: &Lease,
    ) -> Result<bool> {
        let now = now_ms();
        self.write(|c| {
            let (token, host, pid, expires) = lease_params(Some(lease));
            let changed = c.execute(
                "UPDATE runs SET status = 'running', error = NULL, lease_token = ?4, \
                 lease_host = ?5, lease_pid = ?6, lease_expires_at = ?7, updated_at = ?8 \
                 WHERE id = ?1 AND status = ?2 AND lease_token IS ?3",
                params![
                    run_id,
                    status.as_str(),
                    expected,
                    token,
                    host,
                    pid,
                    expires,
                    now
                ],
            )?;
            Ok(changed == 1)
        })
    }

    fn resolve(
        &self,
        run_id: &str,
        call_id: &str,
        resolution: &Resolution,
        driver: Option<&Lease>,
        results: &dyn Fn(&[CallRecord]) -> StepResults,
    ) -> Result<Resolved> {
        let now = now_ms();
        self.write(|c| {
            expire(c, &due_runs(c, now)?, EXPIRED_ERROR, now)?;
            let found: Option<(String, i64, Option<String>)> = c
                .query_row(
                    "SELECT state, step, resolved_by FROM calls WHERE run_id = ?1 AND call_id = ?2",
                    [run_id, call_id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            let Some((state, step, by)) = found else {
                return fail(Error::not_found(format!(
                    "run {run_id} has no tool call {call_id}"
                )));
            };
            if state != CallState::Pending.as_str() {
                let who = by.map(|b| format!(" by {b}")).unwrap_or_default();
                return fail(Error::conflict(format!(
                    "tool call {call_id} is not pending: it was {state}{who}"
                )));
            }
            c.execute(
                "UPDATE calls SET state = 'resolved', result = ?3, resume_data = ?4, \
                 resolved_by = ?5, resolved_via = ?6, resolved_at = ?7 \
                 WHERE run_id = ?1 AND call_id = ?2 AND state = 'pending'",
                params![
                    run_id,
                    call_id,
                    to_json(&resolution.result),
                    to_json(&resolution.resume_data),
                    resolution.by,
                    resolution.via.as_str(),
                    now
                ],
            )?;
            let still_pending: i64 = c.query_row(
                "SELECT count(*) FROM calls WHERE run_id = ?1 AND step = ?2 AND state = 'pending'",
                params![run_id, step],
                |r| r.get(0),
            )?;
            if still_pending > 0 {
                c.execute(
                    "UPDATE runs SET updated_at = ?2 WHERE id = ?1",
                    params![run_id, now],
                )?;
                return Ok(Resolved::Recorded {
                    still_pending: still_pending as usize,
                });
            }
            let sql = format!(
                "SELECT {CALL_COLUMNS} FROM calls c WHERE c.run_id = ?1 AND c.step = ?2 ORDER BY c.seq"
            );
            let calls = c
                .prepare_cached(&sql)?
                .query_map(params![run_id, step], call_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let StepResults { messages, events } = results(&calls);
            let waiter = waiter_alive(c, run_id, now)?;
            let driver = driver.filter(|_| !waiter);
            let (token, host, pid, expires) = lease_params(driver);
            let changed = c.execute(
                "UPDATE runs SET status = 'running', lease_token = ?2, lease_host = ?3, \
                 lease_pid = ?4, lease_expires_at = ?5, updated_at = ?6 \
                 WHERE id = ?1 AND status = 'suspended'",
                params![run_id, token, host, pid, expires, now],
            )?;
            if changed == 0 {
                return fail(Error::conflict(format!("run {run_id} is not suspended")));
            }
            append_messages(c, run_id, &messages)?;
            let events = append_events(c, run_id, &events, now)?;
            Ok(Resolved::Resumed {
                events,
                driving: driver.is_some(),
            })
        })
    }

    fn cancel(&self, run_id: &str) -> Result<RunStatus> {
        let now = now_ms();
        self.write(|c| {
            let status: Option<String> = c
                .query_row("SELECT status FROM runs WHERE id = ?1", [run_id], |r| {
                    r.get(0)
                })
                .optional()?;
            let Some(status) = status.as_deref().and_then(RunStatus::parse) else {
                return fail(Error::not_found(format!("no run {run_id}")));
            };
            if matches!(status, RunStatus::Completed | RunStatus::Cancelled) {
                return fail(Error::conflict(format!(
                    "run {run_id} is already {}",
                    status.as_str()
                )));
            }
            c.execute(
                "UPDATE runs SET status = 'cancelled', lease_token = NULL, lease_host = NULL, \
                 lease_pid = NULL, lease_expires_at = NULL, updated_at = ?2 WHERE id = ?1",
                params![run_id, now],
            )?;
            c.execute(
                "UPDATE calls SET state = 'cancelled', resolved_at = ?2 \
                 WHERE run_id = ?1 AND state = 'pending'",
                params![run_id, now],
            )?;
            Ok(status)
        })
    }

    fn expire_due(&self, now: i64) -> Result<usize> {
        let due: bool = self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM calls WHERE state = 'pending' \
             AND expires_at IS NOT NULL AND expires_at <= ?1)",
            [now],
            |r| r.get(0),
        )?;
        if !due {
            return Ok(0);
        }
        self.write(|c| expire(c, &due_runs(c, now)?, EXPIRED_ERROR, now))
    }

    fn expire_run(&self, run_id: &str, error: &str) -> Result<bool> {
        let now = now_ms();
        self.write(|c| {
            let suspended: bool = c.query_row(
                "SELECT EXISTS (SELECT 1 FROM runs WHERE id = ?1 AND status = 'suspended')",
                [run_id],
                |r| r.get(0),
            )?;
            if !suspended {
                return Ok(false);
            }
            expire(c, &[run_id.to_string()], error, now)?;
            Ok(true)
        })
    }

    fn has_waiter(&self, run_id: &str) -> Result<bool> {
        waiter_alive(&self.conn, run_id, now_ms())
    }

    fn add_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO waiters (run_id, token, host, pid, heartbeat_at) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![run_id, waiter.token, waiter.host, waiter.pid, now_ms()],
        )?;
        Ok(())
    }

    fn beat_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        self.conn.execute(
            "UPDATE waiters SET heartbeat_at = ?3 WHERE run_id = ?1 AND token = ?2",
            params![run_id, waiter.token, now_ms()],
        )?;
        Ok(())
    }

    fn remove_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        self.conn.execute(
            "DELETE FROM waiters WHERE run_id = ?1 AND token = ?2",
            params![run_id, waiter.token],
        )?;
        Ok(())
    }

    fn reply(&self, run_id: &str, message: &str, lease: &Lease) -> Result<()> {
        let now = now_ms();
        self.write(|c| {
            let (token, host, pid, expires) = lease_params(Some(lease));
            let changed = c.execute(
                "UPDATE runs SET status = 'running', output = NULL, finish_reason = NULL, \
                 lease_token = ?2, lease_host = ?3, lease_pid = ?4, lease_expires_at = ?5, \
                 updated_at = ?6 WHERE id = ?1 AND status = 'completed'",
                params![run_id, token, host, pid, expires, now],
            )?;
            if changed == 0 {
                return fail(Error::conflict(format!(
                    "run {run_id} is not completed; reply continues a completed run"
                )));
            }
            append_messages(
                c,
                run_id,
                &[Message::User {
                    content: message.to_string(),
                }],
            )?;
            Ok(())
        })
    }

    fn wait_for_change(&self, _run_id: &str, timeout: Duration) -> Result<()> {
        std::thread::sleep(timeout);
        Ok(())
    }

    fn prune(&self, before: i64, statuses: &[RunStatus]) -> Result<usize> {
        self.write(|c| {
            let mut stmt =
                c.prepare_cached("DELETE FROM runs WHERE status = ?1 AND updated_at < ?2")?;
            let mut n = 0;
            for st in statuses.iter().filter(|s| s.is_finished()) {
                n += stmt.execute(params![st.as_str(), before])?;
            }
            Ok(n)
        })
    }
}
