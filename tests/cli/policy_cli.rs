//! Who may answer (SPEC §14, §14.1) through the real binary, on the backend the suite runs
//! against: the review flags of `run`, `ask` and `plan` resolved at start (refusals at
//! start, exit 2), a decision that is not yet the last one needed (exit 75, "1 of 2
//! approvals: me approved; waiting for 1 more from bob"), someone outside the policy
//! (exit 77, nothing changed), the starter without and with `--allow-self`, `pending` and
//! `show` with the policy and decisions, `approve --args` and `--all`, `--on-expiry` and
//! escalation. This process's user is the reviewer `me` (by OS user, and on PostgreSQL by
//! the session's role); other reviewers decide through the store's API as `serve` does.

use serde_json::{json, Value};

use mastra_ask::domain::{Resolution, Via};
use mastra_ask::store::{self, Access, Decide, Identity, Location, Resolved, Store};
use mastra_ask::sys;

use crate::assert_shown;
use crate::command_tools::{tag_runs, tagger, tool, tool_agent, tool_message};
use crate::common::{assert_same_store, Env};
use crate::policy::session_role;
use crate::policy_fixture::{reviewers, tagging_agent};

/// Adds the reviewer `me` (this process's user) and `others`, all in group release.
pub(crate) fn team(env: &Env, me: &str, others: &[&str]) {
    let user = sys::effective_user();
    let mut add = vec![
        "reviewer",
        "add",
        me,
        "--group",
        "release",
        "--os-user",
        &user,
    ];
    let role = session_role(&env.store);
    if let Some(role) = role.as_deref() {
        add.extend(["--pg-role", role]);
    }
    env.run(&add).assert_code(0);
    reviewers(env, "release", others);
}

fn open(env: &Env) -> Box<dyn Store> {
    store::open(&Location::resolve(Some(&env.store.url())), Access::Existing)
        .unwrap()
        .unwrap()
}

/// `who` decides the only pending item of `run` through the store, as serve would.
pub(crate) fn decides(
    env: &Env,
    run: &str,
    who: &str,
    resume_data: Value,
) -> store::Result<Resolved> {
    decides_with(env, run, who, resume_data, None)
}

/// As `decides`, approving with `args` in place of the proposed arguments when given.
pub(crate) fn decides_with(
    env: &Env,
    run: &str,
    who: &str,
    resume_data: Value,
    args: Option<&Value>,
) -> store::Result<Resolved> {
    let store = open(env);
    let item = store.pending(Some(run)).unwrap().remove(0);
    let resolution = Resolution {
        resume_data,
        result: None,
        by: who.into(),
        via: Via::Api,
    };
    let identity = Identity::Reviewer(who.into());
    let d = Decide {
        resolution: &resolution,
        identity: &identity,
        claimed: false,
        args,
    };
    store.decide(run, &item.call.call_id, &d, None)
}

fn plan(env: &Env, extra: &[&str]) -> String {
    let file = env.write("work/plan.md", "# Release\n\nTag v2.\n");
    let mut args = vec!["plan", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = env.cmd(&args).code(75);
    out.stdout.trim().to_string()
}

#[test]
fn two_allowed_approvals_resolve_a_plan_and_the_first_is_partial() {
    let env = Env::new();
    team(&env, "me", &["bob", "carol"]);
    let run = plan(
        &env,
        &[
            "--reviewer",
            "group:release",
            "--approvals",
            "2",
            "--allow-self",
        ],
    );
    let out = env.run(&["pending"]);
    assert!(
        out.stdout
            .contains("\n    0 of 2 approvals; waiting for 2 from bob, carol or me\n"),
        "{}",
        out.stdout
    );
    let out = env.cmd(&["review", &run, "--approve"]).code(75);
    assert_shown!(env, out.stderr, @"recorded; 1 of 2 approvals: me approved; waiting for 1 more from bob or carol");
    assert_eq!(env.status(&run), "suspended");
    let line = &env.run(&["pending", "-o", "json"]).json_lines()[0];
    assert_eq!(
        line["policy"],
        json!({"reviewers": ["bob", "carol", "me"], "approvals": 2, "allowSelf": true})
    );
    assert_eq!(line["decisions"][0]["by"], "me");
    assert_eq!(line["decisions"][0]["decision"], "approved");
    assert_eq!(line["decisions"][0]["via"], "flag");
    // The same reviewer twice is a conflict, and changes nothing.
    let before = env.dump();
    env.cmd(&["review", &run, "--approve"]).code(4);
    assert_same_store(&env.dump(), &before);
    // The second allowed reviewer resolves it; the plan run completes approved.
    let r = decides(&env, &run, "bob", json!({"action": "approved"})).unwrap();
    assert!(matches!(r, Resolved::Resumed { .. }), "{r:?}");
    env.run(&["resume", &run]).assert_code(0);
    let shown = env.show(&run);
    let item = &shown["suspensions"][0];
    let by: Vec<&str> = item["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["by"].as_str().unwrap())
        .collect();
    assert_eq!(by, ["me", "bob"]);
    assert_eq!(shown["policy"]["rule"]["approvals"], 2);
    let text = env.run(&["show", &run]).stdout;
    assert!(text.contains("    me approved via flag at "), "{text}");
    assert!(text.contains("    bob approved via api at "), "{text}");
}

#[test]
fn someone_outside_the_policy_gets_77_and_nothing_changes() {
    let env = Env::new();
    team(&env, "carol", &["alice", "bob"]);
    let out = env
        .cmd(&[
            "ask",
            "Ship it?",
            "--option",
            "yes",
            "--option",
            "no",
            "--reviewer",
            "alice",
            "--reviewer",
            "bob",
        ])
        .code(75);
    let run = out.stdout.trim().to_string();
    let out = env.run(&["pending"]);
    assert!(
        out.stdout.contains("\n    alice or bob may answer\n"),
        "{}",
        out.stdout
    );
    let before = env.dump();
    let out = env.cmd(&["answer", &run, "yes"]).code(77);
    assert_eq!(
        out.stderr.lines().next().unwrap(),
        format!("error: reviewer carol may not decide the question ask-1 of run {run}; its policy lets alice or bob decide")
            .replace("ask-1", &open(&env).pending(Some(&run)).unwrap()[0].call.call_id)
    );
    let out = env.cmd(&["-o", "json", "answer", &run, "yes"]).code(77);
    let line: Value = serde_json::from_str(out.stderr.lines().last().unwrap()).unwrap();
    assert_eq!(line["error"]["code"], "FORBIDDEN");
    // --as is a claim: refused under a policy, whatever name it gives.
    env.cmd(&["answer", &run, "yes", "--as", "alice"]).code(2);
    assert_same_store(&env.dump(), &before);
    // An allowed reviewer's answer resolves it.
    decides(&env, &run, "alice", json!("yes")).unwrap();
    env.run(&["resume", &run]).assert_code(0);
}

#[test]
fn the_starter_is_refused_without_allow_self_and_accepted_with_it() {
    let env = Env::new();
    team(&env, "me", &["bob"]);
    let run = plan(&env, &["--reviewer", "me", "--reviewer", "bob"]);
    let before = env.dump();
    let out = env.cmd(&["review", &run, "--approve"]).code(77);
    assert!(
        out.stderr.starts_with(&format!(
            "error: reviewer me started run {run} and its policy does not allow self-approval"
        )),
        "{}",
        out.stderr
    );
    assert_same_store(&env.dump(), &before);
    // They may still reject their own plan.
    env.run(&["review", &run, "--reject"]).assert_code(0);

    let run = plan(
        &env,
        &["--reviewer", "me", "--reviewer", "bob", "--allow-self"],
    );
    env.run(&["review", &run, "--approve"]).assert_code(0);
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn policies_that_cannot_be_met_are_refused_at_start_and_nothing_is_stored() {
    let env = Env::new();
    team(&env, "me", &["bob"]);
    let refused = |args: &[&str], says: &str| {
        let mut all = vec!["ask", "Ship?"];
        all.extend_from_slice(args);
        let out = env.cmd(&all).code(2);
        assert!(
            out.stderr.starts_with(&format!("error: {says}")),
            "{args:?}: {}",
            out.stderr
        );
    };
    refused(
        &["--reviewer", "dave"],
        "the run's review: no reviewer dave",
    );
    refused(
        &["--reviewer", "group:qa"],
        "the run's review: group qa has no reviewers",
    );
    refused(
        &["--reviewer", "group:release", "--approvals", "3"],
        "the run's review needs 3 approvals, but only 1 reviewer(s) may decide (not me, who starts the run, without self-approval): bob",
    );
    // The starter does not count toward the approvals unless they may approve.
    refused(
        &["--reviewer", "me", "--reviewer", "bob", "--approvals", "2"],
        "the run's review needs 2 approvals, but only 1 reviewer(s) may decide (not me, who starts the run, without self-approval): bob",
    );
    refused(&["--policy", "release"], "no policy release");
    refused(
        &["--approvals", "2"],
        "the following required arguments were not provided",
    );
    refused(
        &["--reviewer", "bob", "--policy", "release"],
        "the argument '--reviewer",
    );
    refused(
        &["--on-expiry", "decline"],
        "the following required arguments were not provided",
    );
    assert_eq!(env.count("SELECT count(*) FROM runs", &[]), 0);
    // A named policy an administrator keeps.
    env.run(&[
        "policy",
        "set",
        "release",
        "--reviewer",
        "group:release",
        "--approvals",
        "2",
    ])
    .assert_code(0);
    // Its starter (me) may not approve, so bob alone cannot give two approvals.
    let out = env.cmd(&["ask", "Ship?", "--policy", "release"]).code(2);
    assert_shown!(env, out.stderr, @"error: policy release needs 2 approvals, but only 1 reviewer(s) may decide (not me, who starts the run, without self-approval): bob");
    assert_eq!(env.count("SELECT count(*) FROM runs", &[]), 0);
    reviewers(&env, "release", &["carol"]);
    env.cmd(&["ask", "Ship?", "--policy", "release"]).code(75);
    let line = &env.run(&["pending", "-o", "json"]).json_lines()[0];
    assert_eq!(
        line["policy"],
        json!({"reviewers": ["bob", "carol", "me"], "approvals": 2, "allowSelf": false})
    );
}

#[test]
fn a_starter_who_may_not_approve_does_not_count_toward_n() {
    let env = Env::new();
    team(&env, "me", &["bob"]);
    let two = ["--reviewer", "me", "--reviewer", "bob", "--approvals", "2"];
    let says = "error: the run's review needs 2 approvals, but only 1 reviewer(s) may decide (not me, who starts the run, without self-approval): bob";
    let file = env.write("work/plan.md", "# Release\n");
    let mut args = vec!["plan", file.to_str().unwrap()];
    args.extend_from_slice(&two);
    let out = env.cmd(&args).code(2);
    assert_eq!(out.stderr.lines().next(), Some(says));
    // An agent file's review is held to the same rule.
    let agent = json!({
        "id": "tester",
        "instructions": "Test agent.",
        "model": "script:script.json",
        "review": {"reviewers": ["group:release"], "approvals": 2}
    });
    env.write(
        "work/script.json",
        &json!({"steps": [{"text": "hi"}]}).to_string(),
    );
    let agent = env.write("work/agent.json", &agent.to_string());
    let out = env
        .cmd(&["run", "--agent", agent.to_str().unwrap(), "Go"])
        .code(2);
    assert_eq!(out.stderr.lines().next(), Some(says));
    assert_eq!(env.count("SELECT count(*) FROM runs", &[]), 0);
    // With self-approval the starter counts: both approve.
    args.push("--allow-self");
    let run = env.cmd(&args).code(75).stdout.trim().to_string();
    env.cmd(&["review", &run, "--approve"]).code(75);
    decides(&env, &run, "bob", json!({"action": "approved"})).unwrap();
}

#[test]
fn a_reviewer_removed_and_added_again_decides_anew_and_the_listing_agrees() {
    let env = Env::new();
    team(&env, "me", &["bob", "carol"]);
    let run = plan(&env, &["--reviewer", "group:release", "--approvals", "2"]);
    let summary = |env: &Env| {
        let out = env.run(&["pending"]).stdout;
        let line = out.lines().find(|l| l.contains(" of 2 approvals")).unwrap();
        line.trim().to_string()
    };
    let r = decides(&env, &run, "bob", json!({"action": "approved"})).unwrap();
    assert!(matches!(r, Resolved::Partial { needed: 1, .. }), "{r:?}");
    assert_eq!(
        summary(&env),
        "1 of 2 approvals: bob approved; waiting for 1 more from carol"
    );
    env.run(&["reviewer", "remove", "bob"]).assert_code(0);
    reviewers(&env, "release", &["bob"]);
    // Bob's approval no longer counts, and every listing says so.
    assert_eq!(
        summary(&env),
        "0 of 2 approvals; waiting for 2 from bob or carol"
    );
    let text = env.run(&["show", &run]).stdout;
    assert!(
        text.contains("    bob approved via api at ") && text.contains(" (no longer counts)\n"),
        "{text}"
    );
    // The JSON keeps it for the audit, marked as not counting, in every listing.
    let decisions = || {
        let pending = env.run(&["pending", "-o", "json"]).json_lines()[0]["decisions"].clone();
        let show = env.show(&run);
        assert_eq!(show["suspensions"][0]["decisions"], pending, "{show}");
        assert_eq!(show["decisions"], pending, "{show}");
        serde_json::to_string_pretty(&pending).unwrap()
    };
    assert_shown!(env, decisions(), @r#"
    [
      {
        "by": "bob",
        "decision": "approved",
        "at": "[TIME]",
        "via": "api",
        "counts": false
      }
    ]
    "#);
    // He decides anew: his new approval replaces the old one and counts.
    let r = decides(&env, &run, "bob", json!({"action": "approved"})).unwrap();
    assert!(matches!(r, Resolved::Partial { needed: 1, .. }), "{r:?}");
    assert_eq!(
        summary(&env),
        "1 of 2 approvals: bob approved; waiting for 1 more from carol"
    );
    assert_shown!(env, decisions(), @r#"
    [
      {
        "by": "bob",
        "decision": "approved",
        "at": "[TIME]",
        "via": "api",
        "counts": true
      }
    ]
    "#);
    // Twice since he was added again is a conflict; carol's approval resolves the plan.
    assert!(matches!(
        decides(&env, &run, "bob", json!({"action": "approved"})),
        Err(store::Error::Conflict(_))
    ));
    let r = decides(&env, &run, "carol", json!({"action": "approved"})).unwrap();
    assert!(matches!(r, Resolved::Resumed { .. }), "{r:?}");
}

/// A run suspended on approvals of `tag_release` calls `c1` (and `c2` when `two`).
fn approvals(env: &Env, two: bool, extra: &[&str], review: Option<Value>) -> String {
    let tag = tagger(env);
    let mut calls = vec![json!({"id": "c1", "name": "tag_release", "args": {"version": "v2"}})];
    if two {
        calls.push(json!({"id": "c2", "name": "tag_release", "args": {"version": "v3"}}));
    }
    let mut t = json!({"requireApproval": true});
    if let Some(r) = review {
        t["review"] = r;
    }
    let agent = tool_agent(
        env,
        json!([{"toolCalls": calls}, {"text": "done"}]),
        vec![tool("tag_release", &[&tag], t)],
    );
    let (out, run) = env.start(&agent, extra);
    out.assert_code(75);
    run
}

#[test]
fn a_partial_approval_exits_75_and_the_tool_waits_for_the_last() {
    let env = Env::new();
    team(&env, "me", &["bob"]);
    let run = approvals(
        &env,
        false,
        &[],
        Some(json!({"reviewers": ["group:release"], "approvals": 2, "allowSelf": true})),
    );
    let out = env.cmd(&["approve", &run]).code(75);
    assert_shown!(env, out.stderr, @"recorded; 1 of 2 approvals: me approved; waiting for 1 more from bob");
    assert_eq!(tag_runs(&env), 0);
    decides(&env, &run, "bob", json!({"approved": true})).unwrap();
    env.run(&["resume", &run]).assert_code(0);
    assert_eq!(tag_runs(&env), 1, "the tool ran once");
}

#[test]
fn approve_with_changed_arguments_checks_them_and_runs_them() {
    let env = Env::new();
    let run = approvals(&env, false, &[], None);
    let before = env.dump();
    for (bad, said) in [
        (r#"{"version": 3}"#, "error: the arguments do not fit tool tag_release: version: Expected string, received number\nhint: nothing was recorded; give arguments its input schema takes\n"),
        (r#"{"other": "x"}"#, "error: the arguments do not fit tool tag_release: "),
        ("not json", "error: --args is not valid JSON: expected ident at line 1 column 2\n"),
    ] {
        let out = env.cmd(&["approve", &run, "--args", bad]).code(2);
        assert!(out.stderr.starts_with(said), "{bad}: {}", out.stderr);
    }
    assert_same_store(&env.dump(), &before);
    // Refused with --server before any request (nothing listens there).
    let out = env
        .cmd(&[
            "--server",
            "http://127.0.0.1:9",
            "approve",
            &run,
            "--args",
            "{}",
        ])
        .code(2);
    assert!(
        out.stderr
            .starts_with("error: approve --args does not work with --server"),
        "{}",
        out.stderr
    );
    env.run(&["approve", &run, "--args", r#"{"version":"v3"}"#])
        .assert_code(0);
    assert_eq!(
        std::fs::read_to_string(env.path("work/tagged.log")).unwrap(),
        "{\"version\":\"v3\"}\n"
    );
    assert!(tool_message(&env, &run, "c1").starts_with("The user changed the arguments"));
    let item = &env.show(&run)["suspensions"][0];
    assert_eq!(item["args"], json!({"version": "v2"}));
    assert_eq!(item["approvedArgs"], json!({"version": "v3"}));
    let text = env.run(&["show", &run]).stdout;
    assert!(
        text.contains(
            r#"    approved with changes: {"version":"v3"} (proposed: {"version":"v2"})"#
        ),
        "{text}"
    );
}

/// Two approvals needed: the first, with changes, shows the next reviewers which arguments
/// it approved (in `pending`, its JSON and `show`); an approval of other arguments does not
/// count with it, and one of the same changes completes it, and the tool runs with them.
#[test]
fn a_partial_approval_with_changes_shows_the_arguments_it_approved() {
    let env = Env::new();
    team(&env, "me", &["bob", "carol"]);
    let review = json!({"reviewers": ["group:release"], "approvals": 2, "allowSelf": true});
    let run = approvals(&env, false, &[], Some(review));
    let changed = r#"{"version":"v3\u001b[2J"}"#;
    let out = env.cmd(&["approve", &run, "--args", changed]).code(75);
    assert_shown!(env, out.stderr, @r#"recorded; 1 of 2 approvals: me approved with changes: {"version":"v3\u001b[2J"}; waiting for 1 more from bob or carol"#);
    let out = env.run(&["pending"]);
    assert_shown!(env, out.stdout, @r#"
    [RUN]  c1 approval: tag_release {"version":"v2"}  [AGE] ago
        1 of 2 approvals: me approved with changes: {"version":"v3\u001b[2J"}; waiting for 1 more from bob or carol
        mastra-ask approve [RUN]
        mastra-ask decline [RUN] --reason <reason>
    "#);
    let line = &env.run(&["pending", "-o", "json"]).json_lines()[0];
    assert_eq!(
        line["decisions"][0]["args"],
        json!({"version": "v3\u{1b}[2J"})
    );
    // Bob approves the arguments as proposed: that does not count with the change.
    let r = decides(&env, &run, "bob", json!({"approved": true})).unwrap();
    assert!(matches!(r, Resolved::Partial { needed: 1, .. }), "{r:?}");
    let line = &env.run(&["pending", "-o", "json"]).json_lines()[0];
    assert_shown!(env, serde_json::to_string_pretty(&line["decisions"]).unwrap(), @r#"
    [
      {
        "by": "me",
        "decision": "approved",
        "at": "[TIME]",
        "via": "flag",
        "counts": true,
        "args": {
          "version": "v3\u001b[2J"
        }
      },
      {
        "by": "bob",
        "decision": "approved",
        "at": "[TIME]",
        "via": "api",
        "counts": true
      }
    ]
    "#);
    let text = env.run(&["show", &run]).stdout;
    assert!(
        text.contains(r#"    1 of 2 approvals: me approved with changes: {"version":"v3\u001b[2J"}; bob approved; waiting for 1 more from carol"#)
            && text.contains(r#"    me approved with changes: {"version":"v3\u001b[2J"} via flag at "#),
        "{text}"
    );
    // Carol approves the same changes: the tool runs with them.
    let same = json!({"version": "v3\u{1b}[2J"});
    let r = decides_with(&env, &run, "carol", json!({"approved": true}), Some(&same)).unwrap();
    assert!(matches!(r, Resolved::Resumed { .. }), "{r:?}");
    env.run(&["resume", &run]).assert_code(0);
    let tagged = std::fs::read_to_string(env.path("work/tagged.log")).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&tagged).unwrap(),
        same,
        "{tagged}"
    );
}

/// The store as the previous schema left it (SQLite 9, PostgreSQL 13): no arguments with
/// decisions and, on PostgreSQL, no claims, and the functions of migrations 12 and 13 (nor
/// what later migrations added: reviewers' channels and notification claims, agents'
/// minimum policies, one-tap secrets, `--on-resolve` claims).
fn as_the_previous_schema(env: &Env) {
    match &env.store {
        crate::db::TestDb::Sqlite(path) => rusqlite::Connection::open(path)
            .unwrap()
            .execute_batch(
                "DROP TABLE resolve_claims; DROP INDEX calls_resolved; \
                 DROP TABLE taps; DROP INDEX policies_for_agent; ALTER TABLE policies DROP COLUMN for_agent; \
                 DROP TABLE notifications; ALTER TABLE reviewers DROP COLUMN notify; \
                 ALTER TABLE decisions DROP COLUMN args; PRAGMA user_version = 9",
            )
            .unwrap(),
        crate::db::TestDb::Postgres { .. } => {
            let m12 = include_str!("../../src/store/postgres/migration12.sql");
            let resolve_item = &m12[m12.find("CREATE OR REPLACE FUNCTION resolve_item").unwrap()..];
            let mut c = postgres::Client::connect(&env.store.url(), postgres::NoTls).unwrap();
            c.batch_execute(&format!(
                "SET search_path = mastra_ask;
                DROP TABLE resolve_claims;
                DROP FUNCTION claim_resolution(text, text);
                DROP INDEX calls_resolved;
                DROP TABLE taps;
                DROP FUNCTION record_decision(text, text, text, text, text, text, text, text, bigint, text);
                DROP FUNCTION resolve_item(text, text, text, text, text, text, text, text, text, text, bigint, text);
                ALTER TABLE decisions DROP COLUMN args;
                ALTER TABLE calls DROP COLUMN claim;
                DROP TABLE notifications;
                ALTER TABLE reviewers DROP COLUMN notify;
                DROP TRIGGER minimum ON runs;
                DROP FUNCTION guard_minimum();
                DROP FUNCTION meets_minimum(text, text);
                ALTER TABLE policies DROP COLUMN for_agent;
                DELETE FROM schema_version WHERE version > 13;
                {}
                {resolve_item}",
                include_str!("../../src/store/postgres/migration13.sql"),
            ))
            .unwrap();
        }
    }
}

/// A store of the previous schema, with a decision recorded, is upgraded by the next
/// command: the decision reads as before, and an approval with changes keeps its arguments.
#[test]
fn a_store_of_the_previous_schema_upgrades_and_keeps_its_decisions() {
    let env = Env::new();
    team(&env, "me", &["bob", "carol"]);
    let review = json!({"reviewers": ["group:release"], "approvals": 2, "allowSelf": true});
    let run = approvals(&env, false, &[], Some(review));
    decides(&env, &run, "bob", json!({"approved": true})).unwrap();
    as_the_previous_schema(&env);
    let summary = |env: &Env| {
        let out = env.run(&["pending"]).stdout;
        let line = out.lines().find(|l| l.contains(" of 2 approvals")).unwrap();
        line.trim().to_string()
    };
    assert_eq!(
        summary(&env),
        "1 of 2 approvals: bob approved; waiting for 1 more from carol or me"
    );
    env.cmd(&["approve", &run, "--args", r#"{"version":"v3"}"#])
        .code(75);
    assert_eq!(
        summary(&env),
        r#"1 of 2 approvals: bob approved; me approved with changes: {"version":"v3"}; waiting for 1 more from carol"#
    );
}

#[test]
fn all_approvals_of_a_run_in_one_decision_all_or_none() {
    let env = Env::new();
    let run = approvals(&env, true, &[], None);
    let before = env.dump();
    let out = env.cmd(&["approve", &run, "--all"]).code(2);
    assert_shown!(env, out.stderr, @r#"
        approve all 2 tool calls of run [RUN]:
          c1 approval: tag_release {"version":"v2"}
          c2 approval: tag_release {"version":"v3"}
        error: approve --all without a terminal needs --yes
        hint: nothing was recorded; add --yes to approve all 2
        "#);
    assert_same_store(&env.dump(), &before);
    let out = env.cmd(&["approve", &run, "--all", "--yes"]).code(0);
    assert!(
        out.stderr.starts_with(&format!(
            "approve all 2 tool calls of run {run}:\n  c1 approval: tag_release {{\"version\":\"v2\"}}\n  c2 approval: tag_release {{\"version\":\"v3\"}}\n"
        )),
        "{}",
        out.stderr
    );
    assert_eq!(tag_runs(&env), 2);
    assert_eq!(env.status(&run), "completed");

    // One call waiting: said as one.
    let env = Env::new();
    let run = approvals(&env, false, &[], None);
    let out = env.cmd(&["decline", &run, "--all"]).code(2);
    assert_shown!(env, out.stderr, @r#"
        decline the one tool call of run [RUN]:
          c1 approval: tag_release {"version":"v2"}
        error: decline --all without a terminal needs --yes
        hint: nothing was recorded; add --yes to decline it
        "#);
    env.cmd(&["decline", &run, "--all", "--yes"]).code(0);
    assert_eq!(tag_runs(&env), 0, "a declined tool never runs");
    assert_eq!(env.status(&run), "completed");

    // Under a policy one call of which this user may not approve: nothing is recorded.
    let env = Env::new();
    team(&env, "me", &["bob"]);
    let run = approvals(&env, true, &["--reviewer", "bob"], None);
    let before = env.dump();
    env.cmd(&["decline", &run, "--all", "--yes"]).code(77);
    assert_same_store(&env.dump(), &before);
}

#[test]
fn an_approval_declined_at_its_deadline_by_the_flag_never_runs() {
    let env = Env::new();
    let run = approvals(
        &env,
        false,
        &["--expires-in", "1s", "--on-expiry", "decline"],
        None,
    );
    env.poll("the deadline", || {
        env.run(&["pending", "-q"]);
        env.status(&run) == "running"
    });
    env.run(&["resume", &run]).assert_code(0);
    assert_eq!(env.status(&run), "completed");
    assert_eq!(tag_runs(&env), 0, "a declined tool never runs");
    assert_eq!(
        tool_message(&env, &run, "c1"),
        mastra_ask::tools::expired::DECLINED
    );
}

#[test]
fn the_waiter_escalates_an_item_once() {
    let env = Env::new();
    let agent = tagging_agent(&env, json!({"version": "v2"}), None);
    let log = env.path("work/escalated.log");
    let hook = format!("cat >> '{}'; echo >> '{}'", log.display(), log.display());
    let child = env.spawn(&[
        "run",
        "--agent",
        &agent,
        "--wait",
        "--escalate-after",
        "1s",
        "--on-escalate",
        &hook,
        "Go",
    ]);
    let run = env.first_pending();
    env.poll("the escalation", || log.exists());
    // A while longer: the waiter keeps waiting and never escalates the item again.
    let escalations = || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.lines().filter(|l| !l.is_empty()).count()
    };
    crate::common::never(
        "the waiter escalated the item again",
        std::time::Duration::from_millis(1500),
        || escalations() > 1,
    );
    env.run(&["approve", &run]).assert_code(0);
    crate::common::finish(child).assert_code(0);
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 1, "{text}");
    let item: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(
        (item["runId"].as_str(), item["toolCallId"].as_str()),
        (Some(run.as_str()), Some("c1"))
    );
    assert_eq!(
        env.count(
            "SELECT count(*) FROM calls WHERE escalated_at IS NOT NULL",
            &[]
        ),
        1
    );
    // Without a waiter nobody here escalates: the run says so at its start.
    let out = env
        .cmd(&["ask", "Ship?", "--escalate-after", "1m"])
        .code(75);
    assert_shown!(env, out.stderr, @"
        warning: --escalate-after 1m: no waiter will watch this run (--wait); a serve with --on-escalate may escalate its items
        run [RUN] is waiting for input (1 pending):
          [CALL] question: Ship?
            mastra-ask answer [RUN] <answer>
        ");
}
