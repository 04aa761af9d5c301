//! Mastra's tool approval (SPEC §11): the resume data `{approved, reason?}` a person's
//! decision becomes, its JSON Schema as the `tool-call-approval` event carries it, and what
//! the model receives for a declined call. The decision is checked here before anything is
//! stored; running an approved tool is the driver's business, prompting the terminal's.

use serde_json::{json, Map, Value};

/// What the model receives for a call declined without a reason (Mastra's wording).
pub const DEFAULT_DECLINE_REASON: &str = "Tool call was not approved by the user";

/// The resume schema of an approval, exactly as Mastra's `tool-call-approval` chunk carries
/// it: the JSON text of `{approved: boolean, reason?: string}` with Mastra's descriptions.
pub fn resume_schema() -> String {
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "approved": {
                "type": "boolean",
                "description": "Controls if the tool call is approved or not, should be true when approved and false when declined"
            },
            "reason": {
                "description": "Optional explanation for the decision, surfaced to the model when the tool call is declined",
                "type": "string"
            }
        },
        "required": ["approved"],
        "additionalProperties": false
    })
    .to_string()
}

/// A person's decision on an approval item.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub approved: bool,
    /// Why; what the model receives when the call is declined.
    pub reason: Option<String>,
}

impl Decision {
    pub fn approve() -> Decision {
        Decision {
            approved: true,
            reason: None,
        }
    }

    pub fn decline(reason: Option<String>) -> Decision {
        Decision {
            approved: false,
            reason,
        }
    }

    /// Reads Mastra's resume data: an object with a boolean `approved` and an optional
    /// string `reason`, nothing else; a blank reason counts as none.
    pub fn from_json(v: &Value) -> Result<Decision, String> {
        let Value::Object(map) = v else {
            return Err(r#"expected an object {"approved": true|false, "reason"?: "..."}"#.into());
        };
        if let Some(key) = map.keys().find(|k| *k != "approved" && *k != "reason") {
            return Err(format!(
                "unknown key \"{key}\"; an approval takes \"approved\" and \"reason\""
            ));
        }
        let approved = match map.get("approved") {
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err("\"approved\" must be true or false".into()),
            None => return Err("\"approved\" is required (true or false)".into()),
        };
        let reason = match map.get("reason") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err("\"reason\" must be a string".into()),
        };
        Ok(Decision { approved, reason })
    }

    /// The resume data stored with the item.
    pub fn resume_data(&self) -> Value {
        let mut m = Map::new();
        m.insert("approved".into(), json!(self.approved));
        if let Some(r) = &self.reason {
            m.insert("reason".into(), json!(r));
        }
        Value::Object(m)
    }

    /// The result known when the decision is stored: the reason, as text, for a declined
    /// call; nothing for an approved one (its tool runs first).
    pub fn result(&self) -> Option<Value> {
        (!self.approved).then(|| {
            json!(self
                .reason
                .clone()
                .unwrap_or_else(|| DEFAULT_DECLINE_REASON.to_string()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resume_schema_is_mastras_text() {
        assert_eq!(
            resume_schema(),
            r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"approved":{"type":"boolean","description":"Controls if the tool call is approved or not, should be true when approved and false when declined"},"reason":{"description":"Optional explanation for the decision, surfaced to the model when the tool call is declined","type":"string"}},"required":["approved"],"additionalProperties":false}"#
        );
    }

    #[test]
    fn decisions_read_and_written() {
        let d = Decision::from_json(&json!({"approved": false, "reason": "Not on prod."})).unwrap();
        assert_eq!(d, Decision::decline(Some("Not on prod.".into())));
        assert_eq!(d.result(), Some(json!("Not on prod.")));
        assert_eq!(
            d.resume_data(),
            json!({"approved": false, "reason": "Not on prod."})
        );
        let d = Decision::from_json(&json!({"approved": false, "reason": "  "})).unwrap();
        assert_eq!(d.result(), Some(json!(DEFAULT_DECLINE_REASON)));
        assert_eq!(d.resume_data(), json!({"approved": false}));
        let d = Decision::from_json(&json!({"approved": true})).unwrap();
        assert_eq!((d.approved, d.result()), (true, None));
        for bad in [
            json!("yes"),
            json!({}),
            json!({"approved": "true"}),
            json!({"approved": true, "reason": 3}),
            json!({"approved": true, "why": "x"}),
        ] {
            assert!(Decision::from_json(&bad).is_err(), "{bad}");
        }
    }
}
