//! Serve's own hooks under a policy (SPEC §13, §14), with real serve processes: `--on-escalate`
//! runs once per item whose `--escalate-after` passed in a run nobody waits for, even with
//! two serves watching the store; and every hook's line (a run's `--on-suspend`, serve's
//! `--on-suspend`, serve's `--on-escalate`) carries the item's `policy` and `decisions`
//! exactly as `pending -o json` prints them; a failing `--on-escalate` is told once and
//! holds nothing up.

use std::time::Duration;

use serde_json::{json, Value};

use mastra_ask::domain::{Resolution, Via};
use mastra_ask::store::{self, Access, Decide, Identity, Location};

use super::harness::Served;
use crate::common::{never, Env};
use crate::policy_fixture::{of_group, reviewers, tagging_agent};

/// The reviewers alice and bob of the group `release`, and an agent whose `tag_release`
/// needs both of them.
fn release_agent(env: &Env) -> String {
    reviewers(env, "release", &["alice", "bob"]);
    let review = of_group("release", 2);
    tagging_agent(env, json!({"version": "v2"}), Some(review))
}

/// alice approves `c1` of `run` through the store, as serve would: 1 of 2.
fn alice_approves(env: &Env, run: &str) {
    let store = store::open(&Location::resolve(Some(&env.store.url())), Access::Existing)
        .unwrap()
        .unwrap();
    let resolution = Resolution {
        resume_data: json!({"approved": true}),
        result: None,
        by: "alice".into(),
        via: Via::Api,
    };
    let identity = Identity::Reviewer("alice".into());
    let d = Decide {
        resolution: &resolution,
        identity: &identity,
        claimed: false,
        args: None,
    };
    assert!(matches!(
        store.decide(run, "c1", &d, None).unwrap(),
        store::Resolved::Partial { .. }
    ));
}

/// The JSON lines a hook appended to `work/NAME`.
fn hook_lines(env: &Env, name: &str) -> Vec<Value> {
    std::fs::read_to_string(env.path(&format!("work/{name}")))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A hook that appends its stdin, one line per item, to `work/NAME`.
fn appending(name: &str) -> String {
    format!("cat >> {name}; echo >> {name}")
}

/// `pending -o json`'s line for `run`.
fn pending_line(env: &Env, run: &str) -> Value {
    let out = env.run(&["pending", "--run", run, "-o", "json"]);
    out.assert_code(0);
    serde_json::from_str(out.stdout.lines().next().unwrap()).unwrap()
}

#[test]
fn two_serves_escalate_an_item_once_with_its_policy_and_decisions() {
    let env = Env::new();
    let agent = release_agent(&env);
    let (out, run) = env.start(&agent, &["--escalate-after", "1s"]);
    out.assert_code(75);
    alice_approves(&env, &run);
    let hook = appending("escalated.log");
    let _one = Served::start(&env, &["--on-escalate", &hook]);
    let _two = Served::start(&env, &["--on-escalate", &hook]);
    env.poll("the escalation", || {
        !hook_lines(&env, "escalated.log").is_empty()
    });
    // Both serves keep looking (every second) and neither runs it again.
    never(
        "the escalation ran again",
        Duration::from_millis(2500),
        || hook_lines(&env, "escalated.log").len() > 1,
    );
    let lines = hook_lines(&env, "escalated.log");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let pending = pending_line(&env, &run);
    assert_eq!(
        (&lines[0]["runId"], &lines[0]["toolCallId"]),
        (&json!(run), &json!("c1"))
    );
    assert_eq!(lines[0]["policy"], pending["policy"], "{}", lines[0]);
    assert_eq!(lines[0]["decisions"], pending["decisions"], "{}", lines[0]);
    assert_eq!(
        lines[0]["decisions"][0]["by"],
        json!("alice"),
        "{}",
        lines[0]
    );
    assert_eq!(
        env.count(
            "SELECT count(*) FROM calls WHERE escalated_at IS NOT NULL",
            &[]
        ),
        1
    );
}

#[test]
fn a_failing_escalation_command_is_told_once_and_serve_keeps_serving() {
    let env = Env::new();
    let agent = release_agent(&env);
    let (out, run) = env.start(&agent, &["--escalate-after", "1s"]);
    out.assert_code(75);
    let served = Served::start(&env, &["--on-escalate", "cat > /dev/null; exit 3"]);
    let told = format!("warning: --on-escalate command for {run} c1 failed (exit status: 3)");
    env.poll("the failure told", || served.log().contains(&told));
    // It is not run again each second: the escalation was claimed once, before it ran.
    never(
        "the failing escalation ran again",
        Duration::from_millis(2500),
        || served.log().matches(&told).count() > 1,
    );
    assert_eq!(served.log().matches(&told).count(), 1, "{}", served.log());
    assert_eq!(
        env.count(
            "SELECT count(*) FROM calls WHERE escalated_at IS NOT NULL",
            &[]
        ),
        1
    );
    assert_eq!(served.get("/healthz", &[]).status, 200);
    assert_eq!(env.status(&run), "suspended");
}

#[test]
fn serve_escalates_nothing_without_its_own_command() {
    let env = Env::new();
    let agent = release_agent(&env);
    let (out, _run) = env.start(&agent, &["--escalate-after", "1s"]);
    out.assert_code(75);
    let _served = Served::start(&env, &[]);
    let claimed = || {
        env.count(
            "SELECT count(*) FROM calls WHERE escalated_at IS NOT NULL",
            &[],
        )
    };
    never(
        "an escalation nobody ran is left for a watcher with a command",
        Duration::from_millis(2500),
        || claimed() > 0,
    );
}

#[test]
fn suspension_hooks_carry_the_policy_as_pending_does() {
    let env = Env::new();
    let agent = release_agent(&env);
    // A run's own hook.
    let (out, run) = env.start(&agent, &["--on-suspend", &appending("run-hook.log")]);
    out.assert_code(75);
    let lines = hook_lines(&env, "run-hook.log");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let pending = pending_line(&env, &run);
    assert_eq!(
        pending["policy"],
        json!({"reviewers": ["alice", "bob"], "approvals": 2, "allowSelf": false})
    );
    assert_eq!(lines[0]["policy"], pending["policy"], "{}", lines[0]);
    assert_eq!(lines[0]["decisions"], json!([]), "{}", lines[0]);

    // Serve's own hook, for an item that becomes pending while it watches.
    let _served = Served::start(&env, &["--on-suspend", &appending("serve-hook.log")]);
    let (out, second) = env.start(&agent, &[]);
    out.assert_code(75);
    env.poll("serve's hook", || {
        !hook_lines(&env, "serve-hook.log").is_empty()
    });
    let lines = hook_lines(&env, "serve-hook.log");
    assert_eq!(lines[0]["runId"], json!(second), "{}", lines[0]);
    assert_eq!(
        lines[0]["policy"],
        pending_line(&env, &second)["policy"],
        "{}",
        lines[0]
    );
    assert_eq!(lines[0]["decisions"], json!([]), "{}", lines[0]);
}
