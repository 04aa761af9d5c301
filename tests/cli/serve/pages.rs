//! The pages over plain HTTP (the browser tests drive the same pages by tapping): the
//! inbox, a run, an item of each kind with its form, the redirect that shows what was
//! recorded, the 400 that consumed nothing, the 409 page, signing out, and the live
//! updates' event stream.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;

use super::harness::{asked, item_state, planned, reviewer, Served, Session};
use crate::common::{assert_same_store, Env, PATIENCE};

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
        "3 items, oldest first",
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
    // On to the oldest item that still waits, or back to the inbox.
    let next = format!(
        r#"<p class="after"><a class="next" href="{}">Next waiting item</a> <a class="inbox" href="/">Inbox</a></p>"#,
        item_path(&m, &m_call)
    );
    assert!(shown.body.contains(&next), "{next} in {}", shown.body);
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
    // The transcript as text a person reads, not the JSON the model got.
    assert!(
        run.body
            .contains("Plan approved. Proceed with implementation")
            && !run.body.contains("{&quot;content&quot;"),
        "{}",
        run.body
    );
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
fn a_plan_approved_with_feedback_is_refused_with_the_feedback_kept() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let (p, call) = planned(&env, "# Ship 2.0\n\n1. Tag\n");
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let before = env.dump();
    let r = served.submit(
        &s,
        &item_path(&p, &call),
        &[("feedback", "ALSO <force-push>"), ("action", "approved")],
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.body.contains(
            "feedback is for a rejection; an approval carries none: clear the feedback to approve, or reject with it; nothing was recorded"
        ),
        "{}",
        r.body
    );
    assert!(
        r.body.contains(
            r#"<textarea id="feedback" name="feedback">ALSO &lt;force-push&gt;</textarea>"#
        ),
        "the text is kept: {}",
        r.body
    );
    assert_same_store(&env.dump(), &before);
}

/// The part of a page between `from` and the next `</div>` after it.
fn part<'p>(page: &'p str, from: &str) -> &'p str {
    let at = page
        .find(from)
        .unwrap_or_else(|| panic!("no {from} in {page}"));
    let rest = &page[at..];
    &rest[..rest
        .find("</div>")
        .map_or(rest.len(), |e| e + "</div>".len())]
}

#[test]
fn an_approval_with_changes_shows_what_ran_beside_what_was_proposed() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let tag = crate::command_tools::tagger(&env);
    let agent = crate::command_tools::tool_agent(
        &env,
        json!([crate::command_tools::call("c1", "tag_release", json!({"version": "3.1.0"})), {"text": "done"}]),
        vec![crate::command_tools::tool(
            "tag_release",
            &[&tag],
            json!({"requireApproval": true}),
        )],
    );
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let item = item_path(&run, "c1");
    let page = served.page(&s, &item);
    // The tool's description, as the agent gives it, above its arguments.
    assert!(
        page.body
            .contains(r#"<p class="tool-description">The tag_release tool.</p>"#),
        "{}",
        page.body
    );
    let r = served.submit(
        &s,
        &item,
        &[("args", r#"{"version": "3.1.1"}"#), ("approved", "true")],
    );
    assert_eq!(r.status, 303, "{}", r.body);
    let page = served.page(&s, &item);
    crate::assert_shown!(env, part(&page.body, "<div class=\"args\""), @r#"
    <div class="args"><p class="muted">proposed with these arguments:</p><pre>{
      &quot;version&quot;: &quot;3.1.0&quot;
    }</pre><p><strong>approved with changes:</strong> it runs with these arguments</p><pre class="changed">{
      &quot;version&quot;: &quot;3.1.1&quot;
    }</pre></div>
    "#);
    crate::assert_shown!(env, part(&page.body, "id=\"decided\""), @r#"id="decided"><strong>Decided: </strong>approved with changes<br><span class="muted">resolved by alice via web at [TIME]</span></div>"#);
    let listed = served.page(&s, &format!("/runs/{run}")).body;
    assert!(
        listed.contains("approved with changes: {&quot;version&quot;:&quot;3.1.1&quot;}"),
        "{listed}"
    );
    drop(served);
    env.run(&["resume", &run]).assert_code(0);
    let show = env.run(&["show", &run]).stdout;
    let items = &show[show.find("\nitems\n").unwrap() + 1..];
    let items = &items[..items.find("\n\n").unwrap_or(items.len())];
    crate::assert_shown!(env, items, @r#"
    items
      c1 approval: tag_release {"version":"3.1.0"}
        resolved by alice via web at [TIME]: {"approved":true}
        approved with changes: {"version":"3.1.1"} (proposed: {"version":"3.1.0"})
        tool started at [TIME] (process group [PGID] on host [HOST])
        tool ran; it gave: {"tagged":{"version":"3.1.1"}}
    "#);
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

/// An open `GET /events` stream and what it sent that was not read yet.
struct Events {
    tcp: TcpStream,
    unread: Vec<u8>,
}

impl Events {
    /// `GET /events` (with `query`) as the signed-in `s`, past the response head.
    fn open(served: &Served, s: &Session, query: &str) -> Events {
        let mut tcp = TcpStream::connect(("127.0.0.1", served.port())).unwrap();
        tcp.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        write!(
            tcp,
            "GET /events{query} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {}\r\n\r\n",
            s.header()
        )
        .unwrap();
        let mut events = Events {
            tcp,
            unread: Vec::new(),
        };
        let head = events.until("\r\n\r\n", PATIENCE);
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        events
    }

    /// What the stream sends up to and with `what` (or until `within` passes: then what
    /// came so far).
    fn until(&mut self, what: &str, within: Duration) -> String {
        let deadline = Instant::now() + within;
        let found = |b: &[u8]| {
            b.windows(what.len())
                .position(|w| w == what.as_bytes())
                .map(|at| at + what.len())
        };
        while found(&self.unread).is_none() && Instant::now() < deadline {
            let mut buf = [0u8; 4096];
            match self.tcp.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => self.unread.extend_from_slice(&buf[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(e) => panic!("{e}"),
            }
        }
        let end = found(&self.unread).unwrap_or(self.unread.len());
        let taken: Vec<u8> = self.unread.drain(..end).collect();
        String::from_utf8_lossy(&taken).into_owned()
    }
}

/// The events of a stream's text (its chunk sizes dropped): comments and `event:` lines.
fn sse_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with(':') || l.starts_with("event:"))
        .collect()
}

#[test]
fn the_inbox_event_stream_says_when_items_come_and_a_fresh_one_stays_quiet() {
    let env = Env::new();
    let token = reviewer(&env, "alice");
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let mut open = Events::open(&served, &s, "");
    assert_eq!(
        sse_lines(&open.until(": connected", PATIENCE)),
        [": connected"]
    );
    asked(&env, &["New question?"]);
    let seen = open.until("event: change", PATIENCE);
    assert_eq!(sse_lines(&seen), ["event: change"], "{seen}");

    // A stream opened after the change hears nothing of it (a page reloaded for it must
    // not reload again), nor does one that says it was rendered after it.
    let quiet = Duration::from_secs(2);
    for query in ["", "?since=1"] {
        let seen = Events::open(&served, &s, query).until("event:", quiet);
        assert_eq!(sse_lines(&seen), [": connected"], "{query}: {seen}");
    }
    // A page rendered before the change, whose stream opened after it, hears it once.
    let seen = Events::open(&served, &s, "?since=0").until("never", quiet);
    assert_eq!(sse_lines(&seen), [": connected", "event: change"], "{seen}");
    let page = served.page(&s, "/");
    assert!(
        page.body.contains(r#"<div id="inbox" data-since="1">"#),
        "{}",
        page.body
    );
}
