//! The SQLite side of the reviewers, sessions, links and settings (`store::ReviewerTx`):
//! plain rows under the transaction's write lock, which covers the whole store. No
//! decisions here: `store::reviewers` makes them.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::tx::SqliteTx;
use crate::store::backend::statements;
use crate::store::backend::RunRow;
use crate::store::reviewers::{
    LinkRow, NewReviewer, Reviewer, ReviewerRow, ReviewerTx, SessionRow, TapRow,
};
use crate::store::Result;

const COLUMNS: &str =
    "name, groups, os_user, pg_role, token_hash, created_at, rotated_at, removed_at, notify";

fn row(r: &Row) -> rusqlite::Result<ReviewerRow> {
    let groups: String = r.get(1)?;
    Ok(ReviewerRow {
        reviewer: Reviewer {
            name: r.get(0)?,
            groups: serde_json::from_str(&groups).unwrap_or_default(),
            os_user: r.get(2)?,
            pg_role: r.get(3)?,
            created_at: r.get(5)?,
            rotated_at: r.get(6)?,
            removed_at: r.get(7)?,
            notify: r.get(8)?,
        },
        token_hash: r.get(4)?,
    })
}

/// The active reviewer whose token has this hash (a read).
pub fn token_reviewer(
    conn: &Connection,
    token_hash: &str,
) -> rusqlite::Result<Option<ReviewerRow>> {
    let sql =
        format!("SELECT {COLUMNS} FROM reviewers WHERE token_hash = ?1 AND removed_at IS NULL");
    conn.prepare_cached(&sql)?
        .query_row([token_hash], row)
        .optional()
}

/// A session's row.
fn session(conn: &Connection, id_hash: &str) -> rusqlite::Result<Option<SessionRow>> {
    conn.prepare_cached(
        "SELECT reviewer, created_at, last_seen_at FROM sessions WHERE id_hash = ?1",
    )?
    .query_row([id_hash], |r| {
        Ok(SessionRow {
            reviewer: r.get(0)?,
            created_at: r.get(1)?,
            last_seen_at: r.get(2)?,
        })
    })
    .optional()
}

/// A session and its reviewer's row (a read).
pub fn session_of(
    conn: &Connection,
    id_hash: &str,
) -> rusqlite::Result<Option<(SessionRow, Option<ReviewerRow>)>> {
    let Some(session) = session(conn, id_hash)? else {
        return Ok(None);
    };
    let sql = format!("SELECT {COLUMNS} FROM reviewers WHERE name = ?1");
    let reviewer = conn
        .prepare_cached(&sql)?
        .query_row([&session.reviewer], row)
        .optional()?;
    Ok(Some((session, reviewer)))
}

/// A setting (a read).
pub fn setting(conn: &Connection, key: &str) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT value FROM settings WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()
}

impl ReviewerTx for SqliteTx<'_> {
    fn reviewer(&mut self, name: &str) -> Result<Option<ReviewerRow>> {
        let sql = format!("SELECT {COLUMNS} FROM reviewers WHERE name = ?1");
        Ok(self
            .tx
            .prepare_cached(&sql)?
            .query_row([name], row)
            .optional()?)
    }

    fn reviewer_by_token(&mut self, token_hash: &str) -> Result<Option<ReviewerRow>> {
        let sql =
            format!("SELECT {COLUMNS} FROM reviewers WHERE token_hash = ?1 AND removed_at IS NULL");
        Ok(self
            .tx
            .prepare_cached(&sql)?
            .query_row([token_hash], row)
            .optional()?)
    }

    fn reviewer_mapped(&mut self, new: &NewReviewer) -> Result<Option<String>> {
        let mut stmt = self.tx.prepare_cached(statements::REVIEWER_MAPPED)?;
        let mapped = params![new.os_user, new.pg_role, new.name];
        Ok(stmt.query_row(mapped, |r| r.get(0)).optional()?)
    }

    fn reviewers(&mut self) -> Result<Vec<Reviewer>> {
        let sql = format!("SELECT {COLUMNS} FROM reviewers ORDER BY name");
        let mut stmt = self.tx.prepare_cached(&sql)?;
        let rows = stmt.query_map([], row)?;
        Ok(rows
            .map(|r| r.map(|r| r.reviewer))
            .collect::<rusqlite::Result<_>>()?)
    }

    fn insert_reviewer(&mut self, r: &ReviewerRow) -> Result<bool> {
        let v = &r.reviewer;
        let written = self
            .tx
            .prepare_cached(
                "INSERT INTO reviewers (name, groups, os_user, pg_role, token_hash, created_at, \
                 rotated_at, removed_at, notify) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
                 ON CONFLICT (name) DO UPDATE SET groups = excluded.groups, \
                 os_user = excluded.os_user, pg_role = excluded.pg_role, \
                 token_hash = excluded.token_hash, created_at = excluded.created_at, \
                 rotated_at = excluded.rotated_at, removed_at = excluded.removed_at, \
                 notify = excluded.notify \
                 WHERE reviewers.removed_at IS NOT NULL",
            )?
            .execute(params![
                v.name,
                serde_json::to_string(&v.groups).unwrap_or_else(|_| "[]".into()),
                v.os_user,
                v.pg_role,
                r.token_hash,
                v.created_at,
                v.rotated_at,
                v.removed_at,
                v.notify
            ])?;
        Ok(written > 0)
    }

    fn put_reviewer(&mut self, r: &ReviewerRow) -> Result<()> {
        let v = &r.reviewer;
        self.tx
            .prepare_cached(
                "UPDATE reviewers SET groups = ?2, os_user = ?3, pg_role = ?4, token_hash = ?5, \
                 created_at = ?6, rotated_at = ?7, removed_at = ?8, notify = ?9 WHERE name = ?1",
            )?
            .execute(params![
                v.name,
                serde_json::to_string(&v.groups).unwrap_or_else(|_| "[]".into()),
                v.os_user,
                v.pg_role,
                r.token_hash,
                v.created_at,
                v.rotated_at,
                v.removed_at,
                v.notify
            ])?;
        Ok(())
    }

    fn insert_session(&mut self, id_hash: &str, s: &SessionRow) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO sessions (id_hash, reviewer, created_at, last_seen_at) \
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id_hash, s.reviewer, s.created_at, s.last_seen_at])?;
        Ok(())
    }

    fn session(&mut self, id_hash: &str) -> Result<Option<SessionRow>> {
        Ok(session(&self.tx, id_hash)?)
    }

    fn touch_session(&mut self, id_hash: &str, at: i64) -> Result<()> {
        self.tx
            .prepare_cached("UPDATE sessions SET last_seen_at = ?2 WHERE id_hash = ?1")?
            .execute(params![id_hash, at])?;
        Ok(())
    }

    fn delete_session(&mut self, id_hash: &str) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM sessions WHERE id_hash = ?1")?
            .execute([id_hash])?;
        Ok(())
    }

    fn end_access(&mut self, reviewer: &str) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM sessions WHERE reviewer = ?1")?
            .execute([reviewer])?;
        self.tx
            .prepare_cached("DELETE FROM sign_in_links WHERE reviewer = ?1")?
            .execute([reviewer])?;
        self.delete_taps(reviewer)
    }

    fn delete_stale(&mut self, idle_before: i64, created_before: i64, now: i64) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM sessions WHERE last_seen_at < ?1 OR created_at < ?2")?
            .execute(params![idle_before, created_before])?;
        self.tx
            .prepare_cached("DELETE FROM sign_in_links WHERE expires_at < ?1")?
            .execute([now])?;
        self.tx
            .prepare_cached("DELETE FROM taps WHERE expires_at < ?1")?
            .execute([now])?;
        Ok(())
    }

    fn insert_link(&mut self, secret_hash: &str, l: &LinkRow, at: i64) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO sign_in_links (secret_hash, reviewer, expires_at, used_at, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![secret_hash, l.reviewer, l.expires_at, l.used_at, at])?;
        Ok(())
    }

    fn link(&mut self, secret_hash: &str) -> Result<Option<LinkRow>> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT reviewer, expires_at, used_at FROM sign_in_links WHERE secret_hash = ?1",
            )?
            .query_row([secret_hash], |r| {
                Ok(LinkRow {
                    reviewer: r.get(0)?,
                    expires_at: r.get(1)?,
                    used_at: r.get(2)?,
                })
            })
            .optional()?)
    }

    fn use_link(&mut self, secret_hash: &str, at: i64) -> Result<()> {
        self.tx
            .prepare_cached("UPDATE sign_in_links SET used_at = ?2 WHERE secret_hash = ?1")?
            .execute(params![secret_hash, at])?;
        Ok(())
    }

    fn setting(&mut self, key: &str) -> Result<Option<String>> {
        Ok(self
            .tx
            .prepare_cached("SELECT value FROM settings WHERE key = ?1")?
            .query_row([key], |r| r.get(0))
            .optional()?)
    }

    fn insert_notification(
        &mut self,
        run: &RunRow,
        call_id: &str,
        reviewer: &str,
        at: i64,
    ) -> Result<bool> {
        let written = self
            .tx
            .prepare_cached(
                "INSERT INTO notifications (run, call_id, reviewer, claimed_at) \
                 VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
            )?
            .execute(params![run.key, call_id, reviewer, at])?;
        Ok(written > 0)
    }

    fn put_setting(&mut self, key: &str, value: &str, at: i64) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value, \
                 updated_at = excluded.updated_at",
            )?
            .execute(params![key, value, at])?;
        Ok(())
    }

    fn insert_tap(&mut self, secret_hash: &str, run: &RunRow, t: &TapRow, at: i64) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO taps (secret_hash, run, call_id, reviewer, label, sends, expires_at, \
                 used_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                secret_hash,
                run.key,
                t.call_id,
                t.reviewer,
                t.label,
                t.sends,
                t.expires_at,
                t.used_at,
                at
            ])?;
        Ok(())
    }

    fn tap(&mut self, secret_hash: &str) -> Result<Option<TapRow>> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT r.id, t.call_id, t.reviewer, t.label, t.sends, t.expires_at, t.used_at \
                 FROM taps t JOIN runs r ON r.key = t.run WHERE t.secret_hash = ?1",
            )?
            .query_row([secret_hash], |r| {
                Ok(TapRow {
                    run_id: r.get(0)?,
                    call_id: r.get(1)?,
                    reviewer: r.get(2)?,
                    label: r.get(3)?,
                    sends: r.get(4)?,
                    expires_at: r.get(5)?,
                    used_at: r.get(6)?,
                })
            })
            .optional()?)
    }

    fn use_tap(&mut self, secret_hash: &str, at: i64) -> Result<()> {
        self.tx
            .prepare_cached("UPDATE taps SET used_at = ?2 WHERE secret_hash = ?1")?
            .execute(params![secret_hash, at])?;
        Ok(())
    }

    fn delete_taps(&mut self, reviewer: &str) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM taps WHERE reviewer = ?1")?
            .execute([reviewer])?;
        Ok(())
    }
}
