//! A question (`ask_user`): answered with `answer RUN ANSWER`, `--multi LABEL...` or
//! `--json VALUE`, checked against its options (SPEC §5.4), asked at a terminal with a text
//! prompt, a select or a multi-select.

use anyhow::Result;
use serde_json::{json, Value};

use super::view::ItemView;
use super::{Asked, Item, Kind, Prompted, Verb};
use crate::cli::AnswerArgs;
use crate::domain::{ItemKind, Resolution, Via};
use crate::error::{fail, Error};
use crate::items::input::{parse_json_flag, read_stdin};
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

/// The answer given on the command line (ANSWER, `-` for stdin, `--multi`, `--json`) and
/// how; `None` when none was.
pub fn given(args: &AnswerArgs) -> Result<Option<(Value, Via)>> {
    Ok(Some(match (&args.answer, &args.multi, &args.json) {
        (Some(a), _, _) if a == "-" => (json!(read_stdin("the answer")?), Via::Flag),
        (Some(a), _, _) => (json!(a), Via::Flag),
        (_, Some(labels), _) => (json!(labels), Via::Flag),
        (_, _, Some(j)) => (parse_json_flag(j)?, Via::Json),
        _ => match &args.other {
            Some(text) => (json!({ "other": text }), Via::Flag),
            None => return Ok(None),
        },
    }))
}

/// The resume data of an answer to `item` (SPEC §5.4): for a question, checked against its
/// options, and `--multi` only for a multi-select one; for a server's `other` item, JSON of
/// the tool's own shape, sent as given.
pub fn checked(item: &Item, given: Value, via: Via, multi: bool) -> Result<Value> {
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
    if multi && question.mode != Mode::Multi {
        return fail(Error::usage(format!(
            "--multi is for multi-select questions; tool call {call} takes one answer: pass it as ANSWER"
        )));
    }
    Ok(question.check_answer(&given).map_err(Error::invalid)?)
}

/// How `answer` is used, for the hint of a usage error.
pub const USAGE: &str = "mastra-ask answer RUN ANSWER (free text or a label; - reads stdin), or RUN --multi LABEL..., or RUN --json VALUE";
