//! Shows a block of lines on stderr, through a pager only when it is longer than the screen.
//!
//! The pager is `$PAGER` (run by `sh -c`, as git does), else `less`, with `LESS=FRX` unless
//! `LESS` is set. Its output goes to our stderr, the terminal the prompts use, even when
//! stdout is redirected. A pager that cannot start is no reason to hide the plan: the lines
//! are then printed directly. Never pages when the text fits.

use std::io::Write;
use std::os::fd::AsFd;
use std::process::{Command, Stdio};

use super::markdown;
use super::terminal::Hold;

/// Rows kept free below the text for the menu that follows it.
const MENU_ROWS: usize = 7;

/// Shows `lines`, paged when they do not fit on the screen with the menu below them;
/// whether they went through the pager.
pub fn show(hold: &Hold, lines: &[String]) -> bool {
    let term = super::term();
    let (rows, columns) = term.size();
    let text = lines.join("\n") + "\n";
    let fits = markdown::rows(lines, columns as usize) + MENU_ROWS <= rows as usize;
    if !fits && hold.with_child(|| page(&text)) {
        return true;
    }
    let _ = term.write_str(&text);
    false
}

/// Runs the pager on `text`; false when it could not be run.
fn page(text: &str) -> bool {
    let pager = std::env::var("PAGER")
        .ok()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| "less".to_string());
    let Ok(to_terminal) = std::io::stderr().as_fd().try_clone_to_owned() else {
        return false;
    };
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(&pager)
        .stdin(Stdio::piped())
        .stdout(Stdio::from(to_terminal));
    if std::env::var_os("LESS").is_none() {
        command.env("LESS", "FRX");
    }
    let Ok(mut child) = command.spawn() else {
        return false;
    };
    if let Some(mut input) = child.stdin.take() {
        // The pager may quit before reading everything: a broken pipe is expected.
        let _ = input.write_all(text.as_bytes());
    }
    // 126 and 127: the shell could not find or run the pager.
    matches!(child.wait().map(|s| s.code()), Ok(Some(code)) if code != 126 && code != 127)
}
