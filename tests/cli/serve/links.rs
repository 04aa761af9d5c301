//! The link a reviewer taps (SPEC §13, §5.3): once `serve --public-url` recorded the
//! inbox's address in the store, every `pending -o json` line and every `--on-suspend`
//! payload of a local run carries its item's page (`url`), its ids percent-encoded; before
//! that, none does.

use serde_json::{json, Value};

use super::harness::{asked, Served};
use crate::common::Env;
use crate::steps::{ask, say};

fn pending_json(env: &Env) -> Vec<Value> {
    let out = env.cmd(&["-o", "json", "pending"]).code(0);
    out.json_lines()
}

#[test]
fn pending_json_and_the_hook_carry_the_items_link_once_a_public_url_is_recorded() {
    let env = Env::new();
    let (q, call) = asked(&env, &["Ship it?"]);
    assert!(
        pending_json(&env)[0].get("url").is_none(),
        "no public URL yet: no link"
    );
    let mut served = Served::start(&env, &["--public-url", "https://Inbox.example.com/"]);
    assert_eq!(served.terminate(), 0);

    let item = pending_json(&env)
        .into_iter()
        .find(|i| i["runId"] == q.as_str())
        .unwrap();
    assert_eq!(
        item["url"],
        format!("https://inbox.example.com/runs/{q}/items/{call}")
    );

    // A run with a hook of its own: the same link in its payload and in the listing.
    let agent = env.agent(json!([ask("q1", "Name?"), say("ok")]));
    env.cmd(&[
        "--on-suspend",
        "cat > hook.json",
        "run",
        "--agent",
        &agent,
        "Go",
    ])
    .code(75);
    let run = env.latest_run().unwrap();
    let link = json!(format!("https://inbox.example.com/runs/{run}/items/q1"));
    let hooked: Value =
        serde_json::from_str(&std::fs::read_to_string(env.path("work/hook.json")).unwrap())
            .unwrap();
    assert_eq!(hooked["url"], link);
    let listed = |run: &str| {
        pending_json(&env)
            .into_iter()
            .find(|i| i["runId"] == run)
            .unwrap()
    };
    assert_eq!(listed(&run)["url"], link);

    // Ids that need escaping (as a store could hold them): each one path segment.
    env.exec(
        "UPDATE calls SET call_id = ?1 WHERE call_id = 'q1'",
        &["q 1/?#.."],
    );
    let expected = json!(format!(
        "https://inbox.example.com/runs/{run}/items/q%201%2F%3F%23.."
    ));
    assert_eq!(listed(&run)["url"], expected);
    // The link opens the item's page (the path serve routes, decoded).
    let served = Served::start(&env, &[]);
    let token = super::harness::reviewer(&env, "alice");
    let s = served.sign_in(&token);
    let path = expected
        .as_str()
        .unwrap()
        .strip_prefix("https://inbox.example.com")
        .unwrap()
        .to_string();
    let page = served.page(&s, &path);
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("Name?"), "{}", page.body);
}
