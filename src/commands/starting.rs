//! How `run`, `ask` and `plan` start a run, from their flags (`WaitFlags`) to the run
//! layer's neutral `Watched`: whether this process waits, its deadline, the items' expiry,
//! and the new run's review (SPEC §14): `--reviewer`, `--approvals`, `--allow-self` replace
//! the agent file's `review` (its command tools keep their own); `--policy NAME` names one
//! an administrator keeps; `--on-expiry` and `--escalate-after` are stored with the run. The
//! store resolves names and groups to members when it creates the run; nothing is resolved
//! here. Also the review flags a `--server` cannot carry.

use anyhow::Result;

use crate::cli::{Command, OnExpiryArg, ReviewFlags, WaitFlags};
use crate::domain::review::{OnExpiry, PolicySpec, RuleSpec};
use crate::error::{fail, Error};
use crate::runner::start::Watched;
use crate::runner::Context;
use crate::store::RunReview;

/// How a run started under `flags` by an agent whose own review is `agent` is watched and
/// reviewed.
pub fn watched(ctx: &Context, flags: &WaitFlags, agent: PolicySpec) -> Result<Watched> {
    Ok(Watched {
        wait: flags.wait,
        timeout: flags.timeout,
        expires_in: flags.expires_in,
        review: run_review(&flags.review, agent)?,
        on_escalate: on_escalate(ctx, flags),
    })
}

/// What the store resolves and keeps with a run started under `flags` by an agent whose
/// own review is `agent` (the agent file's `review` and its command tools'). Invalid flags
/// are usage errors (exit 2), before anything is stored.
pub fn run_review(flags: &ReviewFlags, agent: PolicySpec) -> Result<RunReview> {
    let mut policy = agent;
    if !flags.reviewers.is_empty() {
        let rule = RuleSpec {
            reviewers: flags.reviewers.clone(),
            approvals: flags.approvals.unwrap_or(1),
            allow_self: flags.allow_self,
        };
        if let Err(problem) = rule.check() {
            let problem = problem
                .replace("review.reviewers", "--reviewer")
                .replace("review.approvals", "--approvals");
            return fail(Error::usage(problem));
        }
        policy.rule = Some(rule);
    }
    if let Some(name) = &flags.policy {
        // A named policy governs every item: the agent's own rules do not weaken it.
        policy = PolicySpec {
            named: Some(name.clone()),
            ..PolicySpec::default()
        };
    }
    let mut review = RunReview::local(policy);
    review.on_expiry = match flags.on_expiry {
        None | Some(OnExpiryArg::Fail) => OnExpiry::Fail,
        Some(OnExpiryArg::Decline) => OnExpiry::Decline,
        Some(OnExpiryArg::Reject) => OnExpiry::Reject,
    };
    review.escalate_after = flags.escalate_after;
    Ok(review)
}

/// The command a new run's waiter runs at escalation, if it will have one; warns when
/// nobody here will watch the run for `--escalate-after` (a `serve` may).
fn on_escalate(ctx: &Context, flags: &WaitFlags) -> Option<String> {
    let after = flags.review.escalate_after?;
    let cmd = flags
        .review
        .on_escalate
        .clone()
        .filter(|c| !c.trim().is_empty());
    // A person at the terminal answers right here, and so watches the run.
    let waits = flags.wait || ctx.interactive();
    let missing = match (waits, &cmd) {
        (false, _) => Some("no waiter will watch this run (--wait)"),
        (true, None) => Some("this waiter has no --on-escalate command to run"),
        (true, Some(_)) => None,
    };
    if let Some(missing) = missing {
        ctx.report.warn(&format!(
            "--escalate-after {}: {missing}; a serve with --on-escalate may escalate its items",
            crate::duration::show(after)
        ));
    }
    cmd.filter(|_| waits)
}

/// With `--server`: the flags a Mastra server's API cannot carry, refused before any
/// request (SPEC §14.1: changed arguments; a policy is this store's, not the server's).
pub fn refuse_with_server(command: &Command) -> Result<()> {
    let flag = match command {
        Command::Approve(a) if a.args.is_some() => Some("approve --args"),
        Command::Approve(a) if a.decision.all => Some("approve --all"),
        Command::Decline(a) if a.decision.all => Some("decline --all"),
        Command::Run(a) if sets_review(&a.wait.review) => {
            Some("run --reviewer/--policy/--on-expiry/--escalate-after")
        }
        _ => None,
    };
    match flag {
        Some(flag) => fail(
            Error::usage(format!(
                "{flag} does not work with --server: Mastra's API cannot carry it"
            ))
            .with_hint(
                "leave out --server (and unset MASTRA_SERVER_URL) to decide this store's runs",
            ),
        ),
        None => Ok(()),
    }
}

fn sets_review(f: &ReviewFlags) -> bool {
    !f.reviewers.is_empty()
        || f.policy.is_some()
        || f.on_expiry.is_some()
        || f.escalate_after.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_replace_the_agents_rule_and_a_named_policy_replaces_all() {
        let agent = PolicySpec {
            rule: Some(RuleSpec {
                reviewers: vec!["carol".into()],
                approvals: 1,
                allow_self: false,
            }),
            tools: vec![(
                "deploy".into(),
                RuleSpec {
                    reviewers: vec!["dave".into()],
                    approvals: 1,
                    allow_self: false,
                },
            )],
            named: None,
        };
        let flags = ReviewFlags {
            reviewers: vec!["group:release".into()],
            approvals: Some(2),
            allow_self: true,
            on_expiry: Some(OnExpiryArg::Decline),
            ..ReviewFlags::default()
        };
        let r = run_review(&flags, agent.clone()).unwrap();
        let rule = r.policy.rule.unwrap();
        assert_eq!(
            (rule.reviewers, rule.approvals, rule.allow_self),
            (vec!["group:release".to_string()], 2, true)
        );
        assert_eq!(r.policy.tools, agent.tools);
        assert_eq!(r.on_expiry, OnExpiry::Decline);
        let named = ReviewFlags {
            policy: Some("release".into()),
            ..ReviewFlags::default()
        };
        let r = run_review(&named, agent.clone()).unwrap();
        assert_eq!(
            r.policy,
            PolicySpec {
                named: Some("release".into()),
                ..Default::default()
            }
        );
        let zero = ReviewFlags {
            reviewers: vec!["alice".into()],
            approvals: Some(0),
            ..ReviewFlags::default()
        };
        assert_eq!(
            run_review(&zero, PolicySpec::default())
                .unwrap_err()
                .to_string(),
            "--approvals must be between 1 and 64"
        );
        assert_eq!(
            run_review(&ReviewFlags::default(), agent.clone())
                .unwrap()
                .policy,
            agent
        );
    }
}
