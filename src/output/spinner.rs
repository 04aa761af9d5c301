//! A spinner on stderr while a model thinks, so a person at a terminal sees that something
//! is happening before the first token arrives.
//!
//! Only on a terminal, never in a pipe or a log; it draws on its own thread and is gone
//! (line cleared) before anything else is printed. It knows nothing of models.
//!
//! Not indicatif: its spinner draws at once, and nothing must be drawn for an answer faster
//! than `DELAY`; keeping that would take a timer thread of our own, which is most of this
//! file already.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use console::Term;

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// Nothing is drawn for an answer faster than this.
const DELAY: Duration = Duration::from_millis(200);
const TICK: Duration = Duration::from_millis(80);

pub struct Spinner {
    running: Option<(Sender<()>, JoinHandle<()>)>,
}

impl Spinner {
    /// Starts a spinner with `label` when stderr is a terminal; else does nothing.
    pub fn start(label: &str) -> Spinner {
        let term = Term::stderr();
        if !term.is_term() {
            return Spinner { running: None };
        }
        let label = super::sanitize::one_line(label);
        let (tx, rx) = mpsc::channel::<()>();
        let handle = std::thread::spawn(move || {
            if rx.recv_timeout(DELAY) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            let mut drawn = false;
            for frame in FRAMES.iter().cycle() {
                drawn = term.write_str(&format!("\r{frame} {label}")).is_ok() || drawn;
                if rx.recv_timeout(TICK) != Err(RecvTimeoutError::Timeout) {
                    break;
                }
            }
            if drawn {
                let _ = term.clear_line();
            }
        });
        Spinner {
            running: Some((tx, handle)),
        }
    }

    /// Stops the spinner and clears its line; again is a no-op.
    pub fn stop(&mut self) {
        if let Some((tx, handle)) = self.running.take() {
            let _ = tx.send(());
            let _ = handle.join();
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopping_is_idempotent_off_a_terminal() {
        let mut s = Spinner::start("thinking");
        s.stop();
        s.stop();
    }
}
