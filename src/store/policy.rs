//! Who may answer (SPEC §14), written once for both backends: resolving a run's rules to
//! their members when it starts, judging one reviewer's decision on an item in the
//! transaction that records it, and the policies an administrator keeps by name. The rows
//! are each backend's (`PolicyTx`); PostgreSQL's go through functions that check the same
//! rule against the session's role, so that the store's other roles cannot write around it.
//!
//! The rules: a question resolves at the first answer of an allowed reviewer; a plan or an
//! approval at the first rejection or decline of one, or once `approvals` distinct allowed
//! reviewers approved the same thing (for an approval, arguments of the same digest); a
//! reviewer removed after deciding no longer counts; unless `allowSelf`, the run's starter
//! may not answer or approve (refusing is always theirs); each reviewer decides once; an
//! identity mapped to no allowed reviewer changes nothing. No SQL and no printing here.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::backend::{Backend, CallHead, Durability, Resolving, RunRow, Tx};
use super::error::{Conflict, Error, NotFound, Result};
use super::transitions::{write, Decide};
use super::{identity, now_ms};
use crate::domain::review::{
    self, is_name, Checked, DecisionRecord, Policy, PolicySpec, Rule, RuleSpec, Verdict,
    GROUP_PREFIX,
};
use crate::domain::{ItemKind, Resolution};

/// An active reviewer, as the rules need them.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub name: String,
    pub groups: Vec<String>,
    /// When they were added (again): a decision made before does not count.
    pub created_at: i64,
}

/// One decision as stored: what `DecisionRecord` shows, and the resolution it makes when
/// it is the one that resolves the item.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionRow {
    pub record: DecisionRecord,
    pub resume_data: Value,
    pub result: Option<Value>,
}

/// A policy an administrator keeps by name (`policy set`): its rule as declared, resolved
/// again at each run's start.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedPolicy {
    pub name: String,
    pub rule: RuleSpec,
    pub created_at: i64,
    pub updated_at: i64,
    /// The agent it is the minimum of (SPEC §15): every run of that agent is at least as
    /// strict, whatever the run's own review says.
    pub for_agent: Option<String>,
}

/// The row operations on policies, decisions and escalations within one write transaction.
pub trait PolicyTx {
    /// The session's role (PostgreSQL's `session_user`) and the reviewer (not removed)
    /// mapped to it; `None` for SQLite, which has no roles.
    fn session(&mut self) -> Result<Option<(String, Option<String>)>>;
    /// The reviewer of this name, unless removed.
    fn member(&mut self, name: &str) -> Result<Option<Member>>;
    /// Every reviewer not removed, by name.
    fn members(&mut self) -> Result<Vec<Member>>;
    /// The reviewer (not removed) mapped to this OS user or PostgreSQL role.
    fn mapped(&mut self, os_user: Option<&str>, pg_role: Option<&str>) -> Result<Option<String>>;
    /// The decisions on one call, oldest first.
    fn decisions(&mut self, run: &RunRow, call_id: &str) -> Result<Vec<DecisionRow>>;
    /// Records one decision, in place of one its reviewer made before they were added again
    /// (the rules refuse a second decision that still counts). PostgreSQL's goes through
    /// `mastra_ask.record_decision`, which checks the session against the policy itself.
    fn insert_decision(&mut self, run: &RunRow, row: &DecisionRow) -> Result<()>;
    fn named(&mut self, name: &str) -> Result<Option<NamedPolicy>>;
    fn all_named(&mut self) -> Result<Vec<NamedPolicy>>;
    /// The minimum policy of `agent`, if one is kept.
    fn minimum(&mut self, agent: &str) -> Result<Option<NamedPolicy>>;
    /// Inserts or replaces a named policy; one that is an agent's minimum takes that place
    /// from any other.
    fn put_named(&mut self, policy: &NamedPolicy) -> Result<()>;
    /// Whether there was one to delete.
    fn delete_named(&mut self, name: &str) -> Result<bool>;
    /// When a call was created, and escalated if it was.
    fn escalation(&mut self, run: &RunRow, call_id: &str) -> Result<Option<(i64, Option<i64>)>>;
    fn set_escalated(&mut self, run: &RunRow, call_id: &str, at: i64) -> Result<()>;
}

/// `spec`'s members among `members`: its names and the members of its groups, each once,
/// sorted. `what` names the rule in errors. An unknown name, an empty group, or more
/// approvals than the members who may approve (without `starter`, the reviewer who starts
/// the run, unless the rule allows self-approval) is a usage error.
pub fn resolve_rule(
    members: &[Member],
    spec: &RuleSpec,
    what: &str,
    starter: Option<&str>,
) -> Result<Rule> {
    spec.check()
        .map_err(|e| Error::usage(format!("{what}: {e}")))?;
    let mut names = BTreeSet::new();
    for entry in &spec.reviewers {
        match entry.strip_prefix(GROUP_PREFIX) {
            Some(group) => {
                let mut any = false;
                for m in members
                    .iter()
                    .filter(|m| m.groups.iter().any(|g| g == group))
                {
                    names.insert(m.name.clone());
                    any = true;
                }
                if !any {
                    return Err(Error::usage(format!(
                        "{what}: group {group} has no reviewers (add one with: mastra-ask reviewer add NAME --group {group})"
                    )));
                }
            }
            None if members.iter().any(|m| &m.name == entry) => {
                names.insert(entry.clone());
            }
            None => {
                return Err(Error::usage(format!(
                    "{what}: no reviewer {entry} (list them with: mastra-ask reviewer list)"
                )))
            }
        }
    }
    let reviewers: Vec<String> = names.into_iter().collect();
    let starter = starter.filter(|s| !spec.allow_self && reviewers.iter().any(|r| r == s));
    let approvers: Vec<&str> = reviewers
        .iter()
        .map(String::as_str)
        .filter(|r| Some(*r) != starter)
        .collect();
    if spec.approvals as usize > approvers.len() {
        let without = starter
            .map(|s| format!(" (not {s}, who starts the run, without self-approval)"))
            .unwrap_or_default();
        return Err(Error::usage(format!(
            "{what} needs {} approvals, but only {} reviewer(s) may decide{without}: {}",
            spec.approvals,
            approvers.len(),
            or_none(&approvers)
        )));
    }
    Ok(Rule {
        reviewers,
        approvals: spec.approvals,
        allow_self: spec.allow_self,
    })
}

/// `names` joined for a message, or "nobody".
fn or_none(names: &[&str]) -> String {
    match names {
        [] => "nobody".to_string(),
        _ => names.join(", "),
    }
}

/// The policy a run stores, resolved in this transaction; `None` when none applies. A named
/// policy governs every item of the run (a job's own file cannot loosen it for a tool).
/// `starter`: the reviewer who starts the run, if they are one (they may not approve its
/// items unless a rule allows self-approval, so they do not count toward its approvals).
pub(super) fn resolve_spec(
    tx: &mut dyn Tx,
    spec: &PolicySpec,
    starter: Option<&str>,
    agent: &str,
) -> Result<Option<Policy>> {
    let tx = tx.policies();
    let Some(minimum) = tx.minimum(agent)? else {
        return resolve_own(tx, spec, starter);
    };
    let what = format!("policy {} (the minimum for agent {agent})", minimum.name);
    let floor = resolve_rule(&tx.members()?, &minimum.rule, &what, starter)?;
    let Some(own) = resolve_own(tx, spec, starter)? else {
        return Ok(Some(Policy {
            rule: Some(floor),
            tools: Default::default(),
            name: Some(minimum.name),
        }));
    };
    let tighten = |rule: &Rule| tightened(&floor, rule, &what, starter);
    Ok(Some(Policy {
        rule: Some(own.rule.as_ref().map_or(Ok(floor.clone()), tighten)?),
        tools: own
            .tools
            .iter()
            .map(|(tool, rule)| Ok((tool.clone(), tighten(rule)?)))
            .collect::<Result<_>>()?,
        name: own.name,
    }))
}

/// `rule` made at least as strict as `floor` (SPEC §15: a run's own review tightens its
/// agent's minimum, never weakens it): only reviewers both allow, the larger number of
/// approvals, self-approval only where both allow it. Nobody left to decide is refused.
fn tightened(floor: &Rule, rule: &Rule, what: &str, starter: Option<&str>) -> Result<Rule> {
    let reviewers: Vec<String> = rule
        .reviewers
        .iter()
        .filter(|r| floor.reviewers.contains(r))
        .cloned()
        .collect();
    let spec = RuleSpec {
        reviewers: reviewers.clone(),
        approvals: rule.approvals.max(floor.approvals),
        allow_self: rule.allow_self && floor.allow_self,
    };
    if reviewers.is_empty() {
        return Err(Error::usage(format!(
            "the run's review leaves nobody {what} allows: it may only tighten it (its reviewers are {})",
            floor.reviewers.join(", ")
        )));
    }
    let members: Vec<Member> = reviewers
        .iter()
        .map(|name| Member {
            name: name.clone(),
            groups: Vec::new(),
            created_at: 0,
        })
        .collect();
    resolve_rule(
        &members,
        &spec,
        &format!("the run's review within {what}"),
        starter,
    )
}

/// The policy the run's own review (its flags, its agent file, `--policy NAME`) gives it.
fn resolve_own(
    tx: &mut dyn PolicyTx,
    spec: &PolicySpec,
    starter: Option<&str>,
) -> Result<Option<Policy>> {
    if spec.is_empty() {
        return Ok(None);
    }
    let members = tx.members()?;
    if let Some(name) = &spec.named {
        let named = tx.named(name)?.ok_or_else(|| {
            Error::usage(format!(
                "no policy {name} (list them with: mastra-ask policy list)"
            ))
        })?;
        let rule = resolve_rule(&members, &named.rule, &format!("policy {name}"), starter)?;
        return Ok(Some(Policy {
            rule: Some(rule),
            tools: Default::default(),
            name: Some(name.clone()),
        }));
    }
    let rule = spec
        .rule
        .as_ref()
        .map(|r| resolve_rule(&members, r, "the run's review", starter))
        .transpose()?;
    let mut tools = std::collections::BTreeMap::new();
    for (tool, r) in &spec.tools {
        let what = format!("the review of tool {tool}");
        tools.insert(tool.clone(), resolve_rule(&members, r, &what, starter)?);
    }
    Ok(Some(Policy {
        rule,
        tools,
        name: None,
    }))
}

/// What an approval approved (SPEC §14.1): the digest of the arguments, and the arguments
/// when they are a person's changes.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Bound {
    pub args: Option<Value>,
    pub digest: Option<String>,
}

impl Bound {
    /// The resolution as the store records it; `claimed`: its `by` was typed with `--as`.
    pub fn resolving<'a>(
        &'a self,
        resolution: &'a Resolution,
        checked: &'a Checked,
        claimed: bool,
    ) -> Resolving<'a> {
        Resolving {
            resolution,
            checked,
            approved_args: self.args.as_ref(),
            digest: self.digest.as_deref(),
            claim: claimed.then_some(resolution.by.as_str()),
        }
    }
}

/// What a decision comes to.
pub(super) enum Ruling {
    /// It resolves the item: store this resolution, made by this checked identity, bound
    /// to these arguments.
    Resolve(Box<(Resolution, Checked, Bound)>),
    /// It was recorded; the item waits for `needed` more approvals.
    Partial {
        needed: u32,
        decisions: Vec<DecisionRecord>,
    },
}

/// Judges `d` on the pending call `call` of `run` in the transaction that records it:
/// checks who decides, binds an approval to its arguments (their digest, and the changed
/// ones when approved with changes), and under a policy records the decision and says
/// whether it resolves the item.
pub(super) fn ruling(
    tx: &mut dyn Tx,
    run: &RunRow,
    call_id: &str,
    call: &CallHead,
    d: &Decide,
    now: i64,
) -> Result<Ruling> {
    if matches!(d.identity, identity::Identity::Local { .. }) {
        identity::not_inside_agent(&run.id)?;
    }
    let kind = call.kind.unwrap_or(ItemKind::Question);
    let mut resolution = d.resolution.clone();
    let verdict = kind.verdict(&resolution.resume_data);
    let bound = bind_arguments(kind, verdict, call, d.args, call_id)?;
    let me = identity::check(tx, d.identity)?;
    let gate = run.gate()?;
    let Some(rule) = gate
        .policy
        .as_ref()
        .and_then(|p| p.rule_for(kind, &call.tool_name))
    else {
        return Ok(Ruling::Resolve(Box::new((resolution, me, bound))));
    };
    if d.claimed {
        return Err(Error::usage(format!(
            "--as names who decided only where no policy applies; under the policy of run {}, the decision is made as who you are ({me})",
            run.id
        )));
    }
    let earlier = tx.policies().decisions(run, call_id)?;
    let members: HashMap<String, i64> = tx
        .policies()
        .members()?
        .into_iter()
        .map(|m| (m.name, m.created_at))
        .collect();
    let digest = bound.digest.clone();
    let ballot = Ballot {
        run_id: &run.id,
        call_id,
        kind,
        rule,
        starter: gate.started_by.as_ref(),
        me: &me,
        verdict,
        digest: digest.as_deref(),
    };
    let judgement = judge(&ballot, &earlier, &members)?;
    let row = DecisionRow {
        record: DecisionRecord {
            run_id: run.id.clone(),
            call_id: call_id.to_string(),
            reviewer: me.name.clone(),
            verdict,
            digest,
            args: bound.args.clone(),
            via: resolution.via.as_str().to_string(),
            at: now,
            counts: true,
        },
        resume_data: resolution.resume_data.clone(),
        result: resolution.result.clone(),
    };
    tx.policies().insert_decision(run, &row)?;
    match judgement {
        Judgement::Resolves => {
            resolution.by = me.name.clone();
            Ok(Ruling::Resolve(Box::new((resolution, me, bound))))
        }
        Judgement::Partial { needed } => {
            // A decision of this reviewer's from before they were added again was replaced.
            let mut decisions: Vec<DecisionRecord> = earlier
                .into_iter()
                .map(|d| d.record)
                .filter(|d| d.reviewer != row.record.reviewer)
                .collect();
            decisions.push(row.record);
            Ok(Ruling::Partial { needed, decisions })
        }
    }
}

/// An approval records the digest of the arguments it approves (SPEC §14.1) and, approved
/// with changes, the changed arguments: the driver runs the tool only with arguments of
/// that digest.
fn bind_arguments(
    kind: ItemKind,
    verdict: Verdict,
    call: &CallHead,
    changed: Option<&Value>,
    call_id: &str,
) -> Result<Bound> {
    let approving = kind == ItemKind::Approval && verdict == Verdict::Approved;
    if changed.is_some() && !approving {
        return Err(Error::usage(format!(
            "changed arguments approve an approval item; tool call {call_id} is not being approved"
        )));
    }
    if !approving {
        return Ok(Bound::default());
    }
    let args = changed.unwrap_or(&call.args);
    Ok(Bound {
        args: changed.cloned(),
        digest: Some(review::digest(&call.tool_name, args)),
    })
}

/// One decision as the rules see it.
pub(super) struct Ballot<'a> {
    pub run_id: &'a str,
    pub call_id: &'a str,
    pub kind: ItemKind,
    pub rule: &'a Rule,
    pub starter: Option<&'a Checked>,
    pub me: &'a Checked,
    pub verdict: Verdict,
    pub digest: Option<&'a str>,
}

#[derive(Debug, PartialEq)]
pub(super) enum Judgement {
    Resolves,
    Partial { needed: u32 },
}

/// The rules of SPEC §14 for one decision, given the item's earlier decisions and the
/// active reviewers (with when each was added).
pub(super) fn judge(
    b: &Ballot,
    earlier: &[DecisionRow],
    members: &HashMap<String, i64>,
) -> Result<Judgement> {
    let who = who_may(b.rule, b.kind);
    let item = format!("{} {} of run {}", b.kind.noun(), b.call_id, b.run_id);
    let Some(reviewer) = b.me.reviewer() else {
        return Err(Error::Forbidden(format!(
            "{} maps to no reviewer, so it may not decide the {item}; its policy lets {who} decide",
            b.me
        )));
    };
    if !b.rule.allows(reviewer) || !members.contains_key(reviewer) {
        return Err(Error::Forbidden(format!(
            "reviewer {reviewer} may not decide the {item}; its policy lets {who} decide"
        )));
    }
    // A reviewer removed and added again decides anew: what they decided before no longer
    // counts (their new decision replaces it).
    let current = |r: &DecisionRecord| members.get(&r.reviewer).is_some_and(|added| *added <= r.at);
    if let Some(prev) = earlier
        .iter()
        .find(|d| d.record.reviewer == reviewer && current(&d.record))
    {
        return Err(Conflict::Decided {
            call: b.call_id.to_string(),
            by: reviewer.to_string(),
            verdict: prev.record.verdict,
        }
        .into());
    }
    let starter = b.starter.and_then(Checked::reviewer) == Some(reviewer);
    if starter && b.verdict.consents() && !b.rule.allow_self {
        let (consent, refuse) = b.kind.verbs();
        return Err(Error::Forbidden(format!(
            "reviewer {reviewer} started run {} and its policy does not allow self-approval, so they may not {} the {item} (they may {refuse} it); {who} may",
            b.run_id,
            consent,
        )));
    }
    if b.verdict != Verdict::Approved {
        return Ok(Judgement::Resolves);
    }
    let counted = earlier
        .iter()
        .filter(|d| {
            let r = &d.record;
            r.verdict == Verdict::Approved
                && r.digest.as_deref() == b.digest
                && b.rule.allows(&r.reviewer)
                && current(r)
        })
        .count()
        + 1;
    let counted = u32::try_from(counted).unwrap_or(u32::MAX);
    if counted >= b.rule.approvals {
        Ok(Judgement::Resolves)
    } else {
        Ok(Judgement::Partial {
            needed: b.rule.approvals - counted,
        })
    }
}

/// Who may decide under `rule`, for a message: "alice or bob" and, for more than one
/// approval, how many.
fn who_may(rule: &Rule, kind: ItemKind) -> String {
    let names = crate::domain::review::or_list(&rule.reviewers);
    if rule.approvals > 1 && kind.counts_approvals() {
        format!("{names} ({} approvals needed)", rule.approvals)
    } else {
        names
    }
}

/// Named policies (`policy set|list|remove`) and resolving a run's policy ahead of its
/// start; the same for every backend.
pub trait Policies: Backend {
    /// Keeps `rule` as policy `name` (replacing one of that name); its members as of now.
    /// The rule must resolve now: unknown names and empty groups are usage errors.
    fn set_policy(&self, name: &str, rule: &RuleSpec, for_agent: Option<&str>) -> Result<Rule> {
        if !is_name(name) {
            return Err(Error::usage(format!(
                "policy name {name:?} is not a name mastra-ask takes: 1 to 64 letters, digits, `.`, `_`, `-` or `@`, not starting with `-`"
            )));
        }
        if let Some(agent) = for_agent {
            super::reviewers::check_name("agent id", agent)?;
        }
        let now = now_ms();
        write(self, Durability::Durable, |tx| {
            let tx = tx.policies();
            let resolved = resolve_rule(&tx.members()?, rule, &format!("policy {name}"), None)?;
            let created_at = tx.named(name)?.map_or(now, |p| p.created_at);
            tx.put_named(&NamedPolicy {
                name: name.to_string(),
                rule: rule.clone(),
                created_at,
                updated_at: now,
                for_agent: for_agent.map(str::to_string),
            })?;
            Ok(resolved)
        })
    }

    /// Every named policy, by name, with its members as of now (or why it resolves to none).
    fn list_policies(&self) -> Result<Vec<(NamedPolicy, Result<Rule>)>> {
        write(self, Durability::Deferred, |tx| {
            let tx = tx.policies();
            let members = tx.members()?;
            Ok(tx
                .all_named()?
                .into_iter()
                .map(|p| {
                    let rule = resolve_rule(&members, &p.rule, &format!("policy {}", p.name), None);
                    (p, rule)
                })
                .collect())
        })
    }

    fn remove_policy(&self, name: &str) -> Result<()> {
        write(self, Durability::Durable, |tx| {
            if tx.policies().delete_named(name)? {
                Ok(())
            } else {
                Err(NotFound::Policy {
                    name: name.to_string(),
                }
                .into())
            }
        })
    }

    /// What a run of `agent` started now under `spec` would store (the resolver of
    /// `create_run`), by someone who is no reviewer of it.
    fn resolve_policy(&self, spec: &PolicySpec, agent: &str) -> Result<Option<Policy>> {
        write(self, Durability::Deferred, |tx| {
            resolve_spec(tx, spec, None, agent)
        })
    }
}

impl<B: Backend + ?Sized> Policies for B {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::review::CheckedAs;
    use serde_json::json;

    fn member(name: &str, groups: &[&str]) -> Member {
        Member {
            name: name.into(),
            groups: groups.iter().map(|g| g.to_string()).collect(),
            created_at: 0,
        }
    }

    fn spec(reviewers: &[&str], approvals: u32) -> RuleSpec {
        RuleSpec {
            reviewers: reviewers.iter().map(|r| r.to_string()).collect(),
            approvals,
            allow_self: false,
        }
    }

    #[test]
    fn rules_resolve_names_and_groups_once_and_refuse_what_cannot_decide() {
        let team = [
            member("alice", &["release"]),
            member("bob", &["release", "ops"]),
            member("carol", &[]),
        ];
        let rule = resolve_rule(
            &team,
            &spec(&["group:release", "carol", "bob"], 3),
            "r",
            None,
        )
        .unwrap();
        assert_eq!(rule.reviewers, ["alice", "bob", "carol"]);
        let e = |s: RuleSpec| resolve_rule(&team, &s, "the run's review", None).unwrap_err();
        assert_eq!(
            e(spec(&["dave"], 1)).to_string(),
            "the run's review: no reviewer dave (list them with: mastra-ask reviewer list)"
        );
        assert!(e(spec(&["group:qa"], 1))
            .to_string()
            .starts_with("the run's review: group qa has no reviewers"));
        assert_eq!(
            e(spec(&["group:ops"], 2)).to_string(),
            "the run's review needs 2 approvals, but only 1 reviewer(s) may decide: bob"
        );
        assert!(matches!(e(spec(&[], 1)), Error::Usage(_)));
    }

    fn checked(name: &str) -> Checked {
        Checked {
            name: name.into(),
            kind: CheckedAs::Reviewer,
        }
    }

    fn earlier(by: &str, verdict: Verdict, digest: Option<&str>, at: i64) -> DecisionRow {
        DecisionRow {
            record: DecisionRecord {
                run_id: "r".into(),
                call_id: "c".into(),
                reviewer: by.into(),
                verdict,
                digest: digest.map(str::to_string),
                args: None,
                via: "flag".into(),
                at,
                counts: true,
            },
            resume_data: json!({}),
            result: None,
        }
    }

    #[test]
    fn approvals_count_distinct_allowed_present_reviewers_of_the_same_digest() {
        let rule = Rule {
            reviewers: vec!["alice".into(), "bob".into(), "carol".into()],
            approvals: 2,
            allow_self: false,
        };
        let members: HashMap<String, i64> =
            [("alice".into(), 0), ("bob".into(), 0), ("carol".into(), 5)].into();
        let me = checked("bob");
        let ballot = |verdict, digest| Ballot {
            run_id: "r",
            call_id: "c",
            kind: ItemKind::Approval,
            rule: &rule,
            starter: None,
            me: &me,
            verdict,
            digest,
        };
        let approve = ballot(Verdict::Approved, Some("d1"));
        assert_eq!(
            judge(&approve, &[], &members).unwrap(),
            Judgement::Partial { needed: 1 }
        );
        let alice = earlier("alice", Verdict::Approved, Some("d1"), 1);
        assert_eq!(
            judge(&approve, std::slice::from_ref(&alice), &members).unwrap(),
            Judgement::Resolves
        );
        // Changed arguments restart the count; carol's approval came before she was
        // added (again), so it does not count either.
        let other = earlier("alice", Verdict::Approved, Some("d2"), 1);
        let stale = earlier("carol", Verdict::Approved, Some("d1"), 1);
        assert_eq!(
            judge(&approve, &[other, stale], &members).unwrap(),
            Judgement::Partial { needed: 1 }
        );
        // A decline decides at once; a second decision by the same reviewer conflicts.
        assert_eq!(
            judge(&ballot(Verdict::Declined, None), &[], &members).unwrap(),
            Judgement::Resolves
        );
        let again = earlier("bob", Verdict::Approved, Some("d1"), 1);
        assert!(matches!(
            judge(&approve, std::slice::from_ref(&again), &members),
            Err(Error::Conflict(Conflict::Decided { .. }))
        ));
        // Removed and added again (at 5), bob decides anew; his earlier approval is gone.
        let mut readded = members.clone();
        readded.insert("bob".into(), 5);
        assert_eq!(
            judge(&approve, &[again, alice], &readded).unwrap(),
            Judgement::Resolves
        );
    }

    #[test]
    fn refusals_name_who_may_decide() {
        let rule = Rule {
            reviewers: vec!["alice".into(), "bob".into()],
            approvals: 2,
            allow_self: false,
        };
        let members: HashMap<String, i64> = [("alice".into(), 0), ("bob".into(), 0)].into();
        let refuse = |me: Checked, starter: Option<Checked>, verdict| {
            let b = Ballot {
                run_id: "r",
                call_id: "c",
                kind: ItemKind::Plan,
                rule: &rule,
                starter: starter.as_ref(),
                me: &me,
                verdict,
                digest: None,
            };
            judge(&b, &[], &members).map_err(|e| e.to_string())
        };
        let os = Checked {
            name: "root".into(),
            kind: CheckedAs::OsUser,
        };
        assert_eq!(
            refuse(os, None, Verdict::Approved).unwrap_err(),
            "OS user root maps to no reviewer, so it may not decide the plan c of run r; its policy lets alice or bob (2 approvals needed) decide"
        );
        assert_eq!(
            refuse(checked("carol"), None, Verdict::Rejected).unwrap_err(),
            "reviewer carol may not decide the plan c of run r; its policy lets alice or bob (2 approvals needed) decide"
        );
        assert_eq!(
            refuse(checked("alice"), Some(checked("alice")), Verdict::Approved).unwrap_err(),
            "reviewer alice started run r and its policy does not allow self-approval, so they may not approve the plan c of run r (they may reject it); alice or bob (2 approvals needed) may"
        );
        assert_eq!(
            refuse(checked("alice"), Some(checked("alice")), Verdict::Rejected),
            Ok(Judgement::Resolves)
        );
    }
}
