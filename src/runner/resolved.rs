//! `--on-resolve CMD` (SPEC §17): tells the outside world that an item of this store was
//! resolved (answered, approved, rejected, declined, expired or cancelled) by running
//! `sh -c CMD` with one JSON line on stdin, as `--on-suspend` runs its command
//! (`notify::Job`). Of every process on the store that has the flag (a resolving command,
//! a run's waiter, an MCP call, `serve` for every run), the first to claim the item in the
//! store's transaction runs it; the others never do, so it runs once per item. Only items
//! resolved within `RESOLVE_CATCH_UP` are looked at: a process started with the flag on an
//! old store does not run it for every item ever resolved.
//!
//! The command comes only from the flag or the environment, never from a run; its failure
//! is reported, never fatal, and never touches the decision, which is stored already.

use anyhow::Result;
use serde_json::{json, Value};

use super::notify::Job;
use super::Context;
use crate::domain::{CallRecord, CallState, ItemKind};
use crate::limits::RESOLVE_CATCH_UP;
use crate::output::format;
use crate::store::{now_ms, Reviewers, Store};

/// The flag, as a failure's warning names it.
pub const FLAG: &str = "--on-resolve";

/// Runs this process's `--on-resolve` command, here and now, for each item of `run_id` (of
/// every run: `None`) resolved lately whose hook no process has claimed, claiming each
/// first. Nothing without the flag; a store that cannot be read is reported, never fatal.
pub fn told(ctx: &Context, store: &dyn Store, run_id: Option<&str>) {
    let Some(cmd) = command(ctx) else {
        return;
    };
    let ran = each(store, run_id, &mut |call, line| {
        Job::of_line(cmd, FLAG, (&call.run_id, &call.call_id), line).run_reporting(ctx);
    });
    if let Err(e) = ran {
        ctx.report
            .warn(&format!("{FLAG}: looking for resolved items failed: {e:#}"));
    }
}

/// This process's `--on-resolve` command, if it has one.
pub fn command<'c>(ctx: &'c Context) -> Option<&'c str> {
    ctx.on_resolve.as_deref().filter(|c| !c.trim().is_empty())
}

/// Claims each item of `run_id` (of every run: `None`) resolved lately whose hook no
/// process has claimed, and hands `tell` each one this process claimed, with its line
/// (serve queues its command instead of running it here).
pub fn each(
    store: &dyn Store,
    run_id: Option<&str>,
    tell: &mut dyn FnMut(&CallRecord, &Value),
) -> Result<()> {
    let window = i64::try_from(RESOLVE_CATCH_UP.as_millis()).unwrap_or(i64::MAX);
    let since = now_ms().saturating_sub(window);
    let mut base: Option<Option<String>> = None;
    for call in store.unclaimed_resolutions(run_id, since)? {
        if !store.claim_resolution(&call.run_id, &call.call_id)? {
            continue;
        }
        if base.is_none() {
            base = Some(store.public_url()?);
        }
        tell(
            &call,
            &line(&call, base.as_ref().and_then(Option::as_deref)),
        );
    }
    Ok(())
}

/// The hook's stdin: `{runId, toolCallId, kind, decision, by, via, at, answer?, url?}`, the
/// decision in the kind's own words (`answered`, `approved`, `rejected`, `declined`) or
/// `expired` / `cancelled` (then `by` and `via` are null); `answer`, a question's answer as
/// `ask --wait -o json` gives it; `url`, its inbox page when serve's public URL is known.
pub fn line(call: &CallRecord, base: Option<&str>) -> Value {
    let kind = call.kind();
    let resume = call.resume_data.as_ref().unwrap_or(&Value::Null);
    let (decision, by, via) = match call.state {
        CallState::Resolved => (
            kind.verdict(resume).as_str(),
            call.resolved_by.as_deref(),
            call.resolved_via.as_deref(),
        ),
        CallState::Expired => ("expired", None, None),
        _ => ("cancelled", None, None),
    };
    let mut v = json!({
        "runId": call.run_id,
        "toolCallId": call.call_id,
        "kind": kind.noun(),
        "decision": decision,
        "by": by,
        "via": via,
        "at": call.resolved_at.map(format::time),
    });
    if kind == ItemKind::Question && call.state == CallState::Resolved {
        v["answer"] = resume.clone();
    }
    if let Some(base) = base {
        v["url"] = json!(crate::links::item_url(base, &call.run_id, &call.call_id));
    }
    v
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::line;
    use crate::domain::{CallRecord, CallState, ItemKind};

    #[test]
    fn the_line_says_the_decision_in_the_kind_s_words_and_the_page_when_known() {
        let mut call = CallRecord::fixture("r 1", "c/1", "submit_plan", json!({}));
        call.kind = Some(ItemKind::Plan);
        call.state = CallState::Resolved;
        call.resume_data = Some(json!({"action": "rejected", "feedback": "no"}));
        call.resolved_by = Some("alice".into());
        call.resolved_via = Some("tap".into());
        call.resolved_at = Some(0);
        assert_eq!(
            line(&call, Some("https://inbox.example.com/")),
            json!({"runId": "r 1", "toolCallId": "c/1", "kind": "plan", "decision": "rejected",
                "by": "alice", "via": "tap", "at": "1970-01-01T00:00:00.000Z",
                "url": "https://inbox.example.com/runs/r%201/items/c%2F1"})
        );
        call.state = CallState::Expired;
        assert_eq!(line(&call, None)["decision"], "expired");
        assert_eq!(line(&call, None)["by"], json!(null));
        assert!(line(&call, None).get("url").is_none());
    }
}
