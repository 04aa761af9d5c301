//! What commands read from the person beyond clap's flags: stdin for `-`, `--json` values,
//! and who is answering. Nothing here touches the store.

use anyhow::Result;

use crate::error::Error;

/// Who resolves an item: `--as`, else `MASTRA_ASK_USER`, else the login name.
pub fn who(as_: Option<String>) -> String {
    as_.filter(|s| !s.trim().is_empty())
        .or_else(|| {
            std::env::var("MASTRA_ASK_USER")
                .ok()
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(crate::sys::login_name)
}

/// Reads all of stdin (for `-`), without its final newline.
pub fn read_stdin(what: &str) -> Result<String> {
    use std::io::Read;
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .map_err(|e| Error::invalid(format!("cannot read {what} from stdin: {e}")))?;
    if s.ends_with('\n') {
        s.pop();
        if s.ends_with('\r') {
            s.pop();
        }
    }
    Ok(s)
}

/// `--json VALUE` parsed.
pub fn parse_json_flag(s: &str) -> Result<serde_json::Value> {
    serde_json::from_str(s)
        .map_err(|e| Error::invalid(format!("--json is not valid JSON: {e}")).into())
}
