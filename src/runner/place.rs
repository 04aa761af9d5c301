//! Where a run lives, as the one loop (`advance`) sees it: the seam between the loop and the
//! two places runs are kept, this store (`local`: the lease, the driver, waiters) and a
//! Mastra server (`mastra`: the ledger, a leg streamed from the server). The loop asks a
//! place how its run stands, for its pending items, to record a resolution, to run a leg,
//! to take over a run whose driver is gone and to pause while it waits; finding a run and an
//! item (`target`) asks it to load a run and why a call is not pending.
//!
//! What truly differs between the places is an answer here, never a branch in the loop:
//! a server resumes a run when it gets the answer (no `--no-resume`), the ledger stands in
//! for the lease, a server's run cannot be resumed or replied to from here, and only this
//! store knows a one-step run's outcome. Nothing here does IO.

use std::time::Instant;

use anyhow::Result;
use serde_json::Value;

use super::elsewhere::Noticing;
use super::end::End;
use super::record::Outcome;
use crate::domain::{ItemKind, Resolution};
use crate::error::{Error, Kind};
use crate::items::{Item, Plans};
use crate::policy::ItemGate;
use crate::store::{Identity, Store};
use crate::sys::signals::Ending;

/// Items' gates by run id and tool call id.
pub type Gates = std::collections::HashMap<(String, String), ItemGate>;

/// How a run stands.
#[derive(Clone, Debug, PartialEq)]
pub enum State {
    /// Running, driven by `Driver`.
    Running(Driver),
    /// Waiting for a person: `Place::pending` says for what.
    Suspended,
    /// It will not move any more: how it ended.
    Ended(End),
}

/// Who drives a running run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    /// This process: the next leg is its to run (`Place::leg`).
    Me,
    /// Nobody any more (its driver died, or an answer left it without one), and this
    /// process could take it over (`Place::take`).
    Gone,
    /// Another process.
    Other,
}

/// How a leg this process ran went, as far as the loop cares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ran {
    /// It left the run waiting for input (the `--on-suspend` hook runs for its items).
    pub suspended: bool,
    /// A person asked to stop while it ran: prompt no more.
    pub stop_asked: bool,
}

/// A one-step run's resolved item (`ask`, `plan`): what its waiter prints.
#[derive(Clone, Debug, PartialEq)]
pub struct OneShot {
    pub call_id: String,
    pub kind: ItemKind,
    pub answer: Value,
}

/// Where a run lives.
pub trait Place: Plans {
    /// The run's id (its full id, once loaded).
    fn run_id(&self) -> &str;

    /// Makes the run `input` names (its full id, or a unique prefix of at least 4
    /// characters) this place's run; says why there is none.
    fn load(&mut self, input: &str) -> Result<()>;

    /// How the run stands now.
    fn state(&mut self) -> Result<State>;

    /// The run's pending items, oldest first.
    fn pending(&mut self) -> Result<Vec<Item>>;

    /// Every pending item of `kinds` of every run here, oldest first (what a person picks
    /// from when no run is named).
    fn everything_pending(&mut self, kinds: &[ItemKind]) -> Result<Vec<Item>>;

    /// What another process decided about `item` while its prompt was open here, as the
    /// line that says so; `None` while it still waits (or where that cannot be known).
    fn decided_meanwhile(&mut self, _item: &Item) -> Result<Option<String>> {
        Ok(None)
    }

    /// While it lives, a prompt open for `item` is left once another process decides the
    /// item (`elsewhere`); `None` where that cannot be watched (a server's item).
    fn notice(&self, _item: &Item) -> Option<Noticing> {
        None
    }

    /// Why tool call `id` of the run is not one of its pending items of `kinds`.
    fn not_pending(&mut self, id: &str, kinds: &[ItemKind]) -> Result<Error>;

    /// Why the run has nothing pending.
    fn nothing_waits(&mut self, kinds: &[ItemKind]) -> Error;

    /// Whether items of `kind` can wait here (this store never holds a server's `other`).
    fn holds(&self, kind: ItemKind) -> bool;

    /// Records `resolution` for `item` exactly once as `who` decides it (checked by the
    /// store where the place has one), and says who moves the run on; `drive`: this process
    /// may drive the leg it resumes.
    fn record(
        &mut self,
        item: &Item,
        resolution: &Resolution,
        who: &Identity,
        drive: bool,
    ) -> Result<Outcome>;

    /// The next decision approves `args` in place of `item`'s proposed arguments (SPEC
    /// §14.1), once they fit the tool's input schema; refused where a place cannot run them.
    fn approve_changed(&mut self, item: &Item, _args: Value) -> Result<()> {
        crate::error::fail(Error::usage(format!(
            "tool call {} is not this store's: only this store's tool calls are approved with changed arguments",
            item.call_id()
        )))
    }

    /// Runs the leg that is this process's to run (`Driver::Me`).
    fn leg(&mut self) -> Result<Ran>;

    /// Takes over a running run whose driver is gone (`Driver::Gone`).
    fn take(&mut self) -> Result<()>;

    /// A waiter's pause: until something may have changed, or `until`.
    fn pause(&mut self, until: Option<Instant>) -> Result<()>;

    /// Whether a live waiter or driver is advancing the run's leg now, so that an item
    /// may come (SPEC §5.1); reads the run again. Where that cannot be known: false.
    fn advancing(&mut self) -> Result<bool> {
        Ok(false)
    }

    /// A waiter's deadline passed: the error that says so (when `expire`, after closing the
    /// pending items as expired, where that can be done).
    fn timed_out(&mut self, expire: bool) -> Result<Error>;

    /// A waiter got `signal` (SPEC §5.3): it stops waiting, cancelling a one-step run that
    /// it started (`started_it`) where the place holds one; the error that says what became
    /// of the run.
    fn stop_waiting(&mut self, signal: Ending, _started_it: bool) -> Result<Error> {
        Ok(stopped_by(
            signal,
            format!("stopped waiting for run {}", self.run_id()),
        ))
    }

    /// Why a resolution cannot be only recorded here (`--no-resume`), if it cannot.
    fn refuses_only_recording(&self) -> Option<Error> {
        None
    }

    /// The Mastra server the run lives on, as shown (no credentials); None for this store.
    fn server(&self) -> Option<&str> {
        None
    }

    /// Whether a run that stopped can be continued from here (`resume`, `reply`).
    fn resumable(&self) -> bool {
        false
    }

    /// The run's summary line, as `wait -o json` ends with it, if the place has one.
    fn summary(&mut self) -> Result<Option<Value>> {
        Ok(None)
    }

    /// A completed one-step run's resolved item.
    fn one_shot(&mut self) -> Result<Option<OneShot>> {
        Ok(None)
    }

    /// Who may decide each of `items` under the run's policy (SPEC §14), keyed by run and
    /// tool call; empty where runs have no policy.
    fn gates(&mut self, _items: &[Item]) -> Result<Gates> {
        Ok(Gates::new())
    }

    /// The store that holds the run's items, where it lives in this store (`--on-resolve`
    /// claims its resolved items there, SPEC §17); None elsewhere.
    fn items_store(&self) -> Option<&dyn Store> {
        None
    }
}

/// The error a waiter stopped by `signal` ends with: `got SIGTERM: <what>`, exiting 129,
/// 130 or 143 (SPEC §5.5).
pub fn stopped_by(signal: Ending, what: String) -> Error {
    let kind = match signal {
        Ending::HangUp => Kind::HungUp,
        Ending::Interrupt => Kind::Interrupted,
        Ending::Terminate => Kind::Terminated,
    };
    Error::new(kind, format!("got {}: {what}", signal.name()))
}
