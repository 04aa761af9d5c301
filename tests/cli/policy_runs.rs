//! What the driver does with decisions made under SPEC §14 and §14.1, with real runs of the
//! binary (decisions recorded through the store's API until the commands take identities):
//! an approval with changes runs the tool with the approved arguments, tells the model and
//! shows them in `tool-result`; arguments that no longer match the approved digest never
//! run; an approval closed at its deadline under `decline` never runs and the model is told
//! it expired; of eight reviewers racing on the last needed approval one resolves it and
//! the tool runs once.

use std::sync::{Arc, Barrier};

use serde_json::{json, Value};

use mastra_ask::domain::{Resolution, Via};
use mastra_ask::store::{self, Access, Decide, Identity, Location, Resolved, Store};

use crate::assert_shown;
use crate::command_tools::{event, tag_runs, tool_message};
use crate::common::Env;
use crate::policy_fixture::{of_group, reviewers, tagging_agent};

/// A run suspended on `tag_release {"version":"v2"}` (`c1`), whose tool carries `review`
/// (if any); its model then says "done".
fn suspended(env: &Env, review: Option<Value>) -> String {
    env.suspended(&tagging_agent(env, json!({"version": "v2"}), review))
}

fn open(env: &Env) -> Box<dyn Store> {
    store::open(&Location::resolve(Some(&env.store.url())), Access::Existing)
        .unwrap()
        .unwrap()
}

fn approval() -> Resolution {
    Resolution {
        resume_data: json!({"approved": true}),
        result: None,
        by: "tester".into(),
        via: Via::Flag,
    }
}

/// Approves `c1` as `who` (this process's user when `None`), recording only.
fn approve(
    store: &dyn Store,
    run: &str,
    who: Option<&str>,
    args: Option<&Value>,
) -> store::Result<Resolved> {
    let resolution = approval();
    let identity = match who {
        Some(name) => Identity::Reviewer(name.into()),
        None => Identity::local(),
    };
    let d = Decide {
        resolution: &resolution,
        identity: &identity,
        claimed: false,
        args,
    };
    store.decide(run, "c1", &d, None)
}

#[test]
fn approved_with_changes_the_tool_runs_with_them_and_the_model_is_told() {
    let env = Env::new();
    let run = suspended(&env, None);
    let changed = json!({"version": "v3"});
    let r = approve(open(&env).as_ref(), &run, None, Some(&changed)).unwrap();
    assert!(matches!(r, Resolved::Resumed { driving: false, .. }));
    env.run(&["resume", &run]).assert_code(0);
    assert_eq!(env.status(&run), "completed");
    let log = std::fs::read_to_string(env.path("work/tagged.log")).unwrap();
    assert_eq!(
        log, "{\"version\":\"v3\"}\n",
        "the tool ran once, with the changes"
    );
    let result = event(&env, &run, "tool-result");
    assert_eq!(result["args"], changed);
    assert_eq!(result["result"], json!({"tagged": {"version": "v3"}}));
    let told = tool_message(&env, &run, "c1");
    assert!(
        told.starts_with(
            "The user changed the arguments before approving this call; the tool ran with {\"version\":\"v3\"} in place of {\"version\":\"v2\"}. Its result: {\"tagged\":{\"version\":\"v3\"}}"
        ),
        "{told}"
    );
    // Both argument sets are kept; the resume data stays Mastra's.
    let item = open(&env).calls(&run).unwrap().remove(0);
    assert_eq!(item.args, json!({"version": "v2"}));
    assert_eq!(item.approved_args, Some(changed.clone()));
    assert_eq!(item.resume_data, Some(json!({"approved": true})));
    assert_eq!(
        item.digest.as_deref(),
        Some(mastra_ask::domain::review::digest("tag_release", &changed).as_str())
    );
}

#[test]
fn arguments_that_are_not_the_approved_ones_never_run() {
    let env = Env::new();
    let run = suspended(&env, None);
    approve(open(&env).as_ref(), &run, None, None).unwrap();
    // The call's arguments are rewritten after the approval (only the store's owner can,
    // on PostgreSQL; anyone who can write the file, on SQLite).
    env.exec(
        &format!(
            "UPDATE calls SET args = ?2 WHERE {} AND call_id = 'c1'",
            env.of_run()
        ),
        &[&run, r#"{"version":"v9"}"#],
    );
    env.run(&["resume", &run]).assert_code(0);
    assert_eq!(tag_runs(&env), 0, "the tool never ran");
    let error = event(&env, &run, "tool-error");
    assert_eq!(error["error"]["name"], "ApprovalMismatchError");
    assert_eq!(
        error["error"]["message"],
        "Tool \"tag_release\" was not run: its arguments are not the ones that were approved"
    );
}

#[test]
fn an_approval_declined_by_its_deadline_never_runs_and_the_model_is_told() {
    let env = Env::new();
    let agent = tagging_agent(&env, json!({"version": "v2"}), None);
    let (out, run) = env.start(&agent, &["--expires-in", "1s"]);
    out.assert_code(75);
    // What `--on-expiry decline` stores (the flag comes with the commands' part of issue 20).
    env.exec(
        "UPDATE runs SET on_expiry = 'decline' WHERE id = ?1",
        &[&run],
    );
    env.poll("the deadline", || {
        env.run(&["pending", "-q"]);
        env.status(&run) == "running"
    });
    env.run(&["resume", &run]).assert_code(0);
    assert_eq!(env.status(&run), "completed");
    assert_eq!(tag_runs(&env), 0, "a declined tool never runs");
    let denied = event(&env, &run, "tool-output-denied");
    let reason = mastra_ask::tools::expired::DECLINED;
    assert_eq!(
        denied["approval"],
        json!({"id": "c1", "approved": false, "reason": reason})
    );
    assert_eq!(tool_message(&env, &run, "c1"), reason);
    let item = &env.show(&run)["suspensions"][0];
    assert_eq!(item["state"], "expired");
}

#[test]
fn eight_reviewers_racing_on_the_last_approval_resolve_it_once_and_the_tool_runs_once() {
    let env = Env::new();
    let names: Vec<String> = (1..=9).map(|i| format!("r{i}")).collect();
    reviewers(&env, "racers", &names);
    let run = suspended(&env, Some(of_group("racers", 2)));
    let first = approve(open(&env).as_ref(), &run, Some("r1"), None).unwrap();
    assert!(matches!(first, Resolved::Partial { needed: 1, .. }));
    let outcomes: Vec<String> = std::thread::scope(|s| {
        let barrier = Arc::new(Barrier::new(8));
        let handles: Vec<_> = (2..=9)
            .map(|i| {
                let (barrier, env, run) = (barrier.clone(), &env, &run);
                s.spawn(move || {
                    let store = open(env);
                    barrier.wait();
                    match approve(store.as_ref(), run, Some(&format!("r{i}")), None) {
                        Ok(Resolved::Resumed { .. }) => "resolved".to_string(),
                        Ok(other) => format!("{other:?}"),
                        Err(e) => e.to_string(),
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let resolved = outcomes.iter().filter(|o| *o == "resolved").count();
    let refused = outcomes
        .iter()
        .filter(|o| o.starts_with("tool call c1 is not pending: it was resolved by r"))
        .count();
    assert_eq!((resolved, refused), (1, 7), "{outcomes:?}");
    env.run(&["resume", &run]).assert_code(0);
    assert_eq!(tag_runs(&env), 1, "the tool ran once");
    let decisions = open(&env).decisions(&run).unwrap();
    assert_eq!(decisions.len(), 2);
    assert_eq!(decisions[0].reviewer, "r1");
}

#[test]
fn named_policies_are_set_listed_and_removed() {
    let env = Env::new();
    // Names must resolve when the policy is set.
    let out = env
        .cmd(&["policy", "set", "release", "--reviewer", "group:release"])
        .code(2);
    assert!(
        out.stderr.starts_with(
            "error: policy release: group release has no reviewers (add one with: mastra-ask reviewer add NAME --group release)"
        ),
        "{}",
        out.stderr
    );
    reviewers(&env, "release", &["alice", "bob"]);
    let set = |approvals: &str| {
        env.run(&[
            "policy",
            "set",
            "release",
            "--reviewer",
            "group:release",
            "--approvals",
            approvals,
        ])
    };
    let out = set("3");
    out.assert_code(2);
    assert_shown!(env, out.stderr, @"error: policy release needs 3 approvals, but only 2 reviewer(s) may decide: alice, bob");
    let out = set("2");
    out.assert_code(0);
    assert_eq!(
        out.stderr,
        "policy release set: alice, bob may decide (2 approvals; never the run's starter)\n"
    );
    let out = env.cmd(&["policy", "list"]).code(0);
    assert_eq!(
        out.stdout,
        "release  group:release  alice, bob may decide (2 approvals; never the run's starter)\n"
    );
    let out = env.run(&["policy", "list", "-o", "json"]);
    let line = &out.json_lines()[0];
    assert_eq!(line["members"], json!(["alice", "bob"]));
    assert_eq!(line["reviewers"], json!(["group:release"]));
    // A member removed later: the policy lists why no run can start under it.
    env.run(&["reviewer", "remove", "bob"]).assert_code(0);
    let out = env.run(&["policy", "list"]);
    assert_eq!(
        out.stdout,
        "release  group:release  no run can start under it now: policy release needs 2 approvals, but only 1 reviewer(s) may decide: alice\n"
    );
    for bad in [
        vec!["policy", "set", "-x", "--reviewer", "alice"],
        vec!["policy", "set", "ok", "--reviewer", "a b"],
        vec![
            "policy",
            "set",
            "ok",
            "--reviewer",
            "alice",
            "--approvals",
            "0",
        ],
        vec!["policy", "set", "ok"],
    ] {
        assert_eq!(env.run(&bad).code, 2, "{bad:?}");
    }
    env.run(&["policy", "remove", "release"]).assert_code(0);
    let out = env.cmd(&["policy", "remove", "release"]).code(3);
    assert_shown!(env, out.stderr, @"
        error: no policy release
        hint: list policies with: mastra-ask policy list
        ");
    assert_eq!(env.count("SELECT count(*) FROM policies", &[]), 0);
}
