//! An `other` item: a Mastra server's tool that suspended with a payload of its own shape
//! (SPEC §12). It is answered with `answer --json VALUE`, the resume data sent as given; no
//! prompt can answer it. This store never holds one.

use anyhow::Result;

use super::answer::{unfit, Answer, Checked, Given};
use super::form::{approval_decision, Form, Headline};
use super::question::{answered, checked};
use super::view::{json_of, ItemView};
use super::{Asked, Item, Kind, Prompted, Verb};
use crate::output::sanitize;

pub struct OtherItem;

impl Kind for OtherItem {
    fn article(&self) -> &'static str {
        "an `other`"
    }

    fn verbs(&self) -> &'static [&'static str] {
        &["answer"]
    }

    fn picker_title(&self) -> &'static str {
        "Which item?"
    }

    fn nothing_pending(&self) -> &'static str {
        "nothing is waiting for an answer"
    }

    fn describe(&self, item: &ItemView, out: &mut String) {
        out.push_str("other: ");
        sanitize::push_one_line(out, item.tool_name);
        out.push(' ');
        sanitize::push_one_line(out, &json_of(item.payload));
    }

    fn commands(&self, _item: &ItemView) -> Vec<Verb> {
        vec![Verb::new("answer", &["--json <value>"], None)]
    }

    fn prompt(&self, _asked: &Asked) -> Result<Prompted> {
        Ok(Prompted::Unanswerable)
    }

    fn headline(&self, item: &ItemView) -> Headline {
        Headline::call(item)
    }

    /// Decided like an approval on a page (its JSON is for `answer --json`).
    fn form(&self, _item: &Item) -> Form {
        let (reason, buttons) = approval_decision();
        Form {
            fields: vec![reason],
            buttons,
        }
    }

    /// JSON of the tool's own shape, sent as given (only as JSON).
    fn check(&self, item: &Item, answer: Answer, given: &Given) -> Result<Checked> {
        let Answer::Data(data) = answer else {
            return Err(unfit(item, &answer));
        };
        let data = checked(item, data, given.via)?;
        Ok(Checked::plain(answered(data, given.by, given.via)))
    }
}
