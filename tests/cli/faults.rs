//! Fault injection: a store that is garbage or truncated, one the user may not write, a
//! full disk (a file size limit, and a full tmpfs where one can be mounted), and a write
//! lock held past the busy timeout. Each gives a clear one-line error (and a hint), exit
//! code 1 (`STORE` in JSON mode), and leaves the stored data as it was.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::assert_shown;
use crate::common::{assert_one_line_error, assert_same_store, Env, Out, BIN};
use crate::rng::Rng;
use crate::steps::{ask, say};

/// Commands of every kind that meet the fault: readers, writers, creators.
pub fn commands<'a>(run: &'a str, agent: &'a str) -> Vec<Vec<&'a str>> {
    vec![
        vec!["pending"],
        vec!["runs"],
        vec!["show", run],
        vec!["answer", run, "yes"],
        vec!["cancel", run],
        vec!["ask", "Still there?"],
        vec!["run", "--agent", agent, "go"],
        vec!["prune", "--older-than", "0s"],
    ]
}

/// Exit 1, one `error:` line naming `needle` (and a hint), and `STORE` in JSON mode.
#[track_caller]
fn fails_cleanly(env: &Env, args: &[&str], needle: &str) {
    let out = env.run(args);
    assert_eq!(out.code, 1, "{args:?}: {out:?}");
    assert_one_line_error(&out, needle);
    assert!(out.stderr.contains("\nhint: "), "{args:?}: {}", out.stderr);
    let mut json_args = vec!["-o", "json"];
    json_args.extend_from_slice(args);
    let out = env.run(&json_args);
    assert_eq!(out.code, 1, "{json_args:?}: {out:?}");
    let err: Value = serde_json::from_str(out.stderr.trim()).unwrap();
    assert_eq!(err["error"]["code"], "STORE", "{err}");
}

/// A store with a finished run, a waiting question and a waiting plan; returns the
/// agent file and the id of the run that waits for a question.
fn populated(env: &Env) -> (String, String) {
    env.write("work/plan.md", "# Plan\n\n1. Ship it.\n");
    let agent = env.agent(json!([ask("q", "Go?"), say("done")]));
    let (_, done) = env.start(&agent, &[]);
    env.run(&["answer", &done, "yes"]).assert_code(0);
    env.run(&["plan", "plan.md"]).assert_code(75);
    let waiting = env.suspended(&agent);
    (agent, waiting)
}

/// Folds the write-ahead log into the store file and removes it, so that the file alone
/// is the store.
fn checkpoint(env: &Env) {
    let conn = env.conn();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    drop(conn);
    for ext in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", env.db().display()));
    }
}

#[test]
fn a_file_that_is_not_a_store_is_refused_and_left_alone() {
    let env = Env::sqlite();
    let agent = env.agent(json!([{"text": "hi"}]));
    let mut rng = Rng::new(7);
    let garbage: Vec<u8> = (0..65536).map(|_| rng.next_u64() as u8).collect();
    std::fs::write(env.db(), &garbage).unwrap();
    for args in commands("0123abcd", &agent) {
        fails_cleanly(&env, &args, "file is not a database");
    }
    assert_eq!(std::fs::read(env.db()).unwrap(), garbage);
}

#[test]
fn a_truncated_store_is_refused_and_left_alone() {
    let env = Env::sqlite();
    let (agent, waiting) = populated(&env);
    checkpoint(&env);
    let full = std::fs::read(env.db()).unwrap();
    let cut = &full[..full.len() * 2 / 3 + 100];
    std::fs::write(env.db(), cut).unwrap();
    for args in commands(&waiting, &agent) {
        fails_cleanly(&env, &args, "database disk image is malformed");
    }
    assert_eq!(std::fs::read(env.db()).unwrap(), cut);
}

/// Runs `args` as a user who may read the store but not write it: as root (whom file
/// modes do not stop) the command runs as `nobody`, who owns the store for the while,
/// from a copy of the binary that `nobody` can reach.
fn run_read_only(env: &Env, args: &[&str]) -> Out {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return env.run(args);
    }
    let bin = env.path("mastra-ask");
    if !bin.exists() && std::fs::hard_link(BIN, &bin).is_err() {
        std::fs::copy(BIN, &bin).unwrap();
    }
    let mut c = env.command_of(&bin, args);
    c.uid(65534).gid(65534);
    // The store is nobody's for the command: a store of another user is refused before
    // any write is tried (`store::Unsafe`).
    let own = |uid: u32| {
        for f in store_files(env).iter().filter(|f| f.exists()) {
            std::os::unix::fs::chown(f, Some(uid), Some(uid)).unwrap();
        }
    };
    own(65534);
    let out = env.run_with(c);
    own(0);
    out
}

fn set_mode(path: &Path, mode: u32) {
    if path.exists() {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

fn store_files(env: &Env) -> Vec<PathBuf> {
    ["", "-wal", "-shm"]
        .iter()
        .map(|ext| PathBuf::from(format!("{}{ext}", env.db().display())))
        .collect()
}

#[test]
fn a_store_the_user_may_not_write_gives_a_clear_error_and_stays_as_it_was() {
    let env = Env::sqlite();
    let (agent, waiting) = populated(&env);
    let before = env.dump();
    for f in store_files(&env) {
        set_mode(&f, 0o444);
    }
    set_mode(env.dir.path(), 0o555);
    let attempts = [
        vec!["answer", waiting.as_str(), "yes"],
        vec!["cancel", waiting.as_str()],
        vec!["ask", "Still there?"],
        vec!["run", "--agent", agent.as_str(), "go"],
    ];
    let outs: Vec<Out> = attempts.iter().map(|a| run_read_only(&env, a)).collect();
    set_mode(env.dir.path(), 0o755);
    for f in store_files(&env) {
        set_mode(&f, 0o600);
    }
    for (args, out) in attempts.iter().zip(&outs) {
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        let first = out.stderr.lines().next().unwrap_or_default();
        assert!(
            first.contains("readonly") || first.contains("unable to open"),
            "{args:?}: {}",
            out.stderr
        );
        assert_one_line_error(out, "the store");
    }
    assert_same_store(&env.dump(), &before);
    env.run(&["answer", &waiting, "yes"]).assert_code(0);
}

/// `args` under a file size limit of `bytes` (`ulimit -f`): writes past it fail with
/// EFBIG, as on a full disk.
fn run_limited(env: &Env, args: &[&str], bytes: u64) -> Out {
    let mut c = env.command(args);
    // SAFETY: only setrlimit, which is async-signal-safe, runs between fork and exec.
    unsafe {
        c.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    env.run_with(c)
}

/// A plan of about 100 KiB: resolving it writes far more than the limits below allow.
fn big_plan(env: &Env) -> String {
    let mut plan = String::from("# A long plan\n\n");
    for i in 0..2000 {
        plan.push_str(&format!("{i}. Do step {i} with care and write it down.\n"));
    }
    env.write("work/big.md", &plan);
    let out = env.cmd(&["plan", "big.md"]).code(75);
    out.stdout.trim().to_string()
}

#[test]
fn a_full_disk_refuses_writes_clearly_and_loses_nothing() {
    let env = Env::sqlite();
    let (_, waiting) = populated(&env);
    let plan = big_plan(&env);
    let before = env.dump();
    // Room for the store's shared-memory index (32 KiB) but not for the plan's decision.
    let out = run_limited(&env, &["pending"], 40 << 10);
    out.assert_code(0);
    let out = run_limited(&env, &["review", &plan, "--approve"], 40 << 10);
    out.assert_code(1);
    assert_one_line_error(&out, "writing to the store: disk I/O error");
    assert_shown!(env, out.stderr, @"
        error: writing to the store: disk I/O error
        hint: check the free space (and any file size limit) where the store is
        ");
    // No room at all: even reading needs the store's index, and says so.
    for args in [vec!["pending"], vec!["answer", waiting.as_str(), "yes"]] {
        let out = run_limited(&env, &args, 4 << 10);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert_one_line_error(&out, "disk I/O error");
    }
    assert_same_store(&env.dump(), &before);

    // A new plan run is stored before its first step, which then fails: the run is left
    // running and everything else is as it was. Only the command that started it knows
    // its item, so `resume` fails it with a clear error instead of inventing one.
    let out = run_limited(&env, &["plan", "big.md"], 40 << 10);
    out.assert_code(1);
    assert_one_line_error(&out, "disk I/O error");
    let after = env.dump();
    for row in before.lines() {
        assert!(after.contains(row), "lost: {row}");
    }
    let stray = env.latest_run().unwrap();
    assert_eq!(env.status(&stray), "running");
    let out = env.cmd(&["resume", &stray]).code(1);
    assert_one_line_error(&out, "stopped before its item was stored; start it again");
    assert_eq!(env.status(&stray), "failed");
    env.run(&["review", &plan, "--approve"]).assert_code(0);
    env.run(&["answer", &waiting, "yes"]).assert_code(0);
    crate::invariants::assert_consistent(&env);
}

#[test]
fn a_full_tmpfs_refuses_writes_clearly_and_loses_nothing() {
    let env = Env::sqlite();
    let plan = big_plan(&env);
    let before = env.dump();
    let files: Vec<PathBuf> = store_files(&env)
        .into_iter()
        .filter(|f| f.exists())
        .collect();
    let used: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len().div_ceil(4096) * 4096)
        .sum();
    let (full, after) = (env.path("full"), env.path("after"));
    std::fs::create_dir_all(&full).unwrap();
    std::fs::create_dir_all(&after).unwrap();
    // In a mount namespace of its own: a tmpfs with the store and 48 KiB to spare, the
    // decision on the plan (which needs far more), then the store copied back out.
    let script = r#"
        set -e
        mount -t tmpfs -o size=$((USED + 49152)) tmpfs "$FULL"
        cp "$SRC"* "$FULL"/
        set +e
        "$BIN" review "$PLAN" --approve 2>"$AFTER/err"; echo $? > "$AFTER/code"
        "$BIN" pending -q > "$AFTER/pending"
        cp "$FULL"/store.db* "$AFTER"/
    "#;
    let mut c = env.command_of(
        Path::new("unshare"),
        &["--mount", "--propagation", "private", "sh", "-c", script],
    );
    c.env("MASTRA_ASK_DB", full.join("store.db"))
        .env("USED", used.to_string())
        .env("FULL", &full)
        .env("AFTER", &after)
        .env("SRC", env.db())
        .env("BIN", BIN)
        .env("PLAN", &plan);
    let out = env.run_with(c);
    if out.code != 0 || !after.join("code").exists() {
        eprintln!(
            "skipped: no tmpfs can be mounted here ({})",
            out.stderr.trim()
        );
        return;
    }
    let code = std::fs::read_to_string(after.join("code")).unwrap();
    let err = std::fs::read_to_string(after.join("err")).unwrap();
    assert_eq!(code.trim(), "1", "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains("disk is full"),
        "{err}"
    );
    assert!(lines.len() == 2 && lines[1].starts_with("hint: "), "{err}");
    // Reading still works on the full disk, and what was stored is all there.
    let pending = std::fs::read_to_string(after.join("pending")).unwrap();
    assert!(pending.contains(&plan), "{pending}");
    for f in store_files(&env) {
        let _ = std::fs::remove_file(f);
    }
    for f in std::fs::read_dir(&after).unwrap() {
        let f = f.unwrap().path();
        if f.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("store.db")
        {
            std::fs::copy(&f, env.path(&f.file_name().unwrap().to_string_lossy())).unwrap();
        }
    }
    assert_same_store(&env.dump(), &before);
}

#[test]
fn a_write_lock_held_past_the_busy_timeout_is_a_clear_error_and_changes_nothing() {
    let env = Env::sqlite();
    let (agent, waiting) = populated(&env);
    let before = env.dump();
    let holder = env.conn();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let quick = |args: &[&str]| {
        let mut c = env.command(args);
        c.env("MASTRA_ASK_BUSY_TIMEOUT", "300ms");
        env.run_with(c)
    };
    for args in [
        vec!["answer", waiting.as_str(), "yes"],
        vec!["cancel", waiting.as_str()],
        vec!["run", "--agent", agent.as_str(), "go"],
    ] {
        let out = quick(&args);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert_one_line_error(
            &out,
            "waiting for the store's write lock: database is locked",
        );
        assert!(
            out.stderr.contains("MASTRA_ASK_BUSY_TIMEOUT"),
            "{}",
            out.stderr
        );
    }
    // Readers are not held up by a writer.
    let out = quick(&["pending", "-q"]);
    out.assert_code(0);
    assert!(out.stdout.contains(&waiting));
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert_same_store(&env.dump(), &before);
    env.run(&["answer", &waiting, "yes"]).assert_code(0);
}

#[test]
fn a_bad_busy_timeout_setting_is_a_usage_error() {
    let env = Env::sqlite();
    let mut c = env.command(&["ask", "Q?"]);
    c.env("MASTRA_ASK_BUSY_TIMEOUT", "soon");
    let out = env.run_with(c);
    out.assert_code(2);
    assert_shown!(env, out.stderr, @r#"error: MASTRA_ASK_BUSY_TIMEOUT: "soon" is not a duration; write e.g. 500ms, 30s, 5m, 1h, 1d or 45 (seconds)"#);
}
