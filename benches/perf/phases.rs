//! Where a leg's time goes besides the CPU: its durable commits. A `run` and an `answer` of
//! the workload are run once more under `strace` (when it is installed; these runs are not
//! timed), which counts their `fsync` and `fdatasync` calls: each is a wait for the disk,
//! measured beside it (`report::fsync_latency`).

use std::process::Command;

use crate::lifecycle::{partial, RUN};
use crate::spawn::Runner;

/// How many `fsync`s and `fdatasync`s `mastra-ask ARGS` makes (its threads included);
/// `None` without strace.
pub fn syncs(r: &Runner, args: &[&str], code: i32) -> Result<Option<usize>, String> {
    let log = r.stderr_file().with_extension("strace");
    let mut c = Command::new("strace");
    c.args(["-f", "-qq", "-e", "trace=fsync,fdatasync", "-o"])
        .arg(&log)
        .arg(&r.bin)
        .args(args);
    let mut c = r.with_env(c);
    let out = match c.output() {
        Ok(o) => o,
        Err(_) => return Ok(None),
    };
    if out.status.code() != Some(code) {
        return Err(format!(
            "strace mastra-ask {} exited {:?}: {}",
            args.join(" "),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = std::fs::read_to_string(&log).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&log);
    Ok(Some(
        text.lines()
            .filter(|l| l.contains("fsync(") || l.contains("fdatasync("))
            .count(),
    ))
}

/// The `fsync`s per `run` to its first suspension and per `answer` to the next one, over
/// `n` of each: their means, so that the log's checkpoints (a committing process folds it
/// into the store every 64 pages) are counted in their share.
pub fn leg_syncs(r: &Runner, n: usize) -> Result<Option<(f64, f64)>, String> {
    let mut runs = 0;
    for _ in 0..n {
        let Some(k) = syncs(r, &RUN, 75)? else {
            return Ok(None);
        };
        runs += k;
    }
    let ids = (0..n)
        .map(|_| partial(r, 0))
        .collect::<Result<Vec<_>, _>>()?;
    let mut answers = 0;
    for id in &ids {
        answers += syncs(r, &["answer", id, "2.0.0"], 75)?.unwrap_or_default();
    }
    Ok(Some((runs as f64 / n as f64, answers as f64 / n as f64)))
}
