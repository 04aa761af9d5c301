//! Watching a run from its stored events, without driving it: each event reported once, in
//! order, past the last one reported. A waiter's JSON stream catches up with what others
//! appended (the results of an answer given elsewhere, a leg another driver ran); a frontend
//! that answered for a live waiter follows that waiter's leg from the store (`follow`) until
//! the run suspends or ends, the waiter goes, or a deadline passes.
//!
//! Nothing here changes a run.

use std::time::{Duration, Instant};

use anyhow::Result;

use crate::domain::{RunStatus, StoredEvent};
use crate::error::Error;
use crate::report::Report;
use crate::store::{Run, Store};

/// How often a follower looks at the store at least (a change wakes it at once).
pub const POLL: Duration = Duration::from_millis(200);

/// A run's stored events reported up to some sequence number.
#[derive(Clone, Debug, Default)]
pub struct Watch {
    /// The last event reported; `None`: nothing yet, and nothing to catch up with.
    seen: Option<i64>,
}

/// Why `follow` stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum Followed {
    /// The run waits for input again (its waiter announces what).
    Suspended,
    /// The run ended with this status.
    Ended(RunStatus),
    /// Running, but no live waiter drives it any more.
    WaiterGone,
    /// The deadline passed first.
    TimedOut,
}

impl Watch {
    /// Events up to `seq` were reported already.
    pub fn since(seq: Option<i64>) -> Watch {
        Watch { seen: seq }
    }

    /// The last event reported.
    pub fn seen(&self) -> Option<i64> {
        self.seen
    }

    /// `events` were reported (or are not to be); later catching up starts after them.
    pub fn passed(&mut self, events: &[StoredEvent]) {
        if let Some(last) = events.last() {
            self.seen = Some(last.seq);
        }
    }

    /// Reports the stored events of `run_id` past the last one reported. Does nothing before
    /// a first sequence number is known.
    pub fn catch_up(&mut self, store: &dyn Store, report: &dyn Report, run_id: &str) -> Result<()> {
        let Some(seen) = self.seen else {
            return Ok(());
        };
        let new: Vec<StoredEvent> = store
            .events(run_id)?
            .into_iter()
            .filter(|e| e.seq > seen)
            .collect();
        self.passed(&new);
        report.stored_events(run_id, &new);
        Ok(())
    }

    /// Every stored event so far counts as reported.
    pub fn skip_to_end(&mut self, store: &dyn Store, run_id: &str) -> Result<()> {
        self.seen = store.events(run_id)?.last().map(|e| e.seq).or(self.seen);
        Ok(())
    }

    /// Reports the run's events as they are stored (all of them when nothing was reported
    /// yet), until it is no longer running (a live waiter's leg, followed from the store),
    /// its waiter is gone, or `deadline` passes.
    pub fn follow(
        &mut self,
        store: &dyn Store,
        report: &dyn Report,
        run_id: &str,
        deadline: Option<Instant>,
    ) -> Result<Followed> {
        if self.seen.is_none() {
            self.seen = Some(i64::MIN);
        }
        loop {
            let run = read(store, run_id)?;
            self.catch_up(store, report, run_id)?;
            match run.status {
                RunStatus::Suspended => return Ok(Followed::Suspended),
                RunStatus::Running => {}
                ended => return Ok(Followed::Ended(ended)),
            }
            if !store.has_waiter(run_id)? {
                // It may have ended its leg and left since the run was read: once more,
                // so that the leg's last events and its end are reported.
                let run = read(store, run_id)?;
                self.catch_up(store, report, run_id)?;
                return Ok(match run.status {
                    RunStatus::Suspended => Followed::Suspended,
                    RunStatus::Running => Followed::WaiterGone,
                    ended => Followed::Ended(ended),
                });
            }
            let left = match deadline {
                Some(d) if Instant::now() >= d => return Ok(Followed::TimedOut),
                Some(d) => POLL.min(d.saturating_duration_since(Instant::now())),
                None => POLL,
            };
            store.wait_for_change(run_id, left)?;
        }
    }
}

fn read(store: &dyn Store, run_id: &str) -> Result<Run> {
    store
        .run(run_id)?
        .ok_or_else(|| Error::not_found(format!("run {run_id} was deleted")).into())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::agent::lease;
    use crate::domain::{Event, Sink, StepCommit, Transition};
    use crate::store::{Access, Lease, Location, NewRun};
    use serde_json::{json, Value};
    use std::cell::RefCell;

    /// Keeps what it was told.
    #[derive(Default)]
    pub(crate) struct Kept {
        pub(crate) events: RefCell<Vec<i64>>,
        pub(crate) info: RefCell<Vec<String>>,
    }

    impl Report for Kept {
        fn json(&self) -> bool {
            true
        }
        fn info(&self, line: &str) {
            self.info.borrow_mut().push(line.to_string());
        }
        fn warn(&self, _: &str) {}
        fn line(&self, _: &str) {}
        fn json_line(&self, _: &Value) {}
        fn leg(&self) -> Box<dyn Sink + '_> {
            unreachable!("a follower drives nothing")
        }
        fn stored_events(&self, _: &str, events: &[StoredEvent]) {
            self.events
                .borrow_mut()
                .extend(events.iter().map(|e| e.seq));
        }
    }

    pub(crate) fn store_at(location: &Location) -> Box<dyn Store> {
        crate::store::open(location, Access::Create)
            .unwrap()
            .unwrap()
    }

    /// A new running run `id` of agent `{}`, driven by `driver`, with `waiter` if any; its
    /// first events.
    pub(crate) fn new_run(
        store: &dyn Store,
        id: &str,
        driver: &Lease,
        waiter: Option<&Lease>,
    ) -> Vec<StoredEvent> {
        let review = crate::store::RunReview::local(Default::default());
        new_run_under(store, id, driver, waiter, &review)
    }

    /// As `new_run`, under `review`.
    pub(crate) fn new_run_under(
        store: &dyn Store,
        id: &str,
        driver: &Lease,
        waiter: Option<&Lease>,
        review: &crate::store::RunReview,
    ) -> Vec<StoredEvent> {
        store
            .create_run(&NewRun {
                id,
                agent_id: "a",
                agent: &json!({}),
                cwd: "/",
                prompt: "go",
                lease: driver,
                waiter,
                events: &[Event::start("a", "m0")],
                expires_in: None,
                review,
            })
            .unwrap()
    }

    /// A waiter's leg, driven by another process, is followed from the store to its end:
    /// every event once and in order, from the first one not yet reported.
    #[test]
    fn a_waiters_leg_is_followed_from_the_store_to_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let location = Location::Sqlite(dir.path().join("s.db"));
        let store = store_at(&location);
        let (driver, waiter) = (lease::mine(), lease::mine());
        let first = new_run(store.as_ref(), "run-1", &driver, Some(&waiter));
        let mut watch = Watch::since(first.last().map(|e| e.seq));
        let kept = Kept::default();
        let deadline = Some(Instant::now() + Duration::from_millis(300));
        assert_eq!(
            watch
                .follow(store.as_ref(), &kept, "run-1", deadline)
                .unwrap(),
            Followed::TimedOut,
            "still running: nothing more to tell"
        );
        assert!(kept.events.borrow().is_empty());

        let other = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            let commit = StepCommit {
                messages: vec![],
                calls: vec![],
                events: vec![Event::step_start("m1"), Event::text_delta("m1", "done")],
                usage: Default::default(),
                transition: Transition::Completed {
                    output: "done".into(),
                    finish_reason: "stop".into(),
                },
            };
            store_at(&location)
                .commit_step("run-1", &driver, &commit)
                .unwrap()
                .unwrap()
        });
        let deadline = Some(Instant::now() + Duration::from_secs(20));
        let end = watch
            .follow(store.as_ref(), &kept, "run-1", deadline)
            .unwrap();
        let committed: Vec<i64> = other.join().unwrap().iter().map(|e| e.seq).collect();
        assert_eq!(end, Followed::Ended(RunStatus::Completed));
        assert!(!committed.is_empty());
        assert_eq!(*kept.events.borrow(), committed);
        assert_eq!(watch.seen(), committed.last().copied());
    }

    #[test]
    fn a_follower_stops_when_no_waiter_drives_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_at(&Location::Sqlite(dir.path().join("s.db")));
        new_run(store.as_ref(), "run-2", &lease::mine(), None);
        let kept = Kept::default();
        let followed = Watch::default()
            .follow(store.as_ref(), &kept, "run-2", None)
            .unwrap();
        assert_eq!(followed, Followed::WaiterGone);
        assert_eq!(kept.events.borrow().len(), 1, "the start event, once");
    }
}
