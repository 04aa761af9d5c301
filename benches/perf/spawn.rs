//! Measuring one process of the real binary: wall time, CPU time (user and system), page
//! faults and peak RSS, as the kernel reports them for the reaped child (`wait4`).
//!
//! The peak RSS the kernel reports for a child counts the address space the child was
//! spawned from, so a bench that grew (seeding a store) would inflate every figure. The
//! bench therefore never spawns a measured command itself: it re-executes its own small
//! binary as a helper (`--spawn`), which starts the command, reaps it with `wait4` and
//! prints `wall_ns peak_rss_kib exit_code`. The helper's own start-up is not in the figure.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One measured process.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub wall: Duration,
    pub rss_kib: u64,
    pub code: i32,
    /// User plus system time of the process (all its threads).
    pub cpu: Duration,
    /// Page faults, minor and major.
    pub faults: u64,
}

/// The helper mode: `--spawn STDERR_FILE PROGRAM ARGS...`. Never returns.
pub fn helper(args: &[OsString]) -> ! {
    report_and_exit(measure_here(args))
}

/// Prints a helper's sample as `measure_helper` reads it, and exits.
pub fn report_and_exit(sample: std::io::Result<Sample>) -> ! {
    let code = match sample {
        Ok(s) => {
            println!(
                "{} {} {} {} {}",
                s.wall.as_nanos(),
                s.rss_kib,
                s.code,
                s.cpu.as_nanos(),
                s.faults
            );
            0
        }
        Err(e) => {
            eprintln!("bench helper: {e}");
            1
        }
    };
    std::process::exit(code)
}

fn measure_here(args: &[OsString]) -> std::io::Result<Sample> {
    let [stderr, program, rest @ ..] = args else {
        return Err(std::io::Error::other(
            "usage: --spawn STDERR PROGRAM ARGS...",
        ));
    };
    let stderr = File::create(stderr)?;
    let start = Instant::now();
    let child = Command::new(program)
        .args(rest)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()?;
    let (code, usage) = wait4(child.id())?;
    Ok(sample(start.elapsed(), code, &usage))
}

/// A sample of a reaped process.
pub fn sample(wall: Duration, code: i32, usage: &libc::rusage) -> Sample {
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    Sample {
        wall,
        rss_kib: usage.ru_maxrss.max(0) as u64,
        code,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        faults: (usage.ru_minflt.max(0) + usage.ru_majflt.max(0)) as u64,
    }
}

/// Reaps `pid`: its exit code (128 + signal when killed) and what it used.
pub fn wait4(pid: u32) -> std::io::Result<(i32, libc::rusage)> {
    let pid = pid as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is our own child; status and usage point to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    Ok((code, usage))
}

/// Runs the product binary in one directory with one store and a clean environment.
pub struct Runner {
    pub bin: PathBuf,
    /// The store, as `MASTRA_ASK_DB` names it: a SQLite file in the directory, or the URL
    /// of a PostgreSQL database (`with_store`).
    pub store: OsString,
    pub cwd: PathBuf,
    pub home: PathBuf,
    stderr: PathBuf,
}

impl Runner {
    pub fn new(bin: &Path, dir: &Path) -> std::io::Result<Runner> {
        let cwd = dir.join("work");
        let home = dir.join("home");
        std::fs::create_dir_all(&cwd)?;
        std::fs::create_dir_all(&home)?;
        Ok(Runner {
            bin: bin.to_path_buf(),
            store: dir.join("store.db").into_os_string(),
            cwd,
            home,
            stderr: dir.join("stderr.txt"),
        })
    }

    /// The same runner on another store (a PostgreSQL database's URL).
    pub fn with_store(self, store: impl Into<OsString>) -> Runner {
        Runner {
            store: store.into(),
            ..self
        }
    }

    fn env(&self, c: &mut Command) {
        c.env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("MASTRA_ASK_DB", &self.store)
            .env("USER", "bench")
            .env("NO_COLOR", "1")
            .current_dir(&self.cwd);
    }

    /// `c` with the environment every measured command gets.
    pub fn with_env(&self, mut c: Command) -> Command {
        c.stdin(Stdio::null());
        self.env(&mut c);
        c
    }

    /// A command of the product, for callers that want its output.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.args(args).stdin(Stdio::null());
        self.env(&mut c);
        c
    }

    /// Runs `args` through the helper and measures it; `expect` is the exit code it must
    /// end with.
    pub fn measure(&self, args: &[&str], expect: i32) -> Result<Sample, String> {
        self.measure_program(&self.bin, args, expect)
    }

    /// Like `measure`, for any program (e.g. `/bin/true`, the cost of any process here).
    pub fn measure_program(
        &self,
        program: &Path,
        args: &[&str],
        expect: i32,
    ) -> Result<Sample, String> {
        let mut helper: Vec<OsString> = vec!["--spawn".into(), self.stderr.clone().into()];
        helper.push(program.into());
        helper.extend(args.iter().map(OsString::from));
        let what = format!("{} {}", program.display(), args.join(" "));
        self.measure_helper(&helper, what.trim_end(), expect)
    }

    /// Runs the bench's own binary as a helper with `args` (a mode and its arguments),
    /// which measures one process and prints `Sample`'s fields; `what` names it in errors.
    pub fn measure_helper(
        &self,
        args: &[OsString],
        what: &str,
        expect: i32,
    ) -> Result<Sample, String> {
        let me = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut c = Command::new(me);
        c.args(args).stdin(Stdio::null());
        self.env(&mut c);
        let out = c
            .output()
            .map_err(|e| format!("cannot start the helper: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let fields: Vec<u64> = text
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        let [wall, rss, code, cpu, faults] = fields[..] else {
            return Err(format!(
                "helper failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        };
        let sample = Sample {
            wall: Duration::from_nanos(wall),
            rss_kib: rss,
            code: code as i32,
            cpu: Duration::from_nanos(cpu),
            faults,
        };
        if sample.code != expect {
            let stderr = std::fs::read_to_string(&self.stderr).unwrap_or_default();
            return Err(format!(
                "`{what}` exited {} (expected {expect}): {}",
                sample.code,
                stderr.trim()
            ));
        }
        Ok(sample)
    }

    /// Where the measured process's stderr goes (the helper's second argument).
    pub fn stderr_file(&self) -> &Path {
        &self.stderr
    }

    /// `/bin/true`: what starting any process costs here.
    pub fn floor(&self) -> Result<Sample, String> {
        self.measure_program(Path::new("/bin/true"), &[], 0)
    }

    /// Runs `args` and returns its stdout; fails unless it exits `expect`.
    pub fn output(&self, args: &[&str], expect: i32) -> Result<String, String> {
        let out = self
            .command(args)
            .output()
            .map_err(|e| format!("cannot start {}: {e}", self.bin.display()))?;
        if out.status.code() != Some(expect) {
            return Err(format!(
                "`mastra-ask {}` exited {:?} (expected {expect}): {}",
                args.join(" "),
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}
