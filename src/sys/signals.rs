//! Signal actions: the one place the crate calls `sigaction`, `signal`, `raise` and
//! `pthread_kill`, which stay `unsafe` because neither std nor rustix offers them safely. `signal-hook` would hide
//! them, but its handler stays installed for good: it cannot put back a previous action
//! exactly, and the callers here must (an interrupted program re-raises its signal with the
//! action it had before, so the process ends as the signal would have ended it).
//!
//! Every handler installed here is written in `sys` and does only async-signal-safe work
//! (nothing, or an add to an atomic); the functions that take a handler are
//! visible to `sys` only. Nothing here decides what a signal means.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

use libc::c_int;

/// A signal's action before this module changed it; put back when dropped.
pub struct Previous {
    sig: c_int,
    action: libc::sigaction,
}

impl Drop for Previous {
    fn drop(&mut self) {
        // SAFETY: puts back, for the same signal, an action that sigaction itself returned.
        unsafe {
            libc::sigaction(self.sig, &self.action, std::ptr::null_mut());
        }
    }
}

/// Installs `handler` for `sig` without `SA_RESTART` (a blocking read or wait is
/// interrupted); returns the action it replaces, or `None` when sigaction failed. `handler`
/// must do only async-signal-safe work.
pub(super) fn catch(sig: c_int, handler: extern "C" fn(c_int)) -> Option<Previous> {
    install(sig, handler, 0)
}

fn install(sig: c_int, handler: extern "C" fn(c_int), flags: c_int) -> Option<Previous> {
    // SAFETY: sigaction with zero-initialised structs (a valid "empty mask" action with the
    // flags given), a handler that the callers in `sys` keep async-signal-safe, and an out
    // pointer to a struct we own.
    unsafe {
        let mut action: libc::sigaction = MaybeUninit::zeroed().assume_init();
        action.sa_sigaction = handler as libc::sighandler_t;
        action.sa_flags = flags;
        libc::sigemptyset(&mut action.sa_mask);
        let mut old: libc::sigaction = MaybeUninit::zeroed().assume_init();
        (libc::sigaction(sig, &action, &mut old) == 0).then_some(Previous { sig, action: old })
    }
}

/// `sig`'s handler now, `None` when its action cannot be read.
fn handler_of(sig: c_int) -> Option<libc::sighandler_t> {
    // SAFETY: a query only (a null new action) into a struct we own.
    unsafe {
        let mut now: libc::sigaction = MaybeUninit::zeroed().assume_init();
        (libc::sigaction(sig, std::ptr::null(), &mut now) == 0).then_some(now.sa_sigaction)
    }
}

/// Whether `sig` is ignored (as SIGINT is under `nohup` or `&`), or its action cannot be
/// read: then it is best left alone.
pub(super) fn ignored(sig: c_int) -> bool {
    handler_of(sig).is_none_or(|h| h == libc::SIG_IGN)
}

/// Whether `record_stops` records `sig` now (for tests of what installs it).
#[cfg(test)]
pub fn is_caught(sig: c_int) -> bool {
    handler_of(sig) == Some(on_stop as extern "C" fn(c_int) as libc::sighandler_t)
}

extern "C" fn do_nothing(_: c_int) {}

/// Catches `sig` with a handler that does nothing, so that the signal interrupts a blocking
/// read instead of ending the process. Unlike an ignored signal, a caught one is reset to
/// its default for any program started meanwhile.
pub fn interrupt_reads(sig: c_int) -> Option<Previous> {
    catch(sig, do_nothing)
}

/// The SIGINTs and SIGTERMs recorded since `reset_stops`.
static INTS: AtomicUsize = AtomicUsize::new(0);
static TERMS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn on_stop(sig: c_int) {
    let count = if sig == libc::SIGINT { &INTS } else { &TERMS };
    count.fetch_add(1, Ordering::SeqCst);
}

/// Records `sig` (SIGINT, SIGTERM) instead of ending the process, restarting interrupted
/// system calls. What a request means is for the thread that reads [`stops`] to say.
pub fn record_stops(sig: c_int) -> Option<Previous> {
    install(sig, on_stop, libc::SA_RESTART)
}

/// How many SIGINTs and SIGTERMs were recorded.
pub fn stops() -> (usize, usize) {
    (INTS.load(Ordering::SeqCst), TERMS.load(Ordering::SeqCst))
}

/// Forgets the stop requests recorded so far.
pub fn reset_stops() {
    INTS.store(0, Ordering::SeqCst);
    TERMS.store(0, Ordering::SeqCst);
}

/// A signal that asks a waiter to stop: SIGHUP, SIGINT or SIGTERM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    HangUp,
    Interrupt,
    Terminate,
}

impl Ending {
    const ALL: [(Ending, c_int); 3] = [
        (Ending::HangUp, libc::SIGHUP),
        (Ending::Interrupt, libc::SIGINT),
        (Ending::Terminate, libc::SIGTERM),
    ];

    /// The signal's usual name (`SIGTERM`).
    pub fn name(self) -> &'static str {
        match self {
            Ending::HangUp => "SIGHUP",
            Ending::Interrupt => "SIGINT",
            Ending::Terminate => "SIGTERM",
        }
    }
}

/// The last ending signal caught while an [`Ends`] lived (0: none).
static ENDED: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_end(sig: c_int) {
    ENDED.store(sig, Ordering::SeqCst);
}

/// While this lives, SIGHUP, SIGINT and SIGTERM (those not ignored, as SIGINT is under
/// `nohup` or `&`) are recorded instead of ending the process, and interrupt a blocking
/// read (no `SA_RESTART`); the previous actions come back when it is dropped.
pub struct Ends {
    _old: Vec<Previous>,
}

/// Records the ending signals from now on ([`ended`] says which came last).
pub fn catch_ends() -> Ends {
    ENDED.store(0, Ordering::SeqCst);
    let old = Ending::ALL
        .iter()
        .filter(|(_, sig)| !ignored(*sig))
        .filter_map(|&(_, sig)| catch(sig, on_end))
        .collect();
    Ends { _old: old }
}

/// The last ending signal recorded since [`catch_ends`], if any.
pub fn ended() -> Option<Ending> {
    let sig = ENDED.load(Ordering::SeqCst);
    Ending::ALL
        .iter()
        .find(|(_, s)| *s == sig)
        .map(|(ending, _)| *ending)
}

/// A thread of this process, to interrupt its blocking read from another thread.
#[derive(Clone, Copy)]
pub struct Thread(libc::pthread_t);

impl Thread {
    /// The calling thread.
    pub fn current() -> Thread {
        // SAFETY: pthread_self has no preconditions and touches no memory of ours.
        Thread(unsafe { libc::pthread_self() })
    }

    /// Sends `sig` to this thread only. The caller keeps the thread alive and a handler
    /// installed for `sig` (`interrupt_reads`) for as long as it may send it.
    pub fn interrupt(self, sig: c_int) {
        // SAFETY: the thread id came from pthread_self of a thread the caller keeps alive;
        // pthread_kill only sends a signal.
        unsafe {
            libc::pthread_kill(self.0, sig);
        }
    }
}

/// Raises `sig` in this thread: its action runs before this returns (or ends the process).
pub fn raise(sig: c_int) {
    // SAFETY: raise only sends a signal to the calling thread; it touches no memory of ours.
    unsafe {
        libc::raise(sig);
    }
}

/// Lets a write past a file-size limit (`ulimit -f`) fail with an error the store reports,
/// instead of the process being killed by SIGXFSZ. Call before any thread starts.
pub fn ignore_sigxfsz() {
    // SAFETY: sets a signal's action to "ignore", before any other thread exists.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SEEN: AtomicI32 = AtomicI32::new(0);

    extern "C" fn record(sig: c_int) {
        SEEN.store(sig, Ordering::SeqCst);
    }

    fn address(handler: extern "C" fn(c_int)) -> libc::sighandler_t {
        handler as libc::sighandler_t
    }

    fn current(sig: c_int) -> libc::sighandler_t {
        // SAFETY: a query only, as in `ignored`.
        unsafe {
            let mut now: libc::sigaction = MaybeUninit::zeroed().assume_init();
            assert_eq!(libc::sigaction(sig, std::ptr::null(), &mut now), 0);
            now.sa_sigaction
        }
    }

    #[test]
    fn a_caught_signal_runs_the_handler_and_the_previous_action_comes_back() {
        // SIGUSR2: no other test of this process touches it.
        let sig = libc::SIGUSR2;
        let before = current(sig);
        assert!(!ignored(sig));
        {
            let _previous = catch(sig, record).expect("sigaction");
            assert_eq!(current(sig), address(record));
            raise(sig);
            assert_eq!(SEEN.load(Ordering::SeqCst), sig);
            let inner = interrupt_reads(sig).expect("sigaction");
            assert_eq!(current(sig), address(do_nothing));
            drop(inner);
            assert_eq!(current(sig), address(record));
        }
        assert_eq!(current(sig), before);
    }

    #[test]
    fn an_ending_signal_is_recorded_while_caught_and_its_action_comes_back() {
        // SIGHUP: no other test of this process raises it.
        let before = current(libc::SIGHUP);
        {
            let _ends = catch_ends();
            assert_eq!(ended(), None);
            assert_eq!(current(libc::SIGHUP), address(on_end));
            raise(libc::SIGHUP);
            assert_eq!(ended(), Some(Ending::HangUp));
            assert_eq!(Ending::HangUp.name(), "SIGHUP");
        }
        assert_eq!(current(libc::SIGHUP), before);
        // A new catch forgets what the last one recorded.
        let _ends = catch_ends();
        assert_eq!(ended(), None);
    }

    #[test]
    fn sigxfsz_is_ignored() {
        ignore_sigxfsz();
        assert!(ignored(libc::SIGXFSZ));
    }
}
