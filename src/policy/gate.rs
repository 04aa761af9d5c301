//! An item's policy and its decisions so far, as `pending`, `show`, the inbox and a partial
//! decision show them (SPEC §14): "1 of 2 approvals: alice approved; waiting for 1 more
//! from bob or carol" (an approval with changes with the arguments it approved: "alice
//! approved with changes: {...}"), and the `policy` and `decisions` of the JSON lines. What counts is
//! judged by the store; this only counts again to say what is still needed.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::domain::review::{canonical_json, or_list, DecisionRecord, Rule, Verdict};
use crate::domain::{CallRecord, ItemKind};
use crate::output::events::short;
use crate::output::format;
use crate::store::{PendingItem, Result, Run, Store};

/// Who may decide an item and what was decided so far.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemGate {
    pub kind: ItemKind,
    pub rule: Rule,
    /// The run's starter, when they are a reviewer the rule names.
    pub starter: Option<String>,
    /// This item's decisions, oldest first.
    pub decisions: Vec<DecisionRecord>,
}

impl ItemGate {
    /// The gate of `call` of `run`, when the run's policy governs it; `decisions` may hold
    /// other items' decisions too.
    pub fn of(run: &Run, call: &CallRecord, decisions: &[DecisionRecord]) -> Option<ItemGate> {
        let kind = call.kind?;
        let rule = run.gate.policy.as_ref()?.rule_for(kind, &call.tool_name)?;
        let starter = run.gate.started_by.as_ref().and_then(|s| s.reviewer());
        Some(ItemGate {
            kind,
            rule: rule.clone(),
            starter: starter.map(str::to_string),
            decisions: decisions
                .iter()
                .filter(|d| d.run_id == call.run_id && d.call_id == call.call_id)
                .cloned()
                .collect(),
        })
    }

    /// The gates of pending items, keyed by run and tool call (one read per run under a
    /// policy listed; the others have none).
    pub fn of_pending(
        store: &dyn Store,
        items: &[PendingItem],
    ) -> Result<HashMap<(String, String), ItemGate>> {
        let mut runs: HashMap<&str, Option<(Run, Vec<DecisionRecord>)>> = HashMap::new();
        let mut gates = HashMap::new();
        for item in items.iter().filter(|i| i.gated) {
            let run_id = item.call.run_id.as_str();
            if !runs.contains_key(run_id) {
                let read = match store.run(run_id)? {
                    Some(run) if run.gate.policy.is_some() => {
                        let decisions = store.decisions(run_id)?;
                        Some((run, decisions))
                    }
                    _ => None,
                };
                runs.insert(run_id, read);
            }
            if let Some(Some((run, decisions))) = runs.get(run_id) {
                if let Some(gate) = ItemGate::of(run, &item.call, decisions) {
                    gates.insert((item.call.run_id.clone(), item.call.call_id.clone()), gate);
                }
            }
        }
        Ok(gates)
    }

    /// The approvals that count now, grouped by what they approved (changed arguments
    /// restart the count), each with the changed arguments when they were changed, in the
    /// order of their first decision: by the reviewers the rule names who are still
    /// reviewers and were not added again since, as the store counts them.
    fn approvals(&self) -> Vec<(Vec<&str>, Option<&Value>)> {
        let mut groups: Vec<(Option<&str>, Vec<&str>, Option<&Value>)> = Vec::new();
        for d in &self.decisions {
            if d.verdict != Verdict::Approved || !d.counts || !self.rule.allows(&d.reviewer) {
                continue;
            }
            let digest = d.digest.as_deref();
            let i = match groups.iter().position(|g| g.0 == digest) {
                Some(i) => i,
                None => {
                    groups.push((digest, Vec::new(), None));
                    groups.len() - 1
                }
            };
            groups[i].1.push(&d.reviewer);
            groups[i].2 = groups[i].2.or(d.args.as_ref());
        }
        groups
            .into_iter()
            .map(|(_, names, args)| (names, args))
            .collect()
    }

    /// Who may still decide: the rule's reviewers who have not (a decision that no longer
    /// counts lets its reviewer, added again, decide anew), without the starter unless the
    /// rule allows self-approval.
    fn still_may(&self) -> Vec<String> {
        self.rule
            .reviewers
            .iter()
            .filter(|r| !self.decisions.iter().any(|d| d.counts && &d.reviewer == *r))
            .filter(|r| self.rule.allow_self || self.starter.as_deref() != Some(r.as_str()))
            .cloned()
            .collect()
    }

    /// One line: who may decide and what is still needed.
    pub fn summary(&self) -> String {
        let others = or_list(&self.still_may());
        if !self.kind.counts_approvals() {
            return format!("{others} may answer");
        }
        let needed = self.rule.approvals;
        let approvals = self.approvals();
        let most = approvals.iter().map(|(names, _)| names.len()).max();
        let have = u32::try_from(most.unwrap_or(0))
            .unwrap_or(u32::MAX)
            .min(needed);
        let noun = if needed == 1 { "approval" } else { "approvals" };
        if have == 0 {
            return format!("0 of {needed} {noun}; waiting for {needed} from {others}");
        }
        let approved: Vec<String> = approvals
            .iter()
            .map(|(names, args)| format!("{} approved{}", names.join(", "), with_changes(*args)))
            .collect();
        format!(
            "{have} of {needed} {noun}: {}; waiting for {} more from {others}",
            approved.join("; "),
            needed - have
        )
    }

    /// `show`'s lines: who may decide (and, while pending, what is still needed), then
    /// each decision.
    pub fn lines(&self, pending: bool) -> Vec<String> {
        let mut lines = vec![if pending {
            self.summary()
        } else {
            let needs = match self.kind.counts_approvals() {
                false => String::new(),
                true => format!(" ({} of them)", self.rule.approvals),
            };
            format!("policy: {}{needs}", or_list(&self.rule.reviewers))
        }];
        lines.extend(self.decisions.iter().map(|d| {
            format!(
                "{} {}{} via {} at {}{}",
                d.reviewer,
                d.verdict,
                with_changes(d.args.as_ref()),
                d.via,
                format::time(d.at),
                if d.counts { "" } else { " (no longer counts)" }
            )
        }));
        lines
    }

    /// `{reviewers, approvals, allowSelf}`.
    pub fn policy_json(&self) -> Value {
        json!({
            "reviewers": self.rule.reviewers,
            "approvals": self.rule.approvals,
            "allowSelf": self.rule.allow_self,
        })
    }

    /// `[{by, decision, at, via, counts}]`, oldest first.
    pub fn decisions_json(&self) -> Value {
        decisions_json(&self.decisions)
    }
}

/// " with changes: ARGS" for an approval with changes (their canonical JSON, the text
/// their digest is of, shortened and escaped as a listing shows arguments), else nothing.
fn with_changes(args: Option<&Value>) -> String {
    args.map(|a| format!(" with changes: {}", short(&canonical_json(a))))
        .unwrap_or_default()
}

/// Decisions as the JSON lines show them: `[{by, decision, at, via, counts}]`, and `args`
/// on an approval with changes (the arguments it approved), every one kept for the audit;
/// `counts` is false on one whose reviewer was removed (and perhaps added again) since,
/// which the policy's count leaves out (SPEC §14).
pub fn decisions_json(decisions: &[DecisionRecord]) -> Value {
    Value::Array(
        decisions
            .iter()
            .map(|d| {
                let mut v = json!({
                    "by": d.reviewer,
                    "decision": d.verdict.as_str(),
                    "at": format::time(d.at),
                    "via": d.via,
                    "counts": d.counts,
                });
                if let Some(args) = &d.args {
                    v["args"] = args.clone();
                }
                v
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(by: &str, verdict: Verdict, digest: Option<&str>) -> DecisionRecord {
        DecisionRecord {
            run_id: "r".into(),
            call_id: "c".into(),
            reviewer: by.into(),
            verdict,
            digest: digest.map(str::to_string),
            args: None,
            via: "flag".into(),
            at: 0,
            counts: true,
        }
    }

    fn gate(kind: ItemKind, approvals: u32, decisions: Vec<DecisionRecord>) -> ItemGate {
        ItemGate {
            kind,
            rule: Rule {
                reviewers: vec!["alice".into(), "bob".into(), "carol".into()],
                approvals,
                allow_self: false,
            },
            starter: Some("carol".into()),
            decisions,
        }
    }

    #[test]
    fn the_summary_says_who_approved_and_what_is_still_needed() {
        assert_eq!(
            gate(ItemKind::Plan, 2, vec![]).summary(),
            "0 of 2 approvals; waiting for 2 from alice or bob"
        );
        let alice = decision("alice", Verdict::Approved, Some("d1"));
        assert_eq!(
            gate(ItemKind::Approval, 2, vec![alice.clone()]).summary(),
            "1 of 2 approvals: alice approved; waiting for 1 more from bob"
        );
        // Changed arguments restart the count: the larger group counts, and each group
        // says what it approved.
        let changed = |by| DecisionRecord {
            args: Some(serde_json::json!({"env": "staging\u{1b}[2J"})),
            ..decision(by, Verdict::Approved, Some("d2"))
        };
        let both = vec![alice.clone(), changed("bob"), changed("carol")];
        assert_eq!(
            gate(ItemKind::Approval, 3, both.clone()).summary(),
            r#"2 of 3 approvals: alice approved; bob, carol approved with changes: {"env":"staging\u001b[2J"}; waiting for 1 more from nobody"#
        );
        assert_eq!(
            gate(ItemKind::Approval, 3, both.clone()).lines(false)[2],
            r#"bob approved with changes: {"env":"staging\u001b[2J"} via flag at 1970-01-01T00:00:00.000Z"#
        );
        assert_eq!(decisions_json(&both)[0].get("args"), None);
        assert_eq!(
            decisions_json(&both)[1]["args"],
            serde_json::json!({"env": "staging\u{1b}[2J"})
        );
        // Long arguments are shortened as a listing shortens them.
        let long = DecisionRecord {
            args: Some(serde_json::json!({"notes": "x".repeat(200)})),
            ..decision("bob", Verdict::Approved, Some("d3"))
        };
        let summary = gate(ItemKind::Approval, 2, vec![long]).summary();
        assert!(
            summary.contains(r#"with changes: {"notes":"xxx"#),
            "{summary}"
        );
        assert!(summary.contains("...; waiting for 1 more"), "{summary}");
        assert_eq!(
            gate(ItemKind::Question, 1, vec![]).summary(),
            "alice or bob may answer"
        );
        // Bob was removed and added again after approving: he counts for nothing and may
        // decide anew.
        let stale = DecisionRecord {
            counts: false,
            ..decision("bob", Verdict::Approved, None)
        };
        assert_eq!(
            gate(ItemKind::Plan, 2, vec![stale]).summary(),
            "0 of 2 approvals; waiting for 2 from alice or bob"
        );
    }
}
