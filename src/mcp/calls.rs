//! What a tool call of `mastra-ask mcp` waits for and returns (SPEC §16): the run's one item
//! watched in the store until `--wait` runs out (a `notifications/progress` every 10 s when
//! the request has a `progressToken`), then the decision as the tool's own result (what the
//! model of an agent run would get: the item's stored result), or a normal result saying it
//! is pending, with the run id, the command that answers it, the page when serve's public
//! URL is known, and `await_answer`. Nothing here decides: the store and the run layer did.

use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::{json, Value};

use super::tools::AWAIT_ANSWER;
use crate::domain::{CallRecord, CallState, ItemKind, RunStatus};
use crate::store::{self, Store};
use crate::tools::approval::{Decision, DEFAULT_DECLINE_REASON};

/// How often a waiting call tells its progress.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// How long one look at the store waits for a change: a server whose input ended stops
/// waiting within it.
const SLICE: Duration = Duration::from_millis(500);

/// An MCP `CallToolResult` of one text block.
pub fn text_result(text: &str, is_error: bool) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": is_error})
}

/// The text of a result's first block.
pub fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A tool's result object (`{"content": ..., "isError": ...}`) as the model gets it: its
/// JSON text, an error when it says so.
pub fn object_result(object: &Value) -> Value {
    let is_error = object["isError"] == json!(true) || object["error"] == json!(true);
    text_result(&object.to_string(), is_error)
}

/// What became of a run's item, once decided (or closed): `None` while it waits.
pub fn settled(run_status: RunStatus, call: Option<&CallRecord>) -> Option<Value> {
    let Some(call) = call else {
        return match run_status {
            RunStatus::Running | RunStatus::Suspended => None,
            other => Some(text_result(
                &format!(
                    "the call ended without asking anyone: its run is {}",
                    other.as_str()
                ),
                true,
            )),
        };
    };
    match call.state {
        CallState::Pending => None,
        CallState::Resolved => Some(match call.kind() {
            ItemKind::Approval => {
                let decision = call
                    .resume_data
                    .as_ref()
                    .and_then(|d| Decision::from_json(d).ok());
                match decision {
                    Some(d) if d.approved => text_result("approved", false),
                    Some(d) => text_result(
                        &format!(
                            "declined: {}",
                            d.reason.as_deref().unwrap_or(DEFAULT_DECLINE_REASON)
                        ),
                        false,
                    ),
                    None => text_result("the decision could not be read", true),
                }
            }
            _ => match &call.result {
                Some(object) => object_result(object),
                None => text_result("the answer could not be read", true),
            },
        }),
        CallState::Expired => Some(match call.kind() {
            ItemKind::Approval => text_result(crate::tools::expired::DECLINED, true),
            _ => object_result(
                &json!({"content": crate::tools::expired::result(call)["content"], "isError": true}),
            ),
        }),
        CallState::Cancelled => Some(text_result(
            "nobody answered: the run of this call was cancelled",
            true,
        )),
        _ => call.result.as_ref().map(object_result),
    }
}

/// What a call waits on.
pub struct Watch<'a> {
    pub store: &'a dyn Store,
    pub run_id: &'a str,
    /// `--wait`; `None`: until decided (`tasks/result`).
    pub wait: Option<Duration>,
    /// Called with the count so far every `PROGRESS_EVERY` (when the request asked).
    pub progress: Option<&'a dyn Fn(u64)>,
    /// The input ended: stop waiting now.
    pub closed: &'a dyn Fn() -> bool,
}

/// What the call of `watch.run_id` returns: its item's outcome, or after `--wait`, the
/// pending result (`program` answers it).
pub fn wait(watch: &Watch, program: &str) -> Result<Value> {
    let started = Instant::now();
    // A year stands for "until decided".
    let deadline = started + watch.wait.unwrap_or(Duration::from_secs(365 * 24 * 3600));
    let mut told = 0;
    loop {
        watch.store.expire_due(store::now_ms())?;
        let run = watch
            .store
            .run(watch.run_id)?
            .ok_or_else(|| anyhow::anyhow!("run {} is gone", watch.run_id))?;
        let (calls, url) = watch.store.calls_and_url(watch.run_id)?;
        let item = calls.iter().find(|c| c.kind.is_some());
        if let Some(result) = settled(run.status, item) {
            return Ok(result);
        }
        let now = Instant::now();
        if now >= deadline || (watch.closed)() {
            return Ok(pending(watch.run_id, item, url.as_deref(), program));
        }
        let next = started + PROGRESS_EVERY * (told + 1);
        if now >= next {
            told += 1;
            if let Some(progress) = watch.progress {
                progress(told as u64);
            }
        }
        let until = deadline.min(started + PROGRESS_EVERY * (told + 1));
        watch.store.wait_for_change(
            watch.run_id,
            until.saturating_duration_since(now).min(SLICE),
        )?;
    }
}

/// The result of a call still waiting for a person.
fn pending(run_id: &str, item: Option<&CallRecord>, url: Option<&str>, program: &str) -> Value {
    let mut text = format!("Pending: a person has not decided yet (run {run_id}).");
    if let Some(item) = item {
        text.push_str(&format!(" {}", how_to_answer(run_id, item, url, program)));
    }
    text.push_str(&format!(
        " Call {AWAIT_ANSWER} with {} to wait for the answer.",
        json!({"id": run_id})
    ));
    text_result(&text, false)
}

/// `To decide it, use: PROGRAM answer RUN[, or open URL].`
pub fn how_to_answer(run_id: &str, item: &CallRecord, url: Option<&str>, program: &str) -> String {
    let run = crate::output::format::shell_quote(run_id);
    let mut text = format!(
        "To decide it, {}",
        crate::items::of(item.kind()).use_hint(program, &run)
    );
    if let Some(url) = url {
        text.push_str(&format!(
            ", or open {}",
            crate::links::item_url(url, run_id, &item.call_id)
        ));
    }
    text.push('.');
    text
}
