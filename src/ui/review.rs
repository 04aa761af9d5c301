//! A plan review at a terminal: the plan rendered (paged only when it is longer than the
//! screen), then a menu that starts on Approve. Feedback is typed inline; an editor opens only
//! from its own menu entry. A person who chose to reject is never one keystroke from
//! approving: when no feedback came, the menu comes back on the entry they chose. A plan read
//! in the pager can be read again from the menu. Returns the decision, or `None` when the
//! person quits; recording it is the caller's business.

use anyhow::Result;
use dialoguer::{Input, Select};

use super::terminal::Hold;
use super::{
    editor, keys_hint, markdown, note, pager, quit_on_interrupt_line, quit_on_interrupt_menu, term,
    theme, Keys,
};
use crate::output::sanitize;
use crate::tools::submit_plan::{Decision, Plan};

const APPROVE: usize = 0;
const REJECT_WITH_FEEDBACK: usize = 1;
const REJECT: usize = 2;
const REJECT_IN_EDITOR: usize = 3;
const READ_AGAIN: usize = 4;

const MENU: [&str; 5] = [
    "Approve",
    "Reject with feedback (typed here)",
    "Reject (the agent stops and waits for your next message)",
    "Reject with feedback written in an editor",
    "Read the plan again",
];

/// Shows `plan` and asks for a decision.
pub fn review(plan: &Plan) -> Result<Option<Decision>> {
    let hold = Hold::start();
    let _ = term().write_line("");
    let lines = markdown::render(
        &sanitize::one_line(&plan.title),
        &sanitize::one_line(&plan.path),
        &sanitize::block(&plan.plan),
        console::colors_enabled_stderr(),
    );
    let mut paged = pager::show(&hold, &lines);
    let theme = theme();
    let mut start_on = APPROVE;
    loop {
        if paged {
            paged_summary(plan, lines.len());
        }
        let entries = if paged {
            &MENU[..]
        } else {
            &MENU[..READ_AGAIN]
        };
        keys_hint(Keys::Menu);
        let choice = quit_on_interrupt_menu(
            Select::with_theme(&*theme)
                .with_prompt("Your decision on this plan")
                .items(entries)
                .default(start_on)
                .interact_on_opt(&term()),
            entries.len(),
        )?;
        let Some(choice) = choice else {
            return Ok(None);
        };
        let feedback = match choice {
            APPROVE => return Ok(Some(Decision::Approved { feedback: None })),
            REJECT => return Ok(Some(Decision::Rejected { feedback: None })),
            REJECT_WITH_FEEDBACK => {
                keys_hint(Keys::Feedback);
                let typed = Input::<String>::with_theme(&*theme)
                    .with_prompt("Feedback for the agent")
                    .allow_empty(true)
                    .interact_text_on(&term());
                match quit_on_interrupt_line(typed.map(Some))? {
                    None => return Ok(None),
                    Some(text) => Some(text.trim().to_string()).filter(|t| !t.is_empty()),
                }
            }
            REJECT_IN_EDITOR => match editor::write(&hold, plan) {
                Ok(Some(text)) => {
                    let _ = term().write_line(&format!(
                        "Feedback for the agent (from the editor):\n{}",
                        indent(&sanitize::block(&text))
                    ));
                    Some(text)
                }
                Ok(None) => None,
                Err(e) => {
                    note(&sanitize::one_line(&format!("{e:#}")));
                    None
                }
            },
            _ => {
                paged = pager::show(&hold, &lines);
                start_on = APPROVE;
                continue;
            }
        };
        match feedback {
            Some(text) => {
                return Ok(Some(Decision::Rejected {
                    feedback: Some(text),
                }))
            }
            None => {
                note("no feedback given; choose again");
                // Never back on Approve: an Enter out of habit must not approve.
                start_on = choice;
            }
        }
    }
}

/// After the pager: the plan's title again, and that its end may not have been seen.
fn paged_summary(plan: &Plan, lines: usize) {
    let title = if plan.title.is_empty() {
        "(untitled)".to_string()
    } else {
        sanitize::one_line(&plan.title)
    };
    note(&format!(
        "{title} ({}): {lines} lines, shown in the pager; if you left it early, choose \"Read the plan again\"",
        sanitize::one_line(&plan.path)
    ));
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
