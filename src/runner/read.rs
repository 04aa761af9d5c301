//! What `Local` last read of its run, so that the loop reads the run once per transaction
//! (a leg, a recorded answer) and not once per question it asks of it: the run as last read
//! or as a transaction of this process left it, whether that is still what the store has
//! (`fresh`), the run's pending items read since, and the messages of a run this process
//! just created. The rules, in one place:
//!
//! - the run is fresh only when a frontend hands over the run as it just read or wrote it,
//!   or when this process's own transaction left it so; one look at the run's state uses
//!   that up (the next look reads the run again);
//! - the items are the moment's: kept while the run they were read with is not read again
//!   or acted on, and dropped when a prompt was open or the loop paused;
//! - the created messages are for the run's first leg only: any other act drops them.
//!
//! It does no IO: the caller passes the read to do when the cache cannot answer. A
//! transition never relies on it (it reads the run's rows itself).

use crate::domain::Message;
use crate::store::{PendingItem, Run};

#[derive(Default)]
pub struct Read {
    run: Option<Run>,
    fresh: bool,
    items: Option<Vec<PendingItem>>,
    created: Option<Vec<Message>>,
}

impl Read {
    /// `run` is what the store has now.
    pub fn fresh(run: Run) -> Read {
        Read {
            run: Some(run),
            fresh: true,
            ..Read::default()
        }
    }

    /// `run` was just created by this process with `messages` (it has no calls yet): its
    /// first leg starts from them without a read.
    pub fn created(run: Run, messages: Vec<Message>) -> Read {
        Read {
            created: Some(messages),
            ..Read::fresh(run)
        }
    }

    /// `run` is what the store had when it was read (it may have changed since).
    pub fn known(run: Run) -> Read {
        Read {
            run: Some(run),
            ..Read::default()
        }
    }

    /// The run as last read, if it was.
    pub fn run(&self) -> Option<&Run> {
        self.run.as_ref()
    }

    /// The run for a look at how it stands: the one held while it is fresh (its items stay
    /// the moment's), else `read()`'s. Either way the next look reads again, unless `put`
    /// says a transaction of this process left it fresh. Hand it back with `put`.
    pub fn look<E>(&mut self, read: impl FnOnce() -> Result<Run, E>) -> Result<Run, E> {
        let fresh = std::mem::take(&mut self.fresh);
        match self.run.take() {
            Some(run) if fresh => Ok(run),
            _ => {
                self.items = None;
                read()
            }
        }
    }

    /// The run held (else `read()`'s), to act on: its items go, and so do the created
    /// messages (they were for its first leg). Hand it back with `put`.
    pub fn take<E>(&mut self, read: impl FnOnce() -> Result<Run, E>) -> Result<Run, E> {
        self.created = None;
        self.take_for_leg(read).map(|(run, _)| run)
    }

    /// As `take`, for a leg: with the messages it starts from when the run was just created.
    pub fn take_for_leg<E>(
        &mut self,
        read: impl FnOnce() -> Result<Run, E>,
    ) -> Result<(Run, Option<Vec<Message>>), E> {
        self.fresh = false;
        self.items = None;
        let created = self.created.take();
        let run = match self.run.take() {
            Some(run) => run,
            None => read()?,
        };
        Ok((run, created))
    }

    /// Hands back the run taken or looked at: `fresh` when it is as a transaction of this
    /// process just left it.
    pub fn put(&mut self, run: Run, fresh: bool) {
        self.run = Some(run);
        self.fresh = fresh;
    }

    /// The run's pending items: those read since the run was, else `read()`'s of the run as
    /// held (`None`: not read yet).
    pub fn items<E>(
        &mut self,
        read: impl FnOnce(Option<&Run>) -> Result<Vec<PendingItem>, E>,
    ) -> Result<&[PendingItem], E> {
        let items = match self.items.take() {
            Some(items) => items,
            None => read(self.run.as_ref())?,
        };
        Ok(self.items.insert(items))
    }

    /// A prompt was open, or the loop paused: the items read before are not this moment's.
    pub fn forget_items(&mut self) {
        self.items = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::convert::Infallible;

    /// A run stored at `at`, so the tests tell a held run from one read.
    fn run(at: i64) -> Run {
        Run {
            updated_at: at,
            ..Run::sample()
        }
    }

    /// Counts the reads of the run and of its items, as the store would serve them.
    #[derive(Default)]
    struct Store {
        runs: Cell<i64>,
        items: Cell<u32>,
    }

    impl Store {
        fn run(&self) -> Result<Run, Infallible> {
            self.runs.set(self.runs.get() + 1);
            Ok(run(100 + self.runs.get()))
        }

        fn items(&self, _: Option<&Run>) -> Result<Vec<PendingItem>, Infallible> {
            self.items.set(self.items.get() + 1);
            Ok(Vec::new())
        }
    }

    /// One look, put back as the loop does after it.
    fn look(read: &mut Read, store: &Store) -> i64 {
        let run = read.look(|| store.run()).unwrap();
        let at = run.updated_at;
        read.put(run, false);
        at
    }

    fn items(read: &mut Read, store: &Store) {
        read.items(|run| store.items(run)).unwrap();
    }

    #[test]
    fn a_fresh_run_serves_one_look_without_a_read_then_the_next_look_reads() {
        let store = Store::default();
        let mut read = Read::fresh(run(1));
        assert_eq!(look(&mut read, &store), 1);
        assert_eq!(look(&mut read, &store), 101);
        assert_eq!(look(&mut read, &store), 102);
        assert_eq!(store.runs.get(), 2);
    }

    #[test]
    fn a_known_run_is_read_again_at_the_first_look_but_named_before_it() {
        let store = Store::default();
        let mut read = Read::known(run(1));
        assert_eq!(read.run().map(|r| r.updated_at), Some(1));
        assert_eq!(look(&mut read, &store), 101);
        assert_eq!(read.run().map(|r| r.updated_at), Some(101));
    }

    #[test]
    fn a_transaction_of_this_process_makes_the_run_fresh_again() {
        let store = Store::default();
        let mut read = Read::known(run(1));
        let mut run = read.take(|| store.run()).unwrap();
        assert_eq!(run.updated_at, 1, "acting on the run held reads nothing");
        run.updated_at = 2;
        read.put(run, true);
        assert_eq!(look(&mut read, &store), 2);
        // Put back not fresh (the transaction left it to others): the look reads.
        let run = read.take(|| store.run()).unwrap();
        read.put(run, false);
        assert_eq!(look(&mut read, &store), 101);
        assert_eq!(store.runs.get(), 1);
    }

    #[test]
    fn nothing_held_is_read_once_when_taken() {
        let store = Store::default();
        let mut read = Read::default();
        assert!(read.run().is_none());
        let run = read.take(|| store.run()).unwrap();
        assert_eq!(run.updated_at, 101);
        read.put(run, false);
        assert_eq!(read.take(|| store.run()).unwrap().updated_at, 101);
        assert_eq!(store.runs.get(), 1);
    }

    #[test]
    fn items_are_read_once_until_the_run_is_read_again_or_acted_on() {
        let store = Store::default();
        let mut read = Read::fresh(run(1));
        items(&mut read, &store);
        items(&mut read, &store);
        assert_eq!(store.items.get(), 1);
        // A look that uses the fresh run keeps them: the leg's items serve the report.
        look(&mut read, &store);
        items(&mut read, &store);
        assert_eq!(store.items.get(), 1);
        // A look that reads the run again drops them.
        look(&mut read, &store);
        items(&mut read, &store);
        assert_eq!(store.items.get(), 2);
        // Acting on the run drops them, even put back fresh.
        let run = read.take(|| store.run()).unwrap();
        read.put(run, true);
        items(&mut read, &store);
        assert_eq!(store.items.get(), 3);
        // So does a prompt or a pause.
        read.forget_items();
        items(&mut read, &store);
        assert_eq!(store.items.get(), 4);
        assert_eq!(store.runs.get(), 1);
    }

    #[test]
    fn items_are_read_of_the_run_held() {
        let mut read = Read::known(run(7));
        let at = Cell::new(None);
        let _ = read.items(|run| {
            at.set(run.map(|r| r.updated_at));
            Ok::<_, Infallible>(Vec::new())
        });
        assert_eq!(at.get(), Some(7));
    }

    #[test]
    fn created_messages_go_to_the_first_leg_only() {
        let store = Store::default();
        let messages = || {
            vec![Message::User {
                content: "hi".into(),
            }]
        };
        let mut read = Read::created(run(1), messages());
        // Looks come before the leg and leave them.
        look(&mut read, &store);
        let (run, created) = read.take_for_leg(|| store.run()).unwrap();
        assert_eq!(created, Some(messages()));
        read.put(run, true);
        assert_eq!(read.take_for_leg(|| store.run()).unwrap().1, None);
        // Any other act on the run drops them.
        let mut read = Read::created(self::run(1), messages());
        let run = read.take(|| store.run()).unwrap();
        read.put(run, false);
        assert_eq!(read.take_for_leg(|| store.run()).unwrap().1, None);
        assert_eq!(store.runs.get(), 0);
    }
}
