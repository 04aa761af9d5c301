//! `--on-suspend CMD`: tells the outside world about each new pending item by running
//! `sh -c CMD` with the item's JSON line on stdin. A failing or slow hook is reported on
//! stderr and never affects the suspension, which is already stored.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::items::item_json;
use super::Ctx;
use crate::store::PendingItem;

const HOOK_TIMEOUT: Duration = Duration::from_secs(10);

pub fn on_suspend(ctx: &Ctx, items: &[PendingItem]) {
    let Some(cmd) = ctx.on_suspend.as_deref().filter(|c| !c.trim().is_empty()) else {
        return;
    };
    for item in items {
        if let Err(problem) = run_hook(cmd, ctx, item) {
            ctx.out.warn(&format!(
                "--on-suspend command for {} {} {problem}",
                item.call.run_id, item.call.call_id
            ));
        }
    }
}

fn run_hook(cmd: &str, ctx: &Ctx, item: &PendingItem) -> Result<(), String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .env("MASTRA_ASK_RUN_ID", &item.call.run_id)
        .env("MASTRA_ASK_TOOL_CALL_ID", &item.call.call_id)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("could not start: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A hook that does not read its stdin is fine.
        let _ = writeln!(stdin, "{}", item_json(ctx, item));
    }
    let deadline = Instant::now() + HOOK_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("failed ({status})")),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("was stopped after {}s", HOOK_TIMEOUT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("could not be waited for: {e}")),
        }
    }
}
