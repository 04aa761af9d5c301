//! Where the store lives, how it is created, and what read-only commands do without one.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::assert_shown;
use crate::common::{assert_one_line_error, exit_within, Env, PATIENCE};

#[test]
fn read_only_commands_never_create_a_store() {
    let env = Env::new();
    let out = env.cmd(&["pending"]).code(0);
    assert_eq!(out.stdout, "");
    env.run(&["runs"]).assert_code(0);
    env.run(&["pending", "-o", "json"]).assert_code(0);
    env.run(&["show", "0123abcd"]).assert_code(3);
    env.run(&["answer", "0123abcd", "x"]).assert_code(3);
    env.run(&["cancel", "0123abcd"]).assert_code(3);
    env.run(&["resume", "0123abcd"]).assert_code(3);
    env.run(&["wait", "0123abcd"]).assert_code(3);
    env.run(&["reply", "0123abcd", "hi"]).assert_code(3);
    env.run(&["review", "0123abcd", "--approve"]).assert_code(3);
    assert!(!env.has_store());
}

#[test]
fn the_default_store_is_private() {
    let env = Env::new();
    let agent = env.agent(json!([{"text": "hi"}]));
    let mut cmd = env.command(&["run", "--agent", &agent, "go"]);
    cmd.env_remove("MASTRA_ASK_DB");
    env.run_with(cmd).assert_code(0);
    let db = env.path("data/mastra-ask/mastra-ask.db");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&db), 0o600);
    assert_eq!(mode(db.parent().unwrap()), 0o700);
    let mut cmd = env.command(&["runs", "-o", "json"]);
    cmd.env_remove("MASTRA_ASK_DB");
    let out = env.run_with(cmd);
    assert_eq!(out.json_lines()[0]["status"], "completed");
}

#[test]
fn without_an_absolute_xdg_data_home_the_default_store_is_under_home() {
    let env = Env::new();
    let agent = env.agent(json!([{"text": "hi"}]));
    let db = env.path("home/.local/share/mastra-ask/mastra-ask.db");
    // A relative XDG_DATA_HOME is ignored (the XDG rules), as is none at all.
    for xdg in [Some("data"), None] {
        let mut cmd = env.command(&["run", "--agent", &agent, "go"]);
        cmd.env_remove("MASTRA_ASK_DB");
        match xdg {
            Some(rel) => cmd.env("XDG_DATA_HOME", rel),
            None => cmd.env_remove("XDG_DATA_HOME"),
        };
        env.run_with(cmd).assert_code(0);
        assert!(db.is_file(), "no store at {}", db.display());
    }
    assert!(!env.path("work/data").exists());
    assert!(!env.path("data/mastra-ask").exists());
    let mut cmd = env.command(&["runs", "-o", "json"]);
    cmd.env_remove("MASTRA_ASK_DB").env_remove("XDG_DATA_HOME");
    assert_eq!(env.run_with(cmd).json_lines().len(), 2);
}

#[test]
fn printed_commands_repeat_a_db_flag() {
    let env = Env::new();
    let agent =
        env.agent(json!([{"toolCalls": [{"name": "ask_user", "args": {"question": "Q?"}}]}]));
    let db = env.path("other dir/x.db");
    let mut cmd = env.command(&["--db", db.to_str().unwrap(), "run", "--agent", &agent, "go"]);
    cmd.env_remove("MASTRA_ASK_DB");
    let out = env.run_with(cmd);
    out.assert_code(75);
    assert_shown!(env, out.stderr, @"
        run [RUN] is waiting for input (1 pending):
          [CALL] question: Q?
            mastra-ask --db '[DIR]/other dir/x.db' answer [RUN] <answer>
        ");
}

#[test]
fn runs_lists_newest_first_and_filters() {
    let env = Env::new();
    let agent = env.agent(json!([{"text": "hi"}]));
    let (_, first) = env.start(&agent, &[]);
    let agent =
        env.agent(json!([{"toolCalls": [{"name": "ask_user", "args": {"question": "Q?"}}]}]));
    let (_, second) = env.start(&agent, &[]);
    let all = env.run(&["runs", "-o", "json"]).json_lines();
    let ids: Vec<&str> = all.iter().map(|r| r["runId"].as_str().unwrap()).collect();
    assert_eq!(ids, [second.as_str(), first.as_str()]);
    for field in ["agentId", "createdAt", "updatedAt"] {
        assert!(all[0][field].is_string());
    }
    let suspended = env
        .run(&["runs", "--status", "suspended", "-o", "json"])
        .json_lines();
    assert_eq!(suspended.len(), 1);
    assert_eq!(suspended[0]["runId"], second.as_str());
    assert_eq!(env.run(&["runs", "--limit", "1"]).stdout.lines().count(), 1);
}

#[test]
fn a_corrupt_store_is_a_clear_error() {
    let env = Env::new();
    std::fs::write(env.db(), vec![b'x'; 8192]).unwrap();
    // A SQLite file, whatever backend the suite runs against.
    let mut cmd = env.command(&["pending"]);
    cmd.env("MASTRA_ASK_DB", env.db());
    let out = env.run_with(cmd);
    out.assert_code(1);
    assert_one_line_error(&out, "file is not a database");
    assert_eq!(std::fs::read(env.db()).unwrap(), vec![b'x'; 8192]);
}

#[test]
fn prompt_from_stdin_and_a_broken_pipe() {
    let env = Env::new();
    let agent =
        env.agent(json!([{"toolCalls": [{"name": "ask_user", "args": {"question": "Q?"}}]}]));
    let out = env.run_stdin(&["run", "--agent", &agent, "-"], "from stdin\n");
    out.assert_code(75);
    let run = env.latest_run().unwrap();
    assert_eq!(env.messages(&run)[0]["content"], "from stdin");
    // A reader that goes away does not make the command fail loudly.
    for _ in 0..3 {
        env.start(&agent, &[]);
    }
    let mut cmd = env.command(&["pending"]);
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    drop(child.stdout.take());
    let out = crate::common::finish(child);
    out.assert_code(0);
    assert_eq!(out.stderr, "");
}

/// A command started with its standard descriptors closed (as a careless daemon or cron line
/// may start it) has `/dev/null` open for writing on each of them while it runs, so that its
/// output never lands in a file or connection it opened itself (SQLite keeps its own files
/// above them; the PostgreSQL connection's sockets and the async runtime's descriptors are
/// not so careful).
#[test]
fn a_command_started_with_its_standard_descriptors_closed_has_dev_null_on_them() {
    use std::os::unix::process::CommandExt;
    let env = Env::new();
    let mut cmd = env.command(&["ask", "Which name?", "--wait"]);
    // SAFETY: between fork and exec only close(2) runs, which is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            for fd in 0..3 {
                libc::close(fd);
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let run = env.first_pending();
    for fd in 0..3 {
        let path = format!("/proc/{}/fd/{fd}", child.id());
        let target = std::fs::read_link(&path).unwrap();
        assert_eq!(target, std::path::Path::new("/dev/null"), "{path}");
        let info = std::fs::read_to_string(format!("/proc/{}/fdinfo/{fd}", child.id())).unwrap();
        let flags = info
            .lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .map(|f| u32::from_str_radix(f.trim(), 8).unwrap())
            .unwrap();
        assert_eq!(
            flags & 0o3,
            0o2,
            "descriptor {fd} is not open for reading and writing"
        );
    }
    env.run(&["answer", &run, "Ada"]).assert_code(0);
    let status = exit_within(&mut child, "the waiter never ended", PATIENCE);
    assert_eq!(status.code(), Some(0));
}

/// A reviewer who looks in the wrong store is told which one was read and what chose it
/// (SPEC §5.3): an empty `pending` and a "no run" error say it on stderr, for a store from
/// `MASTRA_ASK_DB`, from `--db`, and the default.
#[test]
fn an_empty_pending_and_a_missing_run_name_the_store_and_what_chose_it() {
    let env = Env::new();
    let out = env.cmd(&["pending"]).code(0);
    assert_eq!(out.stderr, env.nothing_pending());
    let out = env.cmd(&["show", "deadbeef"]).code(3);
    assert_shown!(env, out.stderr, @"
        error: no run deadbeef
        hint: looked in the store [STORE] (from MASTRA_ASK_DB); list runs with: mastra-ask runs
        ");

    let other = env.path("other.db");
    let mut cmd = env.command(&["--db", other.to_str().unwrap(), "pending"]);
    cmd.env_remove("MASTRA_ASK_DB");
    let out = env.run_with(cmd);
    assert_eq!(
        out.stderr,
        format!(
            "nothing is pending in the store {} (from --db)\n",
            other.display()
        )
    );

    let mut cmd = env.command(&["answer", "deadbeef", "x"]);
    cmd.env_remove("MASTRA_ASK_DB");
    let out = env.run_with(cmd);
    out.assert_code(3);
    assert_shown!(env, out.stderr, @"
        error: no run deadbeef
        hint: looked in the store [DIR]/data/mastra-ask/mastra-ask.db (the default; --db or MASTRA_ASK_DB names another); list runs with: mastra-ask runs
        ");
}

/// The JSON `command`s (of `pending -o json` and the hook, read in a notification and
/// pasted in another shell) carry `--db` when `MASTRA_ASK_DB` chose the store, and none for
/// the default store.
#[test]
fn json_commands_carry_the_store_of_mastra_ask_db_and_not_the_default() {
    let env = Env::new();
    let run = env.run(&["ask", "Ship it?"]).stdout.trim().to_string();
    let listed = env.run(&["pending", "-o", "json"]).json_lines();
    assert_eq!(
        env.without_store_flag(&listed[0]["command"]),
        format!("mastra-ask answer {run} <answer>")
    );

    let mut cmd = env.command(&["ask", "Default?"]);
    cmd.env_remove("MASTRA_ASK_DB");
    let default_run = env.run_with(cmd).stdout.trim().to_string();
    let mut cmd = env.command(&["pending", "-o", "json"]);
    cmd.env_remove("MASTRA_ASK_DB");
    let listed = env.run_with(cmd).json_lines();
    assert_eq!(
        listed[0]["command"],
        format!("mastra-ask answer {default_run} <answer>")
    );
}
