//! Opens a file that a model named, beneath a directory, so that the path can never leave
//! the directory: not through `..`, not through a symlink, not even when the tree changes
//! while the path is resolved (a swapped directory or symlink), and never hangs on a FIFO or
//! a device.
//!
//! The path is resolved here, one component at a time: each is opened with `O_NOFOLLOW`
//! relative to the directory opened before it, a relative symlink's target is walked in its
//! place, an absolute one is outside, and `..` steps back to the directory opened before,
//! never above the root (SPEC §9's "equivalent walk"; the kernel's `openat2` cannot say where
//! a path led). So the walk knows the path as resolved, the real names of the directories it
//! went through, which the callers' rule about hidden folders checks (`model_path`). The
//! file is opened non-blocking, then checked on the open descriptor: a regular file, with
//! one link, on a real file system (not procfs, sysfs or the device file system). Symlinks
//! that stay inside the directory work; absolute symlinks are refused even when they point
//! inside. A directory is opened beneath one by the same resolution (`open_dir_beneath`),
//! for a file to be created in it (`write_file`). The system calls go through rustix, so
//! nothing here is `unsafe`. This module reads and writes nothing and knows nothing of plans.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{Mode, OFlags};

/// Why a file was not opened.
#[derive(Debug)]
pub enum Refusal {
    /// The path leaves the directory (`..`, an absolute path or symlink, a swapped tree).
    Outside,
    Missing,
    /// A directory, a FIFO, a device or a socket.
    NotRegular,
    /// On a pseudo file system (its name).
    Pseudo(&'static str),
    /// More than one hard link (their number): another name, maybe outside, shares it.
    Linked(u64),
    /// The tree kept changing while the path was resolved.
    Changed,
    /// The directory itself cannot be opened.
    Root(io::Error),
    Io(io::Error),
}

/// How often a component that changed while it was opened is tried again.
const RETRIES: usize = 16;
/// Symlinks followed in one walk, as the kernel's limit.
const MAX_LINKS: usize = 40;

/// Opens `path` (relative to `root`, or absolute and inside it) for reading; with the file,
/// the path it resolved to, relative to `root` (every symlink followed, every `..` taken).
pub fn open_beneath(root: &Path, path: &Path) -> Result<(File, PathBuf), Refusal> {
    let rel = relative(root, path)?;
    if rel.as_os_str().is_empty() || path.as_os_str().as_bytes().ends_with(b"/") {
        return Err(Refusal::NotRegular);
    }
    let dir = open_dir(root).map_err(Refusal::Root)?;
    let (file, resolved) = walk(&dir, rel, FILE_FLAGS)?;
    check(&file)?;
    Ok((file, resolved))
}

/// `path` relative to `root`: an absolute path must start with `root` (as given or
/// canonical); the rest is resolved beneath it.
pub fn relative<'a>(root: &Path, path: &'a Path) -> Result<&'a Path, Refusal> {
    if path.is_relative() {
        return Ok(path);
    }
    if let Ok(rest) = path.strip_prefix(root) {
        return Ok(rest);
    }
    let canonical = root.canonicalize().map_err(Refusal::Root)?;
    path.strip_prefix(&canonical).map_err(|_| Refusal::Outside)
}

fn c_path(p: &OsStr) -> Result<CString, Refusal> {
    CString::new(p.as_bytes()).map_err(|_| {
        Refusal::Io(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path contains a NUL byte",
        ))
    })
}

fn open_dir(root: &Path) -> io::Result<OwnedFd> {
    let c = CString::new(root.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in the directory"))?;
    Ok(rustix::fs::open(c.as_c_str(), DIR_FLAGS, Mode::empty())?)
}

/// The flags of the final open: read, never block, never take a terminal.
const FILE_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);
/// The flags of a directory's open.
const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);

/// Opens the directory `path` (relative to `root`, or absolute and inside it; empty for
/// `root` itself) by the same rules as a file: never leaving `root`. With it, the path it
/// resolved to, relative to `root` (empty for `root` itself).
pub fn open_dir_beneath(root: &Path, path: &Path) -> Result<(OwnedFd, PathBuf), Refusal> {
    let rel = relative(root, path)?;
    let dir = open_dir(root).map_err(Refusal::Root)?;
    if rel.components().all(|c| matches!(c, Component::CurDir)) {
        return Ok((dir, PathBuf::new()));
    }
    let (opened, resolved) = walk(&dir, rel, DIR_FLAGS).map_err(|e| match e {
        // ENOTDIR: a file where a directory belongs.
        Refusal::Io(io) if io.raw_os_error() == Some(libc::ENOTDIR) => Refusal::NotRegular,
        other => other,
    })?;
    Ok((OwnedFd::from(opened), resolved))
}

fn refusal(e: io::Error) -> Refusal {
    match e.raw_os_error() {
        Some(libc::EXDEV) => Refusal::Outside,
        Some(libc::ENOENT) => Refusal::Missing,
        // A socket (and, for writing, a FIFO) cannot be opened so.
        Some(libc::ENXIO | libc::ENODEV) => Refusal::NotRegular,
        _ => Refusal::Io(e),
    }
}

/// The walk: one component at a time, never following a symlink in the kernel
/// (`O_NOFOLLOW`); a relative symlink's target is walked in its place, an absolute one is
/// outside, and `..` never climbs above the directory. Returns the file and the names it
/// went through (the path as resolved).
fn walk(root: &OwnedFd, rel: &Path, final_flags: OFlags) -> Result<(File, PathBuf), Refusal> {
    let mut stack: Vec<OwnedFd> = Vec::new();
    // The name of each directory of `stack`.
    let mut names: Vec<OsString> = Vec::new();
    let mut todo: Vec<OsString> = Vec::new();
    push_components(&mut todo, rel)?;
    let mut links = 0;
    let mut retries = 0;
    while let Some(name) = todo.pop() {
        if name == ".." {
            if stack.pop().is_none() {
                return Err(Refusal::Outside);
            }
            names.pop();
            continue;
        }
        let dir = stack.last().unwrap_or(root);
        let last = todo.is_empty();
        let flags = OFlags::NOFOLLOW | if last { final_flags } else { DIR_FLAGS };
        let c = c_path(&name)?;
        let e = match rustix::fs::openat(dir, c.as_c_str(), flags, Mode::empty()) {
            Ok(owned) if last => {
                names.push(name);
                return Ok((File::from(owned), names.iter().collect()));
            }
            Ok(owned) => {
                stack.push(owned);
                names.push(name);
                continue;
            }
            Err(e) => io::Error::from(e),
        };
        // ELOOP: the component is a symlink (O_NOFOLLOW); ENOTDIR with O_DIRECTORY may be
        // one as well.
        if !matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) {
            return Err(refusal(e));
        }
        let target = match read_link(dir, &c) {
            Some(t) => t,
            // Not a symlink (any more): the component was swapped between the two calls,
            // or it is a file where a directory belongs. Tried again, the first settles.
            None if retries < RETRIES => {
                retries += 1;
                todo.push(name);
                continue;
            }
            None if e.raw_os_error() == Some(libc::ENOTDIR) => return Err(refusal(e)),
            None => return Err(Refusal::Changed),
        };
        links += 1;
        if links > MAX_LINKS {
            return Err(Refusal::Io(io::Error::from_raw_os_error(libc::ELOOP)));
        }
        let target = Path::new(&target);
        if target.is_absolute() {
            return Err(Refusal::Outside);
        }
        push_components(&mut todo, target)?;
    }
    // The path ended in a directory (`sub/..`): what a directory's open asks for.
    if final_flags.contains(OFlags::DIRECTORY) {
        let resolved = names.iter().collect();
        let dir = match stack.pop() {
            Some(d) => d,
            None => root.try_clone().map_err(Refusal::Io)?,
        };
        return Ok((File::from(dir), resolved));
    }
    Err(Refusal::NotRegular)
}

/// Pushes `path`'s components so that the first is popped first.
fn push_components(todo: &mut Vec<OsString>, path: &Path) -> Result<(), Refusal> {
    for c in path.components().rev() {
        match c {
            Component::Normal(n) => todo.push(n.to_os_string()),
            Component::ParentDir => todo.push("..".into()),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return Err(Refusal::Outside),
        }
    }
    Ok(())
}

/// The target of the symlink `name` in `dir`, or `None` when it is not (or no longer) one.
fn read_link(dir: &OwnedFd, name: &CStr) -> Option<OsString> {
    let target = rustix::fs::readlinkat(dir, name, Vec::new()).ok()?;
    Some(OsStr::from_bytes(target.as_bytes()).to_os_string())
}

/// The checks on the open descriptor.
fn check(file: &File) -> Result<(), Refusal> {
    let meta = file.metadata().map_err(Refusal::Io)?;
    if !meta.file_type().is_file() {
        return Err(Refusal::NotRegular);
    }
    #[cfg(target_os = "linux")]
    if let Some(name) = pseudo_fs(file, meta.dev()) {
        return Err(Refusal::Pseudo(name));
    }
    if meta.nlink() > 1 {
        return Err(Refusal::Linked(meta.nlink()));
    }
    Ok(())
}

/// File systems whose files are views of the kernel (and of other processes' secrets), by
/// their `statfs` magic number.
#[cfg(target_os = "linux")]
const PSEUDO: [(u32, &str); 12] = [
    (0x9fa0, "procfs"),
    (0x6265_6572, "sysfs"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x7363_6673, "securityfs"),
    (0x0027_e0eb, "cgroupfs"),
    (0x6367_7270, "cgroup2fs"),
    (0x6265_6570, "configfs"),
    (0xde5e_81e4, "efivarfs"),
    (0xcafe_4a11, "bpffs"),
    (0x6165_676c, "pstorefs"),
    (0x1cd1, "devpts"),
];

/// The pseudo file system `fd` is on, if any. The device file system (devtmpfs) reports
/// itself as tmpfs, so it is recognised as the file system of `/dev`.
#[cfg(target_os = "linux")]
fn pseudo_fs(file: &File, dev: u64) -> Option<&'static str> {
    if let Ok(st) = rustix::fs::fstatfs(file) {
        // The magic number, whatever the width of `f_type` on this platform.
        let kind = st.f_type as u32;
        if let Some((_, name)) = PSEUDO.iter().find(|(magic, _)| *magic == kind) {
            return Some(name);
        }
    }
    let dev_fs = std::fs::metadata("/dev").ok()?;
    let on_dev = dev_fs.dev() == dev && std::fs::metadata("/").ok()?.dev() != dev;
    on_dev.then_some("devtmpfs")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("work");
        fs::create_dir_all(root.join("sub/deeper")).unwrap();
        fs::write(root.join("plan.md"), "# In").unwrap();
        fs::write(root.join("sub/deeper/p.md"), "# Deep").unwrap();
        fs::write(outer.path().join("secret.md"), "# Secret").unwrap();
        symlink("sub/deeper/p.md", root.join("inside.md")).unwrap();
        symlink("deeper/../../plan.md", root.join("sub/rel.md")).unwrap();
        symlink("../secret.md", root.join("up.md")).unwrap();
        symlink(outer.path().join("secret.md"), root.join("abs.md")).unwrap();
        symlink(root.join("plan.md"), root.join("abs_inside.md")).unwrap();
        symlink("sub", root.join("subdir")).unwrap();
        symlink("..", root.join("parent")).unwrap();
        symlink("loop2", root.join("loop1")).unwrap();
        symlink("loop1", root.join("loop2")).unwrap();
        fs::hard_link(outer.path().join("secret.md"), root.join("hard.md")).unwrap();
        (outer, root)
    }

    /// The text read and the path as resolved, or the refusal.
    fn outcome(r: Result<(File, PathBuf), Refusal>) -> String {
        match r {
            Ok((f, resolved)) => {
                let mut s = String::new();
                io::Read::read_to_string(&mut &f, &mut s).unwrap();
                format!("{s} @ {}", resolved.display())
            }
            Err(Refusal::Io(e)) => format!("io: {}", e.raw_os_error().unwrap_or(-1)),
            Err(other) => format!("{other:?}"),
        }
    }

    #[test]
    fn opens_inside_refuses_the_rest_and_says_where_the_path_led() {
        let (_outer, root) = tree();
        let expect = [
            ("plan.md", "# In @ plan.md"),
            ("./sub/../plan.md", "# In @ plan.md"),
            ("sub/deeper/p.md", "# Deep @ sub/deeper/p.md"),
            ("inside.md", "# Deep @ sub/deeper/p.md"),
            ("sub/rel.md", "# In @ plan.md"),
            ("subdir/deeper/p.md", "# Deep @ sub/deeper/p.md"),
            ("subdir/../plan.md", "# In @ plan.md"),
            ("up.md", "Outside"),
            ("abs.md", "Outside"),
            ("abs_inside.md", "Outside"),
            ("../secret.md", "Outside"),
            ("../work/plan.md", "Outside"),
            ("parent/secret.md", "Outside"),
            ("sub", "NotRegular"),
            ("missing.md", "Missing"),
            ("sub/missing/x.md", "Missing"),
            ("loop1", "io: 40"),
            ("plan.md/x", "io: 20"),
            ("hard.md", "Linked(2)"),
        ];
        for (path, want) in expect {
            assert_eq!(
                outcome(open_beneath(&root, Path::new(path))),
                want,
                "{path}"
            );
        }
        let abs = root.join("plan.md");
        assert_eq!(outcome(open_beneath(&root, &abs)), "# In @ plan.md");
        let dir = |p: &str| match open_dir_beneath(&root, Path::new(p)) {
            Ok((_, resolved)) => resolved.display().to_string(),
            Err(e) => format!("{e:?}"),
        };
        assert_eq!(dir(""), "");
        assert_eq!(dir("subdir/deeper"), "sub/deeper");
        assert_eq!(dir("sub/deeper/.."), "sub");
        assert_eq!(dir("subdir/.."), "");
        assert_eq!(dir("parent"), "Outside");
        assert_eq!(dir("plan.md"), "NotRegular");
    }

    #[test]
    fn fifos_devices_and_pseudo_files_never_block_and_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.md");
        use rustix::fs::{FileType, Mode};
        rustix::fs::mknodat(rustix::fs::CWD, &fifo, FileType::Fifo, Mode::from(0o600), 0).unwrap();
        assert_eq!(
            outcome(open_beneath(dir.path(), Path::new("fifo.md"))),
            "NotRegular"
        );
        assert_eq!(
            outcome(open_beneath(Path::new("/"), Path::new("dev/null"))),
            "NotRegular"
        );
        assert_eq!(
            outcome(open_beneath(Path::new("/"), Path::new("proc/self/environ"))),
            "Pseudo(\"procfs\")"
        );
        assert_eq!(
            outcome(open_beneath(
                Path::new("/proc"),
                Path::new("/proc/self/status")
            )),
            "Pseudo(\"procfs\")"
        );
        assert_eq!(
            outcome(open_beneath(dir.path(), Path::new("fifo.md/"))),
            "NotRegular"
        );
        assert!(outcome(open_beneath(dir.path(), Path::new("a\0b"))).starts_with("io:"));
    }
}
