//! The pages over plain HTTP (the browser tests drive the same pages by tapping): the
//! inbox, a run, an item of each kind with its form, the redirect that shows what was
//! recorded, the 400 that consumed nothing, the 409 page, signing out, and the live
//! updates' event stream.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;

use super::harness::{asked, item_state, planned, reviewer, Served};
use crate::common::{assert_same_store, Env};

fn item_path(run: &str, call: &str) -> String {
    format!("/runs/{run}/items/{call}")
}

#[test]
fn each_kind_of_item_is_shown_and_decided_through_its_form() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (q, q_call) = asked(
        &env,
        &[
            "--json",
            r#"{"question":"Which theme?","options":[{"label":"Light","description":"bright"},{"label":"Dark","description":"easy on the eyes"}]}"#,
        ],
    );
    let (m, m_call) = asked(
        &env,
        &[
            "Which checks?",
            "--option",
            "tests",
            "--option",
            "docs",
            "--multi",
        ],
    );
    let (p, p_call) = planned(&env, "# Ship it\n\n- [docs](https://example.com/docs)\n");
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);

    let inbox = served.page(&s, "/");
    assert_eq!(inbox.status, 200);
    for text in [
        "Which theme?",
        "Which checks?",
        "Ship it",
        "3 item(s), oldest first",
    ] {
        assert!(inbox.body.contains(text), "{text} in {}", inbox.body);
    }
    assert!(
        inbox.body.find("Which theme?") < inbox.body.find("Ship it"),
        "oldest first"
    );

    let page = served.page(&s, &item_path(&q, &q_call));
    assert!(
        page.body
            .contains(r#"type="radio" name="answer" value="Light""#),
        "{}",
        page.body
    );
    assert!(page.body.contains("easy on the eyes"));
    let r = served.submit(&s, &item_path(&q, &q_call), &[("answer", "Dark")]);
    assert_eq!(r.status, 303, "{}", r.body);
    let to = r.header("location").unwrap().to_string();
    assert_eq!(to, format!("{}?done=driven", item_path(&q, &q_call)));
    let shown = served.page(&s, &to);
    assert!(
        shown.body.contains("Recorded.") && shown.body.contains("Decided: </strong>Dark"),
        "{}",
        shown.body
    );
    assert_eq!(
        item_state(&env, &q, &q_call),
        (
            "resolved".into(),
            json!("alice"),
            json!("web"),
            json!("Dark")
        )
    );

    let page = served.page(&s, &item_path(&m, &m_call));
    assert!(
        page.body
            .contains(r#"type="checkbox" name="label" value="docs""#),
        "{}",
        page.body
    );
    let r = served.submit(
        &s,
        &item_path(&m, &m_call),
        &[("label", "docs"), ("label", "tests")],
    );
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(item_state(&env, &m, &m_call).3, json!(["docs", "tests"]));

    let page = served.page(&s, &item_path(&p, &p_call));
    assert!(
        page.body.contains(
            r#"<a href="https://example.com/docs" rel="noopener noreferrer nofollow">docs</a>"#
        ),
        "{}",
        page.body
    );
    let r = served.submit(
        &s,
        &item_path(&p, &p_call),
        &[("action", "approved"), ("feedback", "")],
    );
    assert_eq!(r.status, 303, "{}", r.body);
    let (state, by, via, data) = item_state(&env, &p, &p_call);
    assert_eq!(
        (state.as_str(), by, via, data["action"].clone()),
        ("resolved", json!("alice"), json!("web"), json!("approved"))
    );
    assert_eq!(
        data["plan"], "- [docs](https://example.com/docs)",
        "the snapshot was what was approved"
    );

    let run = served.page(&s, &format!("/runs/{p}"));
    assert!(
        run.body.contains("resolved by alice via web at "),
        "{}",
        run.body
    );
    assert!(run.body.contains("completed"), "{}", run.body);
    let empty = served.page(&s, "/");
    assert!(empty.body.contains("Nothing waits."), "{}", empty.body);
}

#[test]
fn a_bad_answer_is_a_400_page_that_consumed_nothing_and_a_decided_item_a_409() {
    let env = Env::new();
    let (alice, bob) = (reviewer(&env, "alice"), reviewer(&env, "bob"));
    let (q, q_call) = asked(&env, &["Name it"]);
    let (o, o_call) = asked(&env, &["Pick", "--option", "a", "--option", "b"]);
    let served = Served::start(&env, &[]);
    let (a, b) = (served.sign_in(&alice), served.sign_in(&bob));
    let before = env.dump();
    for (path, fields) in [
        (item_path(&q, &q_call), vec![("answer", "   ")]),
        (item_path(&o, &o_call), vec![("answer", "c")]),
        (item_path(&o, &o_call), vec![("approved", "true")]),
    ] {
        let r = served.submit(&a, &path, &fields);
        assert_eq!(r.status, 400, "{fields:?}: {}", r.body);
        assert!(r.body.contains("notice error"), "{}", r.body);
        assert!(
            r.body.contains(r#"<form class="decide""#),
            "the form is shown again"
        );
    }
    assert_same_store(&env.dump(), &before);

    served.submit(&a, &item_path(&o, &o_call), &[("answer", "b")]);
    let r = served.submit(&b, &item_path(&o, &o_call), &[("answer", "a")]);
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(
        r.body
            .contains("alice decided this item first; nothing of yours was recorded."),
        "{}",
        r.body
    );
    assert!(
        r.body.contains("resolved by alice via web at "),
        "who, how and when: {}",
        r.body
    );
    assert_eq!(item_state(&env, &o, &o_call).3, json!("b"));
}

#[test]
fn signing_out_ends_the_session() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    assert_eq!(served.page(&s, "/").status, 200);
    let r = served.submit(&s, "/logout", &[]);
    assert_eq!((r.status, r.header("location")), (303, Some("/login")));
    let after = served.page(&s, "/");
    assert_eq!(
        (after.status, after.header("location")),
        (303, Some("/login"))
    );
    // Each sign-in is a new session.
    let (one, two) = (served.sign_in(&token), served.sign_in(&token));
    assert_ne!(one.cookie, two.cookie);
}

#[test]
fn the_inbox_event_stream_says_when_items_come() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let mut tcp = TcpStream::connect(("127.0.0.1", served.port())).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        tcp,
        "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {}\r\n\r\n",
        s.header()
    )
    .unwrap();
    let mut reader = BufReader::new(tcp);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !seen.contains(": connected") {
        line.clear();
        reader.read_line(&mut line).unwrap();
        seen.push_str(&line);
        assert!(Instant::now() < deadline);
    }
    asked(&env, &["New question?"]);
    while !seen.contains("event: change") {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the stream ended: {seen}"
        );
        seen.push_str(&line);
        assert!(Instant::now() < deadline, "no change event: {seen}");
    }
}
