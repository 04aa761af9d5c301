//! The SQLite backend: WAL, a busy timeout, foreign keys, numbered migrations under
//! `PRAGMA user_version`, one `BEGIN IMMEDIATE` transaction (rusqlite's RAII
//! `Transaction`) per transition.
//!
//! `open.rs` checks and sets up the file, `schema.rs` holds the tables and connection
//! settings, `tx.rs` the row operations of a transition, `read.rs` the reads, `compact.rs`
//! how repeated facts are stored once, `errors.rs` how SQLite's errors become the store's,
//! `change.rs` how a wait wakes at another process's commit.
//! The transitions themselves are not here (`store::transitions`).

mod change;
mod compact;
mod errors;
mod open;
mod policy;
mod read;
mod reviewers;
mod schema;
mod tx;

use std::path::Path;
use std::time::Duration;

use rusqlite::{params, Connection, Transaction, TransactionBehavior};

use crate::domain::review::DecisionRecord;
use crate::domain::{CallRecord, Message, RunStatus, StoredEvent};
use crate::store::backend::{Backend, Durability, PendingCall, Work};
use crate::store::reviewers::{ReviewerRow, SessionRow};
use crate::store::{Access, Error, Grant, Result, Run, RunFilter};
use errors::classify;

/// What reads add to an error without context of its own.
const READING: &str = "reading the store";

pub struct SqliteStore {
    conn: Connection,
    changes: change::Changes,
}

impl SqliteStore {
    pub fn open(path: &Path, access: Access) -> Result<Option<SqliteStore>> {
        Ok(open::open(path, access)?.map(|conn| SqliteStore {
            changes: change::Changes::new(conn.path()),
            conn,
        }))
    }

    /// Runs `f` with the connection's commits made `durability`.
    fn with_sync<T>(&self, durability: Durability, f: impl FnOnce() -> Result<T>) -> Result<T> {
        if durability == Durability::Durable {
            return f();
        }
        self.conn.execute_batch("PRAGMA synchronous = NORMAL")?;
        let result = f();
        self.conn.execute_batch("PRAGMA synchronous = FULL")?;
        result
    }

    /// Runs `f` in one read transaction: every query sees the same snapshot.
    fn snapshot<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Deferred)?;
        f(&tx)
    }
}

impl Backend for SqliteStore {
    fn transact(&self, durability: Durability, f: Work) -> Result<()> {
        self.with_sync(durability, || {
            let mut tx = tx::SqliteTx::begin(&self.conn)?;
            f(&mut tx).map_err(|e| e.doing("writing to the store"))?;
            tx.commit()
        })
    }

    fn run(&self, id: &str) -> Result<Option<Run>> {
        read::run(&self.conn, id).map_err(|e| e.doing(READING))
    }

    fn run_ids_between(&self, from: &str, to: &str, limit: usize) -> Result<Vec<String>> {
        read::run_ids_between(&self.conn, from, to, limit).map_err(|e| e.doing(READING))
    }

    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>> {
        read::list_runs(&self.conn, filter).map_err(|e| e.doing(READING))
    }

    fn messages(&self, run_id: &str) -> Result<Vec<Message>> {
        let messages = read::messages(&self.conn, run_id).map_err(|e| e.doing(READING))?;
        Ok(messages.into_iter().map(|(_, m)| m).collect())
    }

    fn events(&self, run_id: &str) -> Result<Vec<StoredEvent>> {
        // Events point at messages and calls: all three from the same snapshot.
        self.snapshot(|c| read::events(c, run_id))
            .map_err(|e| e.doing(READING))
    }

    fn calls(&self, run_id: &str) -> Result<Vec<CallRecord>> {
        read::calls(&self.conn, run_id).map_err(|e| e.doing(READING))
    }

    fn each_pending_call(
        &self,
        run_id: Option<&str>,
        each: &mut dyn FnMut(PendingCall) -> Result<()>,
    ) -> Result<()> {
        read::each_pending_call(&self.conn, run_id, each).map_err(|e| e.doing(READING))
    }

    fn any_due(&self, now: i64) -> Result<bool> {
        read::any_due(&self.conn, now).map_err(|e| e.doing(READING))
    }

    fn pending_mark(&self) -> Result<(i64, i64)> {
        self.conn
            .prepare_cached(
                "SELECT count(*), coalesce(max(created_at), 0) FROM calls WHERE state = 'pending'",
            )
            .and_then(|mut stmt| stmt.query_row([], |r| Ok((r.get(0)?, r.get(1)?))))
            .map_err(|e| classify(READING, e))
    }

    fn latest_run_of_each_agent(&self) -> Result<Vec<(String, String)>> {
        let read = || -> rusqlite::Result<Vec<(String, String)>> {
            let mut stmt = self.conn.prepare_cached(
                "SELECT a.agent_id, (SELECT r.id FROM runs r WHERE r.agent_id = a.agent_id \
             ORDER BY r.created_at DESC, r.id LIMIT 1) FROM (SELECT DISTINCT agent_id FROM runs) a \
             ORDER BY a.agent_id",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect()
        };
        read().map_err(|e| classify(READING, e))
    }

    fn wait_for_change(&self, _run_id: &str, timeout: Duration) -> Result<()> {
        self.changes.wait(&self.conn, timeout);
        Ok(())
    }

    fn prune(&self, before: i64, statuses: &[RunStatus]) -> Result<usize> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(|e| classify("waiting for the store's write lock", e))?;
        let delete = || -> rusqlite::Result<usize> {
            let mut stmt =
                tx.prepare_cached("DELETE FROM runs WHERE status = ?1 AND updated_at < ?2")?;
            let mut n = 0;
            for st in statuses.iter().filter(|s| s.is_finished()) {
                n += stmt.execute(params![st.as_str(), before])?;
            }
            if n > 0 {
                tx.execute(
                    "DELETE FROM documents WHERE key NOT IN (SELECT agent FROM runs)",
                    [],
                )?;
            }
            Ok(n)
        };
        let n = delete().map_err(|e| classify("writing to the store", e))?;
        tx.commit()
            .map_err(|e| classify("writing to the store", e))?;
        Ok(n)
    }

    fn token_reviewer(&self, token_hash: &str) -> Result<Option<ReviewerRow>> {
        reviewers::token_reviewer(&self.conn, token_hash).map_err(|e| classify(READING, e))
    }

    fn session_of(&self, id_hash: &str) -> Result<Option<(SessionRow, Option<ReviewerRow>)>> {
        // The session and its reviewer from the same snapshot.
        self.snapshot(|c| Ok(reviewers::session_of(c, id_hash)?))
            .map_err(|e| e.doing(READING))
    }

    fn setting(&self, key: &str) -> Result<Option<String>> {
        reviewers::setting(&self.conn, key).map_err(|e| classify(READING, e))
    }

    fn decisions(&self, run_id: &str) -> Result<Vec<DecisionRecord>> {
        read::decisions(&self.conn, run_id).map_err(|e| e.doing(READING))
    }

    fn due_escalations(&self, now: i64) -> Result<Vec<(String, String)>> {
        read::due_escalations(&self.conn, now).map_err(|e| e.doing(READING))
    }

    fn unclaimed_resolutions(&self, run_id: Option<&str>, since: i64) -> Result<Vec<CallRecord>> {
        let rows =
            read::unclaimed_resolutions(&self.conn, run_id, since).map_err(|e| e.doing(READING))?;
        Ok(crate::store::damage::sift(rows))
    }

    fn claim_resolution(&self, run_id: &str, call_id: &str) -> Result<bool> {
        read::claim_resolution(&self.conn, run_id, call_id, crate::store::now_ms())
            .map_err(|e| e.doing("writing to the store"))
    }

    fn grant(&self, _grant: &Grant) -> Result<()> {
        Err(Error::usage(
            "store grant sets up PostgreSQL roles; a SQLite store has none: it is a file private \
             to its owner, who can change anything in it (docs/security.md)",
        ))
    }
}
