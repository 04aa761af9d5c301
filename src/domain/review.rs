//! The vocabulary of who may answer (SPEC §14, §14.1): a rule as an agent file, a command
//! tool or `policy set` declares it (names and `group:G`s), the policy a run stores (the
//! rules with their members resolved at start), the decisions people make under it, what
//! expiry does, and the digest that binds an approval to the arguments shown.
//!
//! Data and pure helpers only: resolving names against the store's reviewers and judging a
//! decision are the store's (`store::policy`); nothing here reads, prints or decides.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The prefix that names a group of reviewers in a rule (`group:release`).
pub const GROUP_PREFIX: &str = "group:";

/// The most reviewers and groups one rule may name, and the most approvals it may need.
pub const MAX_RULE_NAMES: usize = 64;

/// A rule as it is declared: `{"reviewers": [...], "approvals": N, "allowSelf": bool}`.
/// Names are reviewers of the store, `group:G` their groups; both are resolved when a run
/// starts (`store::policy::resolve`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RuleSpec {
    pub reviewers: Vec<String>,
    /// How many distinct allowed reviewers must approve a plan or an approval [default 1].
    #[serde(default = "one")]
    pub approvals: u32,
    /// The run's starter may answer and approve its own items.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_self: bool,
}

fn one() -> u32 {
    1
}

impl RuleSpec {
    /// Checks what can be checked without the store: some names, none empty, `approvals`
    /// from 1 to the number of names' upper bound.
    pub fn check(&self) -> Result<(), String> {
        if self.reviewers.is_empty() {
            return Err("review.reviewers must name at least one reviewer or group:G".into());
        }
        if self.reviewers.len() > MAX_RULE_NAMES {
            return Err(format!(
                "review.reviewers names at most {MAX_RULE_NAMES} reviewers and groups"
            ));
        }
        for name in &self.reviewers {
            let bare = name.strip_prefix(GROUP_PREFIX).unwrap_or(name);
            if !is_name(bare) {
                return Err(format!(
                    "review.reviewers: {name:?} is not a reviewer's name or group:NAME (1 to 64 letters, digits, `.`, `_`, `-` or `@`, not starting with `-`)"
                ));
            }
        }
        if self.approvals == 0 || self.approvals as usize > MAX_RULE_NAMES {
            return Err(format!(
                "review.approvals must be between 1 and {MAX_RULE_NAMES}"
            ));
        }
        Ok(())
    }
}

/// Whether `s` is a name the store takes for a reviewer, a group or a policy: 1 to 64
/// letters, digits, `.`, `_`, `-` or `@`, not starting with `-`.
pub fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('-')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '@'))
}

/// What a run's start asks for: the agent's rule (or the flags'), its command tools' own
/// rules, or a named policy kept by an administrator, which then governs every item.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicySpec {
    pub rule: Option<RuleSpec>,
    /// Command tools' own rules, for their approvals.
    pub tools: Vec<(String, RuleSpec)>,
    /// `--policy NAME`.
    pub named: Option<String>,
}

impl PolicySpec {
    pub fn is_empty(&self) -> bool {
        self.rule.is_none() && self.tools.is_empty() && self.named.is_none()
    }
}

/// A rule with its members resolved: the reviewers who may decide, sorted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    pub reviewers: Vec<String>,
    pub approvals: u32,
    pub allow_self: bool,
}

impl Rule {
    pub fn allows(&self, reviewer: &str) -> bool {
        self.reviewers.iter().any(|r| r == reviewer)
    }
}

/// The policy stored with a run, never changed afterwards: the run's rule (questions,
/// plans and approvals) and the rules of command tools that carry their own (their
/// approvals), each resolved when the run started.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    pub rule: Option<Rule>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, Rule>,
    /// The named policy it came from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Policy {
    pub fn is_empty(&self) -> bool {
        self.rule.is_none() && self.tools.is_empty()
    }

    /// The rule that governs an item: a tool's own for its approvals, else the run's.
    pub fn rule_for(&self, kind: crate::domain::ItemKind, tool: &str) -> Option<&Rule> {
        if kind == crate::domain::ItemKind::Approval {
            if let Some(r) = self.tools.get(tool) {
                return Some(r);
            }
        }
        self.rule.as_ref()
    }
}

/// Names for a message: "alice", "alice or bob", "alice, bob or carol" ("nobody" for none).
pub fn or_list(names: &[String]) -> String {
    match names {
        [] => "nobody".to_string(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// What one reviewer decided on an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Approved,
    Rejected,
    Declined,
    Answered,
}

impl Verdict {
    pub const ALL: [Verdict; 4] = [
        Verdict::Approved,
        Verdict::Rejected,
        Verdict::Declined,
        Verdict::Answered,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approved => "approved",
            Verdict::Rejected => "rejected",
            Verdict::Declined => "declined",
            Verdict::Answered => "answered",
        }
    }

    pub fn parse(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Whether it lets something happen (an answer, an approval): what a starter may not do
    /// without `allowSelf`. Refusals are always theirs to make.
    pub fn consents(self) -> bool {
        matches!(self, Verdict::Approved | Verdict::Answered)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What happens to a run's pending items at their deadline (`--on-expiry`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnExpiry {
    /// The items expire and the run fails (`expired`).
    #[default]
    Fail,
    /// The items close as declined (approvals) or rejected (plans), with reason `expired`,
    /// and the run goes on; a question closes unanswered. Nothing is approved or answered.
    Decline,
    Reject,
}

impl OnExpiry {
    pub fn as_str(self) -> &'static str {
        match self {
            OnExpiry::Fail => "fail",
            OnExpiry::Decline => "decline",
            OnExpiry::Reject => "reject",
        }
    }

    pub fn parse(s: &str) -> Option<OnExpiry> {
        [OnExpiry::Fail, OnExpiry::Decline, OnExpiry::Reject]
            .into_iter()
            .find(|o| o.as_str() == s)
    }

    /// Whether the run goes on past the deadline (its items closed, never approved).
    pub fn goes_on(self) -> bool {
        self != OnExpiry::Fail
    }
}

/// What an identity the store checked is: a reviewer, or (mapped to none) the effective
/// OS user or the PostgreSQL session's role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckedAs {
    Reviewer,
    OsUser,
    PgRole,
}

impl CheckedAs {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckedAs::Reviewer => "reviewer",
            CheckedAs::OsUser => "os-user",
            CheckedAs::PgRole => "pg-role",
        }
    }

    pub fn parse(s: &str) -> Option<CheckedAs> {
        [CheckedAs::Reviewer, CheckedAs::OsUser, CheckedAs::PgRole]
            .into_iter()
            .find(|c| c.as_str() == s)
    }
}

/// An identity the store checked (never a claim): who started a run, who decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub name: String,
    pub kind: CheckedAs,
}

impl Checked {
    /// The reviewer it is, if it maps to one.
    pub fn reviewer(&self) -> Option<&str> {
        (self.kind == CheckedAs::Reviewer).then_some(self.name.as_str())
    }
}

impl fmt::Display for Checked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            CheckedAs::Reviewer => write!(f, "reviewer {}", self.name),
            CheckedAs::OsUser => write!(f, "OS user {}", self.name),
            CheckedAs::PgRole => write!(f, "PostgreSQL role {}", self.name),
        }
    }
}

/// One reviewer's decision on an item, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionRecord {
    pub run_id: String,
    pub call_id: String,
    pub reviewer: String,
    pub verdict: Verdict,
    /// For an approval: the digest of the arguments approved (`digest`).
    pub digest: Option<String>,
    /// For an approval with changes: the arguments approved in place of the model's (of
    /// that digest), so that the next reviewer sees what they would approve with it.
    pub args: Option<Value>,
    /// `flag`, `json`, `prompt`, `web` or `api`.
    pub via: String,
    /// Unix ms.
    pub at: i64,
    /// It still counts: its reviewer is not removed and was not added again since (a
    /// reviewer removed and added again decides anew, SPEC §14).
    pub counts: bool,
}

/// What a run keeps about who may answer it, as read back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunGate {
    pub policy: Option<Policy>,
    /// Who started it (runs stored before policies: `None`).
    pub started_by: Option<Checked>,
    pub on_expiry: OnExpiry,
    /// Items are escalated this long after they are created (`--escalate-after`).
    pub escalate_after: Option<Duration>,
}

/// The digest an approval records (SPEC §14.1): SHA-256, lowercase hex, of the tool's name,
/// a newline, and the canonical JSON of the arguments (`canonical_json`).
pub fn digest(tool: &str, args: &Value) -> String {
    let text = format!("{tool}\n{}", canonical_json(args));
    let sum = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    sum.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// JSON with every object's keys sorted (by their UTF-8 bytes) and no whitespace: the same
/// text for the same value, whatever order its keys were written in.
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ItemKind;
    use serde_json::json;

    #[test]
    fn canonical_json_sorts_keys_at_every_depth_and_drops_spaces() {
        let a: Value =
            serde_json::from_str(r#"{"b": [1, {"y": 2, "x": "é"}], "a": null}"#).unwrap();
        assert_eq!(canonical_json(&a), r#"{"a":null,"b":[1,{"x":"é","y":2}]}"#);
        let b: Value = serde_json::from_str(r#"{"a":null,"b":[1,{"x":"é","y":2}]}"#).unwrap();
        assert_eq!(digest("deploy", &a), digest("deploy", &b));
        assert_ne!(digest("deploy", &a), digest("other", &a));
        assert_ne!(
            digest("deploy", &json!({"target": "prod"})),
            digest("deploy", &json!({"target": "staging"}))
        );
        // The same as `printf 'deploy\n{"target":"prod"}' | sha256sum`.
        assert_eq!(
            digest("deploy", &json!({"target": "prod"})),
            "8dc926a806293b8b2949faf0cef91f7adf803c9d08ee135567bb14a2439ded58"
        );
    }

    #[test]
    fn rules_read_with_defaults_and_refuse_unknown_keys() {
        let r: RuleSpec =
            serde_json::from_value(json!({"reviewers": ["alice", "group:ops"]})).unwrap();
        assert_eq!((r.approvals, r.allow_self), (1, false));
        assert_eq!(r.check(), Ok(()));
        let e = serde_json::from_value::<RuleSpec>(json!({"reviewers": [], "quorum": 2}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `quorum`"), "{e}");
        for (bad, says) in [
            (json!({"reviewers": []}), "at least one"),
            (json!({"reviewers": ["a"], "approvals": 0}), "between 1"),
            (json!({"reviewers": ["-a"]}), "not a reviewer's name"),
            (json!({"reviewers": ["group:"]}), "not a reviewer's name"),
            (json!({"reviewers": ["a b"]}), "not a reviewer's name"),
        ] {
            let r: RuleSpec = serde_json::from_value(bad.clone()).unwrap();
            assert!(r.check().unwrap_err().contains(says), "{bad}");
        }
    }

    #[test]
    fn verdicts_follow_the_resume_data_and_a_tool_rule_governs_its_approvals() {
        assert_eq!(
            ItemKind::Approval.verdict(&json!({"approved": true})),
            Verdict::Approved
        );
        assert_eq!(
            ItemKind::Approval.verdict(&json!({"approved": false})),
            Verdict::Declined
        );
        assert_eq!(
            ItemKind::Plan.verdict(&json!({"action": "approved"})),
            Verdict::Approved
        );
        assert_eq!(
            ItemKind::Plan.verdict(&json!({"action": "rejected"})),
            Verdict::Rejected
        );
        assert_eq!(ItemKind::Question.verdict(&json!("yes")), Verdict::Answered);
        for v in Verdict::ALL {
            assert_eq!(Verdict::parse(v.as_str()), Some(v));
        }
        let rule = |r: &str| Rule {
            reviewers: vec![r.into()],
            approvals: 1,
            allow_self: false,
        };
        let policy = Policy {
            rule: Some(rule("alice")),
            tools: [("deploy".to_string(), rule("ops"))].into(),
            name: None,
        };
        assert!(policy
            .rule_for(ItemKind::Approval, "deploy")
            .unwrap()
            .allows("ops"));
        assert!(policy
            .rule_for(ItemKind::Approval, "lint")
            .unwrap()
            .allows("alice"));
        assert!(policy
            .rule_for(ItemKind::Question, "deploy")
            .unwrap()
            .allows("alice"));
        let stored = serde_json::to_value(&policy).unwrap();
        assert_eq!(
            stored,
            json!({"rule": {"reviewers": ["alice"], "approvals": 1, "allowSelf": false},
                   "tools": {"deploy": {"reviewers": ["ops"], "approvals": 1, "allowSelf": false}}})
        );
        assert_eq!(serde_json::from_value::<Policy>(stored).unwrap(), policy);
    }
}
