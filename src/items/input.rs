//! What a person gives beyond clap's flags when they resolve an item (or start a run): stdin
//! for `-`, `--json` values and text files. Nothing here touches the store.

use anyhow::Result;

use crate::error::Error;
use crate::limits::{self, ReadError, MAX_TEXT_INPUT};

/// Reads stdin (for `-`) up to [`MAX_TEXT_INPUT`], without its final newline.
pub fn read_stdin(what: &str) -> Result<String> {
    let bytes =
        limits::read_capped(std::io::stdin().lock(), MAX_TEXT_INPUT).map_err(|e| match e {
            ReadError::Io(e) => Error::invalid(format!("cannot read {what} from stdin: {e}")),
            other => Error::invalid(format!("{what} on stdin {other}")),
        })?;
    let mut s = String::from_utf8(bytes)
        .map_err(|_| Error::invalid(format!("{what} on stdin is not valid UTF-8")))?;
    if s.ends_with('\n') {
        s.pop();
        if s.ends_with('\r') {
            s.pop();
        }
    }
    Ok(s)
}

/// Reads a text file a person names (`what` says which, e.g. `feedback file`) up to
/// [`MAX_TEXT_INPUT`]: a regular file, opened without blocking (a FIFO or a device is
/// refused, never waited on; `-` is how stdin is given).
pub fn read_text_file(path: &std::path::Path, what: &str) -> Result<String> {
    let shown = path.display();
    let bytes = limits::read_regular_file(path, MAX_TEXT_INPUT).map_err(|e| match e {
        ReadError::Io(e) => Error::invalid(format!("cannot read {what} {shown}: {e}")),
        other => Error::invalid(format!("{what} {shown} {other}")),
    })?;
    String::from_utf8(bytes)
        .map_err(|_| Error::invalid(format!("{what} {shown} is not valid UTF-8")).into())
}

/// `--json VALUE` parsed.
pub fn parse_json_flag(s: &str) -> Result<serde_json::Value> {
    serde_json::from_str(s)
        .map_err(|e| Error::invalid(format!("--json is not valid JSON: {e}")).into())
}
