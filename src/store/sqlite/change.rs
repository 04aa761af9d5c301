//! Waking when another process commits: SQLite tells no one, but in WAL mode every commit
//! writes the store's log (`STORE-wal`), so on Linux a connection's wait watches that file
//! with inotify (set up at its first wait, kept for the connection's life). A write shows
//! only that a commit is on its way: it becomes visible once its writer has synced the log
//! and updated the log's index (shared memory, which inotify does not see). So the wait
//! returns when `PRAGMA data_version` (which changes at other connections' commits) says a
//! commit is visible: it looks at each write, then again after 1, 2, 4 ... 128 ms until the
//! writer is done (the next wait goes on looking when it returned at another commit
//! meanwhile), or at the timeout. Elsewhere, or when a watch cannot be set up (a limit
//! reached, no log yet), it sleeps the timeout as before and tries again at the next wait.
//!
//! Another connection's commit since the last wait returned (the process's own other
//! connections' too) returns at once: callers read again. It never fails the caller.

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use rusqlite::Connection;
#[cfg(target_os = "linux")]
use rustix::fd::OwnedFd;

/// After a write of the log, the longest pause between looks for its commit; past it, the
/// wait goes on until the next write or the timeout.
const LONGEST_LOOK: Duration = Duration::from_millis(128);

/// The wait of one connection of the store whose database file is `path`.
pub struct Changes {
    /// The store's log (SQLite's own name for it: the database's resolved path + `-wal`).
    log: Option<String>,
    /// The connection's `data_version` as the last wait left it.
    seen: Cell<Option<i64>>,
    /// Set while a write seen may not show yet (the last wait returned at another commit
    /// meanwhile): the next pause before looking again.
    look: Cell<Option<Duration>>,
    #[cfg(target_os = "linux")]
    watch: RefCell<Option<OwnedFd>>,
    #[cfg(not(target_os = "linux"))]
    watch: RefCell<()>,
}

impl Changes {
    /// `path`: the database file as SQLite resolved it (`Connection::path`).
    pub fn new(path: Option<&str>) -> Changes {
        Changes {
            log: path.filter(|p| !p.is_empty()).map(|p| format!("{p}-wal")),
            seen: Cell::new(None),
            look: Cell::new(None),
            watch: RefCell::default(),
        }
    }

    /// Returns when another connection's commit is visible to `conn` (one since the last
    /// wait returned: at once), or after `timeout`.
    pub fn wait(&self, conn: &Connection, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let version = || data_version(conn);
        let Some(seen) = self.seen.get().or_else(version) else {
            return std::thread::sleep(timeout);
        };
        self.seen.set(Some(seen));
        // Set after a write: the pause before looking for its commit again.
        let mut look = self.look.take();
        loop {
            let now = version();
            if now != Some(seen) {
                self.seen.set(now);
                // Another write seen meanwhile may be a commit still on its way.
                self.look.set(look.map(|_| Duration::from_millis(1)));
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                self.look.set(look);
                return;
            }
            let slice = look.map_or(left, |l| l.min(left));
            look = match self.wait_for_write(slice) {
                Some(true) => Some(Duration::from_millis(1)),
                Some(false) => look.map(|l| l * 2).filter(|l| *l <= LONGEST_LOOK),
                None => return std::thread::sleep(left),
            };
        }
    }

    /// Waits on the watch: whether the log was written; `None` when there is no watch.
    #[cfg(target_os = "linux")]
    fn wait_for_write(&self, timeout: Duration) -> Option<bool> {
        let mut watch = self.watch.borrow_mut();
        if watch.is_none() {
            *watch = self.log.as_deref().and_then(|log| linux::watch(log).ok());
        }
        match linux::wait(watch.as_ref()?, timeout) {
            Ok(written) => Some(written),
            Err(_) => {
                // The watch is gone (the log was removed) or broken: set up again next time.
                *watch = None;
                None
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn wait_for_write(&self, _timeout: Duration) -> Option<bool> {
        None
    }
}

/// Changes when another connection commits (SQLite's `PRAGMA data_version`).
fn data_version(conn: &Connection) -> Option<i64> {
    conn.prepare_cached("PRAGMA data_version")
        .and_then(|mut stmt| stmt.query_row([], |r| r.get(0)))
        .ok()
}

#[cfg(target_os = "linux")]
mod linux {
    use std::mem::MaybeUninit;
    use std::time::Duration;

    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    use rustix::fd::OwnedFd;
    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
    use rustix::io::{Errno, Result};

    /// A wait longer than this returns early (callers read again and wait on).
    const LONGEST: Duration = Duration::from_secs(3600);

    /// An inotify instance watching `log` for writes (and for its removal).
    pub fn watch(log: &str) -> Result<OwnedFd> {
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)?;
        let what = WatchFlags::MODIFY | WatchFlags::DELETE_SELF | WatchFlags::MOVE_SELF;
        inotify::add_watch(&fd, log, what)?;
        Ok(fd)
    }

    /// Until an event is queued (one queued since the last wait returns at once), or
    /// `timeout`: whether one was (the queue is then emptied). An error when the watch is
    /// gone.
    pub fn wait(fd: &OwnedFd, timeout: Duration) -> Result<bool> {
        let timeout = Timespec::try_from(timeout.min(LONGEST)).map_err(|_| Errno::INVAL)?;
        let mut fds = [PollFd::new(fd, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) | Err(Errno::INTR) => return Ok(false),
            Ok(_) => {}
            Err(e) => return Err(e),
        }
        let mut buf = [MaybeUninit::uninit(); 1024];
        let mut events = inotify::Reader::new(fd, &mut buf);
        loop {
            match events.next() {
                Ok(e) if e.events().contains(ReadFlags::IGNORED) => return Err(Errno::NOENT),
                Ok(_) | Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => return Ok(true),
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::super::SqliteStore;
    use crate::store::backend::Backend;
    use crate::store::{Access, Reviewers};

    /// A connection waiting with a long timeout returns when another connection's commit
    /// is visible (the test's deadline is far below the wait's).
    #[test]
    fn a_wait_returns_when_another_connection_commits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let waiting = SqliteStore::open(&path, Access::Create).unwrap().unwrap();
        // The watch is set up at the first wait: one that times out, before the commit.
        waiting
            .wait_for_change("", Duration::from_millis(1))
            .unwrap();
        let (done, returned) = mpsc::sync_channel(1);
        let waiter = std::thread::spawn(move || {
            waiting
                .wait_for_change("", Duration::from_secs(600))
                .unwrap();
            // What it reads at once: the commit, not the state before it (its log is
            // written before the commit shows).
            done.send(waiting.public_url().unwrap()).unwrap();
        });
        let writer = SqliteStore::open(&path, Access::Existing).unwrap().unwrap();
        writer
            .record_public_url("https://inbox.example", false)
            .unwrap();
        let seen = returned
            .recv_timeout(Duration::from_secs(60))
            .expect("the wait returned at the commit, long before its timeout");
        waiter.join().unwrap();
        assert_eq!(seen.as_deref(), Some("https://inbox.example"));
    }
}
