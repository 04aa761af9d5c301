//! `modelSettings` of an agent file: the sampling and length controls a run sends with
//! every model call, under Mastra's names (`temperature`, `maxOutputTokens`, `topP`, `seed`,
//! `stopSequences`).
//!
//! The settings are checked once, when the agent file is read (types and ranges; an unknown
//! key is an error), and kept with the run's agent. Each provider maps them to its own
//! wire names (`wire::settings` for OpenAI-style servers); nothing here knows a wire
//! format, reads the environment, or does IO.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The keys an agent file may set, in the order the error messages list them.
pub const KEYS: [&str; 5] = [
    "temperature",
    "maxOutputTokens",
    "topP",
    "seed",
    "stopSequences",
];

/// The highest `temperature` OpenAI accepts (llama.cpp takes any; 2 is already noise).
pub const MAX_TEMPERATURE: f64 = 2.0;
/// The largest `maxOutputTokens`: llama.cpp keeps it in a 32-bit signed integer.
pub const MAX_OUTPUT_TOKENS: u64 = i32::MAX as u64;
/// The most `stopSequences` (OpenAI takes 4; local servers more).
pub const MAX_STOP_SEQUENCES: usize = 16;
/// The longest stop sequence, in characters.
pub const MAX_STOP_CHARS: usize = 200;

/// The settings; unset ones are left to the model server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Value", rename_all = "camelCase")]
pub struct ModelSettings {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
}

impl ModelSettings {
    pub fn is_empty(&self) -> bool {
        *self == ModelSettings::default()
    }
}

impl TryFrom<Value> for ModelSettings {
    type Error = String;

    fn try_from(v: Value) -> Result<ModelSettings, String> {
        let Value::Object(map) = v else {
            return Err("modelSettings must be an object".into());
        };
        let mut s = ModelSettings::default();
        for (key, value) in &map {
            let name = format!("modelSettings.{key}");
            match key.as_str() {
                "temperature" => {
                    s.temperature = Some(number(&name, value, 0.0, MAX_TEMPERATURE)?);
                }
                "topP" => s.top_p = Some(number(&name, value, 0.0, 1.0)?),
                "maxOutputTokens" => {
                    let n = value
                        .as_u64()
                        .filter(|n| (1..=MAX_OUTPUT_TOKENS).contains(n));
                    s.max_output_tokens = Some(n.ok_or_else(|| {
                        format!("{name} must be a whole number from 1 to {MAX_OUTPUT_TOKENS}")
                    })?);
                }
                "seed" => {
                    let n = value.as_i64();
                    s.seed = Some(n.ok_or_else(|| {
                        format!(
                            "{name} must be a whole number from {} to {}",
                            i64::MIN,
                            i64::MAX
                        )
                    })?);
                }
                "stopSequences" => s.stop_sequences = Some(stop_sequences(&name, value)?),
                other => {
                    return Err(format!(
                        "unknown key \"{other}\" in modelSettings; the keys are {}",
                        KEYS.join(", ")
                    ))
                }
            }
        }
        Ok(s)
    }
}

fn number(name: &str, v: &Value, min: f64, max: f64) -> Result<f64, String> {
    v.as_f64()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| format!("{name} must be a number from {min} to {max}"))
}

fn stop_sequences(name: &str, v: &Value) -> Result<Vec<String>, String> {
    let problem = || {
        format!(
            "{name} must be a list of at most {MAX_STOP_SEQUENCES} non-empty strings of at most {MAX_STOP_CHARS} characters"
        )
    };
    let items = v.as_array().ok_or_else(problem)?;
    if items.len() > MAX_STOP_SEQUENCES {
        return Err(problem());
    }
    items
        .iter()
        .map(|item| {
            item.as_str()
                .filter(|s| !s.is_empty() && s.chars().count() <= MAX_STOP_CHARS)
                .map(str::to_string)
                .ok_or_else(problem)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<ModelSettings, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn settings_are_stored_under_mastras_names_and_read_back() {
        let s = parse(
            json!({"temperature": 0.2, "maxOutputTokens": 256, "topP": 0.9,
                             "seed": 42, "stopSequences": ["END", "\n\n"]}),
        )
        .unwrap();
        assert_eq!(s.max_output_tokens, Some(256));
        let stored = serde_json::to_value(&s).unwrap();
        assert_eq!(
            stored,
            json!({"temperature": 0.2, "maxOutputTokens": 256, "topP": 0.9, "seed": 42,
                   "stopSequences": ["END", "\n\n"]})
        );
        assert_eq!(parse(stored).unwrap(), s);
        assert!(parse(json!({})).unwrap().is_empty());
        assert!(!parse(json!({"seed": 0})).unwrap().is_empty());
    }

    #[test]
    fn bad_types_ranges_and_keys_are_errors_that_name_the_key() {
        let cases = [
            (json!({"temperature": 2.5}), "modelSettings.temperature must be a number from 0 to 2"),
            (json!({"temperature": "hot"}), "modelSettings.temperature must be a number from 0 to 2"),
            (json!({"temperature": -0.1}), "modelSettings.temperature must be a number from 0 to 2"),
            (json!({"topP": 1.01}), "modelSettings.topP must be a number from 0 to 1"),
            (json!({"maxOutputTokens": 0}), "modelSettings.maxOutputTokens must be a whole number from 1 to 2147483647"),
            (json!({"maxOutputTokens": 12.5}), "modelSettings.maxOutputTokens must be a whole number"),
            (json!({"maxOutputTokens": 2_147_483_648_u64}), "modelSettings.maxOutputTokens must be a whole number"),
            (json!({"seed": 1.5}), "modelSettings.seed must be a whole number"),
            (json!({"seed": null}), "modelSettings.seed must be a whole number"),
            (json!({"stopSequences": "END"}), "modelSettings.stopSequences must be a list of at most 16 non-empty strings"),
            (json!({"stopSequences": [""]}), "modelSettings.stopSequences must be a list"),
            (json!({"stopSequences": [1]}), "modelSettings.stopSequences must be a list"),
            (json!({"stopSequences": vec!["x"; 17]}), "modelSettings.stopSequences must be a list"),
            (json!({"stopSequences": ["x".repeat(201)]}), "modelSettings.stopSequences must be a list"),
            (json!({"max_tokens": 5}), "unknown key \"max_tokens\" in modelSettings; the keys are temperature, maxOutputTokens, topP, seed, stopSequences"),
            (json!([0.2]), "modelSettings must be an object"),
        ];
        for (input, expected) in cases {
            let e = parse(input.clone()).unwrap_err();
            assert!(e.starts_with(expected), "{input}: {e}");
        }
    }
}
