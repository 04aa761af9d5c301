//! `ask_user`: the model asks a person a question, free text or a choice among options.
//!
//! Validates the call, resolves the selection mode, builds the suspend payload, checks a
//! person's answer against the question, and words the result. Never prompts.

use serde_json::{json, Value};

use super::schema::{self, Problems};
use super::ToolSpec;
use crate::domain::{ItemKind, ToolOutcome, ASK_USER};
use crate::limits::{MAX_DESCRIPTION_CHARS, MAX_LABEL_CHARS, MAX_OPTIONS, MAX_QUESTION_CHARS};

/// How a question is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    FreeText,
    Single,
    Multi,
}

impl Mode {
    /// The `selectionMode` value (`None` for free text).
    pub fn wire(self) -> Option<&'static str> {
        match self {
            Mode::FreeText => None,
            Mode::Single => Some("single_select"),
            Mode::Multi => Some("multi_select"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub label: String,
    pub description: Option<String>,
}

/// A validated question, as carried by a suspend payload.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    pub text: String,
    pub options: Vec<Choice>,
    pub mode: Mode,
    /// Free text is taken besides the options (`answer --other TEXT`): a Claude Code
    /// question, whose person may always answer "Other" (SPEC §15).
    pub other: bool,
}

/// A payload's question as `Question::from_payload` reads it, borrowed from the payload:
/// what a listing says of each item, without copying it out.
pub struct QuestionRef<'a> {
    pub text: &'a str,
    /// Each option's label and description.
    pub options: Vec<(&'a str, Option<&'a str>)>,
    pub mode: Mode,
    /// Free text is taken besides the options.
    pub other: bool,
}

impl<'a> QuestionRef<'a> {
    pub fn of(payload: &'a Value) -> Option<QuestionRef<'a>> {
        let text = payload.get("question")?.as_str()?;
        let options = match payload.get("options") {
            Some(Value::Array(list)) => list
                .iter()
                .map(|o| {
                    let label = o.get("label")?.as_str()?;
                    Some((label, o.get("description").and_then(Value::as_str)))
                })
                .collect::<Option<Vec<_>>>()?,
            _ => Vec::new(),
        };
        let mode = match payload.get("selectionMode").and_then(Value::as_str) {
            Some("multi_select") => Mode::Multi,
            Some(_) => Mode::Single,
            None if options.is_empty() => Mode::FreeText,
            None => Mode::Single,
        };
        Some(QuestionRef {
            text,
            options,
            mode,
            other: payload.get("other") == Some(&Value::Bool(true)),
        })
    }
}

impl Question {
    pub fn labels(&self) -> Vec<&str> {
        self.options.iter().map(|c| c.label.as_str()).collect()
    }

    /// The suspend payload: `{question, options?, selectionMode?}` with the resolved mode.
    pub fn payload(&self) -> Value {
        let mut p = json!({"question": self.text});
        if let Some(mode) = self.mode.wire() {
            let options: Vec<Value> = self
                .options
                .iter()
                .map(|c| match &c.description {
                    Some(d) => json!({"label": c.label, "description": d}),
                    None => json!({"label": c.label}),
                })
                .collect();
            p["options"] = Value::Array(options);
            p["selectionMode"] = json!(mode);
        }
        if self.other {
            p["other"] = json!(true);
        }
        p
    }

    /// Reads back a payload this module built.
    pub fn from_payload(payload: &Value) -> Option<Question> {
        let q = QuestionRef::of(payload)?;
        Some(Question {
            text: q.text.to_string(),
            options: q
                .options
                .iter()
                .map(|&(label, description)| Choice {
                    label: label.to_string(),
                    description: description.map(str::to_string),
                })
                .collect(),
            mode: q.mode,
            other: q.other,
        })
    }

    /// The JSON Schema of the resume data.
    pub fn resume_schema(&self) -> Value {
        let labels = self.labels();
        match self.mode {
            Mode::FreeText => json!({"type": "string", "minLength": 1}),
            Mode::Single => json!({"type": "string", "enum": labels}),
            Mode::Multi => json!({
                "type": "array",
                "items": {"type": "string", "enum": labels},
                "minItems": 1,
                "uniqueItems": true
            }),
        }
    }

    /// Checks a person's answer (a string, or a list of labels) and returns the resume
    /// data; the error names what would be accepted. A label given in another case is
    /// taken when exactly one label matches it so (§5.4), and the label is stored.
    pub fn check_answer(&self, answer: &Value) -> Result<Value, String> {
        let labels = self.labels();
        let choices = || format!("choose one of: {}", quote_all(&labels));
        if let Some(text) = answer.get("other") {
            return match text.as_str().filter(|t| !t.trim().is_empty()) {
                Some(t) if self.other && answer.as_object().is_some_and(|o| o.len() == 1) => {
                    Ok(json!({ "other": t }))
                }
                _ if self.other => Err("the other answer is empty".into()),
                _ => Err(format!(
                    "this question takes no other answer; {}",
                    choices()
                )),
            };
        }
        match (self.mode, answer) {
            (Mode::FreeText, Value::String(s)) if s.trim().is_empty() => {
                Err("the answer is empty; this question takes free text".into())
            }
            (Mode::FreeText, Value::String(s)) => Ok(json!(s)),
            (Mode::FreeText, _) => Err("this question takes free text (a string)".into()),
            (Mode::Single, Value::String(s)) => match find_label(&labels, s) {
                Ok(label) => Ok(json!(label)),
                Err(why) => Err(format!("{why}; {}", choices())),
            },
            (Mode::Single, _) => Err(format!(
                "this question takes a single option (a string); {}",
                choices()
            )),
            (Mode::Multi, Value::String(s)) => self.check_answer(&json!([s])),
            (Mode::Multi, Value::Array(items)) => {
                if items.is_empty() {
                    return Err(format!(
                        "no option chosen; choose one or more of: {}",
                        quote_all(&labels)
                    ));
                }
                let mut chosen: Vec<&str> = Vec::new();
                for item in items {
                    let Some(s) = item.as_str() else {
                        return Err("a multi-select answer is a list of option labels".into());
                    };
                    let label = find_label(&labels, s).map_err(|why| {
                        format!("{why}; choose one or more of: {}", quote_all(&labels))
                    })?;
                    if chosen.contains(&label) {
                        return Err(format!("{} is chosen more than once", quote(label)));
                    }
                    chosen.push(label);
                }
                Ok(json!(chosen))
            }
            (Mode::Multi, _) => Err(format!(
                "this question takes a list of option labels; choose one or more of: {}",
                quote_all(&labels)
            )),
        }
    }
}

/// The label an answer names: the label itself, or the only label equal to it when case
/// is ignored. Otherwise why not, with a suggestion when one label is close.
fn find_label<'a>(labels: &[&'a str], given: &str) -> Result<&'a str, String> {
    if let Some(label) = labels.iter().find(|l| **l == given) {
        return Ok(label);
    }
    let folded = given.to_lowercase();
    let same: Vec<&str> = labels
        .iter()
        .copied()
        .filter(|l| l.to_lowercase() == folded)
        .collect();
    match same[..] {
        [label] => Ok(label),
        [] => Err(match suggestion(labels, &folded) {
            Some(close) => format!(
                "{} is not one of the options (did you mean {}?)",
                quote(given),
                quote(close)
            ),
            None => format!("{} is not one of the options", quote(given)),
        }),
        _ => Err(format!(
            "{} matches {} when case is ignored; give one as written",
            quote(given),
            same.iter()
                .map(|l| quote(l))
                .collect::<Vec<_>>()
                .join(" and ")
        )),
    }
}

/// The one label closest to a (lowercased) answer that matches none: the only label it
/// begins, else the only label one or two typos away (a transposition counts as one),
/// when the typos are fewer than half the label's length.
fn suggestion<'a>(labels: &[&'a str], folded: &str) -> Option<&'a str> {
    let only = |found: Vec<&'a str>| match found[..] {
        [one] => Some(one),
        _ => None,
    };
    if !folded.trim().is_empty() {
        let begun: Vec<&str> = labels
            .iter()
            .copied()
            .filter(|l| l.to_lowercase().starts_with(folded))
            .collect();
        if !begun.is_empty() {
            return only(begun);
        }
    }
    let distance = |l: &str| strsim::osa_distance(&l.to_lowercase(), folded);
    let best = labels.iter().map(|l| distance(l)).min()?;
    let near: Vec<&str> = labels
        .iter()
        .copied()
        .filter(|l| distance(l) == best && best <= 2 && best * 2 < l.chars().count())
        .collect();
    only(near)
}

fn quote(s: &str) -> String {
    format!("\"{s}\"")
}

fn quote_all(labels: &[&str]) -> String {
    labels
        .iter()
        .map(|l| quote(l))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: ASK_USER.into(),
        description: "Ask the user a question and wait for the answer. Use it when the request \
            is ambiguous or a decision belongs to the user. Give `options` to offer choices \
            (`selectionMode`: `single_select` for one, `multi_select` for several); without \
            options the user answers in free text."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "question": {"type": "string", "minLength": 1, "description": "The question to ask."},
                "options": {
                    "type": "array",
                    "description": "Choices to offer.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "label": {"type": "string", "minLength": 1},
                            "description": {"type": "string"}
                        },
                        "required": ["label"],
                        "additionalProperties": false
                    }
                },
                "selectionMode": {"type": "string", "enum": ["single_select", "multi_select"]}
            },
            "required": ["question"],
            "additionalProperties": false
        }),
    }
}

/// Validates a call and resolves the selection mode: the question, or the result object
/// the model gets instead.
pub fn question(args: &Value) -> Result<Question, Value> {
    let mut p = Problems::default();
    let fields = ["question", "options", "selectionMode"];
    let Some(map) = schema::object(args, "root", &fields, &mut p) else {
        return Err(p.into_result(ASK_USER, args));
    };
    let question = schema::required(map, "question", &mut p)
        .and_then(|v| schema::string(v, "question", true, MAX_QUESTION_CHARS, &mut p));
    let options = schema::field(map, "options").and_then(|v| parse_options(v, &mut p));
    let mode = schema::field(map, "selectionMode").and_then(|v| match v.as_str() {
        Some("single_select") => Some(Mode::Single),
        Some("multi_select") => Some(Mode::Multi),
        _ => {
            p.add(
                "selectionMode",
                format!(
                    "Invalid enum value. Expected 'single_select' | 'multi_select', received {}",
                    match v {
                        Value::String(s) => format!("'{s}'"),
                        other => schema::type_name(other).to_string(),
                    }
                ),
            );
            None
        }
    });
    let text = match question {
        Some(q) if p.is_empty() => q.to_string(),
        _ => return Err(p.into_result(ASK_USER, args)),
    };
    let options = options.unwrap_or_default();
    if mode.is_some() && options.is_empty() {
        return Err(json!({
            "content": "Failed to ask user: selectionMode requires options.",
            "isError": true
        }));
    }
    let mode = match (options.is_empty(), mode) {
        (true, _) => Mode::FreeText,
        (false, Some(m)) => m,
        (false, None) => Mode::Single,
    };
    Ok(Question {
        text,
        options,
        mode,
        other: false,
    })
}

fn parse_options(v: &Value, p: &mut Problems) -> Option<Vec<Choice>> {
    let Value::Array(items) = v else {
        p.add(
            "options",
            format!("Expected array, received {}", schema::type_name(v)),
        );
        return None;
    };
    if items.len() > MAX_OPTIONS {
        p.add(
            "options",
            format!("Array must contain at most {MAX_OPTIONS} element(s)"),
        );
        return None;
    }
    let mut choices: Vec<Choice> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("options.{i}");
        let Some(map) = schema::object(item, &at, &["label", "description"], p) else {
            continue;
        };
        let label_at = format!("{at}.label");
        let label = match schema::field(map, "label") {
            None => {
                p.add(&label_at, "Required");
                None
            }
            Some(l) => schema::string(l, &label_at, true, MAX_LABEL_CHARS, p),
        };
        let description = schema::field(map, "description").and_then(|d| {
            schema::string(
                d,
                &format!("{at}.description"),
                false,
                MAX_DESCRIPTION_CHARS,
                p,
            )
        });
        if let Some(label) = label {
            if choices.iter().any(|c| c.label == label) {
                p.add(&label_at, format!("Duplicate label '{label}'"));
            }
            choices.push(Choice {
                label: label.to_string(),
                description: description.map(str::to_string),
            });
        }
    }
    Some(choices)
}

pub fn evaluate(args: &Value) -> ToolOutcome {
    match question(args) {
        Ok(q) => ToolOutcome::Suspend {
            kind: ItemKind::Question,
            payload: q.payload(),
            resume_schema: q.resume_schema(),
        },
        Err(result) => ToolOutcome::Result(result),
    }
}

/// The result object after the person answered (`resume` is checked resume data).
pub fn result(resume: &Value) -> Value {
    let answer = match resume {
        Value::Object(o) if o.contains_key("other") => {
            o["other"].as_str().unwrap_or_default().to_string()
        }
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(", "),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    json!({"content": format!("User answered: {answer}"), "isError": false})
}

/// Outside a run: the question as readable text.
pub fn fallback(args: &Value) -> Result<String, Value> {
    let q = question(args)?;
    let mut text = format!("[Question for user]: {}", q.text);
    if let Some(mode) = q.mode.wire() {
        text.push_str(&format!("\nOptions: {}", q.labels().join(", ")));
        text.push_str(&format!("\nSelection mode: {mode}"));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suspend_payload(args: Value) -> Value {
        match evaluate(&args) {
            ToolOutcome::Suspend { payload, .. } => payload,
            other => panic!("expected a suspension, got {other:?}"),
        }
    }

    fn immediate(args: Value) -> Value {
        match evaluate(&args) {
            ToolOutcome::Result(r) => r,
            other => panic!("expected a result, got {other:?}"),
        }
    }

    #[test]
    fn empty_question_gives_the_validation_object() {
        let r = immediate(json!({"question": ""}));
        assert_eq!(
            r,
            json!({
                "error": true,
                "message": "Tool input validation failed for ask_user. Please fix the following errors and try again:\n- question: String must contain at least 1 non-blank character\n\nProvided arguments: {\n  \"question\": \"\"\n}",
                "validationErrors": {"question": ["String must contain at least 1 non-blank character"]}
            })
        );
    }

    #[test]
    fn every_problem_gets_its_own_line() {
        let r = immediate(json!({"options": [{"label": 3}], "selectionMode": "all", "x": 1}));
        let message = r["message"].as_str().unwrap();
        let lines: Vec<&str> = message.lines().filter(|l| l.starts_with("- ")).collect();
        assert_eq!(
            lines,
            [
                "- root: Unrecognized key(s) in object: 'x'",
                "- question: Required",
                "- options.0.label: Expected string, received number",
                "- selectionMode: Invalid enum value. Expected 'single_select' | 'multi_select', received 'all'",
            ]
        );
        assert_eq!(r["validationErrors"]["question"], json!(["Required"]));
    }

    #[test]
    fn arguments_that_are_not_an_object() {
        let r = immediate(json!("hello"));
        assert_eq!(
            r["validationErrors"],
            json!({"root": ["Expected object, received string"]})
        );
    }

    #[test]
    fn selection_mode_without_options() {
        let expected = json!({"content": "Failed to ask user: selectionMode requires options.", "isError": true});
        assert_eq!(
            immediate(json!({"question": "Q?", "selectionMode": "multi_select"})),
            expected
        );
        assert_eq!(
            immediate(json!({"question": "Q?", "options": [], "selectionMode": "single_select"})),
            expected
        );
    }

    #[test]
    fn payload_carries_the_resolved_mode() {
        assert_eq!(
            suspend_payload(json!({"question": "Name?"})),
            json!({"question": "Name?"})
        );
        assert_eq!(
            suspend_payload(json!({"question": "Name?", "options": null, "selectionMode": null})),
            json!({"question": "Name?"})
        );
        assert_eq!(
            suspend_payload(
                json!({"question": "Pick", "options": [{"label": "A", "description": "first"}, {"label": "B"}]})
            ),
            json!({"question": "Pick", "options": [{"label": "A", "description": "first"}, {"label": "B"}], "selectionMode": "single_select"})
        );
        assert_eq!(
            suspend_payload(
                json!({"question": "Pick", "options": [{"label": "A"}], "selectionMode": "multi_select"})
            )["selectionMode"],
            "multi_select"
        );
    }

    #[test]
    fn payload_round_trips() {
        let q = question(&json!({"question": "Pick", "options": [{"label": "A", "description": "d"}, {"label": "B"}], "selectionMode": "multi_select"})).unwrap();
        assert_eq!(Question::from_payload(&q.payload()), Some(q));
    }

    #[test]
    fn caps_and_duplicates_are_reported() {
        let long = "x".repeat(MAX_QUESTION_CHARS + 1);
        let r = immediate(json!({"question": long}));
        assert_eq!(
            r["validationErrors"]["question"],
            json!(["String must contain at most 4000 character(s)"])
        );
        let r = immediate(json!({"question": "Q", "options": [{"label": "A"}, {"label": "A"}]}));
        assert_eq!(
            r["validationErrors"]["options.1.label"],
            json!(["Duplicate label 'A'"])
        );
        let many: Vec<Value> = (0..=MAX_OPTIONS)
            .map(|i| json!({"label": i.to_string()}))
            .collect();
        let r = immediate(json!({"question": "Q", "options": many}));
        assert_eq!(
            r["validationErrors"]["options"],
            json!(["Array must contain at most 50 element(s)"])
        );
    }

    #[test]
    fn answers_are_checked_against_the_question() {
        let free = question(&json!({"question": "Name?"})).unwrap();
        assert_eq!(free.check_answer(&json!("Ada")), Ok(json!("Ada")));
        assert!(free
            .check_answer(&json!("  "))
            .unwrap_err()
            .contains("empty"));

        let single =
            question(&json!({"question": "Pick", "options": [{"label": "A"}, {"label": "B"}]}))
                .unwrap();
        assert_eq!(single.check_answer(&json!("B")), Ok(json!("B")));
        assert_eq!(
            single.check_answer(&json!("C")).unwrap_err(),
            "\"C\" is not one of the options; choose one of: \"A\", \"B\""
        );

        let multi = question(&json!({"question": "Pick", "options": [{"label": "A"}, {"label": "B"}], "selectionMode": "multi_select"})).unwrap();
        assert_eq!(
            multi.check_answer(&json!(["B", "A"])),
            Ok(json!(["B", "A"]))
        );
        assert_eq!(multi.check_answer(&json!("A")), Ok(json!(["A"])));
        assert_eq!(
            multi.check_answer(&json!(["A", "A"])).unwrap_err(),
            "\"A\" is chosen more than once"
        );
        assert!(multi
            .check_answer(&json!([]))
            .unwrap_err()
            .contains("\"A\", \"B\""));
    }

    #[test]
    fn labels_match_in_another_case_and_close_ones_are_suggested() {
        let theme = question(&json!({"question": "Theme?", "options": [
            {"label": "Dark"}, {"label": "Light"}, {"label": "High contrast"}]}))
        .unwrap();
        let choices = "choose one of: \"Dark\", \"Light\", \"High contrast\"";
        // The label is stored as the question wrote it.
        assert_eq!(theme.check_answer(&json!("dark")), Ok(json!("Dark")));
        assert_eq!(
            theme.check_answer(&json!("HIGH CONTRAST")),
            Ok(json!("High contrast"))
        );
        for (given, close) in [
            ("drak", "Dark"),                  // a transposition
            ("Lihgt", "Light"),                // in another case too
            ("Ligt", "Light"),                 // a letter missing
            ("hihg contrst", "High contrast"), // two typos
            ("hi", "High contrast"),           // a prefix
            ("d", "Dark"),
        ] {
            assert_eq!(
                theme.check_answer(&json!(given)).unwrap_err(),
                format!(
                    "\"{given}\" is not one of the options (did you mean \"{close}\"?); {choices}"
                ),
                "{given}"
            );
        }
        for far in ["Blue", "", " ", "xy", "Darkness mode"] {
            assert_eq!(
                theme.check_answer(&json!(far)).unwrap_err(),
                format!("\"{far}\" is not one of the options; {choices}"),
                "{far}"
            );
        }

        // Two labels equal but for case: only the exact one matches, and a third spelling
        // names both.
        let twins = question(&json!({"question": "Q", "options": [
            {"label": "Beta"}, {"label": "beta"}, {"label": "Stable"}]}))
        .unwrap();
        assert_eq!(twins.check_answer(&json!("beta")), Ok(json!("beta")));
        assert_eq!(twins.check_answer(&json!("Beta")), Ok(json!("Beta")));
        assert_eq!(
            twins.check_answer(&json!("BETA")).unwrap_err(),
            "\"BETA\" matches \"Beta\" and \"beta\" when case is ignored; give one as written; choose one of: \"Beta\", \"beta\", \"Stable\""
        );
        // A prefix of two labels suggests neither.
        assert!(!twins
            .check_answer(&json!("be"))
            .unwrap_err()
            .contains("did you mean"));

        let chores = question(&json!({"question": "Q", "selectionMode": "multi_select",
            "options": [{"label": "Add tests"}, {"label": "Update docs"}]}))
        .unwrap();
        assert_eq!(
            chores.check_answer(&json!(["add TESTS", "update docs"])),
            Ok(json!(["Add tests", "Update docs"]))
        );
        assert_eq!(
            chores
                .check_answer(&json!(["Add tests", "add tests"]))
                .unwrap_err(),
            "\"Add tests\" is chosen more than once"
        );
        assert_eq!(
            chores.check_answer(&json!(["Add tests", "Update dcos"])).unwrap_err(),
            "\"Update dcos\" is not one of the options (did you mean \"Update docs\"?); choose one or more of: \"Add tests\", \"Update docs\""
        );
    }

    #[test]
    fn result_joins_a_list() {
        assert_eq!(
            result(&json!(["Add tests", "Update docs"])),
            json!({"content": "User answered: Add tests, Update docs", "isError": false})
        );
        assert_eq!(result(&json!("1.2.0"))["content"], "User answered: 1.2.0");
    }

    #[test]
    fn fallback_texts() {
        assert_eq!(
            fallback(&json!({"question": "Name?"})).unwrap(),
            "[Question for user]: Name?"
        );
        assert_eq!(
            fallback(&json!({"question": "Pick", "options": [{"label": "A"}, {"label": "B"}]}))
                .unwrap(),
            "[Question for user]: Pick\nOptions: A, B\nSelection mode: single_select"
        );
    }

    #[test]
    fn no_arguments_or_answers_make_ask_user_panic() {
        use crate::testing::{json_input, value, Rng, CASES};
        let examples = [
            json!({"question": "Which version?"}),
            json!({"question": "Which?", "options": [{"label": "a"}, {"label": "b", "description": "B"}]}),
            json!({"question": "Pick", "options": [{"label": "x"}, {"label": "y"}, {"label": "z"}],
                   "selectionMode": "multi_select"}),
        ];
        let answers = [json!("a"), json!(["x", "z"]), json!("free text"), json!([])];
        let mut rng = Rng::new(5);
        let (mut asked, mut answered) = (0, 0);
        for _ in 0..CASES {
            let args = json_input(&mut rng, &examples);
            let _ = fallback(&args);
            match question(&args) {
                Ok(q) => {
                    asked += 1;
                    assert_eq!(Question::from_payload(&q.payload()).as_ref(), Some(&q));
                    let _ = q.resume_schema();
                    let labels = q.labels();
                    let answer = match rng.below(3) {
                        0 if !labels.is_empty() => json!(labels[rng.below(labels.len())]),
                        1 => json!(labels.iter().filter(|_| rng.chance(50)).collect::<Vec<_>>()),
                        _ => json_input(&mut rng, &answers),
                    };
                    if let Ok(data) = q.check_answer(&answer) {
                        answered += 1;
                        assert_eq!(q.check_answer(&data), Ok(data.clone()), "{q:?}");
                        assert_eq!(result(&data)["isError"], false);
                    }
                }
                Err(r) => assert!(r["error"] == true || r["isError"] == true, "{r}"),
            }
            // A payload read back from a damaged store.
            if let Some(q) = Question::from_payload(&value(&mut rng, 3)) {
                let _ = q.check_answer(&value(&mut rng, 2));
            }
        }
        assert!(
            asked > 300 && answered > 100,
            "{asked} asked, {answered} answered"
        );
    }
}
