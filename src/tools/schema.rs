//! Input checks for tool arguments, reported the way Mastra reports a failed schema: one
//! `- field: problem` line per problem, then the provided arguments.
//!
//! Only what the two tool schemas need; `null` in an optional field counts as absent (models
//! send it).

use serde_json::{json, Map, Value};

/// Problems found in one tool call's arguments, in the order found.
#[derive(Default, Debug)]
pub struct Problems(Vec<(String, String)>);

impl Problems {
    pub fn add(&mut self, field: impl Into<String>, problem: impl Into<String>) {
        self.0.push((field.into(), problem.into()));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The validation object the model receives.
    pub fn into_result(self, tool: &str, args: &Value) -> Value {
        let lines: Vec<String> = self.0.iter().map(|(f, p)| format!("- {f}: {p}")).collect();
        let mut by_field = Map::new();
        for (field, problem) in self.0 {
            let entry = by_field.entry(field).or_insert_with(|| json!([]));
            if let Value::Array(list) = entry {
                list.push(Value::String(problem));
            }
        }
        let provided = serde_json::to_string_pretty(args).unwrap_or_default();
        json!({
            "error": true,
            "message": format!(
                "Tool input validation failed for {tool}. Please fix the following errors and try again:\n{}\n\nProvided arguments: {provided}",
                lines.join("\n")
            ),
            "validationErrors": by_field,
        })
    }
}

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `v` as an object whose keys are all in `allowed`; reports at `field` otherwise.
pub fn object<'a>(
    v: &'a Value,
    field: &str,
    allowed: &[&str],
    p: &mut Problems,
) -> Option<&'a Map<String, Value>> {
    let Value::Object(map) = v else {
        p.add(field, format!("Expected object, received {}", type_name(v)));
        return None;
    };
    let unknown: Vec<String> = map
        .keys()
        .filter(|k| !allowed.contains(&k.as_str()))
        .map(|k| format!("'{k}'"))
        .collect();
    if !unknown.is_empty() {
        p.add(
            field,
            format!("Unrecognized key(s) in object: {}", unknown.join(", ")),
        );
    }
    Some(map)
}

/// The field `key` of `map`, absent when missing or null.
pub fn field<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|v| !v.is_null())
}

/// A string of at most `max_chars` characters, not blank when `non_empty`.
pub fn string<'a>(
    v: &'a Value,
    field: &str,
    non_empty: bool,
    max_chars: usize,
    p: &mut Problems,
) -> Option<&'a str> {
    let Value::String(s) = v else {
        p.add(field, format!("Expected string, received {}", type_name(v)));
        return None;
    };
    if non_empty && s.trim().is_empty() {
        p.add(field, "String must contain at least 1 non-blank character");
        return None;
    }
    if s.chars().count() > max_chars {
        p.add(
            field,
            format!("String must contain at most {max_chars} character(s)"),
        );
        return None;
    }
    Some(s)
}

/// A required field: reports `Required` when absent.
pub fn required<'a>(map: &'a Map<String, Value>, key: &str, p: &mut Problems) -> Option<&'a Value> {
    let v = field(map, key);
    if v.is_none() {
        p.add(key, "Required");
    }
    v
}
