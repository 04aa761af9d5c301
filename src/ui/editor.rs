//! Opens `$VISUAL` or `$EDITOR` (else `vi`) for feedback on a plan and returns what the
//! person wrote there: reviewers who want to write more than a line ask for it from the review
//! menu. The file starts empty above a scissors line, with the plan below it as a reminder;
//! everything from the scissors line on is dropped on save (as git's commit template does).
//! The editor is run by `sh -c` (as git does, so `EDITOR="code --wait"` works) with its
//! output on the terminal. Only used when asked for; never decides anything.

use std::os::fd::AsFd;
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use super::terminal::Hold;
use crate::output::sanitize;
use crate::tools::submit_plan::Plan;

/// Everything from this line on is the reminder, not feedback.
const SCISSORS: &str = "# ------------------------ >8 ------------------------";

/// What the file holds before the person writes: room for feedback, then the plan.
fn template(plan: &Plan) -> String {
    let mut text = format!(
        "\n{SCISSORS}\n# Write your feedback for the agent above this line; everything from it down is\n\
         # dropped. An empty feedback goes back to the menu. The plan under review:\n#\n"
    );
    let body = format!("{}\n\n{}", plan.title, plan.plan);
    for line in sanitize::block(&body).lines() {
        text.push_str(&format!("#   {line}\n"));
    }
    text
}

/// The feedback in what the editor saved: the text above the scissors line, trimmed.
fn feedback(saved: &str) -> Option<String> {
    let above = saved
        .lines()
        .take_while(|l| l.trim_end() != SCISSORS)
        .collect::<Vec<_>>()
        .join("\n");
    let text = above.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// The feedback written in the editor; `None` when it is empty.
pub fn write(hold: &Hold, plan: &Plan) -> Result<Option<String>> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string());
    let file = tempfile::Builder::new()
        .prefix("mastra-ask-feedback-")
        .suffix(".md")
        .tempfile()
        .context("creating a file for the feedback")?;
    std::fs::write(file.path(), template(plan)).context("writing the feedback template")?;
    let to_terminal = std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .context("opening the terminal for the editor")?;
    let status = hold.with_child(|| {
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
    Ok(feedback(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_is_dropped_from_the_feedback() {
        let plan = Plan::from_text("PLAN.md", "# Release\n\n1. Tag\n# not a heading here\n");
        let untouched = template(&plan);
        assert!(untouched.contains("#   Release"), "{untouched}");
        assert_eq!(feedback(&untouched), None);
        let written = format!("# Add a rollback\n\nand tests\n{untouched}");
        assert_eq!(
            feedback(&written).as_deref(),
            Some("# Add a rollback\n\nand tests")
        );
    }
}
