//! Talking with a person at a terminal: the dialoguer prompts that answer a question, the
//! plan rendered for review with its menu, the approval of a tool call, and the picker
//! among pending items.
//!
//! `ui` only shows and asks. It never touches the store and never decides what happens next:
//! each function returns what the person chose, or `None` when they quit (Esc or `q` in a
//! menu, Ctrl-C anywhere), and `commands` acts on it. Everything model-provided is sanitized
//! here before it reaches the terminal. Prompts are drawn on stderr, in colour only when
//! console's stderr switch (`--color`, `NO_COLOR`) allows.

mod approval;
mod editor;
mod markdown;
mod pager;
mod prompt;
mod review;
mod terminal;

pub use approval::{approve, Chosen};
pub use prompt::{ask, pick};
pub use review::review;

use anyhow::Result;
use console::{style, Term};
use dialoguer::theme::{ColorfulTheme, SimpleTheme, Theme};

/// The prompt theme: colourful when colours are on for stderr, plain otherwise.
fn theme() -> Box<dyn Theme> {
    if console::colors_enabled_stderr() {
        Box::new(ColorfulTheme::default())
    } else {
        Box::new(SimpleTheme)
    }
}

/// The terminal the prompts are drawn on.
fn term() -> Term {
    Term::stderr()
}

/// A dialoguer outcome: an interrupted read (Ctrl-C) is a quit like Esc.
fn quit_on_interrupt<T>(result: dialoguer::Result<Option<T>>) -> Result<Option<T>> {
    match result {
        Ok(v) => Ok(v),
        Err(dialoguer::Error::IO(e)) if e.kind() == std::io::ErrorKind::Interrupted => Ok(None),
        Err(dialoguer::Error::IO(e)) => {
            Err(anyhow::Error::new(e).context("prompting at the terminal"))
        }
    }
}

/// `quit_on_interrupt` for a menu of `items` entries. An interrupted read (Ctrl-C, or the
/// prompt left because another process decided its item) leaves the menu drawn with the
/// cursor below it, so it is cleared here as Esc clears it: the prompt line and the entries
/// of its first page.
fn quit_on_interrupt_menu<T>(
    result: dialoguer::Result<Option<T>>,
    items: usize,
) -> Result<Option<T>> {
    let interrupted = matches!(&result,
        Err(dialoguer::Error::IO(e)) if e.kind() == std::io::ErrorKind::Interrupted);
    let outcome = quit_on_interrupt(result)?;
    if interrupted {
        // As dialoguer's paging: the terminal's rows less two, at least one.
        let page = (term().size().0 as usize).max(3) - 2;
        let _ = term().clear_last_lines(items.min(page) + 1);
        let _ = term().flush();
    }
    Ok(outcome)
}

/// `quit_on_interrupt` for a text prompt: after Ctrl-C the cursor is left on the typed line,
/// so end that line before anything else is printed.
fn quit_on_interrupt_line<T>(result: dialoguer::Result<Option<T>>) -> Result<Option<T>> {
    let outcome = quit_on_interrupt(result)?;
    if outcome.is_none() {
        let _ = term().write_line("");
    }
    Ok(outcome)
}

/// Which keys do what, for each kind of prompt: told once per process, before the first.
#[derive(Clone, Copy)]
enum Keys {
    Menu,
    Ticks,
    Text,
    Feedback,
}

impl Keys {
    fn hint(self) -> &'static str {
        match self {
            Keys::Menu => "arrows move, enter chooses, esc leaves it for later",
            Keys::Ticks => "arrows move, space ticks, enter confirms, esc leaves it for later",
            Keys::Text => "enter answers, ctrl-c leaves it for later",
            Keys::Feedback => "enter sends it, an empty line goes back to the menu",
        }
    }
}

/// A dim line telling which keys do what, the first time a kind of prompt appears.
fn keys_hint(keys: Keys) {
    use std::sync::atomic::{AtomicU8, Ordering};
    static TOLD: AtomicU8 = AtomicU8::new(0);
    let bit = 1 << keys as u8;
    if TOLD.fetch_or(bit, Ordering::Relaxed) & bit == 0 {
        let hint = style(format!("  ({})", keys.hint())).dim().for_stderr();
        let _ = term().write_line(&hint.to_string());
    }
}

/// The line left on the screen once a menu is answered: the prompt and what was chosen
/// (labels only, without their descriptions).
fn chosen_line(theme: &dyn Theme, prompt: &str, chosen: &[&str]) {
    let mut line = String::new();
    let _ = match chosen {
        [one] => theme.format_select_prompt_selection(&mut line, prompt, one),
        many => theme.format_multi_select_prompt_selection(&mut line, prompt, many),
    };
    let _ = term().write_line(&line);
}

/// A short message in the prompt's flow, e.g. why a choice was not taken.
fn note(text: &str) {
    let _ = term().write_line(&style(text).yellow().for_stderr().to_string());
}
