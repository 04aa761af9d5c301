//! The PostgreSQL side of the reviewers, sessions, links and settings
//! (`store::ReviewerTx`): rows read are locked (`FOR UPDATE`), so that of two sign-ins with
//! one link the second waits and then sees it used. No decisions here: `store::reviewers`
//! makes them.

use tokio_postgres::Row;

use super::session::{Client, Param};
use super::tx::PgTx;
use crate::store::backend::statements;
use crate::store::backend::RunRow;
use crate::store::reviewers::{
    LinkRow, NewReviewer, Reviewer, ReviewerRow, ReviewerTx, SessionRow, TapRow,
};
use crate::store::Result;

const COLUMNS: &str =
    "name, groups, os_user, pg_role, token_hash, created_at, rotated_at, removed_at, notify";

fn row(r: &Row) -> ReviewerRow {
    let groups: String = r.get(1);
    ReviewerRow {
        reviewer: Reviewer {
            name: r.get(0),
            groups: serde_json::from_str(&groups).unwrap_or_default(),
            os_user: r.get(2),
            pg_role: r.get(3),
            created_at: r.get(5),
            rotated_at: r.get(6),
            removed_at: r.get(7),
            notify: r.get(8),
        },
        token_hash: r.get(4),
    }
}

/// The active reviewer whose token has this hash (a read: nothing locked).
pub fn token_reviewer(c: &mut Client, token_hash: &str) -> Result<Option<ReviewerRow>> {
    let sql =
        format!("SELECT {COLUMNS} FROM reviewers WHERE token_hash = $1 AND removed_at IS NULL");
    Ok(c.query_opt(&sql, &[&token_hash])?.as_ref().map(row))
}

/// A session and its reviewer's row, in one statement (a read: nothing locked).
pub fn session_of(
    c: &mut Client,
    id_hash: &str,
) -> Result<Option<(SessionRow, Option<ReviewerRow>)>> {
    let sql = format!(
        "SELECT s.reviewer, s.created_at, s.last_seen_at, r.name IS NOT NULL, {} \
         FROM sessions s LEFT JOIN reviewers r ON r.name = s.reviewer WHERE s.id_hash = $1",
        COLUMNS
            .split(", ")
            .map(|c| format!("r.{c}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(c.query_opt(&sql, &[&id_hash])?.map(|r| {
        let session = SessionRow {
            reviewer: r.get(0),
            created_at: r.get(1),
            last_seen_at: r.get(2),
        };
        let found: bool = r.get(3);
        let reviewer = found.then(|| {
            let groups: String = r.get(5);
            ReviewerRow {
                reviewer: Reviewer {
                    name: r.get(4),
                    groups: serde_json::from_str(&groups).unwrap_or_default(),
                    os_user: r.get(6),
                    pg_role: r.get(7),
                    created_at: r.get(9),
                    rotated_at: r.get(10),
                    removed_at: r.get(11),
                    notify: r.get(12),
                },
                token_hash: r.get(8),
            }
        });
        (session, reviewer)
    }))
}

/// A setting (a read: nothing locked).
/// A setting's value.
pub const SETTING: &str = "SELECT value FROM settings WHERE key = $1";

pub fn setting(c: &mut Client, key: &str) -> Result<Option<String>> {
    Ok(c.query_opt(SETTING, &[&key])?.map(|r| r.get(0)))
}

impl ReviewerTx for PgTx<'_> {
    fn reviewer(&mut self, name: &str) -> Result<Option<ReviewerRow>> {
        let sql = format!("SELECT {COLUMNS} FROM reviewers WHERE name = $1 FOR UPDATE");
        Ok(self.tx.query_opt(&sql, &[&name])?.as_ref().map(row))
    }

    fn reviewer_by_token(&mut self, token_hash: &str) -> Result<Option<ReviewerRow>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM reviewers WHERE token_hash = $1 AND removed_at IS NULL \
             FOR UPDATE"
        );
        Ok(self.tx.query_opt(&sql, &[&token_hash])?.as_ref().map(row))
    }

    fn reviewer_mapped(&mut self, new: &NewReviewer) -> Result<Option<String>> {
        let mapped: [&dyn Param; 3] = [&new.os_user, &new.pg_role, &new.name];
        let row = self.tx.query_opt(statements::REVIEWER_MAPPED, &mapped)?;
        Ok(row.map(|r| r.get(0)))
    }

    fn reviewers(&mut self) -> Result<Vec<Reviewer>> {
        let sql = format!("SELECT {COLUMNS} FROM reviewers ORDER BY name");
        Ok(self
            .tx
            .query(&sql, &[])?
            .iter()
            .map(|r| row(r).reviewer)
            .collect())
    }

    fn insert_reviewer(&mut self, r: &ReviewerRow) -> Result<bool> {
        let v = &r.reviewer;
        let groups = serde_json::to_string(&v.groups).unwrap_or_else(|_| "[]".into());
        let written = self.tx.execute(
            "INSERT INTO reviewers (name, groups, os_user, pg_role, token_hash, created_at, \
             rotated_at, removed_at, notify) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (name) DO UPDATE SET groups = excluded.groups, \
             os_user = excluded.os_user, pg_role = excluded.pg_role, \
             token_hash = excluded.token_hash, created_at = excluded.created_at, \
             rotated_at = excluded.rotated_at, removed_at = excluded.removed_at, \
                 notify = excluded.notify \
                 WHERE reviewers.removed_at IS NOT NULL",
            &[
                &v.name,
                &groups,
                &v.os_user,
                &v.pg_role,
                &r.token_hash,
                &v.created_at,
                &v.rotated_at,
                &v.removed_at,
                &v.notify,
            ],
        )?;
        Ok(written > 0)
    }

    fn put_reviewer(&mut self, r: &ReviewerRow) -> Result<()> {
        let v = &r.reviewer;
        let groups = serde_json::to_string(&v.groups).unwrap_or_else(|_| "[]".into());
        self.tx.execute(
            "UPDATE reviewers SET groups = $2, os_user = $3, pg_role = $4, token_hash = $5, \
             created_at = $6, rotated_at = $7, removed_at = $8, notify = $9 WHERE name = $1",
            &[
                &v.name,
                &groups,
                &v.os_user,
                &v.pg_role,
                &r.token_hash,
                &v.created_at,
                &v.rotated_at,
                &v.removed_at,
                &v.notify,
            ],
        )?;
        Ok(())
    }

    fn insert_session(&mut self, id_hash: &str, s: &SessionRow) -> Result<()> {
        self.tx.execute(
            "INSERT INTO sessions (id_hash, reviewer, created_at, last_seen_at) \
             VALUES ($1, $2, $3, $4)",
            &[&id_hash, &s.reviewer, &s.created_at, &s.last_seen_at],
        )?;
        Ok(())
    }

    fn session(&mut self, id_hash: &str) -> Result<Option<SessionRow>> {
        Ok(self
            .tx
            .query_opt(
                "SELECT reviewer, created_at, last_seen_at FROM sessions WHERE id_hash = $1 \
                 FOR UPDATE",
                &[&id_hash],
            )?
            .map(|r| SessionRow {
                reviewer: r.get(0),
                created_at: r.get(1),
                last_seen_at: r.get(2),
            }))
    }

    fn touch_session(&mut self, id_hash: &str, at: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE sessions SET last_seen_at = $2 WHERE id_hash = $1",
            &[&id_hash, &at],
        )?;
        Ok(())
    }

    fn delete_session(&mut self, id_hash: &str) -> Result<()> {
        self.tx
            .execute("DELETE FROM sessions WHERE id_hash = $1", &[&id_hash])?;
        Ok(())
    }

    fn end_access(&mut self, reviewer: &str) -> Result<()> {
        self.tx
            .execute("DELETE FROM sessions WHERE reviewer = $1", &[&reviewer])?;
        self.tx.execute(
            "DELETE FROM sign_in_links WHERE reviewer = $1",
            &[&reviewer],
        )?;
        self.delete_taps(reviewer)
    }

    fn delete_stale(&mut self, idle_before: i64, created_before: i64, now: i64) -> Result<()> {
        self.tx.execute(
            "DELETE FROM sessions WHERE last_seen_at < $1 OR created_at < $2",
            &[&idle_before, &created_before],
        )?;
        self.tx
            .execute("DELETE FROM sign_in_links WHERE expires_at < $1", &[&now])?;
        self.tx
            .execute("DELETE FROM taps WHERE expires_at < $1", &[&now])?;
        Ok(())
    }

    fn insert_link(&mut self, secret_hash: &str, l: &LinkRow, at: i64) -> Result<()> {
        self.tx.execute(
            "INSERT INTO sign_in_links (secret_hash, reviewer, expires_at, used_at, created_at) \
             VALUES ($1, $2, $3, $4, $5)",
            &[&secret_hash, &l.reviewer, &l.expires_at, &l.used_at, &at],
        )?;
        Ok(())
    }

    fn link(&mut self, secret_hash: &str) -> Result<Option<LinkRow>> {
        Ok(self
            .tx
            .query_opt(
                "SELECT reviewer, expires_at, used_at FROM sign_in_links \
                 WHERE secret_hash = $1 FOR UPDATE",
                &[&secret_hash],
            )?
            .map(|r| LinkRow {
                reviewer: r.get(0),
                expires_at: r.get(1),
                used_at: r.get(2),
            }))
    }

    fn use_link(&mut self, secret_hash: &str, at: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE sign_in_links SET used_at = $2 WHERE secret_hash = $1",
            &[&secret_hash, &at],
        )?;
        Ok(())
    }

    fn setting(&mut self, key: &str) -> Result<Option<String>> {
        Ok(self
            .tx
            .query_opt(
                "SELECT value FROM settings WHERE key = $1 FOR UPDATE",
                &[&key],
            )?
            .map(|r| r.get(0)))
    }

    fn insert_notification(
        &mut self,
        run: &RunRow,
        call_id: &str,
        reviewer: &str,
        at: i64,
    ) -> Result<bool> {
        let written = self.tx.execute(
            "INSERT INTO notifications (run_id, call_id, reviewer, claimed_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            &[&run.id, &call_id, &reviewer, &at],
        )?;
        Ok(written > 0)
    }

    fn put_setting(&mut self, key: &str, value: &str, at: i64) -> Result<()> {
        self.tx.execute(
            "INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, \
             updated_at = excluded.updated_at",
            &[&key, &value, &at],
        )?;
        Ok(())
    }

    fn insert_tap(&mut self, secret_hash: &str, run: &RunRow, t: &TapRow, at: i64) -> Result<()> {
        self.tx.execute(
            "INSERT INTO taps (secret_hash, run_id, call_id, reviewer, label, sends, expires_at, \
             used_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[
                &secret_hash,
                &run.id,
                &t.call_id,
                &t.reviewer,
                &t.label,
                &t.sends,
                &t.expires_at,
                &t.used_at,
                &at,
            ],
        )?;
        Ok(())
    }

    fn tap(&mut self, secret_hash: &str) -> Result<Option<TapRow>> {
        Ok(self
            .tx
            .query_opt(
                "SELECT run_id, call_id, reviewer, label, sends, expires_at, used_at FROM taps \
                 WHERE secret_hash = $1 FOR UPDATE",
                &[&secret_hash],
            )?
            .map(|r| TapRow {
                run_id: r.get(0),
                call_id: r.get(1),
                reviewer: r.get(2),
                label: r.get(3),
                sends: r.get(4),
                expires_at: r.get(5),
                used_at: r.get(6),
            }))
    }

    fn use_tap(&mut self, secret_hash: &str, at: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE taps SET used_at = $2 WHERE secret_hash = $1",
            &[&secret_hash, &at],
        )?;
        Ok(())
    }

    fn delete_taps(&mut self, reviewer: &str) -> Result<()> {
        self.tx
            .execute("DELETE FROM taps WHERE reviewer = $1", &[&reviewer])?;
        Ok(())
    }
}
