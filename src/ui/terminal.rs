//! Holds the terminal while a prompt owns it, so that every way out leaves it as it was.
//!
//! During a prompt, Ctrl-C must end the prompt ("nothing recorded", exit 130), not kill the
//! process halfway through drawing a menu with the cursor hidden. So a hold on the terminal turns
//! the terminal's signal keys off (Ctrl-C then arrives as a key, which the prompt library
//! reports as an interrupted read, whenever it is pressed) and catches the SIGINT that the
//! prompt library raises for it. Dropping the hold restores the terminal modes, the
//! previous SIGINT action and the cursor. Children that take the terminal (a pager, an editor)
//! get its usual modes back while they run. Modes go through rustix and the SIGINT action
//! through `sys::signals`, so nothing here is `unsafe`. This module decides nothing about
//! the run.

use rustix::termios::{tcgetattr, tcsetattr, LocalModes, OptionalActions, Termios};

use crate::sys::signals::{self, Previous};

/// The terminal and SIGINT set up for prompting; restored on drop.
pub struct Hold {
    /// The terminal modes of stdin before the hold (None when stdin is not a terminal).
    saved: Option<Termios>,
    /// The SIGINT action before the hold, put back when dropped.
    old_action: Option<Previous>,
}

impl Hold {
    pub fn start() -> Hold {
        // A caught SIGINT interrupts the prompt's read instead of ending the process.
        let old_action = signals::interrupt_reads(libc::SIGINT);
        let saved = modes();
        if let Some(saved) = &saved {
            let mut quiet = saved.clone();
            quiet.local_modes.remove(LocalModes::ISIG);
            set_modes(&quiet);
        }
        Hold { saved, old_action }
    }

    /// Runs `f` (which starts a pager or an editor) with the terminal's usual modes.
    pub fn with_child<T>(&self, f: impl FnOnce() -> T) -> T {
        let Some(saved) = &self.saved else {
            return f();
        };
        let during = modes();
        set_modes(saved);
        let result = f();
        if let Some(during) = during {
            set_modes(&during);
        }
        result
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            set_modes(saved);
        }
        drop(self.old_action.take());
        let _ = console::Term::stderr().show_cursor();
    }
}

fn modes() -> Option<Termios> {
    tcgetattr(std::io::stdin()).ok()
}

fn set_modes(t: &Termios) {
    let _ = tcsetattr(std::io::stdin(), OptionalActions::Now, t);
}
