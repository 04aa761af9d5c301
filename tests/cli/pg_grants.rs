//! A policy held against the runners on PostgreSQL (SPEC §14): with the roles `store grant`
//! sets up, a runner's role creates and drives runs through the program but, with plain
//! SQL, can neither resolve an item, add a decision, add or remap a reviewer, change a
//! policy nor sign anyone in, even once granted everything on every table; the reviewer's
//! own role decides through the program, and a serve role decides as the reviewer it
//! signed in. Runs only against PostgreSQL (`MASTRA_ASK_TEST_POSTGRES`).

use serde_json::json;

use mastra_ask::domain::{Resolution, Via};
use mastra_ask::store::{self, Access, Decide, Identity, Location, Reviewers};

use crate::assert_shown;
use crate::common::Env;
use crate::pg_safety::{database, server, Role};
use mastra_ask::error::Kinded;

/// A session of `url` with the store's schema first in the search path.
fn connect(url: &str) -> postgres::Client {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    c.batch_execute("SET search_path = mastra_ask").unwrap();
    c
}

/// An agent whose one question is for the release group.
fn agent(env: &Env) -> String {
    env.write(
        "work/script.json",
        &json!({"steps": [
            {"toolCalls": [{"id": "q", "name": "ask_user", "args": {"question": "Ship it?"}}]},
            {"text": "shipped"}
        ]})
        .to_string(),
    );
    let agent = json!({
        "id": "release",
        "instructions": "Ask first.",
        "model": "script:script.json",
        "review": {"reviewers": ["group:release"]}
    });
    env.write("work/agent.json", &agent.to_string())
        .to_string_lossy()
        .into_owned()
}

/// A refusal's SQLSTATE and message.
type Refusal = (String, String);

/// Every write a runner might try in place of a reviewer's decision, on the pending
/// question `q` of `run`: what each one returned (the SQLSTATE and message of a refusal).
fn attempts(
    c: &mut postgres::Client,
    run: &str,
    runner: &str,
) -> Vec<(String, Result<(), Refusal>)> {
    let now = store::now_ms();
    let tries: Vec<(&str, String)> = vec![
        (
            "resolve the item",
            format!(
            "UPDATE calls SET state = 'resolved', resume_data = '\"yes\"', resolved_by = 'bob', \
             result = '{{\"content\":\"User answered: yes\",\"isError\":false}}' \
             WHERE run_id = '{run}' AND call_id = 'q'"),
        ),
        (
            "resolve it by its state alone",
            format!("UPDATE calls SET state = 'resolved' WHERE run_id = '{run}' AND call_id = 'q'"),
        ),
        (
            "store a decided item",
            format!(
                "INSERT INTO calls (run_id, call_id, step, seq, tool_name, args, state, kind, \
             resume_data, created_at) VALUES ('{run}', 'q2', 1, 9, 'ask_user', '{{}}', 'resolved', \
             'question', '\"yes\"', {now})"
            ),
        ),
        (
            "add a decision",
            format!(
            "INSERT INTO decisions (run_id, call_id, reviewer, decision, resume_data, via, at) \
             VALUES ('{run}', 'q', 'bob', 'answered', '\"yes\"', 'flag', {now})"),
        ),
        (
            "decide as bob through the store's function",
            format!(
                "SELECT record_decision('{run}', 'q', 'bob', 'answered', NULL, '\"yes\"', NULL, \
             'flag', {now})"
            ),
        ),
        (
            "resolve through the store's function",
            format!(
            "SELECT resolve_item('{run}', 'q', NULL, '\"yes\"', 'bob', 'flag', 'bob', 'reviewer', \
             NULL, NULL, {now})"),
        ),
        (
            "add a reviewer",
            format!(
                "INSERT INTO reviewers (name, groups, pg_role, created_at) \
             VALUES ('mallory', '[\"release\"]', '{runner}', {now})"
            ),
        ),
        (
            "map a reviewer to itself",
            format!("UPDATE reviewers SET pg_role = '{runner}' WHERE name = 'bob'"),
        ),
        (
            "keep a policy",
            format!(
                "INSERT INTO policies (name, rule, created_at, updated_at) \
             VALUES ('mine', '{{\"reviewers\":[\"mallory\"]}}', {now}, {now})"
            ),
        ),
        (
            "change the run's policy",
            format!("UPDATE runs SET policy = NULL WHERE id = '{run}'"),
        ),
        (
            "claim to have started it as bob",
            format!(
                "UPDATE runs SET started_by = 'bob', started_as = 'reviewer' WHERE id = '{run}'"
            ),
        ),
        (
            "sign in as bob",
            format!(
                "INSERT INTO sessions (id_hash, reviewer, created_at, last_seen_at) \
             VALUES ('x', 'bob', {now}, {now})"
            ),
        ),
        ("forget the decisions", "TRUNCATE decisions".to_string()),
        (
            "send bob's notifications to itself",
            "UPDATE reviewers SET notify = 'ntfy:https://evil.example/bob' WHERE name = 'bob'"
                .to_string(),
        ),
        (
            "claim bob was told (and silence him)",
            format!(
                "INSERT INTO notifications (run_id, call_id, reviewer, claimed_at) \
             VALUES ('{run}', 'q', 'bob', {now})"
            ),
        ),
        (
            "forget who was told",
            "DELETE FROM notifications".to_string(),
        ),
        (
            "forge a one-tap secret for bob",
            format!(
                "INSERT INTO taps (secret_hash, run_id, call_id, reviewer, label, sends, \
             expires_at, created_at) VALUES ('x', '{run}', 'q', 'bob', 'yes', 'answer=yes', \
             {now} + 3600000, {now})"
            ),
        ),
        (
            "give carol's one-tap secret to bob",
            "UPDATE taps SET reviewer = 'bob', used_at = NULL".to_string(),
        ),
        ("void the one-tap secrets", "DELETE FROM taps".to_string()),
    ];
    tries
        .into_iter()
        .map(|(what, sql)| {
            let r = c.batch_execute(&sql).map_err(|e| {
                let code = e.code().map(|c| c.code().to_string()).unwrap_or_default();
                let message = e
                    .as_db_error()
                    .map_or_else(|| e.to_string(), |d| d.message().to_string());
                (code, message)
            });
            (what.to_string(), r)
        })
        .collect()
}

/// What the store holds about run `run`'s question and who may decide: nothing a runner's
/// attempt may change.
fn held(env: &Env, run: &str) -> Vec<Vec<Option<String>>> {
    let mut rows = env.rows(
        "SELECT state, resume_data, resolved_by FROM calls WHERE run_id = ?1 ORDER BY call_id",
        &[run],
    );
    rows.extend(env.rows(
        "SELECT policy, started_by, started_as FROM runs WHERE id = ?1",
        &[run],
    ));
    rows.extend(env.rows(
        "SELECT name, pg_role, notify FROM reviewers ORDER BY name",
        &[],
    ));
    rows.extend(env.rows("SELECT count(*) FROM notifications", &[]));
    rows.extend(env.rows(
        "SELECT secret_hash, reviewer, sends, used_at FROM taps ORDER BY secret_hash",
        &[],
    ));
    rows.extend(env.rows("SELECT count(*) FROM decisions", &[]));
    rows.extend(env.rows("SELECT count(*) FROM policies", &[]));
    rows.extend(env.rows("SELECT count(*) FROM sessions", &[]));
    rows
}

#[test]
fn a_runner_role_cannot_decide_around_the_policy_and_the_reviewer_s_role_can() {
    let Some(admin) = server() else { return };
    let (runner, reviewer, inbox) = (
        Role::new(&admin, None),
        Role::new(&admin, None),
        Role::new(&admin, None),
    );
    let env = Env::new();
    let db = database(&env);
    // The owner (the suite's role) keeps the reviewers and grants the roles.
    env.run(&[
        "reviewer",
        "add",
        "bob",
        "--group",
        "release",
        "--pg-role",
        &reviewer.name,
    ])
    .assert_code(0);
    let added = env
        .cmd(&["reviewer", "add", "carol", "--group", "release"])
        .code(0);
    let carol_token = added.stdout.trim().to_string();
    env.run(&["store", "grant", &runner.name, &reviewer.name])
        .assert_code(0);
    let out = env.cmd(&["store", "grant", &inbox.name, "--serve"]).code(0);
    assert_shown!(env, out.stderr, @"granted the store to role [ROLE]: it may run serve: sign reviewers in, and decide as the reviewer signed in");
    let as_role = |role: &Role, args: &[&str]| {
        let mut cmd = env.command(args);
        cmd.env("MASTRA_ASK_DB", role.url(&db));
        env.run_with(cmd)
    };

    // The runner's role starts and drives a run under the agent's policy.
    let agent = agent(&env);
    as_role(&runner, &["run", "--agent", &agent, "Go"]).assert_code(75);
    let run = env.latest_run().unwrap();
    assert_eq!(
        env.rows(
            "SELECT started_by, started_as FROM runs WHERE id = ?1",
            &[&run]
        ),
        vec![vec![Some(runner.name.clone()), Some("pg-role".to_string())]]
    );
    // Through the program it may decide nothing: its role maps to no reviewer.
    let out = as_role(&runner, &["answer", &run, "yes"]);
    out.assert_code(77);
    assert_shown!(env, out.stderr, @"error: PostgreSQL role [ROLE] maps to no reviewer, so it may not decide the question q of run [RUN]; its policy lets bob or carol decide");

    // Nor may it choose where a reviewer is told of items (SPEC §17), or forge or forget
    // who was told (a serve claims it; here the owner does).
    let owner_store = store::open(&Location::resolve(Some(&env.store.url())), Access::Existing)
        .unwrap()
        .unwrap();
    assert!(owner_store.claim_notification(&run, "q", "carol").unwrap());
    let tap = store::NewTap {
        secret: "carol-s-secret",
        label: "yes",
        sends: "answer=yes",
    };
    assert!(owner_store
        .add_taps((&run, "q"), None, "carol", &[tap])
        .unwrap());
    drop(owner_store);
    let before = held(&env, &run);
    let out = as_role(
        &runner,
        &["reviewer", "notify", "bob", "ntfy:https://evil.example/bob"],
    );
    out.assert_code(1);
    assert!(
        out.stderr.starts_with(
            "error: writing to the store: db error: ERROR: permission denied for table reviewers"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(held(&env, &run), before);

    // With plain SQL, nothing either: not with the grants of store grant, nor with all of
    // them on every table.
    let mut c = connect(&runner.url(&db));
    for (what, r) in attempts(&mut c, &run, &runner.name) {
        assert!(r.is_err(), "the runner could {what}");
    }
    // Nor read the one-tap secrets' rows (their hashes, whose they are, what they decide).
    let read = c.query("SELECT * FROM taps", &[]).unwrap_err();
    assert_eq!(
        read.as_db_error().map(|e| e.message()),
        Some("permission denied for table taps")
    );
    assert_eq!(held(&env, &run), before);
    let mut owner = connect(&env.store.url());
    owner
        .batch_execute(&format!(
            "GRANT ALL ON ALL TABLES IN SCHEMA mastra_ask TO {}",
            runner.name
        ))
        .unwrap();
    for (what, r) in attempts(&mut c, &run, &runner.name) {
        let (code, message) = r.expect_err(&format!("with every grant, the runner could {what}"));
        assert_eq!(
            code, "MA403",
            "{what}: the store's own refusal, not a privilege: {message}"
        );
    }
    assert_eq!(held(&env, &run), before);

    // The reviewer's own role decides through the program; the run goes on.
    as_role(&reviewer, &["answer", &run, "yes"]).assert_code(0);
    assert_eq!(env.status(&run), "completed");
    assert_eq!(
        env.rows(
            "SELECT reviewer, decision FROM decisions WHERE run_id = ?1",
            &[&run]
        ),
        vec![vec![Some("bob".to_string()), Some("answered".to_string())]]
    );
    assert_eq!(
        env.rows(
            "SELECT resolved_by, checked_by, checked_as FROM calls WHERE run_id = ?1",
            &[&run]
        ),
        vec![vec![
            Some("bob".to_string()),
            Some("bob".to_string()),
            Some("reviewer".to_string())
        ]]
    );

    // A serve role decides as the reviewer it signed in; the runner's role may not claim
    // to be serve.
    as_role(&runner, &["run", "--agent", &agent, "Go"]).assert_code(75);
    let second = env.latest_run().unwrap();
    let answer = Resolution {
        resume_data: json!("yes"),
        result: Some(json!({"content": "User answered: yes", "isError": false})),
        by: "carol".into(),
        via: Via::Web,
    };
    let carol = Identity::Reviewer("carol".into());
    let decide = |url: String| {
        let store = store::open(&Location::resolve(Some(&url)), Access::Existing)
            .unwrap()
            .unwrap();
        let d = Decide {
            resolution: &answer,
            identity: &carol,
            claimed: false,
            args: None,
        };
        store.decide(&second, "q", &d, None).map(|_| ())
    };
    let refused = decide(runner.url(&db)).unwrap_err();
    assert_eq!(refused.kind(), mastra_ask::error::Kind::Forbidden);
    assert!(
        refused
            .to_string()
            .contains(&format!("the role {} is not reviewer carol", runner.name)),
        "{refused}"
    );
    let serve = store::open(&Location::resolve(Some(&inbox.url(&db))), Access::Existing)
        .unwrap()
        .unwrap();
    // It signs carol in (a session only the owner and serve roles may write).
    let signed_in = serve
        .sign_in(&carol_token, "a-session-id")
        .unwrap()
        .unwrap();
    assert_eq!(signed_in.name, "carol");
    assert_eq!(
        serve
            .session_reviewer("a-session-id")
            .unwrap()
            .map(|r| r.name),
        Some("carol".to_string())
    );
    // It claims telling a reviewer of an item, once (SPEC §17); a runner's role may not.
    assert!(serve.claim_notification(&second, "q", "carol").unwrap());
    assert!(!serve.claim_notification(&second, "q", "carol").unwrap());
    drop(serve);
    let runner_store = store::open(&Location::resolve(Some(&runner.url(&db))), Access::Existing)
        .unwrap()
        .unwrap();
    assert!(runner_store
        .claim_notification(&second, "q", "bob")
        .is_err());
    drop(runner_store);
    decide(inbox.url(&db)).unwrap();
    assert_eq!(
        env.rows(
            "SELECT resolved_by, checked_by FROM calls WHERE run_id = ?1",
            &[&second]
        ),
        vec![vec![Some("carol".to_string()), Some("carol".to_string())]]
    );
    drop(c);
    drop(owner);
    drop(env);
}

#[test]
fn store_grant_is_for_postgresql_and_its_owner() {
    let env = Env::sqlite();
    let out = env.cmd(&["store", "grant", "ci"]).code(2);
    assert!(
        out.stderr
            .starts_with("error: store grant sets up PostgreSQL roles; a SQLite store has none"),
        "{}",
        out.stderr
    );
    let Some(admin) = server() else { return };
    let (stranger, other) = (Role::new(&admin, None), Role::new(&admin, None));
    let env = Env::new();
    let db = database(&env);
    let out = env.cmd(&["store", "grant", "no_such_role_here"]).code(2);
    assert_shown!(env, out.stderr, @r#"error: there is no PostgreSQL role no_such_role_here; create it first (CREATE ROLE "no_such_role_here" LOGIN), then grant it"#);
    env.run(&["store", "grant", &stranger.name]).assert_code(0);
    let mut cmd = env.command(&["store", "grant", &other.name]);
    cmd.env("MASTRA_ASK_DB", stranger.url(&db));
    let out = env.run_with(cmd);
    out.assert_code(2);
    assert_shown!(env, out.stderr, @"error: store grant is for the store's owner (the role that owns schema mastra_ask); [ROLE] is not it");
    let out = env.run(&["store", "grant", "-bad"]);
    assert_eq!(out.code, 2, "{out:?}");
    drop(env);
}
