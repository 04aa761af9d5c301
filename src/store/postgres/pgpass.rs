//! The password file, read as libpq reads it: the URL's `passfile`, else `PGPASSFILE`,
//! else `~/.pgpass`; used only when neither the URL nor `PGPASSWORD` gives a password.
//! A file that is not a plain file, or that group or others may read, is ignored with a
//! warning (libpq's words). Lines are `host:port:database:user:password`; `#` starts a
//! comment line; `*` alone matches anything; `\` escapes `:` and `\`; the first line that
//! matches wins. A host given as libpq's default socket directory matches `localhost`.
//! The file is read capped and non-blocking; nothing of it is ever printed.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::limits::{open_nonblocking, read_capped};

/// The most a password file may hold.
const MAX_PASSFILE: u64 = 1 << 20;

/// The socket directories that libpq builds take as their default (upstream's and
/// Debian's): a password line for `localhost` covers them.
const DEFAULT_SOCKET_DIRS: [&str; 2] = ["/tmp", "/var/run/postgresql"];

/// What a password is looked up for.
pub struct Key<'a> {
    pub host: &'a str,
    pub port: &'a str,
    pub database: &'a str,
    pub user: &'a str,
}

/// Which file to read: `passfile` (the URL's), else `PGPASSFILE`, else `~/.pgpass`.
pub fn location(passfile: Option<&str>, home: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = passfile.filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    if let Some(p) = std::env::var_os("PGPASSFILE").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    home.map(|h| h.join(".pgpass"))
}

/// The password for `key` in the file at `path`; a warning when the file is ignored.
pub fn lookup(path: &Path, key: &Key<'_>) -> (Option<String>, Option<String>) {
    let Ok(file) = open_nonblocking(path) else {
        return (None, None);
    };
    let shown = path.display();
    let Ok(meta) = file.metadata() else {
        return (None, None);
    };
    if !meta.is_file() {
        return (
            None,
            Some(format!("password file \"{shown}\" is not a plain file")),
        );
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return (
            None,
            Some(format!(
                "password file \"{shown}\" has group or world access; permissions should be \
                 u=rw (0600) or less"
            )),
        );
    }
    match read_capped(file, MAX_PASSFILE) {
        Ok(bytes) => (find(&String::from_utf8_lossy(&bytes), key), None),
        Err(e) => (
            None,
            Some(format!("password file \"{shown}\" {e}; it is ignored")),
        ),
    }
}

/// The first matching line's password.
fn find(text: &str, key: &Key<'_>) -> Option<String> {
    let host = if key.host.is_empty() || DEFAULT_SOCKET_DIRS.contains(&key.host) {
        "localhost"
    } else {
        key.host
    };
    text.lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .find_map(|line| {
            let rest = field(line, host)?;
            let rest = field(rest, key.port)?;
            let rest = field(rest, key.database)?;
            let rest = field(rest, key.user)?;
            Some(unescape(rest))
        })
}

/// When `line` starts with a field that matches `value` (`*`, or `value` with `\`
/// escapes) and its `:`, what follows.
fn field<'l>(line: &'l str, value: &str) -> Option<&'l str> {
    if let Some(rest) = line.strip_prefix("*:") {
        return Some(rest);
    }
    let mut chars = line.char_indices();
    let mut wanted = value.chars();
    while let Some((i, c)) = chars.next() {
        let c = match c {
            ':' => {
                return wanted.next().is_none().then(|| &line[i + 1..]);
            }
            '\\' => match chars.next() {
                Some((_, escaped)) => escaped,
                None => return None,
            },
            c => c,
        };
        if wanted.next() != Some(c) {
            return None;
        }
    }
    None
}

/// The password field, up to an unescaped `:`, with its `\` escapes removed (a `\` at
/// the end stays).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            ':' => break,
            '\\' => out.push(chars.next().unwrap_or('\\')),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key<'a>(host: &'a str, port: &'a str, database: &'a str, user: &'a str) -> Key<'a> {
        Key {
            host,
            port,
            database,
            user,
        }
    }

    #[test]
    fn lines_match_field_by_field_with_wildcards_and_escapes() {
        let text = "# a comment:*:*:*:nope\n\
                    db.internal:5432:mastra_ask:ci:first\n\
                    db.internal:5432:mastra_ask:ci:second\n\
                    *:5433:*:ci:any-host\n\
                    we\\:ird:5432:d\\\\b:u:p\\:w\\\\d\r\n\
                    localhost:5432:*:*:local\n\
                    **:5434:*:*:star-is-literal\n";
        let k = |h, p, d, u| find(text, &key(h, p, d, u));
        assert_eq!(
            k("db.internal", "5432", "mastra_ask", "ci").as_deref(),
            Some("first")
        );
        assert_eq!(k("other", "5433", "x", "ci").as_deref(), Some("any-host"));
        assert_eq!(k("other", "5433", "x", "cj"), None);
        assert_eq!(k("we:ird", "5432", "d\\b", "u").as_deref(), Some("p:w\\d"));
        assert_eq!(
            k("/var/run/postgresql", "5432", "d", "u").as_deref(),
            Some("local")
        );
        assert_eq!(k("", "5432", "d", "u").as_deref(), Some("local"));
        assert_eq!(k("/srv/sock", "5432", "d", "u"), None);
        assert_eq!(k("x", "5434", "d", "u"), None);
        assert_eq!(
            k("**", "5434", "d", "u").as_deref(),
            Some("star-is-literal")
        );
        // A field must match whole, and a line needs all five fields.
        assert_eq!(
            find("db:5432:mastra:ci", &key("db", "5432", "mastra", "ci")),
            None
        );
        assert_eq!(
            find("db:54321:m:ci:pw", &key("db", "5432", "m", "ci")),
            None
        );
        assert_eq!(
            find("db:5432:m:ci:", &key("db", "5432", "m", "ci")).as_deref(),
            Some("")
        );
        assert_eq!(
            find("db:5432:m:ci:pw:more", &key("db", "5432", "m", "ci")).as_deref(),
            Some("pw")
        );
        assert_eq!(
            find("db:5432:m:ci:pw\\", &key("db", "5432", "m", "ci")).as_deref(),
            Some("pw\\")
        );
    }

    #[test]
    fn a_file_others_may_read_is_ignored_with_libpqs_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pgpass");
        std::fs::write(&path, "*:*:*:*:pw\n").unwrap();
        let k = key("h", "5432", "d", "u");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        let (pw, warning) = lookup(&path, &k);
        assert_eq!(pw, None);
        assert!(warning
            .unwrap()
            .ends_with("has group or world access; permissions should be u=rw (0600) or less"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(lookup(&path, &k), (Some("pw".into()), None));
        assert_eq!(lookup(&dir.path().join("none"), &k), (None, None));
        let (pw, warning) = lookup(dir.path(), &k);
        assert_eq!(pw, None);
        assert!(warning.unwrap().ends_with("is not a plain file"));
    }
}
