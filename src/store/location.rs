//! Where the store lives: `--db`, then `MASTRA_ASK_DB`, then the XDG data directory
//! (`$XDG_DATA_HOME` when it is absolute, else `~/.local/share`, by etcetera's XDG rules).
//! This only decides where; what is found there is checked when the store is opened
//! (`sqlite/open.rs`).

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
    use etcetera::BaseStrategy;
    // No home directory at all (no `$HOME`, no password entry): the current directory.
    let data = etcetera::base_strategy::Xdg::new()
        .map_or_else(|_| PathBuf::from("."), |xdg| xdg.data_dir());
    data.join("mastra-ask").join("mastra-ask.db")
}
