//! `store grant` (SPEC §14): what another PostgreSQL role may do with this store, granted
//! by its owner. A runner's role may read the store, create and drive runs (runs, their
//! messages, events, calls, waiters, the ledger) and decide only through the store's
//! functions; the guards of migrations 9 and 12 refuse whatever else it writes (a run it
//! deletes too: `prune` goes through a function), so these grants are the least it needs,
//! not what enforces the policy. A serve role may besides sign reviewers in (sessions,
//! links, settings) and decide as the reviewer it signed in.

use super::session::Client;
use crate::store::{now_ms, Error, Grant, Result};

/// The tables a runner reads, and those it writes.
const READS: &str = "schema_version, runs, messages, events, calls, waiters, ledger, decisions, \
    policies, settings, resolve_claims";
const WRITES: &str = "messages, events, calls, waiters, ledger";
/// The reviewers' columns but their token's hash.
const REVIEWER_COLUMNS: &str = "name, groups, os_user, pg_role, created_at, rotated_at, removed_at";

/// `name` as a quoted SQL identifier.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

pub fn grant(client: &mut Client, g: &Grant) -> Result<()> {
    let mut tx = client.transaction(true);
    let exists = tx
        .query_opt("SELECT 1 FROM pg_roles WHERE rolname = $1", &[&g.role])?
        .is_some();
    if !exists {
        return Err(Error::usage(format!(
            "there is no PostgreSQL role {}; create it first (CREATE ROLE {} LOGIN), then grant it",
            g.role,
            quoted(&g.role)
        )));
    }
    let owner: bool = tx.query_one("SELECT owns(session_user)", &[])?.get(0);
    if !owner {
        let me: String = tx.query_one("SELECT session_user::text", &[])?.get(0);
        return Err(Error::usage(format!(
            "store grant is for the store's owner (the role that owns schema mastra_ask); {me} is not it"
        )));
    }
    let role = quoted(&g.role);
    let mut sql = format!(
        "GRANT USAGE ON SCHEMA mastra_ask TO {role}; \
         GRANT SELECT ON {READS} TO {role}; \
         GRANT SELECT ({REVIEWER_COLUMNS}) ON reviewers TO {role}; \
         GRANT INSERT, UPDATE ON runs TO {role}; \
         GRANT INSERT, UPDATE, DELETE ON {WRITES} TO {role};"
    );
    if g.serve {
        sql.push_str(&format!(
            " GRANT SELECT, UPDATE ON reviewers TO {role}; \
             GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, sign_in_links, settings TO {role}; \
             GRANT SELECT, INSERT ON notifications TO {role}; \
             GRANT SELECT, INSERT, UPDATE, DELETE ON taps TO {role};"
        ));
    }
    tx.batch_execute(&sql)?;
    let kind = if g.serve { "serve" } else { "runner" }.to_string();
    tx.execute(
        "INSERT INTO store_roles (role, kind, granted_at) VALUES ($1, $2, $3) \
         ON CONFLICT (role) DO UPDATE SET kind = excluded.kind, granted_at = excluded.granted_at",
        &[&g.role, &kind, &now_ms()],
    )?;
    tx.commit()?;
    Ok(())
}
