//! The repository's GitHub Action (action.yml, SPEC §17), its scripts run as GitHub runs
//! them: with the inputs in the environment and a `GITHUB_OUTPUT` file. `action/ask.sh` asks
//! (or has a plan reviewed), waits for the decision given from another process, and writes
//! the outputs a workflow reads (multi-line values under a random delimiter), exiting by the
//! decision; `action/install.sh` installs a release archive only when its checksum is the
//! one the release lists.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::assert_shown;
use crate::common::{finish, Env, BIN};

/// Whether the programs the action's scripts use are here, as on GitHub's runners (`jq`,
/// `curl`, `sha256sum`): without one a test is skipped, saying why, except in CI, where it
/// fails (`.ci/run` installs them).
fn runner_tools() -> bool {
    let missing: Vec<&str> = ["jq", "curl", "sha256sum"]
        .into_iter()
        .filter(|p| Command::new(p).arg("--version").output().is_err())
        .collect();
    if missing.is_empty() {
        return true;
    }
    let why = format!("the action's scripts need {}", missing.join(", "));
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        panic!("the action's tests must run in CI, but {why}");
    }
    eprintln!("skipped: {why}");
    false
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("action")
        .join(name)
}

/// `bash action/NAME` as a GitHub runner starts it: the environment cleared but for `vars`,
/// the job's PATH with mastra-ask on it, and `GITHUB_OUTPUT` (`work/output`).
fn step(env: &Env, name: &str, vars: &[(&str, &str)]) -> Command {
    let mut c = env.command_of(Path::new("bash"), &[script(name).to_str().unwrap()]);
    let bin = Path::new(BIN).parent().unwrap().display().to_string();
    let path = std::env::var("PATH").unwrap_or_default();
    c.env("PATH", format!("{bin}:{path}"))
        .env("GITHUB_OUTPUT", env.path("work/output"))
        .env("GITHUB_PATH", env.path("work/path"))
        .env("RUNNER_TEMP", env.path("work"));
    for (k, v) in vars {
        c.env(k, v);
    }
    c
}

/// The outputs the step wrote, each delimiter shown as `[EOF]`.
fn outputs(env: &Env) -> String {
    let text = std::fs::read_to_string(env.path("work/output")).unwrap();
    let first = text.lines().next().unwrap();
    let delimiter = first.split_once("<<").unwrap().1;
    assert_eq!(delimiter.len(), "mastra_ask_".len() + 32, "{delimiter}");
    text.replace(delimiter, "[EOF]")
}

/// Starts the step, waits for its item, decides it with `decide` (the run id appended
/// where `{}` is), and returns the step's output.
fn decided(env: &Env, vars: &[(&str, &str)], decide: &[&str]) -> crate::common::Out {
    let child = step(env, "ask.sh", vars)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = env.first_pending();
    env.wait_for_waiter(&run);
    let args: Vec<&str> = decide
        .iter()
        .map(|a| if *a == "{}" { run.as_str() } else { a })
        .collect();
    env.cmd(&args).code(0);
    finish(child)
}

#[test]
fn the_action_waits_for_the_answer_and_sets_it_as_outputs() {
    if !runner_tools() {
        return;
    }
    let env = Env::new();
    let store = env.store.url();
    let out = decided(
        &env,
        &[
            ("QUESTION", "Deploy to which environments?"),
            ("OPTIONS", "staging\nproduction\n"),
            ("MULTI", "true"),
            ("WAIT", "5m"),
            ("DB", &store),
            ("PUBLIC_URL", "https://inbox.example.com/"),
        ],
        &["answer", "{}", "--multi", "staging", "production"],
    );
    out.assert_code(0);
    assert_eq!(out.stdout, "");
    assert_shown!(env, outputs(&env), @r"
    run-id<<[EOF]
    [RUN]
    [EOF]
    decision<<[EOF]
    answered
    [EOF]
    answer<<[EOF]
    staging
    production
    [EOF]
    by<<[EOF]
    tester
    [EOF]
    url<<[EOF]
    https://inbox.example.com/runs/[RUN]/items/[CALL]
    [EOF]
    ");
}

#[test]
fn a_rejected_plan_fails_the_step_with_its_feedback_as_the_answer() {
    if !runner_tools() {
        return;
    }
    let env = Env::new();
    let plan = env.write("work/PLAN.md", "# Release\n\n1. Tag.\n");
    let out = decided(
        &env,
        &[
            ("PLAN", plan.to_str().unwrap()),
            ("WAIT", "5m"),
            ("REVIEWERS", ""),
        ],
        &[
            "review",
            "{}",
            "--reject",
            "--feedback",
            "Not on a Friday.\nanswer<<x\nTry Monday.",
        ],
    );
    out.assert_code(5);
    assert_shown!(env, outputs(&env), @r"
    run-id<<[EOF]
    [RUN]
    [EOF]
    decision<<[EOF]
    rejected
    [EOF]
    answer<<[EOF]
    Not on a Friday.
    answer<<x
    Try Monday.
    [EOF]
    by<<[EOF]
    tester
    [EOF]
    url<<[EOF]

    [EOF]
    ");
}

#[test]
fn without_waiting_the_step_asks_and_goes_on() {
    if !runner_tools() {
        return;
    }
    let env = Env::new();
    let out = env.run_with(step(
        &env,
        "ask.sh",
        &[
            ("QUESTION", "Release?"),
            ("WAIT", "0"),
            ("PUBLIC_URL", "https://inbox.example.com"),
        ],
    ));
    out.assert_code(0);
    assert_shown!(env, outputs(&env), @r"
    run-id<<[EOF]
    [RUN]
    [EOF]
    decision<<[EOF]
    pending
    [EOF]
    answer<<[EOF]

    [EOF]
    by<<[EOF]

    [EOF]
    url<<[EOF]
    https://inbox.example.com/runs/[RUN]/items/[CALL]
    [EOF]
    ");
    assert_eq!(env.run(&["pending", "-q"]).stdout.lines().count(), 1);

    // Neither a question nor a plan: refused before anything is stored.
    let out = env.run_with(step(&env, "ask.sh", &[("WAIT", "0")]));
    out.assert_code(2);
    assert_shown!(env, out.stderr, @"::error::give question (ask a person) or plan (a file a person approves or rejects)");
}

/// A release `v9.9.9` of mastra-ask (a stand-in that tells its version) for Linux x86_64 in
/// `work/releases`, with its SHA256SUMS, laid out as `release.yml` publishes them; `tamper`
/// changes the archive after its sum was taken.
fn release(env: &Env, tamper: bool) -> String {
    let name = "mastra-ask-v9.9.9-x86_64-unknown-linux-gnu";
    let binary = env.write(
        &format!("work/releases/v9.9.9/{name}/mastra-ask"),
        "#!/bin/sh\necho 'mastra-ask 9.9.9'\n",
    );
    let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(&binary, mode).unwrap();
    let at = env.path("work/releases/v9.9.9");
    let sh = |cmd: &str| {
        let ok = Command::new("sh")
            .args(["-c", cmd])
            .current_dir(&at)
            .status()
            .unwrap();
        assert!(ok.success(), "{cmd}");
    };
    sh(&format!(
        "tar -czf {name}.tar.gz {name} && sha256sum {name}.tar.gz > SHA256SUMS"
    ));
    if tamper {
        sh(&format!("echo >> {name}.tar.gz"));
    }
    format!("file://{}", env.path("work/releases").display())
}

fn install(env: &Env, releases: &str) -> crate::common::Out {
    let root = env.path("work/root");
    let mut c = step(
        env,
        "install.sh",
        &[
            ("VERSION", "v9.9.9"),
            ("RUNNER_OS", "Linux"),
            ("RUNNER_ARCH", "X64"),
            ("MASTRA_ASK_ACTION_RELEASES", releases),
            ("ROOT", root.to_str().unwrap()),
        ],
    );
    c.env("REPOSITORY", "owner/mastra-ask");
    env.run_with(c)
}

#[test]
fn a_release_is_installed_only_with_the_checksum_its_release_lists() {
    if !runner_tools() {
        return;
    }
    let env = Env::new();
    let out = install(&env, &release(&env, true));
    out.assert_code(1);
    assert_shown!(env, out.stderr, @"::error::the checksum of mastra-ask-v9.9.9-x86_64-unknown-linux-gnu.tar.gz is not the one in the release's SHA256SUMS: nothing installed");
    assert!(!env.path("work/root/bin/mastra-ask").exists());
    assert!(!env.path("work/path").exists());

    let out = install(&env, &release(&env, false));
    out.assert_code(0);
    assert_eq!(out.stdout, "mastra-ask 9.9.9\n");
    assert_eq!(
        std::fs::read_to_string(env.path("work/path")).unwrap(),
        format!("{}\n", env.path("work/root/bin").display())
    );
}

#[test]
fn nobody_deciding_in_time_fails_the_step_as_expired() {
    if !runner_tools() {
        return;
    }
    let env = Env::new();
    let out = env.run_with(step(
        &env,
        "ask.sh",
        &[("QUESTION", "Anyone?"), ("WAIT", "1s")],
    ));
    out.assert_code(124);
    let outputs = outputs(&env);
    assert!(
        outputs.contains(
            "decision<<[EOF]\nexpired\n[EOF]\nanswer<<[EOF]\n\n[EOF]\nby<<[EOF]\n\n[EOF]\n"
        ),
        "{outputs}"
    );
}
