//! What became of a recorded resolution, and who moves the run on after it (SPEC §5.1,
//! §12): the one answer every place gives (`Place::record`) and every frontend reads. In
//! this store, this process drives the leg the resolution resumes when the policy allows it
//! (not `--no-resume`; for `serve`, `--drive` and a run its own user started on its host:
//! `Policy::serving`), it is on the run's own host, it has the model, and no live waiter
//! claims the leg (the store decides that last part atomically, in the
//! transaction that records). A one-step run (`ask`, `plan`) has no model and no tools:
//! the transaction that resolves its item completes it, wherever that happens (SPEC §13);
//! this process then tells its end as its driver would, unless a live waiter watches it.
//! Otherwise a live waiter drives, or nobody here does and
//! the run waits for its host, or other items of the step must be resolved first. A Mastra
//! server resumes the run itself, streamed here.
//!
//! What became of it is an `Outcome`, and its wording for a person is derived from it here,
//! once; an HTTP frontend maps the same value to its `Mastra-Ask-Outcome` header. Nothing
//! here prompts or needs a terminal.

/// What became of a recorded resolution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// This process drives the leg the resolution resumed (it holds the lease now).
    Driven,
    /// A live waiter drives the leg.
    Waiter,
    /// Recorded, and nobody here drives the run on.
    Recorded(Continues),
    /// Recorded; this many more items of the step must be resolved before the run continues.
    Pending(usize),
    /// Recorded under a policy (SPEC §14); the item waits for more approvals, as the line
    /// says ("1 of 2 approvals: alice approved; waiting for 1 more from bob").
    Partial(String),
}

/// Where a run that nobody here drives continues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Continues {
    /// On this host: by a waiter that comes later, or `resume`.
    Here,
    /// On the host that started the run (its id): its waiter, or `resume` run there.
    OnHost(String),
    /// A Claude Code session (SPEC §15): `claude -p --resume` on the host that ran it.
    ClaudeCode,
}

impl Outcome {
    /// The value of an answering response's `Mastra-Ask-Outcome` header (SPEC §13).
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Driven => "driven",
            Outcome::Waiter => "waiter",
            Outcome::Recorded(_) | Outcome::Pending(_) => "recorded",
            Outcome::Partial(_) => "partial",
        }
    }

    /// What a person is told of it; `None` when the leg it resumed is what follows.
    /// `program` is the command to paste (`mastra-ask --db ...`).
    pub fn wording(&self, program: &str, run_id: &str) -> Option<String> {
        Some(match self {
            Outcome::Driven => return None,
            Outcome::Waiter => "answer recorded; the waiting process continues the run".into(),
            Outcome::Recorded(Continues::Here) => format!(
                "recorded; a waiting process, or `{program} resume {run_id}`, continues the run"
            ),
            Outcome::Recorded(Continues::OnHost(_)) => format!(
                "answer recorded; run {run_id} continues on the host that started it: its waiting process, or `{program} resume {run_id}` run there"
            ),
            Outcome::Recorded(Continues::ClaudeCode) => format!(
                "recorded; `claude -p --resume {run_id}` on the host that ran this Claude Code session continues it"
            ),
            Outcome::Pending(n) => format!(
                "recorded; {n} more item(s) of this step must be resolved before the run continues"
            ),
            Outcome::Partial(summary) => format!("recorded; {summary}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::lease;
    use crate::domain::{
        CallState, Event, ItemKind, Message, NewCall, RunStatus, StepCommit, ToolCall, Transition,
        Via,
    };
    use crate::items::Item;
    use crate::runner::watch::tests::{new_run_under, store_at, Kept};
    use crate::runner::{Advance, Local};
    use crate::runner::{Context, Followed, Policy};
    use crate::store::{Location, Store};
    use crate::store::{RunReview, Who};
    use serde_json::json;
    use std::time::{Duration, Instant};

    /// A run suspended on one question, with `waiter` registered (or none).
    fn suspended(
        store: &dyn Store,
        driver: &crate::store::Lease,
        waiter: Option<&crate::store::Lease>,
    ) {
        suspended_under(store, driver, waiter, &RunReview::local(Default::default()));
    }

    /// As `suspended`, under `review`.
    fn suspended_under(
        store: &dyn Store,
        driver: &crate::store::Lease,
        waiter: Option<&crate::store::Lease>,
        review: &RunReview,
    ) {
        new_run_under(store, "run-1", driver, waiter, review);
        let call = ToolCall {
            id: "q1".into(),
            name: "ask_user".into(),
            args: json!({"question": "Go?"}),
            invalid_args: None,
        };
        let commit = StepCommit {
            messages: vec![Message::Assistant {
                content: None,
                tool_calls: vec![call.clone()],
            }],
            calls: vec![NewCall {
                call_id: "q1".into(),
                tool_name: "ask_user".into(),
                args: call.args.clone(),
                state: CallState::Pending,
                kind: Some(ItemKind::Question),
                payload: Some(json!({"question": "Go?"})),
                result: None,
                error: None,
            }],
            events: vec![Event::step_start("m1")],
            usage: Default::default(),
            transition: Transition::Suspended,
        };
        store
            .commit_step("run-1", driver, &commit)
            .unwrap()
            .unwrap();
    }

    fn context<'a>(location: &Location, report: &'a Kept) -> Context<'a> {
        Context {
            location: location.clone(),
            db_flag: None,
            store_from: crate::runner::StoreFrom::Default,
            on_suspend: None,
            on_resolve: None,
            interactive: false,
            server: None,
            report,
        }
    }

    /// What a frontend without a terminal (an HTTP server, on a blocking thread) does: record
    /// a reviewer's answer, learn that a live waiter drives the run, and follow that leg from
    /// the store, the answer's result first.
    #[test]
    fn a_frontend_records_for_a_live_waiter_and_follows_its_leg() {
        let dir = tempfile::tempdir().unwrap();
        let location = Location::Sqlite(dir.path().join("s.db"));
        let store = store_at(&location);
        let (driver, waiter) = (lease::mine(), lease::mine());
        suspended(store.as_ref(), &driver, Some(&waiter));
        let kept = Kept::default();
        let ctx = context(&location, &kept);
        let run = store.run("run-1").unwrap().unwrap();
        let item = store.pending(Some("run-1")).unwrap().remove(0).call;
        let policy = Policy {
            drive: true,
            prompt: false,
            wait: None,
            who: Who::this_process(Some("alice".into())),
        };
        let seen = store.events("run-1").unwrap().last().map(|e| e.seq);
        let mut advance = Advance::new(&ctx, store.as_ref(), "run-1", policy);
        let item = Item::of_call(&run, &item);
        let answer = crate::items::Answer::Data(json!("yes"));
        let outcome = advance.decide(&item, answer, Via::Json).unwrap();
        assert_eq!(outcome, Outcome::Waiter);
        assert!(kept.events.borrow().is_empty(), "the waiter's to drive");

        let other = std::thread::spawn(move || {
            let store = store_at(&location);
            assert!(store
                .take_lease("run-1", RunStatus::Running, None, &waiter)
                .unwrap());
            let done = StepCommit {
                messages: vec![],
                calls: vec![],
                events: vec![Event::step_start("m2"), Event::text_delta("m2", "done")],
                usage: Default::default(),
                transition: Transition::Completed {
                    output: "done".into(),
                    finish_reason: "stop".into(),
                },
            };
            store.commit_step("run-1", &waiter, &done).unwrap().unwrap()
        });
        let mut following = Local::new(&ctx, Some(store.as_ref()), "run-1", false).seen_up_to(seen);
        let followed = following
            .follow(Some(Instant::now() + Duration::from_secs(20)))
            .unwrap();
        let leg: Vec<i64> = other.join().unwrap().iter().map(|e| e.seq).collect();
        assert_eq!(followed, Followed::Ended(RunStatus::Completed));
        let seen = kept.events.borrow();
        assert!(
            seen.len() > leg.len(),
            "the answer's result came first: {seen:?}"
        );
        assert!(seen.ends_with(&leg), "{seen:?} {leg:?}");
        let stored = store.events("run-1").unwrap();
        let after_suspension: Vec<i64> = stored
            .iter()
            .map(|e| e.seq)
            .filter(|s| *s >= seen[0])
            .collect();
        assert_eq!(*seen, after_suspension, "each stored event once, in order");
        assert_eq!(
            store.calls("run-1").unwrap()[0].resolved_by.as_deref(),
            Some("alice")
        );
    }

    /// Without a waiter and without leave to drive, the answer is only recorded, here.
    #[test]
    fn an_answer_nobody_here_drives_is_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let location = Location::Sqlite(dir.path().join("s.db"));
        let store = store_at(&location);
        suspended(store.as_ref(), &lease::mine(), None);
        let kept = Kept::default();
        let ctx = context(&location, &kept);
        let run = store.run("run-1").unwrap().unwrap();
        let item = store.pending(Some("run-1")).unwrap().remove(0).call;
        let policy = Policy {
            drive: false,
            prompt: false,
            wait: None,
            who: Who::this_process(Some("bob".into())),
        };
        let mut advance = Advance::new(&ctx, store.as_ref(), "run-1", policy);
        let item = Item::of_call(&run, &item);
        let answer = crate::items::Answer::Data(json!("no"));
        let outcome = advance.decide(&item, answer, Via::Json).unwrap();
        assert_eq!(outcome, Outcome::Recorded(Continues::Here));
        assert_eq!(
            store.run("run-1").unwrap().unwrap().status,
            RunStatus::Running
        );
        assert!(
            kept.info.borrow().is_empty(),
            "recording says nothing itself"
        );
    }

    #[test]
    fn each_outcome_is_worded_once_and_named_for_the_header() {
        let said = |o: Outcome| (o.as_str(), o.wording("mastra-ask --db x.db", "r1"));
        assert_eq!(said(Outcome::Driven), ("driven", None));
        assert_eq!(
            said(Outcome::Waiter),
            (
                "waiter",
                Some("answer recorded; the waiting process continues the run".into())
            )
        );
        assert_eq!(
            said(Outcome::Recorded(Continues::Here)),
            (
                "recorded",
                Some("recorded; a waiting process, or `mastra-ask --db x.db resume r1`, continues the run".into())
            )
        );
        assert_eq!(
            said(Outcome::Recorded(Continues::OnHost("h".into()))),
            (
                "recorded",
                Some("answer recorded; run r1 continues on the host that started it: its waiting process, or `mastra-ask --db x.db resume r1` run there".into())
            )
        );
        assert_eq!(
            said(Outcome::Pending(2)),
            (
                "recorded",
                Some("recorded; 2 more item(s) of this step must be resolved before the run continues".into())
            )
        );
    }

    /// Who decides is what the frontend names, never inferred from the channel an answer
    /// came through: under a policy that only alice satisfies, this process's user is
    /// refused and nothing is recorded, and alice, named by a frontend, decides through any
    /// channel (here `flag`, where the old mapping took every channel but serve's for the
    /// OS user).
    #[test]
    fn who_decides_is_named_by_the_frontend_never_inferred_from_the_channel() {
        use crate::domain::review::{PolicySpec, RuleSpec};
        use crate::store::{NewReviewer, Reviewers};
        let dir = tempfile::tempdir().unwrap();
        let location = Location::Sqlite(dir.path().join("s.db"));
        let store = store_at(&location);
        let alice = NewReviewer {
            name: "alice",
            groups: &[],
            os_user: None,
            pg_role: None,
            notify: None,
        };
        store.add_reviewer(&alice, "token-of-alice").unwrap();
        let rule = RuleSpec {
            reviewers: vec!["alice".into()],
            approvals: 1,
            allow_self: false,
        };
        let review = RunReview::local(PolicySpec {
            rule: Some(rule),
            ..PolicySpec::default()
        });
        suspended_under(store.as_ref(), &lease::mine(), None, &review);
        let kept = Kept::default();
        let ctx = context(&location, &kept);
        let decide_as = |who: Who| {
            let run = store.run("run-1").unwrap().unwrap();
            let call = store.pending(Some("run-1")).unwrap().remove(0).call;
            let policy = Policy {
                drive: false,
                prompt: false,
                wait: None,
                who,
            };
            let mut advance = Advance::new(&ctx, store.as_ref(), "run-1", policy);
            let item = Item::of_call(&run, &call);
            advance.decide(&item, crate::items::Answer::Data(json!("yes")), Via::Flag)
        };

        let refused = decide_as(Who::this_process(None)).unwrap_err();
        assert!(
            matches!(
                refused.downcast_ref::<crate::store::Error>(),
                Some(crate::store::Error::Forbidden(_))
            ),
            "{refused:#}"
        );
        assert_eq!(
            store.pending(Some("run-1")).unwrap().len(),
            1,
            "nothing recorded"
        );

        decide_as(Who::reviewer("alice")).unwrap();
        let call = store.calls("run-1").unwrap().remove(0);
        assert_eq!(call.state, CallState::Resolved);
        assert_eq!(call.resolved_by.as_deref(), Some("alice"));
        assert_eq!(call.resolved_via.as_deref(), Some("flag"));
    }
}
