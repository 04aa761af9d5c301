//! The rule for every file path a model names (SPEC §2.2, §11): a plan that `submit_plan`
//! reads, a file that `write_file` writes. A model chooses such a path, so it must never be a
//! way to read a key or a config file (`.ssh/id_ed25519`, `.env`, `.git/config`) into the
//! store, a reviewer's screen or a server, nor to rewrite one (`.git/config`, `.bashrc`,
//! `.github/workflows/`): the file has one of a few text extensions (any case), and no
//! component of its path starts with `.`, except Mastra's own plan folder
//! `.mastracode/plans/` at the start of the path (exactly so spelled: the folder Mastra
//! writes; `.MastraCode/` is refused, even where the file system ignores case).
//!
//! The rule is checked twice by its callers: on the path as named, before anything is opened
//! (`..` taken lexically, so `.mastracode/plans/../../.ssh/k.md` is `.ssh/k.md`), and on the
//! path as `beneath` resolved it (every symlink followed), so that `notes.md -> .git/x.md`
//! or `docs -> .github` is refused as well. Confinement to the directory is `beneath`'s
//! job, not this one's. Nothing here touches the file system.

use std::path::{Component, Path};

/// What a plan may be, and what `write_file` may write: Markdown.
pub const PLAN: Kinds = Kinds {
    extensions: &["md", "markdown"],
    noun: "a Markdown file (.md or .markdown)",
};

/// Mastra's plan folder, the one hidden folder a model's path may start with.
const PLAN_FOLDER: [&str; 2] = [".mastracode", "plans"];

/// The files a caller accepts: their extensions (compared without case) and how to name them.
#[derive(Clone, Copy, Debug)]
pub struct Kinds {
    extensions: &'static [&'static str],
    noun: &'static str,
}

/// Checks `path`, relative to the directory it is read or written in. The error says what is
/// wrong, without the path (the caller names it).
pub fn check(path: &Path, kinds: Kinds) -> Result<(), String> {
    let names = normal(path);
    let exempt =
        if names.len() > PLAN_FOLDER.len() && names.iter().zip(PLAN_FOLDER).all(|(n, f)| n == f) {
            PLAN_FOLDER.len()
        } else {
            0
        };
    if let Some(at) = names[exempt..].iter().position(|n| n.starts_with('.')) {
        let hidden = &names[exempt + at];
        let what = if exempt + at + 1 == names.len() {
            "it is a hidden file"
        } else {
            "it is in a hidden folder"
        };
        return Err(format!(
            "{what} ({hidden}); a model's path may not start a name with a dot, except .mastracode/plans/"
        ));
    }
    let extension = names
        .last()
        .and_then(|n| Path::new(n).extension())
        .and_then(|e| e.to_str());
    let known =
        extension.is_some_and(|e| kinds.extensions.iter().any(|k| k.eq_ignore_ascii_case(e)));
    if !known {
        return Err(format!("it is not {}", kinds.noun));
    }
    Ok(())
}

/// The names of `path` with `.` left out and each `..` taking back the name before it (a
/// `..` with nothing before it stays out: leaving the directory is `beneath`'s to refuse).
/// A name that is not UTF-8 is kept as its lossy text (a dot stays a dot).
fn normal(path: &Path) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(n) => names.push(n.to_string_lossy().into_owned()),
            Component::ParentDir => {
                names.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(p: &str) -> Result<(), String> {
        check(Path::new(p), PLAN)
    }

    #[test]
    fn plans_are_markdown_files_in_visible_folders_or_mastras_own() {
        for ok in [
            "PLAN.md",
            "plan.MD",
            "docs/plans/release.markdown",
            "./sub/../plan.Markdown",
            ".mastracode/plans/add-dark-mode.md",
            ".mastracode/plans/sub/x.md",
            ".git/../plan.md",
        ] {
            assert_eq!(plan(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            (".env", "it is a hidden file (.env)"),
            (".ssh/id_ed25519", "it is in a hidden folder (.ssh)"),
            (".ssh/id_ed25519.md", "it is in a hidden folder (.ssh)"),
            (".git/config", "it is in a hidden folder (.git)"),
            ("sub/.git/config.md", "it is in a hidden folder (.git)"),
            (
                ".github/workflows/x.md",
                "it is in a hidden folder (.github)",
            ),
            (
                ".mastracode/plans/../../.ssh/k.md",
                "it is in a hidden folder (.ssh)",
            ),
            (
                ".mastracode/plans/.hidden.md",
                "it is a hidden file (.hidden.md)",
            ),
            (".mastracode/plans/.x/p.md", "it is in a hidden folder (.x)"),
            (".mastracode/x.md", "it is in a hidden folder (.mastracode)"),
            (
                ".mastracode/plans",
                "it is in a hidden folder (.mastracode)",
            ),
            (
                ".MastraCode/plans/x.md",
                "it is in a hidden folder (.MastraCode)",
            ),
            ("../.ssh/k.md", "it is in a hidden folder (.ssh)"),
            (".md", "it is a hidden file (.md)"),
            ("notes.txt", "it is not a Markdown file (.md or .markdown)"),
            ("plan", "it is not a Markdown file (.md or .markdown)"),
            ("plan.md.sh", "it is not a Markdown file (.md or .markdown)"),
            ("", "it is not a Markdown file (.md or .markdown)"),
        ] {
            let e = plan(bad).unwrap_err();
            assert!(e.starts_with(why), "{bad}: {e}");
        }
    }
}
