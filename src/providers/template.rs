//! The one template of a scripted model, `{{answer:CALL}}`: the answer a person gave to an
//! earlier `ask_user` call of the script (the call whose `"id"` is `CALL`), so a demo can
//! use what it was told (tag the version you answered) instead of a fixed value.
//!
//! It is filled in a step's `text`, in the string values of its calls' `args`, and in a
//! `contains` case. The answer is the text the model got after `User answered: ` (several
//! labels joined with `", "`), the latest one when the call was asked again. Only that exact
//! form is a template; any other `{{` is kept as written. Pure string work: which call
//! was answered what is found by the script (`scripted.rs`), never here.

use serde_json::Value;

const OPEN: &str = "{{answer:";
const CLOSE: &str = "}}";

/// The call names the templates in `text` refer to, in order.
pub fn names(text: &str) -> Vec<&str> {
    pieces(text)
        .into_iter()
        .filter_map(|p| match p {
            Piece::Answer(name) => Some(name),
            Piece::Text(_) => None,
        })
        .collect()
}

/// The call names the templates in a JSON value's strings refer to.
pub fn names_in(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => names(s),
        Value::Array(items) => items.iter().flat_map(names_in).collect(),
        Value::Object(map) => map.values().flat_map(names_in).collect(),
        _ => vec![],
    }
}

/// `text` with each template replaced by `answer(name)`; the first name without an answer
/// is the error.
pub fn fill(text: &str, answer: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    for piece in pieces(text) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Answer(name) => out.push_str(&answer(name).ok_or_else(|| name.to_string())?),
        }
    }
    Ok(out)
}

/// A JSON value with the templates in its strings filled (keys are left as they are).
pub fn fill_in(value: &Value, answer: &dyn Fn(&str) -> Option<String>) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => Value::String(fill(s, answer)?),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| fill_in(v, answer))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), fill_in(v, answer)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

#[derive(Debug, PartialEq)]
enum Piece<'a> {
    Text(&'a str),
    Answer(&'a str),
}

fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = vec![];
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let after = &rest[start + OPEN.len()..];
        let name_len = after
            .find(|c: char| !is_name_char(c))
            .unwrap_or(after.len());
        if name_len == 0 || !after[name_len..].starts_with(CLOSE) {
            // Not a template: keep `{{answer:` as text and look on after it.
            out.push(Piece::Text(&rest[..start + OPEN.len()]));
            rest = after;
            continue;
        }
        if start > 0 {
            out.push(Piece::Text(&rest[..start]));
        }
        out.push(Piece::Answer(&after[..name_len]));
        rest = &after[name_len + CLOSE.len()..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn known(name: &str) -> Option<String> {
        (name == "call_version").then(|| "3.1.0".to_string())
    }

    #[test]
    fn templates_are_filled_and_anything_else_is_kept() {
        assert_eq!(
            fill("I tag v{{answer:call_version}} now.", &known).unwrap(),
            "I tag v3.1.0 now."
        );
        assert_eq!(
            fill("{{answer:call_version}}{{answer:call_version}}", &known).unwrap(),
            "3.1.03.1.0"
        );
        for literal in [
            "no template",
            "{{answer:}}",
            "{{answer:call version}}",
            "{{ answer:call_version }}",
            "{{answer:call_version}",
            "{{name}}",
            "",
        ] {
            assert_eq!(fill(literal, &known).unwrap(), literal, "{literal}");
            assert!(names(literal).is_empty(), "{literal}");
        }
        assert_eq!(
            fill("{{answer:{{answer:call_version}}", &known).unwrap(),
            "{{answer:3.1.0"
        );
        assert_eq!(
            fill("v{{answer:call_channel}}", &known).unwrap_err(),
            "call_channel"
        );
    }

    #[test]
    fn json_strings_are_filled_wherever_they_are() {
        let args = json!({"version": "{{answer:call_version}}", "n": 1,
                          "list": ["x-{{answer:call_version}}"], "{{answer:k}}": null});
        assert_eq!(
            names_in(&args),
            vec!["call_version", "call_version"],
            "keys are not templates"
        );
        assert_eq!(
            fill_in(&args, &known).unwrap(),
            json!({"version": "3.1.0", "n": 1, "list": ["x-3.1.0"], "{{answer:k}}": null})
        );
        // An answer with quotes stays one JSON string: nothing is parsed again.
        let quoted = |_: &str| Some("\"}, \"x\": {\"".to_string());
        assert_eq!(
            fill_in(&json!({"v": "{{answer:a}}"}), &quoted).unwrap(),
            json!({"v": "\"}, \"x\": {\""})
        );
    }
}
