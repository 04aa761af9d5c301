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
//! number and its leader's start time ([`Recorded`]). Signals go to the group through
//! rustix; the actions are changed through `signals`. Nothing here knows what the program is
//! for.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use rustix::process::{kill_process_group, Pid, Signal};

use super::signals::{self, Previous};

/// The signals that interrupt a program we wait for.
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The signal caught while a group ran (0: none).
static CAUGHT: AtomicI32 = AtomicI32::new(0);

/// The handler while a group runs: only a store to an atomic (async-signal-safe).
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
    /// The previous signal actions, put back after `child` is reaped (fields drop in
    /// order after `Drop::drop`).
    _caught: Vec<Previous>,
}

impl Group {
    /// Starts `command` in a new process group, with the interrupting signals caught.
    pub fn spawn(command: &mut Command) -> io::Result<Group> {
        let caught = catch_interrupts();
        let child = command.process_group(0).spawn()?;
        Ok(Group {
            child,
            done: false,
            _caught: caught,
        })
    }

    /// Starts `command` in a new process group tied to the calling thread: its first process
    /// gets SIGTERM when the thread (or the whole process, even SIGKILLed) ends
    /// (`PR_SET_PDEATHSIG`); a first process that traps it can end the whole group. The
    /// signals are left to the caller (a server that handles them itself, running several
    /// groups at once from threads that live as long as it does).
    pub fn spawn_tied(command: &mut Command) -> io::Result<Group> {
        let parent = rustix::process::getpid();
        // SAFETY: the closure runs in the child between fork and exec, and makes two system
        // calls (prctl, getppid), which allocate nothing and take no lock.
        #[allow(unsafe_code)]
        unsafe {
            command.pre_exec(move || {
                rustix::process::set_parent_process_death_signal(Some(Signal::TERM))?;
                // A parent that ended before the signal was set would never send it (and
                // nothing here may allocate: no message).
                if rustix::process::getppid() != Some(parent) {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
        let child = command.process_group(0).spawn()?;
        Ok(Group {
            child,
            done: false,
            _caught: Vec::new(),
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
        // The group we created: its leader is not reaped yet, so its id, which is the
        // group's, cannot have been reused.
        let _ = kill_process_group(Pid::from_child(&self.child), Signal::KILL);
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
        // A group with no process at all (the usual case: the tool ended) is told by one
        // system call; only one with members is looked at process by process, which reads
        // every process's `/proc/PID/stat` (thousands on a busy host).
        if !super::group_exists(self.pgid) {
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
        let Some(pgid) = i32::try_from(self.pgid).ok().and_then(Pid::from_raw) else {
            return;
        };
        // Only a group that `lives` just found to be the one recorded.
        if self.lives() {
            let _ = kill_process_group(pgid, Signal::KILL);
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
    signals::raise(sig);
}

/// Catches the interrupting signals for the life of a group; their previous actions come
/// back when the returned list is dropped.
fn catch_interrupts() -> Vec<Previous> {
    CAUGHT.store(0, Ordering::SeqCst);
    SIGNALS
        .into_iter()
        // An ignored signal (e.g. SIGINT under `nohup` or `&`) stays ignored.
        .filter(|&sig| !signals::ignored(sig))
        .filter_map(|sig| signals::catch(sig, note))
        .collect()
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
    fn a_recorded_group_lives_while_a_process_of_it_runs() {
        // The leader ends at once; the sleep it started stays in its group.
        let mut group = Group::spawn(Command::new("sh").args(["-c", "sleep 30 & exit 0"])).unwrap();
        let recorded = group.recorded();
        assert!(recorded.leader_start > 0);
        let end = group
            .wait(Instant::now() + Duration::from_secs(10))
            .unwrap();
        assert!(matches!(end, End::Exited(_)), "{end:?}");
        assert!(recorded.lives(), "the leader is gone, its child is not");
        // A later group of the same number: its leader started long after this sleep (a
        // start one tick later could be the sleep's own).
        let other = Recorded {
            leader_start: recorded.leader_start + 1_000_000,
            ..recorded
        };
        assert!(!other.lives());
        recorded.kill();
        let start = Instant::now();
        while recorded.lives() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the group lives on"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // (The killed child may stay a zombie: the group is not empty, and it is not alive.)
        // A group whose only process was reaped has none left: told without reading /proc.
        let mut ended = Group::spawn(Command::new("sh").args(["-c", "exit 0"])).unwrap();
        let recorded = ended.recorded();
        ended
            .wait(Instant::now() + Duration::from_secs(10))
            .unwrap();
        assert!(!crate::sys::group_exists(recorded.pgid));
        assert!(!recorded.lives());
    }

    #[test]
    fn a_tied_group_ends_with_the_thread_that_started_it() {
        let pid = std::thread::spawn(|| {
            let mut group = Group::spawn_tied(Command::new("sleep").arg("30")).unwrap();
            let pid = group.child().id() as i32;
            // Neither killed nor waited for here: only the thread's end ends it.
            std::mem::forget(group);
            pid
        })
        .join()
        .unwrap();
        let start = Instant::now();
        while alive(pid) {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the program outlived its thread"
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
