//! What the program asks of the operating system about processes, machines and signals:
//! which host this is, whether a process recorded earlier is still the same live process,
//! who the user is, the process groups of the programs we start (`group`), reading what they
//! print (`pipe`) and signal actions (`signals`).
//!
//! The crate denies `unsafe` everywhere but here; calls that rustix, std or whoami make safe
//! are made through them, and what must stay `unsafe` (signal actions) is in `signals` (and
//! a program's death signal, set between fork and exec, in `group`), each block with its
//! reason. Nothing here decides policy (who may drive a run): `agent::lease`
//! does, with these facts.

pub mod group;
pub mod pipe;
pub mod signals;

pub use signals::ignore_sigxfsz;

use std::sync::OnceLock;

use rustix::process::Pid;

/// Sends this process's stderr to /dev/null from now on (a shell completion request: any
/// warning would be printed into the command line being typed). Best effort.
pub fn silence_stderr() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = rustix::stdio::dup2_stderr(&null);
    }
}

/// This machine's identity for leases and waiters (SPEC §4): the machine id
/// (`/etc/machine-id`, else the kernel's boot id), joined with this process's pid namespace,
/// so that two containers on one machine, which share the boot id and often an image's
/// machine id, never take each other's pids for their own. Not the hostname: containers
/// share that too. `MASTRA_ASK_HOST_ID` overrides it (tests simulate other hosts with it;
/// a fleet with cloned machine ids can set it per machine).
pub fn host_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        if let Some(id) = std::env::var("MASTRA_ASK_HOST_ID")
            .ok()
            .filter(|s| !s.trim().is_empty())
        {
            return id.trim().to_string();
        }
        let machine = ["/etc/machine-id", "/proc/sys/kernel/random/boot_id"]
            .iter()
            .find_map(|p| {
                std::fs::read_to_string(p)
                    .ok()
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
            })
            .unwrap_or_else(hostname);
        match pid_namespace() {
            Some(ns) => format!("{machine}/{ns}"),
            None => machine,
        }
    })
}

/// The inode of this process's pid namespace (`/proc/self/ns/pid` is `pid:[4026531836]`).
fn pid_namespace() -> Option<String> {
    let link = std::fs::read_link("/proc/self/ns/pid").ok()?;
    let s = link.to_string_lossy();
    let inner = s.strip_prefix("pid:[")?.strip_suffix(']')?;
    Some(inner.to_string())
}

/// The host name, for messages only (never for identity).
pub fn hostname() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// A process as recorded in a lease or a waiter row: its pid and its start time (clock ticks
/// after boot, `/proc/PID/stat` field 22), since pids are reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Process {
    pub pid: u32,
    /// 0 when unknown (then only the pid is checked).
    pub start: u64,
}

impl Process {
    /// This process.
    pub fn me() -> Process {
        static START: OnceLock<u64> = OnceLock::new();
        let pid = std::process::id();
        Process {
            pid,
            start: *START.get_or_init(|| process_start(pid).unwrap_or(0)),
        }
    }

    /// Whether this very process still runs on this host: the pid exists and, when the start
    /// time is known, it is the same process (not a later one given the same pid).
    pub fn is_alive(self) -> bool {
        if !pid_exists(self.pid) {
            return false;
        }
        self.start == 0 || process_start(self.pid).is_none_or(|s| s == self.start)
    }
}

/// The start time of process `pid` in clock ticks after boot, from `/proc/PID/stat`.
pub fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces or parentheses, so
    // count fields after its last ')': that is field 3, and the start time is field 22.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether a process with this pid exists here (signal 0; EPERM means it exists).
fn pid_exists(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

/// Whether process group `pgid` has a process here, zombies included (signal 0 to the group).
/// Only "no such process" says no: one it may not signal (another user's) is there.
pub(crate) fn group_exists(pgid: u32) -> bool {
    let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) else {
        return true;
    };
    rustix::process::test_kill_process_group(pid) != Err(rustix::io::Errno::SRCH)
}

/// The login name of the user running this process: `$USER`, `$LOGNAME`, else the password
/// database (for the effective user id), else `unknown`.
pub fn login_name() -> String {
    ["USER", "LOGNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
        .or_else(|| Some(passwd_name()?.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "unknown".into())
}

/// The password database's name for the effective user id, looked up once a process (a
/// leg asks at its start and at each decision; the effective uid does not change).
fn passwd_name() -> Option<&'static std::ffi::OsStr> {
    static NAME: std::sync::OnceLock<Option<std::ffi::OsString>> = std::sync::OnceLock::new();
    NAME.get_or_init(|| whoami::username_os().ok()).as_deref()
}

/// The effective user id of this process.
pub fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// The name of the effective user, from the password database (never `$USER`, which anyone
/// can set): the identity a policy checks on this machine (SPEC §14). `uid N` when the
/// database has no entry for it, or one that is not UTF-8 (never a lossy copy that could
/// read as another user's name).
pub fn effective_user() -> String {
    match passwd_name().and_then(|n| n.to_str()) {
        Some(name) => name.to_string(),
        None => format!("uid {}", euid()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_different_start_is_not() {
        let me = Process::me();
        assert!(me.start > 0, "start time read from /proc");
        assert!(me.is_alive());
        assert!(!Process {
            pid: me.pid,
            start: me.start + 1
        }
        .is_alive());
        assert!(!Process { pid: 0, start: 0 }.is_alive());
    }

    #[test]
    fn pids_that_cannot_be_alive_are_not_and_init_is() {
        assert!(Process { pid: 1, start: 0 }.is_alive(), "pid 1 exists");
        // Above the kernel's largest pid_max (2^22), and above i32::MAX.
        assert!(!Process {
            pid: 1 << 23,
            start: 0
        }
        .is_alive());
        assert!(!Process {
            pid: u32::MAX,
            start: 0
        }
        .is_alive());
    }

    #[test]
    fn the_host_name_and_the_user_id_agree_with_proc() {
        let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
        assert_eq!(hostname(), name.trim_end());
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let uids = status.lines().find_map(|l| l.strip_prefix("Uid:")).unwrap();
        let effective: u32 = uids.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert_eq!(euid(), effective);
        // The password database's name for the effective uid, whatever $USER says.
        let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
        let name = passwd
            .lines()
            .map(|l| l.split(':').collect::<Vec<_>>())
            .find(|f| f.len() > 2 && f[2] == effective.to_string())
            .map(|f| f[0].to_string());
        if let Some(name) = name {
            assert_eq!(effective_user(), name);
        }
    }

    #[test]
    fn host_id_names_the_pid_namespace() {
        if std::env::var_os("MASTRA_ASK_HOST_ID").is_none() {
            assert!(host_id().contains('/'), "{}", host_id());
        }
    }
}
