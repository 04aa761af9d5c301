//! `mastra-ask --server <serve>` under a run's policy (SPEC §14, §5.5), real processes on
//! both sides: a decision the policy refuses is serve's 403 `FORBIDDEN`, which the client
//! exits 77 on with serve's message (who may decide) and nothing changed; a decision the
//! policy needs more of is `Mastra-Ask-Outcome: partial`, which the client exits 75 on with
//! the same "1 of 2 approvals" line a local command prints; the last needed one resolves.

use serde_json::{json, Value};

use super::harness::{item_state, reviewer, Served};
use crate::command_tools::tag_runs;
use crate::common::{Env, Out};
use crate::policy_fixture::{of_group, tagging_agent};

/// `mastra-ask --db ledger.db --server <serve> ARGS` signed in with `token`.
fn client(env: &Env, served: &Served, token: &str, args: &[&str]) -> Out {
    let mut all = vec!["--db", "ledger.db", "--server", served.base.as_str()];
    all.extend_from_slice(args);
    let mut c = env.command(&all);
    c.env("MASTRA_SERVER_TOKEN", token);
    env.run_with(c)
}

fn decisions(env: &Env, run: &str) -> Value {
    env.show(run)["suspensions"][0]["decisions"].clone()
}

#[test]
fn a_plan_through_the_client_is_77_outside_the_policy_then_75_then_resolved() {
    let env = Env::new();
    let alice = reviewer(&env, "alice");
    let bob = reviewer(&env, "bob");
    reviewer(&env, "carol");
    let dave = reviewer(&env, "dave");
    let (run, call) = super::policy::two_of_three(&env);
    let served = Served::start(&env, &[]);
    let api = format!("{}/api", served.base);

    let before = env.dump();
    let refused = client(&env, &served, &dave, &["review", &run, "--approve"]);
    refused.assert_code(77);
    assert!(
        refused.stderr.contains(&format!(
            "error: {api} refused the decision: reviewer dave may not decide the plan {call} of run {run}; its policy lets alice, bob or carol (2 approvals needed) decide"
        )),
        "{}",
        refused.stderr
    );
    assert_eq!(env.dump(), before, "a refusal changes nothing");

    let first = client(&env, &served, &alice, &["review", &run, "--approve"]);
    first.assert_code(75);
    assert!(
        first.stderr.contains(&format!(
            "recorded on {api}; 1 of 2 approvals: alice approved; waiting for 1 more from bob or carol"
        )),
        "{}",
        first.stderr
    );
    assert_eq!(item_state(&env, &run, &call).0, "pending");
    assert_eq!(decisions(&env, &run)[0]["by"], "alice");

    // The same ledger answers again: a partial decision is no answer that was delivered.
    let last = client(&env, &served, &bob, &["review", &run, "--approve"]);
    last.assert_code(0);
    assert_eq!(env.status(&run), "completed");
    let d = decisions(&env, &run);
    assert_eq!(
        (d.as_array().map(Vec::len), d[1]["by"].clone()),
        (Some(2), json!("bob")),
        "{d}"
    );
}

#[test]
fn an_approval_through_the_client_is_77_then_75_and_the_tool_runs_once() {
    let env = Env::new();
    let r1 = added(&env, "r1");
    let r2 = added(&env, "r2");
    let outsider = reviewer(&env, "outsider");
    let review = of_group("release", 2);
    let agent = tagging_agent(&env, json!({"version": "v2"}), Some(review));
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    let served = Served::start(&env, &[]);
    let api = format!("{}/api", served.base);

    let before = env.dump();
    let refused = client(&env, &served, &outsider, &["approve", &run]);
    refused.assert_code(77);
    assert!(
        refused.stderr.contains(&format!(
            "error: {api} refused the decision: reviewer outsider may not"
        )),
        "{}",
        refused.stderr
    );
    assert_eq!(env.dump(), before, "a refusal changes nothing");

    let first = client(&env, &served, &r1, &["approve", &run]);
    first.assert_code(75);
    assert!(
        first.stderr.contains(&format!(
            "recorded on {api}; 1 of 2 approvals: r1 approved; waiting for 1 more from r2"
        )),
        "{}",
        first.stderr
    );
    assert_eq!(tag_runs(&env), 0);
    client(&env, &served, &r2, &["approve", &run]).assert_code(0);
    env.run(&["resume", &run]).assert_code(0);
    assert_eq!(tag_runs(&env), 1, "the tool ran once");
}

/// What is still needed reaches the client whatever the arguments an earlier approval with
/// changes approved (an HTTP header carries ASCII only: the rest is escaped).
#[test]
fn a_partial_approval_after_changes_in_any_script_says_what_is_needed() {
    let env = Env::new();
    added(&env, "r1");
    let r2 = added(&env, "r2");
    added(&env, "r3");
    let agent = tagging_agent(&env, json!({"version": "v2"}), Some(of_group("release", 2)));
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    let changed = json!({"version": "v3-é\u{202e}"});
    crate::policy_cli::decides_with(&env, &run, "r1", json!({"approved": true}), Some(&changed))
        .unwrap();
    let served = Served::start(&env, &[]);
    let api = format!("{}/api", served.base);
    let second = client(&env, &served, &r2, &["approve", &run]);
    second.assert_code(75);
    assert!(
        second.stderr.contains(&format!(
            r#"recorded on {api}; 1 of 2 approvals: r1 approved with changes: {{"version":"v3-\u{{e9}}\u{{202e}}"}}; r2 approved; waiting for 1 more from r3"#
        )),
        "{}",
        second.stderr
    );
}

/// A reviewer of the group `release`; its token.
fn added(env: &Env, name: &str) -> String {
    let out = env.run(&["reviewer", "add", name, "--group", "release"]);
    out.assert_code(0);
    out.stdout.trim().to_string()
}
