//! The one door every decision enters by (SPEC §5.4, §14): a frontend (a command, serve's
//! pages and API, and every channel after them) finds the item (`Advance::target`, or its
//! own lookup), translates its input into a neutral `items::Answer`, and names who decides
//! in the `Policy` it builds (`store::Who`: there is no default person). Here the item's
//! kind checks the answer (`items::Kind::check`), changed arguments are checked by the place
//! that would run them, and the place records it exactly once as that person; the
//! `Outcome` says who moves the run on. Frontends translate the `Outcome` (or the error)
//! into their output, and decide nothing themselves.

use anyhow::Result;

use super::record::Outcome;
use super::Advance;
use crate::domain::Via;
use crate::exit::Exit;
use crate::items::{self, Answer, Given, Item};

impl Advance<'_> {
    /// Checks `answer` (given through `via`) against `item`, records it exactly once as
    /// the policy's `who`, and says who moves the run on. Nothing is recorded when it does
    /// not fit.
    pub fn decide(&mut self, item: &Item, answer: Answer, via: Via) -> Result<Outcome> {
        let given = Given {
            via,
            by: &self.policy.who.by,
            plans: &*self.place,
            report: self.ctx.report,
        };
        let checked = items::of(item.kind()).check(item, answer, &given)?;
        if let Some(args) = checked.changed {
            self.place.approve_changed(item, args)?;
        }
        self.record_item(item, &checked.resolution)
    }

    /// `decide`, then advances the run as this process may (drives the leg it resumes,
    /// prompts on at a terminal, or says what became of the answer).
    pub fn answer(mut self, item: &Item, answer: Answer, via: Via) -> Result<Exit> {
        let outcome = self.decide(item, answer, via)?;
        self.carry_on(&outcome)
    }
}
