//! Serve under a run's policy (SPEC §14), through the real binary and real HTTP: a reviewer
//! the policy does not name is refused with 403 `FORBIDDEN` (the API) or a 403 page (a
//! form) and nothing is recorded; the first of two needed approvals is a 200 whose
//! `Mastra-Ask-Outcome` is `partial`, the item stays pending, and its page says who
//! approved and who may still.

use serde_json::json;

use super::harness::{item_state, only_item, reviewer, Served};
use crate::common::Env;

/// A pending plan two of alice, bob and carol must approve; its run and tool call ids.
pub fn two_of_three(env: &Env) -> (String, String) {
    env.write("work/PLAN.md", "# Ship\n\n- tag v2\n");
    let out = env
        .cmd(&[
            "plan",
            "PLAN.md",
            "--reviewer",
            "alice",
            "--reviewer",
            "bob",
            "--reviewer",
            "carol",
            "--approvals",
            "2",
        ])
        .code(75);
    let run = out.stdout.trim().to_string();
    let call = only_item(env, &run);
    (run, call)
}

#[test]
fn a_reviewer_outside_the_policy_is_403_and_a_first_approval_is_partial() {
    let env = Env::new();
    let alice = reviewer(&env, "alice");
    let bob = reviewer(&env, "bob");
    reviewer(&env, "carol");
    let dave = reviewer(&env, "dave");
    let (run, call) = two_of_three(&env);
    let served = Served::start(&env, &[]);
    let approve = json!({"runId": run, "toolCallId": call, "resumeData": {"action": "approved"}});

    let refused = served.api("/agents/plan/resume-stream", &dave, &approve);
    assert_eq!(refused.status, 403, "{}", refused.body);
    let v = refused.json();
    assert_eq!(v["code"], "FORBIDDEN", "{v}");
    assert!(v["error"].as_str().unwrap().contains("dave"), "{v}");
    assert_eq!(item_state(&env, &run, &call).0, "pending");
    let decisions = |env: &Env| env.show(&run)["suspensions"][0]["decisions"].clone();
    assert!(
        decisions(&env).as_array().is_none_or(Vec::is_empty),
        "{}",
        decisions(&env)
    );

    let d = served.sign_in(&dave);
    let item = format!("/runs/{run}/items/{call}");
    let page = served.submit(&d, &item, &[("action", "approved"), ("feedback", "")]);
    assert_eq!(page.status, 403, "{}", page.body);
    assert!(page.body.contains("dave"), "{}", page.body);
    assert_eq!(item_state(&env, &run, &call).0, "pending");

    let first = served.api("/agents/plan/resume-stream", &alice, &approve);
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.header("mastra-ask-outcome"), Some("partial"));
    assert!(
        first
            .body
            .contains("1 of 2 approvals: alice approved; waiting for 1 more from bob or carol"),
        "{}",
        first.body
    );
    assert_eq!(first.frames().last(), Some(&json!("[DONE]")));
    assert_eq!(item_state(&env, &run, &call).0, "pending");
    assert_eq!(env.status(&run), "suspended");
    let d = decisions(&env);
    assert_eq!(
        (
            d.as_array().map(Vec::len),
            d[0]["by"].clone(),
            d[0]["via"].clone()
        ),
        (Some(1), json!("alice"), json!("api")),
        "{d}"
    );

    let s = served.sign_in(&bob);
    let page = served.page(&s, &item);
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body
            .contains("1 of 2 approvals: alice approved; waiting for 1 more from bob or carol"),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("alice approved via api at "),
        "{}",
        page.body
    );
}
