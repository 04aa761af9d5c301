//! The plan a reviewer decides on, for a server's `submit_plan` item: Mastra suspends with
//! the path only, so the file is read here — under `--plan-root` (default: the current
//! directory) with the rules of SPEC §9, or from `--plan-file` — and exactly the text read
//! is what is shown and sent (`path`, `title`, `plan`).

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::items::input::read_text_file;
use crate::remote::Item;
use crate::tools::submit_plan::{read_plan, Plan};

/// Where a server's plans are read from.
#[derive(Clone, Debug, Default)]
pub struct PlanSource {
    pub root: Option<PathBuf>,
    pub file: Option<PathBuf>,
}

/// The plan of `item`: read, or why it could not be (`Ok(Err(why))`). A `--plan-file` that
/// cannot be read is an error of its own.
pub fn read(item: &Item, source: &PlanSource) -> Result<Result<Plan, String>> {
    let path = path_of(item);
    if let Some(file) = &source.file {
        let text = read_text_file(file, "plan file")?;
        return Ok(Ok(Plan::from_text(&path, &text)));
    }
    let root = source.root.clone().unwrap_or_else(|| PathBuf::from("."));
    Ok(read_plan(Path::new(&root), &path)
        .map(|text| Plan::from_text(&path, &text))
        .map_err(|why| format!("{why} (read under {})", root.display())))
}

/// The plan's path as the agent gave it.
pub fn path_of(item: &Item) -> String {
    item.suspend_payload
        .as_ref()
        .and_then(|p| p.get("path"))
        .and_then(|p| p.as_str())
        .unwrap_or_default()
        .to_string()
}
