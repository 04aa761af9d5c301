//! `approval_prompt` (SPEC §16): Claude Code's `--permission-prompt-tool` contract over an
//! approval item. Claude Code cannot take "pending": after `--wait` the call denies, saying
//! the item waits for a person. A retried call with the same tool and input, from the same
//! working directory and user, finds that item (pending, or decided and not used yet)
//! instead of making a new one; an allow is used once: the first call that returns it
//! claims it in the store's ledger (exactly one process among those sharing the store), so
//! a later identical call asks again.

use std::io::Write;

use anyhow::{anyhow, Result};
use serde_json::{json, Value};

use super::{calls, tools, Server, AGENT};
use crate::domain::{CallRecord, CallState, RunStatus};
use crate::runner::advance::started_here_by_me;
use crate::store::{
    now_ms, LedgerEntry, LedgerKey, LedgerKind, LedgerState, RunFilter, Store, Who,
};
use crate::tools::approval::{Decision, DEFAULT_DECLINE_REASON};

/// The ledger's "server" for the allows this server used (no URL looks like it).
const USED: &str = "mastra-ask mcp";

/// How many recent runs of each state a retry looks through.
const LOOK_BACK: usize = 200;

impl<W: Write + Send> Server<'_, W> {
    /// The result of an `approval_prompt` call (checked already: `asked` is its tool and
    /// input), or of the item an identical earlier call made.
    pub(super) fn permission(
        &self,
        asked: &Value,
        cwd: &str,
        start: &dyn Fn() -> Result<String>,
        token: &Value,
    ) -> Result<Value> {
        let ctx = self.setup.context();
        let store = ctx.create_store()?;
        let run_id = match earlier(store.as_ref(), asked, cwd)? {
            Some(run_id) => run_id,
            None => start()?,
        };
        let waited = self.wait_for(&run_id, token, Some(self.setup.wait))?;
        let call = store
            .calls(&run_id)?
            .into_iter()
            .find(|c| c.kind.is_some())
            .ok_or_else(|| anyhow!("run {run_id} has no item"))?;
        let said = match call.state {
            CallState::Pending => {
                let url = store.calls_and_url(&run_id)?.1;
                let how = calls::how_to_answer(&run_id, &call, url.as_deref(), &ctx.program());
                let message = format!(
                    "A person has not decided yet (run {run_id}). {how} Then retry the same call: it finds the decision."
                );
                json!({"behavior": "deny", "message": message})
            }
            CallState::Resolved => match call.resume_data.as_ref().map(Decision::from_json) {
                Some(Ok(d)) if d.approved => match claim(store.as_ref(), &call)? {
                    true => {
                        let input = call.approved_args.as_ref().unwrap_or(&call.args);
                        json!({"behavior": "allow", "updatedInput": input["input"]})
                    }
                    // Used by another call meanwhile: this one asks again.
                    false => return self.permission(asked, cwd, start, token),
                },
                Some(Ok(d)) => {
                    json!({"behavior": "deny", "message": d.reason.unwrap_or_else(|| DEFAULT_DECLINE_REASON.into())})
                }
                _ => json!({"behavior": "deny", "message": "the decision could not be read"}),
            },
            _ => json!({"behavior": "deny", "message": calls::text_of(&waited)}),
        };
        Ok(calls::text_result(&said.to_string(), false))
    }
}

/// The newest item an identical call of this user in `cwd` made that is still pending, or
/// decided and not used.
fn earlier(store: &dyn Store, asked: &Value, cwd: &str) -> Result<Option<String>> {
    for status in [RunStatus::Suspended, RunStatus::Completed] {
        let filter = RunFilter {
            status: Some(status),
            limit: LOOK_BACK,
        };
        for run in store.list_runs(&filter)? {
            if run.agent_id != AGENT || run.cwd != cwd || !started_here_by_me(&run) {
                continue;
            }
            let calls = store.calls(&run.id)?;
            let Some(call) = calls
                .iter()
                .find(|c| c.tool_name == tools::APPROVAL_PROMPT && c.args == *asked)
            else {
                continue;
            };
            let usable = match call.state {
                CallState::Pending => true,
                CallState::Resolved => !used(store, &run.id)?,
                _ => false,
            };
            if usable {
                return Ok(Some(run.id));
            }
        }
    }
    Ok(None)
}

/// Whether the decision of `run_id` was used already.
fn used(store: &dyn Store, run_id: &str) -> Result<bool> {
    Ok(!store.answers_of_run(USED, run_id)?.is_empty())
}

/// Claims the decision of `call` for this call: false when another call used it.
fn claim(store: &dyn Store, call: &CallRecord) -> Result<bool> {
    let now = now_ms();
    let entry = LedgerEntry {
        key: LedgerKey {
            server: USED.into(),
            run_id: call.run_id.clone(),
            tool_call_id: call.call_id.clone(),
            kind: LedgerKind::Answer(call.kind()),
        },
        agent_id: AGENT.into(),
        state: LedgerState::Delivered,
        resume_data: call.resume_data.clone().unwrap_or(Value::Null),
        by: Who::this_process(None).by,
        via: "mcp".into(),
        holder: crate::agent::lease::mine(),
        outcome: Some("allowed".into()),
        created_at: now,
        updated_at: now,
    };
    match store.claim_answer(&entry) {
        Ok(()) => Ok(true),
        Err(crate::store::Error::Conflict(crate::store::Conflict::Answered { .. })) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
