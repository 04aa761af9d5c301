//! `serve --ntfy-token-file FILE`: one access token per ntfy server, lines `HOST[:PORT]
//! TOKEN` (`#` comments and blank lines skipped; without a port, https's 443). The file must
//! be private (no group or world access), like a password file; its tokens are kept in
//! memory only, never stored or logged.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::limits::{open_nonblocking, read_capped};

/// The most a token file may hold.
const MAX_FILE: u64 = 64 * 1024;

/// Tokens by server (`host:port`, the host in lower case).
#[derive(Clone, Default)]
pub struct Tokens(HashMap<String, String>);

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

impl Tokens {
    /// The tokens of the file at `path`; why not, in one line, when it cannot be used.
    pub fn read(path: &Path) -> Result<Tokens, String> {
        let shown = path.display();
        let cannot =
            |e: &dyn std::fmt::Display| format!("cannot read the ntfy token file {shown}: {e}");
        let file = open_nonblocking(path).map_err(|e| cannot(&e))?;
        let meta = file.metadata().map_err(|e| cannot(&e))?;
        if !meta.is_file() {
            return Err(format!("the ntfy token file {shown} is not a regular file"));
        }
        if meta.permissions().mode() & 0o077 != 0 {
            return Err(format!(
                "the ntfy token file {shown} has group or world access; make it private (chmod 600)"
            ));
        }
        let bytes = read_capped(file, MAX_FILE).map_err(|e| cannot(&e))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("the ntfy token file {shown} is not valid UTF-8"))?;
        Tokens::parse(&text).map_err(|line| {
            format!("the ntfy token file {shown}: line {line} is not HOST[:PORT] TOKEN")
        })
    }

    /// The tokens of `text`; the number of the first line that does not read.
    pub fn parse(text: &str) -> Result<Tokens, usize> {
        let mut tokens = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut words = line.split_whitespace();
            let (Some(server), Some(token), None) = (words.next(), words.next(), words.next())
            else {
                return Err(i + 1);
            };
            let server = server.to_ascii_lowercase();
            let server = match server.rsplit_once(':') {
                Some((host, port))
                    if !host.is_empty() && port.parse::<u16>().is_ok() && !host.ends_with(':') =>
                {
                    server
                }
                Some(_) if !server.starts_with('[') => return Err(i + 1),
                _ => format!("{server}:443"),
            };
            tokens.insert(server, token.to_string());
        }
        Ok(Tokens(tokens))
    }

    /// The token for the server `host:port`, if any.
    pub fn get(&self, server: &str) -> Option<&str> {
        self.0.get(server).map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_a_server_and_its_token() {
        let t = Tokens::parse("# mine\n\nntfy.Example tk_1\n127.0.0.1:8080 tk_2\n").unwrap();
        assert_eq!(t.get("ntfy.example:443"), Some("tk_1"));
        assert_eq!(t.get("127.0.0.1:8080"), Some("tk_2"));
        assert_eq!(t.get("127.0.0.1:443"), None);
        assert_eq!(Tokens::parse("a\n").unwrap_err(), 1);
        assert_eq!(Tokens::parse("x t\nh:p t\n").unwrap_err(), 2);
    }
}
