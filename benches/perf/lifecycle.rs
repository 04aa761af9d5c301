//! The measured workload: runs of a release agent with three questions and a plan (SPEC
//! §10), driven through the real binary as people would: many runs open at once (a batch),
//! each answered step by step. The agent is the bench's own (`workload/`, the example
//! release agent as it was before it gained branches and an approval step), so that the
//! figures stay comparable across versions, and an older build can run it too (`--bin`).

use std::path::Path;

use serde_json::Value;

use crate::spawn::{Runner, Sample};

/// Which item a run waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Version,
    Channel,
    Chores,
    Plan,
}

/// One pending item, as `pending -o json` lists it.
#[derive(Clone, Debug)]
pub struct Item {
    pub run: String,
    pub call: String,
    pub stage: Stage,
}

impl Item {
    /// The command that resolves the item and the exit code it ends with (the next
    /// suspension, or the end of the run after the plan).
    pub fn answer(&self) -> (Vec<&str>, i32) {
        let run = self.run.as_str();
        match self.stage {
            Stage::Version => (vec!["answer", run, "2.0.0"], 75),
            Stage::Channel => (vec!["answer", run, "beta"], 75),
            Stage::Chores => (
                vec!["answer", run, "--multi", "Add tests", "Update docs"],
                75,
            ),
            Stage::Plan => (vec!["review", run, "--approve"], 0),
        }
    }
}

/// Copies the workload's agent into the runner's working directory; `plan_bytes` replaces
/// its plan with one of about that size.
pub fn prepare(runner: &Runner, plan_bytes: Option<usize>) -> Result<(), String> {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/perf/workload");
    for f in ["agent.json", "script.json", "RELEASE_PLAN.md"] {
        std::fs::copy(example.join(f), runner.cwd.join(f))
            .map_err(|e| format!("copying {f}: {e}"))?;
    }
    if let Some(n) = plan_bytes {
        let mut plan = String::from("# Release plan\n\n");
        let mut i = 1;
        while plan.len() < n {
            plan.push_str(&format!(
                "{i}. Check that step {i} of the release went through, and note who did it.\n"
            ));
            i += 1;
        }
        std::fs::write(runner.cwd.join("RELEASE_PLAN.md"), plan).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Every pending item of the store.
pub fn pending(runner: &Runner) -> Result<Vec<Item>, String> {
    let text = runner.output(&["pending", "-o", "json"], 0)?;
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).map_err(|e| format!("{e}: {l}"))?;
            let stage = match (
                v["toolName"].as_str(),
                v["suspendPayload"]["selectionMode"].as_str(),
            ) {
                (Some("submit_plan"), _) => Stage::Plan,
                (_, Some("multi_select")) => Stage::Chores,
                (_, Some(_)) => Stage::Channel,
                _ => Stage::Version,
            };
            Ok(Item {
                run: v["runId"].as_str().unwrap_or_default().to_string(),
                call: v["toolCallId"].as_str().unwrap_or_default().to_string(),
                stage,
            })
        })
        .collect()
}

/// What a batch of lifecycles measured.
#[derive(Default)]
pub struct Samples {
    pub run: Vec<Sample>,
    pub answer: Vec<Sample>,
    pub review: Vec<Sample>,
    /// `/bin/true`, one after each measured command: the cost of any process, measured
    /// under the same load as the commands beside it.
    pub floor: Vec<Sample>,
}

pub const RUN: [&str; 4] = ["run", "--agent", "agent.json", "Prepare the next release"];

/// Takes `n` runs from start to completion, `batch` runs at a time: start them all, then
/// answer every first question, every second one, and so on.
pub fn lifecycles(runner: &Runner, n: usize, batch: usize) -> Result<Samples, String> {
    let mut samples = Samples::default();
    let mut done = 0;
    while done < n {
        let size = batch.min(n - done);
        for _ in 0..size {
            samples.run.push(runner.measure(&RUN, 75)?);
            samples.floor.push(runner.floor()?);
        }
        for _ in 0..4 {
            for item in pending(runner)? {
                let (args, code) = item.answer();
                let s = runner.measure(&args, code)?;
                match item.stage {
                    Stage::Plan => samples.review.push(s),
                    _ => samples.answer.push(s),
                }
                samples.floor.push(runner.floor()?);
            }
        }
        if !pending(runner)?.is_empty() {
            return Err("runs still wait after their four items were resolved".into());
        }
        done += size;
    }
    Ok(samples)
}

/// Runs `stages` of a new run: 0 leaves it waiting for its first question, 3 for the
/// plan. Returns the run id.
/// The id of the run started last.
pub fn latest_run(runner: &Runner) -> Result<String, String> {
    let latest = runner.output(&["runs", "--limit", "1", "-o", "json"], 0)?;
    let v: Value = serde_json::from_str(latest.trim()).map_err(|e| e.to_string())?;
    Ok(v["runId"].as_str().unwrap_or_default().to_string())
}

pub fn partial(runner: &Runner, stages: usize) -> Result<String, String> {
    runner.output(&RUN, 75)?;
    let run = latest_run(runner)?;
    for _ in 0..stages {
        let item = pending(runner)?
            .into_iter()
            .find(|i| i.run == run)
            .ok_or("the run stopped waiting")?;
        let (args, code) = item.answer();
        runner.output(&args, code)?;
    }
    Ok(run)
}

/// The store's size once its write-ahead log is checkpointed into it.
pub fn store_size(db: &Path) -> Result<u64, String> {
    let conn = rusqlite::Connection::open(db).map_err(|e| e.to_string())?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .map_err(|e| e.to_string())?;
    drop(conn);
    Ok(std::fs::metadata(db).map_err(|e| e.to_string())?.len())
}
