//! Waking when another process commits: SQLite tells no one, but in WAL mode every commit
//! writes the store's log (`STORE-wal`), so on Linux a connection's wait watches that file
//! with inotify (set up at its first wait, kept for the connection's life) and returns at
//! its first write, or at the timeout. Elsewhere, or when a watch cannot be set up (a limit
//! reached, no log yet), it sleeps the timeout as before and tries again at the next wait.
//!
//! A wake-up says only that something may have changed (this process's own commits and
//! checkpoints wake it too): callers read again. It never fails the caller.

use std::cell::RefCell;
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
use rustix::fd::OwnedFd;

/// The wait of one connection of the store whose database file is `path`.
pub struct Changes {
    /// The store's log (SQLite's own name for it: the database's resolved path + `-wal`).
    log: Option<String>,
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
            watch: RefCell::default(),
        }
    }

    /// Returns when the log was written since the last wait returned, or after `timeout`.
    pub fn wait(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        if !self.wait_for_write(timeout) {
            std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
        }
    }

    /// Waits on the watch; false when there is none (then the caller sleeps).
    #[cfg(target_os = "linux")]
    fn wait_for_write(&self, timeout: Duration) -> bool {
        let mut watch = self.watch.borrow_mut();
        if watch.is_none() {
            *watch = self.log.as_deref().and_then(|log| linux::watch(log).ok());
        }
        let Some(fd) = watch.as_ref() else {
            return false;
        };
        match linux::wait(fd, timeout) {
            Ok(()) => true,
            Err(_) => {
                // The watch is gone (the log was removed) or broken: set up again next time.
                *watch = None;
                false
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn wait_for_write(&self, _timeout: Duration) -> bool {
        false
    }
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
    /// `timeout`; the queue is then emptied. An error when the watch is gone.
    pub fn wait(fd: &OwnedFd, timeout: Duration) -> Result<()> {
        let timeout = Timespec::try_from(timeout.min(LONGEST)).map_err(|_| Errno::INVAL)?;
        let mut fds = [PollFd::new(fd, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) | Err(Errno::INTR) => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(e),
        }
        let mut buf = [MaybeUninit::uninit(); 1024];
        let mut events = inotify::Reader::new(fd, &mut buf);
        loop {
            match events.next() {
                Ok(e) if e.events().contains(ReadFlags::IGNORED) => return Err(Errno::NOENT),
                Ok(_) | Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => return Ok(()),
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

    /// A connection waiting with a long timeout returns when another connection commits
    /// (the test's deadline is far below the wait's).
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
            done.send(()).unwrap();
        });
        let writer = SqliteStore::open(&path, Access::Existing).unwrap().unwrap();
        writer
            .record_public_url("https://inbox.example", false)
            .unwrap();
        returned
            .recv_timeout(Duration::from_secs(60))
            .expect("the wait returned at the commit, long before its timeout");
        waiter.join().unwrap();
    }
}
