//! The transition table: every transition of the store from every state a run or an item
//! can be in, with the outcome it must have, run through the library's `Store` against the
//! backend the suite runs on (SQLite, or PostgreSQL with `MASTRA_ASK_TEST_POSTGRES`). Both
//! backends share one state machine (`store::transitions`); this table keeps them honest,
//! the cases where they once differed included.

use std::time::Duration;

use serde_json::json;
use tempfile::TempDir;

use mastra_ask::domain::{
    CallState, ItemKind, Message, NewCall, Payload, Resolution, RunStatus, StepCommit, ToolCall,
    ToolProcess, Transition, Usage, Via,
};
use mastra_ask::store::{
    self, Access, Conflict, Error, Identity, Lease, LedgerEntry, LedgerKey, LedgerKind,
    LedgerState, Location, NewRun, NotFound, Resolved, RunReview, Store,
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

    fn s(&self) -> &dyn Store {
        self.store.as_ref()
    }

    fn status(&self, run: &str) -> String {
        match self.store.run(run).unwrap() {
            Some(r) => r.status.as_str().to_string(),
            None => "none".into(),
        }
    }
}

/// A lease of this process.
pub fn lease(token: &str) -> Lease {
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

/// Stores a run driven by lease `l1`, with `waiter`; its items expire after `expires_in`.
fn create(s: &dyn Store, waiter: Option<&Lease>, expires_in: Option<Duration>) -> String {
    create_as(s, RUN, waiter, expires_in)
}

/// `create` for the run `id`.
fn create_as(
    s: &dyn Store,
    id: &str,
    waiter: Option<&Lease>,
    expires_in: Option<Duration>,
) -> String {
    let stored = s.create_run(&NewRun {
        id,
        agent_id: "tester",
        agent: &json!({"id": "tester"}),
        cwd: "/",
        prompt: "Go",
        lease: &lease("l1"),
        waiter,
        events: &[],
        expires_in,
        review: &RunReview::local(Default::default()),
    });
    described(stored.map(|_| ()))
}

/// A run driven by lease `l1`; its items expire after `expires_in`.
fn running(s: &dyn Store, expires_in: Option<Duration>) {
    assert_eq!(create(s, None, expires_in), "ok");
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
            kind: (c.id != "d").then_some(ItemKind::Question),
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
        result: Some(json!({"content": "User answered: yes", "isError": false})),
        by: "tester".into(),
        via: Via::Flag,
    }
}

/// This process's user, deciding.
fn me() -> Identity {
    Identity::local()
}

fn resolve(s: &dyn Store, call: &str, driver: Option<&Lease>) -> String {
    described(s.resolve(RUN, call, &answer(), &me(), driver))
}

/// Resolved and driven on by lease `l2`.
fn resumed(s: &dyn Store) {
    s.resolve(RUN, "q", &answer(), &me(), Some(&lease("l2")))
        .unwrap();
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
            Resolved::Partial { needed, .. } => format!("partial, {needed} needed"),
            Resolved::Ended { waiter, .. } => format!("ended, waiter {waiter}"),
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
        Err(Error::Conflict(Conflict::Answered { by, state, .. })) => {
            format!("answered by {by}, {}", state.as_str())
        }
        Err(Error::Usage(_)) => "refused: usage".into(),
        Err(e) => panic!("unexpected error: {e}"),
    }
}

type Setup = fn(&Fixture);
type Action = fn(&dyn Store) -> String;
/// A state to start from, how to get there, and the outcome (with the run's status after).
type From = (&'static str, Setup, &'static str);

fn nothing(_: &Fixture) {}

fn waiter_alive(f: &Fixture) {
    waiting(f.s(), lease("w"));
}

fn waiter_gone(f: &Fixture) {
    let me = Process::me();
    waiting(
        f.s(),
        Lease {
            start: me.start + 1,
            ..lease("w")
        },
    );
}

fn waiter_elsewhere(f: &Fixture) {
    waiting(
        f.s(),
        Lease {
            host: "elsewhere".into(),
            pid: 1,
            ..lease("w")
        },
    );
}

fn waiter_silent(f: &Fixture) {
    waiter_elsewhere(f);
    f.db.exec("UPDATE waiters SET heartbeat_at = 0", &[]);
}

fn waiter_removed(f: &Fixture) {
    waiter_alive(f);
    f.s().remove_waiter(RUN, &lease("w")).unwrap();
}

fn two_items(f: &Fixture) {
    suspended_with(f.s(), &["q1", "q2"], None);
}

fn item_resolved(f: &Fixture) {
    suspended(f.s());
    resumed(f.s());
}

/// A pending item of a run that is not suspended: only a damaged store has one.
fn pending_but_running(f: &Fixture) {
    suspended(f.s());
    f.db.exec("UPDATE runs SET status = 'running'", &[]);
}

fn cancelled_while_driven(f: &Fixture) {
    running(f.s(), None);
    f.s().cancel(RUN).unwrap();
}

fn take(s: &dyn Store, status: RunStatus, expected: Option<&str>) -> String {
    described(s.take_lease(RUN, status, expected, &lease("l2")))
}

fn renewed_by_l2(f: &Fixture) {
    failed(f.s());
    f.s()
        .take_lease(RUN, RunStatus::Failed, None, &lease("l2"))
        .unwrap();
}

fn due_in_an_hour(f: &Fixture) {
    suspended_with(f.s(), &["q"], Some(Duration::from_secs(3600)));
}

fn commit(s: &dyn Store, driver: &str, step: StepCommit) -> String {
    described(s.commit_step(RUN, &lease(driver), &step))
}

fn completing() -> StepCommit {
    ending(Transition::Completed {
        output: "done".into(),
        finish_reason: "stop".into(),
    })
}

const SERVER: &str = "http://127.0.0.1:4111/api";

/// The ledger key of the server's call `c` of run `RUN`, of `kind`.
fn key(kind: ItemKind) -> LedgerKey {
    LedgerKey {
        server: SERVER.into(),
        run_id: RUN.into(),
        tool_call_id: "c".into(),
        kind: LedgerKind::Answer(kind),
    }
}

/// An answer to call `c` claimed by the process with lease token `holder`.
fn entry(holder: &str, kind: ItemKind) -> LedgerEntry {
    LedgerEntry {
        key: key(kind),
        agent_id: "planner".into(),
        state: LedgerState::Sending,
        resume_data: json!("yes"),
        by: format!("by-{holder}"),
        via: "flag".into(),
        holder: lease(holder),
        outcome: None,
        created_at: 1,
        updated_at: 1,
    }
}

/// The ledger of run `RUN` in words: `kind state holder` per entry.
fn ledger(s: &dyn Store) -> String {
    let entries = s.answers_of_run(SERVER, RUN).unwrap();
    if entries.is_empty() {
        return "empty".into();
    }
    entries
        .iter()
        .map(|e| {
            format!(
                "{} {} {}{}",
                e.key.kind.noun(),
                e.state.as_str(),
                e.holder.token,
                e.outcome
                    .as_ref()
                    .map(|o| format!(" {o}"))
                    .unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn claim(s: &dyn Store, holder: &str, kind: ItemKind) -> String {
    let outcome = described(s.claim_answer(&entry(holder, kind)));
    format!("{outcome}; {}", ledger(s))
}

fn settle(s: &dyn Store, holder: &str) -> String {
    let outcome = described(s.settle_answer(&key(ItemKind::Question), holder, "finished"));
    format!("{outcome}; {}", ledger(s))
}

fn release(s: &dyn Store, holder: &str) -> String {
    let outcome = described(s.release_answer(&key(ItemKind::Question), holder));
    format!("{outcome}; {}", ledger(s))
}

fn claimed_by_p1(f: &Fixture) {
    f.s()
        .claim_answer(&entry("p1", ItemKind::Question))
        .unwrap();
}

fn delivered_by_p1(f: &Fixture) {
    claimed_by_p1(f);
    f.s()
        .settle_answer(&key(ItemKind::Question), "p1", "suspended")
        .unwrap();
}

fn released_by_p1(f: &Fixture) {
    claimed_by_p1(f);
    f.s()
        .release_answer(&key(ItemKind::Question), "p1")
        .unwrap();
}

fn approval_claimed_by_p1(f: &Fixture) {
    f.s()
        .claim_answer(&entry("p1", ItemKind::Approval))
        .unwrap();
}

/// Every transition, from every state it can meet: one row a line (rustfmt would spread
/// each row over ten).
#[rustfmt::skip]
fn table() -> Vec<(&'static str, Action, Vec<From>)> {
    vec![
        ("resolve", |s| resolve(s, "q", Some(&lease("l2"))), vec![
            ("suspended", |f| suspended(f.s()), "resumed, driving → running"),
            ("a live waiter", waiter_alive, "resumed, handed over → running"),
            ("a waiter whose process is gone", waiter_gone, "resumed, driving → running"),
            ("a waiter on another host", waiter_elsewhere, "resumed, handed over → running"),
            ("a waiter that stopped beating", waiter_silent, "resumed, driving → running"),
            ("item resolved", item_resolved, "not pending: resolved by tester → running"),
            ("item due, not yet closed", |f| due(f.s()), "not pending: expired → failed"),
            ("item expired", |f| expired(f.s()), "not pending: expired → failed"),
            ("run cancelled", |f| cancelled(f.s()), "not pending: cancelled → cancelled"),
            ("completed", |f| completed(f.s()), "not pending: resolved by tester → completed"),
            ("run failed", |f| failed(f.s()), "no call → failed"),
            ("running, no items", |f| running(f.s(), None), "no call → running"),
            ("pending, yet running", pending_but_running, "not suspended: running → running"),
            ("no run", nothing, "no call → none"),
        ]),
        ("resolve without a driver", |s| resolve(s, "q", None), vec![
            ("suspended", |f| suspended(f.s()), "resumed, handed over → running"),
        ]),
        ("resolve one of two", |s| resolve(s, "q1", Some(&lease("l2"))), vec![
            ("suspended", two_items, "recorded, 1 pending → suspended"),
        ]),
        ("resolve a call known at once", |s| resolve(s, "d", Some(&lease("l2"))), vec![
            ("suspended", |f| suspended(f.s()), "not pending: done → suspended"),
        ]),
        ("cancel", |s| described(s.cancel(RUN)), vec![
            ("running", |f| running(f.s(), None), "was running → cancelled"),
            ("suspended", |f| suspended(f.s()), "was suspended → cancelled"),
            ("completed", |f| completed(f.s()), "already completed → completed"),
            ("failed", |f| failed(f.s()), "was failed → cancelled"),
            ("cancelled", |f| cancelled(f.s()), "already cancelled → cancelled"),
            ("no run", nothing, "no run → none"),
        ]),
        ("take the lease of l1", |s| take(s, RunStatus::Running, Some("l1")), vec![
            ("running under l1", |f| running(f.s(), None), "true → running"),
            ("suspended", |f| suspended(f.s()), "false → suspended"),
            ("no run", nothing, "false → none"),
        ]),
        ("take the lease of lx", |s| take(s, RunStatus::Running, Some("lx")), vec![
            ("running under l1", |f| running(f.s(), None), "false → running"),
        ]),
        ("take a free running run", |s| take(s, RunStatus::Running, None), vec![
            ("running under l1", |f| running(f.s(), None), "false → running"),
        ]),
        ("resume a failed run", |s| take(s, RunStatus::Failed, None), vec![
            ("failed", |f| failed(f.s()), "true → running"),
            ("running", |f| running(f.s(), None), "false → running"),
        ]),
        ("renew l1", |s| described(s.renew_lease(RUN, &lease("l1"))), vec![
            ("running under l1", |f| running(f.s(), None), "true → running"),
            ("running under l2", renewed_by_l2, "false → running"),
            ("cancelled", |f| cancelled(f.s()), "false → cancelled"),
        ]),
        ("commit a step under l1", |s| commit(s, "l1", completing()), vec![
            ("running under l1", |f| running(f.s(), None), "stored → completed"),
            ("cancelled while driven", cancelled_while_driven, "lease lost → cancelled"),
            ("suspended", |f| suspended(f.s()), "lease lost → suspended"),
        ]),
        ("commit a step under l2", |s| commit(s, "l2", asking(&["q"])), vec![
            ("running under l1", |f| running(f.s(), None), "lease lost → running"),
        ]),
        ("expire what is due", |s| described(s.expire_due(store::now_ms())), vec![
            ("an item due", |f| due(f.s()), "1 → failed"),
            ("an item due in an hour", due_in_an_hour, "0 → suspended"),
            ("no deadline", |f| suspended(f.s()), "0 → suspended"),
        ]),
        ("expire the run", |s| described(s.expire_run(RUN, "too late")), vec![
            ("suspended", |f| suspended(f.s()), "true → failed"),
            ("running", |f| running(f.s(), None), "false → running"),
            ("completed", |f| completed(f.s()), "false → completed"),
        ]),
        ("reply", |s| described(s.reply(RUN, "more", &lease("l3"))), vec![
            ("completed", |f| completed(f.s()), "ok → running"),
            ("running", |f| running(f.s(), None), "not completed: running → running"),
            ("suspended", |f| suspended(f.s()), "not completed: suspended → suspended"),
            ("failed", |f| failed(f.s()), "not completed: failed → failed"),
            ("cancelled", |f| cancelled(f.s()), "not completed: cancelled → cancelled"),
            ("no run", nothing, "no run → none"),
        ]),
        ("add a waiter", |s| described(s.add_waiter(RUN, &lease("w"))), vec![
            ("no run", nothing, "no run → none"),
        ]),
        ("claim an answer as p2", |s| claim(s, "p2", ItemKind::Question), vec![
            ("no entry", nothing, "ok; question sending p2 → none"),
            ("claimed by p1", claimed_by_p1, "answered by by-p1, sending; question sending p1 → none"),
            ("delivered by p1", delivered_by_p1, "answered by by-p1, delivered; question delivered p1 suspended → none"),
            ("released by p1", released_by_p1, "ok; question sending p2 → none"),
            ("the approval of the same call claimed", approval_claimed_by_p1, "ok; approval sending p1, question sending p2 → none"),
        ]),
        ("settle p1's answer", |s| settle(s, "p1"), vec![
            ("claimed by p1", claimed_by_p1, "true; question delivered p1 finished → none"),
            ("no entry", nothing, "false; empty → none"),
            ("released by p1", released_by_p1, "false; empty → none"),
        ]),
        ("settle p2's answer", |s| settle(s, "p2"), vec![
            ("claimed by p1", claimed_by_p1, "false; question sending p1 → none"),
        ]),
        ("release p1's answer", |s| release(s, "p1"), vec![
            ("claimed by p1", claimed_by_p1, "true; empty → none"),
            ("delivered by p1", delivered_by_p1, "false; question delivered p1 suspended → none"),
            ("no entry", nothing, "false; empty → none"),
            ("the approval of the same call claimed", approval_claimed_by_p1, "false; approval sending p1 → none"),
        ]),
        ("release p2's answer", |s| release(s, "p2"), vec![
            ("claimed by p1", claimed_by_p1, "false; question sending p1 → none"),
        ]),
        ("ask for a live waiter", |s| described(s.has_waiter(RUN)), vec![
            ("a live waiter", waiter_alive, "true → suspended"),
            ("a waiter removed", waiter_removed, "false → suspended"),
            ("a waiter whose process is gone", waiter_gone, "false → suspended"),
            ("a waiter that stopped beating", waiter_silent, "false → suspended"),
        ]),
    ]
}

#[test]
fn every_transition_from_every_state_has_its_outcome() {
    let mut wrong = Vec::new();
    for (transition, act, from) in table() {
        for (state, setup, expected) in from {
            let f = Fixture::new();
            setup(&f);
            let outcome = format!("{} → {}", act(f.s()), f.status(RUN));
            if outcome != expected {
                wrong.push(format!(
                    "{transition} from {state}: expected {expected:?}, got {outcome:?}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn cancel_and_expiry_close_the_items_and_resolve_appends_the_results_once() {
    let f = Fixture::new();
    let s = f.store.as_ref();
    suspended_with(s, &["q1", "q2"], None);
    s.resolve(RUN, "q1", &answer(), &me(), None).unwrap();
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

/// `each_pending` hands each run's items over together, and an error of the caller's at
/// one run ends the listing there and is returned, not swallowed.
#[test]
fn each_pending_hands_over_a_run_at_a_time_and_stops_at_an_error() {
    let f = Fixture::new();
    let s = f.store.as_ref();
    suspended_with(s, &["q1", "q2"], None);
    let other = "0190aaaa-0000-7000-8000-000000000002";
    assert_eq!(create_as(s, other, None, None), "ok");
    s.commit_step(other, &lease("l1"), &asking(&["r1"]))
        .unwrap();
    let mut runs = Vec::new();
    s.each_pending(None, &mut |run| {
        runs.push(
            run.iter()
                .map(|p| p.call.call_id.clone())
                .collect::<Vec<_>>(),
        );
        Ok(())
    })
    .unwrap();
    assert_eq!(runs, [vec!["q1", "q2"], vec!["r1"]]);

    let mut handed = 0;
    let failed = s.each_pending(None, &mut |_| {
        handed += 1;
        Err(Error::Usage("the listing's reader failed".into()))
    });
    assert_eq!(
        failed.unwrap_err().to_string(),
        "the listing's reader failed"
    );
    assert_eq!(handed, 1);
}

/// `pending` reads only the columns a pending call can hold: what it gives is each call as
/// `calls` reads it in full, field for field, for every kind of payload.
#[test]
fn a_pending_item_is_its_call_as_stored_field_for_field() {
    let f = Fixture::new();
    let s = f.store.as_ref();
    running(s, Some(Duration::from_secs(3600)));
    let mut step = asking(&["q"]);
    let (args, payload) = (json!({"path": "P.md"}), json!({"title": "T", "plan": "x"}));
    for (id, name, kind, payload) in [
        ("a", "deploy", ItemKind::Approval, None),
        ("p", "submit_plan", ItemKind::Plan, Some(payload)),
    ] {
        step.calls.push(NewCall {
            call_id: id.into(),
            tool_name: name.into(),
            args: args.clone(),
            state: CallState::Pending,
            kind: Some(kind),
            payload,
            result: None,
            error: None,
        });
    }
    s.commit_step(RUN, &lease("l1"), &step).unwrap();
    let stored: Vec<_> = s
        .calls(RUN)
        .unwrap()
        .into_iter()
        .filter(|c| c.state == CallState::Pending)
        .collect();
    let listed: Vec<_> = s
        .pending(None)
        .unwrap()
        .into_iter()
        .map(|p| p.call)
        .collect();
    assert_eq!(stored.len(), 3);
    assert!(stored.iter().all(|c| c.expires_at.is_some()));
    assert_eq!(listed, stored);
    // A question whose payload is its arguments holds them once, read from either backend.
    let payloads: Vec<_> = listed
        .iter()
        .map(|c| (c.call_id.as_str(), &c.payload))
        .collect();
    let plan = Payload::Own(json!({"title": "T", "plan": "x"}));
    assert_eq!(
        payloads,
        [("q", &Payload::Args), ("a", &Payload::None), ("p", &plan)]
    );
    assert_eq!(listed[0].payload(), Some(&json!({"question": "q?"})));
    assert_eq!(
        listed[2].payload(),
        Some(&json!({"title": "T", "plan": "x"}))
    );
}

#[test]
fn of_processes_claiming_one_answer_at_once_exactly_one_wins() {
    let f = Fixture::new();
    let url = f.db.url();
    let claims: Vec<_> = (0..8)
        .map(|i| {
            let url = url.clone();
            std::thread::spawn(move || {
                let store = store::open(&Location::resolve(Some(&url)), Access::Existing)
                    .unwrap()
                    .unwrap();
                described(store.claim_answer(&entry(&format!("t{i}"), ItemKind::Question)))
            })
        })
        .collect();
    let outcomes: Vec<String> = claims.into_iter().map(|c| c.join().unwrap()).collect();
    let (won, lost): (Vec<_>, Vec<_>) = outcomes.iter().partition(|o| *o == "ok");
    assert_eq!(won.len(), 1, "{outcomes:?}");
    let winner = &f.s().answers_of_run(SERVER, RUN).unwrap()[0].by;
    let named = format!("answered by {winner}, sending");
    assert!(lost.iter().all(|o| **o == named), "{outcomes:?}");
    assert_eq!(ledger(f.s()).matches("sending").count(), 1);
}

#[test]
fn a_waiter_registered_with_its_run_exists_before_any_answer() {
    let f = Fixture::new();
    assert_eq!(create(f.s(), Some(&lease("w")), None), "ok");
    assert!(f.s().has_waiter(RUN).unwrap());
}

#[test]
fn an_expiry_too_far_away_to_store_is_refused_and_nothing_is_stored() {
    let f = Fixture::new();
    let forever = Some(Duration::from_millis(u64::MAX));
    assert_eq!(create(f.s(), None, forever), "refused: usage");
    assert_eq!(f.status(RUN), "none");
}

/// A step that calls a command tool needing approval (`a`) beside a call whose result was
/// known at once (`d`).
fn approving() -> StepCommit {
    let mut step = asking(&["a"]);
    step.calls[0].kind = Some(ItemKind::Approval);
    step.calls[0].payload = None;
    step
}

fn decision(approved: bool) -> Resolution {
    Resolution {
        resume_data: json!({ "approved": approved }),
        result: (!approved).then(|| json!("Not now.")),
        by: "tester".into(),
        via: Via::Flag,
    }
}

fn tool_messages(s: &dyn Store) -> Vec<(String, String)> {
    s.messages(RUN)
        .unwrap()
        .into_iter()
        .filter_map(|m| match m {
            Message::Tool {
                tool_call_id,
                content,
                ..
            } => Some((tool_call_id, content)),
            _ => None,
        })
        .collect()
}

#[test]
fn an_approval_leaves_the_results_to_the_driver_that_runs_the_tool() {
    let f = Fixture::new();
    let s = f.store.as_ref();
    running(s, None);
    s.commit_step(RUN, &lease("l1"), &approving()).unwrap();
    let resolved = s.resolve(RUN, "a", &decision(true), &me(), Some(&lease("l2")));
    assert_eq!(
        resolved.unwrap(),
        Resolved::Resumed {
            events: vec![],
            driving: true
        }
    );
    assert_eq!(f.status(RUN), "running");
    assert_eq!(tool_messages(s), []);
    let call = &s.calls(RUN).unwrap()[0];
    assert!(call.waits_to_run() && call.result.is_none());

    // Only the driver's lease records anything.
    let process = ToolProcess {
        pgid: 4242,
        leader_start: 7,
        host: "h".into(),
        started_at: 1,
    };
    assert!(!s.start_tool(RUN, &lease("l1"), "a", &process).unwrap());
    assert_eq!(s.finish_step(RUN, &lease("l1"), 1).unwrap(), None);
    assert!(s.start_tool(RUN, &lease("l2"), "a", &process).unwrap());
    assert_eq!(s.calls(RUN).unwrap()[0].process, Some(process));
    // The results wait for the tool's.
    let early = s.finish_step(RUN, &lease("l2"), 1);
    assert!(matches!(early, Err(Error::Damaged { .. })), "{early:?}");
    let result = json!({"tagged": true});
    assert!(!s
        .finish_tool(RUN, &lease("l1"), "a", &result, None)
        .unwrap());
    assert!(s
        .finish_tool(RUN, &lease("l2"), "a", &result, None)
        .unwrap());
    let events = s.finish_step(RUN, &lease("l2"), 1).unwrap().unwrap();
    let kinds: Vec<&str> = events.iter().map(|e| e.event.kind.as_str()).collect();
    assert_eq!(kinds, ["tool-result", "tool-result"]);
    assert_eq!(events[0].event.payload["result"], result);
    // Once.
    assert_eq!(s.finish_step(RUN, &lease("l2"), 1).unwrap(), Some(vec![]));
    let ids: Vec<String> = tool_messages(s).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["a", "d"]);
    assert_eq!(s.events(RUN).unwrap().len(), 2);
}

#[test]
fn a_decline_appends_the_reason_when_it_is_recorded() {
    let f = Fixture::new();
    let s = f.store.as_ref();
    running(s, None);
    s.commit_step(RUN, &lease("l1"), &approving()).unwrap();
    let Resolved::Resumed { events, driving } = s
        .resolve(RUN, "a", &decision(false), &me(), Some(&lease("l2")))
        .unwrap()
    else {
        panic!("the last item resumes the run")
    };
    assert!(driving);
    let kinds: Vec<&str> = events.iter().map(|e| e.event.kind.as_str()).collect();
    assert_eq!(kinds, ["tool-output-denied", "tool-result"]);
    assert_eq!(
        events[0].event.payload["approval"],
        json!({"id": "a", "approved": false, "reason": "Not now."})
    );
    assert_eq!(
        tool_messages(s)[0],
        ("a".to_string(), "Not now.".to_string())
    );
    // Read back from the store, the events are the same.
    let stored: Vec<_> = s
        .events(RUN)
        .unwrap()
        .into_iter()
        .map(|e| e.event)
        .collect();
    assert_eq!(
        stored,
        events.into_iter().map(|e| e.event).collect::<Vec<_>>()
    );
}

#[test]
fn a_started_run_and_its_stored_steps_are_what_the_store_reads_back() {
    let f = Fixture::new();
    let s = f.store.as_ref();
    let (events, mut run, messages) = s
        .start_run(&NewRun {
            id: RUN,
            agent_id: "tester",
            agent: &json!({"id": "tester", "model": {"temperature": 0.7}}),
            cwd: "/",
            prompt: "Go",
            lease: &lease("l1"),
            waiter: None,
            events: &[],
            expires_in: Some(Duration::from_secs(60)),
            review: &RunReview::local(Default::default()),
        })
        .unwrap();
    assert!(events.is_empty());
    assert_eq!(Some(&run), s.run(RUN).unwrap().as_ref());
    assert_eq!(messages, s.messages(RUN).unwrap());
    // What the leg's driver then knows of the run, step by step, without reading it.
    for step in [asking(&["q1"]), completing()] {
        if run.status == RunStatus::Suspended {
            resolve(s, "q1", Some(&lease("l1")));
            run = s.run(RUN).unwrap().unwrap();
        }
        let (_, row) = s.store_step(RUN, &lease("l1"), &step).unwrap().unwrap();
        row.update(&mut run);
        assert_eq!(Some(&run), s.run(RUN).unwrap().as_ref());
    }
    assert_eq!(run.status, RunStatus::Completed);
}
