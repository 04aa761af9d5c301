//! Ctrl-C and SIGTERM must not drop a leg that is streaming: Mastra aborts a run whose
//! client disconnects and deletes its suspension (SPEC §12). While a [`StopGuard`] lives,
//! SIGINT and SIGTERM are caught instead of ending the process: the handler records which
//! arrived and writes the caller's notice to stderr, and the caller reads the leg to its end,
//! then asks [`StopGuard::requested`] and says so.
//!
//! Only a SIGKILL can still cut the leg. The handler does nothing but async-signal-safe work
//! (atomics and one `write(2)`); the guard restores the previous actions when the last guard
//! is dropped. It decides nothing about the run.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};
use std::sync::Mutex;

/// A stop request that arrived while a guard was held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM (e.g. a CI job being cancelled).
    Terminate,
}

/// The first signal caught since the first guard was installed (0: none).
static FIRST: AtomicI32 = AtomicI32::new(0);
static COUNT: AtomicUsize = AtomicUsize::new(0);
/// The notice to write on each signal. Notices are leaked, so the handler never reads freed
/// memory (one short line per guard), and swapped whole, text and length together.
static NOTICE: AtomicPtr<&'static [u8]> = AtomicPtr::new(std::ptr::null_mut());

/// The actions in place before the first live guard, and how many guards live.
struct Saved {
    guards: usize,
    old: Vec<(libc::c_int, libc::sigaction)>,
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
        if let Some(text) = notice {
            let mut line = text.trim_end().to_string();
            line.push('\n');
            let bytes: &'static [u8] = Box::leak(line.into_bytes().into_boxed_slice());
            NOTICE.store(Box::leak(Box::new(bytes)), Ordering::SeqCst);
        }
        if saved.guards == 0 {
            FIRST.store(0, Ordering::SeqCst);
            COUNT.store(0, Ordering::SeqCst);
            saved.old = [libc::SIGINT, libc::SIGTERM]
                .into_iter()
                .filter_map(|sig| catch(sig).map(|old| (sig, old)))
                .collect();
        }
        saved.guards += 1;
        StopGuard(())
    }

    /// The first stop request received, if any.
    pub fn requested(&self) -> Option<Stop> {
        match FIRST.load(Ordering::SeqCst) {
            libc::SIGINT => Some(Stop::Interrupt),
            libc::SIGTERM => Some(Stop::Terminate),
            _ => None,
        }
    }

    /// How many stop requests arrived.
    pub fn count(&self) -> usize {
        COUNT.load(Ordering::SeqCst)
    }
}

impl Drop for StopGuard {
    fn drop(&mut self) {
        let mut saved = SAVED.lock().unwrap_or_else(|e| e.into_inner());
        saved.guards -= 1;
        if saved.guards == 0 {
            for (sig, old) in saved.old.drain(..) {
                // SAFETY: restores an action that sigaction itself returned.
                unsafe {
                    libc::sigaction(sig, &old, std::ptr::null_mut());
                }
            }
            NOTICE.store(std::ptr::null_mut(), Ordering::SeqCst);
        }
    }
}

extern "C" fn on_stop(sig: libc::c_int) {
    let _ = FIRST.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
    COUNT.fetch_add(1, Ordering::SeqCst);
    let notice = NOTICE.load(Ordering::SeqCst);
    if !notice.is_null() {
        // SAFETY: notices are leaked, so this one outlives the handler; write(2) is
        // async-signal-safe. A short write is not retried.
        unsafe {
            let bytes: &[u8] = *notice;
            libc::write(
                libc::STDERR_FILENO,
                bytes.as_ptr() as *const libc::c_void,
                bytes.len(),
            );
        }
    }
}

/// Installs the recording handler for `sig` (restarting interrupted system calls); returns
/// the previous action.
fn catch(sig: libc::c_int) -> Option<libc::sigaction> {
    // SAFETY: plain sigaction calls with zero-initialised structs; the handler only touches
    // atomics and calls write(2).
    unsafe {
        let mut action: libc::sigaction = MaybeUninit::zeroed().assume_init();
        action.sa_sigaction = on_stop as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        let mut old: libc::sigaction = MaybeUninit::zeroed().assume_init();
        (libc::sigaction(sig, &action, &mut old) == 0).then_some(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sigterm_is_recorded_not_fatal_and_the_old_action_comes_back() {
        let before = current(libc::SIGTERM);
        {
            let guard = StopGuard::install(None);
            assert_eq!(guard.requested(), None);
            // SAFETY: raise delivers SIGTERM to this thread, where our handler catches it.
            unsafe { libc::raise(libc::SIGTERM) };
            assert_eq!(guard.requested(), Some(Stop::Terminate));
            assert_eq!(guard.count(), 1);
            let nested = StopGuard::install(None);
            drop(nested);
            assert_eq!(
                current(libc::SIGTERM),
                on_stop as extern "C" fn(libc::c_int) as usize
            );
        }
        assert_eq!(current(libc::SIGTERM), before);
    }

    fn current(sig: libc::c_int) -> usize {
        // SAFETY: a query only (null new action).
        unsafe {
            let mut old: libc::sigaction = MaybeUninit::zeroed().assume_init();
            libc::sigaction(sig, std::ptr::null(), &mut old);
            old.sa_sigaction
        }
    }
}
