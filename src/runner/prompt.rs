//! Answering at a terminal (SPEC §5.2), for an item of this store or of a Mastra server
//! alike: which item a person is asked about, and what leaving a prompt means. The prompt
//! itself is the item kind's (`items`), which turns what the person chose into a
//! `Resolution`; nothing here records one or decides what happens to the run next
//! (`advance` does).

use anyhow::Result;

use super::Context;
use crate::domain::{CallRecord, CallState, ItemKind};
use crate::error::{fail, Error, Kind};
use crate::items::{self, Item};
use crate::output::format;
use crate::store::Store;
use crate::ui;

/// An item no prompt can answer (a server's custom suspension wants JSON of its own shape):
/// the command that answers it, and a stop.
pub fn cannot_prompt(ctx: &Context, item: &Item) -> Error {
    let (run_id, kind) = (item.run_id(), item.kind());
    Error::usage(format!(
        "tool call {} of run {} is {} item, which cannot be answered at a prompt",
        format::shell_quote(item.call_id()),
        format::shell_quote(run_id),
        items::of(kind).article()
    ))
    .with_hint(
        format!(
            "answer it with: {} {} {} {} {}",
            ctx.program(),
            items::of(kind).command(),
            format::shell_quote(run_id),
            format::flag("--tool-call", item.call_id()),
            if kind == ItemKind::Other {
                "--json <value>"
            } else {
                ""
            }
        )
        .trim_end()
        .to_string(),
    )
}

/// The item (among `found`, all of `kinds`) to prompt for: the only one, or the one the
/// person picks; `None` when there is none. Leaving the picker is an interruption.
pub fn choose(mut found: Vec<Item>, kinds: &[ItemKind]) -> Result<Option<Item>> {
    if found.len() <= 1 {
        return Ok(found.pop());
    }
    let lines: Vec<String> = found
        .iter()
        .map(|i| format!("{}  {}", i.run_id(), i.view().describe()))
        .collect();
    match ui::pick(items::of(kinds[0]).picker_title(), &lines)? {
        Some(i) => Ok(Some(found.swap_remove(i))),
        None => fail(Error::new(
            Kind::Interrupted,
            "interrupted; nothing recorded",
        )),
    }
}

/// The person left the prompt for `item`: nothing was recorded (or sent) for it and it
/// still waits; `recorded` are the items recorded earlier in the same sitting.
pub fn interrupted(ctx: &Context, item: &Item, recorded: &[String]) -> Error {
    let kept = if recorded.is_empty() {
        String::new()
    } else {
        format!(" (recorded earlier: {})", recorded.join("; "))
    };
    let run = format::shell_quote(item.run_id());
    Error::new(
        Kind::Interrupted,
        format!(
            "interrupted; nothing recorded for tool call {} of run {run}, which is still pending{kept}",
            format::shell_quote(item.call_id())
        ),
    )
    .with_hint(match item.kind() {
        // `approve (or decline) RUN` does not paste: each verb whole, and the menu again.
        ItemKind::Approval => format!(
            "decide it later with: {program} approve {run}, or {program} decline {run}; or reopen this menu with: {program} answer {run}",
            program = ctx.program(),
        ),
        kind => format!(
            "answer it later with: {} {} {run} (or list what waits with: {} pending)",
            ctx.program(),
            items::of(kind).commands_hint(),
            ctx.program()
        ),
    })
}

/// What another process decided about `call` while its prompt was open here, as the line
/// that says so (`tool call X of run R was approved by bob from another process`); `None`
/// while it is still pending. "Nothing recorded" is never said of such an item (SPEC §5.2).
pub fn decided_meanwhile(store: &dyn Store, call: &CallRecord) -> Result<Option<String>> {
    let Some(now) = store
        .calls(&call.run_id)?
        .into_iter()
        .find(|c| c.call_id == call.call_id)
    else {
        return Ok(None);
    };
    let what = match now.state {
        CallState::Pending => return Ok(None),
        CallState::Resolved => {
            let data = now.resume_data.clone().unwrap_or_default();
            now.kind().verdict(&data).as_str()
        }
        state => state.as_str(),
    };
    let by = match now.resolved_by.as_deref() {
        Some(by) => format!(" by {}", crate::output::sanitize::one_line(by)),
        None => String::new(),
    };
    // An expired item was closed by its deadline, not by a person.
    let whence = if now.state == CallState::Expired {
        " at its deadline"
    } else {
        " from another process"
    };
    Ok(Some(format!(
        "tool call {} of run {} was {what}{by}{whence}",
        crate::output::sanitize::one_line(&call.call_id),
        call.run_id
    )))
}

/// `answer`/`review` at a terminal with no item named: nothing of this kind waits.
pub fn nothing_pending(ctx: &Context, kind: ItemKind) -> Error {
    Error::not_found(items::of(kind).nothing_pending())
        .with_hint(format!("list what waits with: {} pending", ctx.program()))
}
