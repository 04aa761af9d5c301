//! Who may answer (SPEC §14), through the store's transitions on the backend the suite runs
//! on (SQLite, or PostgreSQL with `MASTRA_ASK_TEST_POSTGRES`, where every decision goes
//! through the store's guarded functions): one table of every kind of item × allowed / not
//! allowed / unmapped / starter / a second decision by the same person / a refusal after
//! partial approvals / a removed reviewer / changed arguments, with what each decision
//! returns and what the store holds after; the resolver's refusals at start; approvals bound
//! to the digest of their arguments; expiry with a declared outcome; escalation claimed
//! once; eight reviewers racing on the last approval.

use std::sync::{Arc, Barrier};

use serde_json::{json, Value};
use tempfile::TempDir;

use mastra_ask::domain::review::{digest, OnExpiry, PolicySpec, RuleSpec};
use mastra_ask::domain::{
    CallState, ItemKind, Message, NewCall, Resolution, StepCommit, ToolCall, Transition, Usage, Via,
};
use mastra_ask::store::{
    self, Access, Conflict, Decide, Error, Identity, Location, NewReviewer, NewRun, Policies,
    Resolved, Reviewers, RunReview, Store,
};
use mastra_ask::sys;

use crate::db::TestDb;
use crate::transitions::lease;

const RUN: &str = "0190bbbb-0000-7000-8000-000000000001";

/// The test server's role (PostgreSQL), or `None` for SQLite.
pub(crate) fn session_role(db: &TestDb) -> Option<String> {
    match db {
        TestDb::Sqlite(_) => None,
        TestDb::Postgres { admin, .. } => {
            let config: postgres::Config = admin.parse().unwrap();
            Some(config.get_user().unwrap_or("postgres").to_string())
        }
    }
}

struct Fixture {
    db: TestDb,
    store: Box<dyn Store>,
    _dir: TempDir,
}

impl Fixture {
    /// A store with the reviewers alice, bob, carol, erin and `local` (this process's OS
    /// user, and on PostgreSQL the session's role) in group release, and dave in none.
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let db = TestDb::new(dir.path());
        let location = Location::resolve(Some(&db.url()));
        let store = store::open(&location, Access::Create).unwrap().unwrap();
        let f = Fixture {
            db,
            store,
            _dir: dir,
        };
        let release = ["release".to_string()];
        for name in ["alice", "bob", "carol", "erin"] {
            f.add(name, &release, None, None);
        }
        f.add("dave", &[], None, None);
        let me = sys::effective_user();
        let role = session_role(&f.db);
        f.add("local", &release, Some(&me), role.as_deref());
        f
    }

    fn add(&self, name: &str, groups: &[String], os_user: Option<&str>, pg_role: Option<&str>) {
        let new = NewReviewer {
            name,
            groups,
            os_user,
            pg_role,
            notify: None,
        };
        self.store
            .add_reviewer(&new, &format!("token-of-{name}"))
            .unwrap();
    }

    fn s(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// A run started by alice under `policy`, suspended on one item of `kind` (`c`).
    fn suspended(&self, kind: ItemKind, policy: PolicySpec) {
        let review = RunReview {
            policy,
            starter: Identity::Reviewer("alice".into()),
            on_expiry: OnExpiry::Fail,
            escalate_after: None,
        };
        self.start(&review, None).unwrap();
        self.s()
            .commit_step(RUN, &lease("l1"), &step(&[("c", kind)]))
            .unwrap();
    }

    fn start(
        &self,
        review: &RunReview,
        expires_in: Option<std::time::Duration>,
    ) -> store::Result<()> {
        self.s()
            .create_run(&NewRun {
                id: RUN,
                agent_id: "tester",
                agent: &json!({"id": "tester"}),
                cwd: "/",
                prompt: "Go",
                lease: &lease("l1"),
                waiter: None,
                events: &[],
                expires_in,
                review,
            })
            .map(|_| ())
    }

    /// The item `c` as it stands: state, who resolved it, how many decisions it has.
    fn state(&self) -> String {
        let call = self
            .s()
            .calls(RUN)
            .unwrap()
            .into_iter()
            .find(|c| c.call_id == "c")
            .unwrap();
        let decisions = self.s().decisions(RUN).unwrap().len();
        let by = call
            .resolved_by
            .map(|b| format!(" by {b}"))
            .unwrap_or_default();
        format!("{}{by}, {decisions} decided", call.state.as_str())
    }
}

fn call_of(id: &str, kind: ItemKind) -> (ToolCall, NewCall) {
    let (name, args, payload) = match kind {
        ItemKind::Question => (
            "ask_user",
            json!({"question": "Ship?"}),
            Some(json!({"question": "Ship?"})),
        ),
        ItemKind::Plan => (
            "submit_plan",
            json!({"path": "plan.md"}),
            Some(
                json!({"toolId": "submit_plan", "path": "plan.md", "title": "Ship", "plan": "Do it."}),
            ),
        ),
        _ => ("deploy", json!({"target": "prod"}), None),
    };
    let call = ToolCall {
        id: id.into(),
        name: name.into(),
        args: args.clone(),
        invalid_args: None,
    };
    let new = NewCall {
        call_id: id.into(),
        tool_name: name.into(),
        args,
        state: CallState::Pending,
        kind: Some(kind),
        payload,
        result: None,
        error: None,
    };
    (call, new)
}

/// A step that suspends on `items`.
fn step(items: &[(&str, ItemKind)]) -> StepCommit {
    let (tool_calls, calls) = items.iter().map(|(id, k)| call_of(id, *k)).unzip();
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

/// What a person does.
#[derive(Clone, Copy)]
enum Act {
    /// Answer a question, approve a plan or an approval.
    Yes,
    /// Reject a plan, decline an approval.
    No,
    /// Approve with changed arguments.
    Changed,
    /// Approve, with a name typed after `--as`.
    Claiming,
}

fn resolution(kind: ItemKind, act: Act) -> Resolution {
    let (resume_data, result) = match (kind, act) {
        (ItemKind::Question, _) => (
            json!("yes"),
            Some(json!({"content": "User answered: yes", "isError": false})),
        ),
        (ItemKind::Plan, Act::No) => (
            json!({"action": "rejected"}),
            Some(json!({"content": "Plan rejected.", "isError": false})),
        ),
        (ItemKind::Plan, _) => (
            json!({"action": "approved"}),
            Some(json!({"content": "Plan approved.", "isError": false})),
        ),
        (_, Act::No) => (
            json!({"approved": false, "reason": "No."}),
            Some(json!("No.")),
        ),
        _ => (json!({"approved": true}), None),
    };
    Resolution {
        resume_data,
        result,
        by: "typed-name".into(),
        via: Via::Flag,
    }
}

/// Who acts.
#[derive(Clone, Copy)]
enum Who {
    /// A reviewer signed in to serve.
    R(&'static str),
    /// This process's user (mapped to `local`).
    Local,
    /// This process's user once no reviewer is mapped to it (nor, on PostgreSQL, to the
    /// session's role).
    Unmapped,
}

fn identity(who: Who) -> Identity {
    match who {
        Who::R(name) => Identity::Reviewer(name.into()),
        Who::Local | Who::Unmapped => Identity::local(),
    }
}

const CHANGED: fn() -> Value = || json!({"target": "staging"});

fn decide(f: &Fixture, kind: ItemKind, who: Who, act: Act) -> String {
    if matches!(who, Who::Unmapped) {
        f.db.exec(
            "UPDATE reviewers SET os_user = NULL, pg_role = NULL WHERE name = 'local'",
            &[],
        );
    }
    let resolution = resolution(kind, act);
    let id = identity(who);
    let changed = CHANGED();
    let decision = Decide {
        resolution: &resolution,
        identity: &id,
        claimed: matches!(act, Act::Claiming),
        args: matches!(act, Act::Changed).then_some(&changed),
    };
    words(f.s().decide(RUN, "c", &decision, None))
}

fn words(r: store::Result<Resolved>) -> String {
    match r {
        Ok(Resolved::Partial { needed, .. }) => format!("partial, {needed} needed"),
        Ok(Resolved::Resumed { .. }) => "resumed".into(),
        Ok(Resolved::Ended { .. }) => "ended".into(),
        Ok(Resolved::Recorded { still_pending }) => format!("recorded, {still_pending} pending"),
        Err(Error::Forbidden(_)) => "forbidden".into(),
        Err(Error::Usage(_)) => "usage".into(),
        Err(Error::Conflict(Conflict::Decided { .. })) => "decided twice".into(),
        Err(Error::Conflict(Conflict::NotPending { state, .. })) => {
            format!("not pending: {}", state.as_str())
        }
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// One step of a case: a decision, or an administrator removing a reviewer or adding them
/// again (in group release).
#[derive(Clone, Copy)]
enum Step {
    D(Who, Act),
    Remove(&'static str),
    Readd(&'static str),
}

use mastra_ask::error::Kinded;
use Act::*;
use Step::*;
use Who::*;

/// The release group (alice, bob, carol, erin, local), two approvals; alice starts the run.
fn release(allow_self: bool) -> PolicySpec {
    PolicySpec {
        rule: Some(RuleSpec {
            reviewers: vec!["group:release".into()],
            approvals: 2,
            allow_self,
        }),
        ..Default::default()
    }
}

type Case = (&'static str, &'static [Step], &'static str, &'static str);

/// Per kind: the case, its steps, what the decisions return, and the item after.
#[rustfmt::skip]
const QUESTIONS: &[Case] = &[
    ("allowed", &[D(R("bob"), Yes)], "resumed", "resolved by bob, 1 decided"),
    ("then another", &[D(R("bob"), Yes), D(R("carol"), Yes)], "resumed; not pending: resolved", "resolved by bob, 1 decided"),
    ("not allowed", &[D(R("dave"), Yes)], "forbidden", "pending, 0 decided"),
    ("unmapped", &[D(Unmapped, Yes)], "forbidden", "pending, 0 decided"),
    ("local user", &[D(Local, Yes)], "resumed", "resolved by local, 1 decided"),
    ("starter", &[D(R("alice"), Yes)], "forbidden", "pending, 0 decided"),
    ("removed", &[Remove("bob"), D(R("bob"), Yes)], "forbidden", "pending, 0 decided"),
    ("--as", &[D(R("bob"), Claiming)], "usage", "pending, 0 decided"),
];

#[rustfmt::skip]
const PLANS: &[Case] = &[
    ("allowed", &[D(R("bob"), Yes)], "partial, 1 needed", "pending, 1 decided"),
    ("two allowed", &[D(R("bob"), Yes), D(R("carol"), Yes)], "partial, 1 needed; resumed", "resolved by carol, 2 decided"),
    ("not allowed", &[D(R("dave"), No)], "forbidden", "pending, 0 decided"),
    ("unmapped", &[D(Unmapped, Yes)], "forbidden", "pending, 0 decided"),
    ("local user", &[D(Local, Yes), D(R("bob"), Yes)], "partial, 1 needed; resumed", "resolved by bob, 2 decided"),
    ("starter approves", &[D(R("alice"), Yes)], "forbidden", "pending, 0 decided"),
    ("starter rejects", &[D(R("alice"), No)], "resumed", "resolved by alice, 1 decided"),
    ("twice", &[D(R("bob"), Yes), D(R("bob"), Yes)], "partial, 1 needed; decided twice", "pending, 1 decided"),
    ("reject after partial", &[D(R("bob"), Yes), D(R("carol"), No)], "partial, 1 needed; resumed", "resolved by carol, 2 decided"),
    ("removed after deciding", &[D(R("bob"), Yes), Remove("bob"), D(R("carol"), Yes)], "partial, 1 needed; partial, 1 needed", "pending, 2 decided"),
    ("added again decides anew", &[D(R("bob"), Yes), Remove("bob"), Readd("bob"), D(R("bob"), Yes), D(R("carol"), Yes)], "partial, 1 needed; partial, 1 needed; resumed", "resolved by carol, 2 decided"),
    ("--as", &[D(R("bob"), Claiming)], "usage", "pending, 0 decided"),
];

#[rustfmt::skip]
const APPROVALS: &[Case] = &[
    ("allowed", &[D(R("bob"), Yes)], "partial, 1 needed", "pending, 1 decided"),
    ("two allowed", &[D(R("bob"), Yes), D(R("carol"), Yes)], "partial, 1 needed; resumed", "resolved by carol, 2 decided"),
    ("not allowed", &[D(R("dave"), Yes)], "forbidden", "pending, 0 decided"),
    ("unmapped", &[D(Unmapped, No)], "forbidden", "pending, 0 decided"),
    ("local user", &[D(Local, Yes), D(R("bob"), Yes)], "partial, 1 needed; resumed", "resolved by bob, 2 decided"),
    ("starter approves", &[D(R("alice"), Yes)], "forbidden", "pending, 0 decided"),
    ("starter declines", &[D(R("alice"), No)], "resumed", "resolved by alice, 1 decided"),
    ("twice", &[D(R("bob"), Yes), D(R("bob"), No)], "partial, 1 needed; decided twice", "pending, 1 decided"),
    ("decline after partial", &[D(R("bob"), Yes), D(R("carol"), No)], "partial, 1 needed; resumed", "resolved by carol, 2 decided"),
    ("removed after deciding", &[D(R("bob"), Yes), Remove("bob"), D(R("carol"), Yes)], "partial, 1 needed; partial, 1 needed", "pending, 2 decided"),
    ("changed arguments", &[D(R("bob"), Changed), D(R("carol"), Yes), D(R("erin"), Changed)], "partial, 1 needed; partial, 1 needed; resumed", "resolved by erin, 3 decided"),
    ("added again decides anew", &[D(R("bob"), Yes), Remove("bob"), Readd("bob"), D(R("bob"), No)], "partial, 1 needed; resumed", "resolved by bob, 1 decided"),
    ("--as", &[D(R("bob"), Claiming)], "usage", "pending, 0 decided"),
];

fn play(kind: ItemKind, case: &Case, allow_self: bool) -> (String, String) {
    let f = Fixture::new();
    f.suspended(kind, release(allow_self));
    let mut outcomes = Vec::new();
    for step in case.1 {
        match *step {
            D(who, act) => outcomes.push(decide(&f, kind, who, act)),
            Remove(name) => f.s().remove_reviewer(name).unwrap(),
            Readd(name) => {
                // Added again a millisecond after their last decision at least.
                let since = store::now_ms();
                crate::common::poll("a millisecond", std::time::Duration::from_secs(5), || {
                    store::now_ms() > since
                });
                f.add(name, &["release".to_string()], None, None);
            }
        }
    }
    (outcomes.join("; "), f.state())
}

#[test]
fn the_policy_table() {
    let mut failures = Vec::new();
    for (kind, cases) in [
        (ItemKind::Question, QUESTIONS),
        (ItemKind::Plan, PLANS),
        (ItemKind::Approval, APPROVALS),
    ] {
        for case in cases {
            let (outcomes, state) = play(kind, case, false);
            if (outcomes.as_str(), state.as_str()) != (case.2, case.3) {
                failures.push(format!(
                    "{} / {}: got {outcomes:?} then {state:?}, want {:?} then {:?}",
                    kind.noun(),
                    case.0,
                    case.2,
                    case.3
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn with_allow_self_the_starter_counts_like_anyone() {
    let cases: &[(ItemKind, Case)] = &[
        (
            ItemKind::Question,
            (
                "starter",
                &[D(R("alice"), Yes)],
                "resumed",
                "resolved by alice, 1 decided",
            ),
        ),
        (
            ItemKind::Plan,
            (
                "starter",
                &[D(R("alice"), Yes), D(R("bob"), Yes)],
                "partial, 1 needed; resumed",
                "resolved by bob, 2 decided",
            ),
        ),
        (
            ItemKind::Approval,
            (
                "starter",
                &[D(R("alice"), Yes)],
                "partial, 1 needed",
                "pending, 1 decided",
            ),
        ),
    ];
    for (kind, case) in cases {
        assert_eq!(
            play(*kind, case, true),
            (case.2.into(), case.3.into()),
            "{}",
            kind.noun()
        );
    }
}

#[test]
fn refusals_say_who_may_decide_and_change_nothing() {
    let f = Fixture::new();
    f.suspended(ItemKind::Approval, release(false));
    let before = f.db.rows("SELECT state, resume_data FROM calls", &[]);
    let resolution = resolution(ItemKind::Approval, Yes);
    let id = Identity::Reviewer("dave".into());
    let decision = Decide {
        resolution: &resolution,
        identity: &id,
        claimed: false,
        args: None,
    };
    let e = f.s().decide(RUN, "c", &decision, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "reviewer dave may not decide the approval c of run {RUN}; its policy lets alice, bob, carol, erin or local (2 approvals needed) decide"
        )
    );
    assert_eq!(e.kind(), mastra_ask::error::Kind::Forbidden);
    assert_eq!(e.kind().exit().code(), 77);
    assert_eq!(e.kind().code(), "FORBIDDEN");
    assert_eq!(
        f.db.rows("SELECT state, resume_data FROM calls", &[]),
        before
    );
    assert!(f.s().decisions(RUN).unwrap().is_empty());
}

#[test]
fn the_members_are_resolved_at_start_and_kept() {
    let f = Fixture::new();
    let spec = |reviewers: &[&str], approvals| PolicySpec {
        rule: Some(RuleSpec {
            reviewers: reviewers.iter().map(|r| r.to_string()).collect(),
            approvals,
            allow_self: false,
        }),
        ..Default::default()
    };
    // Refused at start, nothing stored: an unknown name, an empty group, too many approvals.
    for (policy, says) in [
        (spec(&["zed"], 1), "the run's review: no reviewer zed"),
        (
            spec(&["group:qa"], 1),
            "the run's review: group qa has no reviewers",
        ),
        (
            spec(&["bob", "dave"], 3),
            "the run's review needs 3 approvals, but only 2 reviewer(s) may decide: bob, dave",
        ),
    ] {
        let e = f.start(&RunReview::local(policy), None).unwrap_err();
        assert!(matches!(e, Error::Usage(_)), "{e}");
        assert!(e.to_string().starts_with(says), "{e}");
        assert!(f.s().run(RUN).unwrap().is_none());
    }
    f.start(&RunReview::local(spec(&["group:release", "dave"], 2)), None)
        .unwrap();
    let gate = f.s().run(RUN).unwrap().unwrap().gate;
    let rule = gate.policy.unwrap().rule.unwrap();
    assert_eq!(
        rule.reviewers,
        ["alice", "bob", "carol", "dave", "erin", "local"]
    );
    // This process started it: the reviewer its OS user (or session role) maps to.
    assert_eq!(gate.started_by.unwrap().to_string(), "reviewer local");
    // Joining the group later lets nobody decide this run.
    f.add("newcomer", &["release".to_string()], None, None);
    f.s()
        .commit_step(RUN, &lease("l1"), &step(&[("c", ItemKind::Question)]))
        .unwrap();
    assert_eq!(
        decide(&f, ItemKind::Question, R("newcomer"), Yes),
        "forbidden"
    );
    // The starter (local) may not answer; dave may.
    assert_eq!(decide(&f, ItemKind::Question, Local, Yes), "forbidden");
    assert_eq!(decide(&f, ItemKind::Question, R("dave"), Yes), "resumed");
}

#[test]
fn a_tool_s_own_review_governs_its_approvals_and_a_named_policy_governs_all() {
    let f = Fixture::new();
    let only = |name: &str| RuleSpec {
        reviewers: vec![name.to_string()],
        approvals: 1,
        allow_self: false,
    };
    let policy = PolicySpec {
        rule: Some(only("bob")),
        tools: vec![("deploy".into(), only("carol"))],
        named: None,
    };
    f.suspended(ItemKind::Approval, policy);
    assert_eq!(decide(&f, ItemKind::Approval, R("bob"), Yes), "forbidden");
    assert_eq!(decide(&f, ItemKind::Approval, R("carol"), Yes), "resumed");

    // Named policies: set (checked now), listed, used by a run, removed.
    let f = Fixture::new();
    let e = f.s().set_policy("release", &only("zed"), None).unwrap_err();
    assert!(
        e.to_string().starts_with("policy release: no reviewer zed"),
        "{e}"
    );
    let rule = f
        .s()
        .set_policy(
            "release",
            &RuleSpec {
                reviewers: vec!["group:release".into()],
                approvals: 2,
                allow_self: false,
            },
            None,
        )
        .unwrap();
    assert_eq!(rule.reviewers.len(), 5);
    let listed = f.s().list_policies().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].0.name, "release");
    let named = PolicySpec {
        rule: Some(only("dave")),
        tools: vec![("deploy".into(), only("dave"))],
        named: Some("release".into()),
    };
    f.suspended(ItemKind::Approval, named);
    let gate = f.s().run(RUN).unwrap().unwrap().gate;
    assert_eq!(
        gate.policy.as_ref().unwrap().name.as_deref(),
        Some("release")
    );
    assert_eq!(decide(&f, ItemKind::Approval, R("dave"), Yes), "forbidden");
    assert_eq!(
        decide(&f, ItemKind::Approval, R("bob"), Yes),
        "partial, 1 needed"
    );
    f.s().remove_policy("release").unwrap();
    assert!(matches!(
        f.s().remove_policy("release"),
        Err(Error::NotFound(_))
    ));
    let missing = PolicySpec {
        named: Some("release".into()),
        ..Default::default()
    };
    assert!(f
        .s()
        .resolve_policy(&missing, "tester")
        .unwrap_err()
        .to_string()
        .starts_with("no policy release"));
}

#[test]
fn an_approval_records_the_digest_of_what_it_approved_and_the_changes() {
    let f = Fixture::new();
    f.suspended(ItemKind::Approval, PolicySpec::default());
    // Without a policy: anyone; the claim stays `by`, the checked identity is kept apart.
    assert_eq!(decide(&f, ItemKind::Approval, Local, Changed), "resumed");
    let call = f.s().calls(RUN).unwrap().remove(0);
    assert_eq!(call.resolved_by.as_deref(), Some("typed-name"));
    assert_eq!(call.changed_args(), Some(&CHANGED()));
    assert_eq!(call.args_to_run(), &CHANGED());
    assert_eq!(
        call.approved_digest(),
        Some(digest("deploy", &CHANGED()).as_str())
    );
    let checked = f.db.rows("SELECT checked_by, checked_as FROM calls", &[]);
    assert_eq!(
        checked,
        vec![vec![
            Some("local".to_string()),
            Some("reviewer".to_string())
        ]]
    );
    assert!(f.s().decisions(RUN).unwrap().is_empty());
}

#[test]
fn approve_all_is_one_transaction() {
    let f = Fixture::new();
    let policy = PolicySpec {
        rule: Some(RuleSpec {
            reviewers: vec!["bob".into(), "carol".into()],
            approvals: 1,
            allow_self: false,
        }),
        tools: vec![(
            "deploy".into(),
            RuleSpec {
                reviewers: vec!["bob".into()],
                approvals: 1,
                allow_self: false,
            },
        )],
        named: None,
    };
    f.start(
        &RunReview {
            starter: Identity::Reviewer("alice".into()),
            ..RunReview::local(policy)
        },
        None,
    )
    .unwrap();
    f.s()
        .commit_step(
            RUN,
            &lease("l1"),
            &step(&[("a1", ItemKind::Approval), ("a2", ItemKind::Approval)]),
        )
        .unwrap();
    let ids = vec!["a1".to_string(), "a2".to_string()];
    let resolution = resolution(ItemKind::Approval, Yes);
    let all = |who: &str| {
        let id = Identity::Reviewer(who.into());
        let d = Decide {
            resolution: &resolution,
            identity: &id,
            claimed: false,
            args: None,
        };
        f.s().decide_all(RUN, &ids, &d, None)
    };
    // Carol may approve neither (deploy is bob's): nothing is recorded.
    assert!(matches!(all("carol"), Err(Error::Forbidden(_))));
    assert_eq!(
        f.db.rows("SELECT state FROM calls WHERE state = 'pending'", &[])
            .len(),
        2
    );
    assert!(f.s().decisions(RUN).unwrap().is_empty());
    let outcomes = all("bob").unwrap();
    let words: Vec<String> = outcomes
        .into_iter()
        .map(|(id, r)| format!("{id} {}", self::words(Ok(r))))
        .collect();
    assert_eq!(words, ["a1 recorded, 0 pending", "a2 resumed"]);
    assert_eq!(f.s().decisions(RUN).unwrap().len(), 2);
}

#[test]
fn expiry_with_a_declared_outcome_never_approves() {
    let f = Fixture::new();
    let review = RunReview {
        on_expiry: OnExpiry::Decline,
        ..RunReview::local(release(false))
    };
    f.start(&review, Some(std::time::Duration::ZERO)).unwrap();
    f.s()
        .commit_step(
            RUN,
            &lease("l1"),
            &step(&[("a", ItemKind::Approval), ("p", ItemKind::Plan)]),
        )
        .unwrap();
    assert_eq!(
        f.s().expire_due(store::now_ms() + 1).unwrap(),
        0,
        "no run failed"
    );
    let run = f.s().run(RUN).unwrap().unwrap();
    assert_eq!(run.status.as_str(), "running");
    assert!(run.lease.is_none(), "its waiter or resume drives it");
    let calls = f.s().calls(RUN).unwrap();
    let states: Vec<(&str, bool, bool)> = calls
        .iter()
        .map(|c| {
            (
                c.state.as_str(),
                c.left_to_driver(),
                c.approved() == Some(true),
            )
        })
        .collect();
    assert_eq!(states, [("expired", true, false), ("expired", true, false)]);
    assert!(calls[0].declined());
    // Fail (the default) fails the run, as before.
    let f = Fixture::new();
    f.start(
        &RunReview::local(release(false)),
        Some(std::time::Duration::ZERO),
    )
    .unwrap();
    f.s()
        .commit_step(RUN, &lease("l1"), &step(&[("a", ItemKind::Approval)]))
        .unwrap();
    assert_eq!(f.s().expire_due(store::now_ms() + 1).unwrap(), 1);
    assert_eq!(f.s().run(RUN).unwrap().unwrap().status.as_str(), "failed");
}

#[test]
fn an_escalation_is_claimed_once() {
    let f = Fixture::new();
    let review = RunReview {
        escalate_after: Some(std::time::Duration::from_millis(1)),
        ..RunReview::local(release(false))
    };
    f.start(&review, None).unwrap();
    f.s()
        .commit_step(RUN, &lease("l1"), &step(&[("c", ItemKind::Question)]))
        .unwrap();
    // Due once its millisecond has passed.
    let due = crate::common::poll_for("the escalation due", crate::common::PATIENCE, || {
        Some(f.s().due_escalations(store::now_ms()).unwrap()).filter(|d| !d.is_empty())
    });
    assert_eq!(due, [(RUN.to_string(), "c".to_string())]);
    let url = f.db.url();
    let claims: Vec<bool> = std::thread::scope(|s| {
        let barrier = Arc::new(Barrier::new(4));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let (barrier, url) = (barrier.clone(), url.clone());
                s.spawn(move || {
                    let store = store::open(&Location::resolve(Some(&url)), Access::Existing)
                        .unwrap()
                        .unwrap();
                    barrier.wait();
                    store.claim_escalation(RUN, "c").unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(claims.iter().filter(|c| **c).count(), 1, "{claims:?}");
    assert!(f.s().due_escalations(store::now_ms()).unwrap().is_empty());
    assert_eq!(
        f.db.rows(
            "SELECT count(*) FROM calls WHERE escalated_at IS NOT NULL",
            &[]
        ),
        vec![vec![Some("1".to_string())]]
    );
}

#[test]
fn eight_reviewers_racing_on_the_last_approval_resolve_it_once() {
    let f = Fixture::new();
    let names: Vec<String> = (1..=9).map(|i| format!("r{i}")).collect();
    for n in &names {
        f.add(n, &["racers".to_string()], None, None);
    }
    let policy = PolicySpec {
        rule: Some(RuleSpec {
            reviewers: vec!["group:racers".into()],
            approvals: 2,
            allow_self: false,
        }),
        ..Default::default()
    };
    f.suspended(ItemKind::Approval, policy);
    assert_eq!(
        decide(&f, ItemKind::Approval, R("r1"), Yes),
        "partial, 1 needed"
    );
    let url = f.db.url();
    let outcomes: Vec<String> = std::thread::scope(|s| {
        let barrier = Arc::new(Barrier::new(8));
        let handles: Vec<_> = names[1..]
            .iter()
            .map(|name| {
                let (barrier, url) = (barrier.clone(), url.clone());
                s.spawn(move || {
                    let store = store::open(&Location::resolve(Some(&url)), Access::Existing)
                        .unwrap()
                        .unwrap();
                    let resolution = resolution(ItemKind::Approval, Yes);
                    let id = Identity::Reviewer(name.clone());
                    let d = Decide {
                        resolution: &resolution,
                        identity: &id,
                        claimed: false,
                        args: None,
                    };
                    barrier.wait();
                    words(store.decide(RUN, "c", &d, Some(&lease(name))))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let won = outcomes.iter().filter(|o| *o == "resumed").count();
    let lost = outcomes
        .iter()
        .filter(|o| *o == "not pending: resolved")
        .count();
    assert_eq!((won, lost), (1, 7), "{outcomes:?}");
    assert_eq!(f.state().split(", ").nth(1), Some("2 decided"));
    // One driver holds the run.
    let run = f.s().run(RUN).unwrap().unwrap();
    assert_eq!(run.status.as_str(), "running");
    assert!(names.contains(&run.lease.unwrap().token));
}

/// An agent's minimum policy (SPEC §15, `policy set NAME ... --for-agent AGENT`): a run of
/// that agent with no review of its own gets it; its own review only tightens it (only
/// the reviewers both allow, the larger number of approvals, self-approval where both
/// allow it), and one that would leave nobody to decide is refused; other agents' runs
/// are not touched; one agent has one minimum.
#[test]
fn an_agents_minimum_policy_is_tightened_never_weakened() {
    let f = Fixture::new();
    let floor = RuleSpec {
        reviewers: vec!["group:release".into()],
        approvals: 2,
        allow_self: false,
    };
    f.s().set_policy("floor", &floor, Some("tester")).unwrap();
    let own = |reviewers: &[&str], approvals: u32, allow_self: bool| PolicySpec {
        rule: Some(RuleSpec {
            reviewers: reviewers.iter().map(|r| r.to_string()).collect(),
            approvals,
            allow_self,
        }),
        ..Default::default()
    };
    let resolved = |spec: &PolicySpec, agent: &str| {
        let policy = f.s().resolve_policy(spec, agent).unwrap().unwrap();
        let rule = policy.rule.unwrap();
        (rule.reviewers, rule.approvals, rule.allow_self, policy.name)
    };
    let release: Vec<String> = ["alice", "bob", "carol", "erin", "local"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        resolved(&PolicySpec::default(), "tester"),
        (release, 2, false, Some("floor".into()))
    );
    assert_eq!(
        resolved(&own(&["alice", "bob", "dave"], 1, true), "tester"),
        (vec!["alice".into(), "bob".into()], 2, false, None)
    );
    let e = f
        .s()
        .resolve_policy(&own(&["dave"], 1, false), "tester")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the run's review leaves nobody policy floor (the minimum for agent tester) allows: it may only tighten it (its reviewers are alice, bob, carol, erin, local)"
    );
    assert_eq!(
        resolved(&own(&["dave"], 1, false), "someone-else"),
        (vec!["dave".into()], 1, false, None)
    );

    // A run started with no review of its own is under the minimum.
    f.start(&RunReview::local(PolicySpec::default()), None)
        .unwrap();
    let stored = f.s().run(RUN).unwrap().unwrap().gate.policy.unwrap();
    assert_eq!(
        (stored.rule.unwrap().approvals, stored.name.as_deref()),
        (2, Some("floor"))
    );

    // One minimum per agent: keeping another moves it.
    let dave = RuleSpec {
        reviewers: vec!["dave".into()],
        approvals: 1,
        allow_self: false,
    };
    f.s().set_policy("floor2", &dave, Some("tester")).unwrap();
    let kept: Vec<(String, Option<String>)> = f
        .s()
        .list_policies()
        .unwrap()
        .into_iter()
        .map(|(p, _)| (p.name, p.for_agent))
        .collect();
    assert_eq!(
        kept,
        [
            ("floor".to_string(), None),
            ("floor2".to_string(), Some("tester".to_string()))
        ]
    );
}
