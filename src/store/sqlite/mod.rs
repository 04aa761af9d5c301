//! The SQLite backend: WAL, a busy timeout, foreign keys, numbered migrations under
//! `PRAGMA user_version`, one `BEGIN IMMEDIATE` transaction per transition.
//!
//! `schema.rs` holds the tables and connection settings, `compact.rs` how repeated facts
//! are stored once, `rows.rs` how rows become domain values. Child rows name their run by
//! its integer key; the id is looked up inside each transaction.

mod compact;
mod rows;
mod schema;

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use super::{
    now_ms, Access, Lease, NewRun, PendingItem, Resolved, Run, RunFilter, StepCommit, StepResults,
    Store, Transition, LEASE_MS,
};
use crate::domain::{CallRecord, CallState, Event, Message, Resolution, RunStatus, StoredEvent};
use crate::error::{fail, Error};
use compact::{to_json, Cursor, EventRow, Sources};
use rows::{
    call_from_row, from_json, run_from_row, CALL_COLUMNS, CALL_WIDTH, RUN_COLUMNS, RUN_FROM,
};

pub struct SqliteStore {
    conn: Connection,
}

/// How a transaction reaches the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sync {
    /// On disk (`fsync`) before the commit returns: every person's decision, and every
    /// state a command reports (the end of a leg).
    Durable,
    /// Handed to the operating system at commit: safe from a crashed process, not from a
    /// power cut. For the start and the middle of a leg and for liveness data; the log is
    /// written in order, so the leg's durable end makes them durable too, and a leg cut
    /// short is what `resume` redoes anyway.
    Deferred,
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
        schema::configure(&self.conn)?;
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version as usize >= schema::MIGRATIONS.len() {
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
        self.write(Sync::Durable, |c| {
            let version: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
            for (i, sql) in schema::MIGRATIONS
                .iter()
                .enumerate()
                .skip(version.max(0) as usize)
            {
                c.execute_batch(sql)
                    .with_context(|| format!("applying migration {}", i + 1))?;
                c.execute_batch(&format!("PRAGMA user_version = {}", i + 1))?;
            }
            Ok(())
        })
    }

    /// Runs `f` in one `BEGIN IMMEDIATE` transaction: committed when it succeeds, rolled
    /// back otherwise.
    fn write<T>(&self, sync: Sync, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        self.with_sync(sync, || self.transaction(f))
    }

    /// Runs `f` with the connection's commits made `sync`.
    fn with_sync<T>(&self, sync: Sync, f: impl FnOnce() -> Result<T>) -> Result<T> {
        if sync == Sync::Durable {
            return f();
        }
        self.conn.execute_batch("PRAGMA synchronous = NORMAL")?;
        let result = f();
        self.conn.execute_batch("PRAGMA synchronous = FULL")?;
        result
    }

    /// Runs `f` in one read transaction: every query sees the same snapshot.
    fn snapshot<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        self.conn.execute_batch("BEGIN DEFERRED")?;
        let result = f(&self.conn);
        let _ = self.conn.execute_batch("COMMIT");
        result
    }

    fn transaction<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .context("waiting for the store's write lock")?;
        match f(&self.conn) {
            Ok(v) => match self.conn.execute_batch("COMMIT") {
                Ok(()) => Ok(v),
                Err(e) => {
                    let _ = self.conn.execute_batch("ROLLBACK");
                    Err(anyhow::Error::new(e).context("writing to the store"))
                }
            },
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }
}

/// What a person can do about a store error, by SQLite's error code.
pub fn hint_for(e: &anyhow::Error) -> Option<&'static str> {
    use rusqlite::ErrorCode as C;
    let code = e
        .chain()
        .find_map(|c| match c.downcast_ref::<rusqlite::Error>() {
            Some(rusqlite::Error::SqliteFailure(f, _)) => Some(f.code),
            _ => None,
        })?;
    Some(match code {
        C::DatabaseBusy | C::DatabaseLocked => {
            "another process held the store's write lock for longer than the busy timeout \
             (MASTRA_ASK_BUSY_TIMEOUT, 10s by default); try again"
        }
        C::NotADatabase | C::DatabaseCorrupt => {
            "the store file is damaged or not a mastra-ask store; restore it from a backup, \
             or move it aside to start a new one"
        }
        C::ReadOnly | C::CannotOpen | C::PermissionDenied => {
            "check that you may read and write the store file and its directory"
        }
        C::DiskFull | C::SystemIoFailure => {
            "check the free space (and any file size limit) where the store is"
        }
        _ => return None,
    })
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

/// The sequence numbers the run's next message and next event get.
fn next_seqs(c: &Connection, run: i64) -> Result<(i64, i64)> {
    Ok(c.prepare_cached(
        "SELECT (SELECT coalesce(max(seq) + 1, 0) FROM messages WHERE run = ?1), \
         (SELECT coalesce(max(seq) + 1, 0) FROM events WHERE run = ?1)",
    )?
    .query_row([run], |r| Ok((r.get(0)?, r.get(1)?)))?)
}

/// The key of a stored document with this text, stored now if it is new.
fn document(c: &Connection, body: &str) -> Result<i64> {
    let hash = rows::hash(body);
    let found = c
        .prepare_cached("SELECT key FROM documents WHERE hash = ?1 AND body = ?2")?
        .query_row(params![hash, body], |r| r.get(0))
        .optional()?;
    if let Some(key) = found {
        return Ok(key);
    }
    c.prepare_cached("INSERT INTO documents (hash, body) VALUES (?1, ?2)")?
        .execute(params![hash, body])?;
    Ok(c.last_insert_rowid())
}

/// Appends messages from sequence number `first`; a tool message whose content is the
/// result text in `results` (call id → result) points at its call's row instead.
fn append_messages(
    c: &Connection,
    run: i64,
    first: i64,
    messages: &[Message],
    results: &HashMap<String, String>,
) -> Result<()> {
    let mut stmt =
        c.prepare_cached("INSERT INTO messages (run, seq, call_id, body) VALUES (?1, ?2, ?3, ?4)")?;
    for (i, m) in messages.iter().enumerate() {
        let (call_id, body) = compact::encode_message(m, results);
        stmt.execute(params![run, first + i as i64, call_id, body])?;
    }
    Ok(())
}

/// Appends events from sequence number `first`; `step_message` is the sequence number of
/// the assistant message stored with them and `sources` what they may point at.
fn append_events(
    c: &Connection,
    run: i64,
    first: i64,
    events: &[Event],
    at: i64,
    step_message: Option<i64>,
    sources: &Sources,
) -> Result<Vec<StoredEvent>> {
    let mut stmt = c.prepare_cached(
        "INSERT INTO events (run, seq, kind, derived, call_id, message, payload, at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    let mut cursor = Cursor::default();
    let mut stored = Vec::with_capacity(events.len());
    for (i, e) in events.iter().enumerate() {
        let seq = first + i as i64;
        let row = compact::encode_event(e, step_message, &mut cursor, sources);
        stmt.execute(params![
            run,
            seq,
            e.kind,
            row.derived,
            row.call_id,
            row.message,
            row.payload,
            at
        ])?;
        stored.push(StoredEvent {
            seq,
            at,
            event: e.clone(),
        });
    }
    Ok(stored)
}

/// A run's messages with their sequence numbers.
fn messages_of(c: &Connection, run_id: &str) -> Result<Vec<(i64, Message)>> {
    let mut stmt = c.prepare_cached(
        "SELECT m.seq, m.call_id, m.body, c.result FROM runs r \
         JOIN messages m ON m.run = r.key \
         LEFT JOIN calls c ON c.run = m.run AND c.call_id = m.call_id \
         WHERE r.id = ?1 ORDER BY m.seq",
    )?;
    let rows = stmt.query_map([run_id], |r| {
        let call_id: Option<String> = r.get(1)?;
        let body: String = r.get(2)?;
        let result: Option<String> = r.get(3)?;
        let message =
            compact::read_message(call_id.as_deref(), &body, result.as_deref()).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    2,
                    rusqlite::types::Type::Text,
                    Box::new(e),
                )
            })?;
        Ok((r.get(0)?, message))
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A run's events, rebuilt from what they point at.
fn events_of(c: &Connection, run_id: &str) -> Result<Vec<StoredEvent>> {
    let mut sources = Sources::default();
    for (seq, m) in messages_of(c, run_id)? {
        sources.add_message(seq, &m);
    }
    for call in calls_of(c, run_id)? {
        if let Some(p) = &call.payload {
            sources.add_payload(&call.call_id, p);
        }
    }
    let mut stmt = c.prepare_cached(
        "SELECT e.seq, e.at, e.kind, e.derived, e.call_id, e.message, e.payload \
         FROM runs r JOIN events e ON e.run = r.key WHERE r.id = ?1 ORDER BY e.seq",
    )?;
    let rows = stmt.query_map([run_id], |r| {
        let row = EventRow {
            derived: r.get(3)?,
            call_id: r.get(4)?,
            message: r.get(5)?,
            payload: r.get(6)?,
        };
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
            row,
        ))
    })?;
    let mut cursor = Cursor::default();
    let mut events = Vec::new();
    for row in rows {
        let (seq, at, kind, row) = row?;
        let payload = compact::read_event(&kind, &row, &mut cursor, &sources)
            .unwrap_or(serde_json::Value::Null);
        events.push(StoredEvent {
            seq,
            at,
            event: Event { kind, payload },
        });
    }
    Ok(events)
}

fn calls_of(c: &Connection, run_id: &str) -> Result<Vec<CallRecord>> {
    let sql = format!(
        "SELECT {CALL_COLUMNS} FROM runs r JOIN calls c ON c.run = r.key \
         WHERE r.id = ?1 ORDER BY c.step, c.seq"
    );
    let mut stmt = c.prepare_cached(&sql)?;
    let calls = stmt
        .query_map([run_id], call_from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(calls)
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

/// Keys of the runs with a pending item whose deadline passed.
fn due_runs(c: &Connection, now: i64) -> Result<Vec<i64>> {
    let runs = c
        .prepare_cached(
            "SELECT DISTINCT run FROM calls WHERE state = 'pending' \
             AND expires_at IS NOT NULL AND expires_at <= ?1",
        )?
        .query_map([now], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(runs)
}

/// Closes the runs' pending items as expired and fails the runs.
fn expire(c: &Connection, runs: &[i64], error: &str, now: i64) -> Result<usize> {
    for run in runs {
        c.prepare_cached(
            "UPDATE calls SET state = 'expired', resolved_at = ?2 \
             WHERE run = ?1 AND state = 'pending'",
        )?
        .execute(params![run, now])?;
        c.prepare_cached(
            "UPDATE runs SET status = 'failed', finish_reason = ?2, error = ?3, \
             lease_token = NULL, lease_host = NULL, lease_pid = NULL, lease_expires_at = NULL, \
             updated_at = ?4 WHERE key = ?1 AND status = 'suspended'",
        )?
        .execute(params![run, super::EXPIRED, error, now])?;
    }
    Ok(runs.len())
}

/// Whether a waiter of the run sent a heartbeat within the lease time.
fn waiter_alive(c: &Connection, run_id: &str, now: i64) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM waiters w JOIN runs r ON r.key = w.run \
         WHERE r.id = ?1 AND w.heartbeat_at > ?2)",
    )?
    .query_row(params![run_id, now - LEASE_MS], |r| r.get(0))?)
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

const EXPIRED_ERROR: &str = "no answer came before the deadline; the pending items expired";

impl Store for SqliteStore {
    fn create_run(&self, run: &NewRun) -> Result<Vec<StoredEvent>> {
        let now = now_ms();
        self.write(Sync::Deferred, |c| {
            let agent = document(c, &to_json(run.agent))?;
            let (token, host, pid, expires) = lease_params(Some(run.lease));
            c.prepare_cached(
                "INSERT INTO runs (id, agent_id, agent, cwd, status, lease_token, lease_host, \
                 lease_pid, lease_expires_at, expires_in_ms, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
            )?
            .execute(params![
                run.id,
                run.agent_id,
                agent,
                run.cwd,
                token,
                host,
                pid,
                expires,
                run.expires_in_ms,
                now
            ])?;
            let key = c.last_insert_rowid();
            let prompt = [Message::User {
                content: run.prompt.to_string(),
            }];
            append_messages(c, key, 0, &prompt, &HashMap::new())?;
            append_events(c, key, 0, run.events, now, None, &Sources::default())
        })
    }

    fn run(&self, id: &str) -> Result<Option<Run>> {
        let sql = format!("SELECT {RUN_COLUMNS} FROM {RUN_FROM} WHERE r.id = ?1");
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
        let limit = filter.limit as i64;
        let runs = match filter.status {
            Some(status) => {
                let sql = format!(
                    "SELECT {RUN_COLUMNS} FROM {RUN_FROM} WHERE r.status = ?1 \
                     ORDER BY r.created_at DESC, r.key DESC LIMIT ?2"
                );
                self.conn
                    .prepare_cached(&sql)?
                    .query_map(params![status.as_str(), limit], run_from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()?
            }
            None => {
                let sql =
                    format!("SELECT {RUN_COLUMNS} FROM {RUN_FROM} ORDER BY r.created_at DESC, r.key DESC LIMIT ?1");
                self.conn
                    .prepare_cached(&sql)?
                    .query_map([limit], run_from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()?
            }
        };
        Ok(runs)
    }

    fn messages(&self, run_id: &str) -> Result<Vec<Message>> {
        Ok(messages_of(&self.conn, run_id)?
            .into_iter()
            .map(|(_, m)| m)
            .collect())
    }

    fn events(&self, run_id: &str) -> Result<Vec<StoredEvent>> {
        // Events point at messages and calls: all three from the same snapshot.
        self.snapshot(|c| events_of(c, run_id))
    }

    fn calls(&self, run_id: &str) -> Result<Vec<CallRecord>> {
        calls_of(&self.conn, run_id)
    }

    fn pending(&self, run_id: Option<&str>) -> Result<Vec<PendingItem>> {
        let select = format!(
            "SELECT {CALL_COLUMNS}, r.agent_id FROM calls c JOIN runs r ON r.key = c.run \
             WHERE c.state = 'pending' AND (c.expires_at IS NULL OR c.expires_at > ?1)"
        );
        let order = "ORDER BY c.created_at, r.id, c.step, c.seq";
        let item = |r: &rusqlite::Row| Ok((call_from_row(r)?, r.get::<_, String>(CALL_WIDTH)?));
        let rows = match run_id {
            Some(id) => self
                .conn
                .prepare_cached(&format!("{select} AND r.id = ?2 {order}"))?
                .query_map(params![now_ms(), id], item)?
                .collect::<rusqlite::Result<Vec<_>>>()?,
            None => self
                .conn
                .prepare_cached(&format!("{select} {order}"))?
                .query_map([now_ms()], item)?
                .collect::<rusqlite::Result<Vec<_>>>()?,
        };
        let mut per_run: HashMap<String, usize> = HashMap::new();
        for (call, _) in &rows {
            *per_run.entry(call.run_id.clone()).or_default() += 1;
        }
        Ok(rows
            .into_iter()
            .map(|(call, agent_id)| PendingItem {
                pending_in_run: per_run.get(&call.run_id).copied().unwrap_or(1),
                call,
                agent_id,
            })
            .collect())
    }

    fn commit_step(
        &self,
        run_id: &str,
        lease: &Lease,
        step: &StepCommit,
    ) -> Result<Option<Vec<StoredEvent>>> {
        let now = now_ms();
        let sync = match step.transition {
            Transition::Running => Sync::Deferred,
            _ => Sync::Durable,
        };
        self.write(sync, |c| {
            let (status, output, reason, error) = step.transition.columns();
            let keep_lease = status == RunStatus::Running;
            let (token, host, pid, expires) = lease_params(keep_lease.then_some(lease));
            let run: Option<i64> = c
                .prepare_cached(
                    "UPDATE runs SET status = ?3, output = coalesce(?4, output), \
                     finish_reason = coalesce(?5, finish_reason), error = ?6, \
                     input_tokens = input_tokens + ?7, output_tokens = output_tokens + ?8, \
                     total_tokens = total_tokens + ?9, lease_token = ?10, lease_host = ?11, \
                     lease_pid = ?12, lease_expires_at = ?13, updated_at = ?14 \
                     WHERE id = ?1 AND status = 'running' AND lease_token = ?2 RETURNING key",
                )?
                .query_row(
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
                    |r| r.get(0),
                )
                .optional()?;
            let Some(run) = run else {
                return Ok(None);
            };
            let (first, first_event) = next_seqs(c, run)?;
            append_messages(c, run, first, &step.messages, &HashMap::new())?;
            let mut sources = Sources::default();
            for (i, m) in step.messages.iter().enumerate() {
                sources.add_message(first + i as i64, m);
            }
            if !step.calls.is_empty() {
                let mut stmt = c.prepare_cached(
                    "INSERT INTO calls (run, call_id, step, seq, tool_name, args, state, \
                     payload, payload_is_args, result, error, created_at, expires_at) \
                     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, \
                     CASE WHEN ?7 = 'pending' THEN ?12 + expires_in_ms END \
                     FROM runs WHERE key = ?1",
                )?;
                for (i, call) in step.calls.iter().enumerate() {
                    let (payload, payload_is_args) =
                        compact::encode_payload(&call.args, call.payload.as_ref());
                    if let Some(p) = &call.payload {
                        sources.add_payload(&call.call_id, p);
                    }
                    stmt.execute(params![
                        run,
                        call.call_id,
                        first,
                        i as i64,
                        call.tool_name,
                        to_json(&call.args),
                        call.state.as_str(),
                        payload,
                        payload_is_args,
                        call.result.as_ref().map(to_json),
                        call.error.as_ref().map(to_json),
                        now
                    ])?;
                }
            }
            let step_message = (!step.messages.is_empty()).then_some(first);
            Ok(Some(append_events(
                c,
                run,
                first_event,
                &step.events,
                now,
                step_message,
                &sources,
            )?))
        })
    }

    fn renew_lease(&self, run_id: &str, lease: &Lease) -> Result<bool> {
        let changed = self.with_sync(Sync::Deferred, || {
            Ok(self
                .conn
                .prepare_cached(
                    "UPDATE runs SET lease_expires_at = ?3 \
                     WHERE id = ?1 AND status = 'running' AND lease_token = ?2",
                )?
                .execute(params![run_id, lease.token, now_ms() + LEASE_MS])?)
        })?;
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
        self.write(Sync::Deferred, |c| {
            let (token, host, pid, expires) = lease_params(Some(lease));
            let changed = c
                .prepare_cached(
                    "UPDATE runs SET status = 'running', error = NULL, lease_token = ?4, \
                     lease_host = ?5, lease_pid = ?6, lease_expires_at = ?7, updated_at = ?8 \
                     WHERE id = ?1 AND status = ?2 AND lease_token IS ?3",
                )?
                .execute(params![
                    run_id,
                    status.as_str(),
                    expected,
                    token,
                    host,
                    pid,
                    expires,
                    now
                ])?;
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
        self.write(Sync::Durable, |c| {
            expire(c, &due_runs(c, now)?, EXPIRED_ERROR, now)?;
            let found: Option<(i64, String, i64, Option<String>)> = c
                .prepare_cached(
                    "SELECT c.run, c.state, c.step, c.resolved_by FROM runs r \
                     JOIN calls c ON c.run = r.key WHERE r.id = ?1 AND c.call_id = ?2",
                )?
                .query_row([run_id, call_id], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })
                .optional()?;
            let Some((run, state, step, by)) = found else {
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
            c.prepare_cached(
                "UPDATE calls SET state = 'resolved', result = ?3, resume_data = ?4, \
                 resolved_by = ?5, resolved_via = ?6, resolved_at = ?7 \
                 WHERE run = ?1 AND call_id = ?2 AND state = 'pending'",
            )?
            .execute(params![
                run,
                call_id,
                to_json(&resolution.result),
                to_json(&resolution.resume_data),
                resolution.by,
                resolution.via.as_str(),
                now
            ])?;
            // The step's calls, with their result texts as stored.
            let sql = format!(
                "SELECT {CALL_COLUMNS}, c.result FROM calls c JOIN runs r ON r.key = c.run \
                 WHERE c.run = ?1 AND c.step = ?2 ORDER BY c.seq"
            );
            let step_calls: Vec<(CallRecord, Option<String>)> = c
                .prepare_cached(&sql)?
                .query_map(params![run, step], |r| {
                    Ok((call_from_row(r)?, r.get(CALL_WIDTH)?))
                })?
                .collect::<rusqlite::Result<_>>()?;
            let still_pending = step_calls
                .iter()
                .filter(|(call, _)| call.state == CallState::Pending)
                .count();
            if still_pending > 0 {
                c.prepare_cached("UPDATE runs SET updated_at = ?2 WHERE key = ?1")?
                    .execute(params![run, now])?;
                return Ok(Resolved::Recorded { still_pending });
            }
            let (calls, texts): (Vec<CallRecord>, Vec<Option<String>>) =
                step_calls.into_iter().unzip();
            let StepResults { messages, events } = results(&calls);
            let waiter = waiter_alive(c, run_id, now)?;
            let driver = driver.filter(|_| !waiter);
            let (token, host, pid, expires) = lease_params(driver);
            let changed = c
                .prepare_cached(
                    "UPDATE runs SET status = 'running', lease_token = ?2, lease_host = ?3, \
                     lease_pid = ?4, lease_expires_at = ?5, updated_at = ?6 \
                     WHERE key = ?1 AND status = 'suspended'",
                )?
                .execute(params![run, token, host, pid, expires, now])?;
            if changed == 0 {
                return fail(Error::conflict(format!("run {run_id} is not suspended")));
            }
            // The step's results point at what is stored already: the assistant message
            // (names and arguments) and the call rows (result texts).
            let result_texts: HashMap<String, String> = calls
                .iter()
                .zip(texts)
                .filter_map(|(call, text)| Some((call.call_id.clone(), text?)))
                .collect();
            let mut sources = Sources::default();
            let assistant: Option<String> = c
                .prepare_cached("SELECT body FROM messages WHERE run = ?1 AND seq = ?2")?
                .query_row(params![run, step], |r| r.get(0))
                .optional()?;
            if let Some(body) = assistant {
                sources.add_message(step, &from_json::<Message>(&body)?);
            }
            let (first, first_event) = next_seqs(c, run)?;
            for (i, m) in messages.iter().enumerate() {
                sources.add_message(first + i as i64, m);
            }
            append_messages(c, run, first, &messages, &result_texts)?;
            let events = append_events(c, run, first_event, &events, now, None, &sources)?;
            Ok(Resolved::Resumed {
                events,
                driving: driver.is_some(),
            })
        })
    }

    fn cancel(&self, run_id: &str) -> Result<RunStatus> {
        let now = now_ms();
        self.write(Sync::Durable, |c| {
            let found: Option<(i64, String)> = c
                .prepare_cached("SELECT key, status FROM runs WHERE id = ?1")?
                .query_row([run_id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let Some((run, status)) = found else {
                return fail(Error::not_found(format!("no run {run_id}")));
            };
            let Some(status) = RunStatus::parse(&status) else {
                return fail(Error::not_found(format!("no run {run_id}")));
            };
            if matches!(status, RunStatus::Completed | RunStatus::Cancelled) {
                return fail(Error::conflict(format!(
                    "run {run_id} is already {}",
                    status.as_str()
                )));
            }
            c.prepare_cached(
                "UPDATE runs SET status = 'cancelled', lease_token = NULL, lease_host = NULL, \
                 lease_pid = NULL, lease_expires_at = NULL, updated_at = ?2 WHERE key = ?1",
            )?
            .execute(params![run, now])?;
            c.prepare_cached(
                "UPDATE calls SET state = 'cancelled', resolved_at = ?2 \
                 WHERE run = ?1 AND state = 'pending'",
            )?
            .execute(params![run, now])?;
            Ok(status)
        })
    }

    fn expire_due(&self, now: i64) -> Result<usize> {
        let due: bool = self
            .conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM calls WHERE state = 'pending' \
                 AND expires_at IS NOT NULL AND expires_at <= ?1)",
            )?
            .query_row([now], |r| r.get(0))?;
        if !due {
            return Ok(0);
        }
        self.write(Sync::Durable, |c| {
            expire(c, &due_runs(c, now)?, EXPIRED_ERROR, now)
        })
    }

    fn expire_run(&self, run_id: &str, error: &str) -> Result<bool> {
        let now = now_ms();
        self.write(Sync::Durable, |c| {
            let suspended: Option<i64> = c
                .prepare_cached("SELECT key FROM runs WHERE id = ?1 AND status = 'suspended'")?
                .query_row([run_id], |r| r.get(0))
                .optional()?;
            let Some(run) = suspended else {
                return Ok(false);
            };
            expire(c, &[run], error, now)?;
            Ok(true)
        })
    }

    fn has_waiter(&self, run_id: &str) -> Result<bool> {
        waiter_alive(&self.conn, run_id, now_ms())
    }

    fn add_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        self.with_sync(Sync::Deferred, || {
            self.conn
                .prepare_cached(
                    "INSERT OR REPLACE INTO waiters (run, token, host, pid, heartbeat_at) \
                     SELECT key, ?2, ?3, ?4, ?5 FROM runs WHERE id = ?1",
                )?
                .execute(params![
                    run_id,
                    waiter.token,
                    waiter.host,
                    waiter.pid,
                    now_ms()
                ])?;
            Ok(())
        })
    }

    fn beat_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        self.with_sync(Sync::Deferred, || {
            self.conn
                .prepare_cached(
                    "UPDATE waiters SET heartbeat_at = ?3 \
                     WHERE run = (SELECT key FROM runs WHERE id = ?1) AND token = ?2",
                )?
                .execute(params![run_id, waiter.token, now_ms()])?;
            Ok(())
        })
    }

    fn remove_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        self.with_sync(Sync::Deferred, || {
            self.conn
                .prepare_cached(
                    "DELETE FROM waiters WHERE run = (SELECT key FROM runs WHERE id = ?1) \
                     AND token = ?2",
                )?
                .execute(params![run_id, waiter.token])?;
            Ok(())
        })
    }

    fn reply(&self, run_id: &str, message: &str, lease: &Lease) -> Result<()> {
        let now = now_ms();
        self.write(Sync::Durable, |c| {
            let (token, host, pid, expires) = lease_params(Some(lease));
            let run: Option<i64> = c
                .prepare_cached(
                    "UPDATE runs SET status = 'running', output = NULL, finish_reason = NULL, \
                     lease_token = ?2, lease_host = ?3, lease_pid = ?4, lease_expires_at = ?5, \
                     updated_at = ?6 WHERE id = ?1 AND status = 'completed' RETURNING key",
                )?
                .query_row(params![run_id, token, host, pid, expires, now], |r| {
                    r.get(0)
                })
                .optional()?;
            let Some(run) = run else {
                return fail(Error::conflict(format!(
                    "run {run_id} is not completed; reply continues a completed run"
                )));
            };
            let user = [Message::User {
                content: message.to_string(),
            }];
            append_messages(c, run, next_seqs(c, run)?.0, &user, &HashMap::new())?;
            Ok(())
        })
    }

    fn wait_for_change(&self, _run_id: &str, timeout: Duration) -> Result<()> {
        std::thread::sleep(timeout);
        Ok(())
    }

    fn prune(&self, before: i64, statuses: &[RunStatus]) -> Result<usize> {
        self.write(Sync::Durable, |c| {
            let mut stmt =
                c.prepare_cached("DELETE FROM runs WHERE status = ?1 AND updated_at < ?2")?;
            let mut n = 0;
            for st in statuses.iter().filter(|s| s.is_finished()) {
                n += stmt.execute(params![st.as_str(), before])?;
            }
            if n > 0 {
                c.execute(
                    "DELETE FROM documents WHERE key NOT IN (SELECT agent FROM runs)",
                    [],
                )?;
            }
            Ok(n)
        })
    }
}
