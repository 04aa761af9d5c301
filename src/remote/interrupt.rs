//! Ctrl-C and SIGTERM must not drop a leg that is streaming: Mastra aborts a run whose
//! client disconnects and deletes its suspension (SPEC §12). While a [`StopGuard`] lives,
//! SIGINT and SIGTERM are caught instead of ending the process: the handler records which
//! arrived and writes the caller's notice to stderr, and the caller reads the leg to its end,
//! then asks [`StopGuard::requested`] and says so.
//!
//! Only a SIGKILL can still cut the leg. The handler (`sys::signals::record_stops`) does
//! nothing but async-signal-safe work; the guard restores the previous actions when the last
//! guard is dropped. It decides nothing about the run.

use std::sync::Mutex;

use crate::sys::signals::{self, Previous};

/// A stop request that arrived while a guard was held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM (e.g. a CI job being cancelled).
    Terminate,
}

/// The actions in place before the first live guard (put back when dropped), and how many
/// guards live.
struct Saved {
    guards: usize,
    old: Vec<Previous>,
}

static SAVED: Mutex<Saved> = Mutex::new(Saved {
    guards: 0,
    old: Vec::new(),
});

/// While this lives, SIGINT and SIGTERM are recorded instead of ending the process.
pub struct StopGuard(());

impl StopGuard {
    /// Catches SIGINT and SIGTERM; `notice` (a line, or nothing) is written to stderr each
    /// time one arrives, e.g. "finishing the leg on the server before stopping".
    pub fn install(notice: Option<&str>) -> StopGuard {
        let mut saved = SAVED.lock().unwrap_or_else(|e| e.into_inner());
        if notice.is_some() {
            signals::set_stop_notice(notice);
        }
        if saved.guards == 0 {
            signals::reset_stops();
            saved.old = [libc::SIGINT, libc::SIGTERM]
                .into_iter()
                .filter_map(signals::record_stops)
                .collect();
        }
        saved.guards += 1;
        StopGuard(())
    }

    /// The first stop request received, if any.
    pub fn requested(&self) -> Option<Stop> {
        match signals::stops().0 {
            libc::SIGINT => Some(Stop::Interrupt),
            libc::SIGTERM => Some(Stop::Terminate),
            _ => None,
        }
    }

    /// How many stop requests arrived.
    pub fn count(&self) -> usize {
        signals::stops().1
    }
}

impl Drop for StopGuard {
    fn drop(&mut self) {
        let mut saved = SAVED.lock().unwrap_or_else(|e| e.into_inner());
        saved.guards -= 1;
        if saved.guards == 0 {
            saved.old.clear();
            signals::set_stop_notice(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sigterm_is_recorded_not_fatal_and_the_old_action_comes_back() {
        let guard = StopGuard::install(None);
        assert_eq!(guard.requested(), None);
        signals::raise(libc::SIGTERM);
        assert_eq!(guard.requested(), Some(Stop::Terminate));
        assert_eq!(guard.count(), 1);
        let nested = StopGuard::install(None);
        drop(nested);
        signals::raise(libc::SIGTERM);
        assert_eq!(guard.count(), 2, "still caught while a guard lives");
        drop(guard);
        assert!(!signals::is_caught(libc::SIGTERM), "the old action is back");
    }
}
