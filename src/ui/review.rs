//! A plan review at a terminal: the plan rendered (paged only when it is longer than the
//! screen), then a menu that starts on Approve. Feedback is typed inline; an editor opens only
//! from its own menu entry. Returns the decision, or `None` when the person quits; recording
//! it is the caller's business.

use anyhow::Result;
use dialoguer::{Input, Select};

use super::terminal::Session;
use super::{editor, keys_hint, markdown, note, pager, quit_on_interrupt, term, theme, Keys};
use crate::output::sanitize;
use crate::tools::submit_plan::{Decision, Plan};

const APPROVE: usize = 0;
const REJECT_WITH_FEEDBACK: usize = 1;
const REJECT: usize = 2;
const REJECT_IN_EDITOR: usize = 3;

const MENU: [&str; 4] = [
    "Approve",
    "Reject with feedback (typed here)",
    "Reject (the agent stops and waits for your next message)",
    "Reject with feedback written in an editor",
];

/// Shows `plan` and asks for a decision.
pub fn review(plan: &Plan) -> Result<Option<Decision>> {
    let session = Session::start();
    let _ = term().write_line("");
    let lines = markdown::render(
        &sanitize::one_line(&plan.title),
        &sanitize::one_line(&plan.path),
        &sanitize::block(&plan.plan),
        console::colors_enabled_stderr(),
    );
    pager::show(&session, &lines);
    let theme = theme();
    loop {
        keys_hint(Keys::Menu);
        let choice = quit_on_interrupt(
            Select::with_theme(&*theme)
                .with_prompt("Your decision on this plan")
                .items(MENU)
                .default(APPROVE)
                .interact_on_opt(&term()),
        )?;
        let feedback = match choice {
            None => return Ok(None),
            Some(APPROVE) => return Ok(Some(Decision::Approved { feedback: None })),
            Some(REJECT) => return Ok(Some(Decision::Rejected { feedback: None })),
            Some(REJECT_WITH_FEEDBACK) => {
                keys_hint(Keys::Feedback);
                let typed = Input::<String>::with_theme(&*theme)
                    .with_prompt("Feedback for the agent")
                    .allow_empty(true)
                    .interact_text_on(&term());
                match quit_on_interrupt(typed.map(Some))? {
                    None => return Ok(None),
                    Some(text) => Some(text.trim().to_string()).filter(|t| !t.is_empty()),
                }
            }
            Some(REJECT_IN_EDITOR) => match editor::write(&session) {
                Ok(text) => text,
                Err(e) => {
                    note(&sanitize::one_line(&format!("{e:#}")));
                    None
                }
            },
            Some(_) => None,
        };
        match feedback {
            Some(text) => {
                return Ok(Some(Decision::Rejected {
                    feedback: Some(text),
                }))
            }
            None => note("no feedback given; choose again"),
        }
    }
}
