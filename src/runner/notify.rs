//! `--on-suspend CMD`: tells the outside world about each new pending item, of this store or
//! of a Mastra server, by running `sh -c CMD` with the item's JSON line on stdin. A failing
//! or slow hook is reported on the report (stderr) and never affects the suspension, which
//! is already stored (or kept by the server). The hook runs in its own process group,
//! killed as a whole at the timeout. A `Job` is one hook with all it needs (`--on-escalate`
//! and `--on-resolve` run theirs as `Job`s too), for a caller that runs hooks from a queue
//! of its own (`serve`).

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde_json::Value;

use super::view::view_json;
use super::Context;
use crate::items::ItemView;
use crate::limits::HOOK_TIMEOUT;
use crate::output::format;
use crate::sys::group::{self, End, Group};

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
    Job::new(ctx, cmd, flag, item).run_reporting(ctx);
}

/// How a hook's process group ends with the process that runs it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Tie {
    /// At the process's interrupting signals, which it catches while the hook runs (a
    /// command, one hook at a time).
    None,
    /// With the thread that starts it, however it ends (a server that handles its signals
    /// itself, hooks on threads of their own): the hook's first process is a guard that
    /// turns its death signal into the end of the whole group (`GUARD`).
    Thread,
}

/// The first process of a tied hook: the hook (`$1`) runs in the background, with the
/// guard's stdin, so that the death signal (SIGTERM) is trapped at once and kills the whole
/// group; otherwise it ends as the hook ends, with its status.
const GUARD: &str = r#"trap 'kill -KILL 0' TERM; exec 3<&0; sh -c "$1" <&3 3<&- & wait $!"#;

/// A hook to run for one item, with all it needs, to be run later or on another thread.
pub struct Job {
    flag: String,
    cmd: String,
    run_id: String,
    call_id: String,
    /// The item's JSON line, its stdin.
    line: String,
}

impl Job {
    pub fn new(ctx: &Context, cmd: &str, flag: &str, item: &ItemView) -> Job {
        Job::of_line(
            cmd,
            flag,
            (item.run_id, item.call_id),
            &view_json(ctx, item),
        )
    }

    /// A hook for the item `(run, call)` with `line` on its stdin.
    pub fn of_line(cmd: &str, flag: &str, (run, call): (&str, &str), line: &Value) -> Job {
        Job {
            flag: flag.to_string(),
            cmd: cmd.to_string(),
            run_id: run.to_string(),
            call_id: call.to_string(),
            line: format!("{line}\n"),
        }
    }

    /// Runs it now, in this process (a command, one hook at a time); its failure is reported.
    pub fn run_reporting(&self, ctx: &Context) {
        if let Err(problem) = self.run(Tie::None, &AtomicBool::new(false)) {
            ctx.report.warn(&self.failed(&problem));
        }
    }

    /// `--on-suspend command for RUN CALL` and `problem`, as a warning says it.
    pub fn failed(&self, problem: &str) -> String {
        format!(
            "{} command for {} {} {problem}",
            self.flag,
            format::shell_quote(&self.run_id),
            format::shell_quote(&self.call_id)
        )
    }

    /// Runs it in a process group of its own, tied as `tie` says, killed at the timeout or
    /// as soon as `stop` is set; what went wrong, if anything.
    pub fn run(&self, tie: Tie, stop: &AtomicBool) -> Result<(), String> {
        let mut command = Command::new("sh");
        let spawn = match tie {
            Tie::None => {
                command.arg("-c").arg(&self.cmd);
                Group::spawn
            }
            Tie::Thread => {
                command.args(["-c", GUARD, "sh", &self.cmd]);
                Group::spawn_tied
            }
        };
        let mut group = spawn(
            command
                .env("MASTRA_ASK_RUN_ID", &self.run_id)
                .env("MASTRA_ASK_TOOL_CALL_ID", &self.call_id)
                .stdin(Stdio::piped())
                .stdout(Stdio::null()),
        )
        .map_err(|e| format!("could not start: {e}"))?;
        if let Some(mut stdin) = group.child().stdin.take() {
            // A hook that does not read its stdin is fine, and one that neither reads nor
            // ends cannot block us past the timeout: the line is written on a thread.
            let line = self.line.clone();
            std::thread::spawn(move || {
                let _ = stdin.write_all(line.as_bytes());
            });
        }
        match group.wait_unless(Instant::now() + HOOK_TIMEOUT, stop) {
            Ok(Some(End::Exited(status))) if status.success() => Ok(()),
            Ok(Some(End::Exited(status))) => Err(format!("failed ({status})")),
            Ok(Some(End::TimedOut)) => {
                Err(format!("was stopped after {}s", HOOK_TIMEOUT.as_secs()))
            }
            Ok(Some(End::Interrupted(sig))) => {
                group::reraise(group, sig);
                Err("was interrupted".into())
            }
            Ok(None) => Err("was stopped: its caller is stopping".into()),
            Err(e) => Err(format!("could not be waited for: {e}")),
        }
    }
}
