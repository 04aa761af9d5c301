//! Stored rows into domain values, for both backends: the order of the columns that every
//! query reading a run, a locked run, a call or a waiter selects, and the decoders, which
//! are defensive. A row that does not read (a REAL where an integer belongs, JSON that does
//! not parse, an unknown status) gives a description of what is wrong instead of a failed
//! query, so that it costs only its own run (`damage`).
//!
//! No SQL here: each backend writes its own column lists in the order set out below.

use serde_json::Value;

use std::time::Duration;

use super::backend::{Outcome, RunRow};
use super::policy::{DecisionRow, NamedPolicy};
use super::{Lease, LedgerEntry, LedgerKey, LedgerKind, LedgerState, Run, LEASE_MS};
use crate::domain::review::{
    Checked, CheckedAs, DecisionRecord, OnExpiry, Policy, RuleSpec, RunGate, Verdict,
};
use crate::domain::{CallRecord, CallState, ItemKind, Payload, RunStatus, ToolProcess, Usage};

/// What reading one row gives: the value, or what is wrong with the row.
pub type Read<T> = Result<T, String>;

/// One value of a fetched row, as either backend gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    /// Anything else, by its type's name.
    Other(String),
}

impl Cell {
    fn kind(&self) -> &str {
        match self {
            Cell::Null => "nothing",
            Cell::Int(_) => "an integer",
            Cell::Real(_) => "a real number",
            Cell::Text(_) => "text",
            Cell::Other(name) => name,
        }
    }
}

/// One fetched row of either backend, column by column.
pub trait Columns {
    fn cell(&self, i: usize) -> Read<Cell>;
    /// Column `i` as text borrowed from the row (`None` for NULL), for a cell that is only
    /// read or parsed; a cell of another type is an error (`not_text`).
    fn str(&self, i: usize) -> Read<Option<&str>>;
    /// The name of column `i`, if there is one.
    fn column_name(&self, i: usize) -> Option<&str>;
}

impl dyn Columns + '_ {
    /// The name of column `i`, for messages.
    fn name(&self, i: usize) -> &str {
        self.column_name(i).unwrap_or("a column")
    }

    fn text(&self, i: usize) -> Read<Option<String>> {
        match self.cell(i)? {
            Cell::Null => Ok(None),
            Cell::Text(s) => Ok(Some(s)),
            other => Err(self.odd(i, &other, "text")),
        }
    }

    fn int(&self, i: usize) -> Read<Option<i64>> {
        match self.cell(i)? {
            Cell::Null => Ok(None),
            Cell::Int(n) => Ok(Some(n)),
            other => Err(self.odd(i, &other, "an integer")),
        }
    }

    fn odd(&self, i: usize, found: &Cell, wanted: &str) -> String {
        format!(
            "{} holds {} where {wanted} belongs",
            self.name(i),
            found.kind()
        )
    }
}

/// What is wrong with column `i`, which is not text (for `Columns::str`).
pub fn not_text(c: &dyn Columns, i: usize) -> String {
    match c.cell(i) {
        Ok(found) => c.odd(i, &found, "text"),
        Err(e) => e,
    }
}

/// Column `i`, text, borrowed.
fn str_of(c: &dyn Columns, i: usize) -> Read<&str> {
    c.str(i)?.ok_or_else(|| format!("{} is empty", c.name(i)))
}

fn text(c: &dyn Columns, i: usize) -> Read<String> {
    c.text(i)?.ok_or_else(|| format!("{} is empty", c.name(i)))
}

fn int(c: &dyn Columns, i: usize) -> Read<i64> {
    c.int(i)?.ok_or_else(|| format!("{} is empty", c.name(i)))
}

/// A stored count, which is never negative.
fn count(c: &dyn Columns, i: usize) -> Read<u64> {
    u64::try_from(int(c, i)?).map_err(|_| format!("{} holds a negative count", c.name(i)))
}

fn json(c: &dyn Columns, i: usize) -> Read<Value> {
    from_json(&text(c, i)?)
}

fn opt_json(c: &dyn Columns, i: usize) -> Read<Option<Value>> {
    c.text(i)?.map(|s| from_json(&s)).transpose()
}

/// A call's suspend payload (columns `payload`, `is_args`; `args` the arguments' text): its
/// arguments when the row says so (SQLite's `payload_is_args`) or holds them again as the
/// same text (PostgreSQL stores the payload whole), else its own value.
fn payload(c: &dyn Columns, args: &str, payload: usize, is_args: usize) -> Read<Payload> {
    if c.int(is_args)?.is_some_and(|n| n != 0) {
        return Ok(Payload::Args);
    }
    match c.str(payload)? {
        None => Ok(Payload::None),
        Some(p) if p == args => Ok(Payload::Args),
        Some(p) => from_json(p).map(Payload::Own),
    }
}

pub fn from_json<T: serde::de::DeserializeOwned>(s: &str) -> Read<T> {
    serde_json::from_str(s).map_err(|e| format!("a stored JSON value does not parse: {e}"))
}

pub fn status(text: &str) -> Read<RunStatus> {
    RunStatus::parse(text).ok_or_else(|| format!("unknown run status {text:?}"))
}

pub fn call_state(text: &str) -> Read<CallState> {
    CallState::parse(text).ok_or_else(|| format!("unknown call state {text:?}"))
}

/// The id in column 0 as far as it reads, to name the run in a warning.
pub fn run_id(c: &dyn Columns) -> String {
    c.text(0)
        .ok()
        .flatten()
        .unwrap_or_else(|| "(unreadable id)".into())
}

/// What a run came to, in three columns from `at`: output, finish reason, error.
fn outcome(c: &dyn Columns, at: usize) -> Read<Outcome> {
    Ok(Outcome {
        output: c.text(at)?,
        finish_reason: c.text(at + 1)?,
        error: c.text(at + 2)?,
    })
}

/// Usage in three columns from `at`.
fn usage(c: &dyn Columns, at: usize) -> Read<Usage> {
    Ok(Usage {
        input_tokens: count(c, at)?,
        output_tokens: count(c, at + 1)?,
        total_tokens: count(c, at + 2)?,
    })
}

/// The lease in five columns from `at` (token, host, pid, start, expiry), if there is one.
fn lease(c: &dyn Columns, at: usize) -> Read<Option<Lease>> {
    let Some(token) = c.text(at)? else {
        return Ok(None);
    };
    Ok(Some(Lease {
        token,
        host: c.text(at + 1)?.unwrap_or_default(),
        pid: u32::try_from(c.int(at + 2)?.unwrap_or(0)).unwrap_or(0),
        start: u64::try_from(c.int(at + 3)?.unwrap_or(0)).unwrap_or(0),
        expires_at: c.int(at + 4)?.unwrap_or(0),
    }))
}

/// Who may answer a run, in five columns from `at`: policy (JSON), started_by, started_as,
/// on_expiry, escalate_after_ms (all empty for runs stored before policies).
pub fn gate(c: &dyn Columns, at: usize) -> Read<RunGate> {
    let policy = c.text(at)?.map(|s| from_json::<Policy>(&s)).transpose()?;
    let started_by = match (c.text(at + 1)?, c.text(at + 2)?) {
        (Some(name), Some(kind)) => Some(Checked {
            name,
            kind: CheckedAs::parse(&kind)
                .ok_or_else(|| format!("unknown kind of identity {kind:?}"))?,
        }),
        _ => None,
    };
    let on_expiry = match c.text(at + 3)? {
        None => OnExpiry::Fail,
        Some(s) => OnExpiry::parse(&s).ok_or_else(|| format!("unknown expiry outcome {s:?}"))?,
    };
    let escalate_after = c
        .int(at + 4)?
        .map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0)));
    Ok(RunGate {
        policy,
        started_by,
        on_expiry,
        escalate_after,
    })
}

/// The columns `gate` reads, in its order.
pub const GATE_COLUMNS: &str = "policy, started_by, started_as, on_expiry, escalate_after_ms";

/// Columns of a decision: run id, call_id, reviewer, decision, digest, via, at,
/// resume_data, result, whether it counts, args (approved with changes).
pub fn decision(c: &dyn Columns) -> Read<DecisionRow> {
    let verdict = text(c, 3)?;
    Ok(DecisionRow {
        record: DecisionRecord {
            run_id: text(c, 0)?,
            call_id: text(c, 1)?,
            reviewer: text(c, 2)?,
            verdict: Verdict::parse(&verdict)
                .ok_or_else(|| format!("unknown decision {verdict:?}"))?,
            digest: c.text(4)?,
            args: opt_json(c, 10)?,
            via: text(c, 5)?,
            at: int(c, 6)?,
            counts: int(c, 9)? != 0,
        },
        resume_data: json(c, 7)?,
        result: opt_json(c, 8)?,
    })
}

/// Columns of a named policy: `NAMED_POLICY_COLUMNS`.
pub fn named_policy(c: &dyn Columns) -> Read<NamedPolicy> {
    Ok(NamedPolicy {
        name: text(c, 0)?,
        rule: from_json::<RuleSpec>(&text(c, 1)?)?,
        created_at: int(c, 2)?,
        updated_at: int(c, 3)?,
        for_agent: c.text(4)?,
    })
}

/// What `named_policy` reads, in order.
pub const NAMED_POLICY_COLUMNS: &str = "name, rule, created_at, updated_at, for_agent";

/// Columns of a run: id, agent_id, agent (JSON), cwd, status, output, finish_reason, error,
/// input_tokens, output_tokens, total_tokens, lease_token, lease_host, lease_pid,
/// lease_start, lease_expires_at, created_at, updated_at, host, os_uid, then `GATE_COLUMNS`.
pub fn run(c: &dyn Columns) -> Read<Run> {
    let Outcome {
        output,
        finish_reason,
        error,
    } = outcome(c, 5)?;
    Ok(Run {
        id: text(c, 0)?,
        agent_id: text(c, 1)?,
        agent: json(c, 2)?,
        cwd: text(c, 3)?,
        status: status(&text(c, 4)?)?,
        output,
        finish_reason,
        error,
        usage: usage(c, 8)?,
        lease: lease(c, 11)?,
        created_at: int(c, 16)?,
        updated_at: int(c, 17)?,
        host: c.text(18)?,
        os_uid: c.int(19)?.and_then(|uid| u32::try_from(uid).ok()),
        gate: gate(c, 20)?,
    })
}

/// Columns of a locked run: key (0 when the backend has none), id, status, output,
/// finish_reason, error, input_tokens, output_tokens, total_tokens, lease_token,
/// lease_host, lease_pid, lease_start, lease_expires_at, expires_in_ms, updated_at, then
/// `GATE_COLUMNS`.
pub fn run_row(c: &dyn Columns) -> Read<RunRow> {
    Ok(RunRow {
        key: int(c, 0)?,
        id: text(c, 1)?,
        status: status(&text(c, 2)?)?,
        outcome: outcome(c, 3)?,
        usage: usage(c, 6)?,
        lease: lease(c, 9)?,
        expires_in_ms: c.int(14)?,
        updated_at: int(c, 15)?,
        gate: gate(c, 16),
    })
}

/// Columns of a call: run id, call_id, seq, step, tool_name, args, state, payload,
/// payload_is_args (the payload is the arguments), result, error, resume_data,
/// resolved_by, resolved_via, resolved_at, expires_at, created_at, kind, tool_pgid,
/// tool_start, tool_host, tool_started_at, approved_args, digest, claim.
pub fn call(c: &dyn Columns) -> Read<CallRecord> {
    let args_text = str_of(c, 5)?;
    let (args, payload) = (from_json(args_text)?, payload(c, args_text, 7, 8)?);
    let state = call_state(&text(c, 6)?)?;
    let kind = match c.text(17)? {
        Some(k) => Some(ItemKind::parse(&k).ok_or_else(|| format!("unknown item kind {k:?}"))?),
        None if !matches!(state, CallState::Done | CallState::Running) => {
            return Err(format!("{} is an item without a kind", c.name(17)))
        }
        None => None,
    };
    let process = match c.int(18)? {
        Some(pgid) => Some(ToolProcess {
            pgid: u32::try_from(pgid).map_err(|_| format!("{} is out of range", c.name(18)))?,
            leader_start: u64::try_from(c.int(19)?.unwrap_or(0)).unwrap_or(0),
            host: c.text(20)?.unwrap_or_default(),
            started_at: c.int(21)?.unwrap_or(0),
        }),
        None => None,
    };
    Ok(CallRecord {
        run_id: text(c, 0)?,
        call_id: text(c, 1)?,
        seq: int(c, 2)?,
        step: int(c, 3)?,
        tool_name: text(c, 4)?,
        args,
        state,
        kind,
        payload,
        result: opt_json(c, 9)?,
        error: opt_json(c, 10)?,
        resume_data: opt_json(c, 11)?,
        resolved_by: c.text(12)?,
        claim: c.text(24)?,
        resolved_via: c.text(13)?,
        resolved_at: c.int(14)?,
        expires_at: c.int(15)?,
        created_at: int(c, 16)?,
        process,
        approved_args: opt_json(c, 22)?,
        digest: c.text(23)?,
    })
}

/// Columns of a pending item (each backend's `PENDING_COLUMNS`): run id, call_id, seq,
/// step, tool_name, args, payload, payload_is_args, expires_at, created_at, kind, then its
/// run's agent_id and whether the run is under a policy. Only what a pending call can
/// hold: its resolution, result, error, approved arguments and tool process are written
/// when it stops pending, so they are none here. Text that is parsed is borrowed.
pub fn pending(c: &dyn Columns) -> Read<(CallRecord, String, bool)> {
    let args_text = str_of(c, 5)?;
    let (args, payload) = (from_json(args_text)?, payload(c, args_text, 6, 7)?);
    let kind = c
        .str(10)?
        .ok_or_else(|| format!("{} is an item without a kind", c.name(10)))?;
    let kind = ItemKind::parse(kind).ok_or_else(|| format!("unknown item kind {kind:?}"))?;
    let call = CallRecord {
        run_id: str_of(c, 0)?.to_string(),
        call_id: str_of(c, 1)?.to_string(),
        seq: int(c, 2)?,
        step: int(c, 3)?,
        tool_name: str_of(c, 4)?.to_string(),
        args,
        state: CallState::Pending,
        kind: Some(kind),
        payload,
        result: None,
        error: None,
        resume_data: None,
        resolved_by: None,
        claim: None,
        resolved_via: None,
        resolved_at: None,
        expires_at: c.int(8)?,
        created_at: int(c, 9)?,
        process: None,
        approved_args: None,
        digest: None,
    };
    let agent_id = c.str(11)?.unwrap_or_default().to_string();
    let gated = c.int(12)?.is_some_and(|g| g != 0);
    Ok((call, agent_id, gated))
}

/// Columns of a waiter: token, host, pid, start, heartbeat_at; as the lease its heartbeat
/// holds.
pub fn waiter(c: &dyn Columns) -> Read<Lease> {
    Ok(Lease {
        token: text(c, 0)?,
        host: text(c, 1)?,
        pid: u32::try_from(int(c, 2)?).unwrap_or(0),
        start: u64::try_from(int(c, 3)?).unwrap_or(0),
        expires_at: int(c, 4)?.saturating_add(LEASE_MS),
    })
}

/// The columns of a ledger entry, in the order `LEDGER_COLUMNS` of each backend gives them.
pub const LEDGER_COLUMNS: &str = "run_id, server, tool_call_id, kind, agent_id, state, \
    resume_data, resolved_by, resolved_via, token, host, pid, start, outcome, created_at, \
    updated_at";

/// Columns of a ledger entry: `LEDGER_COLUMNS`.
pub fn ledger(c: &dyn Columns) -> Read<LedgerEntry> {
    let kind = text(c, 3)?;
    let state = text(c, 5)?;
    Ok(LedgerEntry {
        key: LedgerKey {
            run_id: text(c, 0)?,
            server: text(c, 1)?,
            tool_call_id: text(c, 2)?,
            kind: LedgerKind::parse(&kind)
                .ok_or_else(|| format!("unknown ledger kind {kind:?}"))?,
        },
        agent_id: text(c, 4)?,
        state: LedgerState::parse(&state)
            .ok_or_else(|| format!("unknown ledger state {state:?}"))?,
        resume_data: json(c, 6)?,
        by: text(c, 7)?,
        via: text(c, 8)?,
        holder: Lease {
            token: text(c, 9)?,
            host: text(c, 10)?,
            pid: u32::try_from(int(c, 11)?).unwrap_or(0),
            start: u64::try_from(int(c, 12)?).unwrap_or(0),
            expires_at: i64::MAX,
        },
        outcome: c.text(13)?,
        created_at: int(c, 14)?,
        updated_at: int(c, 15)?,
    })
}

/// A count or a number of tokens as a column holds it (saturating: never wraps).
pub fn stored(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
