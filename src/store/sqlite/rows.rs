//! Rows into domain values: the column lists the queries select and the functions that
//! read them, plus the small encoders they share.

use rusqlite::Row;
use serde_json::Value;

use super::super::{Lease, Run};
use crate::domain::{CallRecord, CallState, RunStatus, Usage};

pub fn from_json<T: serde::de::DeserializeOwned>(s: &str) -> rusqlite::Result<T> {
    serde_json::from_str(s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn opt_json(s: Option<String>) -> rusqlite::Result<Option<Value>> {
    s.map(|s| from_json(&s)).transpose()
}

/// A run with its agent definition (`r` is `runs`, `d` its agent's `documents` row).
pub const RUN_COLUMNS: &str = "r.id, r.agent_id, d.body, r.cwd, r.status, r.output, \
    r.finish_reason, r.error, r.input_tokens, r.output_tokens, r.total_tokens, r.lease_token, \
    r.lease_host, r.lease_pid, r.lease_expires_at, r.created_at, r.updated_at";

/// `FROM` clause for `RUN_COLUMNS`.
pub const RUN_FROM: &str = "runs r JOIN documents d ON d.key = r.agent";

pub fn run_from_row(r: &Row) -> rusqlite::Result<Run> {
    let status: String = r.get(4)?;
    let lease_token: Option<String> = r.get(11)?;
    Ok(Run {
        id: r.get(0)?,
        agent_id: r.get(1)?,
        agent: from_json(&r.get::<_, String>(2)?)?,
        cwd: r.get(3)?,
        host: String::new(),
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
                start: 0,
                expires_at: r.get::<_, Option<i64>>(14)?.unwrap_or(0),
            }),
            None => None,
        },
        created_at: r.get(15)?,
        updated_at: r.get(16)?,
    })
}

/// A call with its run's id (`c` is `calls`, `r` its `runs` row).
pub const CALL_COLUMNS: &str = "r.id, c.call_id, c.seq, c.step, c.tool_name, c.args, c.state, \
    c.payload, c.payload_is_args, c.result, c.error, c.resume_data, c.resolved_by, \
    c.resolved_via, c.resolved_at, c.expires_at, c.created_at";

/// How many columns `CALL_COLUMNS` has.
pub const CALL_WIDTH: usize = 17;

pub fn call_from_row(r: &Row) -> rusqlite::Result<CallRecord> {
    let state: String = r.get(6)?;
    let args: Value = from_json(&r.get::<_, String>(5)?)?;
    let payload = match r.get::<_, bool>(8)? {
        true => Some(args.clone()),
        false => opt_json(r.get(7)?)?,
    };
    Ok(CallRecord {
        run_id: r.get(0)?,
        call_id: r.get(1)?,
        seq: r.get(2)?,
        step: r.get(3)?,
        tool_name: r.get(4)?,
        args,
        state: CallState::parse(&state).unwrap_or(CallState::Cancelled),
        payload,
        result: opt_json(r.get(9)?)?,
        error: opt_json(r.get(10)?)?,
        resume_data: opt_json(r.get(11)?)?,
        resolved_by: r.get(12)?,
        resolved_via: r.get(13)?,
        resolved_at: r.get(14)?,
        expires_at: r.get(15)?,
        created_at: r.get(16)?,
    })
}

/// A stable 64-bit hash (FNV-1a) of a document, to find it again.
pub fn hash(text: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h as i64
}
