//! The indirect paths around a policy on PostgreSQL (SPEC §14, migration 12), tried by a
//! runner's role with plain SQL: deleting a gated run (the cascade took its decisions),
//! creating its id again without its policy, moving its status, rewriting its call's
//! arguments, and resolving an item in a reviewer's name. Each is refused or records who
//! the session is, the program's own paths (a waiter, `prune`, `cancel`) keep working for
//! that role, and the driver runs no approved tool whose approval recorded no digest.
//! Runs only against PostgreSQL (`MASTRA_ASK_TEST_POSTGRES`), but the last test (the
//! driver) on both backends.

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use serde_json::json;

use crate::common::{finish_within, Env, PATIENCE};
use crate::pg_safety::{database, server, Role};

/// A store with reviewer alice (whose role is `alice`), granted to the runner's role and
/// hers; in `work/`, `agent.json` (its `deploy` tool needs alice's approval),
/// `open.json` (the same agent with no policy) and the tool, which appends what it was
/// given to `tool-runs.log`.
struct Store {
    env: Env,
    db: String,
    runner: Role,
    alice: Role,
}

impl Store {
    fn new(admin: &str) -> Store {
        let (runner, alice) = (Role::new(admin, None), Role::new(admin, None));
        let env = Env::new();
        let db = database(&env);
        env.run(&["reviewer", "add", "alice", "--pg-role", &alice.name])
            .assert_code(0);
        env.run(&["store", "grant", &runner.name, &alice.name])
            .assert_code(0);
        write_agents(&env);
        Store {
            env,
            db,
            runner,
            alice,
        }
    }

    /// The program run as `role`.
    fn command(&self, role: &Role, args: &[&str]) -> Command {
        let mut cmd = self.env.command(args);
        cmd.env("MASTRA_ASK_DB", role.url(&self.db));
        cmd
    }

    /// A session of the runner's role, the store's schema first in its search path.
    fn runner_sql(&self) -> postgres::Client {
        let mut c = postgres::Client::connect(&self.runner.url(&self.db), postgres::NoTls).unwrap();
        c.batch_execute("SET search_path = mastra_ask").unwrap();
        c
    }

    /// A run the runner's role starts (`agent`: a file in `work/`), suspended on `dep1`.
    fn suspended(&self, agent: &str) -> String {
        let out = self
            .env
            .run_with(self.command(&self.runner, &["run", "--agent", agent, "deploy"]));
        out.assert_code(75);
        self.env.latest_run().unwrap()
    }

    /// Every privilege on every table of the store to the runner's role, as an
    /// administrator might grant by mistake.
    fn grant_all(&self) {
        let mut owner = postgres::Client::connect(&self.env.store.url(), postgres::NoTls).unwrap();
        owner
            .batch_execute(&format!(
                "GRANT ALL ON ALL TABLES IN SCHEMA mastra_ask TO {}",
                self.runner.name
            ))
            .unwrap();
    }

    /// What the tool was given, each time it ran.
    fn tool_runs(&self) -> String {
        std::fs::read_to_string(self.env.path("tool-runs.log")).unwrap_or_default()
    }
}

fn write_agents(env: &Env) {
    let tool = env.write(
        "work/tool.sh",
        "#!/bin/sh\nprintf 'ran %s\\n' \"$(cat)\" >> ../tool-runs.log\necho '{\"ok\":true}'\n",
    );
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.write(
        "work/script.json",
        &json!({"steps": [
            {"toolCalls": [{"id": "dep1", "name": "deploy", "args": {"env": "prod"}}]},
            {"text": "deployed"}
        ]})
        .to_string(),
    );
    let deploy = json!({"name": "deploy", "description": "d", "inputSchema": {"type": "object"},
        "command": ["./tool.sh"], "requireApproval": true});
    let agent = |review: Option<serde_json::Value>| {
        let mut a = json!({"id": "dep", "instructions": "x", "model": "script:script.json",
            "tools": [deploy.clone()]});
        if let Some(r) = review {
            a["review"] = r;
        }
        a.to_string()
    };
    env.write(
        "work/agent.json",
        &agent(Some(json!({"reviewers": ["alice"]}))),
    );
    env.write("work/open.json", &agent(None));
}

/// Every row of run `run` but its waiters (whose heartbeats go on): its row, calls,
/// decisions, messages and events.
fn held(env: &Env, run: &str) -> Vec<Vec<Option<String>>> {
    let of_run = [
        "runs WHERE id = ?1",
        "calls WHERE run_id = ?1",
        "decisions WHERE run_id = ?1",
        "messages WHERE run_id = ?1",
        "events WHERE run_id = ?1",
    ];
    of_run
        .into_iter()
        .flat_map(|rows| env.rows(&format!("SELECT * FROM {rows} ORDER BY 1, 2"), &[run]))
        .collect()
}

/// What a statement returned: `Ok`, or the SQLSTATE and message of its refusal.
fn tried(c: &mut postgres::Client, sql: &str) -> Result<(), (String, String)> {
    c.batch_execute(sql).map_err(|e| {
        let code = e.code().map(|c| c.code().to_string()).unwrap_or_default();
        let message = e
            .as_db_error()
            .map_or_else(|| e.to_string(), |d| d.message().to_string());
        (code, message)
    })
}

/// The store's refusal (`MA403`) with `message`.
fn refusal(message: String) -> Result<(), (String, String)> {
    Err(("MA403".to_string(), message))
}

/// The reproduction of the finding: with the release job's waiter watching its gated run,
/// the runner's role deletes the run, inserts it again without its policy and with other
/// arguments, resolves the approval in alice's name and sets the run running. The delete is
/// refused, nothing changes, and the waiter runs the tool only once alice approves, with
/// the arguments she approved.
#[test]
fn the_runner_s_bypass_is_refused_and_the_waiter_runs_only_what_alice_approved() {
    let Some(admin) = server() else { return };
    let s = Store::new(&admin);
    let mut waiter = s.command(
        &s.runner,
        &[
            "--no-input",
            "run",
            "--wait",
            "--agent",
            "agent.json",
            "deploy",
        ],
    );
    let waiter = waiter
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = s.env.first_pending();
    s.env.wait_for_waiter(&run);
    let before = held(&s.env, &run);
    let bypass = format!(
        "SET search_path = mastra_ask;
BEGIN;
CREATE TEMP TABLE r AS SELECT * FROM runs WHERE id = '{run}';
CREATE TEMP TABLE c AS SELECT * FROM calls WHERE run_id = '{run}';
CREATE TEMP TABLE m AS SELECT * FROM messages WHERE run_id = '{run}';
CREATE TEMP TABLE e AS SELECT * FROM events WHERE run_id = '{run}';
CREATE TEMP TABLE w AS SELECT * FROM waiters WHERE run_id = '{run}';
DELETE FROM runs WHERE id = '{run}';
UPDATE pg_temp.r SET policy = NULL;
UPDATE pg_temp.c SET args = '{{\"env\":\"attacker-chosen\"}}';
INSERT INTO runs SELECT * FROM pg_temp.r;     INSERT INTO messages SELECT * FROM pg_temp.m;
INSERT INTO events SELECT * FROM pg_temp.e;   INSERT INTO calls SELECT * FROM pg_temp.c;
INSERT INTO waiters SELECT * FROM pg_temp.w;
SELECT resolve_item('{run}', 'dep1', NULL, '{{\"approved\":true}}', 'alice', 'api', 'alice', 'reviewer', NULL, NULL, 0);
UPDATE runs SET status = 'running' WHERE id = '{run}';
SELECT pg_notify('mastra_ask', '{run}');
COMMIT;"
    );
    let name = &s.runner.name;
    // With the grants of store grant, the role may not delete a run at all; with every
    // privilege on every table, the store's guard refuses it.
    assert_eq!(
        tried(&mut s.runner_sql(), &bypass),
        Err((
            "42501".to_string(),
            "permission denied for table runs".to_string()
        ))
    );
    s.grant_all();
    assert_eq!(
        tried(&mut s.runner_sql(), &bypass),
        refusal(format!(
            "the role {name} may not delete run {run}: finished runs are pruned with mastra-ask prune"
        ))
    );
    assert_eq!(held(&s.env, &run), before, "the bypass changed the run");
    assert_eq!(s.env.status(&run), "suspended");
    assert_eq!(s.tool_runs(), "", "the tool ran before anyone approved it");

    // Alice approves through the program, as her own role; the waiter runs what she saw.
    s.env
        .run_with(s.command(&s.alice, &["approve", &run]))
        .assert_code(0);
    let out = finish_within(waiter, "the waiter never finished", PATIENCE);
    out.assert_code(0);
    assert_eq!(s.tool_runs(), "ran {\"env\":\"prod\"}\n");
    assert_eq!(
        s.env.rows(
            "SELECT resolved_by, checked_by, checked_as FROM calls WHERE run_id = ?1",
            &[&run]
        ),
        vec![vec![
            Some("alice".to_string()),
            Some("alice".to_string()),
            Some("reviewer".to_string())
        ]]
    );
}

/// Each indirect path on its own, by the runner's role with plain SQL and every privilege
/// on every table (the store's guards refuse, not a grant), against a gated run that waits
/// for alice and one she approved (which then completed with her decision).
#[test]
fn a_runner_role_can_neither_delete_recreate_nor_move_a_gated_run() {
    let Some(admin) = server() else { return };
    let s = Store::new(&admin);
    s.grant_all();
    let name = s.runner.name.clone();
    let waiting = s.suspended("agent.json");
    let approved = s.suspended("agent.json");
    s.env
        .run_with(s.command(&s.alice, &["approve", &approved]))
        .assert_code(0);
    assert_eq!(s.env.status(&approved), "completed");
    let decisions = "SELECT count(*) FROM decisions WHERE run_id = ?1";
    assert_eq!(s.env.count(decisions, &[&approved]), 1);
    let before = s.env.dump();
    let mut c = s.runner_sql();
    let delete = |run: &str| format!("DELETE FROM runs WHERE id = '{run}'");
    let cases = [
        (
            "delete a run with a pending item",
            delete(&waiting),
            format!("the role {name} may not delete run {waiting}: finished runs are pruned with mastra-ask prune"),
        ),
        (
            "delete a run with a decision",
            delete(&approved),
            format!("the role {name} may not delete run {approved}: finished runs are pruned with mastra-ask prune"),
        ),
        (
            "set a run with a pending item running",
            format!("UPDATE runs SET status = 'running' WHERE id = '{waiting}'"),
            format!("the role {name} may not set run {waiting} running: it has a pending item, which only a decision resolves"),
        ),
        (
            "set it completed",
            format!("UPDATE runs SET status = 'completed', output = 'deployed' WHERE id = '{waiting}'"),
            format!("the role {name} may not set run {waiting} completed: it has a pending item, which only a decision resolves"),
        ),
        (
            "move it to another directory",
            format!("UPDATE runs SET cwd = '/tmp' WHERE id = '{waiting}'"),
            format!("the role {name} may not change what run {waiting} is"),
        ),
        (
            "rewrite its call's arguments",
            format!("UPDATE calls SET args = '{{\"env\":\"attacker-chosen\"}}' WHERE run_id = '{waiting}'"),
            format!("the role {name} may not resolve or rewrite tool call dep1: decisions go through the store's functions"),
        ),
        (
            "delete its call",
            format!("DELETE FROM calls WHERE run_id = '{waiting}'"),
            format!("the role {name} may not delete tool call dep1"),
        ),
    ];
    for (what, sql, message) in cases {
        assert_eq!(tried(&mut c, &sql), refusal(message), "{what}");
    }
    assert_eq!(s.env.dump(), before, "a refused write changed the store");

    // `prune`, as the runner's role: the finished run goes with its decision (through the
    // store's function), the waiting one stays, and the pruned id cannot come back.
    c.batch_execute(&format!(
        "CREATE TEMP TABLE r AS SELECT * FROM runs WHERE id = '{approved}'"
    ))
    .unwrap();
    let out = s
        .env
        .run_with(s.command(&s.runner, &["prune", "--older-than", "0s"]));
    out.assert_code(0);
    assert_eq!(out.stdout, "pruned 1 run(s)\n");
    assert_eq!(s.env.count("SELECT count(*) FROM runs", &[]), 1);
    assert_eq!(s.env.count(decisions, &[&approved]), 0);
    assert_eq!(
        tried(
            &mut c,
            "UPDATE pg_temp.r SET policy = NULL; INSERT INTO runs SELECT * FROM pg_temp.r"
        ),
        refusal(format!(
            "the role {name} may not create run {approved} again: it was pruned"
        ))
    );
    assert_eq!(
        tried(&mut c, "DELETE FROM pruned_runs"),
        refusal(format!(
            "the role {name} may not write pruned_runs: only the store's owner does"
        ))
    );
    assert_eq!(s.env.count("SELECT count(*) FROM runs", &[]), 1);

    // A cancelled run stays cancelled.
    s.env
        .run_with(s.command(&s.runner, &["cancel", &waiting]))
        .assert_code(0);
    assert_eq!(
        tried(
            &mut c,
            &format!("UPDATE runs SET status = 'suspended' WHERE id = '{waiting}'")
        ),
        refusal(format!(
            "the role {name} may not move run {waiting} from cancelled to suspended"
        ))
    );
}

/// Where no policy governs, any role that may write the store resolves an item, but what
/// is recorded as who did is the session (its reviewer, else its role), not a name it
/// passes; the approval it made recorded no digest, so the driver runs no tool for it.
#[test]
fn resolve_item_records_the_session_not_the_name_a_runner_passes() {
    let Some(admin) = server() else { return };
    let s = Store::new(&admin);
    let run = s.suspended("open.json");
    let mut c = s.runner_sql();
    c.batch_execute(&format!(
        "SELECT resolve_item('{run}', 'dep1', NULL, '{{\"approved\":true}}', 'alice', 'flag', \
         'alice', 'reviewer', NULL, NULL, 0)"
    ))
    .unwrap();
    let name = &s.runner.name;
    assert_eq!(
        s.env.rows(
            "SELECT resolved_by, checked_by, checked_as FROM calls WHERE run_id = ?1",
            &[&run]
        ),
        vec![vec![
            Some(name.clone()),
            Some(name.clone()),
            Some("pg-role".to_string())
        ]]
    );
    // Its own resolution it may carry on with, but the approved tool does not run.
    c.batch_execute(&format!(
        "UPDATE runs SET status = 'running', lease_token = NULL, lease_host = NULL, \
         lease_pid = NULL, lease_start = NULL, lease_expires_at = NULL WHERE id = '{run}'"
    ))
    .unwrap();
    s.env
        .run_with(s.command(&s.runner, &["resume", &run]))
        .assert_code(0);
    assert_eq!(s.tool_runs(), "");
    assert_eq!(s.env.status(&run), "completed");
}

/// Where the store records who a runner's session is in place of the name it was told, a
/// name typed with `--as` is kept apart as a claim (SPEC §14) and shown beside who the
/// store checked; without `--as` there is none; and the role cannot write one itself.
#[test]
fn a_runner_s_claim_is_kept_apart_from_who_its_session_is() {
    let Some(admin) = server() else { return };
    let s = Store::new(&admin);
    let name = s.runner.name.clone();
    let run = s.suspended("open.json");
    s.env
        .run_with(s.command(&s.runner, &["approve", &run, "--as", "alice"]))
        .assert_code(0);
    let row = "SELECT resolved_by, checked_by, checked_as, claim FROM calls WHERE run_id = ?1";
    assert_eq!(
        s.env.rows(row, &[&run]),
        vec![vec![
            Some(name.clone()),
            Some(name.clone()),
            Some("pg-role".to_string()),
            Some("alice".to_string())
        ]]
    );
    let text = s.env.run(&["show", &run]).stdout;
    assert!(
        text.contains(&format!(
            "    resolved by {name} (claims alice) via flag at "
        )),
        "{text}"
    );
    let item = &s.env.show(&run)["suspensions"][0];
    assert_eq!(
        (&item["resolvedBy"], &item["claim"]),
        (&json!(name), &json!("alice"))
    );

    // Without --as, no claim; and the role cannot write one.
    let run = s.suspended("open.json");
    s.env
        .run_with(s.command(&s.runner, &["approve", &run]))
        .assert_code(0);
    assert_eq!(s.env.rows(row, &[&run])[0][3], None);
    assert_eq!(s.env.show(&run)["suspensions"][0].get("claim"), None);
    assert_eq!(
        tried(
            &mut s.runner_sql(),
            &format!("UPDATE calls SET claim = 'alice' WHERE run_id = '{run}'")
        ),
        refusal(format!(
            "the role {name} may not resolve or rewrite tool call dep1: decisions go through the store's functions"
        ))
    );
}

/// A decision keeps the arguments an approval with changes approved (SPEC §14.1), and only
/// those its digest is of: alice's own role may not record others with her decision, and
/// the runner's role may record none in her name nor rewrite hers.
#[test]
fn a_decision_keeps_only_the_arguments_it_approved() {
    let Some(admin) = server() else { return };
    let s = Store::new(&admin);
    s.grant_all();
    let (runner, alice) = (s.runner.name.clone(), s.alice.name.clone());
    let run = s.suspended("agent.json");
    let prod = mastra_ask::domain::review::digest("deploy", &json!({"env": "prod"}));
    let staging = mastra_ask::domain::review::digest("deploy", &json!({"env": "staging"}));
    let record = |digest: &str, args: &str| {
        format!(
            "SELECT record_decision('{run}', 'dep1', 'alice', 'approved', '{digest}', \
             '{{\"approved\":true}}', NULL, 'flag', 0, '{args}')"
        )
    };
    let mut as_alice = postgres::Client::connect(&s.alice.url(&s.db), postgres::NoTls).unwrap();
    as_alice
        .batch_execute("SET search_path = mastra_ask")
        .unwrap();
    let not_hers = format!(
        "the arguments given are not those this decision on tool call dep1 of run {run} approves"
    );
    for (digest, args) in [
        (&prod, r#"{"env":"attacker-chosen"}"#),
        (&staging, r#"{"env": "staging"}"#),
    ] {
        assert_eq!(
            tried(&mut as_alice, &record(digest, args)),
            refusal(not_hers.clone()),
            "{args}"
        );
    }
    assert_eq!(
        tried(
            &mut s.runner_sql(),
            &record(&staging, r#"{"env":"staging"}"#)
        ),
        refusal(format!(
            "the role {runner} is not reviewer alice (their role is {alice})"
        ))
    );
    let decisions = "SELECT count(*) FROM decisions WHERE run_id = ?1";
    assert_eq!(s.env.count(decisions, &[&run]), 0);
    // Her role records the arguments its digest is of; the runner's may not rewrite them.
    tried(&mut as_alice, &record(&staging, r#"{"env":"staging"}"#)).unwrap();
    let args = "SELECT args FROM decisions WHERE run_id = ?1";
    assert_eq!(
        s.env.value(args, &[&run]).as_deref(),
        Some(r#"{"env":"staging"}"#)
    );
    assert_eq!(
        tried(
            &mut s.runner_sql(),
            &format!("UPDATE decisions SET args = '{{\"env\":\"x\"}}' WHERE run_id = '{run}'")
        ),
        refusal(format!(
            "the role {runner} may not write decisions: only the store's owner does"
        ))
    );
    assert_eq!(
        s.env.value(args, &[&run]).as_deref(),
        Some(r#"{"env":"staging"}"#)
    );
}

/// The driver runs an approved tool only with the digest its approval recorded (SPEC
/// §14.1): an approval stored without one (here written by the store's owner, whom nothing
/// binds) runs nothing, and the model is told; an approval through the program records a
/// digest and runs. Both backends.
#[test]
fn an_approval_that_recorded_no_digest_runs_no_tool() {
    let env = Env::new();
    write_agents(&env);
    let start = || {
        env.run(&["run", "--agent", "open.json", "deploy"])
            .assert_code(75);
        env.latest_run().unwrap()
    };
    let run = start();
    let digest = format!("SELECT digest FROM calls WHERE {}", env.of_run());
    env.exec(
        &format!(
            "UPDATE calls SET state = 'resolved', resume_data = '{{\"approved\":true}}', \
             resolved_by = 'tester', resolved_via = 'flag' WHERE {}",
            env.of_run()
        ),
        &[&run],
    );
    env.exec(
        "UPDATE runs SET status = 'running', lease_token = NULL, lease_host = NULL, \
         lease_pid = NULL, lease_start = NULL, lease_expires_at = NULL WHERE id = ?1",
        &[&run],
    );
    env.run(&["resume", &run]).assert_code(0);
    let log = env.path("tool-runs.log");
    assert_eq!(std::fs::read_to_string(&log).unwrap_or_default(), "");
    assert_eq!(
        env.tool_results(&run),
        [(
            "dep1".to_string(),
            json!("Tool \"deploy\" was not run: its arguments are not the ones that were approved")
        )]
    );
    assert_eq!(env.value(&digest, &[&run]), None);

    let run = start();
    env.run(&["approve", &run]).assert_code(0);
    assert!(env.value(&digest, &[&run]).is_some());
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "ran {\"env\":\"prod\"}\n"
    );
}

/// An agent's minimum policy (SPEC §15) holds against the runner's role: a run it starts
/// through the program with no review of its own is under the minimum, and one it inserts
/// with plain SQL under no policy, or a weaker one, is refused.
#[test]
fn a_runner_role_cannot_start_a_run_under_less_than_its_agent_s_minimum() {
    let Some(admin) = server() else { return };
    let s = Store::new(&admin);
    s.grant_all();
    s.env
        .run(&[
            "policy",
            "set",
            "floor",
            "--reviewer",
            "alice",
            "--for-agent",
            "dep",
        ])
        .assert_code(0);
    let run = s.suspended("open.json");
    let policy = s.env.rows("SELECT policy FROM runs WHERE id = ?1", &[&run]);
    let policy: serde_json::Value = serde_json::from_str(policy[0][0].as_deref().unwrap()).unwrap();
    assert_eq!(
        (&policy["rule"]["reviewers"], &policy["name"]),
        (&json!(["alice"]), &json!("floor")),
        "{policy}"
    );

    let name = s.runner.name.clone();
    let mut c = s.runner_sql();
    c.batch_execute(&format!(
        "CREATE TEMP TABLE r AS SELECT * FROM runs WHERE id = '{run}'; \
         UPDATE pg_temp.r SET id = 'forged'"
    ))
    .unwrap();
    let weaker = [
        "NULL".to_string(),
        format!("'{{\"rule\":{{\"reviewers\":[\"alice\",\"{name}\"],\"approvals\":1}}}}'"),
        "'{\"rule\":{\"reviewers\":[\"alice\"],\"approvals\":1,\"allowSelf\":true}}'".to_string(),
    ];
    for policy in weaker {
        assert_eq!(
            tried(
                &mut c,
                &format!(
                    "UPDATE pg_temp.r SET policy = {policy}; INSERT INTO runs SELECT * FROM pg_temp.r"
                )
            ),
            refusal(format!(
                "the role {name} may not create run forged of agent dep under a policy weaker than the minimum the store keeps for it"
            )),
            "{policy}"
        );
    }
    assert_eq!(
        s.env
            .count("SELECT count(*) FROM runs WHERE id = 'forged'", &[]),
        0
    );
}
