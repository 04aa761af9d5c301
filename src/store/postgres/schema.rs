//! The PostgreSQL schema, in a schema of its own (`mastra_ask`): numbered migrations
//! recorded in `schema_version`, applied under an advisory lock so that several processes
//! may start at once. The tables, their columns and the states they hold are SQLite's;
//! what differs is SQLite's encoding for size (integer run keys, shared agent documents,
//! references instead of copies): here rows name their run by its id and values are stored
//! whole.
//! A store whose version is newer than this program's is refused before anything is
//! written.

use super::session::Client;

use super::errors::classify;
use crate::store::{Cause, Engine, Error, Result};

const MIGRATION_LOCK: i64 = 0x6d61_7374_7261;

/// Numbered migrations: released ones are never edited, new ones are appended.
pub const MIGRATIONS: &[&str] = crate::store::backend::migrations_list!(
    r#"
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
"#;
    concat!(
        crate::store::backend::policy_migration!(),
        include_str!("migration9.sql")
    ),
    include_str!("migration10.sql"),
    include_str!("migration11.sql"),
    include_str!("migration12.sql"),
    include_str!("migration13.sql"),
    include_str!("migration14.sql"),
    include_str!("migration15.sql"),
    include_str!("migration16.sql"),
    include_str!("migration17.sql"),
    include_str!("migration18.sql"),
);

/// The store's schema version; `None` when the database has no store yet. One round trip:
/// the table is read, and its absence is the answer; the session's search path comes with
/// it (`applied`).
pub fn version(client: &mut Client) -> Result<Option<i64>> {
    let row = match client.query_one(
        "SELECT max(version), current_setting('search_path') FROM mastra_ask.schema_version",
        &[],
    ) {
        Ok(row) => row,
        Err(e) if no_store(&e) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    applied(row.try_get(1)?)?;
    row.try_get::<_, Option<i64>>(0).map_err(|e| {
        corrupt(&format!(
            "its schema_version table is not one mastra-ask made ({e})"
        ))
    })
}

/// Refuses a session whose search path is not the store's schema: the server did not apply
/// the connection's options (`connect::options`; a pooler such as PgBouncer drops them), so
/// the statements' table names would resolve elsewhere and their timeouts would be gone.
fn applied(search_path: &str) -> Result<()> {
    use super::connect::{LOCK_TIMEOUT, SCHEMA, STATEMENT_TIMEOUT};
    if search_path == SCHEMA {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "the PostgreSQL server did not apply this connection's session settings (its \
         search_path is {search_path}, not {SCHEMA}): a connection pooler such as \
         PgBouncer drops them; set them on the role or the database instead (ALTER ROLE \
         ... SET search_path = {SCHEMA}, and likewise statement_timeout = \
         '{STATEMENT_TIMEOUT}' and lock_timeout = '{LOCK_TIMEOUT}'), or connect to the \
         server directly"
    )))
}

/// The error of reading a schema or a table that does not exist.
fn no_store(e: &tokio_postgres::Error) -> bool {
    use tokio_postgres::error::SqlState;
    e.code()
        .is_some_and(|c| *c == SqlState::UNDEFINED_TABLE || *c == SqlState::INVALID_SCHEMA_NAME)
}

fn corrupt(detail: &str) -> Error {
    Error::Corrupt(Cause {
        engine: Engine::Postgres,
        doing: String::new(),
        detail: detail.to_string(),
        source: None,
    })
}

/// Refuses a schema version this program does not know, or that none writes.
pub fn known(store: &str, version: i64) -> Result<()> {
    if version < 0 {
        return Err(corrupt(&format!(
            "its schema version is {version}, which no mastra-ask writes"
        ))
        .doing(&format!("opening the store at {store}")));
    }
    let known = MIGRATIONS.len() as i64;
    if version > known {
        return Err(Error::NewerSchema {
            store: store.to_string(),
            found: version,
            known,
        });
    }
    Ok(())
}

/// Applies the missing migrations; safe when several processes do it at once.
pub fn migrate(client: &mut Client, store: &str) -> Result<()> {
    let mut tx = client.transaction(true);
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    tx.batch_execute(
        "CREATE SCHEMA IF NOT EXISTS mastra_ask; \
         CREATE TABLE IF NOT EXISTS mastra_ask.schema_version (version BIGINT NOT NULL)",
    )?;
    let row = tx.query_one(
        "SELECT coalesce(max(version), 0), current_setting('search_path') \
         FROM mastra_ask.schema_version",
        &[],
    )?;
    applied(row.try_get(1)?)?;
    let done: i64 = row.try_get(0).map_err(|e| {
        corrupt(&format!(
            "its schema_version table is not one mastra-ask made ({e})"
        ))
    })?;
    known(store, done)?;
    for (i, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(done).unwrap_or(0))
    {
        let step = format!("applying migration {}", i + 1);
        tx.batch_execute(sql).map_err(|e| classify(&step, e))?;
        tx.execute(
            "INSERT INTO mastra_ask.schema_version (version) VALUES ($1)",
            &[&(i as i64 + 1)],
        )?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::MIGRATIONS;
    use crate::domain::ItemKind;

    /// The database's own guard (`record_decision`, as the newest migration defines it)
    /// accepts, for every kind, exactly the verdicts the kind can be decided as: a new kind
    /// or verdict cannot be forgotten there.
    #[test]
    fn the_guard_knows_every_kind_and_its_verdicts() {
        let newest = MIGRATIONS
            .iter()
            .rev()
            .find(|m| m.contains("FUNCTION record_decision("))
            .expect("a migration defines record_decision");
        for kind in ItemKind::ALL {
            let noun = kind.noun();
            let quoted: Vec<String> = kind
                .verdicts()
                .iter()
                .map(|v| format!("'{}'", v.as_str()))
                .collect();
            let clause = match quoted.as_slice() {
                [] => {
                    let named = format!("g.kind = '{noun}'");
                    assert!(!newest.contains(&named), "{noun} is never decided here");
                    continue;
                }
                [one] => format!("(g.kind = '{noun}' AND p_decision = {one})"),
                many => format!(
                    "(g.kind = '{noun}' AND p_decision IN ({}))",
                    many.join(", ")
                ),
            };
            assert!(newest.contains(&clause), "the guard lacks {clause}");
        }
    }
}
