//! The inbox's approve-with-changes form (SPEC §13, §14.1), with plain HTTP and in a real
//! browser (headless Chromium over WebDriver): an approval's page offers the arguments as
//! editable JSON, pre-filled and escaped; arguments that are no JSON or do not fit the
//! tool's schema are the page again with the error, 400, nothing changed; accepted ones are
//! recorded as `approve --args` records them (both sets), and the tool runs with them.

use serde_json::{json, Value};

use super::harness::{reviewer, Served};
use super::webdriver::{available, Driver};
use crate::command_tools::event;
use crate::common::Env;
use crate::policy_fixture::tagging_agent;

/// A run suspended on the approval of `tag_release` (`c1`) with these arguments.
fn suspended(env: &Env, args: Value) -> String {
    let agent = tagging_agent(env, args, None);
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    run
}

/// After the decision: the run resumed here, the tool ran once with `ran`, and `show`
/// keeps the proposed arguments and the approved ones.
fn ran_with(env: &Env, run: &str, proposed: &Value, ran: &Value) {
    env.run(&["resume", run]).assert_code(0);
    assert_eq!(env.status(run), "completed");
    let log = std::fs::read_to_string(env.path("work/tagged.log")).unwrap();
    assert_eq!(
        log,
        format!("{ran}\n"),
        "the tool ran once, with the changes"
    );
    assert_eq!(event(env, run, "tool-result")["args"], *ran);
    let item = &env.show(run)["suspensions"][0];
    assert_eq!(
        (&item["args"], &item["approvedArgs"], &item["resolvedVia"]),
        (proposed, ran, &json!("web")),
        "{item}"
    );
}

#[test]
fn the_form_offers_the_arguments_escaped_and_refuses_a_bad_edit_with_nothing_changed() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let proposed = json!({"version": "v2</textarea><b>\u{202e}"});
    let run = suspended(&env, proposed.clone());
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let item = format!("/runs/{run}/items/c1");

    let page = served.page(&s, &item);
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains(
            "<textarea id=\"args\" name=\"args\" rows=\"6\" spellcheck=\"false\">{\n  &quot;version&quot;: &quot;v2&lt;/textarea&gt;&lt;b&gt;\\u202e&quot;\n}</textarea>"
        ),
        "{}",
        page.body
    );

    let before = env.dump();
    for (bad, said) in [
        (
            "{\"version\": ",
            "the arguments are not valid JSON: EOF while parsing",
        ),
        (
            "{\"version\": 3}",
            "the arguments do not fit tool tag_release: ",
        ),
        (
            "{\"other\": \"x\"}",
            "the arguments do not fit tool tag_release: ",
        ),
    ] {
        let r = served.submit(&s, &item, &[("args", bad), ("approved", "true")]);
        assert_eq!(r.status, 400, "{bad}: {}", r.body);
        assert!(r.body.contains(said), "{bad}: {}", r.body);
        assert!(r.body.contains("nothing was recorded"), "{bad}: {}", r.body);
        // The page again, with the edit kept for another try.
        let kept = bad.replace('"', "&quot;");
        assert!(
            r.body
                .contains(&format!("spellcheck=\"false\">{kept}</textarea>")),
            "{bad}: {}",
            r.body
        );
        assert_eq!(env.dump(), before, "{bad}: nothing changed");
    }

    // Arguments that fit: recorded with both sets, as `approve --args` records them.
    let changed = json!({"version": "v3"});
    let r = served.submit(
        &s,
        &item,
        &[("args", &changed.to_string()), ("approved", "true")],
    );
    assert_eq!(r.status, 303, "{}", r.body);
    drop(served);
    ran_with(&env, &run, &proposed, &changed);
}

#[test]
fn the_proposed_arguments_unchanged_are_a_plain_approval() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let proposed = json!({"version": "v2"});
    let run = suspended(&env, proposed.clone());
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let item = format!("/runs/{run}/items/c1");
    // As the page pre-fills them, indented.
    let text = serde_json::to_string_pretty(&proposed).unwrap();
    let r = served.submit(&s, &item, &[("args", &text), ("approved", "true")]);
    assert_eq!(r.status, 303, "{}", r.body);
    drop(served);
    env.run(&["resume", &run]).assert_code(0);
    let item = &env.show(&run)["suspensions"][0];
    assert_eq!(item["approvedArgs"], Value::Null, "{item}");
    assert_eq!(event(&env, &run, "tool-result")["args"], proposed);
}

#[test]
fn declining_ignores_the_arguments_field() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let run = suspended(&env, json!({"version": "v2"}));
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let item = format!("/runs/{run}/items/c1");
    let r = served.submit(
        &s,
        &item,
        &[
            ("args", "not json"),
            ("approved", "false"),
            ("reason", "no"),
        ],
    );
    assert_eq!(r.status, 303, "{}", r.body);
    let item = &env.show(&run)["suspensions"][0];
    assert_eq!(
        item["resumeData"],
        json!({"approved": false, "reason": "no"})
    );
}

#[test]
fn in_a_browser_an_edited_approval_runs_with_the_changes_and_a_bad_edit_is_refused() {
    if !available() {
        return;
    }
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let proposed = json!({"version": "v2"});
    let run = suspended(&env, proposed.clone());
    let served = Served::start(&env, &[]);
    let driver = Driver::start();
    let b = driver.browser(375, 812);
    b.go(&served.url("/login"));
    b.type_in(&b.find("#token"), &token);
    b.submit(&b.find("button[type=submit]"));
    b.go(&served.url(&format!("/runs/{run}/items/c1")));
    let args = b.find("#args");
    let shown: Value = serde_json::from_str(
        b.script("return document.getElementById('args').value;")
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(shown, proposed, "pre-filled with the proposed arguments");

    // A bad edit: the page again, the error said, nothing changed.
    let before = env.dump();
    b.script("document.getElementById('args').value = ''; return true;");
    b.type_in(&args, "{\"version\": 3}");
    b.submit(&b.find("button[name=approved][value=true]"));
    let page = b.source();
    assert!(
        page.contains("the arguments do not fit tool tag_release"),
        "{page}"
    );
    assert_eq!(env.dump(), before);

    let args = b.find("#args");
    b.script("document.getElementById('args').value = ''; return true;");
    b.type_in(&args, "{\"version\": \"v3\"}");
    b.submit(&b.find("button[name=approved][value=true]"));
    assert!(b.source().contains("Recorded."), "{}", b.source());
    drop(served);
    ran_with(&env, &run, &proposed, &json!({"version": "v3"}));
}
