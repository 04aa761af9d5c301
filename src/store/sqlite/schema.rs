//! The SQLite schema, as numbered migrations under `PRAGMA user_version`, and the settings
//! every connection gets.
//!
//! The schema is shaped for size, because a store keeps every run until `prune`: child rows
//! name their run by its integer `key` (not its 36-character id), an agent definition
//! shared by many runs is stored once (`documents`), tables with large rows keep them in
//! rowid tables (no overflow pages half empty), and facts repeated by events and tool
//! messages are stored as references (see `compact.rs`).

use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::Connection;

use super::errors::classify;
use crate::store::{Error, Result};

/// Numbered migrations: released ones are never edited, new ones are appended.
pub const MIGRATIONS: &[&str] = crate::store::backend::migrations_list!(
    r#"
CREATE TABLE documents (
    key INTEGER PRIMARY KEY,
    hash INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX documents_by_hash ON documents (hash);
CREATE TABLE runs (
    key INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL,
    agent INTEGER NOT NULL REFERENCES documents (key),
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
    run INTEGER NOT NULL REFERENCES runs (key) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    call_id TEXT,
    body TEXT NOT NULL,
    UNIQUE (run, seq)
);
CREATE TABLE events (
    run INTEGER NOT NULL REFERENCES runs (key) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    derived INTEGER NOT NULL DEFAULT 0,
    call_id TEXT,
    message INTEGER,
    payload TEXT,
    at INTEGER NOT NULL,
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
CREATE TABLE calls (
    run INTEGER NOT NULL REFERENCES runs (key) ON DELETE CASCADE,
    call_id TEXT NOT NULL,
    step INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    tool_name TEXT NOT NULL,
    args TEXT NOT NULL,
    state TEXT NOT NULL,
    payload TEXT,
    payload_is_args INTEGER NOT NULL DEFAULT 0,
    result TEXT,
    error TEXT,
    resume_data TEXT,
    resolved_by TEXT,
    resolved_via TEXT,
    resolved_at INTEGER,
    expires_at INTEGER,
    created_at INTEGER NOT NULL,
    UNIQUE (run, call_id)
);
CREATE INDEX calls_pending ON calls (created_at) WHERE state = 'pending';
CREATE INDEX calls_expiring ON calls (expires_at) WHERE state = 'pending' AND expires_at IS NOT NULL;
CREATE TABLE waiters (
    run INTEGER NOT NULL REFERENCES runs (key) ON DELETE CASCADE,
    token TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL,
    PRIMARY KEY (run, token)
) WITHOUT ROWID;
"#;
    concat!(
        crate::store::backend::policy_migration!(),
        "
CREATE TABLE decisions (
    run INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    decision TEXT NOT NULL,
    digest TEXT,
    resume_data TEXT NOT NULL,
    result TEXT,
    via TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (run, call_id, reviewer),
    FOREIGN KEY (run, call_id) REFERENCES calls (run, call_id) ON DELETE CASCADE
) WITHOUT ROWID;
"
    ),
    // 10: an approval with changes keeps the arguments it approved with its decision (their
    // canonical JSON, the text its digest is of), for the reviewers who decide after it.
    "ALTER TABLE decisions ADD COLUMN args TEXT;",
    // 11: telling reviewers of new items (SPEC §17): each reviewer's channel, and the claims
    // that make each (item, reviewer) notified once across every serve on the store.
    "
ALTER TABLE reviewers ADD COLUMN notify TEXT;
CREATE TABLE notifications (
    run INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    claimed_at INTEGER NOT NULL,
    PRIMARY KEY (run, call_id, reviewer),
    FOREIGN KEY (run, call_id) REFERENCES calls (run, call_id) ON DELETE CASCADE
) WITHOUT ROWID;
",
    // 12: an agent's minimum policy (SPEC §15, `policy set NAME ... --for-agent AGENT`):
    // every run of that agent is at least as strict; one per agent.
    "
ALTER TABLE policies ADD COLUMN for_agent TEXT;
CREATE UNIQUE INDEX policies_for_agent ON policies (for_agent) WHERE for_agent IS NOT NULL;
",
    // 13: one-tap decisions (SPEC §17): a secret per (item, decision, reviewer), kept as
    // its hash, single use, void after `expires_at`; the form fields it decides with.
    "
CREATE TABLE taps (
    secret_hash TEXT PRIMARY KEY,
    run INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    label TEXT NOT NULL,
    sends TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER,
    created_at INTEGER NOT NULL,
    FOREIGN KEY (run, call_id) REFERENCES calls (run, call_id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX taps_by_reviewer ON taps (reviewer);
",
    // 14: `--on-resolve CMD` (SPEC §17): the claims that make each resolved item's hook run
    // once across every process on the store, and the index that finds the items resolved
    // lately whose hook no process has run yet.
    "
CREATE TABLE resolve_claims (
    run INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    claimed_at INTEGER NOT NULL,
    PRIMARY KEY (run, call_id),
    FOREIGN KEY (run, call_id) REFERENCES calls (run, call_id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX calls_resolved ON calls (resolved_at) WHERE resolved_at IS NOT NULL;
",
);

/// How long a command waits for another one's write lock before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Overrides `BUSY_TIMEOUT` (a `DUR` such as `200ms`, at most `BUSY_TIMEOUT_MAX`); meant for
/// tests and slow disks.
pub const BUSY_TIMEOUT_VAR: &str = "MASTRA_ASK_BUSY_TIMEOUT";
/// The longest busy timeout: longer waits are a mistake, not patience (and SQLite takes
/// at most `i32::MAX` milliseconds).
pub const BUSY_TIMEOUT_MAX: Duration = Duration::from_secs(3600);
/// A committing process folds the write-ahead log into the store once it holds this many
/// pages. Each fold costs two `fsync`s (the log, then the store); every process reads the
/// whole log at start-up (about 1,800 instructions a page, rebuilding its index). At 256
/// a fold comes four times less often than at 64, for about 0.2 M more instructions at each
/// start (docs/performance.md).
const CHECKPOINT_PAGES: u32 = 256;
/// After a checkpoint, a log that grew past this is truncated back to it.
const LOG_LIMIT_BYTES: u32 = 4 << 20;
/// SQLite's page cache per connection, a quarter of its default. A leg reads a few dozen
/// pages, and `pending` reads each of a long listing's pages once: every page the cache
/// grows by is a fresh heap page the kernel must fault in (about 450 of `pending`'s faults
/// at 100,000 runs went that way), while a page read again comes from the kernel's page
/// cache (measured in issue 22; git history of docs/performance.md).
const CACHE_KIB: u32 = 512;
/// Statements kept compiled per connection: more than one command uses (a leg uses about
/// 20), so that none is compiled twice in a process (rusqlite keeps 16 by default).
const STATEMENT_CACHE: usize = 64;

/// `MASTRA_ASK_BUSY_TIMEOUT`, else `BUSY_TIMEOUT`; a value that is not a duration up to
/// `BUSY_TIMEOUT_MAX` is a usage error.
pub fn busy_timeout() -> Result<Duration> {
    let value = match std::env::var(BUSY_TIMEOUT_VAR) {
        Ok(v) if !v.is_empty() => v,
        _ => return Ok(BUSY_TIMEOUT),
    };
    let timeout = crate::duration::parse(&value)
        .map_err(|e| Error::usage(format!("{BUSY_TIMEOUT_VAR}: {e}")))?;
    if timeout > BUSY_TIMEOUT_MAX {
        return Err(Error::usage(format!(
            "{BUSY_TIMEOUT_VAR}: {value} is longer than the most it may be, 1h"
        )));
    }
    Ok(timeout)
}

/// Settings of every connection.
///
/// Durability: the store is in WAL mode with `synchronous = FULL`, so every commit is on
/// disk before the call returns. The log is not folded into the store when a connection
/// closes (each command is a short process; that fold would cost every one of them a
/// second `fsync`); committing processes fold it instead, every `CHECKPOINT_PAGES`.
pub fn configure(conn: &Connection, doing: &str) -> Result<()> {
    let timeout = busy_timeout()?;
    let set = || -> rusqlite::Result<()> {
        conn.busy_timeout(timeout)?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        // Plans that do not depend on bound values: a cached statement is not compiled
        // again each time it gets new parameters.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        conn.execute_batch(&format!(
            "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL; \
             PRAGMA wal_autocheckpoint = {CHECKPOINT_PAGES}; \
             PRAGMA journal_size_limit = {LOG_LIMIT_BYTES}; \
             PRAGMA cache_size = -{CACHE_KIB};"
        ))
    };
    set().map_err(|e| classify(doing, e))
}
