//! `write_file`: writes a UTF-8 text file beneath a directory for an agent (its plan, before
//! `submit_plan`), confined by the same rules as plan files (`beneath`): a relative path (or
//! an absolute one inside the directory) that no `..` or symlink can lead out of, an
//! existing parent directory, a regular file or none at the path, at most `MAX_PLAN_FILE`
//! bytes. The file is replaced at once (written beside it, then renamed over it), so a
//! reader never sees half of it.
//!
//! Called by `mastra-ask tool write_file`, which an agent file's command tool runs with the
//! arguments `{path, content}` on stdin (in the run's working directory). Nothing here
//! prints or touches the store.

use std::ffi::CString;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use serde_json::{json, Value};

use super::beneath::{open_dir_beneath, Refusal};
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
    let parent = full.parent().unwrap_or(Path::new(""));
    let dir = match open_dir_beneath(root, parent) {
        Ok(d) => d,
        Err(r) => return fail(&refused(&r)),
    };
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
    // SAFETY: openat with a directory we own and a C string; the descriptor is owned below.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            tmp.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o644 as libc::c_uint,
        )
    };
    if fd < 0 {
        return fail(&std::io::Error::last_os_error().to_string());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    let mut file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    let written = file
        .write_all(content.as_bytes())
        .and_then(|_| file.sync_all());
    // SAFETY: renameat/unlinkat within the directory we own, with C strings.
    let renamed = written.and_then(|_| {
        let rc = unsafe {
            libc::renameat(
                dir.as_raw_fd(),
                tmp.as_ptr(),
                dir.as_raw_fd(),
                name.as_ptr(),
            )
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    });
    if let Err(e) = renamed {
        // SAFETY: as above.
        unsafe { libc::unlinkat(dir.as_raw_fd(), tmp.as_ptr(), 0) };
        return fail(&e.to_string());
    }
    Ok(())
}

/// What is wrong with what is at `name` already: only a regular file is replaced.
fn existing(dir: &OwnedFd, name: &CString) -> Option<&'static str> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::zeroed();
    // SAFETY: fstatat fills the struct when it returns 0.
    let rc = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            st.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if rc != 0 {
        return None;
    }
    // SAFETY: filled by fstatat.
    let mode = unsafe { st.assume_init() }.st_mode & libc::S_IFMT;
    match mode {
        libc::S_IFREG => None,
        libc::S_IFLNK => Some("it is a symbolic link"),
        libc::S_IFDIR => Some("it is a directory"),
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
            ("sub", "is a directory"),
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
