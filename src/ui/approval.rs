//! An approval at a terminal (SPEC §11): the tool and its arguments (escaped), then a menu
//! that starts on Decline, so an Enter pressed out of habit never runs a tool. Decline
//! with a reason takes the reason inline; an empty one brings the menu back on that entry.
//! Returns what the person chose, or `None` when they quit; recording it is the caller's
//! business.

use anyhow::Result;
use dialoguer::{Input, Select};
use serde_json::Value;

use super::terminal::Hold;
use super::{keys_hint, note, quit_on_interrupt_line, quit_on_interrupt_menu, term, theme, Keys};
use crate::output::sanitize;
use crate::tools::approval::Decision;

const DECLINE: usize = 0;
const DECLINE_WITH_REASON: usize = 1;
const APPROVE: usize = 2;
const LATER: usize = 3;

const MENU: [&str; 4] = [
    "Decline (the tool does not run)",
    "Decline with a reason for the agent (typed here)",
    "Approve: run it",
    "Leave it for later",
];

/// What a person chose for an approval.
#[derive(Debug, PartialEq)]
pub enum Chosen {
    Decided(Decision),
    /// Nothing recorded; the item keeps waiting and prompting stops here.
    Later,
}

/// Shows the call (`call_id` of `tool` with `args`) and asks for a decision.
pub fn approve(call_id: &str, tool: &str, args: &Value) -> Result<Option<Chosen>> {
    let _hold = Hold::start();
    let shown_args = serde_json::to_string_pretty(args).unwrap_or_else(|_| args.to_string());
    let _ = term().write_line("");
    let _ = term().write_line(&format!(
        "Tool call {} wants to run {} with:",
        sanitize::one_line(call_id),
        sanitize::one_line(tool)
    ));
    for line in sanitize::block(&shown_args).lines() {
        let _ = term().write_line(&format!("  {line}"));
    }
    let theme = theme();
    let mut start_on = DECLINE;
    loop {
        keys_hint(Keys::Menu);
        let choice = quit_on_interrupt_menu(
            Select::with_theme(&*theme)
                .with_prompt(format!("Run {}?", sanitize::one_line(tool)))
                .items(MENU)
                .default(start_on)
                .interact_on_opt(&term()),
            MENU.len(),
        )?;
        let Some(choice) = choice else {
            return Ok(None);
        };
        match choice {
            DECLINE => return Ok(Some(Chosen::Decided(Decision::decline(None)))),
            APPROVE => return Ok(Some(Chosen::Decided(Decision::approve()))),
            LATER => return Ok(Some(Chosen::Later)),
            _ => {}
        }
        debug_assert_eq!(choice, DECLINE_WITH_REASON);
        keys_hint(Keys::Feedback);
        let typed = Input::<String>::with_theme(&*theme)
            .with_prompt("Reason for the agent")
            .allow_empty(true)
            .interact_text_on(&term());
        match quit_on_interrupt_line(typed.map(Some))? {
            None => return Ok(None),
            Some(text) if !text.trim().is_empty() => {
                let reason = Some(text.trim().to_string());
                return Ok(Some(Chosen::Decided(Decision::decline(reason))));
            }
            Some(_) => {
                note("no reason given; choose again");
                start_on = DECLINE_WITH_REASON;
            }
        }
    }
}
