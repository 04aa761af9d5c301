//! Opening a SQLite store, safely: the path is checked (a file: not `:memory:` or a URI,
//! not a link to nowhere), a new store is created private (0600, its directory 0700), an
//! existing one must belong to this user and be writable by nobody else (as ssh checks key
//! files; it is never chmod'ed behind the user's back), a store written by a newer
//! mastra-ask is refused before anything is written, and the migrations run under a setup
//! lock. Opening never changes a store it refuses.
//!
//! A file this process creates (the store, its write-ahead log) has its directory entry
//! synced here, once: the bundled SQLite is built not to sync the directory at every
//! process's first commit (`SQLITE_DISABLE_DIRSYNC`, `.cargo/config.toml`), which for a log
//! that already existed protected nothing.

use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

use super::errors::classify;
use super::schema;
use crate::store::{Access, Cause, Engine, Error, Result, Unsafe};

/// The connection to the store at `path`; `None` when there is none and `access` is
/// `Existing`.
pub fn open(path: &Path, access: Access) -> Result<Option<Connection>> {
    refuse_non_files(path)?;
    let exists = exists(path)?;
    if !exists && access == Access::Existing {
        return Ok(None);
    }
    if !exists {
        create_private(path)?;
    }
    let log_existed = check_private(path)?;
    let doing = format!("opening the store at {}", path.display());
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| classify(&doing, e))?;
    schema::configure(&conn, &doing)?;
    let version = user_version(&conn).map_err(|e| classify(&doing, e))?;
    known(path, version)?;
    if version < schema::MIGRATIONS.len() as i64 {
        migrate(&conn, path)?;
    }
    // SQLite has opened (and so created) the log by now: reading the schema version did.
    if !log_existed && with_suffix(path, "-wal").exists() {
        sync_directory(path).map_err(|e| Error::io(doing, e))?;
    }
    Ok(Some(conn))
}

/// Makes the directory entries of the files just created in `path`'s directory durable.
fn sync_directory(path: &Path) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

/// `--db :memory:` and `file:` URIs name no file a store can live in.
fn refuse_non_files(path: &Path) -> Result<()> {
    let text = path.to_string_lossy();
    if text == ":memory:" || text.starts_with("file:") {
        return Err(Error::usage(format!(
            "the store must be a file or a postgres:// URL, not {text}"
        )));
    }
    Ok(())
}

/// Whether the store file exists; a symbolic link to nothing is refused (it is never
/// created through).
fn exists(path: &Path) -> Result<bool> {
    let looking = || format!("looking at the store at {}", path.display());
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io(looking(), e)),
        Ok(m) if m.file_type().is_symlink() => match fs::metadata(path) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == ErrorKind::NotFound => Err(Error::Unsafe {
                path: path.to_path_buf(),
                why: Unsafe::DanglingLink {
                    target: fs::read_link(path).unwrap_or_default(),
                },
            }),
            Err(e) => Err(Error::io(looking(), e)),
        },
        Ok(_) => Ok(true),
    }
}

/// Creates the store file with mode 0600 (its directory 0700), its directory entry made
/// durable; safe when several processes do it at once, and never through a symbolic link.
fn create_private(path: &Path) -> Result<()> {
    let creating = |e| Error::io(format!("creating the store at {}", path.display()), e);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.exists() {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(creating)?;
            sync_directory(dir).map_err(creating)?;
        }
    }
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(_) => sync_directory(path).map_err(creating),
        // Another process created it meanwhile: it is checked like any existing store.
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(creating(e)),
    }
}

/// The store and its `-wal` and `-shm` files must belong to this user and be writable by
/// no one else: anyone who can write them can answer every question in them. Returns
/// whether the write-ahead log exists.
fn check_private(path: &Path) -> Result<bool> {
    let me = crate::sys::euid();
    let log = with_suffix(path, "-wal");
    let mut log_exists = false;
    for file in [path.to_path_buf(), log.clone(), with_suffix(path, "-shm")] {
        let meta = match fs::metadata(&file) {
            Ok(m) => m,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(format!("looking at {}", file.display()), e)),
        };
        log_exists |= file == log;
        let why = if meta.uid() != me {
            Unsafe::Owner { owner: meta.uid() }
        } else if meta.mode() & 0o022 != 0 {
            Unsafe::Writable {
                mode: meta.mode() & 0o7777,
            }
        } else {
            continue;
        };
        return Err(Error::Unsafe { path: file, why });
    }
    Ok(log_exists)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Refuses a schema version this program does not know, or that none writes.
fn known(path: &Path, version: i64) -> Result<()> {
    if version < 0 {
        return Err(Error::Corrupt(Cause {
            engine: Engine::Sqlite,
            doing: format!("opening the store at {}", path.display()),
            detail: format!("its schema version is {version}, which no mastra-ask writes"),
            source: None,
        }));
    }
    let known = schema::MIGRATIONS.len() as i64;
    if version > known {
        return Err(Error::NewerSchema {
            store: path.display().to_string(),
            found: version,
            known,
        });
    }
    Ok(())
}

/// First use (or an upgrade): one process at a time switches to WAL and migrates (SQLite's
/// busy handler does not cover a journal-mode switch racing another's first write).
fn migrate(conn: &Connection, path: &Path) -> Result<()> {
    let doing = format!("setting up the store at {}", path.display());
    let lock = File::open(path).map_err(|e| Error::io(doing.clone(), e))?;
    lock.lock().map_err(|e| Error::io(doing.clone(), e))?;
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(|e| classify(&doing, e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Error::Other(Cause {
            engine: Engine::Sqlite,
            doing,
            detail: format!("cannot switch to WAL mode (the store is in {mode} mode)"),
            source: None,
        }));
    }
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
        .map_err(|e| classify("waiting for the store's write lock", e))?;
    let version = user_version(&tx).map_err(|e| classify(&doing, e))?;
    known(path, version)?;
    for (i, sql) in schema::MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(version).unwrap_or(0))
    {
        tx.execute_batch(sql)
            .and_then(|()| tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1)))
            .map_err(|e| classify(&format!("applying migration {}", i + 1), e))?;
    }
    tx.commit().map_err(|e| classify("writing to the store", e))
}
