//! What the run layer needs of the frontend it works for, built once per command (or per
//! request): where the store is, how to print a command a person can paste, the
//! `--on-suspend` and `--on-resolve` commands, whether a person is at a terminal here, the
//! Mastra server of `--server`, and where to report. It holds no terminal: a frontend without one (an HTTP
//! server on a blocking thread) builds it with its own `Report` and `interactive: false`.

use anyhow::Result;

use crate::output::format;
use crate::remote::ServerConfig;
use crate::report::Report;
use crate::store::{self, Access, Location, Store};

pub struct Context<'a> {
    pub location: Location,
    /// `--db` as given on the command line, repeated in the commands we print.
    pub db_flag: Option<String>,
    /// What chose the store: said wherever a person may have looked in the wrong one.
    pub store_from: StoreFrom,
    /// `--on-suspend CMD`: run once per new pending item.
    pub on_suspend: Option<String>,
    /// `--on-resolve CMD`: run once per resolved item, by the first process to claim it.
    pub on_resolve: Option<String>,
    /// A person is at this terminal: prompts may appear (stdin and stderr are terminals and
    /// `--no-input` is not given).
    pub interactive: bool,
    /// `--server URL` (with its token): the commands work on that Mastra server's runs.
    pub server: Option<ServerConfig>,
    pub report: &'a dyn Report,
}

/// What chose the store (SPEC §5.3: an empty `pending` and a "no run" error say it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreFrom {
    Flag,
    Env,
    Default,
}

impl Context<'_> {
    /// The store this command reads, for a person: `the store PATH (from MASTRA_ASK_DB)`, a
    /// URL without its password.
    pub fn store_named(&self) -> String {
        let shown = match &self.location {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(url) => store::redact(url),
        };
        let from = match self.store_from {
            StoreFrom::Flag => "from --db",
            StoreFrom::Env => "from MASTRA_ASK_DB",
            StoreFrom::Default => "the default; --db or MASTRA_ASK_DB names another",
        };
        format!(
            "the store {} ({from})",
            crate::output::sanitize::one_line(&shown)
        )
    }

    /// The store, if one exists (never creates it), with overdue items expired.
    pub fn existing_store(&self) -> Result<Option<Box<dyn Store>>> {
        let store = store::open(&self.location, Access::Existing)?;
        if let Some(s) = &store {
            s.expire_due(store::now_ms())?;
        }
        Ok(store)
    }

    /// The store, if one exists, as it is: nothing expired (a Mastra server's ledger).
    pub fn store_as_is(&self) -> Result<Option<Box<dyn Store>>> {
        Ok(store::open(&self.location, Access::Existing)?)
    }

    /// The store, created when there is none yet.
    pub fn create_store(&self) -> Result<Box<dyn Store>> {
        store::open(&self.location, Access::Create)?
            .ok_or_else(|| anyhow::anyhow!("the store could not be created"))
    }

    /// Whether prompts may appear.
    pub fn interactive(&self) -> bool {
        self.interactive
    }

    /// `mastra-ask` as a command a person can paste, in a hint, an announcement or the
    /// hook's JSON (SPEC §5.3): with `--db` whenever the store is not the default one,
    /// whether `--db` or `MASTRA_ASK_DB` chose it (the shell it is pasted in may not have
    /// that variable), and the `--server` (as shown: no credentials) it works on. A
    /// PostgreSQL URL names no user: whoever pastes the command connects as themselves (a
    /// reviewer's role, not the runner's, which a policy would refuse).
    pub fn program(&self) -> String {
        let mut words = vec!["mastra-ask".to_string()];
        let chosen = match (&self.db_flag, self.store_from) {
            (Some(db), _) => Some(db.clone()),
            // A server's runs are not in the store: its `--server` is what a paste needs.
            (None, StoreFrom::Env) if self.server.is_none() => Some(match &self.location {
                Location::Sqlite(path) => path.display().to_string(),
                Location::Postgres(url) => url.clone(),
            }),
            _ => None,
        };
        if let Some(db) = chosen {
            let shown = match self.location {
                Location::Postgres(_) => store::pasteable(&db),
                Location::Sqlite(_) => store::redact(&db),
            };
            words.push(format::flag("--db", &shown));
        }
        if let Some(server) = &self.server {
            words.push(format::flag("--server", server.display()));
        }
        words.join(" ")
    }
}

/// Whether stdin and stderr are terminals and `--no-input` is not given.
pub fn at_a_terminal(no_input: bool) -> bool {
    use std::io::IsTerminal;
    !no_input && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}
