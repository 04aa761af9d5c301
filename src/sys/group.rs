//! A program we start (a `command:` model, an `--on-suspend` hook, a command tool) runs in its
//! own process group, so that whatever it starts in turn ends with it: at its deadline, or
//! when this process is interrupted (SIGINT, SIGTERM, SIGHUP), the whole group is killed.
//! Without this, a killed program's children (a `sleep 30`, a server) would live on as
//! orphans.
//!
//! While a group runs, those signals are caught (unless they were ignored) and only noted;
//! the waiter kills the group, and the caller then re-raises the signal with its previous
//! action restored ([`reraise`]), so the process ends as it would have. A group started by a
//! process that has died since (a driver killed while its tool ran) is found again by its
//! number and its leader's start time ([`Recorded`]). Nothing here knows what the program is
//! for.

use std::io;
use std::mem::MaybeUninit;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use std::os::unix::process::CommandExt;

/// The signals that interrupt a program we wait for.
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The signal caught while a group ran (0: none).
static CAUGHT: AtomicI32 = AtomicI32::new(0);

extern "C" fn note(sig: libc::c_int) {
    CAUGHT.store(sig, Ordering::SeqCst);
}

/// How a group's leader ended.
#[derive(Debug)]
pub enum End {
    Exited(ExitStatus),
    /// The deadline passed; the group was killed.
    TimedOut,
    /// This process got the signal; the group was killed.
    Interrupted(libc::c_int),
}

/// A started program, leader of its own process group.
pub struct Group {
    child: Child,
    done: bool,
    /// Dropped after `child` is reaped (fields drop in order after `Drop::drop`).
    _caught: Catch,
}

impl Group {
    /// Starts `command` in a new process group, with the interrupting signals caught.
    pub fn spawn(command: &mut Command) -> io::Result<Group> {
        let caught = Catch::install();
        let child = command.process_group(0).spawn()?;
        Ok(Group {
            child,
            done: false,
            _caught: caught,
        })
    }

    /// The child, e.g. to take its pipes.
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// The group as another process can find it again: its number (the leader's pid) and
    /// the leader's start time.
    pub fn recorded(&self) -> Recorded {
        let pgid = self.child.id();
        Recorded {
            pgid,
            leader_start: super::process_start(pgid).unwrap_or(0),
        }
    }

    /// Waits for the leader until `deadline`; past it, or on an interrupting signal, kills
    /// the whole group.
    pub fn wait(&mut self, deadline: Instant) -> io::Result<End> {
        let never = AtomicBool::new(false);
        Ok(self.wait_unless(deadline, &never)?.unwrap_or(End::TimedOut))
    }

    /// `wait`, but also kills the group as soon as `stop` is set (e.g. by a thread that
    /// read too much of its output); `None` then.
    pub fn wait_unless(&mut self, deadline: Instant, stop: &AtomicBool) -> io::Result<Option<End>> {
        loop {
            let sig = CAUGHT.load(Ordering::SeqCst);
            if sig != 0 {
                self.kill();
                return Ok(Some(End::Interrupted(sig)));
            }
            if stop.load(Ordering::SeqCst) {
                self.kill();
                return Ok(None);
            }
            if let Some(status) = self.child.try_wait()? {
                self.done = true;
                return Ok(Some(End::Exited(status)));
            }
            if Instant::now() >= deadline {
                self.kill();
                return Ok(Some(End::TimedOut));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Kills every process of the group and reaps the leader.
    pub fn kill(&mut self) {
        if let Ok(pgid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: kill of the process group we created (the leader is not reaped yet,
            // so its id, which is the group's, cannot have been reused).
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        let _ = self.child.wait();
        self.done = true;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if !self.done {
            self.kill();
        }
    }
}

/// A process group as recorded for another process: its number and its leader's start time
/// (clock ticks after boot; 0 when unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub pgid: u32,
    pub leader_start: u64,
}

impl Recorded {
    /// Whether some process of this very group still runs here. The kernel never gives a
    /// group's number to a new process while the group has members, so a live leader with
    /// another start time means the recorded group is gone; members must not be zombies and
    /// must have started no earlier than the leader.
    pub fn lives(self) -> bool {
        if self.pgid <= 1 {
            return false;
        }
        let leader = stat(self.pgid);
        if let Some(l) = &leader {
            if self.leader_start != 0 && l.start != self.leader_start {
                return false;
            }
        }
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return false;
        };
        dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter_map(stat)
            .any(|p| p.pgrp == self.pgid && !p.zombie && p.start >= self.leader_start)
    }

    /// Kills every process of the group, if it still lives.
    pub fn kill(self) {
        let Ok(pgid) = libc::pid_t::try_from(self.pgid) else {
            return;
        };
        if self.lives() {
            // SAFETY: a signal to a process group that `lives` just found to be the one
            // recorded.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

/// What `/proc/PID/stat` says of a process that matters here.
struct Stat {
    pgrp: u32,
    start: u64,
    zombie: bool,
}

fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces and parentheses): state is
    // field 3, the process group field 5, the start time field 22.
    let rest: Vec<&str> = text[text.rfind(')')? + 1..].split_whitespace().collect();
    Some(Stat {
        zombie: *rest.first()? == "Z",
        pgrp: rest.get(2)?.parse().ok()?,
        start: rest.get(19)?.parse().ok()?,
    })
}

/// Restores the previous actions of the interrupting signals and raises `sig` again, so the
/// process ends as the signal would have ended it. Returns when the previous action does
/// not end the process (a prompt that catches Ctrl-C); the caller then reports the
/// interruption itself.
pub fn reraise(group: Group, sig: libc::c_int) {
    drop(group);
    // SAFETY: raising a signal for this process.
    unsafe {
        libc::raise(sig);
    }
}

/// The interrupting signals caught for the life of a group; restored on drop.
struct Catch {
    old: Vec<(libc::c_int, libc::sigaction)>,
}

impl Catch {
    fn install() -> Catch {
        CAUGHT.store(0, Ordering::SeqCst);
        let mut old = Vec::new();
        for sig in SIGNALS {
            // SAFETY: sigaction with zero-initialised structs; the handler only stores to
            // an atomic, which is async-signal-safe.
            unsafe {
                let mut before: libc::sigaction = MaybeUninit::zeroed().assume_init();
                if libc::sigaction(sig, std::ptr::null(), &mut before) != 0
                    || before.sa_sigaction == libc::SIG_IGN
                {
                    // An ignored signal (e.g. SIGINT under `nohup` or `&`) stays ignored.
                    continue;
                }
                let mut action: libc::sigaction = MaybeUninit::zeroed().assume_init();
                action.sa_sigaction = note as extern "C" fn(libc::c_int) as libc::sighandler_t;
                libc::sigemptyset(&mut action.sa_mask);
                if libc::sigaction(sig, &action, std::ptr::null_mut()) == 0 {
                    old.push((sig, before));
                }
            }
        }
        Catch { old }
    }
}

impl Drop for Catch {
    fn drop(&mut self) {
        for (sig, before) in &self.old {
            // SAFETY: restores an action that sigaction itself returned.
            unsafe {
                libc::sigaction(*sig, before, std::ptr::null_mut());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alive(pid: i32) -> bool {
        // A zombie (reaped later by its new parent) is as good as gone.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                !s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false)
    }

    #[test]
    fn a_timeout_ends_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
        let mut group = Group::spawn(Command::new("sh").arg("-c").arg(&script)).unwrap();
        let start = Instant::now();
        while !pidfile.exists() || std::fs::read_to_string(&pidfile).unwrap().trim().is_empty() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the script never started"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let grandchild: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(alive(grandchild));
        let end = group
            .wait(Instant::now() + Duration::from_millis(100))
            .unwrap();
        assert!(matches!(end, End::TimedOut), "{end:?}");
        let start = Instant::now();
        while alive(grandchild) {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the grandchild lives on"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn a_program_that_ends_is_reported_with_its_status() {
        let mut group = Group::spawn(Command::new("sh").args(["-c", "exit 3"])).unwrap();
        let end = group
            .wait(Instant::now() + Duration::from_secs(10))
            .unwrap();
        assert!(
            matches!(end, End::Exited(s) if s.code() == Some(3)),
            "{end:?}"
        );
    }
}
