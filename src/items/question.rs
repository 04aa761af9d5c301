//! A question (`ask_user`): answered with text, a label or labels (`answer RUN ANSWER`,
//! `--multi LABEL...`, `--json VALUE`, a form), checked against its options (SPEC §5.4),
//! asked at a terminal with a text prompt, a select or a multi-select.

use anyhow::Result;
use serde_json::Value;

use super::answer::{unfit, Answer, Checked, Given};
use super::form::{Button, Choice, Field, Form, Headline};
use super::view::ItemView;
use super::{Asked, Item, Kind, Prompted, Verb};
use crate::domain::{ItemKind, Resolution, Via};
use crate::error::{fail, Error};
use crate::output::{format, sanitize};
use crate::tools::ask_user::{self, Mode, Question};
use crate::ui;

pub struct QuestionItem;

impl Kind for QuestionItem {
    fn article(&self) -> &'static str {
        "a question"
    }

    fn verbs(&self) -> &'static [&'static str] {
        &["answer"]
    }

    fn picker_title(&self) -> &'static str {
        "Which question?"
    }

    fn nothing_pending(&self) -> &'static str {
        "no question is waiting for an answer"
    }

    fn describe(&self, item: &ItemView, out: &mut String) {
        let Some(q) = &item.question else {
            return out.push_str("question: (unreadable)");
        };
        out.push_str("question: ");
        sanitize::push_one_line(out, q.text);
        if !q.options.is_empty() {
            out.push_str(" [");
            for (i, (label, _)) in q.options.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                sanitize::push_one_line(out, label);
            }
            out.push(']');
            if q.mode == Mode::Multi {
                out.push_str(" (choose one or more)");
            }
        }
    }

    fn commands(&self, item: &ItemView) -> Vec<Verb> {
        let mode = item.question.as_ref().map_or(Mode::FreeText, |q| q.mode);
        let mut verbs = vec![match mode {
            Mode::FreeText => Verb::new("answer", &[], Some("<answer>")),
            Mode::Single => Verb::new("answer", &[], Some("<label>")),
            Mode::Multi => Verb::new("answer", &["--multi <label>..."], None),
        }];
        if item.question.as_ref().is_some_and(|q| q.other) {
            verbs.push(Verb::new("answer", &["--other <text>"], None));
        }
        verbs
    }

    fn prompt(&self, asked: &Asked) -> Result<Prompted> {
        Ok(match ask(&question_of(asked.item)?)? {
            Some(data) => Prompted::Resolved(answered(data, asked.by, Via::Prompt)),
            None => Prompted::Left,
        })
    }

    fn check(&self, item: &Item, answer: Answer, given: &Given) -> Result<Checked> {
        let Answer::Data(data) = answer else {
            return Err(unfit(item, &answer));
        };
        let data = checked(item, data, given.via)?;
        Ok(Checked::plain(answered(data, given.by, given.via)))
    }

    fn headline(&self, item: &ItemView) -> Headline {
        match &item.question {
            Some(q) => Headline::words(q.text),
            None => Headline::words("(unreadable question)"),
        }
    }

    fn form(&self, item: &Item) -> Form {
        let Ok(q) = question_of(item) else {
            return Form {
                fields: Vec::new(),
                buttons: Vec::new(),
            };
        };
        let field = match q.mode {
            Mode::FreeText => Field::Text {
                name: "answer",
                label: "Your answer",
                required: true,
                value: None,
                code: false,
            },
            Mode::Single | Mode::Multi => Field::Pick {
                name: if q.mode == Mode::Multi {
                    "label"
                } else {
                    "answer"
                },
                multi: q.mode == Mode::Multi,
                required: !q.other,
                options: q
                    .options
                    .iter()
                    .map(|o| Choice {
                        label: o.label.clone(),
                        description: o.description.clone(),
                    })
                    .collect(),
            },
        };
        let mut fields = vec![field];
        if q.other {
            fields.push(Field::note("other", "Other: your own answer instead"));
        }
        Form {
            fields,
            buttons: vec![Button::send("Send answer")],
        }
    }

    fn outcome(&self, answer: &Value) -> Vec<String> {
        match answer {
            Value::Array(labels) => labels
                .iter()
                .map(|l| l.as_str().unwrap_or_default().to_string())
                .collect(),
            Value::Object(o) => vec![o["other"].as_str().unwrap_or_default().to_string()],
            other => vec![other.as_str().unwrap_or_default().to_string()],
        }
    }
}

/// The question a pending question item asks, in this store or on a server.
pub fn question_of(item: &Item) -> Result<Question> {
    item.payload()
        .and_then(Question::from_payload)
        .ok_or_else(|| super::unreadable(item.call_id(), "question"))
}

/// Asks a question at the terminal; the answer checked against it (SPEC §5.4) as resume
/// data, or `None` when the person left.
pub fn ask(question: &Question) -> Result<Option<Value>> {
    match ui::ask(question)? {
        Some(answer) => Ok(Some(
            question.check_answer(&answer).map_err(Error::invalid)?,
        )),
        None => Ok(None),
    }
}

/// The resolution of a checked answer: its resume data and, for the model, its result.
pub fn answered(resume_data: Value, by: &str, via: Via) -> Resolution {
    Resolution {
        result: Some(ask_user::result(&resume_data)),
        resume_data,
        by: by.to_string(),
        via,
    }
}

/// The resume data of an answer to `item` (SPEC §5.4): for a question, checked against its
/// options; for a server's `other` item, JSON of the tool's own shape, sent as given.
pub fn checked(item: &Item, given: Value, via: Via) -> Result<Value> {
    let call = format::shell_quote(item.call_id());
    if item.kind() == ItemKind::Other {
        if via != Via::Json {
            return fail(Error::usage(format!(
                "tool call {call} is an `other` item: its resume data is JSON of the tool's own shape"
            ))
            .with_hint("pass it with --json VALUE"));
        }
        return Ok(given);
    }
    let question = question_of(item)?;
    Ok(question.check_answer(&given).map_err(Error::invalid)?)
}
