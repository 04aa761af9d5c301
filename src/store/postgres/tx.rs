//! The PostgreSQL side of a transition: the row operations of one transaction
//! (`store::Tx`). Locking a run is `SELECT … FOR UPDATE`, so a run's sequences and items
//! change in one transaction at a time; every change sends `NOTIFY mastra_ask, '<run id>'`
//! so that waiters wake at once. No decisions here: the transitions make them.
//!
//! Writes whose outcome nothing reads wait and go out with the next statement or the
//! `COMMIT` (`Transaction::write`), and a run's next sequence numbers are read once per
//! transaction (its row is locked, so only this transaction moves them): a transition costs
//! a round trip per read it makes, and one for its commit.

use super::session::{Client, Transaction};

use super::errors::classify;
use super::policy::{session_of, SESSION};

use super::read::{decoded, two, PgRow, CALL_COLUMNS};
use tokio_postgres::Row;

use crate::domain::{
    CallRecord, CallState, ItemKind, Message, StartedCall, StoredEvent, ToolProcess,
};
use crate::store::backend::{
    statements, Batch, CallHead, Resolving, RunInsert, RunRow, ToolOutput, Tx,
};
use crate::store::columns::{self, stored, GATE_COLUMNS, LEDGER_COLUMNS};
use crate::store::{damage, Lease, LedgerEntry, LedgerFilter, LedgerKey, Result};

pub const CHANNEL: &str = "mastra_ask";

/// The columns `columns::run_row` reads before `GATE_COLUMNS` (rows are named by their id).
const RUN_ROW: &str = "0::bigint, id, status, output, finish_reason, error, input_tokens, \
    output_tokens, total_tokens, lease_token, lease_host, lease_pid, lease_start, \
    lease_expires_at, expires_in_ms, updated_at";

/// A run's next message and event sequence numbers.
const SEQS: &str = "SELECT (SELECT coalesce(max(seq) + 1, 0) FROM messages WHERE run_id = $1), \
    (SELECT coalesce(max(seq) + 1, 0) FROM events WHERE run_id = $1)";

/// A call as `CallHead` has it (`$1` its run, `$2` its id).
const CALL_HEAD: &str = "SELECT state, step, resolved_by, kind, tool_name, args FROM calls \
    WHERE run_id = $1 AND call_id = $2";

/// A run's registered waiters.
const WAITERS: &str = "SELECT token, host, pid, start, heartbeat_at FROM waiters WHERE run_id = $1";

/// The run's row, locked (`$1` its id).
fn lock_sql() -> String {
    format!("SELECT {RUN_ROW}, {GATE_COLUMNS} FROM runs WHERE id = $1 FOR UPDATE")
}

/// The calls of one step (`$1` the run, `$2` the step), in order.
fn step_calls_sql() -> String {
    format!("SELECT {CALL_COLUMNS} FROM calls c WHERE c.run_id = $1 AND c.step = $2 ORDER BY c.seq")
}

fn call_head(run_id: &str, row: &Row) -> Result<CallHead> {
    Ok(CallHead {
        state: damage::one(run_id, columns::call_state(row.get::<_, &str>(0)))?,
        step: row.get(1),
        resolved_by: row.get(2),
        kind: row.get::<_, Option<&str>>(3).and_then(ItemKind::parse),
        tool_name: row.get(4),
        args: damage::one(run_id, columns::from_json(row.get::<_, &str>(5)))?,
    })
}

/// Waiter rows as leases; a row that does not read is no live waiter.
fn waiters_of(rows: &[Row]) -> Vec<Lease> {
    decoded(rows, columns::waiter)
        .filter_map(|(_, w)| w.ok())
        .collect()
}

/// One open transaction.
pub struct PgTx<'c> {
    pub(super) tx: Transaction<'c>,
    /// The next message and event sequence numbers of runs this transaction appends to.
    seqs: Vec<(String, Seqs)>,
    /// Who this session is (`policy::SESSION`), read ahead in this transaction for the
    /// decision that follows; taken by its first use.
    pub(super) session: Option<(String, Option<String>)>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Seqs {
    message: i64,
    event: i64,
}

/// A lease's columns (token, host, pid, start, expiry), all NULL for none.
struct LeaseCols {
    token: Option<String>,
    host: Option<String>,
    pid: Option<i64>,
    start: Option<i64>,
    expires: Option<i64>,
}

fn lease_cols(lease: Option<&Lease>) -> LeaseCols {
    LeaseCols {
        token: lease.map(|l| l.token.clone()),
        host: lease.map(|l| l.host.clone()),
        pid: lease.map(|l| i64::from(l.pid)),
        start: lease.map(|l| stored(l.start)),
        expires: lease.map(|l| l.expires_at),
    }
}

pub(super) fn to_json(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

impl<'c> PgTx<'c> {
    /// A transaction; nothing is sent before its first statement. `flushed`: its commit
    /// waits for the log's flush to disk.
    pub fn begin(client: &'c mut Client, flushed: bool) -> PgTx<'c> {
        PgTx {
            tx: client.transaction(flushed),
            seqs: Vec::new(),
            session: None,
        }
    }

    pub fn commit(self) -> Result<()> {
        self.tx
            .commit()
            .map_err(|e| classify("writing to the store", e))
    }

    /// The run's next message and event sequence numbers: read once (after its row was
    /// locked), then counted here.
    fn seqs(&mut self, run_id: &str) -> Result<Seqs> {
        if let Some((_, s)) = self.seqs.iter().find(|(id, _)| id == run_id) {
            return Ok(*s);
        }
        let row = self.tx.query_one(SEQS, &[&run_id])?;
        let seqs = Seqs {
            message: row.get(0),
            event: row.get(1),
        };
        self.seqs.push((run_id.to_string(), seqs));
        Ok(seqs)
    }

    /// The locked row (`rows`) and the sequence numbers read after the lock (`seqs`).
    fn locked(&mut self, run_id: &str, rows: &[Row], seqs: &[Row]) -> Result<Option<RunRow>> {
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        if let Some(s) = seqs.first() {
            self.set_seqs(
                run_id,
                Seqs {
                    message: s.get(0),
                    event: s.get(1),
                },
            );
        }
        damage::one(run_id, columns::run_row(&PgRow(row))).map(Some)
    }

    fn set_seqs(&mut self, run_id: &str, seqs: Seqs) {
        match self.seqs.iter_mut().find(|(id, _)| id == run_id) {
            Some((_, s)) => *s = seqs,
            None => self.seqs.push((run_id.to_string(), seqs)),
        }
    }

    fn append_messages(&mut self, run_id: &str, first: i64, messages: &[Message]) {
        for (seq, m) in (first..).zip(messages) {
            self.tx.write(
                "INSERT INTO messages (run_id, seq, body) VALUES ($1, $2, $3)",
                &[&run_id, &seq, &to_json(m)],
            );
        }
    }

    fn insert_calls(&mut self, run_id: &str, step: i64, batch: &Batch) {
        for (seq, call) in (0i64..).zip(batch.calls) {
            let deadline = batch.deadline.filter(|_| call.state == CallState::Pending);
            self.tx.write(
                "INSERT INTO calls (run_id, call_id, step, seq, tool_name, args, state, \
                 payload, result, error, created_at, expires_at, kind) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                &[
                    &run_id,
                    &call.call_id,
                    &step,
                    &seq,
                    &call.tool_name,
                    &to_json(&call.args),
                    &call.state.as_str(),
                    &call.payload.as_ref().map(to_json),
                    &call.result.as_ref().map(to_json),
                    &call.error.as_ref().map(to_json),
                    &batch.at,
                    &deadline,
                    &call.kind.map(|k| k.noun()),
                ],
            );
        }
    }
}

impl Tx for PgTx<'_> {
    /// The row, locked; the run's next sequence numbers are read in the same flight, by a
    /// statement of their own that runs once the lock is held (so they are current).
    fn lock_run(&mut self, run_id: &str) -> Result<Option<RunRow>> {
        let lock = lock_sql();
        let answers = self
            .tx
            .queries(&[(&lock, &[&run_id]), (SEQS, &[&run_id])])?;
        let [rows, seqs] = two(answers);
        self.locked(run_id, &rows, &seqs)
    }

    /// The lock's flight carries the call's read too, and who this session is (what the
    /// decision on the call asks next, `PolicyTx::session`).
    fn lock_run_with_call(
        &mut self,
        run_id: &str,
        call_id: &str,
    ) -> Result<Option<(RunRow, Option<CallHead>)>> {
        let lock = lock_sql();
        let answers = self.tx.queries(&[
            (&lock, &[&run_id]),
            (SEQS, &[&run_id]),
            (CALL_HEAD, &[&run_id, &call_id]),
            (SESSION, &[]),
        ])?;
        let [rows, seqs, call, session]: [Vec<Row>; 4] = answers
            .try_into()
            .unwrap_or_else(|a: Vec<_>| unreachable!("{} answers to four queries", a.len()));
        self.session = session.first().map(session_of);
        let Some(run) = self.locked(run_id, &rows, &seqs)? else {
            return Ok(None);
        };
        let call = call.first().map(|r| call_head(run_id, r)).transpose()?;
        Ok(Some((run, call)))
    }

    fn insert_run(&mut self, run: &RunInsert) -> Result<i64> {
        let new = run.new;
        let l = lease_cols(Some(run.lease));
        self.tx.write(
            "INSERT INTO runs (id, agent_id, agent, cwd, host, status, lease_token, lease_host, \
             lease_pid, lease_start, lease_expires_at, expires_in_ms, created_at, updated_at, \
             os_uid, policy, started_by, started_as, on_expiry, escalate_after_ms) \
             VALUES ($1, $2, $3, $4, $5, 'running', $6, $7, $8, $9, $10, $11, $12, $12, $13, \
             $14, $15, $16, $17, $18)",
            &[
                &new.id,
                &new.agent_id,
                &to_json(new.agent),
                &new.cwd,
                &new.lease.host,
                &l.token,
                &l.host,
                &l.pid,
                &l.start,
                &l.expires,
                &run.expires_in_ms,
                &run.at,
                &i64::from(run.os_uid),
                &run.policy.map(to_json),
                &run.started_by.name,
                &run.started_by.kind.as_str(),
                &run.on_expiry.as_str(),
                &run.escalate_after_ms,
            ],
        );
        // A new run has no messages and no events yet.
        self.set_seqs(
            new.id,
            Seqs {
                message: 0,
                event: 0,
            },
        );
        Ok(0)
    }

    fn save_run(&mut self, run: &RunRow) -> Result<()> {
        let l = lease_cols(run.lease.as_ref());
        self.tx.write(
            "UPDATE runs SET status = $2, output = $3, finish_reason = $4, error = $5, \
             input_tokens = $6, output_tokens = $7, total_tokens = $8, lease_token = $9, \
             lease_host = $10, lease_pid = $11, lease_start = $12, lease_expires_at = $13, \
             updated_at = $14 WHERE id = $1",
            &[
                &run.id,
                &run.status.as_str(),
                &run.outcome.output,
                &run.outcome.finish_reason,
                &run.outcome.error,
                &stored(run.usage.input_tokens),
                &stored(run.usage.output_tokens),
                &stored(run.usage.total_tokens),
                &l.token,
                &l.host,
                &l.pid,
                &l.start,
                &l.expires,
                &run.updated_at,
            ],
        );
        Ok(())
    }

    fn call(&mut self, run: &RunRow, call_id: &str) -> Result<Option<CallHead>> {
        let row = self.tx.query_opt(CALL_HEAD, &[&run.id, &call_id])?;
        row.map(|r| call_head(&run.id, &r)).transpose()
    }

    fn resolve_call(&mut self, run: &RunRow, call_id: &str, r: &Resolving) -> Result<()> {
        let by = r.resolution;
        // The store's function, so that a role bound by the policy resolves only what its
        // recorded decisions allow (migration 9).
        self.tx.write(
            "SELECT resolve_item($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            &[
                &run.id,
                &call_id,
                &by.result.as_ref().map(to_json),
                &to_json(&by.resume_data),
                &by.by,
                &by.via.as_str(),
                &r.checked.name,
                &r.checked.kind.as_str(),
                &r.approved_args.map(to_json),
                &r.digest,
                &run.updated_at,
                &r.claim,
            ],
        );
        Ok(())
    }

    fn set_tool_process(&mut self, run: &RunRow, call_id: &str, at: &ToolProcess) -> Result<()> {
        self.tx.write(
            "UPDATE calls SET tool_pgid = $3, tool_start = $4, tool_host = $5, \
             tool_started_at = $6 WHERE run_id = $1 AND call_id = $2",
            &[
                &run.id,
                &call_id,
                &i64::from(at.pgid),
                &stored(at.leader_start),
                &at.host,
                &at.started_at,
            ],
        );
        Ok(())
    }

    fn insert_running(&mut self, run: &RunRow, call: &StartedCall, at: i64) -> Result<()> {
        self.tx.write(
            "DELETE FROM calls WHERE run_id = $1 AND call_id = $2 AND state = 'running'",
            &[&run.id, &call.call_id],
        );
        let p = &call.process;
        self.tx.write(
            "INSERT INTO calls (run_id, call_id, step, seq, tool_name, args, state, created_at, \
             tool_pgid, tool_start, tool_host, tool_started_at) \
             VALUES ($1, $2, $3, 0, $4, $5, 'running', $6, $7, $8, $9, $10)",
            &[
                &run.id,
                &call.call_id,
                &call.step,
                &call.tool_name,
                &to_json(&call.args),
                &at,
                &i64::from(p.pgid),
                &stored(p.leader_start),
                &p.host,
                &p.started_at,
            ],
        );
        Ok(())
    }

    fn clear_running(&mut self, run: &RunRow) -> Result<()> {
        self.tx.write(
            "DELETE FROM calls WHERE run_id = $1 AND state = 'running'",
            &[&run.id],
        );
        Ok(())
    }

    fn set_tool_result(&mut self, run: &RunRow, call_id: &str, out: ToolOutput) -> Result<()> {
        let (result, error) = out;
        self.tx.write(
            "UPDATE calls SET result = $3, error = $4 WHERE run_id = $1 AND call_id = $2",
            &[&run.id, &call_id, &to_json(result), &error.map(to_json)],
        );
        Ok(())
    }

    fn message_count(&mut self, run: &RunRow) -> Result<i64> {
        Ok(self.seqs(&run.id)?.message)
    }

    fn step_calls(&mut self, run: &RunRow, step: i64) -> Result<Vec<CallRecord>> {
        let rows = self.tx.query(&step_calls_sql(), &[&run.id, &step])?;
        damage::all(decoded(&rows, columns::call))
    }

    fn step_calls_and_waiters(
        &mut self,
        run: &RunRow,
        step: i64,
    ) -> Result<(Vec<CallRecord>, Vec<Lease>)> {
        let calls = step_calls_sql();
        let answers = self
            .tx
            .queries(&[(&calls, &[&run.id, &step]), (WAITERS, &[&run.id])])?;
        let [calls, waiters] = two(answers);
        Ok((
            damage::all(decoded(&calls, columns::call))?,
            waiters_of(&waiters),
        ))
    }

    fn close_pending(&mut self, run: &RunRow, state: CallState, at: i64) -> Result<()> {
        self.tx.write(
            "UPDATE calls SET state = $2, resolved_at = $3 \
             WHERE run_id = $1 AND state = 'pending'",
            &[&run.id, &state.as_str(), &at],
        );
        Ok(())
    }

    fn append(&mut self, run: &RunRow, batch: &Batch) -> Result<Vec<StoredEvent>> {
        let first = self.seqs(&run.id)?;
        self.append_messages(&run.id, first.message, batch.messages);
        if !batch.calls.is_empty() {
            self.insert_calls(&run.id, first.message, batch);
        }
        let mut stored = Vec::with_capacity(batch.events.len());
        for (seq, e) in (first.event..).zip(batch.events) {
            self.tx.write(
                "INSERT INTO events (run_id, seq, kind, payload, at) VALUES ($1, $2, $3, $4, $5)",
                &[
                    &run.id,
                    &seq,
                    &e.kind.as_str(),
                    &to_json(&e.payload),
                    &batch.at,
                ],
            );
            stored.push(StoredEvent {
                seq,
                at: batch.at,
                event: e.clone(),
            });
        }
        self.set_seqs(
            &run.id,
            Seqs {
                message: first.message + batch.messages.len() as i64,
                event: first.event + batch.events.len() as i64,
            },
        );
        Ok(stored)
    }

    fn waiters(&mut self, run: &RunRow) -> Result<Vec<Lease>> {
        Ok(waiters_of(&self.tx.query(WAITERS, &[&run.id])?))
    }

    fn put_waiter(&mut self, run: &RunRow, waiter: &Lease, at: i64) -> Result<()> {
        self.tx.write(
            "INSERT INTO waiters (run_id, token, host, pid, start, heartbeat_at) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (run_id, token) DO UPDATE \
             SET host = excluded.host, pid = excluded.pid, start = excluded.start, \
             heartbeat_at = excluded.heartbeat_at",
            &[
                &run.id,
                &waiter.token,
                &waiter.host,
                &i64::from(waiter.pid),
                &stored(waiter.start),
                &at,
            ],
        );
        Ok(())
    }

    fn beat_waiter(&mut self, run: &RunRow, token: &str, at: i64) -> Result<()> {
        self.tx.write(
            "UPDATE waiters SET heartbeat_at = $3 WHERE run_id = $1 AND token = $2",
            &[&run.id, &token, &at],
        );
        Ok(())
    }

    fn remove_waiter(&mut self, run: &RunRow, token: &str) -> Result<()> {
        self.tx.write(
            "DELETE FROM waiters WHERE run_id = $1 AND token = $2",
            &[&run.id, &token],
        );
        Ok(())
    }

    fn due_runs(&mut self, now: i64) -> Result<Vec<String>> {
        Ok(self
            .tx
            .query(
                "SELECT DISTINCT run_id FROM calls WHERE state = 'pending' \
                 AND expires_at IS NOT NULL AND expires_at <= $1 ORDER BY run_id",
                &[&now],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    fn notify(&mut self, run: &RunRow) -> Result<()> {
        // Sent with the commit; listeners hear it only once it is committed anyway.
        self.tx
            .write("SELECT pg_notify($1, $2)", &[&CHANNEL, &run.id]);
        Ok(())
    }

    fn ledger_entry(&mut self, key: &LedgerKey) -> Result<Option<LedgerEntry>> {
        let sql = format!(
            "SELECT {LEDGER_COLUMNS} FROM ledger \
             WHERE server = $1 AND run_id = $2 AND tool_call_id = $3 AND kind = $4 FOR UPDATE"
        );
        let rows = self.tx.query(
            &sql,
            &[
                &key.server,
                &key.run_id,
                &key.tool_call_id,
                &key.kind.noun(),
            ],
        )?;
        Ok(damage::all(decoded(&rows, columns::ledger))?
            .into_iter()
            .next())
    }

    fn insert_ledger(&mut self, e: &LedgerEntry) -> Result<bool> {
        let inserted = self.tx.execute(
            "INSERT INTO ledger (run_id, server, tool_call_id, kind, agent_id, state, \
             resume_data, resolved_by, resolved_via, token, host, pid, start, outcome, \
             created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) \
             ON CONFLICT DO NOTHING",
            &[
                &e.key.run_id,
                &e.key.server,
                &e.key.tool_call_id,
                &e.key.kind.noun(),
                &e.agent_id,
                &e.state.as_str(),
                &to_json(&e.resume_data),
                &e.by,
                &e.via,
                &e.holder.token,
                &e.holder.host,
                &i64::from(e.holder.pid),
                &stored(e.holder.start),
                &e.outcome,
                &e.created_at,
                &e.updated_at,
            ],
        )?;
        Ok(inserted == 1)
    }

    fn save_ledger(&mut self, e: &LedgerEntry) -> Result<()> {
        self.tx.write(
            "UPDATE ledger SET state = $5, outcome = $6, updated_at = $7 \
             WHERE server = $1 AND run_id = $2 AND tool_call_id = $3 AND kind = $4",
            &[
                &e.key.server,
                &e.key.run_id,
                &e.key.tool_call_id,
                &e.key.kind.noun(),
                &e.state.as_str(),
                &e.outcome,
                &e.updated_at,
            ],
        );
        Ok(())
    }

    fn delete_ledger(&mut self, key: &LedgerKey) -> Result<()> {
        self.tx.write(
            "DELETE FROM ledger \
             WHERE server = $1 AND run_id = $2 AND tool_call_id = $3 AND kind = $4",
            &[
                &key.server,
                &key.run_id,
                &key.tool_call_id,
                &key.kind.noun(),
            ],
        );
        Ok(())
    }

    fn ledger_of_run(&mut self, server: &str, run_id: &str) -> Result<Vec<LedgerEntry>> {
        let rows = self
            .tx
            .query(&statements::ledger_of_run(), &[&server, &run_id])?;
        damage::all(decoded(&rows, columns::ledger))
    }

    fn ledger_matching(&mut self, f: &LedgerFilter) -> Result<Vec<LedgerEntry>> {
        let rows = self.tx.query(
            &statements::ledger_matching(),
            &[&f.server, &f.run_prefix, &f.sending_only, &f.limit],
        )?;
        damage::all(decoded(&rows, columns::ledger))
    }

    fn reviewers(&mut self) -> &mut dyn crate::store::reviewers::ReviewerTx {
        self
    }

    fn policies(&mut self) -> &mut dyn crate::store::policy::PolicyTx {
        self
    }
}
