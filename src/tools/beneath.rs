//! Opens a file that a model named, beneath a directory, so that the path can never leave
//! the directory: not through `..`, not through a symlink, not even when the tree changes
//! while the path is resolved (a swapped directory or symlink), and never hangs on a FIFO or
//! a device.
//!
//! The file is opened once, by the kernel's `openat2` with `RESOLVE_BENEATH` (or, where
//! that call does not exist, by a walk that opens one component at a time with
//! `O_NOFOLLOW` and follows only relative symlinks, counting `..` against the directory);
//! non-blocking; then checked on the open descriptor: a regular file, with one link, on a
//! real file system (not procfs, sysfs or the device file system). Symlinks that stay
//! inside the directory work; absolute symlinks are refused even when they point inside.
//! A directory is opened beneath one by the same resolution (`open_dir_beneath`), for a
//! file to be created in it (`write_file`). This module reads and writes nothing and knows
//! nothing of plans.

use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path};

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

/// How often a resolution that raced with a rename is tried again.
const RETRIES: usize = 16;
/// Symlinks followed in one walk, as the kernel's limit.
const MAX_LINKS: usize = 40;

/// Opens `path` (relative to `root`, or absolute and inside it) for reading.
pub fn open_beneath(root: &Path, path: &Path) -> Result<File, Refusal> {
    let rel = relative(root, path)?;
    if rel.as_os_str().is_empty() || path.as_os_str().as_bytes().ends_with(b"/") {
        return Err(Refusal::NotRegular);
    }
    let dir = open_dir(root).map_err(Refusal::Root)?;
    let file = open_in(&dir, rel)?;
    check(&file)?;
    Ok(file)
}

/// `path` relative to `root`: an absolute path must start with `root` (as given or
/// canonical); the rest is resolved beneath it.
fn relative<'a>(root: &Path, path: &'a Path) -> Result<&'a Path, Refusal> {
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

fn last_error() -> io::Error {
    io::Error::last_os_error()
}

fn open_dir(root: &Path) -> io::Result<OwnedFd> {
    let c = CString::new(root.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in the directory"))?;
    // SAFETY: a valid C string; the returned descriptor is owned below.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(last_error());
    }
    // SAFETY: `fd` is a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The flags of the final open: read, never block, never take a terminal.
const FILE_FLAGS: libc::c_int =
    libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;
/// The flags of a directory's open.
const DIR_FLAGS: libc::c_int = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;

fn open_in(dir: &OwnedFd, rel: &Path) -> Result<File, Refusal> {
    open_with(dir, rel, FILE_FLAGS)
}

fn open_with(dir: &OwnedFd, rel: &Path, flags: libc::c_int) -> Result<File, Refusal> {
    #[cfg(target_os = "linux")]
    {
        if let Some(file) = openat2(dir, rel, flags)? {
            return Ok(file);
        }
        // openat2 is not available here: walk.
    }
    walk(dir, rel, flags)
}

/// Opens the directory `path` (relative to `root`, or absolute and inside it; empty for
/// `root` itself) by the same rules as a file: never leaving `root`.
pub fn open_dir_beneath(root: &Path, path: &Path) -> Result<OwnedFd, Refusal> {
    let rel = relative(root, path)?;
    let dir = open_dir(root).map_err(Refusal::Root)?;
    if rel.components().all(|c| matches!(c, Component::CurDir)) {
        return Ok(dir);
    }
    let opened = open_with(&dir, rel, DIR_FLAGS).map_err(|e| match e {
        // ENOTDIR: a file where a directory belongs.
        Refusal::Io(io) if io.raw_os_error() == Some(libc::ENOTDIR) => Refusal::NotRegular,
        other => other,
    })?;
    Ok(OwnedFd::from(opened))
}

/// `struct open_how` of `linux/openat2.h` (the first version, 24 bytes).
#[cfg(target_os = "linux")]
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

/// `None` when the kernel (or a sandbox) does not offer openat2.
#[cfg(target_os = "linux")]
fn openat2(dir: &OwnedFd, rel: &Path, flags: libc::c_int) -> Result<Option<File>, Refusal> {
    let c = c_path(rel.as_os_str())?;
    let how = OpenHow {
        flags: flags as u64,
        mode: 0,
        resolve: libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS,
    };
    for _ in 0..RETRIES {
        // SAFETY: openat2 with a valid directory, C string and open_how of the given size.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir.as_raw_fd(),
                c.as_ptr(),
                &how as *const OpenHow,
                std::mem::size_of::<OpenHow>(),
            )
        };
        if fd >= 0 {
            // SAFETY: a fresh descriptor nobody else owns.
            return Ok(Some(unsafe { File::from_raw_fd(fd as RawFd) }));
        }
        let e = last_error();
        match e.raw_os_error() {
            Some(libc::ENOSYS | libc::EPERM) => return Ok(None),
            // A rename raced with the resolution; the kernel asks us to try again.
            Some(libc::EAGAIN | libc::EINTR) => continue,
            _ => return Err(refusal(e)),
        }
    }
    Err(Refusal::Changed)
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

/// The walk for kernels without openat2: one component at a time, never following a
/// symlink in the kernel (`O_NOFOLLOW`); a relative symlink's target is walked in its
/// place, an absolute one is outside, and `..` never climbs above the directory.
fn walk(root: &OwnedFd, rel: &Path, final_flags: libc::c_int) -> Result<File, Refusal> {
    let mut stack: Vec<OwnedFd> = Vec::new();
    let mut todo: Vec<OsString> = Vec::new();
    push_components(&mut todo, rel)?;
    let mut links = 0;
    while let Some(name) = todo.pop() {
        if name == ".." {
            if stack.pop().is_none() {
                return Err(Refusal::Outside);
            }
            continue;
        }
        let dir = stack.last().unwrap_or(root).as_raw_fd();
        let last = todo.is_empty();
        let flags = libc::O_NOFOLLOW | if last { final_flags } else { DIR_FLAGS };
        let c = c_path(&name)?;
        // SAFETY: openat with a valid directory descriptor and C string.
        let fd = unsafe { libc::openat(dir, c.as_ptr(), flags) };
        if fd >= 0 {
            // SAFETY: a fresh descriptor nobody else owns.
            let owned = unsafe { OwnedFd::from_raw_fd(fd) };
            if last {
                return Ok(File::from(owned));
            }
            stack.push(owned);
            continue;
        }
        let e = last_error();
        // ELOOP: the component is a symlink (O_NOFOLLOW); ENOTDIR with O_DIRECTORY may be
        // one as well.
        if !matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) {
            return Err(refusal(e));
        }
        let target = match read_link(dir, &c) {
            Some(t) => t,
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
    if final_flags & libc::O_DIRECTORY != 0 {
        let dir = match stack.pop() {
            Some(d) => d,
            None => root.try_clone().map_err(Refusal::Io)?,
        };
        return Ok(File::from(dir));
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
fn read_link(dir: RawFd, name: &CString) -> Option<OsString> {
    let mut buf = vec![0u8; libc::PATH_MAX as usize];
    // SAFETY: readlinkat into a buffer of the given length.
    let n = unsafe { libc::readlinkat(dir, name.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 || n as usize >= buf.len() {
        return None;
    }
    buf.truncate(n as usize);
    Some(OsStr::from_bytes(&buf).to_os_string())
}

/// The checks on the open descriptor.
fn check(file: &File) -> Result<(), Refusal> {
    let meta = file.metadata().map_err(Refusal::Io)?;
    if !meta.file_type().is_file() {
        return Err(Refusal::NotRegular);
    }
    #[cfg(target_os = "linux")]
    if let Some(name) = pseudo_fs(file.as_raw_fd(), meta.dev()) {
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
fn pseudo_fs(fd: RawFd, dev: u64) -> Option<&'static str> {
    let mut st = std::mem::MaybeUninit::<libc::statfs>::zeroed();
    // SAFETY: fstatfs fills the struct when it returns 0.
    if unsafe { libc::fstatfs(fd, st.as_mut_ptr()) } == 0 {
        // SAFETY: filled by fstatfs.
        let kind = unsafe { st.assume_init() }.f_type as u32;
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

    fn outcome(r: Result<File, Refusal>) -> String {
        match r {
            Ok(f) => {
                let mut s = String::new();
                io::Read::read_to_string(&mut &f, &mut s).unwrap();
                s
            }
            Err(Refusal::Io(e)) => format!("io: {}", e.raw_os_error().unwrap_or(-1)),
            Err(other) => format!("{other:?}"),
        }
    }

    /// The same cases, through openat2 (where the kernel has it) and through the walk.
    fn cases(open: &dyn Fn(&Path, &Path) -> Result<File, Refusal>) {
        let (_outer, root) = tree();
        let expect = [
            ("plan.md", "# In"),
            ("./sub/../plan.md", "# In"),
            ("sub/deeper/p.md", "# Deep"),
            ("inside.md", "# Deep"),
            ("sub/rel.md", "# In"),
            ("subdir/deeper/p.md", "# Deep"),
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
            assert_eq!(outcome(open(&root, Path::new(path))), want, "{path}");
        }
        let abs = root.join("plan.md");
        assert_eq!(outcome(open(&root, &abs)), "# In");
    }

    #[test]
    fn opens_inside_and_refuses_the_rest() {
        cases(&|root, path| open_beneath(root, path));
    }

    #[test]
    fn the_walk_without_openat2_agrees() {
        cases(&|root, path| {
            let rel = relative(root, path)?;
            let dir = open_dir(root).map_err(Refusal::Io)?;
            let file = walk(&dir, rel, FILE_FLAGS)?;
            check(&file)?;
            Ok(file)
        });
    }

    #[test]
    fn fifos_devices_and_pseudo_files_never_block_and_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.md");
        let c = CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: mkfifo with a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
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
