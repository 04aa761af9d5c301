//! Reading defensively: a stored row this program cannot read (tampered with, or written
//! by a bug) costs only its own run. Lists (`runs`, `pending`, due deadlines) skip it with
//! a one-line warning on stderr that names the run; reading that run itself fails with
//! `Error::Damaged`. Backends decode each row into `Decoded` and hand it here.
//!
//! This is the store's only output, and it never decides anything.

use std::collections::HashSet;
use std::io::Write;
use std::sync::Mutex;

use super::error::{Error, Result};

/// One decoded row: the id of its run (as far as it could be read), and the value or what
/// is wrong with the row.
pub type Decoded<T> = (String, std::result::Result<T, String>);

/// The values of the rows that could be read; a warning for each run that could not.
pub fn sift<T>(rows: impl IntoIterator<Item = Decoded<T>>) -> Vec<T> {
    rows.into_iter()
        .filter_map(|(run, row)| row.map_err(|what| warn(&run, &what)).ok())
        .collect()
}

/// Every row's value, or `Error::Damaged` for the first row that could not be read.
pub fn all<T>(rows: impl IntoIterator<Item = Decoded<T>>) -> Result<Vec<T>> {
    rows.into_iter().map(|(run, row)| one(&run, row)).collect()
}

/// One row's value, or `Error::Damaged`.
pub fn one<T>(run: &str, row: std::result::Result<T, String>) -> Result<T> {
    row.map_err(|what| Error::Damaged {
        run: run.to_string(),
        what,
    })
}

/// Warns once per run and process that a row of `run` was skipped.
pub fn warn(run: &str, what: &str) {
    static WARNED: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
    if !warned
        .get_or_insert_with(HashSet::new)
        .insert(run.to_string())
    {
        return;
    }
    let line = format!(
        "warning: skipped run {} (damaged in the store: {})\n",
        visible(run),
        visible(what)
    );
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// `s` on one line with its control, bidi and zero-width characters escaped (the row may
/// hold anything).
fn visible(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let hidden = c.is_control()
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}');
            let escaped: Vec<char> = if hidden {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_row_is_skipped_from_lists_and_named_when_read_alone() {
        let rows = vec![
            ("a".to_string(), Ok(1)),
            ("b".to_string(), Err("bad JSON".to_string())),
            ("c".to_string(), Ok(3)),
        ];
        assert_eq!(sift(rows.clone()), [1, 3]);
        match all(rows) {
            Err(Error::Damaged { run, what }) => {
                assert_eq!((run.as_str(), what.as_str()), ("b", "bad JSON"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(visible("a\u{1b}[2Jb\n"), "a\\u{1b}[2Jb\\n");
    }
}
