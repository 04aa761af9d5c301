//! The suite's own shape: every `.rs` file under `tests/cli/` is reached by a chain of `mod`
//! lines from `main.rs`. A file no `mod` names compiles into nothing and its tests never run,
//! silently; this check names it. It reads the sources, it runs no command.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The `mod NAME;` declarations of a source file (with or without `pub`), skipping those a
/// `#[path]` attribute sends elsewhere (they leave `tests/cli/`).
fn declared_mods(source: &str) -> Vec<String> {
    let mut mods = Vec::new();
    let mut redirected = false;
    for line in source.lines().map(str::trim) {
        if line.starts_with("#[path") {
            redirected = true;
            continue;
        }
        let decl = line
            .strip_prefix("pub(crate) ")
            .or_else(|| line.strip_prefix("pub "))
            .unwrap_or(line);
        if let Some(name) = decl.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
            if !std::mem::take(&mut redirected) {
                mods.push(name.trim().to_string());
            }
        } else if !line.starts_with("#[") && !line.starts_with("//") {
            redirected = false;
        }
    }
    mods
}

/// The files `file`'s `mod` lines reach: `NAME.rs` or `NAME/mod.rs` beside a `main.rs` or a
/// `mod.rs`, under a folder of the file's name otherwise.
fn children(file: &Path) -> Vec<PathBuf> {
    let source = std::fs::read_to_string(file).unwrap();
    let stem = file.file_stem().unwrap();
    let parent = file.parent().unwrap();
    let dir = if stem == "main" || stem == "mod" {
        parent.to_path_buf()
    } else {
        parent.join(stem)
    };
    declared_mods(&source)
        .into_iter()
        .map(|name| {
            let flat = dir.join(format!("{name}.rs"));
            let nested = dir.join(&name).join("mod.rs");
            match (flat.exists(), nested.exists()) {
                (true, _) => flat,
                (false, true) => nested,
                (false, false) => panic!("{}: `mod {name};` has no file", file.display()),
            }
        })
        .collect()
}

fn rust_files(dir: &Path, into: &mut BTreeSet<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.insert(path);
        }
    }
}

#[test]
fn every_test_file_is_reached_from_main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let mut reached = BTreeSet::new();
    let mut todo = vec![root.join("main.rs")];
    while let Some(file) = todo.pop() {
        if reached.insert(file.clone()) {
            todo.extend(children(&file));
        }
    }
    let mut present = BTreeSet::new();
    rust_files(&root, &mut present);
    let forgotten: Vec<String> = present
        .difference(&reached)
        .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
        .collect();
    assert!(
        forgotten.is_empty(),
        "no `mod` line reaches these files from tests/cli/main.rs, so their tests never run: {}",
        forgotten.join(", ")
    );
}

#[test]
fn a_mod_line_is_read_with_its_attributes() {
    let source = "mod a;\npub mod b;\n#[allow(dead_code)]\n#[path = \"../x.rs\"]\nmod c;\n// mod d;\nmod e;\n";
    assert_eq!(declared_mods(source), ["a", "b", "e"]);
}
