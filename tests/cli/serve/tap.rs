//! One tap from a phone (SPEC §17), through real serve processes, the fake ntfy server of
//! `notify` and real HTTP: the notification a private channel gets carries one-tap actions
//! where a decision needs no reading (an approval's two, a two-option question's options),
//! and only "Open" elsewhere (free text, plans, public channels); the "phone" then posts an
//! action's URL: a GET decides nothing, racing taps decide exactly once, a secret used twice
//! is refused, a second decision is told who decided, a removed reviewer's tap is refused, a
//! 2-of-N policy answers "1 of 2", a rotation or a channel change voids a secret, which
//! lasts an hour or until its item expires; secrets are stored hashed and never logged.

use serde_json::{json, Value};

use super::harness::{asked, item_state, only_item, planned, reviewer, send, Served};
use super::notify::{channel, ntfy, published, token_file};
use crate::assert_shown;
use crate::common::Env;
use crate::fake_server::FakeServer;

const PUBLIC: &str = "https://inbox.example";

/// Reviewers with private channels on `server` (their tokens there), and serve.
fn serving(env: &Env, server: &FakeServer, names: &[&str]) -> Served {
    for name in names {
        reviewer(env, name);
        env.cmd(&["reviewer", "notify", name, &channel(server, name)])
            .code(0);
    }
    let file = token_file(env, server, "tk", 0o600);
    Served::start(env, &["--public-url", PUBLIC, "--ntfy-token-file", &file])
}

/// The one notification `topic` got of the item, once it came.
fn notification(env: &Env, server: &FakeServer, topic: &str, n: usize) -> Value {
    env.poll("the reviewer was told", || {
        published(server, topic).len() == n
    });
    published(server, topic)[n - 1].body.clone()
}

/// The actions of a notification, their secrets as `SECRET`, as `label method url` lines.
fn actions(body: &Value) -> String {
    body["actions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            let url = a["url"].as_str().unwrap();
            let url = match url.split_once("/tap/") {
                Some((base, _)) => format!("{base}/tap/SECRET"),
                None => url.to_string(),
            };
            format!(
                "{} {} {} {} clear={}",
                a["action"].as_str().unwrap(),
                a["label"],
                a["method"].as_str().unwrap_or("-"),
                url,
                a["clear"]
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The path of the action labelled `label` (`/tap/SECRET`), as the phone posts it to serve.
fn tap_path(body: &Value, label: &str) -> String {
    let a = body["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["label"] == json!(label))
        .unwrap_or_else(|| panic!("no action {label}: {body}"));
    a["url"]
        .as_str()
        .unwrap()
        .strip_prefix(PUBLIC)
        .unwrap()
        .to_string()
}

fn tap(served: &Served, path: &str) -> (u16, String) {
    let r = send(&served.url(path), "POST", &[], None);
    (r.status, r.body)
}

/// A pending approval of `tag_release` (`c1`), started with `extra` flags; its run.
fn approval(env: &Env, extra: &[&str]) -> String {
    let agent = crate::policy_fixture::tagging_agent(env, json!({"version": "v2"}), None);
    let (out, run) = env.start(&agent, extra);
    out.assert_code(75);
    run
}

#[test]
fn an_approval_is_decided_by_one_tap_exactly_once_under_racing_taps() {
    let env = Env::new();
    let server = ntfy();
    let served = serving(&env, &server, &["alice"]);
    let run = approval(&env, &[]);
    let body = notification(&env, &server, "alice", 1);
    assert_shown!(env, actions(&body), @r#"
        http "Decline" POST https://inbox.example/tap/SECRET clear=true
        http "Approve" POST https://inbox.example/tap/SECRET clear=true
        view "Open" - https://inbox.example/runs/[RUN]/items/c1 clear=true
        "#);
    let approve = tap_path(&body, "Approve");
    let secret = approve.trim_start_matches("/tap/").to_string();

    // A GET (a link preview) only shows the button.
    let page = served.get(&approve, &[]);
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains(&format!("action=\"{approve}\"")),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("<p><strong>tag_release {&quot;version&quot;:&quot;v2&quot;}</strong></p>"),
        "{}",
        page.body
    );
    assert_eq!(item_state(&env, &run, "c1").0, "pending");

    // Two taps at once: one decides, the other is refused.
    let taps: Vec<(u16, String)> = std::thread::scope(|s| {
        let one = s.spawn(|| tap(&served, &approve));
        let two = s.spawn(|| tap(&served, &approve));
        vec![one.join().unwrap(), two.join().unwrap()]
    });
    let mut told: Vec<String> = taps.iter().map(|(s, b)| format!("{s} {b}")).collect();
    told.sort();
    assert_shown!(env, told.join(""), @r#"
        200 Approve: recorded
        403 this action is no longer valid: it was used, it expired, or its reviewer changed; open the item in the inbox instead
        "#);
    let (state, by, via, data) = item_state(&env, &run, "c1");
    assert_eq!(
        (state.as_str(), by, via, data),
        (
            "resolved",
            json!("alice"),
            json!("tap"),
            json!({"approved": true})
        )
    );
    // Used twice: refused; the other decision is told who decided.
    assert_shown!(env, tap(&served, &approve).1, @"this action is no longer valid: it was used, it expired, or its reviewer changed; open the item in the inbox instead");
    let (status, text) = tap(&served, &tap_path(&body, "Decline"));
    assert_shown!(env, format!("{status} {text}"), @"409 not recorded: already resolved by alice (via tap)");
    assert_eq!(item_state(&env, &run, "c1").3, json!({"approved": true}));

    // Never logged, never stored in clear.
    let log = served.log();
    assert!(log.contains("POST /tap/… 200"), "{log}");
    assert!(!log.contains(&secret), "{log}");
    assert!(!env.dump().contains(&secret));
}

#[test]
fn only_decisions_that_need_no_reading_get_buttons_and_only_on_private_channels() {
    let env = Env::new();
    let server = ntfy();
    let public = ntfy();
    let served = serving(&env, &server, &["alice"]);
    reviewer(&env, "bob");
    env.cmd(&["reviewer", "notify", "bob", &channel(&public, "bob")])
        .code(0);
    let (run, call) = asked(
        &env,
        &[
            "Deploy?",
            "--option",
            "yes",
            "--option",
            "no, wait until the freeze is over",
        ],
    );
    let body = notification(&env, &server, "alice", 1);
    assert_shown!(env, actions(&body), @r#"
        http "yes" POST https://inbox.example/tap/SECRET clear=true
        http "no, wait until the free…" POST https://inbox.example/tap/SECRET clear=true
        view "Open" - https://inbox.example/runs/[RUN]/items/[CALL] clear=true
        "#);
    // A public channel: only "Open".
    let theirs = notification(&env, &public, "bob", 1);
    assert_shown!(env, actions(&theirs), @"view \"Open\" - https://inbox.example/runs/[RUN]/items/[CALL] clear=true");
    // Free text, three options, several, a plan: only "Open".
    asked(&env, &["Why?"]);
    asked(
        &env,
        &["Which?", "--option", "a", "--option", "b", "--option", "c"],
    );
    asked(
        &env,
        &["Which?", "--multi", "--option", "a", "--option", "b"],
    );
    planned(&env, "# Ship\n");
    notification(&env, &server, "alice", 5);
    for r in &published(&server, "alice")[1..] {
        let body = &r.body;
        assert_eq!(
            actions(body),
            format!(
                "view \"Open\" - {} clear=true",
                body["click"].as_str().unwrap()
            ),
            "{body}"
        );
    }

    let (status, text) = tap(&served, &tap_path(&body, "no, wait until the free…"));
    assert_shown!(env, format!("{status} {text}"), @"200 no, wait until the free…: recorded");
    let (state, by, via, data) = item_state(&env, &run, &call);
    assert_eq!(
        (state.as_str(), by, via, data),
        (
            "resolved",
            json!("alice"),
            json!("tap"),
            json!("no, wait until the freeze is over")
        )
    );
}

#[test]
fn a_removed_reviewer_s_tap_is_refused_and_a_get_decides_nothing() {
    let env = Env::new();
    let server = ntfy();
    let served = serving(&env, &server, &["alice", "bob"]);
    let run = approval(&env, &[]);
    let alice = notification(&env, &server, "alice", 1);
    let bob = notification(&env, &server, "bob", 1);
    env.cmd(&["reviewer", "remove", "alice"]).code(0);
    // bob's channel changes: his secrets are void too.
    env.cmd(&["reviewer", "notify", "bob", &channel(&server, "bob2")])
        .code(0);
    let mut told = String::new();
    for path in [tap_path(&alice, "Approve"), tap_path(&bob, "Approve")] {
        let page = served.get(&path, &[]);
        assert_eq!(page.status, 403, "{}", page.body);
        let (status, text) = tap(&served, &path);
        told.push_str(&format!("{status} {text}"));
    }
    assert_shown!(env, told, @r#"
        403 this action is no longer valid: it was used, it expired, or its reviewer changed; open the item in the inbox instead
        403 this action is no longer valid: it was used, it expired, or its reviewer changed; open the item in the inbox instead
        "#);
    assert_eq!(item_state(&env, &run, "c1").0, "pending");
    assert_eq!(only_item(&env, &run), "c1");
}

#[test]
fn a_first_of_two_approvals_is_answered_1_of_2() {
    let env = Env::new();
    let server = ntfy();
    let served = serving(&env, &server, &["alice", "bob", "carol"]);
    let run = approval(
        &env,
        &[
            "--reviewer",
            "alice",
            "--reviewer",
            "bob",
            "--approvals",
            "2",
        ],
    );
    let alice = notification(&env, &server, "alice", 1);
    let (status, text) = tap(&served, &tap_path(&alice, "Approve"));
    assert_shown!(env, format!("{status} {text}"), @"200 Approve: recorded; 1 of 2 approvals: alice approved; waiting for 1 more from bob");
    assert_eq!(item_state(&env, &run, "c1").0, "pending");
    assert_eq!(published(&server, "carol").len(), 0);
}

#[test]
fn a_secret_lasts_an_hour_or_until_its_item_expires_and_a_rotation_voids_it() {
    let env = Env::new();
    let server = ntfy();
    let served = serving(&env, &server, &["alice", "bob"]);
    let soon = approval(&env, &["--expires-in", "10m"]);
    let later = approval(&env, &[]);
    let alice = notification(&env, &server, "alice", 2);
    notification(&env, &server, "bob", 2);
    let lasts = |run: &str| {
        env.rows(
            &format!(
                "SELECT DISTINCT coalesce(t.expires_at - c.expires_at, t.expires_at - t.created_at) \
                 FROM taps t JOIN calls c ON c.call_id = t.call_id AND c.{0} WHERE t.{0}",
                env.of_run()
            ),
            &[run],
        )
    };
    // Until the item expires (in 10 minutes), else an hour.
    assert_eq!(lasts(&soon), vec![vec![Some("0".to_string())]]);
    assert_eq!(lasts(&later), vec![vec![Some("3600000".to_string())]]);

    env.cmd(&["reviewer", "rotate", "alice"]).code(0);
    let (status, text) = tap(&served, &tap_path(&alice, "Approve"));
    assert_shown!(env, format!("{status} {text}"), @"403 this action is no longer valid: it was used, it expired, or its reviewer changed; open the item in the inbox instead");
    let left = env.rows(
        "SELECT reviewer, count(*) FROM taps GROUP BY reviewer ORDER BY reviewer",
        &[],
    );
    assert_eq!(
        left,
        vec![vec![Some("bob".to_string()), Some("4".to_string())]]
    );
}

/// On a phone (headless Chromium at 375×812): the confirmation page a GET shows fits the
/// screen, and its button decides.
#[test]
fn the_confirmation_page_on_a_phone_decides_with_its_button() {
    if !super::webdriver::available() {
        return;
    }
    let env = Env::new();
    let server = ntfy();
    let served = serving(&env, &server, &["alice"]);
    let run = approval(&env, &[]);
    let body = notification(&env, &server, "alice", 1);
    let driver = super::webdriver::Driver::start();
    let phone = driver.browser(375, 812);
    phone.go(&served.url(&tap_path(&body, "Approve")));
    let button = phone.find("button[type=submit].primary");
    let (x, y, w, h) = phone.rect(&button);
    assert!(
        x >= 0.0 && x + w <= 375.0 && y >= 0.0 && y + h <= 812.0 && h >= 44.0,
        "{:?}",
        (x, y, w, h)
    );
    let shot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-phone-tap.png");
    std::fs::write(&shot, phone.screenshot()).unwrap();
    assert_eq!(item_state(&env, &run, "c1").0, "pending");
    phone.submit(&button);
    assert!(
        phone.source().contains("Approve: recorded"),
        "{}",
        phone.source()
    );
    assert_eq!(
        item_state(&env, &run, "c1").2,
        json!("tap"),
        "decided via tap"
    );
}
