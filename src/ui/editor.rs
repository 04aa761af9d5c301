//! Opens `$VISUAL` or `$EDITOR` (else `vi`) on an empty file and returns what the person
//! wrote there: reviewers who want to write more than a line of feedback ask for it from the
//! review menu. The editor is run by `sh -c` (as git does, so `EDITOR="code --wait"` works)
//! with its output on the terminal. Only used when asked for; never decides anything.

use std::os::fd::AsFd;
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use super::terminal::Session;

/// The text written in the editor, trimmed; `None` when it is empty.
pub fn write(session: &Session) -> Result<Option<String>> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string());
    let file = tempfile::Builder::new()
        .prefix("mastra-ask-feedback-")
        .suffix(".md")
        .tempfile()
        .context("creating a file for the feedback")?;
    let to_terminal = std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .context("opening the terminal for the editor")?;
    let status = session.with_child(|| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("{editor} \"$@\""))
            .arg(&editor)
            .arg(file.path())
            .stdout(Stdio::from(to_terminal))
            .status()
    });
    let status = status.with_context(|| format!("starting the editor {editor}"))?;
    if !status.success() {
        anyhow::bail!("the editor {editor} failed ({status})");
    }
    let text = std::fs::read_to_string(file.path()).context("reading the feedback back")?;
    let text = text.trim();
    Ok((!text.is_empty()).then(|| text.to_string()))
}
