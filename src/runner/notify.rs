//! `--on-suspend CMD`: tells the outside world about each new pending item, of this store or
//! of a Mastra server, by running `sh -c CMD` with the item's JSON line on stdin. A failing
//! or slow hook is reported on the report (stderr) and never affects the suspension, which
//! is already stored (or kept by the server). The hook runs in its own process group,
//! killed as a whole at the timeout.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::place::Gates;
use super::view::view_json;
use super::Context;
use crate::items::ItemView;
use crate::limits::HOOK_TIMEOUT;
use crate::output::format;
use crate::store::PendingItem;
use crate::sys::group::{self, End, Group};

/// Runs the hook for each new pending item of this store, with who may decide it (`gates`,
/// `ItemGate::of_pending`).
pub fn on_suspend(ctx: &Context, items: &[PendingItem], gates: &Gates) {
    let shown: Vec<ItemView> = items.iter().map(|i| ItemView::gated(i, gates)).collect();
    hook(ctx, &shown);
}

/// Runs the hook for each new pending item, wherever it waits.
pub fn hook(ctx: &Context, items: &[ItemView]) {
    let Some(cmd) = ctx.on_suspend.as_deref().filter(|c| !c.trim().is_empty()) else {
        return;
    };
    for item in items {
        run_hook_reporting(ctx, cmd, "--on-suspend", item);
    }
}

/// Runs a hook (`--on-suspend`, `--on-escalate`) for `item`; its failure is reported.
pub fn run_hook_reporting(ctx: &Context, cmd: &str, flag: &str, item: &ItemView) {
    if let Err(problem) = run_hook(cmd, ctx, item) {
        ctx.report.warn(&format!(
            "{flag} command for {} {} {problem}",
            format::shell_quote(item.run_id),
            format::shell_quote(item.call_id)
        ));
    }
}

fn run_hook(cmd: &str, ctx: &Context, item: &ItemView) -> Result<(), String> {
    let mut group = Group::spawn(
        Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .env("MASTRA_ASK_RUN_ID", item.run_id)
            .env("MASTRA_ASK_TOOL_CALL_ID", item.call_id)
            .stdin(Stdio::piped())
            .stdout(Stdio::null()),
    )
    .map_err(|e| format!("could not start: {e}"))?;
    if let Some(mut stdin) = group.child().stdin.take() {
        // A hook that does not read its stdin is fine, and one that neither reads nor ends
        // cannot block us past the timeout: the line is written on a thread.
        let line = format!("{}\n", view_json(ctx, item));
        std::thread::spawn(move || {
            let _ = stdin.write_all(line.as_bytes());
        });
    }
    match group.wait(Instant::now() + HOOK_TIMEOUT) {
        Ok(End::Exited(status)) if status.success() => Ok(()),
        Ok(End::Exited(status)) => Err(format!("failed ({status})")),
        Ok(End::TimedOut) => Err(format!("was stopped after {}s", HOOK_TIMEOUT.as_secs())),
        Ok(End::Interrupted(sig)) => {
            group::reraise(group, sig);
            Err("was interrupted".into())
        }
        Err(e) => Err(format!("could not be waited for: {e}")),
    }
}
