//! The completion scripts work in real shells: each script `mastra-ask completions SHELL`
//! prints is loaded into bash, zsh or fish and asked what it offers, as a person's TAB would
//! (bash: the registered function with `COMP_WORDS`/`COMP_CWORD`, read from `COMPREPLY`;
//! zsh: a TAB typed into an interactive zsh in a pseudo-terminal; fish: `complete -C`). The
//! scripts call the binary back (found in `PATH`, as an installed one is), which reads the
//! test's store for run ids.
//! A shell that is not installed is skipped with a printed reason; with `CI` set it fails
//! instead (.ci/run installs them).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::{exit_within, Env, BIN};

const SHELLS: [&str; 5] = ["bash", "elvish", "fish", "powershell", "zsh"];
const STATUSES: [&str; 5] = ["running", "suspended", "completed", "failed", "cancelled"];

/// Whether `shell` can be run; if not, says why the test is skipped (or fails in CI).
fn have(shell: &str) -> bool {
    let found = Command::new(shell)
        .arg("-c")
        .arg("exit 0")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v.is_empty()),
            "{shell} is not installed, and CI must test its completions (.ci/run installs it)"
        );
        eprintln!("skipped: {shell} is not installed, so its completions are not tested here");
    }
    found
}

/// The completion script the binary prints for `shell`, written into the test's directory.
fn script(env: &Env, shell: &str) -> PathBuf {
    let out = env.cmd(&["completions", shell]).code(0);
    let dir = env.path(&format!("completions-{shell}"));
    std::fs::create_dir_all(&dir).unwrap();
    // zsh finds a completion function by its file name in $fpath.
    let path = dir.join(if shell == "zsh" {
        "_mastra-ask"
    } else {
        "script"
    });
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

/// Runs a shell with a clean environment and a private HOME; its stdout, once it exits,
/// within a deadline.
fn run_shell(env: &Env, program: &str, args: &[&str]) -> String {
    let home = env.path("shell-home");
    std::fs::create_dir_all(&home).unwrap();
    // The scripts call `mastra-ask` by name: this build's comes first in PATH.
    let bin_dir = Path::new(BIN).parent().unwrap().to_path_buf();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path =
        std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(&path))).unwrap();
    let mut child = Command::new(program)
        .args(args)
        .env_clear()
        .env("PATH", path)
        .env("MASTRA_ASK_DB", env.store.url())
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("TERM", "xterm")
        .current_dir(env.work())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let what = format!("{program} {args:?} did not finish");
    exit_within(&mut child, &what, Duration::from_secs(60));
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What bash completes for `words` (the last one is the word under the cursor): the
/// function `complete -p mastra-ask` names, called as bash would, and its `COMPREPLY`.
fn bash_offers(env: &Env, script: &Path, words: &[&str]) -> Vec<String> {
    const DRIVER: &str = r#"
source "$1"; shift
spec=$(complete -p mastra-ask) || exit 3
fn=${spec##*-F }; fn=${fn%% *}
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let mut args = vec![
        "--norc",
        "--noprofile",
        "-c",
        DRIVER,
        "bash",
        script.to_str().unwrap(),
    ];
    args.extend(words);
    lines(&run_shell(env, "bash", &args))
}

/// What zsh offers when TAB is typed after `line` in an interactive zsh (in a pty made by
/// zsh's own zpty module), with the script's directory in `$fpath` and `compinit` loaded.
/// Every candidate that reaches `compadd` is printed as `<<cand:WORD>>`.
fn zsh_offers(env: &Env, script: &Path, line: &str) -> Vec<String> {
    const DRIVER: &str = r#"
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
out=""
# Reads the pty until its output holds $1, for at most 30 s.
upto() {
  integer i=0
  while (( i++ < 600 )); do
    if zpty -r -t z chunk; then out+=$chunk; [[ $out == *$1* ]] && return 0; else sleep 0.05; fi
  done
  print -r -- "no $1 from zsh: $out" >&2
  exit 4
}
zpty -w z "PS1='' RPS1=''; fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd() { if (( ${@[(I)-(O|A|D)]} )); then builtin compadd "$@"; return; fi; local -a h; builtin compadd -A h "$@"; local w; for w in $h; do print -r -- "<<cand:$w>>"; done; builtin compadd "$@"; }'
zpty -w z 'print -r -- "<<rea""dy>>"'
upto '<<ready>>'
out=""
zpty -n -w z "$2"$'\t'
zpty -n -w z $'\C-u'
zpty -w z 'print -r -- "<<do""ne>>"'
upto '<<done>>'
zpty -d z
print -r -- "$out"
"#;
    let dir = script.parent().unwrap().to_str().unwrap();
    let out = run_shell(env, "zsh", &["-f", "-c", DRIVER, "zsh", dir, line]);
    let mut offers = Vec::new();
    for piece in out.split("<<cand:").skip(1) {
        if let Some(word) = piece.split(">>").next() {
            if !offers.iter().any(|o| o == word) {
                offers.push(word.to_string());
            }
        }
    }
    offers
}

/// What fish offers for `line` (`complete -C`), without descriptions.
fn fish_offers(env: &Env, script: &Path, line: &str) -> Vec<String> {
    let code = "source $argv[1]; complete -C $argv[2]";
    let out = run_shell(
        env,
        "fish",
        &["--no-config", "-c", code, script.to_str().unwrap(), line],
    );
    out.lines()
        .map(|l| l.split('\t').next().unwrap_or("").to_string())
        .collect()
}

fn lines(s: &str) -> Vec<String> {
    s.lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn sorted_strs(v: &[&str]) -> Vec<String> {
    sorted(v.iter().map(|s| s.to_string()).collect())
}

#[track_caller]
fn assert_offers_all(offers: &[String], expected: &[&str]) {
    for e in expected {
        assert!(offers.iter().any(|o| o == e), "{e} not offered: {offers:?}");
    }
}

#[test]
fn bash_completes_below_the_first_word() {
    if !have("bash") {
        return;
    }
    let env = Env::new();
    let s = script(&env, "bash");
    let review = bash_offers(&env, &s, &["mastra-ask", "review", "--"]);
    assert_offers_all(&review, &["--approve", "--reject", "--feedback", "--db"]);
    assert!(review.iter().all(|o| o.starts_with("--")), "{review:?}");
    assert_eq!(
        sorted(bash_offers(
            &env,
            &s,
            &["mastra-ask", "runs", "--status", ""]
        )),
        sorted_strs(&STATUSES)
    );
    assert_eq!(
        bash_offers(&env, &s, &["mastra-ask", "runs", "--status", "su"]),
        ["suspended"]
    );
    assert_eq!(
        sorted(bash_offers(
            &env,
            &s,
            &["mastra-ask", "prune", "--status", ""]
        )),
        sorted_strs(&["completed", "failed", "cancelled"])
    );
    let shells = bash_offers(&env, &s, &["mastra-ask", "completions", ""]);
    assert_offers_all(&shells, &SHELLS);
    let top = bash_offers(&env, &s, &["mastra-ask", ""]);
    assert_offers_all(&top, &["run", "pending", "answer", "review"]);
    assert!(top.iter().all(|o| !o.starts_with('-')), "{top:?}");
    assert_offers_all(
        &bash_offers(&env, &s, &["mastra-ask", "-"]),
        &["--db", "-o", "-h"],
    );
    assert_eq!(
        bash_offers(&env, &s, &["mastra-ask", "answer", "--mu"]),
        ["--multi"]
    );
}

#[test]
fn zsh_completes_below_the_first_word() {
    if !have("zsh") {
        return;
    }
    let env = Env::new();
    let s = script(&env, "zsh");
    let review = zsh_offers(&env, &s, "mastra-ask review --");
    assert_offers_all(&review, &["--approve", "--reject", "--feedback", "--db"]);
    assert_eq!(
        sorted(zsh_offers(&env, &s, "mastra-ask runs --status ")),
        sorted_strs(&STATUSES)
    );
    assert_eq!(
        sorted(zsh_offers(&env, &s, "mastra-ask prune --status ")),
        sorted_strs(&["completed", "failed", "cancelled"])
    );
    assert_eq!(
        sorted(zsh_offers(&env, &s, "mastra-ask completions ")),
        sorted_strs(&SHELLS)
    );
}

#[test]
fn fish_completes_below_the_first_word() {
    if !have("fish") {
        return;
    }
    let env = Env::new();
    let s = script(&env, "fish");
    let review = fish_offers(&env, &s, "mastra-ask review --");
    assert_offers_all(&review, &["--approve", "--reject", "--feedback", "--db"]);
    assert_eq!(
        sorted(fish_offers(&env, &s, "mastra-ask runs --status ")),
        sorted_strs(&STATUSES)
    );
    assert_eq!(
        sorted(fish_offers(&env, &s, "mastra-ask prune --status ")),
        sorted_strs(&["completed", "failed", "cancelled"])
    );
    assert_eq!(
        sorted(fish_offers(&env, &s, "mastra-ask completions ")),
        sorted_strs(&SHELLS)
    );
}

// ---- run ids and directories -------------------------------------------------------------

/// A store with a run waiting on a question, one on a plan (newer) and a finished one
/// (newest); returns (question run, plan run, finished run).
fn runs_to_complete(env: &Env) -> (String, String, String) {
    let id = |out: crate::common::Out| out.stdout.trim().to_string();
    let question = id(env.run(&[
        "ask",
        "Which theme?",
        "--option",
        "Dark",
        "--option",
        "Light",
    ]));
    env.write("work/PLAN.md", "# Plan\n\n1. Go.\n");
    let plan = id(env.run(&["plan", "PLAN.md"]));
    let done = id(env.run(&["ask", "Name?"]));
    env.run(&["answer", &done, "Ada"]).assert_code(0);
    std::fs::create_dir_all(env.path("work/examples/release")).unwrap();
    (question, plan, done)
}

#[test]
fn bash_completes_run_ids_from_the_store_and_directories_with_a_slash() {
    if !have("bash") {
        return;
    }
    let env = Env::new();
    let s = script(&env, "bash");
    // No store yet: no run to offer (only the options, kept for when nothing else fits),
    // and completing does not create one.
    let offers = bash_offers(&env, &s, &["mastra-ask", "show", ""]);
    assert!(offers.iter().all(|o| o.starts_with("--")), "{offers:?}");
    assert!(!env.db().exists(), "completion created the store");
    let (question, plan, done) = runs_to_complete(&env);
    // The runs that wait for this command's kind of item (so one completes at once), else
    // every run that waits; never a finished one, and no option in the way.
    assert_eq!(
        bash_offers(&env, &s, &["mastra-ask", "answer", ""]),
        [question.as_str()]
    );
    assert_eq!(
        bash_offers(&env, &s, &["mastra-ask", "review", ""]),
        [plan.as_str()]
    );
    assert_eq!(
        bash_offers(&env, &s, &["mastra-ask", "approve", ""]),
        [question.as_str(), &plan]
    );
    // Newest first elsewhere; a prefix completes to the one run.
    assert_eq!(
        bash_offers(&env, &s, &["mastra-ask", "show", ""]),
        [done.as_str(), &plan, &question]
    );
    assert_eq!(
        bash_offers(&env, &s, &["mastra-ask", "cancel", &question[..6]]),
        [question.as_str()]
    );
    assert_eq!(
        bash_offers(&env, &s, &["mastra-ask", "pending", "--run", &plan[..5]]),
        [plan.as_str()]
    );
    // --db on the line being completed names the store: here one that does not exist.
    let no_runs = |offers: Vec<String>| offers.iter().all(|o| o.starts_with("--"));
    assert!(no_runs(bash_offers(
        &env,
        &s,
        &["mastra-ask", "--db", "nowhere.db", "show", ""]
    )));
    assert!(!env.path("work/nowhere.db").exists());
    // A directory completes with its slash, so the next TAB goes on inside it.
    assert_eq!(
        bash_offers(&env, &s, &["mastra-ask", "run", "--agent", "examples/rel"]),
        ["examples/release/"]
    );
    // A store that cannot be read offers nothing and prints nothing.
    std::fs::write(env.path("work/garbage.db"), "not a database").unwrap();
    assert!(no_runs(bash_offers(
        &env,
        &s,
        &["mastra-ask", "--db", "garbage.db", "show", ""]
    )));
}

#[test]
fn zsh_completes_run_ids_from_the_store_and_directories_with_a_slash() {
    if !have("zsh") {
        return;
    }
    let env = Env::new();
    let s = script(&env, "zsh");
    let (question, plan, done) = runs_to_complete(&env);
    assert_eq!(
        zsh_offers(&env, &s, "mastra-ask answer "),
        [question.as_str()]
    );
    // A finished run is offered where any run will do.
    assert_eq!(
        zsh_offers(&env, &s, &format!("mastra-ask show {}", &done[..6])),
        [done.as_str()]
    );
    assert_eq!(
        zsh_offers(&env, &s, &format!("mastra-ask show {}", &plan[..6])),
        [plan.as_str()]
    );
    // zsh adds the slash itself: the candidate is the directory, offered with `-S /`.
    assert_eq!(
        zsh_offers(&env, &s, "mastra-ask run --agent examples/rel"),
        ["examples/release"]
    );
}

#[test]
fn fish_completes_run_ids_from_the_store_and_directories_with_a_slash() {
    if !have("fish") {
        return;
    }
    let env = Env::new();
    let s = script(&env, "fish");
    let (question, plan, done) = runs_to_complete(&env);
    assert_eq!(
        fish_offers(&env, &s, "mastra-ask answer "),
        [question.as_str()]
    );
    assert_eq!(
        fish_offers(&env, &s, "mastra-ask approve "),
        [question.as_str(), &plan]
    );
    assert_eq!(
        fish_offers(&env, &s, &format!("mastra-ask wait {}", &done[..6])),
        [done.as_str()]
    );
    assert_eq!(
        fish_offers(&env, &s, "mastra-ask run --agent examples/rel"),
        ["examples/release/"]
    );
    // fish shows each run's description: its state, agent and what it waits for.
    let code = "source $argv[1]; complete -C $argv[2]";
    let described = run_shell(
        &env,
        "fish",
        &[
            "--no-config",
            "-c",
            code,
            s.to_str().unwrap(),
            "mastra-ask answer ",
        ],
    );
    assert!(
        described.contains(&format!("{question}\tsuspended ask: question Which theme?")),
        "{described}"
    );
}
