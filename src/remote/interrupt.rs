//! Ctrl-C and SIGTERM must not drop a leg that is streaming: Mastra aborts a run whose
//! client disconnects and deletes its suspension (SPEC §12). While a [`StopGuard`] lives,
//! SIGINT and SIGTERM are recorded instead of ending the process; the thread that follows
//! the leg reads how many arrived ([`StopGuard::counts`]) and decides: it says it finishes
//! the leg, and a second Ctrl-C soon after the first stops waiting (SIGTERMs never do).
//!
//! Only a SIGKILL can cut the leg otherwise. The handler (`sys::signals::record_stops`) does
//! nothing but add to an atomic; the guard restores the previous actions when the last guard
//! is dropped. It decides nothing about the run and prints nothing.

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
    /// Catches SIGINT and SIGTERM.
    pub fn install() -> StopGuard {
        let mut saved = SAVED.lock().unwrap_or_else(|e| e.into_inner());
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

    /// A stop request received, if any: an interrupt when there was one.
    pub fn requested(&self) -> Option<Stop> {
        match self.counts() {
            (0, 0) => None,
            (0, _) => Some(Stop::Terminate),
            _ => Some(Stop::Interrupt),
        }
    }

    /// How many SIGINTs and SIGTERMs arrived.
    pub fn counts(&self) -> (usize, usize) {
        signals::stops()
    }
}

impl Drop for StopGuard {
    fn drop(&mut self) {
        let mut saved = SAVED.lock().unwrap_or_else(|e| e.into_inner());
        saved.guards -= 1;
        if saved.guards == 0 {
            saved.old.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_are_recorded_not_fatal_and_the_old_action_comes_back() {
        let guard = StopGuard::install();
        assert_eq!(guard.requested(), None);
        signals::raise(libc::SIGTERM);
        assert_eq!(guard.requested(), Some(Stop::Terminate));
        assert_eq!(guard.counts(), (0, 1));
        let nested = StopGuard::install();
        drop(nested);
        signals::raise(libc::SIGTERM);
        signals::raise(libc::SIGINT);
        assert_eq!(guard.counts(), (1, 2), "still caught while a guard lives");
        assert_eq!(guard.requested(), Some(Stop::Interrupt));
        drop(guard);
        assert!(!signals::is_caught(libc::SIGTERM), "the old action is back");
    }
}
