//! Noticing, while a prompt is open, that its item was decided by another process (SPEC
//! §5.2: the prompt is left within a second). A thread with a connection of its own to the
//! store looks at the item every 250 ms; once it is no longer pending, it interrupts the
//! prompting thread's blocking read of the terminal with SIGUSR1, caught without
//! `SA_RESTART` (console then returns an interrupted read, which the prompt takes as being
//! left), and again every 100 ms until the prompt has returned (a signal that lands between
//! two reads interrupts nothing). The loop then asks the place what was decided
//! (`Place::decided_meanwhile`) and goes on as that decision requires.
//!
//! Why a thread and a signal rather than reading keys here: the prompts are dialoguer's,
//! which block in `read`; a signal is the one way to end that read without typing into the
//! terminal (keys are never injected). Nothing here prints, decides or touches the
//! terminal; the SIGUSR1 action is put back only after the thread has stopped, so no
//! signal can arrive without its handler.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::domain::CallRecord;
use crate::store::{self, Location};
use crate::sys::signals::{self, Previous, Thread};

/// How often the item is looked at while the prompt is open.
const LOOK: Duration = Duration::from_millis(250);
/// How often the prompting thread is interrupted once the item was decided.
const NUDGE: Duration = Duration::from_millis(100);
const SIGNAL: libc::c_int = libc::SIGUSR1;

/// Watches one item while its prompt is open; stops when dropped.
pub struct Noticing {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
    /// SIGUSR1's action before; put back after the thread stopped (fields drop after
    /// `Drop::drop`).
    _action: Previous,
}

impl Noticing {
    /// Starts watching `call` of the store at `location` for the calling (prompting)
    /// thread; `None` when no thread or signal action could be had (the prompt then only
    /// learns of a decision when it returns).
    pub fn start(location: &Location, call: &CallRecord) -> Option<Noticing> {
        let action = signals::interrupt_reads(SIGNAL)?;
        let prompting = Thread::current();
        let (location, call) = (location.clone(), call.clone());
        let (tx, rx) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .spawn(move || {
                let mut conn = None;
                let mut decided = false;
                loop {
                    match rx.recv_timeout(if decided { NUDGE } else { LOOK }) {
                        Err(RecvTimeoutError::Timeout) => {}
                        _ => return,
                    }
                    if !decided {
                        if conn.is_none() {
                            conn = store::open(&location, store::Access::Existing)
                                .ok()
                                .flatten();
                        }
                        let Some(s) = &conn else { continue };
                        decided = super::prompt::decided_meanwhile(s.as_ref(), &call)
                            .is_ok_and(|d| d.is_some());
                    }
                    if decided {
                        prompting.interrupt(SIGNAL);
                    }
                }
            })
            .ok()?;
        Some(Noticing {
            stop: Some(tx),
            thread: Some(thread),
            _action: action,
        })
    }
}

impl Drop for Noticing {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
