//! The ledger through the binary, against the canned fake server for what the real one
//! cannot be made to do on cue: an answer the server refused before acting (released, said
//! to be undelivered, and given again later), a stream cut after the server took the answer
//! (kept: never sent twice), and credentials that appear in no output and no stored row.

use serde_json::json;

use crate::assert_shown;
use crate::common::{assert_one_line_error, Env, Out};
use crate::db::TestDb;
use crate::fake_server::{End, FakeServer, Reply};

const RUN: &str = "run-0001-aaaa";
const CALL: &str = "call-1";

/// The canned answers of a listing: one agent, whose one run waits on a question.
fn listing() -> Vec<Reply> {
    vec![
        Reply::ok(
            json!({"planner": {"id": "planner", "name": "Planner", "tools": {"ask_user": {}}}}),
        ),
        Reply::ok(json!({"runs": [{"runId": RUN, "status": "suspended",
            "suspendedAt": "2026-12-01T03:13:33.727Z",
            "toolCalls": [{"toolCallId": CALL, "toolName": "ask_user", "requiresApproval": false,
                           "suspendPayload": {"question": "Name?"}}]}], "total": 1})),
    ]
}

fn finished_leg() -> Reply {
    Reply::sse(vec![
        json!({"type": "tool-result", "runId": RUN, "from": "AGENT", "payload": {"toolCallId": CALL, "toolName": "ask_user", "result": {"content": "User answered: x"}}}).to_string(),
        json!({"type": "text-delta", "runId": RUN, "from": "AGENT", "payload": {"id": "t", "text": "Thanks."}}).to_string(),
        json!({"type": "finish", "runId": RUN, "from": "AGENT", "payload": {"stepResult": {"reason": "stop"}, "output": {"text": "Thanks."}}}).to_string(),
    ])
}

/// The fake server's base URL as `--server` takes it (the fake answers under /v1).
fn url(fake: &FakeServer) -> String {
    fake.base_url()
}

fn answer(env: &Env, url: &str, extra: &[&str]) -> Out {
    let mut args = vec!["--server", url, "answer", RUN, "x"];
    args.extend_from_slice(extra);
    env.run(&args)
}

fn ledger(env: &Env) -> Vec<Vec<Option<String>>> {
    env.rows("SELECT tool_call_id, state, outcome FROM ledger", &[])
}

#[test]
fn server_an_answer_refused_before_it_was_acted_on_is_released_and_can_be_given_again() {
    let env = Env::new();
    let mut replies = listing();
    replies.push(Reply::status(
        400,
        json!({"error": "Invalid request body", "issues": [{"field": "resumeData", "message": "resumeData is required"}]}),
    ));
    replies.extend(listing()[1..].to_vec());
    let fake = FakeServer::start(replies);
    let out = answer(&env, &url(&fake), &[]);
    out.assert_code(2);
    assert_shown!(env, out.stderr, @"error: http://127.0.0.1:[PORT]/v1 rejected the request: Invalid request body; resumeData: resumeData is required; the answer was not delivered");
    assert_eq!(ledger(&env), Vec::<Vec<Option<String>>>::new(), "released");

    let mut replies = listing();
    replies.push(finished_leg());
    fake.push(replies);
    let out = answer(&env, &url(&fake), &[]);
    out.assert_code(0);
    assert_eq!(out.stdout, "Thanks.\n");
    assert_eq!(
        ledger(&env),
        [[
            Some(CALL.into()),
            Some("delivered".into()),
            Some("finished".into())
        ]
        .to_vec()]
    );
}

/// The listing once the server consumed the call: the agent, and no suspended run.
fn nothing_listed() -> Vec<Reply> {
    vec![
        listing()[0].clone(),
        Reply::ok(json!({"runs": [], "total": 0})),
    ]
}

fn posts(fake: &FakeServer) -> usize {
    fake.requests()
        .iter()
        .filter(|r| r.path.ends_with("/resume-stream"))
        .count()
}

#[test]
fn server_an_answer_whose_stream_broke_is_kept_and_never_sent_twice() {
    let env = Env::new();
    let mut replies = listing();
    replies.push(Reply::Sse {
        frames: vec![
            json!({"type": "tool-result", "runId": RUN, "payload": {"toolCallId": CALL}})
                .to_string(),
        ],
        end: End::Close,
    });
    let fake = FakeServer::start(replies);
    let out = answer(&env, &url(&fake), &[]);
    out.assert_code(1);
    assert_shown!(env, out.stderr, @"
        error: http://127.0.0.1:[PORT]/v1: the stream ended before data: [DONE] (the server accepted the request); the answer to tool call call-1 of run run-0001-aaaa may have reached the server
        hint: see whether it still waits with: mastra-ask --server http://127.0.0.1:[PORT]/v1 pending; if it does, answering again sends it (this store keeps the claim until its process has ended)
        ");
    assert_eq!(
        ledger(&env),
        [[Some(CALL.into()), Some("sending".into()), None].to_vec()]
    );

    // The server took it: the call is no longer listed, and nothing is sent again.
    fake.push(nothing_listed());
    let out = answer(&env, &url(&fake), &["--as", "someone-else"]);
    out.assert_code(4);
    assert_one_line_error(
        &out,
        &format!("run {RUN} is no longer suspended on {}: question {CALL} was answered by {} from this store", url(&fake), env.me()),
    );
    assert_eq!(posts(&fake), 1, "nothing sent the second time");
    assert_eq!(
        ledger(&env),
        [[Some(CALL.into()), Some("sending".into()), None].to_vec()]
    );
}

/// The ledger records who answered as the store checks a decision: on PostgreSQL the
/// reviewer mapped to the session's role (else the role), never the answerer's OS login name,
/// which the team's store cannot see; on SQLite the login name, as its decisions do.
#[test]
fn server_the_ledger_records_who_the_store_checks_not_the_login_name() {
    let env = Env::new();
    let who = match &env.store {
        TestDb::Sqlite(_) => "tester".to_string(),
        TestDb::Postgres { .. } => {
            let role = env.store.role().unwrap();
            env.run(&["reviewer", "add", "alice", "--pg-role", &role])
                .assert_code(0);
            "alice".to_string()
        }
    };
    let mut replies = listing();
    replies.push(finished_leg());
    let fake = FakeServer::start(replies);
    answer(&env, &url(&fake), &[]).assert_code(0);
    fake.push(nothing_listed());
    let out = answer(&env, &url(&fake), &[]);
    out.assert_code(4);
    assert_one_line_error(
        &out,
        &format!("run {RUN} is no longer suspended on {}: question {CALL} was answered by {who} from this store", url(&fake)),
    );
    assert_eq!(
        env.rows("SELECT resolved_by, resolved_via FROM ledger", &[]),
        [[Some(who), Some("flag".into())].to_vec()]
    );
}

#[test]
fn server_credentials_are_sent_but_never_printed_nor_stored() {
    let env = Env::new();
    let mut replies = listing();
    replies.extend(listing());
    replies.push(finished_leg());
    let fake = FakeServer::start(replies);
    let base = url(&fake);
    let with_secrets = base.replace("http://", "http://al:pw-secret-1@") + "?apiKey=key-secret-2";
    let mut c = env.command(&["--server", &with_secrets, "-o", "json", "pending"]);
    c.env("MASTRA_SERVER_TOKEN", "tok-secret-3");
    let listed = env.run_with(c);
    listed.assert_code(0);
    let mut c = env.command(&["--server", &with_secrets, "answer", RUN, "x"]);
    c.env("MASTRA_SERVER_TOKEN", "tok-secret-3");
    let answered = env.run_with(c);
    answered.assert_code(0);
    let sent = fake.requests();
    assert!(sent
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer tok-secret-3")));
    let everything = format!(
        "{}{}{}{}{}",
        listed.stdout,
        listed.stderr,
        answered.stdout,
        answered.stderr,
        env.dump()
    );
    for secret in ["pw-secret-1", "key-secret-2", "tok-secret-3"] {
        assert!(
            !everything.contains(secret),
            "{secret} leaked: {everything}"
        );
    }
    let shown = base;
    assert!(
        listed.stdout.contains(&format!("\"server\":\"{shown}\"")),
        "{}",
        listed.stdout
    );
    assert_eq!(env.value("SELECT server FROM ledger", &[]), Some(shown));
}
