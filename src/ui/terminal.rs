//! Holds the terminal while a prompt owns it, so that every way out leaves it as it was.
//!
//! During a prompt, Ctrl-C must end the prompt ("nothing recorded", exit 130), not kill the
//! process halfway through drawing a menu with the cursor hidden. So a prompt session turns
//! the terminal's signal keys off (Ctrl-C then arrives as a key, which the prompt library
//! reports as an interrupted read, whenever it is pressed) and catches the SIGINT that the
//! prompt library raises for it. Dropping the session restores the terminal modes, the
//! previous SIGINT action and the cursor. Children that take the terminal (a pager, an editor)
//! get its usual modes back while they run. This module decides nothing about the run.

use std::mem::MaybeUninit;

/// The terminal and SIGINT set up for prompting; restored on drop.
pub struct Session {
    /// The terminal modes of stdin before the session (None when stdin is not a terminal).
    saved: Option<libc::termios>,
    /// The SIGINT action before the session.
    old_action: Option<libc::sigaction>,
}

extern "C" fn ignore_sigint(_: libc::c_int) {}

impl Session {
    pub fn start() -> Session {
        let old_action = catch_sigint();
        let saved = modes();
        if let Some(saved) = saved {
            let mut quiet = saved;
            quiet.c_lflag &= !libc::ISIG;
            set_modes(&quiet);
        }
        Session { saved, old_action }
    }

    /// Runs `f` (which starts a pager or an editor) with the terminal's usual modes.
    pub fn with_child<T>(&self, f: impl FnOnce() -> T) -> T {
        let Some(saved) = self.saved else {
            return f();
        };
        let during = modes();
        set_modes(&saved);
        let result = f();
        if let Some(during) = during {
            set_modes(&during);
        }
        result
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            set_modes(saved);
        }
        if let Some(old) = &self.old_action {
            // SAFETY: restores an action that sigaction itself returned.
            unsafe {
                libc::sigaction(libc::SIGINT, old, std::ptr::null_mut());
            }
        }
        let _ = console::Term::stderr().show_cursor();
    }
}

/// Installs a handler that does nothing, so a SIGINT interrupts a read instead of ending the
/// process (a caught signal, unlike an ignored one, is reset for any program we start).
fn catch_sigint() -> Option<libc::sigaction> {
    // SAFETY: plain sigaction calls with zero-initialised structs; the handler is
    // async-signal-safe (it does nothing).
    unsafe {
        let mut action: libc::sigaction = MaybeUninit::zeroed().assume_init();
        action.sa_sigaction = ignore_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        let mut old: libc::sigaction = MaybeUninit::zeroed().assume_init();
        (libc::sigaction(libc::SIGINT, &action, &mut old) == 0).then_some(old)
    }
}

fn modes() -> Option<libc::termios> {
    let mut t = MaybeUninit::<libc::termios>::uninit();
    // SAFETY: tcgetattr fills the struct when it returns 0.
    unsafe { (libc::tcgetattr(libc::STDIN_FILENO, t.as_mut_ptr()) == 0).then(|| t.assume_init()) }
}

fn set_modes(t: &libc::termios) {
    // SAFETY: t is a termios that tcgetattr returned, maybe with flags cleared.
    unsafe {
        libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, t);
    }
}
