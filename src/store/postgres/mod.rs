//! The PostgreSQL backend, for teams whose runners and reviewers are on different machines.
//!
//! The same tables as SQLite (without its size encoding), in a schema of its own
//! (`mastra_ask`). Every transition is one transaction that locks the run's row first
//! (`tx.rs`); waiters sleep on LISTEN and wake at each transition's NOTIFY. Every wait is
//! bounded (`connect.rs`, `session.rs`). The transitions themselves are not here
//! (`store::transitions`).

mod connect;
mod errors;
mod grant;
mod pgpass;
mod policy;
mod read;
mod reviewers;
mod schema;
mod session;
mod settings;
mod tls;
mod tx;

use std::cell::{Cell, RefCell};
use std::time::Duration;

use crate::domain::review::DecisionRecord;
use crate::domain::{CallRecord, Message, RunStatus, StoredEvent};
use crate::store::backend::{Backend, Durability, PendingCall, Work};
use crate::store::reviewers::{ReviewerRow, SessionRow};
use crate::store::{columns, damage};
use crate::store::{redact, Access, Error, Grant, Result, Run, RunFilter};
use connect::Identity;
use errors::classify;
use session::Client;

/// What reads add to an error without context of its own.
const READING: &str = "reading the store";

pub struct PgStore {
    client: RefCell<Client>,
    listening: Cell<bool>,
    identity: Identity,
}

impl PgStore {
    pub fn open(url: &str, access: Access) -> Result<Option<PgStore>> {
        let (mut client, identity) = connect::connect(url)?;
        let shown = redact(url);
        let doing = format!("opening the store at {shown}");
        let explain = |e: Error| errors::explain(e, &identity);
        let version = schema::version(&mut client).map_err(|e| explain(e.doing(&doing)))?;
        if version.is_none() && access == Access::Existing {
            return Ok(None);
        }
        let version = version.unwrap_or(0);
        schema::known(&shown, version)?;
        if version < schema::MIGRATIONS.len() as i64 {
            schema::migrate(&mut client, &shown)
                .map_err(|e| explain(e.doing(&format!("preparing the store at {shown}"))))?;
        }
        Ok(Some(PgStore {
            client: RefCell::new(client),
            listening: Cell::new(false),
            identity,
        }))
    }

    fn read<T>(&self, f: impl FnOnce(&mut Client) -> Result<T>) -> Result<T> {
        f(&mut self.client.borrow_mut()).map_err(|e| self.explain(e.doing(READING)))
    }

    /// `e`, with what a missing privilege needs granted.
    fn explain(&self, e: Error) -> Error {
        errors::explain(e, &self.identity)
    }
}

impl Backend for PgStore {
    /// A `Deferred` transaction commits without waiting for the log's flush (SQLite's rule:
    /// the next durable commit, whose flush covers the log up to it, makes it durable).
    fn transact(&self, durability: Durability, f: Work) -> Result<()> {
        let mut client = self.client.borrow_mut();
        let mut tx = tx::PgTx::begin(&mut client, durability == Durability::Durable);
        f(&mut tx).map_err(|e| self.explain(e.doing("writing to the store")))?;
        tx.commit().map_err(|e| self.explain(e))
    }

    fn run(&self, id: &str) -> Result<Option<Run>> {
        self.read(|c| read::run(c, id))
    }

    fn run_ids_between(&self, from: &str, to: &str, limit: usize) -> Result<Vec<String>> {
        self.read(|c| read::run_ids_between(c, from, to, limit))
    }

    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>> {
        self.read(|c| read::list_runs(c, filter))
    }

    fn messages(&self, run_id: &str) -> Result<Vec<Message>> {
        self.read(|c| read::messages(c, run_id))
    }

    fn events(&self, run_id: &str) -> Result<Vec<StoredEvent>> {
        self.read(|c| read::events(c, run_id))
    }

    fn calls(&self, run_id: &str) -> Result<Vec<CallRecord>> {
        self.read(|c| read::calls(c, run_id))
    }

    fn calls_and_url(&self, run_id: &str) -> Result<(Vec<CallRecord>, Option<String>)> {
        self.read(|c| read::calls_and_url(c, run_id))
    }

    fn messages_and_calls(&self, run_id: &str) -> Result<(Vec<Message>, Vec<CallRecord>)> {
        self.read(|c| read::messages_and_calls(c, run_id))
    }

    fn each_pending_call(
        &self,
        run_id: Option<&str>,
        each: &mut dyn FnMut(PendingCall) -> Result<()>,
    ) -> Result<()> {
        // Read whole, then handed over: `each` may read the store again.
        let rows = self.read(|c| read::pending_calls(c, run_id))?;
        for (run, row) in read::decoded(&rows, columns::pending) {
            match row {
                Ok(call) => each(call)?,
                Err(what) => damage::warn(&run, &what),
            }
        }
        Ok(())
    }

    fn any_due(&self, now: i64) -> Result<bool> {
        self.read(|c| read::any_due(c, now))
    }

    fn pending_mark(&self) -> Result<(i64, i64)> {
        self.read(|c| {
            let row = c.query_one(
                "SELECT count(*), coalesce(max(created_at), 0) FROM calls WHERE state = 'pending'",
                &[],
            )?;
            Ok((row.get(0), row.get(1)))
        })
    }

    fn latest_run_of_each_agent(&self) -> Result<Vec<(String, String)>> {
        self.read(|c| {
            let rows = c.query(
                "SELECT a.agent_id, (SELECT r.id FROM runs r WHERE r.agent_id = a.agent_id \
             ORDER BY r.created_at DESC, r.id LIMIT 1) FROM (SELECT DISTINCT agent_id FROM runs) a \
             ORDER BY a.agent_id",
                &[],
            )?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }

    fn wait_for_change(&self, _run_id: &str, timeout: Duration) -> Result<()> {
        let mut client = self.client.borrow_mut();
        if !self.listening.replace(true) {
            client
                .batch_execute(&format!("LISTEN {}", tx::CHANNEL))
                .map_err(|e| classify("listening for changes", e))?;
        }
        // Any notification (or the timeout) is a reason to look again.
        client
            .notification(timeout)
            .map_err(|e| classify("waiting for a change", e))?;
        Ok(())
    }

    fn prune(&self, before: i64, statuses: &[RunStatus]) -> Result<usize> {
        let finished: Vec<&str> = statuses
            .iter()
            .filter(|s| s.is_finished())
            .map(|s| s.as_str())
            .collect();
        // The store's function (migration 12): a runner's role deletes no run itself, and a
        // pruned run's id is kept so that no runner creates it again.
        let n: i64 = self
            .client
            .borrow_mut()
            .query_one(
                "SELECT prune_runs($1, $2, $3)",
                &[&finished, &before, &crate::store::now_ms()],
            )
            .map_err(|e| self.explain(classify("writing to the store", e)))?
            .get(0);
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn token_reviewer(&self, token_hash: &str) -> Result<Option<ReviewerRow>> {
        self.read(|c| reviewers::token_reviewer(c, token_hash))
    }

    fn session_of(&self, id_hash: &str) -> Result<Option<(SessionRow, Option<ReviewerRow>)>> {
        self.read(|c| reviewers::session_of(c, id_hash))
    }

    fn setting(&self, key: &str) -> Result<Option<String>> {
        self.read(|c| reviewers::setting(c, key))
    }

    fn decisions(&self, run_id: &str) -> Result<Vec<DecisionRecord>> {
        self.read(|c| read::decisions(c, run_id))
    }

    fn due_escalations(&self, now: i64) -> Result<Vec<(String, String)>> {
        self.read(|c| read::due_escalations(c, now))
    }

    fn unclaimed_resolutions(&self, run_id: Option<&str>, since: i64) -> Result<Vec<CallRecord>> {
        self.read(|c| read::unclaimed_resolutions(c, run_id, since))
    }

    fn claim_resolution(&self, run_id: &str, call_id: &str) -> Result<bool> {
        // The store's function (migration 18): it claims only an item that is resolved.
        Ok(self
            .client
            .borrow_mut()
            .query_one("SELECT claim_resolution($1, $2)", &[&run_id, &call_id])
            .map_err(|e| self.explain(classify("writing to the store", e)))?
            .get(0))
    }

    fn grant(&self, g: &Grant) -> Result<()> {
        grant::grant(&mut self.client.borrow_mut(), g)
            .map_err(|e| self.explain(e.doing("granting the store to a role")))
    }
}
