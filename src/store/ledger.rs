//! The ledger of answers sent to Mastra servers (SPEC §12): what one entry holds and the key
//! that makes an answer exactly-once among the processes sharing a store. A Mastra server has
//! no lock of its own (two resumes of one call both run), so the answering process claims the
//! entry before it sends anything; the transitions over it are in `transitions.rs`. A run
//! started from this store (`run --server`) has an entry too, of kind `start` and no tool
//! call, so that the store knows the run, its agent and how its first leg ended.
//!
//! Entries hold the server as shown (never its credentials) and the answer as sent. Data
//! only: no SQL and no decisions here.

use serde_json::Value;

use super::Lease;
use crate::domain::ItemKind;

/// One answer to one pending call of a server's run, or the start of a run. The kind belongs
/// to the key: under `requireToolApproval` Mastra asks to approve a call and then suspends
/// the same call id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerKey {
    /// The server as `remote::ServerConfig::display` shows it.
    pub server: String,
    pub run_id: String,
    /// Empty for a start.
    pub tool_call_id: String,
    pub kind: LedgerKind,
}

/// What an entry records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LedgerKind {
    /// This store started the run (`run --server`).
    Start,
    /// An answer to a pending item of this kind.
    Answer(ItemKind),
}

impl LedgerKind {
    /// The word the store keeps: `start`, or the item's kind.
    pub fn noun(self) -> &'static str {
        match self {
            LedgerKind::Start => "start",
            LedgerKind::Answer(kind) => kind.noun(),
        }
    }

    pub fn parse(s: &str) -> Option<LedgerKind> {
        match s {
            "start" => Some(LedgerKind::Start),
            other => ItemKind::parse(other).map(LedgerKind::Answer),
        }
    }
}

/// Where an answer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LedgerState {
    /// Claimed: its process sends it, or sent it and never learnt whether it arrived.
    Sending,
    /// The server accepted it and streamed the resumed leg.
    Delivered,
}

impl LedgerState {
    pub fn as_str(self) -> &'static str {
        match self {
            LedgerState::Sending => "sending",
            LedgerState::Delivered => "delivered",
        }
    }

    pub fn parse(s: &str) -> Option<LedgerState> {
        [LedgerState::Sending, LedgerState::Delivered]
            .into_iter()
            .find(|st| st.as_str() == s)
    }
}

/// Which of one server's entries to read (`Tx::ledger_matching`), oldest first.
#[derive(Clone, Copy, Debug)]
pub struct LedgerFilter<'a> {
    pub server: &'a str,
    /// The entries of the runs whose id starts with this (`""`: all runs).
    pub run_prefix: &'a str,
    /// Only those still `sending`.
    pub sending_only: bool,
    /// At most this many.
    pub limit: i64,
}

/// An answer in the ledger.
#[derive(Clone, Debug, PartialEq)]
pub struct LedgerEntry {
    pub key: LedgerKey,
    pub agent_id: String,
    pub state: LedgerState,
    /// What was sent: the resume data, or for an approval `{approved, reason?}`; `null` for
    /// a start (its prompt is not kept).
    pub resume_data: Value,
    /// Who answered (`--as`), and how (`flag`, `json`, `prompt`).
    pub by: String,
    pub via: String,
    /// The process that claimed it (its `expires_at` is unused).
    pub holder: Lease,
    /// How the resumed leg ended (`suspended`, `finished`, `failed`), once delivered.
    pub outcome: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}
