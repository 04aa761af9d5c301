//! Where the store lives: `--db`, then `MASTRA_ASK_DB`, then the XDG data directory. This
//! only decides where (ten lines of XDG rules, not worth a crate); what is found there is
//! checked when the store is opened (`sqlite/open.rs`).

use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq)]
pub enum Location {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Location {
    /// `flag` is `--db` or `MASTRA_ASK_DB` (clap reads both).
    pub fn resolve(flag: Option<&str>) -> Location {
        match flag.filter(|s| !s.is_empty()) {
            Some(s) if s.starts_with("postgres://") || s.starts_with("postgresql://") => {
                Location::Postgres(s.to_string())
            }
            Some(s) => Location::Sqlite(PathBuf::from(s)),
            None => Location::Sqlite(default_path()),
        }
    }
}

fn default_path() -> PathBuf {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local").join("share")))
        .unwrap_or_else(|| PathBuf::from("."));
    data.join("mastra-ask").join("mastra-ask.db")
}
