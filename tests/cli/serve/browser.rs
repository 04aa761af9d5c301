//! The inbox in a real browser (headless Chromium over WebDriver), as a reviewer on a phone
//! uses it: a sign-in link, each kind of item answered by tapping, two reviewers racing for
//! one item, and the form on screen at 375×812.

use serde_json::json;

use super::harness::{asked, item_state, planned, reviewer, Served};
use super::webdriver::{available, Browser, Driver};
use crate::common::Env;
use crate::policy_fixture::tagging_agent;

/// Opens the run's (only) item from the run's page, as a person taps it.
fn open_item(b: &Browser, served: &Served, run: &str) {
    b.go(&served.url(&format!("/runs/{run}")));
    b.submit(&b.find("ul.items a.open"));
}

fn sign_in_with_token(b: &Browser, served: &Served, token: &str) {
    b.go(&served.url("/login"));
    b.type_in(&b.find("#token"), token);
    b.submit(&b.find("button[type=submit]"));
    assert!(
        b.current_url().ends_with('/'),
        "{} {:?} {}",
        b.current_url(),
        b.cookies(),
        b.source()
    );
}

#[test]
fn a_sign_in_link_then_a_question_and_a_multi_select_on_a_phone() {
    if !available() {
        return;
    }
    let env = Env::new();
    reviewer(&env, "alice");
    let (q, q_call) = asked(&env, &["Which name for the setting?"]);
    let (m, m_call) = asked(
        &env,
        &[
            "Which checks?",
            "--option",
            "tests",
            "--option",
            "docs",
            "--option",
            "lint",
            "--multi",
        ],
    );
    let served = Served::start(&env, &[]);
    let link = env.cmd(&["reviewer", "link", "alice"]).code(0);
    let driver = Driver::start();
    let phone = driver.browser(375, 812);

    // A preview of the link (a GET) spends nothing: the page only shows a button.
    phone.go(&served.url(link.stdout.trim()));
    assert!(phone.source().contains("This link signs you in once"));
    phone.submit(&phone.find("button[type=submit]"));
    assert!(
        phone.current_url().ends_with('/'),
        "{}",
        phone.current_url()
    );
    let inbox = phone.source();
    assert!(
        inbox.contains("Which name for the setting?") && inbox.contains("Which checks?"),
        "{inbox}"
    );
    let cookie = phone
        .cookies()
        .into_iter()
        .find(|c| c["name"] == "__Host-mastra-ask-session")
        .expect("the session cookie");
    assert_eq!(
        (cookie["httpOnly"].clone(), cookie["sameSite"].clone()),
        (json!(true), json!("Lax"))
    );

    // The item's form is on the phone's screen, full width, without scrolling sideways.
    open_item(&phone, &served, &q);
    let answer = phone.find("#answer");
    let send = phone.find("button[type=submit].primary");
    for e in [&answer, &send] {
        let (x, y, w, h) = phone.rect(e);
        assert!(
            x >= 0.0 && x + w <= 375.0 && y >= 0.0 && y + h <= 812.0,
            "{:?}",
            (x, y, w, h)
        );
        assert!(h >= 44.0 || e == &answer, "a touch target of {h}px");
    }
    let width = phone.script("return document.documentElement.scrollWidth;");
    assert!(
        width.as_f64().unwrap() <= 375.0,
        "the page scrolls sideways: {width}"
    );
    let png = phone.screenshot();
    assert!(png.starts_with(b"\x89PNG"));
    let shot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-phone-item.png");
    std::fs::write(&shot, &png).unwrap();

    phone.type_in(&answer, "darkMode");
    phone.submit(&send);
    assert!(phone.source().contains("Recorded."), "{}", phone.source());
    let (state, by, via, data) = item_state(&env, &q, &q_call);
    assert_eq!(
        (state.as_str(), by, via, data),
        ("resolved", json!("alice"), json!("web"), json!("darkMode"))
    );

    open_item(&phone, &served, &m);
    for label in ["tests", "lint"] {
        let boxes = phone.find_all("input[type=checkbox]");
        let i = ["tests", "docs", "lint"]
            .iter()
            .position(|l| *l == label)
            .unwrap();
        phone.click(&boxes[i]);
    }
    phone.submit(&phone.find("button[type=submit].primary"));
    let (state, _, via, data) = item_state(&env, &m, &m_call);
    assert_eq!(
        (state.as_str(), via, data),
        ("resolved", json!("web"), json!(["tests", "lint"]))
    );
}

#[test]
fn a_plan_rejected_with_feedback_and_an_approval_declined_with_a_reason() {
    if !available() {
        return;
    }
    let env = Env::new();
    let token = reviewer(&env, "bob");
    let (p, p_call) = planned(
        &env,
        "# Ship 2.0\n\n1. Tag\n2. <script>alert(1)</script> Publish\n",
    );
    let agent = tagging_agent(&env, json!({"version": "v2"}), None);
    let a = env.suspended(&agent);
    let served = Served::start(&env, &[]);
    let driver = Driver::start();
    let b = driver.browser(375, 812);
    sign_in_with_token(&b, &served, &token);

    open_item(&b, &served, &p);
    let plan = b.text(&b.find("div.plan"));
    assert!(
        plan.contains("<script>alert(1)</script> Publish"),
        "shown as text: {plan}"
    );
    assert_eq!(
        b.script("return document.querySelectorAll('div.plan script').length;"),
        json!(0)
    );
    b.type_in(&b.find("#feedback"), "Publish the docs before tagging.");
    b.submit(&b.find("button[value=rejected]"));
    let (state, by, via, data) = item_state(&env, &p, &p_call);
    assert_eq!(
        (state.as_str(), by, via),
        ("resolved", json!("bob"), json!("web"))
    );
    assert_eq!(
        (data["action"].clone(), data["feedback"].clone()),
        (json!("rejected"), json!("Publish the docs before tagging."))
    );

    open_item(&b, &served, &a);
    let buttons = b.find_all("form.decide button[type=submit]");
    assert_eq!(b.text(&buttons[0]), "Decline", "Decline comes first");
    b.type_in(&b.find("#reason"), "Not on a Friday.");
    b.submit(&buttons[0]);
    let (state, by, via, data) = item_state(&env, &a, "c1");
    assert_eq!(
        (state.as_str(), by, via),
        ("resolved", json!("bob"), json!("web"))
    );
    assert_eq!(
        data,
        json!({"approved": false, "reason": "Not on a Friday."})
    );
    assert_eq!(
        crate::command_tools::tag_runs(&env),
        0,
        "a declined tool never runs"
    );
}

#[test]
fn two_reviewers_race_for_one_item_and_one_sees_who_decided() {
    if !available() {
        return;
    }
    let env = Env::new();
    let (alice, carol) = (reviewer(&env, "alice"), reviewer(&env, "carol"));
    let (q, call_id) = asked(&env, &["Deploy?", "--option", "yes", "--option", "no"]);
    let served = Served::start(&env, &[]);
    let driver = Driver::start();
    let (a, c) = (driver.browser(375, 812), driver.browser(375, 812));
    sign_in_with_token(&a, &served, &alice);
    sign_in_with_token(&c, &served, &carol);
    open_item(&a, &served, &q);
    open_item(&c, &served, &q);
    a.click(&a.find_all("input[type=radio]")[0]);
    c.click(&c.find_all("input[type=radio]")[1]);
    a.submit(&a.find("button[type=submit].primary"));
    c.submit(&c.find("button[type=submit].primary"));
    let page = c.source();
    assert!(page.contains("alice decided this item first"), "{page}");
    assert!(page.contains("Decided: ") && page.contains("yes"), "{page}");
    let (_, by, _, data) = item_state(&env, &q, &call_id);
    assert_eq!((by, data), (json!("alice"), json!("yes")));
}

/// How many times the inbox (`GET /`) was loaded, by serve's request log.
fn inbox_loads(served: &Served) -> usize {
    served
        .log()
        .lines()
        .filter(|l| l.starts_with("GET / 200 "))
        .count()
}

/// Fails if the inbox is loaded again within a few seconds: it stays at `loads`.
fn stays_at(served: &Served, loads: usize) {
    let changed = crate::common::try_poll(std::time::Duration::from_secs(3), || {
        (inbox_loads(served) != loads).then(|| inbox_loads(served))
    });
    assert_eq!(
        changed,
        None,
        "the inbox reloaded by itself: {}",
        served.log()
    );
}

#[test]
fn the_inbox_reloads_once_for_a_change_and_never_without_one() {
    if !available() {
        return;
    }
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let served = Served::start(&env, &[]);
    let driver = Driver::start();
    let b = driver.browser(390, 844);
    sign_in_with_token(&b, &served, &token);
    let first = inbox_loads(&served);
    assert_eq!(first, 1, "{}", served.log());
    stays_at(&served, first);

    asked(&env, &["Arrived while you looked?"]);
    env.poll("the inbox never showed the new item", || {
        b.source().contains("Arrived while you looked?")
    });
    assert_eq!(inbox_loads(&served), first + 1, "{}", served.log());
    stays_at(&served, first + 1);

    // Opened again after the change: no reload at all.
    b.go(&served.url("/"));
    stays_at(&served, first + 2);
}

#[test]
fn on_a_phone_a_link_survives_sign_in_and_every_tap_target_is_big_enough() {
    if !available() {
        return;
    }
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let agent = tagging_agent(&env, json!({"version": "3.1.0"}), None);
    let a = env.suspended(&agent);
    let (q, q_call) = asked(&env, &["Which version are we releasing?"]);
    let served = Served::start(&env, &[]);
    let driver = Driver::start();
    let phone = driver.browser(390, 844);

    // The chat's link, signed out: sign in, and on to the item.
    let item = format!("/runs/{q}/items/{q_call}");
    phone.go(&served.url(&item));
    assert!(
        phone.current_url().ends_with("/login"),
        "{}",
        phone.current_url()
    );
    phone.type_in(&phone.find("#token"), &token);
    phone.submit(&phone.find("button[type=submit]"));
    assert!(
        phone.current_url().ends_with(&item),
        "{}",
        phone.current_url()
    );

    phone.go(&served.url("/"));
    assert!(phone.source().contains("2 items, oldest first."));
    std::fs::write("/tmp/serve-phone-inbox.png", phone.screenshot()).unwrap();
    // Each card is one tap target, all of it, at least 44 px high.
    let cards = phone.script(
        "return [...document.querySelectorAll('ul.items li')].map(li => {
           const r = li.getBoundingClientRect();
           const hit = (x, y) => { const e = document.elementFromPoint(x, y); return !!(e && e.closest('a.open')); };
           return [r.height, hit(r.left + 10, r.top + 10), hit(r.right - 10, r.bottom - 10), hit(r.left + r.width / 2, r.top + r.height / 2)];
         });",
    );
    let cards = cards.as_array().unwrap();
    assert_eq!(cards.len(), 2, "{cards:?}");
    for c in cards {
        assert!(c[0].as_f64().unwrap() >= 44.0, "{c}");
        assert_eq!(
            c.as_array().unwrap()[1..],
            [json!(true), json!(true), json!(true)],
            "{c}"
        );
    }
    // Sign out: big enough, and away from the header's link.
    let (hx, hy, hw, hh) = phone.rect(&phone.find("header a.home"));
    let (sx, sy, sw, sh) = phone.rect(&phone.find("header button"));
    assert!(sh >= 44.0 && sw >= 44.0, "Sign out is {sw}x{sh}");
    assert!(hh >= 44.0, "the header link is {hw}x{hh}");
    assert!(
        sx - (hx + hw) >= 24.0 || sy >= hy + hh + 8.0,
        "Sign out is beside the header link: {:?} {:?}",
        (hx, hy, hw, hh),
        (sx, sy, sw, sh)
    );

    // The approval: the tool's description above its arguments.
    phone.go(&served.url(&format!("/runs/{a}/items/c1")));
    assert_eq!(
        phone.text(&phone.find("p.tool-description")),
        "The tag_release tool."
    );
    std::fs::write("/tmp/serve-phone-approval.png", phone.screenshot()).unwrap();
    phone.submit(&phone.find("button[name=approved][value=true]"));
    // Recorded: on to the next waiting item, or back to the inbox.
    std::fs::write("/tmp/serve-phone-recorded.png", phone.screenshot()).unwrap();
    let next = phone.find("a.next");
    assert_eq!(phone.text(&next), "Next waiting item");
    phone.submit(&next);
    assert!(
        phone.current_url().ends_with(&item),
        "{}",
        phone.current_url()
    );
    std::fs::write("/tmp/serve-phone-question.png", phone.screenshot()).unwrap();
}
