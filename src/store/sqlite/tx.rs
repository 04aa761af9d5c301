//! The SQLite side of a transition: the row operations of one `BEGIN IMMEDIATE`
//! transaction (`store::Tx`). The write lock covers the whole store, so locking a run is
//! reading it. Child rows name their run by its integer key, and appended rows go through
//! the compact encoding (`compact.rs`). No decisions here: the transitions make them.

use std::collections::HashMap;

use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};

use super::compact::{self, to_json, Cursor, Sources};
use super::errors::classify;
use super::read::{
    decoded, message, SqlRow, CALLS_OF_RUN, CALL_ID, CALL_RESULT, CALL_STEP, MESSAGES_OF_RUN,
};

use crate::domain::{
    CallRecord, CallState, Event, Message, NewCall, StartedCall, StoredEvent, ToolProcess,
};
use crate::store::backend::{
    statements, Batch, CallHead, Origin, Resolving, RunInsert, RunRow, ToolOutput, Tx,
};
use crate::store::columns::{self, stored, GATE_COLUMNS, LEDGER_COLUMNS};
use crate::store::{damage, Lease, LedgerEntry, LedgerFilter, LedgerKey, Result};

/// One open write transaction.
pub struct SqliteTx<'c> {
    pub(super) tx: Transaction<'c>,
    /// The result texts of the step `step_calls` read last, as stored (run key, step, call
    /// id → text): what the step's results point at when they are appended next. Forgotten
    /// at any change of a call.
    results: Option<(i64, i64, HashMap<String, String>)>,
    /// What this transaction knows of the run it locked or inserted last.
    held: Option<Held>,
}

/// Of the run a transaction locked or inserted last: what was read with its row, kept up
/// to date here (the write lock keeps every other writer out), so that no statement of its
/// own reads it again.
#[derive(Clone, Copy, Debug)]
struct Held {
    key: i64,
    /// The next message's and the next event's sequence numbers.
    message: i64,
    event: i64,
    /// Whether the run may have `running` calls.
    running: bool,
    /// Whether the run may have registered waiters.
    waiters: bool,
}

/// The columns `columns::run_row` reads before `GATE_COLUMNS`.
const RUN_ROW: &str = "key, id, status, output, finish_reason, error, input_tokens, \
    output_tokens, total_tokens, lease_token, lease_host, lease_pid, lease_start, \
    lease_expires_at, expires_in_ms, updated_at";

/// The run's next message and event sequence numbers, as columns of its `runs` row.
const NEXT_SEQS: &str = "(SELECT coalesce(max(seq) + 1, 0) FROM messages WHERE run = runs.key), \
    (SELECT coalesce(max(seq) + 1, 0) FROM events WHERE run = runs.key)";
/// Whether the run has `running` calls and registered waiters, as columns of its row.
const HAS_RUNNING_AND_WAITERS: &str = "EXISTS (SELECT 1 FROM calls \
    WHERE run = runs.key AND state = 'running'), EXISTS (SELECT 1 FROM waiters WHERE run = runs.key)";
/// Where `NEXT_SEQS` and `HAS_RUNNING_AND_WAITERS` follow `RUN_ROW` and `GATE_COLUMNS`.
const HELD_AT: usize = 21;

/// A lease's columns (token, host, pid, start, expiry), all NULL for none.
type LeaseParams<'a> = (
    Option<&'a str>,
    Option<&'a str>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

fn lease_params(lease: Option<&Lease>) -> LeaseParams<'_> {
    match lease {
        Some(l) => (
            Some(l.token.as_str()),
            Some(l.host.as_str()),
            Some(i64::from(l.pid)),
            Some(stored(l.start)),
            Some(l.expires_at),
        ),
        None => (None, None, None, None, None),
    }
}

impl<'c> SqliteTx<'c> {
    /// Takes the store's write lock (waiting up to the busy timeout).
    pub fn begin(conn: &'c Connection) -> Result<SqliteTx<'c>> {
        Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
            .map(|tx| SqliteTx {
                tx,
                results: None,
                held: None,
            })
            .map_err(|e| classify("waiting for the store's write lock", e))
    }

    pub fn commit(self) -> Result<()> {
        self.tx
            .commit()
            .map_err(|e| classify("writing to the store", e))
    }

    /// The sequence numbers the run's next message and next event get.
    fn next_seqs(&self, run: i64) -> Result<(i64, i64)> {
        if let Some(h) = self.held(run) {
            return Ok((h.message, h.event));
        }
        Ok(self
            .tx
            .prepare_cached(&format!("SELECT {NEXT_SEQS} FROM runs WHERE key = ?1"))?
            .query_row([run], |r| Ok((r.get(0)?, r.get(1)?)))?)
    }

    /// What is known of the run with this key, when it is the one held.
    fn held(&self, run: i64) -> Option<Held> {
        self.held.filter(|h| h.key == run)
    }

    fn held_mut(&mut self, run: i64) -> Option<&mut Held> {
        self.held.as_mut().filter(|h| h.key == run)
    }

    /// The key of a stored document with this text, stored now if it is new.
    fn document(&self, body: &str) -> Result<i64> {
        let hash = hash(body);
        let found = self
            .tx
            .prepare_cached("SELECT key FROM documents WHERE hash = ?1 AND body = ?2")?
            .query_row(params![hash, body], |r| r.get(0))
            .optional()?;
        if let Some(key) = found {
            return Ok(key);
        }
        self.tx
            .prepare_cached("INSERT INTO documents (hash, body) VALUES (?1, ?2)")?
            .execute(params![hash, body])?;
        Ok(self.tx.last_insert_rowid())
    }

    /// What the results of step `step` point at: the step's assistant message, and its
    /// calls' result texts as stored (call id → text).
    fn step_sources(
        &mut self,
        run_row: &RunRow,
        step: i64,
        sources: &mut Sources,
    ) -> Result<HashMap<String, String>> {
        let run = run_row.key;
        // From the run's one messages statement, compiled for the leg anyway.
        let mut stmt = self.tx.prepare_cached(MESSAGES_OF_RUN)?;
        let mut rows = stmt.query([&run_row.id])?;
        while let Some(r) = rows.next()? {
            if r.get::<_, i64>(0).is_ok_and(|seq| seq == step) {
                if let Ok((_, m)) = message(r) {
                    sources.add_message(step, &m);
                }
                break;
            }
        }
        drop(rows);
        drop(stmt);
        if let Some((_, _, texts)) = self.results.take().filter(|r| (r.0, r.1) == (run, step)) {
            return Ok(texts);
        }
        let texts = self
            .tx
            .prepare_cached("SELECT call_id, result FROM calls WHERE run = ?1 AND step = ?2")?
            .query_map(params![run, step], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
            })?
            .filter_map(|row| match row {
                Ok((id, Some(text))) => Some(Ok((id, text))),
                Ok(_) => None,
                Err(e) => Some(Err(e)),
            })
            .collect::<rusqlite::Result<_>>()?;
        Ok(texts)
    }

    /// Appends messages from sequence number `first`; a tool message whose content is the
    /// result text in `results` (call id → text) points at its call's row instead.
    fn append_messages(
        &self,
        run: i64,
        first: i64,
        messages: &[Message],
        results: &HashMap<String, String>,
    ) -> Result<()> {
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO messages (run, seq, call_id, body) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (seq, m) in (first..).zip(messages) {
            let (call_id, body) = compact::encode_message(m, results);
            stmt.execute(params![run, seq, call_id, body])?;
        }
        Ok(())
    }

    /// Inserts a step's calls (the step is its assistant message, `step`).
    fn insert_calls(
        &self,
        run: i64,
        step: i64,
        batch: &Batch,
        sources: &mut Sources,
    ) -> Result<()> {
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO calls (run, call_id, step, seq, tool_name, args, state, payload, \
             payload_is_args, result, error, created_at, expires_at, kind) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        )?;
        for (seq, call) in (0i64..).zip(batch.calls) {
            let (payload, payload_is_args) =
                compact::encode_payload(&call.args, call.payload.as_ref());
            if let Some(p) = &call.payload {
                sources.add_payload(&call.call_id, p);
            }
            stmt.execute(params![
                run,
                call.call_id,
                step,
                seq,
                call.tool_name,
                to_json(&call.args),
                call.state.as_str(),
                payload,
                payload_is_args,
                call.result.as_ref().map(to_json),
                call.error.as_ref().map(to_json),
                batch.at,
                deadline(call, batch.deadline),
                call.kind.map(|k| k.noun()),
            ])?;
        }
        Ok(())
    }

    /// Appends events from sequence number `first`; `step_message` is the sequence number
    /// of the assistant message stored with them and `sources` what they may point at.
    fn append_events(
        &self,
        run: i64,
        first: i64,
        events: &[Event],
        at: i64,
        step_message: Option<i64>,
        sources: &Sources,
    ) -> Result<Vec<StoredEvent>> {
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO events (run, seq, kind, derived, call_id, message, payload, at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        let mut cursor = Cursor::default();
        let mut stored = Vec::with_capacity(events.len());
        for (seq, e) in (first..).zip(events) {
            let row = compact::encode_event(e, step_message, &mut cursor, sources);
            stmt.execute(params![
                run,
                seq,
                e.kind.as_str(),
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
}

/// When a new call expires: pending calls at the batch's deadline, others never.
fn deadline(call: &NewCall, batch_deadline: Option<i64>) -> Option<i64> {
    batch_deadline.filter(|_| call.state == CallState::Pending)
}

impl Tx for SqliteTx<'_> {
    /// The row, with what the transition may read next of the run (`Held`), in one
    /// statement.
    fn lock_run(&mut self, run_id: &str) -> Result<Option<RunRow>> {
        let sql = format!(
            "SELECT {RUN_ROW}, {GATE_COLUMNS}, {NEXT_SEQS}, {HAS_RUNNING_AND_WAITERS} \
             FROM runs WHERE id = ?1"
        );
        let row = self
            .tx
            .prepare_cached(&sql)?
            .query_row([run_id], |r| {
                let held = Held {
                    key: 0,
                    message: r.get(HELD_AT)?,
                    event: r.get(HELD_AT + 1)?,
                    running: r.get(HELD_AT + 2)?,
                    waiters: r.get(HELD_AT + 3)?,
                };
                Ok((columns::run_row(&SqlRow(r)), held))
            })
            .optional()?;
        let Some((row, held)) = row else {
            return Ok(None);
        };
        let row = damage::one(run_id, row)?;
        self.held = Some(Held {
            key: row.key,
            ..held
        });
        Ok(Some(row))
    }

    fn insert_run(&mut self, run: &RunInsert) -> Result<i64> {
        let new = run.new;
        let agent = self.document(&to_json(new.agent))?;
        let (token, host, pid, start, expires) = lease_params(Some(run.lease));
        self.tx
            .prepare_cached(
                "INSERT INTO runs (id, agent_id, agent, cwd, host, status, lease_token, \
                 lease_host, lease_pid, lease_start, lease_expires_at, expires_in_ms, \
                 created_at, updated_at, os_uid, policy, started_by, started_as, on_expiry, \
                 escalate_after_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5, 'running', ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, \
                 ?13, ?14, ?15, ?16, ?17, ?18)",
            )?
            .execute(params![
                new.id,
                new.agent_id,
                agent,
                new.cwd,
                new.lease.host,
                token,
                host,
                pid,
                start,
                expires,
                run.expires_in_ms,
                run.at,
                i64::from(run.os_uid),
                run.policy.map(to_json),
                run.started_by.name,
                run.started_by.kind.as_str(),
                run.on_expiry.as_str(),
                run.escalate_after_ms
            ])?;
        let key = self.tx.last_insert_rowid();
        // A new run has no messages, events, calls or waiters yet.
        self.held = Some(Held {
            key,
            message: 0,
            event: 0,
            running: false,
            waiters: false,
        });
        Ok(key)
    }

    fn save_run(&mut self, run: &RunRow) -> Result<()> {
        let (token, host, pid, start, expires) = lease_params(run.lease.as_ref());
        self.tx
            .prepare_cached(
                "UPDATE runs SET status = ?2, output = ?3, finish_reason = ?4, error = ?5, \
                 input_tokens = ?6, output_tokens = ?7, total_tokens = ?8, lease_token = ?9, \
                 lease_host = ?10, lease_pid = ?11, lease_start = ?12, lease_expires_at = ?13, \
                 updated_at = ?14 WHERE key = ?1",
            )?
            .execute(params![
                run.key,
                run.status.as_str(),
                run.outcome.output,
                run.outcome.finish_reason,
                run.outcome.error,
                stored(run.usage.input_tokens),
                stored(run.usage.output_tokens),
                stored(run.usage.total_tokens),
                token,
                host,
                pid,
                start,
                expires,
                run.updated_at
            ])?;
        Ok(())
    }

    /// From the run's one calls statement (`CALLS_OF_RUN`), compiled for the leg anyway:
    /// its other calls are passed over undecoded.
    fn call(&mut self, run: &RunRow, call_id: &str) -> Result<Option<CallHead>> {
        let mut stmt = self.tx.prepare_cached(CALLS_OF_RUN)?;
        let mut rows = stmt.query([&run.id])?;
        while let Some(r) = rows.next()? {
            if !matches!(r.get_ref(CALL_ID)?, ValueRef::Text(id) if id == call_id.as_bytes()) {
                continue;
            }
            let c = damage::one(&run.id, columns::call(&SqlRow(r)))?;
            return Ok(Some(CallHead {
                state: c.state,
                step: c.step,
                resolved_by: c.resolved_by,
                kind: c.kind,
                tool_name: c.tool_name,
                args: c.args,
            }));
        }
        Ok(None)
    }

    fn resolve_call(&mut self, run: &RunRow, call_id: &str, r: &Resolving) -> Result<()> {
        self.results = None;
        let by = r.resolution;
        self.tx
            .prepare_cached(
                "UPDATE calls SET state = 'resolved', result = ?3, resume_data = ?4, \
                 resolved_by = ?5, resolved_via = ?6, resolved_at = ?7, checked_by = ?8, \
                 checked_as = ?9, approved_args = ?10, digest = ?11 \
                 WHERE run = ?1 AND call_id = ?2 AND state = 'pending'",
            )?
            .execute(params![
                run.key,
                call_id,
                by.result.as_ref().map(to_json),
                to_json(&by.resume_data),
                by.by,
                by.via.as_str(),
                run.updated_at,
                r.checked.name,
                r.checked.kind.as_str(),
                r.approved_args.map(to_json),
                r.digest
            ])?;
        Ok(())
    }

    fn set_tool_process(&mut self, run: &RunRow, call_id: &str, at: &ToolProcess) -> Result<()> {
        self.results = None;
        self.tx
            .prepare_cached(
                "UPDATE calls SET tool_pgid = ?3, tool_start = ?4, tool_host = ?5, \
                 tool_started_at = ?6 WHERE run = ?1 AND call_id = ?2",
            )?
            .execute(params![
                run.key,
                call_id,
                at.pgid,
                stored(at.leader_start),
                at.host,
                at.started_at
            ])?;
        Ok(())
    }

    fn insert_running(&mut self, run: &RunRow, call: &StartedCall, at: i64) -> Result<()> {
        self.results = None;
        if let Some(h) = self.held_mut(run.key) {
            h.running = true;
        }
        self.tx
            .prepare_cached(
                "DELETE FROM calls WHERE run = ?1 AND call_id = ?2 AND state = 'running'",
            )?
            .execute(params![run.key, call.call_id])?;
        let p = &call.process;
        self.tx
            .prepare_cached(
                "INSERT INTO calls (run, call_id, step, seq, tool_name, args, state, created_at, \
                 tool_pgid, tool_start, tool_host, tool_started_at) \
                 VALUES (?1, ?2, ?3, 0, ?4, ?5, 'running', ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                run.key,
                call.call_id,
                call.step,
                call.tool_name,
                to_json(&call.args),
                at,
                p.pgid,
                stored(p.leader_start),
                p.host,
                p.started_at
            ])?;
        Ok(())
    }

    fn clear_running(&mut self, run: &RunRow) -> Result<()> {
        self.results = None;
        if self.held(run.key).is_some_and(|h| !h.running) {
            return Ok(());
        }
        if let Some(h) = self.held_mut(run.key) {
            h.running = false;
        }
        self.tx
            .prepare_cached("DELETE FROM calls WHERE run = ?1 AND state = 'running'")?
            .execute([run.key])?;
        Ok(())
    }

    fn set_tool_result(&mut self, run: &RunRow, call_id: &str, out: ToolOutput) -> Result<()> {
        self.results = None;
        let (result, error) = out;
        self.tx
            .prepare_cached(
                "UPDATE calls SET result = ?3, error = ?4 WHERE run = ?1 AND call_id = ?2",
            )?
            .execute(params![
                run.key,
                call_id,
                to_json(result),
                error.map(to_json)
            ])?;
        Ok(())
    }

    fn message_count(&mut self, run: &RunRow) -> Result<i64> {
        Ok(self.next_seqs(run.key)?.0)
    }

    fn step_calls(&mut self, run: &RunRow, step: i64) -> Result<Vec<CallRecord>> {
        let mut texts = HashMap::new();
        let mut stmt = self.tx.prepare_cached(CALLS_OF_RUN)?;
        let mut rows = stmt.query([&run.id])?;
        let mut found = Vec::new();
        while let Some(r) = rows.next()? {
            // Other steps' rows are passed over undecoded (a step that does not read as
            // an integer is decoded, to be reported).
            if r.get::<_, i64>(CALL_STEP).is_ok_and(|s| s != step) {
                continue;
            }
            let row = SqlRow(r);
            let text: Option<String> = r.get(CALL_RESULT).ok().flatten();
            found.push((columns::run_id(&row), columns::call(&row), text));
        }
        let mut calls = Vec::with_capacity(found.len());
        for (id, call, text) in found {
            if let (Ok(c), Some(text)) = (&call, text) {
                texts.insert(c.call_id.clone(), text);
            }
            calls.push((id, call));
        }
        self.results = Some((run.key, step, texts));
        damage::all(calls)
    }

    fn close_pending(&mut self, run: &RunRow, state: CallState, at: i64) -> Result<()> {
        self.results = None;
        self.tx
            .prepare_cached(
                "UPDATE calls SET state = ?2, resolved_at = ?3 WHERE run = ?1 AND state = 'pending'",
            )?
            .execute(params![run.key, state.as_str(), at])?;
        Ok(())
    }

    fn append(&mut self, run: &RunRow, batch: &Batch) -> Result<Vec<StoredEvent>> {
        let (first, first_event) = self.next_seqs(run.key)?;
        let mut sources = Sources::default();
        let results = match batch.origin {
            Origin::Results { step } => self.step_sources(run, step, &mut sources)?,
            _ => HashMap::new(),
        };
        for (seq, m) in (first..).zip(batch.messages) {
            sources.add_message(seq, m);
        }
        self.append_messages(run.key, first, batch.messages, &results)?;
        if !batch.calls.is_empty() {
            self.results = None;
            self.insert_calls(run.key, first, batch, &mut sources)?;
        }
        let step_message =
            (batch.origin == Origin::Step && !batch.messages.is_empty()).then_some(first);
        let stored = self.append_events(
            run.key,
            first_event,
            batch.events,
            batch.at,
            step_message,
            &sources,
        )?;
        let counted = |first: i64, n: usize| first + i64::try_from(n).unwrap_or(i64::MAX);
        let running = batch.calls.iter().any(|c| c.state == CallState::Running);
        let seqs = (
            counted(first, batch.messages.len()),
            counted(first_event, batch.events.len()),
        );
        if let Some(h) = self.held_mut(run.key) {
            (h.message, h.event) = seqs;
            h.running |= running;
        }
        Ok(stored)
    }

    fn waiters(&mut self, run: &RunRow) -> Result<Vec<Lease>> {
        if self.held(run.key).is_some_and(|h| !h.waiters) {
            return Ok(Vec::new());
        }
        let mut stmt = self.tx.prepare_cached(
            "SELECT token, host, pid, start, heartbeat_at FROM waiters WHERE run = ?1",
        )?;
        let rows = decoded(&mut stmt, [run.key], columns::waiter)?;
        // A waiter row that does not read is no live waiter.
        Ok(rows.into_iter().filter_map(|(_, w)| w.ok()).collect())
    }

    fn put_waiter(&mut self, run: &RunRow, waiter: &Lease, at: i64) -> Result<()> {
        if let Some(h) = self.held_mut(run.key) {
            h.waiters = true;
        }
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO waiters (run, token, host, pid, start, heartbeat_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                run.key,
                waiter.token,
                waiter.host,
                waiter.pid,
                stored(waiter.start),
                at
            ])?;
        Ok(())
    }

    fn beat_waiter(&mut self, run: &RunRow, token: &str, at: i64) -> Result<()> {
        self.tx
            .prepare_cached("UPDATE waiters SET heartbeat_at = ?3 WHERE run = ?1 AND token = ?2")?
            .execute(params![run.key, token, at])?;
        Ok(())
    }

    fn remove_waiter(&mut self, run: &RunRow, token: &str) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM waiters WHERE run = ?1 AND token = ?2")?
            .execute(params![run.key, token])?;
        Ok(())
    }

    fn due_runs(&mut self, now: i64) -> Result<Vec<String>> {
        let ids = self
            .tx
            .prepare_cached(
                "SELECT DISTINCT r.id FROM calls c JOIN runs r ON r.key = c.run \
                 WHERE c.state = 'pending' AND c.expires_at IS NOT NULL \
                 AND c.expires_at <= ?1 ORDER BY r.id",
            )?
            .query_map([now], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(ids)
    }

    fn notify(&mut self, _run: &RunRow) -> Result<()> {
        Ok(())
    }

    fn ledger_entry(&mut self, key: &LedgerKey) -> Result<Option<LedgerEntry>> {
        let sql = format!(
            "SELECT {LEDGER_COLUMNS} FROM ledger \
             WHERE server = ?1 AND run_id = ?2 AND tool_call_id = ?3 AND kind = ?4"
        );
        let mut stmt = self.tx.prepare_cached(&sql)?;
        let rows = decoded(
            &mut stmt,
            params![key.server, key.run_id, key.tool_call_id, key.kind.noun()],
            columns::ledger,
        )?;
        Ok(damage::all(rows)?.into_iter().next())
    }

    fn insert_ledger(&mut self, e: &LedgerEntry) -> Result<bool> {
        let inserted = self
            .tx
            .prepare_cached(
                "INSERT INTO ledger (run_id, server, tool_call_id, kind, agent_id, state, \
                 resume_data, resolved_by, resolved_via, token, host, pid, start, outcome, \
                 created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) \
                 ON CONFLICT DO NOTHING",
            )?
            .execute(params![
                e.key.run_id,
                e.key.server,
                e.key.tool_call_id,
                e.key.kind.noun(),
                e.agent_id,
                e.state.as_str(),
                to_json(&e.resume_data),
                e.by,
                e.via,
                e.holder.token,
                e.holder.host,
                e.holder.pid,
                stored(e.holder.start),
                e.outcome,
                e.created_at,
                e.updated_at
            ])?;
        Ok(inserted == 1)
    }

    fn save_ledger(&mut self, e: &LedgerEntry) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE ledger SET state = ?5, outcome = ?6, updated_at = ?7 \
                 WHERE server = ?1 AND run_id = ?2 AND tool_call_id = ?3 AND kind = ?4",
            )?
            .execute(params![
                e.key.server,
                e.key.run_id,
                e.key.tool_call_id,
                e.key.kind.noun(),
                e.state.as_str(),
                e.outcome,
                e.updated_at
            ])?;
        Ok(())
    }

    fn delete_ledger(&mut self, key: &LedgerKey) -> Result<()> {
        self.tx
            .prepare_cached(
                "DELETE FROM ledger \
                 WHERE server = ?1 AND run_id = ?2 AND tool_call_id = ?3 AND kind = ?4",
            )?
            .execute(params![
                key.server,
                key.run_id,
                key.tool_call_id,
                key.kind.noun()
            ])?;
        Ok(())
    }

    fn ledger_of_run(&mut self, server: &str, run_id: &str) -> Result<Vec<LedgerEntry>> {
        let mut stmt = self.tx.prepare_cached(&statements::ledger_of_run())?;
        damage::all(decoded(
            &mut stmt,
            params![server, run_id],
            columns::ledger,
        )?)
    }

    fn ledger_matching(&mut self, f: &LedgerFilter) -> Result<Vec<LedgerEntry>> {
        let mut stmt = self.tx.prepare_cached(&statements::ledger_matching())?;
        let params = params![f.server, f.run_prefix, f.sending_only, f.limit];
        damage::all(decoded(&mut stmt, params, columns::ledger)?)
    }

    fn reviewers(&mut self) -> &mut dyn crate::store::reviewers::ReviewerTx {
        self
    }

    fn policies(&mut self) -> &mut dyn crate::store::policy::PolicyTx {
        self
    }
}

/// A stable 64-bit hash (FNV-1a) of a document, to find it again.
fn hash(text: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    i64::from_ne_bytes(h.to_ne_bytes())
}
