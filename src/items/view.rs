//! An item as it is shown, wherever it waits: in this store or on a Mastra server. The kinds
//! describe it (`Kind::describe`, `Kind::commands`); `runner::view` lays out listings,
//! announcements and JSON lines of it.

use serde_json::Value;

use crate::domain::{CallRecord, ItemKind};
use crate::output::{format, sanitize};
use crate::remote;
use crate::store::PendingItem;
use crate::tools::ask_user::QuestionRef;

/// An item as it is shown.
pub struct ItemView<'a> {
    pub run_id: &'a str,
    pub call_id: &'a str,
    pub tool_name: &'a str,
    pub kind: ItemKind,
    /// The call's arguments (a server lists them for approvals only).
    pub args: Option<&'a Value>,
    pub payload: Option<&'a Value>,
    /// What a question asks, read from its payload once (`None` for the other kinds, and
    /// for a payload that does not read as a question).
    pub question: Option<QuestionRef<'a>>,
    pub agent_id: &'a str,
    /// When it was suspended (Unix ms), or the server's RFC 3339 time.
    pub suspended_at: When<'a>,
    pub expires_at: Option<i64>,
    /// Pending items of the same run, this one included (`--tool-call` is printed when
    /// there are several).
    pub pending_in_run: usize,
    /// The Mastra server it waits on, as shown (no credentials).
    pub server: Option<&'a str>,
    /// Its page in this store's inbox (`serve --public-url`), once one is recorded.
    pub url: Option<&'a str>,
    /// Who may decide it under its run's policy, and the decisions so far (SPEC §14).
    pub gate: Option<&'a crate::policy::ItemGate>,
}

/// A time as the store keeps it, or as a server gave it.
#[derive(Clone, Copy)]
pub enum When<'a> {
    Ms(i64),
    Rfc3339(&'a str),
}

impl When<'_> {
    pub fn rfc3339(self) -> String {
        match self {
            When::Ms(ms) => format::time(ms),
            When::Rfc3339(s) => s.to_string(),
        }
    }

    pub fn ms(self) -> Option<i64> {
        match self {
            When::Ms(ms) => Some(ms),
            When::Rfc3339(s) => s
                .parse::<jiff::Timestamp>()
                .ok()
                .map(|t| t.as_millisecond()),
        }
    }
}

impl<'a> ItemView<'a> {
    /// A call of this store; `agent_id` and `pending_in_run` from its listing, if any.
    pub fn call(call: &'a CallRecord, agent_id: &'a str, pending_in_run: usize) -> ItemView<'a> {
        ItemView {
            run_id: &call.run_id,
            call_id: &call.call_id,
            tool_name: &call.tool_name,
            kind: call.kind(),
            args: Some(&call.args),
            payload: call.payload(),
            question: question(call.kind(), call.payload()),
            agent_id,
            suspended_at: When::Ms(call.created_at),
            expires_at: call.expires_at,
            pending_in_run,
            server: None,
            url: None,
            gate: None,
        }
    }

    pub fn pending(item: &'a PendingItem) -> ItemView<'a> {
        ItemView {
            url: item.url.as_deref(),
            ..ItemView::call(&item.call, &item.agent_id, item.pending_in_run)
        }
    }

    /// A pending item with its gate, if `gates` (`ItemGate::of_pending`) has one.
    pub fn gated(
        item: &'a PendingItem,
        gates: &'a std::collections::HashMap<(String, String), crate::policy::ItemGate>,
    ) -> ItemView<'a> {
        let mut view = ItemView::pending(item);
        if item.gated && !gates.is_empty() {
            view.gate = gates.get(&(item.call.run_id.clone(), item.call.call_id.clone()));
        }
        view
    }

    /// A server's pending call; `pending_in_run` counts the listed calls of its run.
    pub fn remote(item: &'a remote::SuspendedCall, pending_in_run: usize) -> ItemView<'a> {
        ItemView {
            run_id: &item.run_id,
            call_id: &item.tool_call_id,
            tool_name: &item.tool_name,
            kind: item.kind,
            args: item.args.as_ref(),
            payload: item.suspend_payload.as_ref(),
            question: question(item.kind, item.suspend_payload.as_ref()),
            agent_id: &item.agent_id,
            suspended_at: When::Rfc3339(&item.suspended_at),
            expires_at: None,
            pending_in_run,
            server: Some(&item.server),
            url: None,
            gate: None,
        }
    }

    /// One line about the item: its id, kind, and its question, plan, or tool and arguments
    /// (sanitized).
    pub fn describe(&self) -> String {
        let mut out = String::new();
        self.describe_into(&mut out);
        out
    }

    /// `describe`, appended to `out`.
    pub fn describe_into(&self, out: &mut String) {
        sanitize::push_one_line(out, self.call_id);
        out.push(' ');
        super::of(self.kind).describe(self, out);
    }
}

fn question(kind: ItemKind, payload: Option<&Value>) -> Option<QuestionRef<'_>> {
    match kind {
        ItemKind::Question => payload.and_then(QuestionRef::of),
        _ => None,
    }
}

/// One line about a stored call: its id, kind and question or plan title (sanitized).
pub fn describe(call: &CallRecord) -> String {
    ItemView::call(call, "", 1).describe()
}

/// `{"a":1}`, or `{}` for nothing: arguments and payloads in one line.
pub(super) fn json_of(v: Option<&Value>) -> String {
    v.map(Value::to_string).unwrap_or_else(|| "{}".into())
}
