//! The store from async code: a few open stores (SQLite connections or PostgreSQL sessions)
//! lent to blocking tasks, so that the runtime's threads never wait on the store. Short
//! work (a page, a listing, a sign-in, recording a decision) takes one of `MAX_OPEN`
//! places, and the rest queue. A leg that follows a decision, which may last as long as its
//! model (`--drive`) or its waiter, needs one of `MAX_LEGS` places of its own, at most
//! `LEGS_PER_REVIEWER` of them for one reviewer; it is taken before the decision or never
//! (`leg_place`), so that a decision never waits behind legs (SPEC §13). A store that
//! failed is dropped, not lent again, and so is one an answer says not to lend (it listened
//! for changes: a PostgreSQL session would keep collecting notifications).

use std::sync::{Arc, Mutex};

use anyhow::Result;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::places::{Place, Places};
use crate::store::{self, Access, Location, Store};

/// Stores open at once for short work at most (SQLite writes one at a time anyway;
/// PostgreSQL sessions are a server's resource).
const MAX_OPEN: usize = 8;
/// Legs driven or followed after a decision at once at most.
pub const MAX_LEGS: usize = 16;
/// Of those, one reviewer's at most.
pub const LEGS_PER_REVIEWER: usize = 4;

/// A place for the leg after a decision (`Pool::leg_place`).
pub type LegPlace = Place<String>;

pub struct Pool {
    location: Location,
    idle: Mutex<Vec<Box<dyn Store>>>,
    gate: Arc<Semaphore>,
    legs: Places<String>,
}

/// Whether a store an answer used may be lent again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reuse {
    Yes,
    No,
}

impl Pool {
    pub fn new(location: Location) -> Pool {
        Pool {
            location,
            idle: Mutex::new(Vec::new()),
            gate: Arc::new(Semaphore::new(MAX_OPEN)),
            legs: Places::new(MAX_LEGS, LEGS_PER_REVIEWER),
        }
    }

    /// Runs `f` with a store on a blocking thread.
    pub async fn with<T, F>(self: &Arc<Self>, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> Result<T> + Send + 'static,
    {
        let _permit = self.gate.clone().acquire_owned().await?;
        let pool = self.clone();
        tokio::task::spawn_blocking(move || {
            let store = pool.take()?;
            let result = f(store.as_ref());
            if result.as_ref().err().is_none_or(|e| !broken(e)) {
                pool.give_back(store);
            }
            result
        })
        .await?
    }

    /// A place for the leg that may follow `reviewer`'s decision, if one is free now.
    pub fn leg_place(&self, reviewer: &str) -> Option<LegPlace> {
        self.legs.take(reviewer.to_string())
    }

    /// Starts `f` on a blocking thread with a store (or why none could be had) and a place
    /// of short work, which `f` drops when its short work is done (a leg may follow, in a
    /// `leg_place` taken before). It runs to its end whatever becomes of the request that
    /// started it (a leg is never cut short because its client went away); serve's
    /// shutdown waits for it.
    pub fn spawn_decision<F>(self: &Arc<Self>, f: F)
    where
        F: FnOnce(Result<&dyn Store>, OwnedSemaphorePermit) -> Reuse + Send + 'static,
    {
        let pool = self.clone();
        tokio::spawn(async move {
            let Ok(short) = pool.gate.clone().acquire_owned().await else {
                return;
            };
            let blocking = pool.clone();
            let _ = tokio::task::spawn_blocking(move || match blocking.take() {
                Ok(store) => {
                    if f(Ok(store.as_ref()), short) == Reuse::Yes {
                        blocking.give_back(store);
                    }
                }
                Err(e) => {
                    f(Err(e), short);
                }
            })
            .await;
        });
    }

    fn take(&self) -> Result<Box<dyn Store>> {
        if let Some(s) = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop() {
            return Ok(s);
        }
        open(&self.location)
    }

    fn give_back(&self, store: Box<dyn Store>) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < MAX_OPEN + MAX_LEGS {
            idle.push(store);
        }
    }
}

impl Drop for Pool {
    /// Closes the stores on a thread of their own: a PostgreSQL client closes by blocking
    /// on its connection, which may not happen on a thread that drives async tasks.
    fn drop(&mut self) {
        let stores = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|p| p.into_inner()));
        let _ = std::thread::spawn(move || drop(stores)).join();
    }
}

/// Whether an error says the store's connection is gone.
pub fn broken(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<store::Error>(),
            Some(store::Error::Lost(_) | store::Error::Unreachable(_) | store::Error::Timeout(..))
        )
    })
}

/// Opens the store (created already by the command).
pub fn open(location: &Location) -> Result<Box<dyn Store>> {
    store::open(location, Access::Create)?
        .ok_or_else(|| anyhow::anyhow!("the store could not be opened"))
}
