//! Reading what a program we started prints (a command tool, a `command:` model), on a
//! thread per pipe, so that what it printed before its own process exited is never lost:
//! once the waiter says the wait is over ([`Ended`]: the leader exited, or the group was
//! ended), a reader takes what is left in the pipe and stops at its end, or as soon as the
//! pipe is empty `PIPE_GRACE` after that (a daemon that escaped the process group with
//! `setsid` may hold the pipe open for ever), and at most `PIPE_GRACE_MAX` after it (one that
//! never stops writing). Everything the program wrote before it exited is in the pipe by
//! then, ahead of anything written later, so it is read. Nothing here knows what the
//! program is for, and nothing is waited for without a bound.

use std::io::{self, Read};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::io::Errno;

use crate::limits::{PIPE_GRACE, PIPE_GRACE_MAX};

/// How often a reader looks again at the waiter's word while its pipe is silent.
const TICK: Timespec = Timespec {
    tv_sec: 0,
    tv_nsec: 20_000_000,
};

/// When the wait for a program ended: set once by the waiter, read by its pipes' readers.
#[derive(Clone, Debug, Default)]
pub struct Ended(Arc<OnceLock<Instant>>);

impl Ended {
    /// The wait is over (the leader exited and what it left in its group was ended, or the
    /// group was killed).
    pub fn now(&self) {
        let _ = self.0.set(Instant::now());
    }

    fn since(&self) -> Option<Duration> {
        self.0.get().map(Instant::elapsed)
    }
}

/// What a reader keeps of a pipe.
pub enum Keep {
    /// The first `cap` bytes; more sets the flag (when given) and keeps nothing.
    Head {
        cap: u64,
        too_much: Option<Arc<AtomicBool>>,
    },
    /// The last this many bytes, cut to whole lines where it can.
    Tail(usize),
}

/// A pipe being read on a thread of its own.
pub struct Captured {
    rx: Receiver<Vec<u8>>,
    ended: Ended,
}

/// Starts reading `pipe` (none: nothing to read) until the rules above stop it.
pub fn capture<P>(pipe: Option<P>, keep: Keep, ended: &Ended) -> Captured
where
    P: Read + AsFd + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let seen = ended.clone();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        if let Some(p) = pipe {
            read(p, &keep, &seen, &mut kept);
        }
        if let Keep::Tail(n) = keep {
            cut_tail(&mut kept, n);
        }
        let _ = tx.send(kept);
    });
    Captured {
        rx,
        ended: ended.clone(),
    }
}

impl Captured {
    /// What was read. Call once the wait is over (`Ended::now`): the reader then stops within
    /// `PIPE_GRACE_MAX`; `None` only when it did not (a system too loaded to run it).
    pub fn bytes(self) -> Option<Vec<u8>> {
        // Never wait here for a wait that was not declared over.
        self.ended.now();
        self.rx
            .recv_timeout(PIPE_GRACE_MAX + Duration::from_secs(10))
            .ok()
    }
}

fn read(mut pipe: impl Read + AsFd, keep: &Keep, ended: &Ended, kept: &mut Vec<u8>) {
    let mut buf = [0u8; 8192];
    loop {
        if ended.since().is_some_and(|s| s >= PIPE_GRACE_MAX) {
            return;
        }
        let mut fds = [PollFd::new(&pipe, PollFlags::IN)];
        match poll(&mut fds, Some(&TICK)) {
            // Silent: stop once the wait has been over for the grace.
            Ok(0) if ended.since().is_some_and(|s| s >= PIPE_GRACE) => return,
            Ok(0) | Err(Errno::INTR) => continue,
            Ok(_) => {}
            Err(_) => return,
        }
        let n = match pipe.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        kept.extend_from_slice(&buf[..n]);
        match keep {
            Keep::Head { cap, too_much } if kept.len() as u64 > *cap => {
                if let Some(flag) = too_much {
                    flag.store(true, Ordering::SeqCst);
                }
                kept.clear();
                return;
            }
            // Bounded as it goes; cut to its last `n` (at a line) once read.
            Keep::Tail(n) if kept.len() > 4 * n => {
                kept.drain(..kept.len() - 2 * n);
            }
            _ => {}
        }
    }
}

/// Keeps the last `n` bytes, from the start of a line where one starts in them.
fn cut_tail(kept: &mut Vec<u8>, n: usize) {
    if kept.len() > n {
        kept.drain(..kept.len() - n);
        if let Some(nl) = kept.iter().position(|&b| b == b'\n') {
            kept.drain(..=nl);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    fn head() -> Keep {
        Keep::Head {
            cap: 1 << 20,
            too_much: None,
        }
    }

    #[test]
    fn what_was_printed_is_kept_though_a_daemon_holds_the_pipe() {
        let dir = tempfile::tempdir().unwrap();
        let pid = dir.path().join("pid");
        let script = format!(
            "echo printed; setsid sleep 30 & echo $! > {}; exit 0",
            pid.display()
        );
        let mut child = Command::new("sh")
            .args(["-c", &script])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let ended = Ended::default();
        let out = capture(child.stdout.take(), head(), &ended);
        child.wait().unwrap();
        let start = Instant::now();
        ended.now();
        assert_eq!(out.bytes().unwrap(), b"printed\n");
        assert!(start.elapsed() < Duration::from_secs(5));
        if let Ok(p) = std::fs::read_to_string(&pid) {
            let _ = Command::new("kill").arg(p.trim()).status();
        }
    }

    #[test]
    fn a_tail_keeps_whole_last_lines_and_a_head_past_its_cap_nothing() {
        let mut child = Command::new("sh")
            .args(["-c", "for i in 1 2 3 4 5 6 7 8 9; do echo line$i; done"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let ended = Ended::default();
        let out = capture(child.stdout.take(), Keep::Tail(14), &ended);
        child.wait().unwrap();
        assert_eq!(out.bytes().unwrap(), b"line8\nline9\n");

        let flag = Arc::new(AtomicBool::new(false));
        let mut child = Command::new("sh")
            .args(["-c", "echo 0123456789"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let keep = Keep::Head {
            cap: 5,
            too_much: Some(flag.clone()),
        };
        let out = capture(child.stdout.take(), keep, &ended);
        child.wait().unwrap();
        assert_eq!(out.bytes().unwrap(), b"");
        assert!(flag.load(Ordering::SeqCst));
    }
}
