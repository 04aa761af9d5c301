//! The HTTP set-up both clients share (`net`), seen from a model provider, whose requests
//! follow the same rules as a Mastra server's (tested in mastra/transport.rs): a redirect is
//! followed only to the same server keeping the POST and its key, never elsewhere; the
//! proxy of `HTTP_PROXY` carries the request unless `NO_PROXY` names the host.

use serde_json::json;

use crate::common::{assert_one_line_error, Env};
use crate::fake_server::{FakeServer, Reply};

const KEY: &str = "sk-test-K3y-7f3a9c1e5b2d4f60a8e1";

/// A whole (not streamed) chat completion saying `text`.
fn says(text: &str) -> Reply {
    Reply::ok(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    }))
}

fn redirect(status: u16, location: &str) -> Reply {
    Reply::Json {
        status,
        headers: vec![("location", location.to_string())],
        body: "{}".into(),
    }
}

/// `run --model openai/...` against `base` (and the environment's extra variables).
fn run(env: &Env, base: &str, vars: &[(&str, &str)]) -> crate::common::Out {
    let mut c = env.command(&["run", "--model", "openai/gpt-4o-mini", "Greet me"]);
    c.env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", base)
        .env("MASTRA_ASK_STREAM", "0")
        .env("MASTRA_ASK_RETRY_DELAY", "1ms");
    for (k, v) in vars {
        c.env(k, v);
    }
    env.run_with(c)
}

#[test]
fn a_providers_redirect_is_followed_only_to_its_own_server() {
    let env = Env::new();
    let fake = FakeServer::start(vec![redirect(307, "/v2/chat/completions"), says("Hello.")]);
    let out = run(&env, &fake.base_url(), &[]);
    out.assert_code(0);
    assert_eq!(out.stdout, "Hello.\n");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].method, "POST");
    assert!(
        requests[1].path.ends_with("/v2/chat/completions"),
        "{}",
        requests[1].path
    );
    assert_eq!(
        requests[1].header("authorization"),
        Some(format!("Bearer {KEY}").as_str()),
        "the key stays with its own server"
    );

    // Elsewhere, or as a GET (302): not followed, the key never sent there.
    for (status, to) in [
        (307, "http://127.0.0.1:9/v1/chat/completions"),
        (302, "/v2/chat"),
    ] {
        let env = Env::new();
        let fake = FakeServer::start(vec![redirect(status, to)]);
        let out = run(&env, &fake.base_url(), &[]);
        out.assert_code(1);
        assert_one_line_error(
            &out,
            "which is not followed: use that base URL if it is the right one",
        );
        assert_eq!(fake.requests().len(), 1);
    }
}

#[test]
fn a_providers_requests_go_through_the_proxy_unless_no_proxy_names_the_host() {
    let env = Env::new();
    let proxy = FakeServer::start(vec![says("Through the proxy.")]);
    let base = "http://models.invalid/v1";
    let via = proxy.base_url().trim_end_matches("/v1").to_string();
    let out = run(&env, base, &[("HTTP_PROXY", &via)]);
    out.assert_code(0);
    assert_eq!(out.stdout, "Through the proxy.\n");
    let seen = proxy.requests();
    // ureq tunnels through the proxy (CONNECT), then sends the request in the tunnel.
    let asked: Vec<(&str, &str)> = seen
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str()))
        .collect();
    assert_eq!(
        asked,
        [
            ("CONNECT", "models.invalid:80"),
            ("POST", "/v1/chat/completions")
        ]
    );
    assert_eq!(seen[1].header("host"), Some("models.invalid"));

    // NO_PROXY names it: straight to a host that does not resolve.
    let out = run(
        &env,
        base,
        &[("HTTP_PROXY", &via), ("NO_PROXY", "models.invalid")],
    );
    out.assert_code(1);
    assert_one_line_error(
        &out,
        "cannot get an answer from openai at http://models.invalid/v1: ",
    );
    assert_eq!(proxy.requests().len(), 2, "nothing more through the proxy");
}
