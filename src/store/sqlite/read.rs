//! The SQLite reads: runs, their messages, events and calls, pending items, deadlines.
//! Each row is decoded on its own (`columns`), so that one odd row costs only its run.
//! Nothing here writes.

use rusqlite::types::ValueRef;
use rusqlite::{params, CachedStatement, Connection, OptionalExtension, Params, Row};

use super::compact::{self, Cursor, EventRow, Sources};
use crate::domain::review::DecisionRecord;
use crate::domain::{CallRecord, Event, EventKind, Message, StoredEvent};
use crate::store::backend::PendingCall;
use crate::store::columns::{self, Cell, Columns, Read};
use crate::store::damage::{self, Decoded};
use crate::store::{Result, Run, RunFilter};

/// A call's columns after its run's id, as `columns::call` reads them (`c` is `calls`). No
/// claim: SQLite records the name given as `resolved_by` (who the store checked apart, as
/// `checked_by`), for nothing binds the file's owner.
macro_rules! call_fields {
    () => {
        "c.call_id, c.seq, c.step, c.tool_name, c.args, c.state, c.payload, \
         c.payload_is_args, c.result, c.error, c.resume_data, c.resolved_by, c.resolved_via, \
         c.resolved_at, c.expires_at, c.created_at, c.kind, c.tool_pgid, c.tool_start, \
         c.tool_host, c.tool_started_at, c.approved_args, c.digest, NULL"
    };
}

/// Every call of the run whose id is `?1`, in order. The one statement for a run's calls:
/// a leg reads them, and a step's calls in a transaction are those of its step (each
/// statement compiled costs a process more than reading a few rows more).
pub const CALLS_OF_RUN: &str = concat!(
    "SELECT r.id, ",
    call_fields!(),
    " FROM runs r JOIN calls c ON c.run = r.key WHERE r.id = ?1 ORDER BY c.step, c.seq"
);
/// Where `columns::call` finds the call id, the step and the result text.
pub const CALL_ID: usize = 1;
pub const CALL_STEP: usize = 3;
pub const CALL_RESULT: usize = 9;

/// A run with its agent definition (`r` is `runs`, `d` its agent's `documents` row), as
/// `columns::run` reads it.
const RUN_COLUMNS: &str = "r.id, r.agent_id, d.body, r.cwd, r.status, r.output, \
    r.finish_reason, r.error, r.input_tokens, r.output_tokens, r.total_tokens, r.lease_token, \
    r.lease_host, r.lease_pid, r.lease_start, r.lease_expires_at, r.created_at, r.updated_at, \
    r.host, r.os_uid, r.policy, r.started_by, r.started_as, r.on_expiry, r.escalate_after_ms \
    FROM runs r JOIN documents d ON d.key = r.agent";

/// A fetched SQLite row, column by column.
pub struct SqlRow<'a, 'b>(pub &'a Row<'b>);

impl Columns for SqlRow<'_, '_> {
    fn cell(&self, i: usize) -> Read<Cell> {
        Ok(match self.0.get_ref(i).map_err(|e| e.to_string())? {
            ValueRef::Null => Cell::Null,
            ValueRef::Integer(n) => Cell::Int(n),
            ValueRef::Real(x) => Cell::Real(x),
            ValueRef::Text(t) => Cell::Text(
                String::from_utf8(t.to_vec()).map_err(|_| format!("column {i} is not UTF-8"))?,
            ),
            ValueRef::Blob(_) => Cell::Other("a blob".into()),
        })
    }

    fn str(&self, i: usize) -> Read<Option<&str>> {
        match self.0.get_ref(i).map_err(|e| e.to_string())? {
            ValueRef::Null => Ok(None),
            ValueRef::Text(t) => std::str::from_utf8(t)
                .map(Some)
                .map_err(|_| format!("column {i} is not UTF-8")),
            _ => Err(columns::not_text(self, i)),
        }
    }

    fn column_name(&self, i: usize) -> Option<&str> {
        self.0.as_ref().column_name(i).ok()
    }
}

/// The rows of `stmt`, each decoded by `read` and named by its run (column 0).
pub fn decoded<T>(
    stmt: &mut CachedStatement,
    params: impl Params,
    read: fn(&dyn Columns) -> Read<T>,
) -> Result<Vec<Decoded<T>>> {
    let rows = stmt.query_map(params, |r| {
        let row = SqlRow(r);
        let value = read(&row);
        // The run is named only when its row does not read.
        let run = match &value {
            Ok(_) => String::new(),
            Err(_) => columns::run_id(&row),
        };
        Ok((run, value))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn run(c: &Connection, id: &str) -> Result<Option<Run>> {
    let row = c
        .prepare_cached(&format!("SELECT {RUN_COLUMNS} WHERE r.id = ?1"))?
        .query_row([id], |r| Ok(columns::run(&SqlRow(r))))
        .optional()?;
    row.map(|row| damage::one(id, row)).transpose()
}

pub fn run_ids_between(c: &Connection, from: &str, to: &str, limit: usize) -> Result<Vec<String>> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let ids = c
        .prepare_cached("SELECT id FROM runs WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3")?
        .query_map(params![from, to, limit], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(ids)
}

pub fn list_runs(c: &Connection, filter: &RunFilter) -> Result<Vec<Run>> {
    let limit = i64::try_from(filter.limit).unwrap_or(i64::MAX);
    let rows = match filter.status {
        Some(status) => decoded(
            &mut c.prepare_cached(&format!(
                "SELECT {RUN_COLUMNS} WHERE r.status = ?1 \
                 ORDER BY r.created_at DESC, r.key DESC LIMIT ?2"
            ))?,
            params![status.as_str(), limit],
            columns::run,
        )?,
        None => decoded(
            &mut c.prepare_cached(&format!(
                "SELECT {RUN_COLUMNS} ORDER BY r.created_at DESC, r.key DESC LIMIT ?1"
            ))?,
            [limit],
            columns::run,
        )?,
    };
    Ok(damage::sift(rows))
}

/// Every message of the run whose id is `?1`, in order, as `message` reads them. The one
/// statement for a run's messages: a leg reads them, and a transaction that needs one
/// message of the run picks it from them.
pub const MESSAGES_OF_RUN: &str = "SELECT m.seq, m.call_id, m.body, c.result FROM runs r \
    JOIN messages m ON m.run = r.key \
    LEFT JOIN calls c ON c.run = m.run AND c.call_id = m.call_id \
    WHERE r.id = ?1 ORDER BY m.seq";

/// A run's messages with their sequence numbers.
pub fn messages(c: &Connection, run_id: &str) -> Result<Vec<(i64, Message)>> {
    let mut stmt = c.prepare_cached(MESSAGES_OF_RUN)?;
    let rows = stmt.query_map([run_id], |r| Ok(message(r)))?;
    let rows: Vec<Read<(i64, Message)>> = rows.collect::<rusqlite::Result<_>>()?;
    rows.into_iter()
        .map(|row| damage::one(run_id, row))
        .collect()
}

/// A row of `MESSAGES_OF_RUN`.
pub fn message(r: &Row) -> Read<(i64, Message)> {
    let get = |i| -> Read<Option<String>> { r.get(i).map_err(|e| e.to_string()) };
    let seq: i64 = r.get(0).map_err(|e| e.to_string())?;
    let body = get(2)?.unwrap_or_default();
    let message = compact::read_message(get(1)?.as_deref(), &body, get(3)?.as_deref())
        .map_err(|e| format!("message {seq} does not parse: {e}"))?;
    Ok((seq, message))
}

/// A run's events, rebuilt from what they point at.
pub fn events(c: &Connection, run_id: &str) -> Result<Vec<StoredEvent>> {
    let mut sources = Sources::default();
    for (seq, m) in messages(c, run_id)? {
        sources.add_message(seq, &m);
    }
    for call in calls(c, run_id)? {
        if let Some(p) = call.payload() {
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
        // An event of a kind this program does not know is left out.
        let Some(kind) = EventKind::parse(&kind) else {
            continue;
        };
        let payload = compact::read_event(kind, &row, &mut cursor, &sources)
            .unwrap_or(serde_json::Value::Null);
        events.push(StoredEvent {
            seq,
            at,
            event: Event { kind, payload },
        });
    }
    Ok(events)
}

pub fn calls(c: &Connection, run_id: &str) -> Result<Vec<CallRecord>> {
    let mut stmt = c.prepare_cached(CALLS_OF_RUN)?;
    damage::all(decoded(&mut stmt, [run_id], columns::call)?)
}

/// A pending item as `columns::pending` reads it (`c` is `calls`, `r` its run).
const PENDING_COLUMNS: &str = "r.id, c.call_id, c.seq, c.step, c.tool_name, c.args, \
    c.payload, c.payload_is_args, c.expires_at, c.created_at, c.kind, r.agent_id, \
    r.policy IS NOT NULL";

/// `Backend::each_pending_call`: each row decoded and handed to `each` as it is stepped to.
pub fn each_pending_call(
    c: &Connection,
    run_id: Option<&str>,
    each: &mut dyn FnMut(PendingCall) -> Result<()>,
) -> Result<()> {
    let select = format!(
        "SELECT {PENDING_COLUMNS} FROM calls c JOIN runs r ON r.key = c.run \
         WHERE c.state = 'pending'"
    );
    let order = "ORDER BY c.created_at, r.id, c.step, c.seq";
    let mut stmt = match run_id {
        Some(_) => c.prepare_cached(&format!("{select} AND r.id = ?1 {order}"))?,
        None => c.prepare_cached(&format!("{select} {order}"))?,
    };
    // The run's id is the one parameter when there is one.
    let mut rows = stmt.query(rusqlite::params_from_iter(run_id))?;
    while let Some(row) = rows.next()? {
        let row = SqlRow(row);
        match columns::pending(&row) {
            Ok(call) => each(call)?,
            Err(what) => damage::warn(&columns::run_id(&row), &what),
        }
    }
    Ok(())
}

pub fn any_due(c: &Connection, now: i64) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM calls WHERE state = 'pending' \
         AND expires_at IS NOT NULL AND expires_at <= ?1)",
    )?
    .query_row([now], |r| r.get(0))?)
}

/// A decision with its run's id (`d` is `decisions`, `r` its run), and whether it still
/// counts (its reviewer active, and not added again since), as `columns::decision` reads it.
pub const DECISION_COLUMNS: &str = "r.id, d.call_id, d.reviewer, d.decision, d.digest, d.via, \
    d.at, d.resume_data, d.result, EXISTS (SELECT 1 FROM reviewers v WHERE v.name = d.reviewer \
    AND v.removed_at IS NULL AND v.created_at <= d.at), d.args FROM decisions d \
    JOIN runs r ON r.key = d.run";

pub fn decisions(c: &Connection, run_id: &str) -> Result<Vec<DecisionRecord>> {
    let sql =
        format!("SELECT {DECISION_COLUMNS} WHERE r.id = ?1 ORDER BY d.at, d.call_id, d.reviewer");
    let mut stmt = c.prepare_cached(&sql)?;
    let rows = damage::all(decoded(&mut stmt, [run_id], columns::decision)?)?;
    Ok(rows.into_iter().map(|d| d.record).collect())
}

pub fn due_escalations(c: &Connection, now: i64) -> Result<Vec<(String, String)>> {
    let rows = c
        .prepare_cached(
            "SELECT r.id, c.call_id FROM calls c JOIN runs r ON r.key = c.run \
             WHERE c.state = 'pending' AND c.escalated_at IS NULL \
             AND r.escalate_after_ms IS NOT NULL AND c.created_at + r.escalate_after_ms <= ?1 \
             ORDER BY c.created_at, r.id, c.call_id",
        )?
        .query_map([now], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// The items resolved (decided, expired, cancelled) since `?1` whose `--on-resolve` hook no
/// process claimed, oldest first; `of_run`: of the run whose id is `?2` only.
pub fn unclaimed_resolutions(
    c: &Connection,
    run_id: Option<&str>,
    since: i64,
) -> Result<Vec<Decoded<CallRecord>>> {
    const FROM: &str = concat!(
        "SELECT r.id, ",
        call_fields!(),
        " FROM calls c JOIN runs r ON r.key = c.run \
         WHERE c.resolved_at >= ?1 AND c.kind IS NOT NULL \
         AND c.state IN ('resolved', 'expired', 'cancelled') \
         AND NOT EXISTS (SELECT 1 FROM resolve_claims k WHERE k.run = c.run AND k.call_id = c.call_id)"
    );
    const ORDER: &str = " ORDER BY c.resolved_at, r.id, c.call_id LIMIT ?2";
    let limit = crate::store::backend::RESOLVED_AT_ONCE;
    match run_id {
        Some(run) => decoded(
            &mut c.prepare_cached(&format!("{FROM} AND r.id = ?3{ORDER}"))?,
            params![since, limit, run],
            columns::call,
        ),
        None => decoded(
            &mut c.prepare_cached(&format!("{FROM}{ORDER}"))?,
            params![since, limit],
            columns::call,
        ),
    }
}

/// `Backend::claim_resolution`: one statement, so one transaction of its own.
pub fn claim_resolution(c: &Connection, run_id: &str, call_id: &str, now: i64) -> Result<bool> {
    let n = c
        .prepare_cached(
            "INSERT INTO resolve_claims (run, call_id, claimed_at) \
             SELECT c.run, c.call_id, ?3 FROM calls c JOIN runs r ON r.key = c.run \
             WHERE r.id = ?1 AND c.call_id = ?2 AND c.kind IS NOT NULL \
             AND c.state IN ('resolved', 'expired', 'cancelled') \
             ON CONFLICT DO NOTHING",
        )?
        .execute(params![run_id, call_id, now])?;
    Ok(n > 0)
}
