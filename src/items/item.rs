//! A pending item, owned, wherever it waits: a call of this store or a suspended call of a
//! Mastra server. It is what the run layer looks up, prompts for, records, announces and
//! names in an interruption, one type for both places; `view` lends it to the layouts
//! (`ItemView`) without copying. Nothing here finds, records or prints anything.

use serde_json::Value;

use super::view::ItemView;
use crate::domain::{CallRecord, ItemKind};
use crate::remote::SuspendedCall;
use crate::store::{PendingItem, Run};

/// A pending item and where it waits.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A call of this store, with its run's agent.
    Stored {
        call: Box<CallRecord>,
        agent_id: String,
        /// Pending items of the same run, this one included.
        pending_in_run: usize,
        /// Its page in this store's inbox, once a public URL is recorded.
        url: Option<String>,
    },
    /// A suspended call of a Mastra server (which names its agent itself).
    Server {
        call: Box<SuspendedCall>,
        pending_in_run: usize,
    },
}

impl Item {
    /// A pending call of `run`, as read before.
    pub fn of_call(run: &Run, call: &CallRecord) -> Item {
        Item::Stored {
            call: Box::new(call.clone()),
            agent_id: run.agent_id.clone(),
            pending_in_run: 1,
            url: None,
        }
    }

    /// A pending item of this store's listing.
    pub fn stored(item: PendingItem) -> Item {
        Item::Stored {
            call: Box::new(item.call),
            agent_id: item.agent_id,
            pending_in_run: item.pending_in_run,
            url: item.url,
        }
    }

    /// The item as the layouts take it.
    pub fn view(&self) -> ItemView<'_> {
        match self {
            Item::Stored {
                call,
                agent_id,
                pending_in_run,
                url,
            } => ItemView {
                url: url.as_deref(),
                ..ItemView::call(call, agent_id, *pending_in_run)
            },
            Item::Server {
                call,
                pending_in_run,
            } => ItemView::remote(call, *pending_in_run),
        }
    }

    /// The view, with who may decide it under its run's policy where `gates` has it
    /// (SPEC §14).
    pub fn view_gated<'a>(
        &'a self,
        gates: &'a std::collections::HashMap<(String, String), crate::policy::ItemGate>,
    ) -> ItemView<'a> {
        ItemView {
            gate: gates.get(&(self.run_id().to_string(), self.call_id().to_string())),
            ..self.view()
        }
    }

    pub fn run_id(&self) -> &str {
        match self {
            Item::Stored { call, .. } => &call.run_id,
            Item::Server { call, .. } => &call.run_id,
        }
    }

    pub fn call_id(&self) -> &str {
        match self {
            Item::Stored { call, .. } => &call.call_id,
            Item::Server { call, .. } => &call.tool_call_id,
        }
    }

    pub fn kind(&self) -> ItemKind {
        match self {
            Item::Stored { call, .. } => call.kind(),
            Item::Server { call, .. } => call.kind,
        }
    }

    pub fn tool_name(&self) -> &str {
        match self {
            Item::Stored { call, .. } => &call.tool_name,
            Item::Server { call, .. } => &call.tool_name,
        }
    }

    /// The call's arguments (a server lists them for approvals only).
    pub fn args(&self) -> Option<&Value> {
        match self {
            Item::Stored { call, .. } => Some(&call.args),
            Item::Server { call, .. } => call.args.as_ref(),
        }
    }

    /// What the call suspended with: the question, the plan (this store's: a snapshot of
    /// it; a Mastra server's: its path), a server's own payload.
    pub fn payload(&self) -> Option<&Value> {
        match self {
            Item::Stored { call, .. } => call.payload(),
            Item::Server { call, .. } => call.suspend_payload.as_ref(),
        }
    }
}
