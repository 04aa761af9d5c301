//! The client's HTTP behaviour that a well-behaved Mastra server never shows, against the
//! canned fake server: redirects and where the token goes, every error status, a stream cut
//! short, an unreachable server, and paging.

use mastra_ask::domain::ItemKind;
use mastra_ask::exit::Exit;
use mastra_ask::remote::{
    Answer, Chunk, Client, Delivery, RemoteError, ServerConfig, SuspendedCall,
};
use serde_json::{json, Value};

use crate::fake_server::{DeadPort, End, FakeServer, Reply};
use mastra_ask::error::Kinded;

fn client(url: &str, token: Option<&str>) -> Client {
    Client::new(ServerConfig::new(url, token.map(str::to_string)).unwrap()).unwrap()
}

fn redirect(status: u16, location: &str) -> Reply {
    Reply::Json {
        status,
        headers: vec![("Location", location.to_string())],
        body: "{}".into(),
    }
}

fn question() -> SuspendedCall {
    SuspendedCall {
        run_id: "run-1".into(),
        tool_call_id: "call-1".into(),
        tool_name: "ask_user".into(),
        kind: ItemKind::Question,
        args: None,
        suspend_payload: Some(json!({"question": "Name?"})),
        agent_id: "planner".into(),
        suspended_at: String::new(),
        server: String::new(),
        resume_schema: None,
    }
}

fn agents_answer() -> Reply {
    Reply::ok(json!({"planner": {"id": "planner", "name": "Planner", "tools": {"ask_user": {}}}}))
}

#[test]
fn server_token_never_follows_a_redirect_to_another_origin() {
    let other = FakeServer::start(vec![agents_answer()]);
    let first = FakeServer::start(vec![redirect(307, &format!("{}/agents", other.base_url()))]);
    let agents = client(&first.base_url(), Some("tok-secret"))
        .agents()
        .unwrap();
    assert_eq!(agents[0].id, "planner");
    let asked = first.requests();
    assert_eq!(asked[0].path, "/v1/agents");
    assert_eq!(asked[0].header("authorization"), Some("Bearer tok-secret"));
    let followed = other.requests();
    assert_eq!(followed[0].path, "/v1/agents");
    assert_eq!(
        followed[0].header("authorization"),
        None,
        "another port is another origin"
    );

    let same = FakeServer::start(vec![redirect(308, "/v1/moved/agents"), agents_answer()]);
    client(&same.base_url(), Some("tok-secret"))
        .agents()
        .unwrap();
    let asked = same.requests();
    assert_eq!(asked[1].path, "/v1/moved/agents");
    assert_eq!(asked[1].header("authorization"), Some("Bearer tok-secret"));
}

#[test]
fn server_a_post_is_never_turned_into_a_get_by_a_redirect() {
    let server = FakeServer::start(vec![redirect(302, "/elsewhere")]);
    let e = client(&server.base_url(), None)
        .answer(&question(), &Answer::Resume(json!("x")), |_: Chunk<'_>| {})
        .unwrap_err();
    let RemoteError::Server {
        status, message, ..
    } = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!(*status, 302);
    assert!(
        message.ends_with("/elsewhere; use that server URL"),
        "{message}"
    );
    assert!(e.not_delivered());
    assert_eq!(server.count(), 1);

    let kept = FakeServer::start(vec![
        redirect(307, "/v1/again"),
        Reply::sse(vec![
            json!({"type": "finish", "runId": "run-1", "payload": {
            "stepResult": {"reason": "stop"}, "output": {"text": "ok"}}})
            .to_string(),
        ]),
    ]);
    client(&kept.base_url(), None)
        .answer(&question(), &Answer::Resume(json!("x")), |_: Chunk<'_>| {})
        .unwrap();
    let asked = kept.requests();
    assert_eq!(asked[1].path, "/v1/again");
    assert_eq!(
        asked[1].body, asked[0].body,
        "a 307 repeats the POST with its body"
    );
}

#[test]
fn server_http_errors_are_typed_and_free_of_credentials() {
    let server = FakeServer::start(vec![
        Reply::status(
            400,
            json!({"error": "Invalid request body", "issues": [{"field": "resumeData", "message": "resumeData is required"}]}),
        ),
        Reply::status(401, json!({"error": "bad key key-XYZ-123"})),
        Reply::Json {
            status: 404,
            headers: vec![],
            body: "404 Not Found".into(),
        },
        Reply::status(
            500,
            json!({"error": "exploded\n    at handler (/srv/x.js:1:1)"}),
        ),
        Reply::status(404, json!({"error": "Agent with id planner not found"})),
    ]);
    let c = client(&format!("{}?apiKey=key-XYZ-123", server.base_url()), None);
    let resume = || {
        c.answer(&question(), &Answer::Resume(json!("x")), |_: Chunk<'_>| {})
            .unwrap_err()
    };

    let e = resume();
    assert!(matches!(e, RemoteError::Invalid { .. }), "{e:?}");
    assert_eq!(e.kind().exit(), Exit::Usage);
    assert!(
        e.to_string().ends_with(
            "rejected the request: Invalid request body; resumeData: resumeData is required"
        ),
        "{e}"
    );

    let e = resume();
    assert!(
        matches!(e, RemoteError::Unauthorized { status: 401, .. }),
        "{e:?}"
    );
    assert_eq!(e.kind().exit(), Exit::Failure);
    assert!(
        e.to_string()
            .ends_with("refused the request (HTTP 401): bad key ***"),
        "{e}"
    );
    assert_eq!(
        e.hint().unwrap(),
        "check the token (MASTRA_SERVER_TOKEN or --server-token-file)"
    );

    let e = resume();
    assert!(matches!(e, RemoteError::NoRoute { .. }), "{e:?}");
    assert!(e.hint().unwrap().contains("API prefix"));

    let e = resume();
    let RemoteError::Server {
        status: 500,
        message,
        ..
    } = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!(message, "exploded");
    assert!(!e.not_delivered(), "a 500 may have done something");

    let e = resume();
    assert!(
        matches!(e, RemoteError::UnknownAgent { ref agent, .. } if agent == "planner"),
        "{e:?}"
    );
    assert_eq!(e.kind().exit(), Exit::NotFound);

    for r in server.requests() {
        assert_eq!(
            r.path, "/v1/agents/planner/resume-stream",
            "the key stays out of URLs"
        );
        assert_eq!(r.header("authorization"), Some("Bearer key-XYZ-123"));
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(
            r.body,
            json!({"runId": "run-1", "toolCallId": "call-1", "resumeData": "x"})
        );
    }
}

#[test]
fn server_a_server_that_wants_a_token_gets_a_hint() {
    let server = FakeServer::start(vec![Reply::status(403, json!({"error": "Forbidden"}))]);
    let e = client(&server.base_url(), None).agents().unwrap_err();
    assert!(
        matches!(e, RemoteError::Unauthorized { status: 403, .. }),
        "{e:?}"
    );
    assert_eq!(
        e.hint().unwrap(),
        "the server wants a token: set MASTRA_SERVER_TOKEN or pass --server-token-file"
    );
}

#[test]
fn server_an_unreachable_server_was_not_sent_anything() {
    let dead = DeadPort::new();
    let e = client(&dead.base_url(), Some("tok")).agents().unwrap_err();
    let RemoteError::Transport { delivery, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(*delivery, Delivery::NotSent);
    assert!(e.not_delivered());
    assert_eq!(e.kind().exit(), Exit::Failure);
    assert_eq!(
        e.hint().unwrap(),
        "is the server running, and is the URL right?"
    );
}

#[test]
fn server_a_stream_cut_before_done_was_delivered() {
    let start =
        json!({"type": "start", "runId": "run-1", "from": "AGENT", "payload": {}}).to_string();
    for end in [End::Close, End::Reset] {
        let server = FakeServer::start(vec![Reply::Sse {
            frames: vec![start.clone()],
            end: end.clone(),
        }]);
        let mut seen = Vec::new();
        let e = client(&server.base_url(), None)
            .answer(&question(), &Answer::Resume(json!("x")), |c: Chunk<'_>| {
                seen.push(c.line.to_string())
            })
            .unwrap_err();
        let RemoteError::Transport { delivery, .. } = &e else {
            panic!("{end:?}: {e:?}")
        };
        assert_eq!(*delivery, Delivery::Accepted, "{end:?}");
        assert!(!e.not_delivered());
        assert_eq!(seen, std::slice::from_ref(&start), "{end:?}");
    }
}

#[test]
fn server_json_where_a_stream_belongs_is_a_protocol_error() {
    let server = FakeServer::start(vec![Reply::ok(json!({"text": "not a stream"}))]);
    let e = client(&server.base_url(), None)
        .answer(&question(), &Answer::Resume(json!("x")), |_: Chunk<'_>| {})
        .unwrap_err();
    assert!(matches!(e, RemoteError::Protocol { .. }), "{e:?}");
    assert!(e.to_string().contains("instead of an event stream"), "{e}");
}

#[test]
fn server_suspended_runs_are_read_over_every_page() {
    let run = |i: usize| {
        json!({"runId": format!("r{i}"), "status": "suspended", "suspendedAt": "2026-12-01T00:00:00.000Z",
               "toolCalls": [{"toolCallId": format!("c{i}"), "toolName": "ask_user",
                              "requiresApproval": false, "suspendPayload": {"question": "q"}}]})
    };
    let first: Vec<Value> = (0..100).map(run).collect();
    // A run suspended meanwhile pushed r99 onto the second page too.
    let second: Vec<Value> = (99..151).map(run).collect();
    let server = FakeServer::start(vec![
        Reply::ok(json!({"runs": first, "total": 151})),
        Reply::ok(json!({"runs": second, "total": 152})),
    ]);
    let items = client(&server.base_url(), None)
        .suspended("planner")
        .unwrap();
    let ids: Vec<String> = items.iter().map(|i| i.run_id.clone()).collect();
    let want: Vec<String> = (0..151).map(|i| format!("r{i}")).collect();
    assert_eq!(ids, want);
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        [
            "/v1/agents/planner/suspended-runs?perPage=100&page=0",
            "/v1/agents/planner/suspended-runs?perPage=100&page=1"
        ]
    );
}
