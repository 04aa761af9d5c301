//! The real binary in a pseudo-terminal, for the prompt tests: spawned with expectrl, its
//! output collected by a reader thread (no busy polling: these tests share a 2-core CI
//! machine with the rest of the suite), keys written to the terminal, and waits bounded by
//! generous timeouts that fail with the screen so far.

use std::fs::File;
use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use expectrl::process::unix::WaitStatus;
use expectrl::session::OsSession;

use crate::common::{printed, try_poll, Env};

/// How long any one wait may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(60);

pub const DOWN: &str = "\x1b[B";
pub const ENTER: &str = "\r";
pub const ESC: &str = "\x1b";
pub const CTRL_C: &str = "\x03";

#[derive(Default)]
struct Screen {
    bytes: Vec<u8>,
    closed: bool,
}

pub struct Pty {
    session: OsSession,
    keys: File,
    screen: Arc<(Mutex<Screen>, Condvar)>,
    /// How much of the output earlier `expect`s consumed.
    seen: usize,
}

impl Pty {
    /// Runs `mastra-ask ARGS` in a terminal, in `env`, with `vars` added to its environment.
    pub fn spawn(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> Pty {
        let mut command = env.command(args);
        command
            .stdin(Stdio::inherit())
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit())
            .env("TERM", "xterm");
        for (k, v) in vars {
            command.env(k, v);
        }
        Pty::from_command(command)
    }

    /// Runs a prepared command in a terminal; its stdio streams not set to something else
    /// are the terminal.
    pub fn from_command(command: std::process::Command) -> Pty {
        let session = OsSession::spawn(command).expect("spawning in a pseudo-terminal");
        let mut output = session.get_process().get_raw_handle().unwrap();
        let keys = session.get_process().get_raw_handle().unwrap();
        let screen = Arc::new((Mutex::new(Screen::default()), Condvar::new()));
        let shared = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                let read = output.read(&mut buf);
                let (lock, changed) = &*shared;
                let mut s = lock.lock().unwrap();
                match read {
                    Ok(n) if n > 0 => s.bytes.extend_from_slice(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        drop(s);
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    }
                    // EOF, or EIO once the program and its children closed the terminal.
                    _ => s.closed = true,
                }
                changed.notify_all();
                if s.closed {
                    return;
                }
            }
        });
        Pty {
            session,
            keys,
            screen,
            seen: 0,
        }
    }

    /// Waits until `text` appears after what earlier calls matched.
    #[track_caller]
    pub fn expect(&mut self, text: &str) {
        let (lock, changed) = &*self.screen;
        let deadline = Instant::now() + PATIENCE;
        let mut s = lock.lock().unwrap();
        loop {
            // As `common::printed` shows it (offsets before `seen` never move: a flag is
            // taken out only once its token is whole, after what was matched).
            let shown = printed(&s.bytes);
            if let Some(at) = shown.get(self.seen..).and_then(|rest| rest.find(text)) {
                self.seen += at + text.len();
                return;
            }
            let now = Instant::now();
            if s.closed || now >= deadline {
                panic!(
                    "{text:?} never appeared ({}); the terminal showed:\n{}",
                    if s.closed {
                        "terminal closed"
                    } else {
                        "timed out"
                    },
                    String::from_utf8_lossy(&s.bytes)
                );
            }
            s = changed.wait_timeout(s, deadline - now).unwrap().0;
        }
    }

    /// A dialogue as a person has it: for each step, waits for its text, then types its keys
    /// (nothing when they are empty).
    #[track_caller]
    pub fn dialog(&mut self, steps: &[(&str, &str)]) {
        for (text, keys) in steps {
            self.expect(text);
            if !keys.is_empty() {
                self.send(keys);
            }
        }
    }

    /// Waits for the program's end and fails unless it exited `code`; what the terminal showed.
    #[track_caller]
    pub fn ends(&self, code: i32) -> String {
        let (exited, shown) = self.finish();
        assert_eq!(exited, code, "exit code; the terminal showed:\n{shown}");
        shown
    }

    /// Types `keys`.
    pub fn send(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    /// Whether the terminal's signal keys (Ctrl-C as SIGINT) are on, as a shell needs them.
    pub fn signal_keys_on(&self) -> bool {
        use std::os::fd::AsRawFd;
        let mut t = std::mem::MaybeUninit::<libc::termios>::uninit();
        // SAFETY: tcgetattr fills the struct when it returns 0.
        unsafe {
            assert_eq!(libc::tcgetattr(self.keys.as_raw_fd(), t.as_mut_ptr()), 0);
            t.assume_init().c_lflag & libc::ISIG != 0
        }
    }

    /// Waits for the program to end; its exit code and everything it showed.
    #[track_caller]
    pub fn finish(&self) -> (i32, String) {
        let code = try_poll(PATIENCE, || match self.session.get_process().status() {
            Ok(WaitStatus::Exited(_, code)) => Some(code),
            Ok(WaitStatus::Signaled(_, signal, _)) => Some(-(signal as i32)),
            Ok(_) => None,
            Err(e) => panic!(
                "the program's status: {e}; the terminal showed:\n{}",
                self.text()
            ),
        })
        .unwrap_or_else(|| {
            panic!(
                "the program did not end within {PATIENCE:?}; the terminal showed:\n{}",
                self.text()
            )
        });
        let deadline = Instant::now() + PATIENCE;
        let (lock, changed) = &*self.screen;
        let mut s = lock.lock().unwrap();
        while !s.closed && Instant::now() < deadline {
            s = changed
                .wait_timeout(s, Duration::from_millis(200))
                .unwrap()
                .0;
        }
        (code, printed(&s.bytes))
    }

    /// Everything shown so far.
    pub fn text(&self) -> String {
        printed(&self.screen.0.lock().unwrap().bytes)
    }
}
