//! The plan of an `ExitPlanMode` call (SPEC §15): Claude Code passes the hook an empty input
//! and keeps the plan in a Markdown file under its config directory's `plans/`. The plan is
//! the newest such file this session's transcript names; the transcript is found where
//! Claude Code keeps it (`CONFIG_DIR/projects/*/SESSION_ID.jsonl`), never at a path taken
//! from the input as given, and every file is read as a regular file with a cap.

use std::path::{Path, PathBuf};

use super::wire::Input;
use crate::limits::{read_regular_file, MAX_PLAN_FILE};

/// The most of a transcript read when looking for the plan's file.
const MAX_TRANSCRIPT: u64 = 64 << 20;

/// Claude Code's config directory: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
fn config_dir() -> Option<PathBuf> {
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".claude")),
    }
}

/// The session's transcript, when `input` names it where Claude Code keeps it.
fn transcript(input: &Input, config: &Path) -> Option<PathBuf> {
    let given = Path::new(input.transcript_path.as_deref()?);
    let project = given.parent()?.file_name()?;
    let expected = config
        .join("projects")
        .join(project)
        .join(format!("{}.jsonl", input.session_id));
    (given == expected && !project.to_string_lossy().starts_with('.')).then_some(expected)
}

/// The plan's path and text: the newest regular file of `CONFIG_DIR/plans/*.md` the
/// transcript names; `None` when there is none.
pub fn find(input: &Input) -> Option<(String, String)> {
    let config = config_dir()?;
    let transcript = transcript(input, &config)?;
    let text = read_regular_file(&transcript, MAX_TRANSCRIPT).ok()?;
    let text = String::from_utf8_lossy(&text);
    let plans = config.join("plans");
    let prefix = format!("{}/", plans.display());
    let mut newest: Option<(std::time::SystemTime, PathBuf)> = None;
    for (at, _) in text.match_indices(&prefix) {
        let rest = &text[at + prefix.len()..];
        let end = rest.find(".md").map(|e| e + 3);
        let Some(name) = end.map(|e| &rest[..e]) else {
            continue;
        };
        if name.contains(['/', '\\', '"']) || name.starts_with('.') {
            continue;
        }
        let path = plans.join(name);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let modified = meta.modified().ok()?;
        if meta.is_file() && newest.as_ref().is_none_or(|(t, _)| modified > *t) {
            newest = Some((modified, path));
        }
    }
    let (_, path) = newest?;
    let plan = read_regular_file(&path, MAX_PLAN_FILE).ok()?;
    Some((
        path.display().to_string(),
        String::from_utf8_lossy(&plan).into_owned(),
    ))
}
