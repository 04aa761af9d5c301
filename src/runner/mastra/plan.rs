//! The plan a reviewer decides on, for a server's `submit_plan` item: Mastra suspends with
//! the path only, so the file is read here — under `--plan-root` (default: the current
//! directory) with the rules of SPEC §2.2 and §9 (`read_plan`: a Markdown file, no hidden
//! component), or from `--plan-file` — unless the suspend payload carries the plan's text
//! (a mastra-ask `serve`), which is then used and no file is read. Exactly the text shown
//! is what an approval sends (`path`, `title`, `plan`, and stderr says so: `sending_line`); a
//! rejection sends the decision and the feedback only (the plan kind's route), so no file
//! is read for one.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

use crate::items::input::read_text_file;
use crate::output::sanitize;
use crate::remote::SuspendedCall;
use crate::tools::submit_plan::{read_plan, Plan};

/// Where a server's plans are read from (`review --plan-root`, `--plan-file`).
#[derive(Clone, Debug, Default)]
pub struct PlanFiles {
    pub root: Option<PathBuf>,
    pub file: Option<PathBuf>,
}

/// The plan of `item`: carried by its payload, else read (only when `approving`), or why
/// it could not be (`Ok(Err(why))`). A `--plan-file` that cannot be read is an error of its
/// own.
pub fn read(
    item: &SuspendedCall,
    source: &PlanFiles,
    approving: bool,
) -> Result<Result<Plan, String>> {
    let path = path_of(item);
    if let Some(text) = carried(item) {
        return Ok(Ok(Plan {
            path,
            title: text.0,
            plan: text.1,
        }));
    }
    if !approving {
        return Ok(Err("a rejection sends no plan, so none is read".into()));
    }
    if let Some(file) = &source.file {
        let text = read_text_file(file, "plan file")?;
        return Ok(Ok(Plan::from_text(&path, &text)));
    }
    let root = source.root.clone().unwrap_or_else(|| PathBuf::from("."));
    Ok(read_plan(Path::new(&root), &path)
        .map(|text| Plan::from_text(&path, &text))
        .map_err(|why| format!("{why} (read under {})", root.display())))
}

/// The title and text a suspend payload carries (a mastra-ask `serve` sends them; Mastra
/// sends the path only).
fn carried(item: &SuspendedCall) -> Option<(String, String)> {
    let payload = item.suspend_payload.as_ref()?;
    let plan = payload.get("plan")?.as_str()?.to_string();
    let title = payload
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Some((title.to_string(), plan))
}

/// What stderr says of an approval sent with its plan (its path and size), if the resume
/// data carries one.
pub fn sending_line(resume_data: &Value) -> Option<String> {
    let plan = resume_data.get("plan")?.as_str()?;
    let title = resume_data["title"].as_str().unwrap_or_default();
    let path = resume_data["path"].as_str().unwrap_or_default();
    Some(format!(
        "sending the approval with the plan {} ({} bytes: its title and text as shown)",
        sanitize::one_line(path),
        title.len() + plan.len()
    ))
}

/// The plan's path as the agent gave it.
fn path_of(item: &SuspendedCall) -> String {
    item.suspend_payload
        .as_ref()
        .and_then(|p| p.get("path"))
        .and_then(|p| p.as_str())
        .unwrap_or_default()
        .to_string()
}
