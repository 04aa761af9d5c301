//! The PostgreSQL reads: runs, their messages, events and calls, pending items, deadlines.
//! Each row is decoded on its own (`columns`), so that one odd row costs only its run.
//! Nothing here writes.

use tokio_postgres::types::Type;
use tokio_postgres::Row;

use super::reviewers::SETTING;
use super::session::Client;

use crate::domain::review::DecisionRecord;
use crate::domain::{CallRecord, Event, EventKind, Message, StoredEvent};
use crate::store::columns::{self, Cell, Columns, Read};
use crate::store::damage::{self, Decoded};
use crate::store::reviewers::PUBLIC_URL;
use crate::store::{Result, Run, RunFilter};

/// A call with its run's id, as `columns::call` reads it (payloads are stored whole).
pub const CALL_COLUMNS: &str = "c.run_id, c.call_id, c.seq, c.step, c.tool_name, c.args, \
    c.state, c.payload, false, c.result, c.error, c.resume_data, c.resolved_by, \
    c.resolved_via, c.resolved_at, c.expires_at, c.created_at, c.kind, c.tool_pgid, \
    c.tool_start, c.tool_host, c.tool_started_at, c.approved_args, c.digest, c.claim";

/// A pending item as `columns::pending` reads it (`c` is `calls`, `r` its run; payloads
/// are stored whole).
const PENDING_COLUMNS: &str = "c.run_id, c.call_id, c.seq, c.step, c.tool_name, c.args, \
    c.payload, false, c.expires_at, c.created_at, c.kind, r.agent_id, r.policy IS NOT NULL";

/// A run, as `columns::run` reads it.
const RUN_COLUMNS: &str = "id, agent_id, agent, cwd, status, output, finish_reason, error, \
    input_tokens, output_tokens, total_tokens, lease_token, lease_host, lease_pid, \
    lease_start, lease_expires_at, created_at, updated_at, host, os_uid, policy, started_by, \
    started_as, on_expiry, escalate_after_ms FROM runs";

/// A decision, and whether it still counts (its reviewer active, and not added again
/// since), as `columns::decision` reads it.
pub const DECISION_COLUMNS: &str = "run_id, call_id, reviewer, decision, digest, via, at, \
    resume_data, result, EXISTS (SELECT 1 FROM reviewers v WHERE v.name = decisions.reviewer \
    AND v.removed_at IS NULL AND v.created_at <= decisions.at), args FROM decisions";

/// A fetched PostgreSQL row, column by column.
pub struct PgRow<'a>(pub &'a Row);

impl Columns for PgRow<'_> {
    fn cell(&self, i: usize) -> Read<Cell> {
        let ty = match self.0.columns().get(i) {
            Some(column) => column.type_().clone(),
            None => return Err(format!("no column {i}")),
        };
        let bad = |e: tokio_postgres::Error| format!("column {i}: {e}");
        let cell = match ty {
            Type::INT8 => self
                .0
                .try_get::<_, Option<i64>>(i)
                .map_err(bad)?
                .map(Cell::Int),
            Type::BOOL => self
                .0
                .try_get::<_, Option<bool>>(i)
                .map_err(bad)?
                .map(|b| Cell::Int(i64::from(b))),
            Type::TEXT | Type::VARCHAR => self
                .0
                .try_get::<_, Option<String>>(i)
                .map_err(bad)?
                .map(Cell::Text),
            other => Some(Cell::Other(other.name().to_string())),
        };
        Ok(cell.unwrap_or(Cell::Null))
    }

    fn str(&self, i: usize) -> Read<Option<&str>> {
        match self.0.columns().get(i).map(|c| c.type_()) {
            Some(&Type::TEXT | &Type::VARCHAR) => self
                .0
                .try_get::<_, Option<&str>>(i)
                .map_err(|e| format!("column {i}: {e}")),
            _ => Err(columns::not_text(self, i)),
        }
    }

    fn column_name(&self, i: usize) -> Option<&str> {
        self.0.columns().get(i).map(|c| c.name())
    }
}

/// `rows`, each decoded by `read` and named by its run (column 0).
pub fn decoded<'r, T: 'r>(
    rows: &'r [Row],
    read: fn(&dyn Columns) -> Read<T>,
) -> impl Iterator<Item = Decoded<T>> + 'r {
    rows.iter().map(move |r| {
        let row = PgRow(r);
        let value = read(&row);
        // The run is named only when its row does not read.
        let run = match &value {
            Ok(_) => String::new(),
            Err(_) => columns::run_id(&row),
        };
        (run, value)
    })
}

pub fn run(c: &mut Client, id: &str) -> Result<Option<Run>> {
    let row = c.query_opt(&format!("SELECT {RUN_COLUMNS} WHERE id = $1"), &[&id])?;
    row.map(|r| damage::one(id, columns::run(&PgRow(&r))))
        .transpose()
}

pub fn run_ids_between(c: &mut Client, from: &str, to: &str, limit: usize) -> Result<Vec<String>> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    Ok(c.query(
        "SELECT id FROM runs WHERE id >= $1 AND id < $2 ORDER BY id LIMIT $3",
        &[&from, &to, &limit],
    )?
    .iter()
    .map(|r| r.get(0))
    .collect())
}

pub fn list_runs(c: &mut Client, filter: &RunFilter) -> Result<Vec<Run>> {
    let limit = i64::try_from(filter.limit).unwrap_or(i64::MAX);
    let status = filter.status.map(|s| s.as_str());
    let rows = c.query(
        &format!(
            "SELECT {RUN_COLUMNS} WHERE $1::text IS NULL OR status = $1 \
             ORDER BY created_at DESC, id DESC LIMIT $2"
        ),
        &[&status, &limit],
    )?;
    Ok(damage::sift(decoded(&rows, columns::run)))
}

/// A run's messages, in order.
const MESSAGES: &str = "SELECT body FROM messages WHERE run_id = $1 ORDER BY seq";

pub fn messages(c: &mut Client, run_id: &str) -> Result<Vec<Message>> {
    messages_of(run_id, &c.query(MESSAGES, &[&run_id])?)
}

fn messages_of(run_id: &str, rows: &[Row]) -> Result<Vec<Message>> {
    rows.iter()
        .map(|r| damage::one(run_id, columns::from_json(r.get::<_, &str>(0))))
        .collect()
}

/// A run's messages and calls, in one round trip.
pub fn messages_and_calls(c: &mut Client, run_id: &str) -> Result<(Vec<Message>, Vec<CallRecord>)> {
    let calls = calls_sql();
    let answers = c.queries(&[(MESSAGES, &[&run_id]), (&calls, &[&run_id])])?;
    let [messages, calls] = two(answers);
    Ok((messages_of(run_id, &messages)?, calls_of(&calls)?))
}

/// A run's events; a payload that does not parse reads as null.
pub fn events(c: &mut Client, run_id: &str) -> Result<Vec<StoredEvent>> {
    Ok(c.query(
        "SELECT seq, at, kind, payload FROM events WHERE run_id = $1 ORDER BY seq",
        &[&run_id],
    )?
    .iter()
    // An event of a kind this program does not know is left out.
    .filter_map(|r| {
        Some(StoredEvent {
            seq: r.get(0),
            at: r.get(1),
            event: Event {
                kind: EventKind::parse(r.get::<_, &str>(2))?,
                payload: columns::from_json(r.get::<_, &str>(3)).unwrap_or_default(),
            },
        })
    })
    .collect())
}

/// Every call of the run whose id is `$1`, in order.
fn calls_sql() -> String {
    format!("SELECT {CALL_COLUMNS} FROM calls c WHERE c.run_id = $1 ORDER BY c.step, c.seq")
}

fn calls_of(rows: &[Row]) -> Result<Vec<CallRecord>> {
    damage::all(decoded(rows, columns::call))
}

pub fn calls(c: &mut Client, run_id: &str) -> Result<Vec<CallRecord>> {
    calls_of(&c.query(&calls_sql(), &[&run_id])?)
}

/// A run's calls and the inbox's public URL, in one round trip.
pub fn calls_and_url(c: &mut Client, run_id: &str) -> Result<(Vec<CallRecord>, Option<String>)> {
    let calls = calls_sql();
    let key = PUBLIC_URL;
    let answers = c.queries(&[(&calls, &[&run_id]), (SETTING, &[&key])])?;
    let [calls, url] = two(answers);
    Ok((calls_of(&calls)?, url.first().map(|r| r.get(0))))
}

/// The answers of two queries sent together.
pub fn two(answers: Vec<Vec<Row>>) -> [Vec<Row>; 2] {
    answers
        .try_into()
        .unwrap_or_else(|a: Vec<_>| unreachable!("{} answers to two queries", a.len()))
}

/// The rows of the pending calls, as `columns::pending` reads them.
pub fn pending_calls(c: &mut Client, run_id: Option<&str>) -> Result<Vec<Row>> {
    Ok(c.query(
        &format!(
            "SELECT {PENDING_COLUMNS} FROM calls c JOIN runs r ON r.id = c.run_id \
             WHERE c.state = 'pending' AND ($1::text IS NULL OR c.run_id = $1) \
             ORDER BY c.created_at, c.run_id, c.step, c.seq"
        ),
        &[&run_id],
    )?)
}

pub fn any_due(c: &mut Client, now: i64) -> Result<bool> {
    Ok(c.query_one(
        "SELECT EXISTS (SELECT 1 FROM calls WHERE state = 'pending' \
             AND expires_at IS NOT NULL AND expires_at <= $1)",
        &[&now],
    )?
    .get(0))
}

pub fn decisions(c: &mut Client, run_id: &str) -> Result<Vec<DecisionRecord>> {
    let sql = format!("SELECT {DECISION_COLUMNS} WHERE run_id = $1 ORDER BY at, call_id, reviewer");
    let rows = c.query(&sql, &[&run_id])?;
    let rows = damage::all(decoded(&rows, columns::decision))?;
    Ok(rows.into_iter().map(|d| d.record).collect())
}

pub fn due_escalations(c: &mut Client, now: i64) -> Result<Vec<(String, String)>> {
    let rows = c.query(
        "SELECT c.run_id, c.call_id FROM calls c JOIN runs r ON r.id = c.run_id \
         WHERE c.state = 'pending' AND c.escalated_at IS NULL \
         AND r.escalate_after_ms IS NOT NULL AND c.created_at + r.escalate_after_ms <= $1 \
         ORDER BY c.created_at, c.run_id, c.call_id",
        &[&now],
    )?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// The items resolved (decided, expired, cancelled) since `since` whose `--on-resolve` hook
/// no process claimed, oldest first; of run `run_id` only when given.
pub fn unclaimed_resolutions(
    c: &mut Client,
    run_id: Option<&str>,
    since: i64,
) -> Result<Vec<CallRecord>> {
    let of_run = if run_id.is_some() {
        " AND c.run_id = $3"
    } else {
        ""
    };
    let sql = format!(
        "SELECT {CALL_COLUMNS} FROM calls c \
         WHERE c.resolved_at >= $1 AND c.kind IS NOT NULL \
         AND c.state IN ('resolved', 'expired', 'cancelled') \
         AND NOT EXISTS (SELECT FROM resolve_claims k \
             WHERE k.run_id = c.run_id AND k.call_id = c.call_id){of_run} \
         ORDER BY c.resolved_at, c.run_id, c.call_id LIMIT $2"
    );
    let limit = crate::store::backend::RESOLVED_AT_ONCE;
    let rows = match run_id {
        Some(run) => c.query(&sql, &[&since, &limit, &run])?,
        None => c.query(&sql, &[&since, &limit])?,
    };
    Ok(damage::sift(decoded(&rows, columns::call)))
}
