//! The store from async code: a few open stores (SQLite connections or PostgreSQL sessions)
//! lent to blocking tasks, so that the runtime's threads never wait on the store. At most
//! `MAX_OPEN` work at once; the rest queue. A store that failed is dropped, not lent again.

use std::sync::{Arc, Mutex};

use anyhow::Result;
use tokio::sync::Semaphore;

use crate::store::{self, Access, Location, Store};

/// Stores open at once at most (SQLite writes one at a time anyway; PostgreSQL sessions
/// are a server's resource).
const MAX_OPEN: usize = 8;

pub struct Pool {
    location: Location,
    idle: Mutex<Vec<Box<dyn Store>>>,
    gate: Arc<Semaphore>,
}

impl Pool {
    pub fn new(location: Location) -> Pool {
        Pool {
            location,
            idle: Mutex::new(Vec::new()),
            gate: Arc::new(Semaphore::new(MAX_OPEN)),
        }
    }

    pub fn location(&self) -> &Location {
        &self.location
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
                pool.idle
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(store);
            }
            result
        })
        .await?
    }

    fn take(&self) -> Result<Box<dyn Store>> {
        if let Some(s) = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop() {
            return Ok(s);
        }
        open(&self.location)
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
fn broken(e: &anyhow::Error) -> bool {
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
