//! The PostgreSQL side of policies and decisions (`store::policy::PolicyTx`). A decision
//! is recorded through the store's function `record_decision` (migrations 9 and 14), which checks
//! the session's role against the run's policy itself, so that a role bound by the policy
//! cannot record one around the program; reads take no row locks, which a runner's role
//! may not take on reviewers. No decisions here: `store::policy` makes them.

use super::read::{decoded, PgRow, DECISION_COLUMNS};
use super::tx::{to_json, PgTx};
use crate::domain::review::canonical_json;
use crate::store::backend::RunRow;
use crate::store::columns::{self, NAMED_POLICY_COLUMNS};
use crate::store::policy::{DecisionRow, Member, NamedPolicy, PolicyTx};
use crate::store::{damage, Error, Result};

fn member(r: &tokio_postgres::Row) -> Member {
    let groups: String = r.get(1);
    Member {
        name: r.get(0),
        groups: serde_json::from_str(&groups).unwrap_or_default(),
        created_at: r.get(2),
    }
}

fn named(r: &tokio_postgres::Row) -> Result<NamedPolicy> {
    columns::named_policy(&PgRow(r)).map_err(|e| {
        Error::usage(format!(
            "policy {} cannot be read from the store: {e}",
            r.get::<_, String>(0)
        ))
    })
}

/// The session's role and the reviewer (not removed) mapped to it.
pub(super) const SESSION: &str = "SELECT session_user::text, (SELECT name FROM reviewers \
    WHERE pg_role = session_user::text AND removed_at IS NULL ORDER BY name LIMIT 1)";

/// A row of `SESSION`.
pub(super) fn session_of(row: &tokio_postgres::Row) -> (String, Option<String>) {
    (row.get(0), row.get(1))
}

impl PolicyTx for PgTx<'_> {
    /// Read in this transaction: with a run's lock (`lock_run_with_call`) when a decision
    /// follows, else now.
    fn session(&mut self) -> Result<Option<(String, Option<String>)>> {
        if let Some(session) = self.session.take() {
            return Ok(Some(session));
        }
        Ok(Some(session_of(&self.tx.query_one(SESSION, &[])?)))
    }

    fn member(&mut self, name: &str) -> Result<Option<Member>> {
        Ok(self
            .tx
            .query_opt(
                "SELECT name, groups, created_at FROM reviewers \
                 WHERE name = $1 AND removed_at IS NULL",
                &[&name],
            )?
            .as_ref()
            .map(member))
    }

    fn members(&mut self) -> Result<Vec<Member>> {
        Ok(self
            .tx
            .query(
                "SELECT name, groups, created_at FROM reviewers WHERE removed_at IS NULL \
                 ORDER BY name",
                &[],
            )?
            .iter()
            .map(member)
            .collect())
    }

    fn mapped(&mut self, os_user: Option<&str>, pg_role: Option<&str>) -> Result<Option<String>> {
        Ok(self
            .tx
            .query_opt(
                "SELECT name FROM reviewers WHERE removed_at IS NULL \
                 AND (os_user = $1 OR pg_role = $2) ORDER BY name LIMIT 1",
                &[&os_user, &pg_role],
            )?
            .map(|r| r.get(0)))
    }

    fn decisions(&mut self, run: &RunRow, call_id: &str) -> Result<Vec<DecisionRow>> {
        let sql = format!(
            "SELECT {DECISION_COLUMNS} WHERE run_id = $1 AND call_id = $2 ORDER BY at, reviewer"
        );
        let rows = self.tx.query(&sql, &[&run.id, &call_id])?;
        damage::all(decoded(&rows, columns::decision))
    }

    fn insert_decision(&mut self, run: &RunRow, row: &DecisionRow) -> Result<()> {
        let d = &row.record;
        self.tx.execute(
            "SELECT record_decision($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            &[
                &run.id,
                &d.call_id,
                &d.reviewer,
                &d.verdict.as_str(),
                &d.digest,
                &to_json(&row.resume_data),
                &row.result.as_ref().map(to_json),
                &d.via,
                &d.at,
                // The text its digest is of (the function checks that it is).
                &d.args.as_ref().map(canonical_json),
            ],
        )?;
        Ok(())
    }

    fn named(&mut self, name: &str) -> Result<Option<NamedPolicy>> {
        self.tx
            .query_opt(
                &format!("SELECT {NAMED_POLICY_COLUMNS} FROM policies WHERE name = $1"),
                &[&name],
            )?
            .as_ref()
            .map(named)
            .transpose()
    }

    fn all_named(&mut self) -> Result<Vec<NamedPolicy>> {
        self.tx
            .query(
                &format!("SELECT {NAMED_POLICY_COLUMNS} FROM policies ORDER BY name"),
                &[],
            )?
            .iter()
            .map(named)
            .collect()
    }

    fn minimum(&mut self, agent: &str) -> Result<Option<NamedPolicy>> {
        self.tx
            .query_opt(
                &format!("SELECT {NAMED_POLICY_COLUMNS} FROM policies WHERE for_agent = $1"),
                &[&agent],
            )?
            .as_ref()
            .map(named)
            .transpose()
    }

    fn put_named(&mut self, p: &NamedPolicy) -> Result<()> {
        self.tx.execute(
            "UPDATE policies SET for_agent = NULL WHERE for_agent = $1 AND name <> $2",
            &[&p.for_agent, &p.name],
        )?;
        self.tx.execute(
            "INSERT INTO policies (name, rule, created_at, updated_at, for_agent) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO UPDATE SET rule = excluded.rule, \
             updated_at = excluded.updated_at, for_agent = excluded.for_agent",
            &[
                &p.name,
                &to_json(&p.rule),
                &p.created_at,
                &p.updated_at,
                &p.for_agent,
            ],
        )?;
        Ok(())
    }

    fn delete_named(&mut self, name: &str) -> Result<bool> {
        Ok(self
            .tx
            .execute("DELETE FROM policies WHERE name = $1", &[&name])?
            > 0)
    }

    fn escalation(&mut self, run: &RunRow, call_id: &str) -> Result<Option<(i64, Option<i64>)>> {
        Ok(self
            .tx
            .query_opt(
                "SELECT created_at, escalated_at FROM calls WHERE run_id = $1 AND call_id = $2",
                &[&run.id, &call_id],
            )?
            .map(|r| (r.get(0), r.get(1))))
    }

    fn set_escalated(&mut self, run: &RunRow, call_id: &str, at: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE calls SET escalated_at = $3 WHERE run_id = $1 AND call_id = $2",
            &[&run.id, &call_id, &at],
        )?;
        Ok(())
    }
}
