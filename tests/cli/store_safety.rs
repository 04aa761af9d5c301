//! Store safety (SPEC §9, issue #10): a store written by a newer mastra-ask, one that
//! other users could have changed, `--db` values that name no file, rows that cannot be
//! read, and settings and deadlines too large to store. Each is refused with a clear error
//! and a documented exit code, and none changes what is stored.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::json;

use crate::assert_shown;
use crate::common::{assert_one_line_error, assert_same_store, Env, Out};
use crate::db::TestDb;
use crate::faults::commands;
use crate::steps::{ask, say};

/// A store with two waiting questions and a finished run; returns their run ids.
fn three_runs(env: &Env) -> (String, String, String) {
    let (_, done) = env.start(&agent(env), &[]);
    env.run(&["answer", &done, "yes"]).assert_code(0);
    let first = env.run(&["ask", "First?"]).stdout.trim().to_string();
    let second = env.run(&["ask", "Second?"]).stdout.trim().to_string();
    (first, second, done)
}

fn agent(env: &Env) -> String {
    env.agent(json!([ask("q", "Go?"), say("done")]))
}

/// Exit 1, one error line naming `needle`, a hint, and `STORE` in JSON mode.
#[track_caller]
fn refused(env: &Env, args: &[&str], needle: &str, hint: &str) {
    let out = env.run(args);
    assert_eq!(out.code, 1, "{args:?}: {out:?}");
    assert_one_line_error(&out, needle);
    assert!(
        out.stderr.contains(&format!("\nhint: {hint}")),
        "{args:?}: {}",
        out.stderr
    );
    let mut json_args = vec!["-o", "json"];
    json_args.extend_from_slice(args);
    let out = env.run(&json_args);
    assert_eq!(out.code, 1, "{json_args:?}: {out:?}");
    let line: serde_json::Value = serde_json::from_str(out.stderr.trim()).unwrap();
    assert_eq!(line["error"]["code"], "STORE", "{line}");
}

#[test]
fn a_store_written_by_a_newer_mastra_ask_is_refused_and_nothing_is_written() {
    let env = Env::new();
    let (waiting, _, _) = three_runs(&env);
    match &env.store {
        TestDb::Sqlite(_) => env
            .conn()
            .execute_batch("PRAGMA user_version = 999")
            .unwrap(),
        TestDb::Postgres { .. } => {
            env.exec("INSERT INTO schema_version (version) VALUES (999)", &[])
        }
    }
    let before = env.dump();
    let agent = agent(&env);
    for args in commands(&waiting, &agent) {
        refused(
            &env,
            &args,
            "was written by a newer mastra-ask (schema version 999;",
            "use the newer mastra-ask",
        );
    }
    assert_same_store(&env.dump(), &before);
    if let TestDb::Sqlite(_) = env.store {
        let version: i64 = env
            .conn()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, 999);
    }
}

fn store_files(env: &Env) -> Vec<PathBuf> {
    ["", "-wal", "-shm"]
        .iter()
        .map(|ext| PathBuf::from(format!("{}{ext}", env.db().display())))
        .filter(|p| p.exists())
        .collect()
}

#[test]
fn a_store_others_could_have_changed_is_refused_and_left_as_it_was() {
    let env = Env::sqlite();
    let (waiting, _, _) = three_runs(&env);
    let before = env.dump();
    let mode = |p: &PathBuf| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    std::fs::set_permissions(env.db(), std::fs::Permissions::from_mode(0o666)).unwrap();
    let agent = agent(&env);
    for args in commands(&waiting, &agent) {
        refused(
            &env,
            &args,
            "it is writable by group or others (mode 666)",
            &format!(
                "if nobody else changed it, make it private with: chmod go-w {}",
                env.db().display()
            ),
        );
    }
    assert_eq!(
        mode(&env.db()),
        0o666,
        "never chmod'ed behind the user's back"
    );
    std::fs::set_permissions(env.db(), std::fs::Permissions::from_mode(0o600)).unwrap();
    // A group-writable log file is refused the same way.
    let wal = PathBuf::from(format!("{}-wal", env.db().display()));
    if wal.exists() {
        std::fs::set_permissions(&wal, std::fs::Permissions::from_mode(0o620)).unwrap();
        refused(
            &env,
            &["pending"],
            "store.db-wal: it is writable by group or others (mode 620)",
            "if nobody else changed it",
        );
        std::fs::set_permissions(&wal, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    // Another user's store: as root, hand it to `nobody` for a while.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let own = |uid: u32| {
            for f in store_files(&env) {
                std::os::unix::fs::chown(&f, Some(uid), Some(uid)).unwrap();
            }
        };
        own(65534);
        for args in commands(&waiting, &agent) {
            refused(
                &env,
                &args,
                "it belongs to another user (uid 65534), who could read and change every run in it",
                "use a store of your own",
            );
        }
        own(0);
    }
    assert_same_store(&env.dump(), &before);
    env.run(&["answer", &waiting, "yes"]).assert_code(0);
}

#[test]
fn db_values_that_name_no_file_are_refused_and_nothing_is_created() {
    let env = Env::new();
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(env.work())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let before = listing();
    for db in [":memory:", "file:x.db?mode=memory", "file:store.db"] {
        for args in [vec!["ask", "Q?"], vec!["pending"]] {
            let mut all = vec!["--db", db];
            all.extend_from_slice(&args);
            let out = env.run(&all);
            assert_eq!(out.code, 2, "{all:?}: {out:?}");
            assert_one_line_error(
                &out,
                &format!("the store must be a file or a postgres:// URL, not {db}"),
            );
        }
    }
    assert_eq!(listing(), before);

    // A link to nowhere is never created through.
    let target = env.path("elsewhere/victim.db");
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, env.work().join("link.db")).unwrap();
    for args in [
        vec!["--db", "link.db", "ask", "Q?"],
        vec!["--db", "link.db", "pending"],
    ] {
        let out = env.run(&args);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert_one_line_error(
            &out,
            &format!(
                "refusing the store at link.db: it is a symbolic link to {}, which does not exist",
                target.display()
            ),
        );
    }
    assert!(!target.exists());
}

/// `pending`, `runs` and `show` of the run that is fine.
fn reads_of(env: &Env, fine: &str) -> (Out, Out, Out) {
    (
        env.run(&["pending", "-q"]),
        env.run(&["runs", "-o", "json"]),
        env.run(&["-o", "json", "show", fine]),
    )
}

#[test]
fn one_damaged_run_never_breaks_pending_runs_or_show_of_the_others() {
    let env = Env::new();
    let (fine, damaged, done) = three_runs(&env);
    let of_run = env.of_run();
    let tamper = match env.store {
        // A REAL where the deadline's integer belongs (what an overflow once stored).
        TestDb::Sqlite(_) => "UPDATE calls SET expires_at = 1e19 WHERE ",
        TestDb::Postgres { .. } => "UPDATE calls SET args = '{not json' WHERE ",
    };
    env.exec(&format!("{tamper}{of_run}"), &[&damaged]);
    let (pending, runs, show) = reads_of(&env, &fine);
    pending.assert_code(0);
    assert!(pending.stdout.contains(&fine), "{}", pending.stdout);
    assert!(!pending.stdout.contains(&damaged), "{}", pending.stdout);
    assert!(
        pending.stderr.starts_with(&format!(
            "warning: skipped run {damaged} (damaged in the store: "
        )),
        "{}",
        pending.stderr
    );
    assert_eq!(pending.stderr.lines().count(), 1, "{}", pending.stderr);
    runs.assert_code(0);
    assert_eq!(runs.json_lines().len(), 3);
    show.assert_code(0);
    let out = env.cmd(&["show", &damaged]).code(1);
    assert_one_line_error(&out, &format!("run {damaged} is damaged in the store: "));
    let json = env.cmd(&["-o", "json", "pending"]).code(0);
    assert_eq!(json.json_lines().len(), 1);

    // A run whose status this program does not know.
    env.exec("UPDATE runs SET status = 'bogus' WHERE id = ?1", &[&done]);
    let (pending, runs, show) = reads_of(&env, &fine);
    pending.assert_code(0);
    runs.assert_code(0);
    let ids: Vec<String> = runs
        .json_lines()
        .iter()
        .map(|r| r["runId"].as_str().unwrap().to_string())
        .collect();
    assert!(
        ids.contains(&fine) && ids.contains(&damaged) && !ids.contains(&done),
        "{ids:?}"
    );
    assert_shown!(env, runs.stderr, @r#"warning: skipped run [RUN] (damaged in the store: unknown run status "bogus")"#);
    show.assert_code(0);
    env.run(&["answer", &fine, "yes"]).assert_code(0);
}

#[test]
fn a_busy_timeout_past_its_maximum_is_a_usage_error() {
    let env = Env::sqlite();
    env.run(&["ask", "Q?"]).assert_code(75);
    for (value, code) in [
        ("99999999999d", 2),
        ("9223372036854775807ms", 2),
        ("61m", 2),
        ("1h", 0),
    ] {
        let mut c = env.command(&["pending"]);
        c.env("MASTRA_ASK_BUSY_TIMEOUT", value);
        let out = env.run_with(c);
        assert_eq!(out.code, code, "{value}: {out:?}");
        if code == 2 {
            assert_one_line_error(&out, "MASTRA_ASK_BUSY_TIMEOUT");
        }
    }
}

#[test]
fn a_deadline_too_far_away_to_store_is_refused_and_nothing_is_stored() {
    let env = Env::new();
    env.run(&["ask", "Before?"]).assert_code(75);
    let before = env.dump();
    env.cmd(&["ask", "Q?", "--expires-in", "9223372036854775807ms"])
        .code(2);
    assert_same_store(&env.dump(), &before);
    let out = env.cmd(&["pending", "-q"]).code(0);
    assert_eq!(out.stdout.lines().count(), 1);
}

#[test]
fn an_answer_after_its_waiter_was_killed_is_not_left_to_the_dead_waiter() {
    let env = Env::new();
    let mut waiter = env.spawn(&["ask", "Go?", "--wait"]);
    // The waiter is registered with its run, so it exists once the item does.
    let run = env.first_pending();
    waiter.kill().unwrap();
    waiter.wait().unwrap();
    let out = env.cmd(&["answer", &run, "yes"]).code(0);
    assert!(
        !out.stderr.contains("the waiting process continues the run"),
        "{}",
        out.stderr
    );
    assert_eq!(env.status(&run), "completed");
}
