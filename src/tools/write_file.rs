//! `write_file`: writes a UTF-8 Markdown file beneath a directory for an agent (its plan,
//! before `submit_plan`, or its notes), confined by the same rules as plan files: a Markdown
//! file (`.md`, `.markdown`; never `.txt`, which is a build input often enough, such as
//! `requirements.txt` or `CMakeLists.txt`) with no component of its path starting with a dot except
//! `.mastracode/plans/`, as named and as resolved (`model_path`), so never `.git/config`, a
//! hook, a workflow or a dotfile; a relative path (or an absolute one inside the directory)
//! that no `..` or symlink can lead out of (`beneath`), an existing parent directory, a
//! regular file or none at the path, at most `MAX_PLAN_FILE` bytes. The file is replaced at
//! once (written beside it, then renamed over it), so a reader never sees half of it, and
//! the new file is created without any execute bit (mode 0644 less the umask), whatever
//! the file it replaces had: nothing it writes can be run.
//!
//! Called by `mastra-ask tool write_file`, which an agent file's command tool runs with the
//! arguments `{path, content}` on stdin (in the run's working directory). The system calls
//! go through rustix, so nothing here is `unsafe`. Nothing here prints or touches the store.

use std::ffi::{CStr, CString};
use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use serde_json::{json, Value};

use super::beneath::{open_dir_beneath, relative, Refusal};
use super::model_path::{self, PLAN};
use super::schema::{self, Problems};
use crate::limits::{show_size, MAX_PLAN_FILE, MAX_PLAN_PATH_CHARS};

pub const NAME: &str = "write_file";

/// The command tool an agent file declares to use it.
pub fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "description": "Path of the file, relative to the working directory."},
            "content": {"type": "string", "description": "The whole text of the file."}
        },
        "required": ["path", "content"],
        "additionalProperties": false
    })
}

/// Checks the arguments and writes the file beneath `root`: `{"path", "bytes"}`, or what
/// is wrong (the validation object's message, or why the file was not written).
pub fn run(args: &Value, root: &Path) -> Result<Value, String> {
    let mut p = Problems::default();
    let map = schema::object(args, "root", &["path", "content"], &mut p);
    let path = map.and_then(|m| {
        schema::required(m, "path", &mut p)
            .and_then(|v| schema::string(v, "path", true, MAX_PLAN_PATH_CHARS, &mut p))
    });
    let content = map.and_then(|m| {
        schema::required(m, "content", &mut p)
            .and_then(|v| schema::string(v, "content", false, usize::MAX, &mut p))
    });
    let (Some(path), Some(content)) = (path, content) else {
        let invalid = p.into_result(NAME, args);
        return Err(invalid["message"]
            .as_str()
            .unwrap_or("invalid input")
            .into());
    };
    write(root, path, content)?;
    Ok(json!({"path": path, "bytes": content.len()}))
}

/// Writes `content` to `path` beneath `root`.
pub fn write(root: &Path, path: &str, content: &str) -> Result<(), String> {
    let fail = |what: &str| Err(format!("cannot write {path}: {what}"));
    if content.len() as u64 > MAX_PLAN_FILE {
        return fail(&format!(
            "the content is larger than {}",
            show_size(MAX_PLAN_FILE)
        ));
    }
    let full = Path::new(path);
    let Some(Component::Normal(name)) = full.components().next_back() else {
        return fail("the path does not name a file");
    };
    if path.ends_with('/') {
        return fail("the path does not name a file");
    }
    if let Ok(rel) = relative(root, full) {
        if let Err(what) = model_path::check(rel, PLAN) {
            return fail(&what);
        }
    }
    let parent = full.parent().unwrap_or(Path::new(""));
    let (dir, resolved) = match open_dir_beneath(root, parent) {
        Ok(d) => d,
        Err(r) => return fail(&refused(&r)),
    };
    let resolved = resolved.join(name);
    if let Err(what) = model_path::check(&resolved, PLAN) {
        return fail(&format!("it leads to {}, and {what}", resolved.display()));
    }
    let Ok(name) = CString::new(name.as_bytes()) else {
        return fail("the path contains a NUL byte");
    };
    if let Some(problem) = existing(&dir, &name) {
        return fail(problem);
    }
    let tmp = CString::new(format!(
        ".{}.mastra-ask-{}-{}",
        String::from_utf8_lossy(name.as_bytes()),
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ))
    .map_err(|_| format!("cannot write {path}: the path contains a NUL byte"))?;
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut file = match rustix::fs::openat(&dir, tmp.as_c_str(), flags, Mode::from(0o644)) {
        Ok(fd) => std::fs::File::from(fd),
        Err(e) => return fail(&std::io::Error::from(e).to_string()),
    };
    let written = file
        .write_all(content.as_bytes())
        .and_then(|_| file.sync_all());
    let renamed = written.and_then(|_| {
        rustix::fs::renameat(&dir, tmp.as_c_str(), &dir, name.as_c_str()).map_err(Into::into)
    });
    if let Err(e) = renamed {
        let _ = rustix::fs::unlinkat(&dir, tmp.as_c_str(), AtFlags::empty());
        return fail(&e.to_string());
    }
    Ok(())
}

/// What is wrong with what is at `name` already: only a regular file is replaced.
fn existing(dir: &OwnedFd, name: &CStr) -> Option<&'static str> {
    let st = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => None,
        FileType::Symlink => Some("it is a symbolic link"),
        FileType::Directory => Some("it is a directory"),
        _ => Some("it is not a regular file"),
    }
}

fn refused(r: &Refusal) -> String {
    match r {
        Refusal::Outside => "the path leaves the working directory".into(),
        Refusal::Missing => "its directory does not exist".into(),
        Refusal::NotRegular => "its directory is not a directory".into(),
        Refusal::Pseudo(fs) => format!("its directory is on {fs}"),
        Refusal::Linked(_) => "its directory has another name".into(),
        Refusal::Changed => "the directory kept changing while it was looked up".into(),
        Refusal::Root(e) => format!("the working directory cannot be opened: {e}"),
        Refusal::Io(e) => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    #[test]
    fn files_are_written_beneath_the_directory_only() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("work");
        fs::create_dir_all(root.join("sub.md")).unwrap();
        fs::create_dir_all(root.join("sub")).unwrap();
        symlink("..", root.join("up")).unwrap();
        symlink(outer.path().join("x.md"), root.join("abs.md")).unwrap();
        fs::write(root.join("old.md"), "old").unwrap();

        write(&root, "PLAN.md", "# Plan\n").unwrap();
        assert_eq!(
            fs::read_to_string(root.join("PLAN.md")).unwrap(),
            "# Plan\n"
        );
        write(&root, "sub/../old.md", "new").unwrap();
        assert_eq!(fs::read_to_string(root.join("old.md")).unwrap(), "new");
        let abs = root.join("sub/in.md");
        write(&root, abs.to_str().unwrap(), "in").unwrap();
        assert_eq!(fs::read_to_string(&abs).unwrap(), "in");

        for (path, why) in [
            ("../escape.md", "leaves the working directory"),
            ("up/escape.md", "leaves the working directory"),
            ("/tmp/escape.md", "leaves the working directory"),
            ("abs.md", "is a symbolic link"),
            ("sub.md", "is a directory"),
            ("nope/x.md", "its directory does not exist"),
            ("sub/", "does not name a file"),
            ("..", "does not name a file"),
        ] {
            let e = write(&root, path, "x").unwrap_err();
            assert!(e.contains(why), "{path}: {e}");
        }
        assert!(!outer.path().join("escape.md").exists());
        assert!(!outer.path().join("x.md").exists());
        let big = "x".repeat(MAX_PLAN_FILE as usize + 1);
        assert!(write(&root, "big.md", &big)
            .unwrap_err()
            .contains("larger than 1 MiB"));
        // Nothing half-written is left behind.
        let names: Vec<String> = fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.contains("mastra-ask")), "{names:?}");
    }

    #[test]
    fn only_markdown_files_in_visible_folders_and_never_an_executable() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in [
            ".git/hooks",
            ".github/workflows",
            ".mastracode/plans",
            "docs",
        ] {
            fs::create_dir_all(root.join(d)).unwrap();
        }
        fs::write(root.join(".git/config"), "[core]\n").unwrap();
        symlink(".git", root.join("notgit")).unwrap();
        symlink(".git/info.md", root.join("info.md")).unwrap();
        for (path, why) in [
            (".git/config", "it is in a hidden folder (.git)"),
            (".git/config.md", "it is in a hidden folder (.git)"),
            (".git/hooks/pre-commit", "it is in a hidden folder (.git)"),
            (
                ".github/workflows/x.md",
                "it is in a hidden folder (.github)",
            ),
            (".bashrc", "it is a hidden file (.bashrc)"),
            ("docs/.env.md", "it is a hidden file (.env.md)"),
            (
                ".mastracode/plans/../../.git/x.md",
                "it is in a hidden folder (.git)",
            ),
            (
                "notgit/x.md",
                "it leads to .git/x.md, and it is in a hidden folder (.git)",
            ),
            ("run.sh", "it is not a Markdown file (.md or .markdown)"),
            ("docs/Makefile", "it is not a Markdown file"),
            ("requirements.txt", "it is not a Markdown file"),
            ("constraints.txt", "it is not a Markdown file"),
            ("CMakeLists.txt", "it is not a Markdown file"),
            ("docs/NOTES.TXT", "it is not a Markdown file"),
        ] {
            let e = write(root, path, "x").unwrap_err();
            assert!(
                e.starts_with(&format!("cannot write {path}: {why}")),
                "{path}: {e}"
            );
        }
        assert_eq!(
            fs::read_to_string(root.join(".git/config")).unwrap(),
            "[core]\n"
        );
        assert!(!root.join(".git/x.md").exists() && !root.join(".bashrc").exists());
        // A symlink is never written through, even when its target is allowed.
        assert!(write(root, "info.md", "x")
            .unwrap_err()
            .contains("symbolic link"));
        write(root, ".mastracode/plans/p.md", "# P\n").unwrap();
        write(root, "docs/NOTES.MD", "notes").unwrap();
        assert!(!root.join("requirements.txt").exists());
        // An executable file is replaced by one nobody may execute.
        let run = root.join("docs/run.md");
        fs::write(&run, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&run, fs::Permissions::from_mode(0o755)).unwrap();
        write(root, "docs/run.md", "#!/bin/sh\necho hi\n").unwrap();
        let mode = fs::metadata(&run).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0, "mode {mode:o}");
    }

    #[test]
    fn arguments_are_checked() {
        let root = tempfile::tempdir().unwrap();
        let ok = run(&json!({"path": "a.md", "content": "hi"}), root.path()).unwrap();
        assert_eq!(ok, json!({"path": "a.md", "bytes": 2}));
        let e = run(&json!({"path": "a.md"}), root.path()).unwrap_err();
        assert!(e.contains("- content: Required"), "{e}");
        let e = run(&json!({"path": "", "content": "x", "mode": 1}), root.path()).unwrap_err();
        assert!(e.contains("Unrecognized key(s) in object: 'mode'"), "{e}");
    }
}
