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
        let out = env.run(&["completions", shell]);
        out.assert_code(0);
        stale.extend(check(&root().join("completions").join(file), &out.stdout));
    }
    let dir = env.path("man");
    env.run(&["man", "--out-dir", dir.to_str().unwrap()])
        .assert_code(0);
    let mut generated: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    generated.sort();
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

#[test]
fn the_man_page_documents_the_exit_codes() {
    let page = std::fs::read_to_string(root().join("man/mastra-ask.1")).unwrap();
    for (_, code, _) in mastra_ask::exit::TABLE {
        assert!(
            page.contains(&format!("  {code:>3}  ")),
            "exit code {code} missing from the man page"
        );
    }
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
