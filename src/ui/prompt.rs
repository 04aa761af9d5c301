//! The prompts that answer a question (free text, one option, several options) and the
//! picker among pending items.
//!
//! They show sanitized text only and return the answer in the question's own terms (the
//! original labels, not what was drawn), or `None` when the person quits. Checking the
//! answer against the question and storing it is the caller's business.

use anyhow::Result;
use console::{measure_text_width, truncate_str};
use dialoguer::theme::Theme;
use dialoguer::{Input, MultiSelect, Select};
use serde_json::{json, Value};

use super::terminal::Hold;
use super::{
    chosen_line, keys_hint, note, quit_on_interrupt_line, quit_on_interrupt_menu, term, theme, Keys,
};
use crate::output::sanitize;
use crate::tools::ask_user::{Mode, Question};

/// Asks `question`: a non-empty string (free text), one label, or a list of labels.
pub fn ask(question: &Question) -> Result<Option<Value>> {
    let _hold = Hold::start();
    let theme = theme();
    let text = sanitize::one_line(&question.text);
    let label = |i: usize| sanitize::one_line(&question.options[i].label);
    match question.mode {
        Mode::FreeText => {
            let prompt = fitting_prompt(&text, "Your answer");
            free_text(&*theme, &prompt).map(|a| a.map(Value::String))
        }
        Mode::Single => {
            let prompt = fitting_prompt(&text, "Your choice");
            let items = option_items(question);
            let Some(i) = one_of(&*theme, &prompt, &items, false)? else {
                return Ok(None);
            };
            chosen_line(&*theme, &prompt, &[&label(i)]);
            Ok(Some(json!(question.options[i].label)))
        }
        Mode::Multi => {
            let prompt = fitting_prompt(&text, "Your choices");
            let items = option_items(question);
            let Some(ix) = some_of(&*theme, &prompt, &items)? else {
                return Ok(None);
            };
            let shown: Vec<String> = ix.iter().map(|&i| label(i)).collect();
            chosen_line(
                &*theme,
                &prompt,
                &shown.iter().map(String::as_str).collect::<Vec<_>>(),
            );
            let labels: Vec<&str> = ix
                .iter()
                .map(|&i| question.options[i].label.as_str())
                .collect();
            Ok(Some(json!(labels)))
        }
    }
}

/// Lets the person choose one of `items` (e.g. pending items); the index chosen.
pub fn pick(prompt: &str, items: &[String]) -> Result<Option<usize>> {
    let _hold = Hold::start();
    let items: Vec<String> = items
        .iter()
        .map(|i| fit(&sanitize::one_line(i)).into_owned())
        .collect();
    one_of(&*theme(), &sanitize::one_line(prompt), &items, true)
}

fn free_text(theme: &dyn Theme, prompt: &str) -> Result<Option<String>> {
    keys_hint(Keys::Text);
    let answer = Input::<String>::with_theme(theme)
        .with_prompt(prompt)
        .validate_with(|s: &String| {
            if s.trim().is_empty() {
                Err("the answer is empty")
            } else {
                Ok(())
            }
        })
        .interact_text_on(&term());
    quit_on_interrupt_line(answer.map(Some))
}

/// One of `items`, the menu starting on the first; `report` leaves the chosen item on the
/// screen.
fn one_of(
    theme: &dyn Theme,
    prompt: &str,
    items: &[String],
    report: bool,
) -> Result<Option<usize>> {
    keys_hint(Keys::Menu);
    quit_on_interrupt_menu(
        Select::with_theme(theme)
            .with_prompt(prompt)
            .items(items)
            .default(0)
            .report(report)
            .interact_on_opt(&term()),
        items.len(),
    )
}

/// At least one of `items`: an empty choice is refused and asked again.
fn some_of(theme: &dyn Theme, prompt: &str, items: &[String]) -> Result<Option<Vec<usize>>> {
    loop {
        keys_hint(Keys::Ticks);
        let chosen = quit_on_interrupt_menu(
            MultiSelect::with_theme(theme)
                .with_prompt(prompt)
                .items(items)
                .report(false)
                .interact_on_opt(&term()),
            items.len(),
        )?;
        match chosen {
            Some(ix) if ix.is_empty() => {
                note("choose at least one option: space ticks it, enter confirms")
            }
            other => return Ok(other),
        }
    }
}

/// The question as the prompt when it fits on a line; otherwise it is printed above a short
/// prompt (a prompt wider than the terminal would be redrawn badly).
fn fitting_prompt(text: &str, short: &str) -> String {
    if measure_text_width(text) + 8 <= width() {
        return text.to_string();
    }
    let _ = term().write_line(text);
    short.to_string()
}

/// `label — description` for each option, cut to the terminal's width; when any is cut, the
/// full options are printed above the menu first.
fn option_items(question: &Question) -> Vec<String> {
    let full: Vec<String> = question
        .options
        .iter()
        .map(|c| match &c.description {
            Some(d) if !d.is_empty() => format!(
                "{} — {}",
                sanitize::one_line(&c.label),
                sanitize::one_line(d)
            ),
            _ => sanitize::one_line(&c.label),
        })
        .collect();
    if full.iter().any(|i| fit(i).len() != i.len()) {
        for item in &full {
            let _ = term().write_line(&format!("  - {item}"));
        }
    }
    full.iter().map(|i| fit(i).into_owned()).collect()
}

/// Cuts a menu line to the terminal's width (menus redraw badly when lines wrap).
fn fit(item: &str) -> std::borrow::Cow<'_, str> {
    truncate_str(item, width().saturating_sub(6).max(10), "…")
}

fn width() -> usize {
    term().size().1 as usize
}
