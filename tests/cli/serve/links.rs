//! The link a reviewer taps (SPEC §13, §5.3): once `serve --public-url` recorded the
//! inbox's address in the store, every `pending -o json` line and every `--on-suspend`
//! payload of a local run carries its item's page (`url`), its ids percent-encoded; before
//! that, none does.

use serde_json::{json, Value};

use super::harness::{asked, csrf_of, form, reviewer, Resp, Served};
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
    let token = reviewer(&env, "alice");
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

const PRE: &str = "__Host-mastra-ask-pre";
const NEXT: &str = "__Host-mastra-ask-next";
const SESSION: &str = "__Host-mastra-ask-session";

/// The sign-in form at `path` (`/login` or a link's) opened with `cookies`: the cookies
/// a browser then holds and the form's csrf value.
fn sign_in_form(served: &Served, path: &str, cookies: &str) -> (String, String) {
    let page = served.get(path, &[("cookie", cookies)]);
    assert_eq!(page.status, 200, "{}", page.body);
    let jar = match page.cookie(PRE) {
        Some(pre) => format!("{cookies}; {PRE}={pre}"),
        None => cookies.to_string(),
    };
    (jar, csrf_of(&page.body))
}

/// Posts the sign-in form at `path` with `fields`.
fn post_sign_in(served: &Served, path: &str, jar: &str, fields: &[(&str, &str)]) -> Resp {
    served.post(
        path,
        &[("cookie", jar), ("origin", &served.base)],
        &form(fields),
    )
}

#[test]
fn a_page_opened_signed_out_is_where_any_sign_in_returns() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (q, call) = asked(&env, &["Ship it?"]);
    let served = Served::start(&env, &[]);
    let item = format!("/runs/{q}/items/{call}");

    // The item's page, signed out: to sign in, with its path remembered.
    let r = served.get(&item, &[]);
    assert_eq!((r.status, r.header("location")), (303, Some("/login")));
    let next = r.cookie(NEXT).expect("the path remembered");
    assert_eq!(next, item);
    let kept = format!("{NEXT}={next}");

    // With the token form: back to the item, the path forgotten.
    let (jar, csrf) = sign_in_form(&served, "/login", &kept);
    let r = post_sign_in(
        &served,
        "/login",
        &jar,
        &[("csrf", &csrf), ("token", &token)],
    );
    assert_eq!((r.status, r.header("location")), (303, Some(item.as_str())));
    assert_eq!(r.cookie(NEXT).as_deref(), Some(""));

    // With a link: the same.
    let link = env.cmd(&["reviewer", "link", "alice"]).code(0).stdout;
    let link = link.trim();
    let (jar, csrf) = sign_in_form(&served, link, &kept);
    let r = post_sign_in(&served, link, &jar, &[("csrf", &csrf)]);
    assert_eq!((r.status, r.header("location")), (303, Some(item.as_str())));
    let session = r.cookie(SESSION).expect("signed in");

    // The used link again, in the browser it signed in: on to the inbox.
    let signed = format!("{jar}; {SESSION}={session}");
    let r = post_sign_in(&served, link, &signed, &[("csrf", &csrf)]);
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("/")),
        "{}",
        r.body
    );
    // Anywhere else it signs nobody in.
    let r = post_sign_in(&served, link, &jar, &[("csrf", &csrf)]);
    assert_eq!(r.status, 401, "{}", r.body);
    assert!(r.body.contains("This link does not sign in"), "{}", r.body);

    // Only a path of this server is returned to.
    for evil in [
        "//evil.example",
        "https://evil.example",
        "/\\evil.example",
        "evil.example",
        "/%0d%0aLocation:%20https://evil.example",
    ] {
        let (jar, csrf) = sign_in_form(&served, "/login", &format!("{NEXT}={evil}"));
        let r = post_sign_in(
            &served,
            "/login",
            &jar,
            &[("csrf", &csrf), ("token", &token)],
        );
        assert_eq!(
            (r.status, r.header("location")),
            (303, Some(if evil.starts_with("/%0d") { evil } else { "/" })),
            "{evil}"
        );
    }
}
