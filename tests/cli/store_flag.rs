//! Printed commands carry `--db` whenever the store is not the default one, whether `--db`
//! or `MASTRA_ASK_DB` chose it (SPEC §5.3), so that they work when pasted in a shell without
//! that variable. Read raw here: the harness's `printed` takes the flag out of every other
//! test's output.

use std::process::Command;

use crate::assert_shown;
use crate::common::{Env, Out};
use crate::db::TestDb;

/// Runs `c` and keeps its output as printed, flag and all.
fn raw(mut c: Command) -> Out {
    let o = c.output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

#[test]
fn a_store_chosen_by_mastra_ask_db_is_named_in_every_printed_command() {
    let env = Env::new();
    let other = env.path("other dir/x.db");
    let with_env = |args: &[&str]| {
        let mut c = env.command(args);
        c.env("MASTRA_ASK_DB", &other);
        c
    };
    let flag = format!("mastra-ask --db '{}'", other.display());

    let asked = raw(with_env(&[
        "ask", "Ship it?", "--option", "yes", "--option", "no",
    ]));
    asked.assert_code(75);
    let run = asked.stdout.trim().to_string();
    assert!(
        asked.stderr.contains(&format!("    {flag} answer {run} ")),
        "{}",
        asked.stderr
    );
    assert!(
        !asked.stderr.contains("    mastra-ask answer"),
        "{}",
        asked.stderr
    );

    // `pending`, in text and in JSON (what a notification pastes).
    let listed = raw(with_env(&["pending"]));
    assert!(
        listed.stdout.contains(&format!("{flag} answer {run} ")),
        "{}",
        listed.stdout
    );
    let json = raw(with_env(&["pending", "-o", "json"]));
    let item: serde_json::Value =
        serde_json::from_str(json.stdout.lines().next().unwrap()).unwrap();
    let command = item["command"].as_str().unwrap().to_string();
    assert_eq!(item["commands"][0], command.as_str());
    assert!(
        command.starts_with(&format!("{flag} answer {run} ")),
        "{command}"
    );

    // Pasted in a shell without the variable, the printed command answers the item.
    let pasted = command.replace("<label>", "yes");
    let mut sh = env.command_of(std::path::Path::new("/bin/sh"), &["-c", &pasted]);
    sh.env_remove("MASTRA_ASK_DB").env(
        "PATH",
        format!(
            "{}:{}",
            bin_dir(),
            std::env::var("PATH").unwrap_or_default()
        ),
    );
    let answered = raw(sh);
    answered.assert_code(0);
    assert_eq!(answered.stdout, "", "{}", answered.stderr);
    let status = raw(with_env(&["show", &run, "-o", "json"]));
    let shown: serde_json::Value = serde_json::from_str(status.stdout.trim()).unwrap();
    assert_eq!(shown["status"], "completed", "{shown}");

    // The store's own hints too (error.rs writes them at the boundary).
    let missing = raw(with_env(&["policy", "remove", "nothing"]));
    missing.assert_code(3);
    assert_eq!(
        missing.stderr,
        format!("error: no policy nothing\nhint: list policies with: {flag} policy list\n")
    );
}

#[test]
fn the_default_store_is_never_named_and_the_suite_store_always_is() {
    let env = Env::new();
    // The default store (under XDG_DATA_HOME): no --db in what is printed.
    let mut c = env.command(&["ask", "Ship it?"]);
    c.env_remove("MASTRA_ASK_DB");
    let asked = raw(c);
    asked.assert_code(75);
    let run = asked.stdout.trim();
    assert!(
        asked
            .stderr
            .contains(&format!("    mastra-ask answer {run} ")),
        "{}",
        asked.stderr
    );
    assert!(!asked.stderr.contains("--db"), "{}", asked.stderr);

    // This suite's own store (SQLite or PostgreSQL), chosen by MASTRA_ASK_DB: named, as the
    // harness's `printed` expects before it takes it out.
    let asked = raw(env.command(&["ask", "Ship it?"]));
    asked.assert_code(75);
    let run = asked.stdout.trim();
    let url = env.store.pasted();
    let shown = shell_words::quote(&url);
    assert!(
        asked
            .stderr
            .contains(&format!("    mastra-ask --db {shown} answer {run} ")),
        "{}",
        asked.stderr
    );
    assert!(
        crate::common::printed(asked.stderr.as_bytes())
            .contains(&format!("    mastra-ask answer {run} ")),
        "{}",
        asked.stderr
    );
}

/// On PostgreSQL a printed command names the store without the runner's role, so that a
/// reviewer who pastes it connects as themselves (their `PGUSER`, else their OS user), not as
/// a role their policy refuses.
#[test]
fn a_printed_postgresql_store_names_no_user_so_it_connects_as_whoever_pastes_it() {
    let env = Env::new();
    let TestDb::Postgres { .. } = env.store else {
        return;
    };
    let asked = raw(env.command(&["ask", "Ship it?", "--option", "yes", "--option", "no"]));
    asked.assert_code(75);
    let run = asked.stdout.trim().to_string();
    assert_shown!(env, asked.stderr, @"
    run [RUN] is waiting for input (1 pending):
      [CALL] question: Ship it? [yes | no]
        mastra-ask --db postgres://127.0.0.1:[PORT]/[DB] answer [RUN] <label>
    ");
    let json = raw(env.command(&["pending", "-o", "json"]));
    let item: serde_json::Value =
        serde_json::from_str(json.stdout.lines().next().unwrap()).unwrap();
    let command = item["command"].as_str().unwrap().to_string();
    assert_shown!(env, command, @"mastra-ask --db postgres://127.0.0.1:[PORT]/[DB] answer [RUN] <label>");

    // Pasted by someone whose PGUSER is another role, it connects as that role.
    let pasted = command.replace("<label>", "yes");
    let paste = |pguser: &str| {
        let mut sh = env.command_of(std::path::Path::new("/bin/sh"), &["-c", &pasted]);
        sh.env_remove("MASTRA_ASK_DB").env("PGUSER", pguser).env(
            "PATH",
            format!(
                "{}:{}",
                bin_dir(),
                std::env::var("PATH").unwrap_or_default()
            ),
        );
        raw(sh)
    };
    let stranger = paste("nobody_here");
    assert_shown!(env, stranger, @r#"
    [exit 1]
    --- stderr
    error: connecting to the store at postgres://127.0.0.1:[PORT]/[DB]: db error: FATAL: role "nobody_here" does not exist
    hint: check the store URL (host, port, user, password in PGPASSWORD) and that the server is up
    "#);
    let answered = paste(&env.store.role().unwrap());
    answered.assert_code(0);
    assert_eq!(env.status(&run), "completed");
}

/// The directory of the binary under test, so a pasted `mastra-ask` finds it.
fn bin_dir() -> String {
    std::path::Path::new(crate::common::BIN)
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}
