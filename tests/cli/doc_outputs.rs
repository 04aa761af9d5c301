//! What the docs say a command prints is what it prints: the columns of `pending -q` as
//! docs/scripts-and-ci.md names them and reads them in its shell loop, the stdout and exit
//! code of a rejected `plan --wait` as its console block shows them, and no id shown
//! shortened where the program prints it whole. (`docs.rs` checks that the command lines
//! parse; the README's tour is run by `walkthrough.rs`.)

use crate::common::{finish, Env};

const SCRIPTS: &str = include_str!("../../docs/scripts-and-ci.md");

/// The text between the first `start` after `after` and the next `end`.
fn between<'a>(text: &'a str, after: &str, start: &str, end: &str) -> &'a str {
    let from = text.find(after).unwrap_or_else(|| panic!("no {after:?}")) + after.len();
    let rest = &text[from..];
    let s = rest.find(start).unwrap_or_else(|| panic!("no {start:?}")) + start.len();
    let rest = &rest[s..];
    &rest[..rest.find(end).unwrap_or_else(|| panic!("no {end:?}"))]
}

/// A store with one plan and one question pending.
fn two_pending(env: &Env) {
    env.write("work/PLAN.md", "# Migrate\n\n1. Back up\n");
    env.run(&["plan", "PLAN.md"]).assert_code(75);
    env.run(&["ask", "Ship it?", "--option", "yes", "--option", "no"])
        .assert_code(75);
}

#[test]
fn pending_q_prints_the_columns_the_docs_name_and_read() {
    let named: Vec<&str> = between(SCRIPTS, "`pending -q` prints one `", "", "`")
        .split(' ')
        .collect();
    let read: Vec<&str> = between(
        SCRIPTS,
        "mastra-ask pending -q | while read -r ",
        "",
        "; do",
    )
    .split(' ')
    .collect();
    assert_eq!(named.len(), read.len(), "{named:?} vs {read:?}");
    assert_eq!(named.last(), Some(&"KIND"));

    let env = Env::new();
    two_pending(&env);
    let out = env.cmd(&["pending", "-q"]).code(0);
    let lines: Vec<Vec<&str>> = out.stdout.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(lines.len(), 2, "{}", out.stdout);
    let kinds: Vec<&str> = lines.iter().map(|l| *l.last().unwrap()).collect();
    assert_eq!(kinds, ["plan", "question"]);
    for line in &lines {
        assert_eq!(
            line.len(),
            named.len(),
            "{line:?} against the docs' {named:?}"
        );
    }
}

#[test]
fn a_rejected_plan_waiter_prints_what_the_docs_show() {
    let feedback = between(
        SCRIPTS,
        "Here a reviewer rejected the plan with",
        "--feedback \"",
        "\"`",
    );
    let block = between(
        SCRIPTS,
        "Here a reviewer rejected the plan with",
        "```console\n",
        "```",
    );
    let lines: Vec<&str> = block.lines().collect();
    let [command, printed @ .., "$ echo $?", code] = lines.as_slice() else {
        panic!("the block is a command, its stdout, then `echo $?`: {lines:?}")
    };
    let command = command
        .strip_prefix("$ mastra-ask ")
        .and_then(|c| c.strip_suffix(" 2>/dev/null"))
        .expect("the command shows its stdout only");
    let args = shell_words::split(command).unwrap();
    assert!(args.contains(&"--wait".to_string()), "{args:?}");

    let env = Env::new();
    env.write("work/RELEASE_PLAN.md", "# Release\n\n1. Tag\n");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let waiter = env.spawn(&args);
    let run = env.first_pending();
    env.run(&["review", &run, "--reject", "--feedback", feedback])
        .assert_code(0);
    let out = finish(waiter);
    assert_eq!(out.code.to_string(), *code, "stderr: {}", out.stderr);
    let stdout: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(stdout, printed);
}

/// The program prints run ids whole (SPEC §5): a page that shows them cut (`7c9e…-b2a1`)
/// shows what nobody will see.
#[test]
fn no_page_shows_an_id_cut_short() {
    let cut = cut_id();
    for (name, text) in [
        ("README.md", include_str!("../../README.md")),
        (
            "docs/mastra-servers.md",
            include_str!("../../docs/mastra-servers.md"),
        ),
        ("docs/scripts-and-ci.md", SCRIPTS),
        ("docs/terminal.md", include_str!("../../docs/terminal.md")),
        ("docs/reference.md", include_str!("../../docs/reference.md")),
        (
            "docs/teams-postgresql.md",
            include_str!("../../docs/teams-postgresql.md"),
        ),
        ("docs/serve.md", include_str!("../../docs/serve.md")),
    ] {
        for (n, line) in text.lines().enumerate() {
            assert!(!cut(line), "{name}:{}: an id cut short: {line}", n + 1);
        }
    }
}

/// Whether a line holds a hex id cut with an ellipsis (`7c9e…-b2a1`, `0b06…9f3e`).
fn cut_id() -> impl Fn(&str) -> bool {
    |line: &str| {
        line.match_indices('…').any(|(i, _)| {
            let before = line[..i]
                .chars()
                .rev()
                .take_while(char::is_ascii_hexdigit)
                .count();
            let after = line[i + '…'.len_utf8()..]
                .trim_start_matches('-')
                .chars()
                .take_while(char::is_ascii_hexdigit)
                .count();
            before >= 4 && after >= 4
        })
    }
}
