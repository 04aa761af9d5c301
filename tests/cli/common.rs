//! The test harness: every test gets a private directory with its own HOME, XDG data dir
//! and store, and runs the real binary with a cleared environment (no network, no keys).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;
use tempfile::TempDir;

use crate::db::{Row, TestDb};

pub const BIN: &str = env!("CARGO_BIN_EXE_mastra-ask");

/// What a finished command printed and how it exited.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// The whole output as a person reads it, for one snapshot per case (jj's `CommandOutput`):
/// the exit code, then each stream that printed anything.
impl std::fmt::Display for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[exit {}]", self.code)?;
        for (name, text) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            if !text.is_empty() {
                write!(
                    f,
                    "\n--- {name}\n{}",
                    text.strip_suffix('\n').unwrap_or(text)
                )?;
            }
        }
        Ok(())
    }
}

impl Out {
    /// Stdout parsed as JSON lines.
    pub fn json_lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
            .collect()
    }

    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Out {
        assert_eq!(
            self.code, code,
            "exit code; stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

pub struct Env {
    pub store: TestDb,
    pub dir: TempDir,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        for d in ["home", "work", "data"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        Env {
            store: TestDb::new(dir.path()),
            dir,
        }
    }

    /// An environment on a SQLite store whatever backend the suite runs against: for what
    /// only a SQLite file has (its bytes, its locks, its permissions).
    pub fn sqlite() -> Env {
        let dir = tempfile::tempdir().unwrap();
        for d in ["home", "work", "data"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        Env {
            store: TestDb::Sqlite(dir.path().join("store.db")),
            dir,
        }
    }

    /// A direct connection to a SQLite store (`Env::sqlite`).
    pub fn conn(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.db()).unwrap()
    }

    /// The SQL condition that picks a run's rows (`?1` = the run id) in the child tables
    /// (messages, events, calls): the stores name the run differently.
    pub fn of_run(&self) -> &'static str {
        match self.store {
            TestDb::Sqlite(_) => "run = (SELECT key FROM runs WHERE id = ?1)",
            TestDb::Postgres { .. } => "run_id = ?1",
        }
    }

    /// Whether any command created the store.
    pub fn has_store(&self) -> bool {
        self.store.exists()
    }

    /// Rows of a query (written for SQLite: `?1` parameters), every value as text.
    pub fn rows(&self, sql: &str, params: &[&str]) -> Vec<Row> {
        self.store.rows(sql, params)
    }

    /// The first column of the first row.
    #[track_caller]
    pub fn value(&self, sql: &str, params: &[&str]) -> Option<String> {
        self.rows(sql, params)
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next().flatten())
    }

    #[track_caller]
    pub fn count(&self, sql: &str, params: &[&str]) -> i64 {
        self.value(sql, params).unwrap_or_default().parse().unwrap()
    }

    pub fn exec(&self, sql: &str, params: &[&str]) {
        self.store.exec(sql, params)
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// The store as the program names it to a person (SPEC §5.3): its path or URL and what
    /// chose it (`MASTRA_ASK_DB`, as every command of the test is given it).
    pub fn store_named(&self) -> String {
        format!("the store {} (from MASTRA_ASK_DB)", self.store.url())
    }

    /// A JSON `command` (of `pending -o json`, of the hook) without the `--db STORE` it
    /// carries because `MASTRA_ASK_DB` chose the store (SPEC §5.3): read raw (the hook's
    /// stdin), it must name this test's store; read through `printed`, it was taken out.
    #[track_caller]
    pub fn without_store_flag(&self, command: &serde_json::Value) -> String {
        let words = shell_words::split(command.as_str().expect("a command")).unwrap();
        if words.get(1).map(String::as_str) != Some("--db") {
            assert_eq!(words[0], "mastra-ask", "{command}");
            return words.join(" ");
        }
        assert_eq!(
            words[..3],
            ["mastra-ask".to_string(), "--db".into(), self.store.pasted()],
            "{command}"
        );
        format!("mastra-ask {}", words[3..].join(" "))
    }

    /// Who a local command of this test is, as the store checks it (on PostgreSQL the
    /// suite's role, mapped to no reviewer) and a Mastra server's ledger records it; on
    /// SQLite the login name, `tester`.
    pub fn me(&self) -> String {
        self.store.role().unwrap_or_else(|| "tester".to_string())
    }

    /// What `pending` says on stderr when nothing waits in this test's store.
    pub fn nothing_pending(&self) -> String {
        format!("nothing is pending in {}\n", self.store_named())
    }

    /// The store every command of this test uses (through `MASTRA_ASK_DB`).
    pub fn db(&self) -> PathBuf {
        self.path("store.db")
    }

    /// The working directory commands run in.
    pub fn work(&self) -> PathBuf {
        self.path("work")
    }

    /// The binary with a clean environment.
    pub fn command(&self, args: &[&str]) -> Command {
        self.command_of(Path::new(BIN), args)
    }

    /// `program` with the environment the binary gets.
    pub fn command_of(&self, program: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(program);
        c.args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path("home"))
            .env("XDG_DATA_HOME", self.path("data"))
            .env("MASTRA_ASK_DB", self.store.url())
            .env("USER", "tester")
            .env("NO_COLOR", "1")
            .current_dir(self.work())
            .stdin(Stdio::null());
        if let Some(role) = self.store.role() {
            c.env("PGUSER", role);
        }
        c
    }

    pub fn run(&self, args: &[&str]) -> Out {
        self.run_with(self.command(args))
    }

    pub fn run_stdin(&self, args: &[&str], input: &str) -> Out {
        self.cmd(args).stdin(input).out()
    }

    pub fn run_with(&self, mut c: Command) -> Out {
        let o = c.output().unwrap();
        Out {
            code: o.status.code().unwrap_or(-1),
            stdout: printed(&o.stdout),
            stderr: printed(&o.stderr),
        }
    }

    pub fn spawn(&self, args: &[&str]) -> Child {
        self.command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Writes a file under the test directory and returns its path.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// A scripted agent with these steps, in `work/`; returns the agent file's path.
    pub fn agent(&self, steps: Value) -> String {
        self.write(
            "work/script.json",
            &serde_json::json!({ "steps": steps }).to_string(),
        );
        let agent = serde_json::json!({
            "id": "tester",
            "instructions": "Test agent.",
            "model": "script:script.json",
        });
        self.write("work/agent.json", &agent.to_string())
            .to_string_lossy()
            .into_owned()
    }

    /// Starts a run of the agent file and returns its output and run id.
    pub fn start(&self, agent: &str, extra: &[&str]) -> (Out, String) {
        let mut args = vec!["run", "--agent", agent];
        args.extend_from_slice(extra);
        args.push("Go");
        let out = self.run(&args);
        let id = self.latest_run().unwrap_or_default();
        (out, id)
    }

    /// Waits until `pending -q` lists an item; returns its run id.
    #[track_caller]
    pub fn first_pending(&self) -> String {
        poll_for("nothing became pending", PATIENCE, || {
            let out = self.run(&["pending", "-q"]);
            let line = out.stdout.lines().next()?;
            Some(line.split(' ').next().unwrap().to_string())
        })
    }

    /// Waits until the run has a registered waiter (`--wait`, `wait --drive`).
    #[track_caller]
    pub fn wait_for_waiter(&self, run: &str) {
        let sql = format!("SELECT count(*) FROM waiters WHERE {}", self.of_run());
        self.poll("the run never had a waiter", || {
            self.count(&sql, &[run]) > 0
        });
    }

    /// Waits until `child` has the store open (the SQLite file, or a
    /// connection to PostgreSQL): it is past its start and watching the run.
    #[track_caller]
    pub fn wait_until_watching(&self, child: &Child) {
        let fds = format!("/proc/{}/fd", child.id());
        let db = self.db();
        let sqlite = matches!(self.store, TestDb::Sqlite(_));
        self.poll("the process never opened the store", || {
            std::fs::read_dir(&fds)
                .into_iter()
                .flatten()
                .flatten()
                .any(|fd| {
                    std::fs::read_link(fd.path()).is_ok_and(|target| {
                        if sqlite {
                            target == db
                        } else {
                            target.to_string_lossy().starts_with("socket:")
                        }
                    })
                })
        });
    }

    /// [`poll`] with the suite's [`PATIENCE`].
    #[track_caller]
    pub fn poll(&self, what: &str, ready: impl FnMut() -> bool) {
        poll(what, PATIENCE, ready)
    }

    pub fn latest_run(&self) -> Option<String> {
        if !self.has_store() {
            return None;
        }
        self.value("SELECT id FROM runs ORDER BY created_at DESC LIMIT 1", &[])
    }

    pub fn status(&self, run: &str) -> String {
        self.value("SELECT status FROM runs WHERE id = ?1", &[run])
            .unwrap()
    }

    /// Every row of every table, for "nothing changed" checks.
    pub fn dump(&self) -> String {
        if !self.has_store() {
            return "no store".into();
        }
        let mut out = String::new();
        for table in self.store.tables() {
            for row in self.rows(&format!("SELECT * FROM {table} ORDER BY 1, 2"), &[]) {
                out.push_str(&format!("{table}:{row:?}\n"));
            }
        }
        out
    }

    /// The run as `show -o json` gives it: messages, suspensions and events included.
    pub fn show(&self, run: &str) -> Value {
        let out = self.run(&["-o", "json", "show", run]);
        out.assert_code(0);
        serde_json::from_str(out.stdout.trim()).unwrap()
    }

    /// The run's messages, in order.
    pub fn messages(&self, run: &str) -> Vec<Value> {
        self.show(run)["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The kinds of the run's events, in order.
    pub fn event_kinds(&self, run: &str) -> Vec<String> {
        self.show(run)["events"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| e["type"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// The tool messages of a run as (toolCallId, parsed content); an error text (what the
    /// model gets when no tool ran) as a JSON string.
    pub fn tool_results(&self, run: &str) -> Vec<(String, Value)> {
        self.messages(run)
            .into_iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| {
                let content = m["content"].as_str().unwrap();
                (
                    m["toolCallId"].as_str().unwrap().to_string(),
                    serde_json::from_str(content).unwrap_or_else(|_| Value::from(content)),
                )
            })
            .collect()
    }

    pub fn example_agent() -> String {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/release/agent.json")
            .to_string_lossy()
            .into_owned()
    }

    pub fn example_dir() -> String {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/release")
            .to_string_lossy()
            .into_owned()
    }
}

pub fn finish(child: Child) -> Out {
    let o = child.wait_with_output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: printed(&o.stdout),
        stderr: printed(&o.stderr),
    }
}

/// A command's output as the tests compare it: every printed command carries `--db STORE`
/// when `MASTRA_ASK_DB` chose the store (SPEC §5.3), and every command of a test is given
/// its store so; that flag, for the harness's own stores only (a `store.db` in a temporary
/// directory, a `t_<uuid>` PostgreSQL database), is taken out here, once, so expected
/// outputs read as a person types them. `tests/cli/store_flag.rs` checks the raw output.
pub fn printed(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let flag = "mastra-ask --db ";
    let mut out = String::with_capacity(text.len());
    let mut rest: &str = &text;
    while let Some(at) = rest.find(flag) {
        let after = &rest[at + flag.len()..];
        let token_end = after.find([' ', '\n', '"']).unwrap_or(after.len());
        let token = after[..token_end].trim_matches('\'');
        out.push_str(&rest[..at]);
        if harness_store(token) && after[token_end..].starts_with(' ') {
            out.push_str("mastra-ask ");
            rest = &after[token_end + 1..];
        } else {
            out.push_str(flag);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Whether `db` names a store `TestDb` made (see `printed`).
fn harness_store(db: &str) -> bool {
    let tmp = std::env::temp_dir();
    let sqlite = db.ends_with("/store.db")
        && Path::new(db).parent().and_then(Path::parent) == Some(tmp.as_path());
    let postgres = db.starts_with("postgres://")
        && db.rsplit('/').next().is_some_and(|name| {
            name.len() == 34
                && name.starts_with("t_")
                && name[2..].bytes().all(|b| b.is_ascii_hexdigit())
        });
    sqlite || postgres
}

/// Asserts two dumps (`Env::dump`) are equal, showing the first rows that differ.
#[track_caller]
pub fn assert_same_store(after: &str, before: &str) {
    if after == before {
        return;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (after.lines().collect(), before.lines().collect());
    let i = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let cut = |s: &str| s.chars().take(300).collect::<String>();
    panic!(
        "the store changed ({} rows before, {} after); first difference at row {i}:\nbefore: {}\nafter:  {}",
        b.len(),
        a.len(),
        cut(b.get(i).copied().unwrap_or("(none)")),
        cut(a.get(i).copied().unwrap_or("(none)"))
    );
}

/// Asserts an error is one line on stderr (plus maybe a hint line) and mentions `needle`.
#[track_caller]
pub fn assert_one_line_error(out: &Out, needle: &str) {
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert!(
        !lines.is_empty() && lines[0].starts_with("error: "),
        "stderr: {}",
        out.stderr
    );
    assert!(
        lines.len() == 1 || (lines.len() == 2 && lines[1].starts_with("hint: ")),
        "stderr: {}",
        out.stderr
    );
    assert!(
        lines[0].contains(needle),
        "expected {needle:?} in {:?}",
        lines[0]
    );
}

/// Whether process `pid` runs (a zombie, left for its new parent to reap, is as good as gone).
/// The running test's own name (the last part of its path), e.g. `mastra_...`.
pub fn test_name() -> String {
    let thread = std::thread::current();
    let name = thread.name().unwrap_or("");
    name.rsplit("::").next().unwrap_or("").to_string()
}

pub fn alive(pid: i32) -> bool {
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

/// Runs `c` to its end and reports its peak resident memory in KiB (`VmHWM` of
/// `/proc/<pid>/status`, polled until the process ends: its `rusage` would count the memory
/// of the forked test process too) and how long it ran. Its output is read as it comes, so
/// a loud command cannot block on a full pipe; one still running after `limit` is killed.
pub fn run_measured(mut c: Command, limit: std::time::Duration) -> (Out, u64, std::time::Duration) {
    use std::io::Read;
    let began = std::time::Instant::now();
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = r.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    // A zombie has no VmHWM line: polling ends when the process does.
    while let Some(kib) = std::fs::read_to_string(&status).ok().and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    }) {
        peak = peak.max(kib);
        if began.elapsed() > limit {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let status = child.wait().unwrap();
    let ran = began.elapsed();
    let out = Out {
        code: status.code().unwrap_or(-1),
        stdout: printed(stdout.join().unwrap().as_bytes()),
        stderr: printed(stderr.join().unwrap().as_bytes()),
    };
    (out, peak, ran)
}

// ---- Waiting: the suite's one poll loop. Every wait of a test goes through it, so each
// has a deadline and fails naming what it waited for.

/// How long a test waits for something at most: a bound for a loaded machine shared by
/// several builds, never a measure of speed.
pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

/// Calls `ready` every 20 ms until it gives a value, for `within` at most; `None` past that.
pub fn try_poll<T>(within: std::time::Duration, mut ready: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = std::time::Instant::now() + within;
    loop {
        if let Some(value) = ready() {
            return Some(value);
        }
        if std::time::Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Calls `ready` every 20 ms until it gives a value; fails with `what` after `within`.
#[track_caller]
pub fn poll_for<T>(what: &str, within: std::time::Duration, ready: impl FnMut() -> Option<T>) -> T {
    try_poll(within, ready).unwrap_or_else(|| panic!("{what} (waited {within:?})"))
}

/// Polls `ready` until it holds; fails with `what` after `within`.
#[track_caller]
pub fn poll(what: &str, within: std::time::Duration, mut ready: impl FnMut() -> bool) {
    poll_for(what, within, || ready().then_some(()))
}

/// Watches for `window` that something never happens (a second hook run, an escalation run
/// again): polls `happened` and fails with `what` as soon as it holds.
#[track_caller]
pub fn never(what: &str, window: std::time::Duration, mut happened: impl FnMut() -> bool) {
    if try_poll(window, || happened().then_some(())).is_some() {
        panic!("{what}");
    }
}

/// Waits for `child` to exit, for `within` at most; one still running then is killed (no
/// process outlives its test) and the test fails with `what`.
#[track_caller]
pub fn exit_within(
    child: &mut Child,
    what: &str,
    within: std::time::Duration,
) -> std::process::ExitStatus {
    match try_poll(within, || child.try_wait().unwrap()) {
        Some(status) => status,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} (killed after {within:?})")
        }
    }
}

/// [`exit_within`], then what the child printed.
#[track_caller]
pub fn finish_within(mut child: Child, what: &str, within: std::time::Duration) -> Out {
    exit_within(&mut child, what, within);
    finish(child)
}

// ---- What a person reads: the suite's snapshot filters, in one place. Ids, times, ages,
// temporary paths, the repository and the store change from run to run and between the
// backends; everything else of a snapshot is the text itself.

/// The insta settings every snapshot of the suite is taken with; `store` (a path or a URL)
/// shown as `[STORE]`.
pub fn snapshot_settings(store: Option<&str>) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    if let Some(store) = store {
        settings.add_filter(&regex_escape(store), "[STORE]");
    }
    for (pattern, replacement) in [
        (
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "[RUN]",
        ),
        (r"call_[0-9a-f]{24}", "[CALL]"),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "[TIME]"),
        (r"\b\d+[smhd] ago\b", "[AGE] ago"),
        (r"/tmp/\.tmp[A-Za-z0-9]+", "[DIR]"),
        (r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]"),
        (r"\br_[0-9a-f]{12}\b", "[ROLE]"),
        (r"\bt_[0-9a-f]{32}\b", "[DB]"),
        (
            r"process group \d+ on host [^ )]+\)",
            "process group [PGID] on host [HOST])",
        ),
    ] {
        settings.add_filter(pattern, replacement);
    }
    settings.add_filter(&regex_escape(env!("CARGO_MANIFEST_DIR")), "[REPO]");
    settings
}

/// `text` as a regular expression that matches it literally.
pub fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(
            |c| match c.is_ascii_alphanumeric() || c == '/' || c == '_' {
                true => vec![c],
                false => vec!['\\', c],
            },
        )
        .collect()
}

impl Env {
    /// The suite's snapshot filters, and this test's store as `[STORE]` (a path on SQLite,
    /// a URL on PostgreSQL: the same snapshot on both), for the rest of the scope.
    pub fn filters(&self) -> insta::internals::SettingsBindDropGuard {
        snapshot_settings(Some(&self.store.url())).bind_to_scope()
    }
}

/// Asserts what a person reads against an inline snapshot, with the suite's filters and the
/// test's store (`Env::filters`): a text, `assert_shown!(env, out.stderr, @"error: ...")`, or
/// the whole output of a command, `assert_shown!(env, out, @"[exit 2] ...")` (the default).
#[macro_export]
macro_rules! assert_shown {
    ($env:expr, $text:expr, @$snapshot:literal) => {{
        let _filters = $env.filters();
        insta::assert_snapshot!(format!("{}", $text), @$snapshot);
    }};
}

// ---- One command of a test and what it must end with: the suite's common shape "args,
// expect the code, then read stdout/stderr", e.g.
// `let out = env.cmd(&["answer", &run, "--multi", "a", "b"]).code(0);`.

/// A command being set up (`Env::cmd`); `code` runs it.
pub struct Cmd<'e> {
    env: &'e Env,
    args: Vec<String>,
    input: Option<String>,
}

impl Env {
    /// The binary with `args`, in this test's environment, to run with [`Cmd::code`].
    pub fn cmd(&self, args: &[&str]) -> Cmd<'_> {
        Cmd {
            env: self,
            args: args.iter().map(|a| a.to_string()).collect(),
            input: None,
        }
    }

    /// Starts a run of `agent` that must suspend (exit 75); its id.
    #[track_caller]
    pub fn suspended(&self, agent: &str) -> String {
        let (out, run) = self.start(agent, &[]);
        out.assert_code(75);
        run
    }
}

impl Cmd<'_> {
    /// `text` on the command's stdin (else it reads nothing: stdin is /dev/null).
    pub fn stdin(mut self, text: &str) -> Self {
        self.input = Some(text.to_string());
        self
    }

    /// Runs the command to its end, whatever its exit code.
    pub fn out(&self) -> Out {
        use std::io::Write;
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        let mut command = self.env.command(&args);
        let Some(input) = &self.input else {
            return self.env.run_with(command);
        };
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        finish(child)
    }

    /// Runs the command; fails, naming it and showing both streams, unless it exits `code`.
    #[track_caller]
    pub fn code(self, code: i32) -> Out {
        let out = self.out();
        assert_eq!(
            out.code,
            code,
            "exit code of mastra-ask {}; stdout:\n{}\nstderr:\n{}",
            self.args.join(" "),
            out.stdout,
            out.stderr
        );
        out
    }
}
