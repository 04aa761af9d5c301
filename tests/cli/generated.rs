//! completions/ and man/ are generated from the clap definitions and must stay current.
//! `MASTRA_ASK_BLESS=1 cargo test --test cli generated` rewrites them.

use std::path::{Path, PathBuf};

use crate::common::Env;

const SHELLS: [(&str, &str); 5] = [
    ("bash", "mastra-ask.bash"),
    ("zsh", "_mastra-ask"),
    ("fish", "mastra-ask.fish"),
    ("powershell", "_mastra-ask.ps1"),
    ("elvish", "mastra-ask.elv"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bless() -> bool {
    std::env::var_os("MASTRA_ASK_BLESS").is_some()
}

/// Compares `generated` with the committed file (or rewrites it when blessing).
fn check(path: &Path, generated: &str) -> Option<String> {
    if bless() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, generated).unwrap();
        return None;
    }
    match std::fs::read_to_string(path) {
        Ok(committed) if committed == generated => None,
        _ => Some(path.display().to_string()),
    }
}

#[test]
fn completions_and_man_pages_are_current() {
    let env = Env::new();
    let mut stale = Vec::new();
    for (shell, file) in SHELLS {
        let out = env.cmd(&["completions", shell]).code(0);
        stale.extend(check(&root().join("completions").join(file), &out.stdout));
    }
    let dir = env.path("man");
    let out = env
        .cmd(&["man", "--out-dir", dir.to_str().unwrap()])
        .code(0);
    let mut generated: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    generated.sort();
    // It says what it wrote, on stderr; stdout stays empty.
    assert_eq!(
        out.stderr,
        format!("wrote {} man pages to {}\n", generated.len(), dir.display())
    );
    assert_eq!(out.stdout, "");
    assert!(generated.contains(&"mastra-ask.1".to_string()));
    assert!(generated.contains(&"mastra-ask-answer.1".to_string()));
    for name in &generated {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        stale.extend(check(&root().join("man").join(name), &text));
    }
    if !bless() {
        let mut committed: Vec<String> = std::fs::read_dir(root().join("man"))
            .map(|d| {
                d.map(|e| e.unwrap().file_name().into_string().unwrap())
                    .collect()
            })
            .unwrap_or_default();
        committed.sort();
        assert_eq!(
            committed, generated,
            "man/ holds pages no subcommand generates"
        );
    }
    assert!(
        stale.is_empty(),
        "stale generated files (run MASTRA_ASK_BLESS=1 cargo test --test cli generated): {stale:?}"
    );
}

/// A man page's text for `s`, as roff escapes it (dashes; backquotes are left out).
fn roff(s: &str) -> String {
    s.replace('`', "").replace('-', "\\-")
}

#[test]
fn the_man_pages_have_examples_exit_status_environment_and_files() {
    let page = std::fs::read_to_string(root().join("man/mastra-ask.1")).unwrap();
    for section in [
        ".SH EXAMPLES",
        ".SH \"EXIT STATUS\"",
        ".SH ENVIRONMENT",
        ".SH FILES",
        ".SH COMMANDS",
    ] {
        assert!(
            page.contains(section),
            "{section} missing from mastra-ask.1"
        );
    }
    for (_, code, meaning) in mastra_ask::exit::TABLE {
        let entry = format!(".TP\n\\fB{code}\\fR\n{}\n", roff(meaning));
        assert!(page.contains(&entry), "exit code {code} missing: {entry:?}");
    }
    assert!(page.contains("$XDG_DATA_HOME/mastra\\-ask/mastra\\-ask.db"));
    assert!(
        !page.contains("EXTRA"),
        "the exit codes sit under EXTRA again"
    );
    assert!(
        page.contains(".SH NAME\nmastra\\-ask \\- Durable human"),
        "the main page's NAME has no description"
    );
    for name in std::fs::read_dir(root().join("man")).unwrap() {
        let name = name.unwrap().file_name().into_string().unwrap();
        let text = std::fs::read_to_string(root().join("man").join(&name)).unwrap();
        assert!(
            !text.contains("mastra\\-ask\\-help"),
            "{name} links to a page that does not exist"
        );
        if name != "mastra-ask.1" {
            for section in [
                ".SH EXAMPLES",
                ".SH \"EXIT STATUS\"",
                ".SH \"GLOBAL OPTIONS\"",
            ] {
                assert!(text.contains(section), "{section} missing from {name}");
            }
        }
    }
}

/// Every environment variable the program reads (a `"MASTRA_…"` literal in src/, tests'
/// own variables aside) is in the man page's ENVIRONMENT section.
#[test]
fn the_man_page_names_every_environment_variable() {
    let page = std::fs::read_to_string(root().join("man/mastra-ask.1")).unwrap();
    let environment = page
        .split(".SH ENVIRONMENT")
        .nth(1)
        .and_then(|s| s.split(".SH FILES").next())
        .expect("an ENVIRONMENT section before FILES");
    let names = program_env_vars();
    assert!(names.contains("MASTRA_ASK_DB") && names.contains("MASTRA_SERVER_URL"));
    for name in names {
        assert!(
            environment.contains(&format!("\\fB{}", roff(&name))),
            "{name} is read by the program but not in the man page's ENVIRONMENT"
        );
    }
    for name in ["NO_COLOR", "OPENAI_API_KEY", "OPENROUTER_API_KEY"] {
        assert!(environment.contains(&roff(name)), "{name} missing");
    }
}

/// The `MASTRA_ASK_*` and `MASTRA_SERVER_*` names quoted in src/ (not src/testing.rs, the
/// tests' generators).
pub fn program_env_vars() -> std::collections::BTreeSet<String> {
    fn walk(dir: &Path, found: &mut std::collections::BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs")
                && !path.ends_with("src/testing.rs")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                for piece in text.split("\"MASTRA_").skip(1) {
                    let name: String = piece
                        .chars()
                        .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                        .collect();
                    // A name ending in `_` is a prefix (`MASTRA_ASK_`), not a variable.
                    if piece[name.len()..].starts_with('"')
                        && !name.is_empty()
                        && !name.ends_with('_')
                    {
                        found.insert(format!("MASTRA_{name}"));
                    }
                }
            }
        }
    }
    let mut found = std::collections::BTreeSet::new();
    walk(&root().join("src"), &mut found);
    found
}

#[test]
fn completions_into_a_closed_pipe_exit_quietly() {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' completions bash | head -1",
            crate::common::BIN
        ))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
