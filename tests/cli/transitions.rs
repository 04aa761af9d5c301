//! The transition table: every transition of the store from every state a run or an item
//! can be in, with the outcome it must have, run through the library's `Store` against the
//! backend the suite runs on (SQLite, or PostgreSQL with `MASTRA_ASK_TEST_POSTGRES`). Both
//! backends share one state machine (`store::transitions`); this table keeps them honest,
//! the cases where they once differed included.

use std::time::Duration;

use serde_json::json;
use tempfile::TempDir;

use mastra_ask::domain::{
    CallState, Message, NewCall, Resolution, RunStatus, StepCommit, ToolCall, Transition, Usage,
    Via,
};
use mastra_ask::store::{
    self, Access, Conflict, Error, Lease, Location, NewRun, NotFound, Resolved, Store,
};
use mastra_ask::sys::{self, Process};

use crate::db::TestDb;

/// A fresh store of the suite's backend.
struct Fixture {
    db: TestDb,
    store: Box<dyn Store>,
    _dir: TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let db = TestDb::new(dir.path());
        let location = Location::resolve(Some(&db.url()));
        let store = store::open(&location, Access::Create).unwrap().unwrap();
        Fixture {
            db,
            store,
            _dir: dir,
        }
    }

    fn status(&self, run: &str) -> String {
        match self.store.run(run).unwrap() {
            Some(r) => r.status.as_str().to_string(),
            None => "none".into(),
        }
    }
}

/// A lease of this process.
fn lease(token: &str) -> Lease {
    let me = Process::me();
    Lease {
        token: token.into(),
        host: sys::host_id().to_string(),
        pid: me.pid,
        start: me.start,
        expires_at: 0,
    }
}

const RUN: &str = "0190aaaa-0000-7000-8000-000000000001";

/// A run driven by lease `l1`; its items expire after `expires_in`.
fn running(s: &dyn Store, expires_in: Option<Duration>) {
    s.create_run(&NewRun {
        id: RUN,
        agent_id: "tester",
        agent: &json!({"id": "tester"}),
        cwd: "/",
        prompt: "Go",
        lease: &lease("l1"),
        waiter: None,
        events: &[],
        expires_in,
    })
    .unwrap();
}

/// A step that asks the questions `items` beside a call whose result was known at once
/// (`d`).
fn asking(items: &[&str]) -> StepCommit {
    let call = |id: &str| ToolCall {
        id: id.into(),
        name: "ask_user".into(),
        args: json!({"question": format!("{id}?")}),
        invalid_args: None,
    };
    let mut tool_calls: Vec<ToolCall> = items.iter().map(|id| call(id)).collect();
    tool_calls.push(call("d"));
    let calls = tool_calls
        .iter()
        .map(|c| NewCall {
            call_id: c.id.clone(),
            tool_name: c.name.clone(),
            args: c.args.clone(),
            state: if c.id == "d" {
                CallState::Done
            } else {
                CallState::Pending
            },
            payload: (c.id != "d").then(|| c.args.clone()),
            result: (c.id == "d").then(|| json!({"content": "known", "isError": false})),
            error: None,
        })
        .collect();
    StepCommit {
        messages: vec![Message::Assistant {
            content: None,
            tool_calls,
        }],
        calls,
        events: vec![],
        usage: Usage::default(),
        transition: Transition::Suspended,
    }
}

fn ending(transition: Transition) -> StepCommit {
    StepCommit {
        messages: vec![Message::Assistant {
            content: Some("done".into()),
            tool_calls: vec![],
        }],
        calls: vec![],
        events: vec![],
        usage: Usage::default(),
        transition,
    }
}

fn suspended_with(s: &dyn Store, items: &[&str], expires_in: Option<Duration>) {
    running(s, expires_in);
    s.commit_step(RUN, &lease("l1"), &asking(items)).unwrap();
}

fn suspended(s: &dyn Store) {
    suspended_with(s, &["q"], None);
}

fn answer() -> Resolution {
    Resolution {
        resume_data: json!("yes"),
        result: json!({"content": "User answered: yes", "isError": false}),
        by: "tester".into(),
        via: Via::Flag,
    }
}

fn resolve(s: &dyn Store, call: &str, driver: Option<&Lease>) -> String {
    described(s.resolve(RUN, call, &answer(), driver))
}

/// Resolved and driven on by lease `l2`.
fn resumed(s: &dyn Store) {
    s.resolve(RUN, "q", &answer(), Some(&lease("l2"))).unwrap();
}

fn completed(s: &dyn Store) {
    suspended(s);
    resumed(s);
    let done = ending(Transition::Completed {
        output: "done".into(),
        finish_reason: "stop".into(),
    });
    s.commit_step(RUN, &lease("l2"), &done).unwrap();
}

fn failed(s: &dyn Store) {
    running(s, None);
    let error = ending(Transition::Failed {
        error: "boom".into(),
    });
    s.commit_step(RUN, &lease("l1"), &error).unwrap();
}

fn cancelled(s: &dyn Store) {
    suspended(s);
    s.cancel(RUN).unwrap();
}

/// Suspended with an item whose deadline has passed, not yet closed.
fn due(s: &dyn Store) {
    suspended_with(s, &["q"], Some(Duration::ZERO));
}

fn expired(s: &dyn Store) {
    due(s);
    s.expire_due(store::now_ms()).unwrap();
}

/// Registers a waiter with a fresh heartbeat.
fn waiting(s: &dyn Store, waiter: Lease) {
    suspended(s);
    s.add_waiter(RUN, &waiter).unwrap();
}

/// An outcome in words, compared with the table.
trait Described {
    fn words(&self) -> String;
}

impl Described for Resolved {
    fn words(&self) -> String {
        match self {
            Resolved::Recorded { still_pending } => format!("recorded, {still_pending} pending"),
            Resolved::Resumed { driving: true, .. } => "resumed, driving".into(),
            Resolved::Resumed { driving: false, .. } => "resumed, handed over".into(),
        }
    }
}

impl Described for bool {
    fn words(&self) -> String {
        self.to_string()
    }
}

impl Described for usize {
    fn words(&self) -> String {
        self.to_string()
    }
}

impl Described for () {
    fn words(&self) -> String {
        "ok".into()
    }
}

impl Described for RunStatus {
    fn words(&self) -> String {
        format!("was {}", self.as_str())
    }
}

impl<T> Described for Option<T> {
    fn words(&self) -> String {
        match self {
            Some(_) => "stored".into(),
            None => "lease lost".into(),
        }
    }
}

fn described<T: Described>(r: Result<T, Error>) -> String {
    match r {
        Ok(v) => v.words(),
        Err(Error::NotFound(NotFound::Run { .. })) => "no run".into(),
        Err(Error::NotFound(NotFound::Call { .. })) => "no call".into(),
        Err(Error::Conflict(Conflict::NotPending { state, by, .. })) => {
            format!(
                "not pending: {}{}",
                state.as_str(),
                by.map(|b| format!(" by {b}")).unwrap_or_default()
            )
        }
        Err(Error::Conflict(Conflict::NotSuspended { status, .. })) => {
            format!("not suspended: {}", status.as_str())
        }
        Err(Error::Conflict(Conflict::Finished { status, .. })) => {
            format!("already {}", status.as_str())
        }
        Err(Error::Conflict(Conflict::NotCompleted { status, .. })) => {
            format!("not completed: {}", status.as_str())
        }
        Err(e) => panic!("unexpected error: {e}"),
    }
}

type Setup = fn(&Fixture);
type Action = fn(&dyn Store) -> String;

fn nothing(_: &Fixture) {}

/// (setup, transition, its outcome and the run's status after it).
fn table() -> Vec<(&'static str, Setup, Action, &'static str)> {
    vec![
        // resolve, from every item state and run status
        (
            "suspended",
            |f| suspended(f.store.as_ref()),
            |s| resolve(s, "q", Some(&lease("l2"))),
            "resumed, driving → running",
        ),
        (
            "suspended, 2 items",
            |f| suspended_with(f.store.as_ref(), &["q1", "q2"], None),
            |s| resolve(s, "q1", Some(&lease("l2"))),
            "recorded, 1 pending → suspended",
        ),
        (
            "suspended, no driver",
            |f| suspended(f.store.as_ref()),
            |s| resolve(s, "q", None),
            "resumed, handed over → running",
        ),
        (
            "suspended, live waiter",
            |f| waiting(f.store.as_ref(), lease("w")),
            |s| resolve(s, "q", Some(&lease("l2"))),
            "resumed, handed over → running",
        ),
        (
            "suspended, waiter whose process is gone",
            |f| {
                waiting(
                    f.store.as_ref(),
                    Lease {
                        start: Process::me().start + 1,
                        ..lease("w")
                    },
                )
            },
            |s| resolve(s, "q", Some(&lease("l2"))),
            "resumed, driving → running",
        ),
        (
            "suspended, waiter on another host",
            |f| {
                waiting(
                    f.store.as_ref(),
                    Lease {
                        host: "elsewhere".into(),
                        pid: 1,
                        ..lease("w")
                    },
                )
            },
            |s| resolve(s, "q", Some(&lease("l2"))),
            "resumed, handed over → running",
        ),
        (
            "suspended, waiter stopped beating",
            |f| {
                waiting(
                    f.store.as_ref(),
                    Lease {
                        host: "elsewhere".into(),
                        ..lease("w")
                    },
                );
                f.db.exec("UPDATE waiters SET heartbeat_at = 0", &[]);
            },
            |s| resolve(s, "q", Some(&lease("l2"))),
            "resumed, driving → running",
        ),
        (
            "item resolved",
            |f| {
                suspended(f.store.as_ref());
                resumed(f.store.as_ref());
            },
            |s| resolve(s, "q", Some(&lease("l3"))),
            "not pending: resolved by tester → running",
        ),
        (
            "item due, not yet closed",
            |f| due(f.store.as_ref()),
            |s| resolve(s, "q", Some(&lease("l2"))),
            "not pending: expired → failed",
        ),
        (
            "item expired",
            |f| expired(f.store.as_ref()),
            |s| resolve(s, "q", Some(&lease("l2"))),
            "not pending: expired → failed",
        ),
        (
            "run cancelled",
            |f| cancelled(f.store.as_ref()),
            |s| resolve(s, "q", Some(&lease("l2"))),
            "not pending: cancelled → cancelled",
        ),
        (
            "run completed",
            |f| completed(f.store.as_ref()),
            |s| resolve(s, "q", Some(&lease("l3"))),
            "not pending: resolved by tester → completed",
        ),
        (
            "a call known at once",
            |f| suspended(f.store.as_ref()),
            |s| resolve(s, "d", Some(&lease("l2"))),
            "not pending: done → suspended",
        ),
        (
            "run running, no such call",
            |f| running(f.store.as_ref(), None),
            |s| resolve(s, "q", Some(&lease("l2"))),
            "no call → running",
        ),
        (
            "run failed",
            |f| failed(f.store.as_ref()),
            |s| resolve(s, "q", Some(&lease("l2"))),
            "no call → failed",
        ),
        (
            "no run",
            nothing,
            |s| resolve(s, "q", Some(&lease("l2"))),
            "no call → none",
        ),
        (
            "pending item, run not suspended",
            |f| {
                suspended(f.store.as_ref());
                f.db.exec("UPDATE runs SET status = 'running'", &[]);
            },
            |s| resolve(s, "q", Some(&lease("l2"))),
            "not suspended: running → running",
        ),
        // cancel
        (
            "running",
            |f| running(f.store.as_ref(), None),
            |s| described(s.cancel(RUN)),
            "was running → cancelled",
        ),
        (
            "suspended",
            |f| suspended(f.store.as_ref()),
            |s| described(s.cancel(RUN)),
            "was suspended → cancelled",
        ),
        (
            "completed",
            |f| completed(f.store.as_ref()),
            |s| described(s.cancel(RUN)),
            "already completed → completed",
        ),
        (
            "failed",
            |f| failed(f.store.as_ref()),
            |s| described(s.cancel(RUN)),
            "was failed → cancelled",
        ),
        (
            "cancelled",
            |f| cancelled(f.store.as_ref()),
            |s| described(s.cancel(RUN)),
            "already cancelled → cancelled",
        ),
        (
            "no run",
            nothing,
            |s| described(s.cancel(RUN)),
            "no run → none",
        ),
        // take_lease (compare and swap)
        (
            "running, expected token",
            |f| running(f.store.as_ref(), None),
            |s| described(s.take_lease(RUN, RunStatus::Running, Some("l1"), &lease("l2"))),
            "true → running",
        ),
        (
            "running, another token",
            |f| running(f.store.as_ref(), None),
            |s| described(s.take_lease(RUN, RunStatus::Running, Some("lx"), &lease("l2"))),
            "false → running",
        ),
        (
            "running, no token expected",
            |f| running(f.store.as_ref(), None),
            |s| described(s.take_lease(RUN, RunStatus::Running, None, &lease("l2"))),
            "false → running",
        ),
        (
            "failed, resumed",
            |f| failed(f.store.as_ref()),
            |s| described(s.take_lease(RUN, RunStatus::Failed, None, &lease("l2"))),
            "true → running",
        ),
        (
            "suspended, as if running",
            |f| suspended(f.store.as_ref()),
            |s| described(s.take_lease(RUN, RunStatus::Running, None, &lease("l2"))),
            "false → suspended",
        ),
        (
            "no run",
            nothing,
            |s| described(s.take_lease(RUN, RunStatus::Running, None, &lease("l2"))),
            "false → none",
        ),
        // renew_lease
        (
            "running, its driver",
            |f| running(f.store.as_ref(), None),
            |s| described(s.renew_lease(RUN, &lease("l1"))),
            "true → running",
        ),
        (
            "running, another driver",
            |f| running(f.store.as_ref(), None),
            |s| described(s.renew_lease(RUN, &lease("l2"))),
            "false → running",
        ),
        (
            "cancelled",
            |f| cancelled(f.store.as_ref()),
            |s| described(s.renew_lease(RUN, &lease("l1"))),
            "false → cancelled",
        ),
        // commit_step
        (
            "running, its driver",
            |f| running(f.store.as_ref(), None),
            |s| {
                described(s.commit_step(
                    RUN,
                    &lease("l1"),
                    &ending(Transition::Completed {
                        output: "done".into(),
                        finish_reason: "stop".into(),
                    }),
                ))
            },
            "stored → completed",
        ),
        (
            "running, another driver",
            |f| running(f.store.as_ref(), None),
            |s| described(s.commit_step(RUN, &lease("l2"), &asking(&["q"]))),
            "lease lost → running",
        ),
        (
            "cancelled while driven",
            |f| {
                running(f.store.as_ref(), None);
                f.store.cancel(RUN).unwrap();
            },
            |s| described(s.commit_step(RUN, &lease("l1"), &asking(&["q"]))),
            "lease lost → cancelled",
        ),
        (
            "suspended",
            |f| suspended(f.store.as_ref()),
            |s| described(s.commit_step(RUN, &lease("l1"), &asking(&["q2"]))),
            "lease lost → suspended",
        ),
        // expire_due
        (
            "an item due",
            |f| due(f.store.as_ref()),
            |s| described(s.expire_due(store::now_ms())),
            "1 → failed",
        ),
        (
            "an item not due",
            |f| suspended_with(f.store.as_ref(), &["q"], Some(Duration::from_secs(3600))),
            |s| described(s.expire_due(store::now_ms())),
            "0 → suspended",
        ),
        (
            "no deadline",
            |f| suspended(f.store.as_ref()),
            |s| described(s.expire_due(store::now_ms())),
            "0 → suspended",
        ),
        // expire_run
        (
            "suspended",
            |f| suspended(f.store.as_ref()),
            |s| described(s.expire_run(RUN, "too late")),
            "true → failed",
        ),
        (
            "running",
            |f| running(f.store.as_ref(), None),
            |s| described(s.expire_run(RUN, "too late")),
            "false → running",
        ),
        (
            "completed",
            |f| completed(f.store.as_ref()),
            |s| described(s.expire_run(RUN, "too late")),
            "false → completed",
        ),
        // reply
        (
            "completed",
            |f| completed(f.store.as_ref()),
            |s| described(s.reply(RUN, "more", &lease("l3"))),
            "ok → running",
        ),
        (
            "running",
            |f| running(f.store.as_ref(), None),
            |s| described(s.reply(RUN, "more", &lease("l3"))),
            "not completed: running → running",
        ),
        (
            "suspended",
            |f| suspended(f.store.as_ref()),
            |s| described(s.reply(RUN, "more", &lease("l3"))),
            "not completed: suspended → suspended",
        ),
        (
            "failed",
            |f| failed(f.store.as_ref()),
            |s| described(s.reply(RUN, "more", &lease("l3"))),
            "not completed: failed → failed",
        ),
        (
            "cancelled",
            |f| cancelled(f.store.as_ref()),
            |s| described(s.reply(RUN, "more", &lease("l3"))),
            "not completed: cancelled → cancelled",
        ),
        (
            "no run",
            nothing,
            |s| described(s.reply(RUN, "more", &lease("l3"))),
            "no run → none",
        ),
        // waiters
        (
            "no run",
            nothing,
            |s| described(s.add_waiter(RUN, &lease("w"))),
            "no run → none",
        ),
        (
            "a live waiter",
            |f| waiting(f.store.as_ref(), lease("w")),
            |s| described(s.has_waiter(RUN)),
            "true → suspended",
        ),
        (
            "a waiter removed",
            |f| {
                waiting(f.store.as_ref(), lease("w"));
                f.store.remove_waiter(RUN, &lease("w")).unwrap();
            },
            |s| described(s.has_waiter(RUN)),
            "false → suspended",
        ),
        (
            "a waiter whose process is gone",
            |f| {
                waiting(
                    f.store.as_ref(),
                    Lease {
                        pid: Process::me().pid,
                        start: Process::me().start + 1,
                        ..lease("w")
                    },
                )
            },
            |s| described(s.has_waiter(RUN)),
            "false → suspended",
        ),
    ]
}

#[test]
fn every_transition_from_every_state_has_its_outcome() {
    let mut wrong = Vec::new();
    for (state, setup, action, expected) in table() {
        let f = Fixture::new();
        setup(&f);
        let outcome = format!("{} → {}", action(f.store.as_ref()), f.status(RUN));
        if outcome != expected {
            wrong.push(format!(
                "from {state:?}: expected {expected:?}, got {outcome:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn cancel_and_expiry_close_the_items_and_resolve_appends_the_results_once() {
    let f = Fixture::new();
    let s = f.store.as_ref();
    suspended_with(s, &["q1", "q2"], None);
    s.resolve(RUN, "q1", &answer(), None).unwrap();
    s.cancel(RUN).unwrap();
    let states: Vec<_> = s
        .calls(RUN)
        .unwrap()
        .iter()
        .map(|c| (c.call_id.clone(), c.state))
        .collect();
    assert_eq!(
        states,
        [
            ("q1".to_string(), CallState::Resolved),
            ("q2".to_string(), CallState::Cancelled),
            ("d".to_string(), CallState::Done)
        ]
    );
    assert_eq!(s.run(RUN).unwrap().unwrap().lease, None);

    let f = Fixture::new();
    let s = f.store.as_ref();
    suspended(s);
    resumed(s);
    let tools: Vec<String> = s
        .messages(RUN)
        .unwrap()
        .into_iter()
        .filter_map(|m| match m {
            Message::Tool { tool_call_id, .. } => Some(tool_call_id),
            _ => None,
        })
        .collect();
    assert_eq!(tools, ["q", "d"]);
    let run = s.run(RUN).unwrap().unwrap();
    assert_eq!(run.lease.map(|l| l.token), Some("l2".to_string()));
    assert_eq!(run.host.as_deref(), Some(sys::host_id()));

    let f = Fixture::new();
    let s = f.store.as_ref();
    expired(s);
    let run = s.run(RUN).unwrap().unwrap();
    assert_eq!(run.finish_reason.as_deref(), Some(store::EXPIRED));
    assert_eq!(s.calls(RUN).unwrap()[0].state, CallState::Expired);
}

#[test]
fn pending_lists_and_counts_only_items_whose_deadline_has_not_passed() {
    let f = Fixture::new();
    let s = f.store.as_ref();
    suspended_with(s, &["q1", "q2"], Some(Duration::from_secs(3600)));
    let listed = |s: &dyn Store| -> Vec<(String, usize)> {
        s.pending(None)
            .unwrap()
            .into_iter()
            .map(|p| (p.call.call_id, p.pending_in_run))
            .collect()
    };
    assert_eq!(listed(s), [("q1".to_string(), 2), ("q2".to_string(), 2)]);
    // One item's deadline passed (not yet closed): it is neither listed nor counted.
    f.db.exec("UPDATE calls SET expires_at = 1 WHERE call_id = 'q1'", &[]);
    assert_eq!(listed(s), [("q2".to_string(), 1)]);

    let f = Fixture::new();
    due(f.store.as_ref());
    assert_eq!(listed(f.store.as_ref()), []);
}

#[test]
fn a_waiter_registered_with_its_run_exists_before_any_answer() {
    let f = Fixture::new();
    let s = f.store.as_ref();
    s.create_run(&NewRun {
        id: RUN,
        agent_id: "tester",
        agent: &json!({"id": "tester"}),
        cwd: "/",
        prompt: "Go",
        lease: &lease("l1"),
        waiter: Some(&lease("w")),
        events: &[],
        expires_in: None,
    })
    .unwrap();
    assert!(s.has_waiter(RUN).unwrap());
}

#[test]
fn an_expiry_too_far_away_to_store_is_refused_and_nothing_is_stored() {
    let f = Fixture::new();
    let s = f.store.as_ref();
    let r = s.create_run(&NewRun {
        id: RUN,
        agent_id: "tester",
        agent: &json!({"id": "tester"}),
        cwd: "/",
        prompt: "Go",
        lease: &lease("l1"),
        waiter: None,
        events: &[],
        expires_in: Some(Duration::from_millis(u64::MAX)),
    });
    assert!(matches!(r, Err(Error::Usage(_))), "{r:?}");
    assert_eq!(f.status(RUN), "none");
}
