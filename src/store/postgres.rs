//! The PostgreSQL backend, for teams whose runners and reviewers are on different machines.
//!
//! Same tables and invariants as SQLite, in a schema of its own (`mastra_ask`). Every
//! transition is one transaction that first locks the run's row, so a run's sequences and
//! its items are changed by one transaction at a time; migrations run under an advisory
//! lock. Each transition sends `NOTIFY mastra_ask, '<run id>'`, so waiters wake at once.

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, GenericClient, Row, Transaction};
use serde_json::Value;

use super::{
    now_ms, Access, Lease, NewRun, PendingItem, Resolved, Run, RunFilter, StepCommit, StepResults,
    Store, EXPIRED, LEASE_MS,
};
use crate::domain::{
    CallRecord, CallState, Event, Message, Resolution, RunStatus, StoredEvent, Usage,
};
use crate::error::{fail, Error};

const CHANNEL: &str = "mastra_ask";
const MIGRATION_LOCK: i64 = 0x6d61_7374_7261;
const EXPIRED_ERROR: &str = "no answer came before the deadline; the pending items expired";

/// Numbered migrations: released ones are never edited, new ones are appended.
const MIGRATIONS: &[&str] = &[r#"
CREATE TABLE runs (
    id TEXT COLLATE "C" PRIMARY KEY,
    agent_id TEXT NOT NULL,
    agent TEXT NOT NULL,
    cwd TEXT NOT NULL,
    status TEXT NOT NULL,
    output TEXT,
    finish_reason TEXT,
    error TEXT,
    input_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    total_tokens BIGINT NOT NULL DEFAULT 0,
    lease_token TEXT,
    lease_host TEXT,
    lease_pid BIGINT,
    lease_expires_at BIGINT,
    expires_in_ms BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX runs_by_status ON runs (status, id);
CREATE TABLE messages (
    run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE events (
    run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE calls (
    run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    call_id TEXT NOT NULL,
    step BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    tool_name TEXT NOT NULL,
    args TEXT NOT NULL,
    state TEXT NOT NULL,
    payload TEXT,
    result TEXT,
    error TEXT,
    resume_data TEXT,
    resolved_by TEXT,
    resolved_via TEXT,
    resolved_at BIGINT,
    expires_at BIGINT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (run_id, call_id)
);
CREATE INDEX calls_pending ON calls (created_at) WHERE state = 'pending';
CREATE INDEX calls_expiring ON calls (expires_at) WHERE state = 'pending' AND expires_at IS NOT NULL;
CREATE TABLE waiters (
    run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    token TEXT NOT NULL,
    host TEXT NOT NULL,
    pid BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL,
    PRIMARY KEY (run_id, token)
);
"#];

pub struct PgStore {
    client: RefCell<Client>,
    listening: Cell<bool>,
}

/// `url` without its password, for messages.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (auth, host) = match rest.split_once('@') {
        Some(parts) => parts,
        None => return url.to_string(),
    };
    let user = auth.split(':').next().unwrap_or_default();
    format!("{scheme}://{user}@{host}")
}

fn tls() -> Result<tokio_postgres_rustls::MakeRustlsConnect> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

fn connect(url: &str) -> Result<Client> {
    let shown = redact(url);
    let mut config: postgres::Config = url
        .parse()
        .map_err(|e| Error::usage(format!("the store URL {shown} is not valid: {e}")))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    if config.get_password().is_none() {
        if let Ok(pw) = std::env::var("PGPASSWORD") {
            config.password(pw);
        }
    }
    config.application_name("mastra-ask");
    config.options("-c search_path=mastra_ask");
    config
        .connect(tls()?)
        .with_context(|| format!("connecting to the store at {shown}"))
}

impl PgStore {
    pub fn open(url: &str, access: Access) -> Result<Option<PgStore>> {
        let mut client = connect(url)?;
        let version = schema_version(&mut client)?;
        if version.is_none() && access == Access::Existing {
            return Ok(None);
        }
        if version.unwrap_or(0) < MIGRATIONS.len() as i64 {
            migrate(&mut client).context("preparing the store")?;
        }
        Ok(Some(PgStore {
            client: RefCell::new(client),
            listening: Cell::new(false),
        }))
    }

    /// Runs `f` in one transaction, committed when it succeeds.
    fn write<T>(&self, f: impl FnOnce(&mut Transaction) -> Result<T>) -> Result<T> {
        let mut client = self.client.borrow_mut();
        let mut tx = client.transaction()?;
        let value = f(&mut tx)?;
        tx.commit()?;
        Ok(value)
    }

    fn read<T>(&self, f: impl FnOnce(&mut Client) -> Result<T>) -> Result<T> {
        f(&mut self.client.borrow_mut())
    }
}

fn schema_version(client: &mut Client) -> Result<Option<i64>> {
    let exists: bool = client
        .query_one(
            "SELECT to_regclass('mastra_ask.schema_version') IS NOT NULL",
            &[],
        )?
        .get(0);
    if !exists {
        return Ok(None);
    }
    let row = client.query_opt("SELECT max(version) FROM mastra_ask.schema_version", &[])?;
    Ok(row.and_then(|r| r.get::<_, Option<i64>>(0)))
}

/// Applies the missing migrations; safe when several processes do it at once.
fn migrate(client: &mut Client) -> Result<()> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    tx.batch_execute(
        "CREATE SCHEMA IF NOT EXISTS mastra_ask; \
         CREATE TABLE IF NOT EXISTS mastra_ask.schema_version (version BIGINT NOT NULL)",
    )?;
    let done: i64 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM mastra_ask.schema_version",
            &[],
        )?
        .get(0);
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(done.max(0) as usize) {
        tx.batch_execute(sql)
            .with_context(|| format!("applying migration {}", i + 1))?;
        tx.execute(
            "INSERT INTO mastra_ask.schema_version (version) VALUES ($1)",
            &[&(i as i64 + 1)],
        )?;
    }
    tx.commit()?;
    Ok(())
}

fn to_json(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).expect("values built by this program serialize")
}

fn from_json<T: serde::de::DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_str(s).context("reading a stored JSON value")
}

fn opt_json(s: Option<String>) -> Result<Option<Value>> {
    s.map(|s| from_json(&s)).transpose()
}

const RUN_COLUMNS: &str = "id, agent_id, agent, cwd, status, output, finish_reason, error, \
    input_tokens, output_tokens, total_tokens, lease_token, lease_host, lease_pid, \
    lease_expires_at, created_at, updated_at";

fn run_from_row(r: &Row) -> Result<Run> {
    let status: String = r.get(4);
    let lease_token: Option<String> = r.get(11);
    Ok(Run {
        id: r.get(0),
        agent_id: r.get(1),
        agent: from_json(r.get::<_, &str>(2))?,
        cwd: r.get(3),
        host: String::new(),
        status: RunStatus::parse(&status).unwrap_or(RunStatus::Failed),
        output: r.get(5),
        finish_reason: r.get(6),
        error: r.get(7),
        usage: Usage {
            input_tokens: r.get::<_, i64>(8) as u64,
            output_tokens: r.get::<_, i64>(9) as u64,
            total_tokens: r.get::<_, i64>(10) as u64,
        },
        lease: lease_token.map(|token| Lease {
            token,
            host: r.get::<_, Option<String>>(12).unwrap_or_default(),
            pid: r.get::<_, Option<i64>>(13).unwrap_or(0) as u32,
            start: 0,
            expires_at: r.get::<_, Option<i64>>(14).unwrap_or(0),
        }),
        created_at: r.get(15),
        updated_at: r.get(16),
    })
}

const CALL_COLUMNS: &str = "c.run_id, c.call_id, c.seq, c.step, c.tool_name, c.args, c.state, \
    c.payload, c.result, c.error, c.resume_data, c.resolved_by, c.resolved_via, \
    c.resolved_at, c.expires_at, c.created_at";

fn call_from_row(r: &Row) -> Result<CallRecord> {
    let state: String = r.get(6);
    Ok(CallRecord {
        run_id: r.get(0),
        call_id: r.get(1),
        seq: r.get(2),
        step: r.get(3),
        tool_name: r.get(4),
        args: from_json(r.get::<_, &str>(5))?,
        state: CallState::parse(&state).unwrap_or(CallState::Cancelled),
        payload: opt_json(r.get(7))?,
        result: opt_json(r.get(8))?,
        error: opt_json(r.get(9))?,
        resume_data: opt_json(r.get(10))?,
        resolved_by: r.get(11),
        resolved_via: r.get(12),
        resolved_at: r.get(13),
        expires_at: r.get(14),
        created_at: r.get(15),
    })
}

/// Locks the run's row for the rest of the transaction; its status, if it exists.
fn lock_run(tx: &mut Transaction, run_id: &str) -> Result<Option<RunStatus>> {
    let row = tx.query_opt(
        "SELECT status FROM runs WHERE id = $1 FOR UPDATE",
        &[&run_id],
    )?;
    Ok(row.and_then(|r| RunStatus::parse(r.get::<_, &str>(0))))
}

fn notify(tx: &mut Transaction, run_id: &str) -> Result<()> {
    tx.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &run_id])?;
    Ok(())
}

fn next_seq(tx: &mut Transaction, table: &str, run_id: &str) -> Result<i64> {
    let sql = format!("SELECT coalesce(max(seq) + 1, 0) FROM {table} WHERE run_id = $1");
    Ok(tx.query_one(&sql, &[&run_id])?.get(0))
}

fn append_messages(tx: &mut Transaction, run_id: &str, messages: &[Message]) -> Result<i64> {
    let first = next_seq(tx, "messages", run_id)?;
    let stmt = tx.prepare("INSERT INTO messages (run_id, seq, body) VALUES ($1, $2, $3)")?;
    for (i, m) in messages.iter().enumerate() {
        tx.execute(&stmt, &[&run_id, &(first + i as i64), &to_json(m)])?;
    }
    Ok(first)
}

fn append_events(
    tx: &mut Transaction,
    run_id: &str,
    events: &[Event],
    at: i64,
) -> Result<Vec<StoredEvent>> {
    let first = next_seq(tx, "events", run_id)?;
    let stmt = tx.prepare(
        "INSERT INTO events (run_id, seq, kind, payload, at) VALUES ($1, $2, $3, $4, $5)",
    )?;
    let mut stored = Vec::with_capacity(events.len());
    for (i, e) in events.iter().enumerate() {
        let seq = first + i as i64;
        tx.execute(&stmt, &[&run_id, &seq, &e.kind, &to_json(&e.payload), &at])?;
        stored.push(StoredEvent {
            seq,
            at,
            event: e.clone(),
        });
    }
    Ok(stored)
}

struct LeaseCols {
    token: Option<String>,
    host: Option<String>,
    pid: Option<i64>,
    expires: Option<i64>,
}

fn lease_cols(lease: Option<&Lease>) -> LeaseCols {
    LeaseCols {
        token: lease.map(|l| l.token.clone()),
        host: lease.map(|l| l.host.clone()),
        pid: lease.map(|l| l.pid as i64),
        expires: lease.map(|_| now_ms() + LEASE_MS),
    }
}

fn due_runs(tx: &mut Transaction, now: i64) -> Result<Vec<String>> {
    Ok(tx
        .query(
            "SELECT DISTINCT run_id FROM calls WHERE state = 'pending' \
             AND expires_at IS NOT NULL AND expires_at <= $1",
            &[&now],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// Closes the runs' pending items as expired and fails the runs.
fn expire(tx: &mut Transaction, runs: &[String], error: &str, now: i64) -> Result<usize> {
    for run in runs {
        if lock_run(tx, run)? != Some(RunStatus::Suspended) {
            continue;
        }
        tx.execute(
            "UPDATE calls SET state = 'expired', resolved_at = $2 \
             WHERE run_id = $1 AND state = 'pending'",
            &[run, &now],
        )?;
        tx.execute(
            "UPDATE runs SET status = 'failed', finish_reason = $2, error = $3, \
             lease_token = NULL, lease_host = NULL, lease_pid = NULL, lease_expires_at = NULL, \
             updated_at = $4 WHERE id = $1",
            &[run, &EXPIRED, &error, &now],
        )?;
        notify(tx, run)?;
    }
    Ok(runs.len())
}

fn waiter_alive(c: &mut impl GenericClient, run_id: &str, now: i64) -> Result<bool> {
    Ok(c.query_one(
        "SELECT EXISTS (SELECT 1 FROM waiters WHERE run_id = $1 AND heartbeat_at > $2)",
        &[&run_id, &(now - LEASE_MS)],
    )?
    .get(0))
}

impl Store for PgStore {
    fn create_run(&self, run: &NewRun) -> Result<Vec<StoredEvent>> {
        let now = now_ms();
        self.write(|tx| {
            let l = lease_cols(Some(run.lease));
            tx.execute(
                "INSERT INTO runs (id, agent_id, agent, cwd, status, lease_token, lease_host, \
                 lease_pid, lease_expires_at, expires_in_ms, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, 'running', $5, $6, $7, $8, $9, $10, $10)",
                &[
                    &run.id,
                    &run.agent_id,
                    &to_json(run.agent),
                    &run.cwd,
                    &l.token,
                    &l.host,
                    &l.pid,
                    &l.expires,
                    &run.expires_in_ms,
                    &now,
                ],
            )?;
            append_messages(
                tx,
                run.id,
                &[Message::User {
                    content: run.prompt.to_string(),
                }],
            )?;
            let events = append_events(tx, run.id, run.events, now)?;
            notify(tx, run.id)?;
            Ok(events)
        })
    }

    fn run(&self, id: &str) -> Result<Option<Run>> {
        let sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = $1");
        self.read(|c| {
            c.query_opt(&sql, &[&id])?
                .as_ref()
                .map(run_from_row)
                .transpose()
        })
    }

    fn run_ids_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<String>> {
        self.read(|c| {
            Ok(c.query(
                "SELECT id FROM runs WHERE id >= $1 AND id < $1 || '~' ORDER BY id LIMIT $2",
                &[&prefix, &(limit as i64)],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
        })
    }

    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE $1::text IS NULL OR status = $1 \
             ORDER BY created_at DESC, id DESC LIMIT $2"
        );
        let status = filter.status.map(RunStatus::as_str);
        self.read(|c| {
            c.query(&sql, &[&status, &(filter.limit as i64)])?
                .iter()
                .map(run_from_row)
                .collect()
        })
    }

    fn messages(&self, run_id: &str) -> Result<Vec<Message>> {
        self.read(|c| {
            c.query(
                "SELECT body FROM messages WHERE run_id = $1 ORDER BY seq",
                &[&run_id],
            )?
            .iter()
            .map(|r| from_json(r.get::<_, &str>(0)))
            .collect()
        })
    }

    fn events(&self, run_id: &str) -> Result<Vec<StoredEvent>> {
        self.read(|c| {
            c.query(
                "SELECT seq, at, kind, payload FROM events WHERE run_id = $1 ORDER BY seq",
                &[&run_id],
            )?
            .iter()
            .map(|r| {
                Ok(StoredEvent {
                    seq: r.get(0),
                    at: r.get(1),
                    event: Event {
                        kind: r.get(2),
                        payload: from_json(r.get::<_, &str>(3))?,
                    },
                })
            })
            .collect()
        })
    }

    fn calls(&self, run_id: &str) -> Result<Vec<CallRecord>> {
        let sql = format!(
            "SELECT {CALL_COLUMNS} FROM calls c WHERE c.run_id = $1 ORDER BY c.step, c.seq"
        );
        self.read(|c| {
            c.query(&sql, &[&run_id])?
                .iter()
                .map(call_from_row)
                .collect()
        })
    }

    fn pending(&self, run_id: Option<&str>) -> Result<Vec<PendingItem>> {
        let sql = format!(
            "SELECT {CALL_COLUMNS}, r.agent_id, \
             (SELECT count(*) FROM calls p WHERE p.run_id = c.run_id AND p.state = 'pending') \
             FROM calls c JOIN runs r ON r.id = c.run_id \
             WHERE c.state = 'pending' AND ($1::text IS NULL OR c.run_id = $1) \
             AND (c.expires_at IS NULL OR c.expires_at > $2) \
             ORDER BY c.created_at, c.run_id, c.step, c.seq"
        );
        self.read(|c| {
            c.query(&sql, &[&run_id, &now_ms()])?
                .iter()
                .map(|r| {
                    Ok(PendingItem {
                        call: call_from_row(r)?,
                        agent_id: r.get(16),
                        pending_in_run: r.get::<_, i64>(17) as usize,
                    })
                })
                .collect()
        })
    }

    fn commit_step(
        &self,
        run_id: &str,
        lease: &Lease,
        step: &StepCommit,
    ) -> Result<Option<Vec<StoredEvent>>> {
        let now = now_ms();
        self.write(|tx| {
            lock_run(tx, run_id)?;
            let (status, output, reason, error) = step.transition.columns();
            let keep_lease = status == RunStatus::Running;
            let l = lease_cols(keep_lease.then_some(lease));
            let changed = tx.execute(
                "UPDATE runs SET status = $3, output = coalesce($4, output), \
                 finish_reason = coalesce($5, finish_reason), error = $6, \
                 input_tokens = input_tokens + $7, output_tokens = output_tokens + $8, \
                 total_tokens = total_tokens + $9, lease_token = $10, lease_host = $11, \
                 lease_pid = $12, lease_expires_at = $13, updated_at = $14 \
                 WHERE id = $1 AND status = 'running' AND lease_token = $2",
                &[
                    &run_id,
                    &lease.token,
                    &status.as_str(),
                    &output,
                    &reason,
                    &error,
                    &(step.usage.input_tokens as i64),
                    &(step.usage.output_tokens as i64),
                    &(step.usage.total_tokens as i64),
                    &l.token,
                    &l.host,
                    &l.pid,
                    &l.expires,
                    &now,
                ],
            )?;
            if changed == 0 {
                return Ok(None);
            }
            let first = append_messages(tx, run_id, &step.messages)?;
            if !step.calls.is_empty() {
                let stmt = tx.prepare(
                    "INSERT INTO calls (run_id, call_id, step, seq, tool_name, args, state, \
                     payload, result, error, created_at, expires_at) \
                     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
                     CASE WHEN $7 = 'pending' THEN $11 + expires_in_ms END \
                     FROM runs WHERE id = $1",
                )?;
                for (i, call) in step.calls.iter().enumerate() {
                    tx.execute(
                        &stmt,
                        &[
                            &run_id,
                            &call.call_id,
                            &first,
                            &(i as i64),
                            &call.tool_name,
                            &to_json(&call.args),
                            &call.state.as_str(),
                            &call.payload.as_ref().map(to_json),
                            &call.result.as_ref().map(to_json),
                            &call.error.as_ref().map(to_json),
                            &now,
                        ],
                    )?;
                }
            }
            let events = append_events(tx, run_id, &step.events, now)?;
            notify(tx, run_id)?;
            Ok(Some(events))
        })
    }

    fn renew_lease(&self, run_id: &str, lease: &Lease) -> Result<bool> {
        self.read(|c| {
            let changed = c.execute(
                "UPDATE runs SET lease_expires_at = $3 \
                 WHERE id = $1 AND status = 'running' AND lease_token = $2",
                &[&run_id, &lease.token, &(now_ms() + LEASE_MS)],
            )?;
            Ok(changed == 1)
        })
    }

    fn take_lease(
        &self,
        run_id: &str,
        status: RunStatus,
        expected: Option<&str>,
        lease: &Lease,
    ) -> Result<bool> {
        let now = now_ms();
        self.write(|tx| {
            lock_run(tx, run_id)?;
            let l = lease_cols(Some(lease));
            let changed = tx.execute(
                "UPDATE runs SET status = 'running', error = NULL, lease_token = $4, \
                 lease_host = $5, lease_pid = $6, lease_expires_at = $7, updated_at = $8 \
                 WHERE id = $1 AND status = $2 AND lease_token IS NOT DISTINCT FROM $3",
                &[
                    &run_id,
                    &status.as_str(),
                    &expected,
                    &l.token,
                    &l.host,
                    &l.pid,
                    &l.expires,
                    &now,
                ],
            )?;
            if changed == 1 {
                notify(tx, run_id)?;
            }
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
        self.write(|tx| {
            let due = due_runs(tx, now)?;
            expire(tx, &due, EXPIRED_ERROR, now)?;
            let status = lock_run(tx, run_id)?;
            let found = tx.query_opt(
                "SELECT state, step, resolved_by FROM calls WHERE run_id = $1 AND call_id = $2",
                &[&run_id, &call_id],
            )?;
            let Some(found) = found.filter(|_| status.is_some()) else {
                return fail(Error::not_found(format!(
                    "run {run_id} has no tool call {call_id}"
                )));
            };
            let (state, step, by): (String, i64, Option<String>) =
                (found.get(0), found.get(1), found.get(2));
            if state != CallState::Pending.as_str() {
                let who = by.map(|b| format!(" by {b}")).unwrap_or_default();
                return fail(Error::conflict(format!(
                    "tool call {call_id} is not pending: it was {state}{who}"
                )));
            }
            tx.execute(
                "UPDATE calls SET state = 'resolved', result = $3, resume_data = $4, \
                 resolved_by = $5, resolved_via = $6, resolved_at = $7 \
                 WHERE run_id = $1 AND call_id = $2 AND state = 'pending'",
                &[
                    &run_id,
                    &call_id,
                    &to_json(&resolution.result),
                    &to_json(&resolution.resume_data),
                    &resolution.by,
                    &resolution.via.as_str(),
                    &now,
                ],
            )?;
            let still_pending: i64 = tx
                .query_one(
                    "SELECT count(*) FROM calls WHERE run_id = $1 AND step = $2 AND state = 'pending'",
                    &[&run_id, &step],
                )?
                .get(0);
            if still_pending > 0 {
                tx.execute(
                    "UPDATE runs SET updated_at = $2 WHERE id = $1",
                    &[&run_id, &now],
                )?;
                notify(tx, run_id)?;
                return Ok(Resolved::Recorded {
                    still_pending: still_pending as usize,
                });
            }
            if status != Some(RunStatus::Suspended) {
                return fail(Error::conflict(format!("run {run_id} is not suspended")));
            }
            let sql = format!(
                "SELECT {CALL_COLUMNS} FROM calls c WHERE c.run_id = $1 AND c.step = $2 ORDER BY c.seq"
            );
            let calls = tx
                .query(&sql, &[&run_id, &step])?
                .iter()
                .map(call_from_row)
                .collect::<Result<Vec<_>>>()?;
            let StepResults { messages, events } = results(&calls);
            let waiter = waiter_alive(tx, run_id, now)?;
            let driver = driver.filter(|_| !waiter);
            let l = lease_cols(driver);
            tx.execute(
                "UPDATE runs SET status = 'running', lease_token = $2, lease_host = $3, \
                 lease_pid = $4, lease_expires_at = $5, updated_at = $6 WHERE id = $1",
                &[&run_id, &l.token, &l.host, &l.pid, &l.expires, &now],
            )?;
            append_messages(tx, run_id, &messages)?;
            let events = append_events(tx, run_id, &events, now)?;
            notify(tx, run_id)?;
            Ok(Resolved::Resumed {
                events,
                driving: driver.is_some(),
            })
        })
    }

    fn cancel(&self, run_id: &str) -> Result<RunStatus> {
        let now = now_ms();
        self.write(|tx| {
            let Some(status) = lock_run(tx, run_id)? else {
                return fail(Error::not_found(format!("no run {run_id}")));
            };
            if matches!(status, RunStatus::Completed | RunStatus::Cancelled) {
                return fail(Error::conflict(format!(
                    "run {run_id} is already {}",
                    status.as_str()
                )));
            }
            tx.execute(
                "UPDATE runs SET status = 'cancelled', lease_token = NULL, lease_host = NULL, \
                 lease_pid = NULL, lease_expires_at = NULL, updated_at = $2 WHERE id = $1",
                &[&run_id, &now],
            )?;
            tx.execute(
                "UPDATE calls SET state = 'cancelled', resolved_at = $2 \
                 WHERE run_id = $1 AND state = 'pending'",
                &[&run_id, &now],
            )?;
            notify(tx, run_id)?;
            Ok(status)
        })
    }

    fn expire_due(&self, now: i64) -> Result<usize> {
        let due: bool = self.read(|c| {
            Ok(c.query_one(
                "SELECT EXISTS (SELECT 1 FROM calls WHERE state = 'pending' \
                 AND expires_at IS NOT NULL AND expires_at <= $1)",
                &[&now],
            )?
            .get(0))
        })?;
        if !due {
            return Ok(0);
        }
        self.write(|tx| {
            let runs = due_runs(tx, now)?;
            expire(tx, &runs, EXPIRED_ERROR, now)
        })
    }

    fn expire_run(&self, run_id: &str, error: &str) -> Result<bool> {
        let now = now_ms();
        self.write(|tx| {
            if lock_run(tx, run_id)? != Some(RunStatus::Suspended) {
                return Ok(false);
            }
            expire(tx, &[run_id.to_string()], error, now)?;
            Ok(true)
        })
    }

    fn has_waiter(&self, run_id: &str) -> Result<bool> {
        self.read(|c| waiter_alive(c, run_id, now_ms()))
    }

    fn add_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        self.read(|c| {
            c.execute(
                "INSERT INTO waiters (run_id, token, host, pid, heartbeat_at) \
                 VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (run_id, token) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
                &[
                    &run_id,
                    &waiter.token,
                    &waiter.host,
                    &(waiter.pid as i64),
                    &now_ms(),
                ],
            )?;
            Ok(())
        })
    }

    fn beat_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        self.read(|c| {
            c.execute(
                "UPDATE waiters SET heartbeat_at = $3 WHERE run_id = $1 AND token = $2",
                &[&run_id, &waiter.token, &now_ms()],
            )?;
            Ok(())
        })
    }

    fn remove_waiter(&self, run_id: &str, waiter: &Lease) -> Result<()> {
        self.read(|c| {
            c.execute(
                "DELETE FROM waiters WHERE run_id = $1 AND token = $2",
                &[&run_id, &waiter.token],
            )?;
            Ok(())
        })
    }

    fn reply(&self, run_id: &str, message: &str, lease: &Lease) -> Result<()> {
        let now = now_ms();
        self.write(|tx| {
            lock_run(tx, run_id)?;
            let l = lease_cols(Some(lease));
            let changed = tx.execute(
                "UPDATE runs SET status = 'running', output = NULL, finish_reason = NULL, \
                 lease_token = $2, lease_host = $3, lease_pid = $4, lease_expires_at = $5, \
                 updated_at = $6 WHERE id = $1 AND status = 'completed'",
                &[&run_id, &l.token, &l.host, &l.pid, &l.expires, &now],
            )?;
            if changed == 0 {
                return fail(Error::conflict(format!(
                    "run {run_id} is not completed; reply continues a completed run"
                )));
            }
            append_messages(
                tx,
                run_id,
                &[Message::User {
                    content: message.to_string(),
                }],
            )?;
            notify(tx, run_id)?;
            Ok(())
        })
    }

    fn prune(&self, before: i64, statuses: &[RunStatus]) -> Result<usize> {
        let finished: Vec<&str> = statuses
            .iter()
            .filter(|s| s.is_finished())
            .map(|s| s.as_str())
            .collect();
        self.write(|tx| {
            let n = tx.execute(
                "DELETE FROM runs WHERE status = ANY($1) AND updated_at < $2",
                &[&finished, &before],
            )?;
            Ok(n as usize)
        })
    }

    fn wait_for_change(&self, _run_id: &str, timeout: Duration) -> Result<()> {
        let mut client = self.client.borrow_mut();
        if !self.listening.replace(true) {
            client.batch_execute(&format!("LISTEN {CHANNEL}"))?;
        }
        let mut notifications = client.notifications();
        let mut iter = notifications.timeout_iter(timeout);
        // Any notification (or the timeout) is a reason to look again.
        let _ = iter.next()?;
        Ok(())
    }
}
