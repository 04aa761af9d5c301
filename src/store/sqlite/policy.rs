//! The SQLite side of policies and decisions (`store::policy::PolicyTx`): plain rows under
//! the transaction's write lock. A SQLite store has no roles: what a policy holds against
//! is everyone who goes through the program, not the file's owner (docs/security.md). No
//! decisions here: `store::policy` makes them.

use rusqlite::{params, OptionalExtension};

use super::compact::to_json;
use super::read::{decoded, SqlRow, DECISION_COLUMNS};
use super::tx::SqliteTx;
use crate::domain::review::canonical_json;
use crate::store::backend::RunRow;
use crate::store::columns::{self, NAMED_POLICY_COLUMNS};
use crate::store::policy::{DecisionRow, Member, NamedPolicy, PolicyTx};
use crate::store::{damage, Error, Result};

fn member(r: &rusqlite::Row) -> rusqlite::Result<Member> {
    let groups: String = r.get(1)?;
    Ok(Member {
        name: r.get(0)?,
        groups: serde_json::from_str(&groups).unwrap_or_default(),
        created_at: r.get(2)?,
    })
}

/// A stored policy that does not read, named.
fn unreadable(name: &str, what: String) -> Error {
    Error::usage(format!(
        "policy {name} cannot be read from the store: {what}"
    ))
}

impl PolicyTx for SqliteTx<'_> {
    fn session(&mut self) -> Result<Option<(String, Option<String>)>> {
        Ok(None)
    }

    fn member(&mut self, name: &str) -> Result<Option<Member>> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT name, groups, created_at FROM reviewers \
                 WHERE name = ?1 AND removed_at IS NULL",
            )?
            .query_row([name], member)
            .optional()?)
    }

    fn members(&mut self) -> Result<Vec<Member>> {
        let rows = self
            .tx
            .prepare_cached(
                "SELECT name, groups, created_at FROM reviewers WHERE removed_at IS NULL \
                 ORDER BY name",
            )?
            .query_map([], member)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    fn mapped(&mut self, os_user: Option<&str>, pg_role: Option<&str>) -> Result<Option<String>> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT name FROM reviewers WHERE removed_at IS NULL \
                 AND (os_user = ?1 OR pg_role = ?2) ORDER BY name LIMIT 1",
            )?
            .query_row(params![os_user, pg_role], |r| r.get(0))
            .optional()?)
    }

    fn decisions(&mut self, run: &RunRow, call_id: &str) -> Result<Vec<DecisionRow>> {
        let sql = format!(
            "SELECT {DECISION_COLUMNS} WHERE d.run = ?1 AND d.call_id = ?2 \
             ORDER BY d.at, d.reviewer"
        );
        let mut stmt = self.tx.prepare_cached(&sql)?;
        damage::all(decoded(
            &mut stmt,
            params![run.key, call_id],
            columns::decision,
        )?)
    }

    fn insert_decision(&mut self, run: &RunRow, row: &DecisionRow) -> Result<()> {
        let d = &row.record;
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO decisions (run, call_id, reviewer, decision, digest, \
                 resume_data, result, via, at, args) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                run.key,
                d.call_id,
                d.reviewer,
                d.verdict.as_str(),
                d.digest,
                to_json(&row.resume_data),
                row.result.as_ref().map(to_json),
                d.via,
                d.at,
                d.args.as_ref().map(canonical_json)
            ])?;
        Ok(())
    }

    fn named(&mut self, name: &str) -> Result<Option<NamedPolicy>> {
        let row = self
            .tx
            .prepare_cached(&format!(
                "SELECT {NAMED_POLICY_COLUMNS} FROM policies WHERE name = ?1"
            ))?
            .query_row([name], |r| Ok(columns::named_policy(&SqlRow(r))))
            .optional()?;
        row.map(|p| p.map_err(|e| unreadable(name, e))).transpose()
    }

    fn all_named(&mut self) -> Result<Vec<NamedPolicy>> {
        let rows: Vec<(String, columns::Read<NamedPolicy>)> = self
            .tx
            .prepare_cached(&format!(
                "SELECT {NAMED_POLICY_COLUMNS} FROM policies ORDER BY name"
            ))?
            .query_map([], |r| {
                let row = SqlRow(r);
                Ok((r.get(0)?, columns::named_policy(&row)))
            })?
            .collect::<rusqlite::Result<_>>()?;
        rows.into_iter()
            .map(|(name, p)| p.map_err(|e| unreadable(&name, e)))
            .collect()
    }

    fn minimum(&mut self, agent: &str) -> Result<Option<NamedPolicy>> {
        let row = self
            .tx
            .prepare_cached(&format!(
                "SELECT {NAMED_POLICY_COLUMNS} FROM policies WHERE for_agent = ?1"
            ))?
            .query_row([agent], |r| Ok(columns::named_policy(&SqlRow(r))))
            .optional()?;
        row.map(|p| p.map_err(|e| unreadable(agent, e))).transpose()
    }

    fn put_named(&mut self, p: &NamedPolicy) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE policies SET for_agent = NULL WHERE for_agent = ?1 AND name <> ?2",
            )?
            .execute(params![p.for_agent, p.name])?;
        self.tx
            .prepare_cached(
                "INSERT INTO policies (name, rule, created_at, updated_at, for_agent) \
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (name) DO UPDATE \
                 SET rule = excluded.rule, updated_at = excluded.updated_at, \
                 for_agent = excluded.for_agent",
            )?
            .execute(params![
                p.name,
                to_json(&p.rule),
                p.created_at,
                p.updated_at,
                p.for_agent
            ])?;
        Ok(())
    }

    fn delete_named(&mut self, name: &str) -> Result<bool> {
        let n = self
            .tx
            .prepare_cached("DELETE FROM policies WHERE name = ?1")?
            .execute([name])?;
        Ok(n > 0)
    }

    fn escalation(&mut self, run: &RunRow, call_id: &str) -> Result<Option<(i64, Option<i64>)>> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT created_at, escalated_at FROM calls WHERE run = ?1 AND call_id = ?2",
            )?
            .query_row(params![run.key, call_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?)
    }

    fn set_escalated(&mut self, run: &RunRow, call_id: &str, at: i64) -> Result<()> {
        self.tx
            .prepare_cached("UPDATE calls SET escalated_at = ?3 WHERE run = ?1 AND call_id = ?2")?
            .execute(params![run.key, call_id, at])?;
        Ok(())
    }
}
