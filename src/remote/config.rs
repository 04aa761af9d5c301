//! Where a Mastra server is and how to prove who we are to it: the server URL (its path is
//! the API prefix), the token (from `MASTRA_SERVER_TOKEN` or a token file; an `apiKey=` in
//! the URL's query, or `user:password@` in it, also count as credentials), and the one rule
//! for sending them: only over https or to a loopback address.
//!
//! It holds every secret it was given so that any text shown to a person can be scrubbed of
//! them ([`ServerConfig::redact`], [`ServerConfig::redact_value`]); its `Debug` and its
//! display form never contain one. It does no IO beyond reading the token file.

use std::fmt;
use std::path::Path;

use base64::Engine as _;
use ureq::http::Uri;

use super::error::RemoteError;
use crate::net::Origin;

/// The environment variable with the server URL.
pub const URL_ENV: &str = "MASTRA_SERVER_URL";
/// The environment variable with the token.
pub const TOKEN_ENV: &str = "MASTRA_SERVER_TOKEN";
/// The API prefix when the URL has no path (Mastra's default `apiPrefix`).
pub const DEFAULT_PREFIX: &str = "/api";
/// A token file larger than this is not a token.
const MAX_TOKEN_FILE: u64 = 64 * 1024;
/// What a secret is replaced with in a message.
pub const REDACTED: &str = "***";

/// How we authenticate: a token (Mastra's `Authorization: Bearer`), or the user and password
/// of the URL (for a proxy in front of the server).
#[derive(Clone)]
enum Credential {
    Bearer(String),
    Basic(String),
}

/// A server to talk to.
#[derive(Clone)]
pub struct ServerConfig {
    origin: Origin,
    prefix: String,
    credential: Option<Credential>,
    /// Every secret we were given, in every spelling it could appear in, longest first.
    secrets: Vec<String>,
    display: String,
}

impl ServerConfig {
    /// A server from its URL and maybe a token (which wins over the URL's own credentials).
    pub fn new(url: &str, token: Option<String>) -> Result<ServerConfig, RemoteError> {
        let mut secrets = Vec::new();
        let token = token.filter(|t| !t.is_empty());
        if let Some(t) = &token {
            secrets.push(t.clone());
        }
        let (userinfo, api_key) = url_credentials(url);
        secrets.extend(userinfo.iter().map(|(_, raw)| raw.clone()));
        if let Some((decoded, raw)) = &api_key {
            secrets.push(decoded.clone());
            secrets.push(raw.clone());
        }
        let mut user_pass = None;
        if let Some((decoded, _)) = &userinfo {
            if let Some((_, password)) = decoded.split_once(':') {
                if !password.is_empty() {
                    secrets.push(password.to_string());
                }
            }
            user_pass = Some(decoded.clone());
        }
        secrets.retain(|s| s.len() >= 3);
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        let bad = |why: String| {
            RemoteError::Config(format!("bad server URL {}: {why}", scrub(url, &secrets)))
        };
        let uri: Uri = url.trim().parse().map_err(|e| bad(format!("{e}")))?;
        let origin = Origin::of(&uri).map_err(bad)?;
        if let Some(query) = uri.query() {
            if let Some(other) = query_names(query).find(|n| *n != "apiKey") {
                return Err(bad(format!(
                    "its query may only hold apiKey, not {other} (the path is the API prefix)"
                )));
            }
        }
        let path = uri.path().trim_end_matches('/');
        let prefix = if path.is_empty() {
            DEFAULT_PREFIX.to_string()
        } else {
            path.to_string()
        };
        let credential = match (token, api_key, user_pass) {
            (Some(t), _, _) => Some(Credential::Bearer(t)),
            (None, Some((key, _)), _) if !key.is_empty() => Some(Credential::Bearer(key)),
            (None, _, Some(up)) => Some(Credential::Basic(
                base64::engine::general_purpose::STANDARD.encode(up),
            )),
            _ => None,
        };
        if let Some(Credential::Basic(encoded)) = &credential {
            secrets.insert(0, encoded.clone());
        }
        let display = format!("{}{}", origin.base(), prefix);
        Ok(ServerConfig {
            origin,
            prefix,
            credential,
            secrets,
            display,
        })
    }

    /// The server of `url` (else `MASTRA_SERVER_URL`) with the token of `token_file` (else
    /// `MASTRA_SERVER_TOKEN`).
    pub fn from_env(
        url: Option<&str>,
        token_file: Option<&Path>,
    ) -> Result<ServerConfig, RemoteError> {
        let url = match url {
            Some(u) => u.to_string(),
            None => std::env::var(URL_ENV)
                .ok()
                .filter(|u| !u.trim().is_empty())
                .ok_or_else(|| {
                    RemoteError::Config(format!("no server URL: pass one or set {URL_ENV}"))
                })?,
        };
        let token = read_token(std::env::var(TOKEN_ENV).ok(), token_file)?;
        ServerConfig::new(&url, token)
    }

    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The API prefix: the URL's path without a trailing slash, `/api` when it had none.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The server as shown to people and stored: `scheme://host:port/prefix`, no credentials.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// The absolute URL of an API path (`/agents/...`).
    pub fn url(&self, api_path: &str) -> String {
        format!("{}{}{}", self.origin.base(), self.prefix, api_path)
    }

    /// Whether we have any credential at all.
    pub fn has_credential(&self) -> bool {
        self.credential.is_some()
    }

    /// Whether a credential exists but is withheld because the server is neither https nor
    /// on this machine.
    pub fn credential_withheld(&self) -> bool {
        self.credential.is_some() && !self.origin.may_carry_credentials()
    }

    /// The `Authorization` header for a request to `origin`: only to our own origin, and only
    /// when that origin may carry credentials.
    pub fn authorization(&self, origin: &Origin) -> Option<String> {
        if *origin != self.origin || !origin.may_carry_credentials() {
            return None;
        }
        match self.credential.as_ref()? {
            Credential::Bearer(t) => Some(format!("Bearer {t}")),
            Credential::Basic(b) => Some(format!("Basic {b}")),
        }
    }

    /// `text` without any of our secrets, and without any `user:password@` of a URL in it.
    pub fn redact(&self, text: &str) -> String {
        scrub(text, &self.secrets)
    }

    /// Whether a server's raw JSON may hold one of our secrets: spelt out, or behind an
    /// escape (`\u0074ok`), which only decoding it can tell.
    pub fn may_hold_secret(&self, json: &[u8]) -> bool {
        !self.secrets.is_empty()
            && (json.contains(&b'\\')
                || self.secrets.iter().any(|s| {
                    let s = s.as_bytes();
                    json.windows(s.len()).any(|w| w == s)
                }))
    }

    /// Whether `text` holds one of our secrets.
    pub fn holds_secret(&self, text: &str) -> bool {
        self.secrets.iter().any(|s| text.contains(s.as_str()))
    }

    /// Removes our secrets from every string (and key) of a server's JSON, wherever it
    /// repeats them; whether anything changed. URLs' user info is left as the server sent it
    /// (only our own secrets are taken out of data).
    pub fn redact_value(&self, value: &mut serde_json::Value) -> bool {
        use serde_json::Value;
        if self.secrets.is_empty() {
            return false;
        }
        let clean = |s: &str| {
            let mut out = s.to_string();
            for secret in &self.secrets {
                if out.contains(secret.as_str()) {
                    out = out.replace(secret.as_str(), REDACTED);
                }
            }
            out
        };
        match value {
            Value::String(s) if self.holds_secret(s) => {
                *s = clean(s);
                true
            }
            Value::Array(items) => items
                .iter_mut()
                .fold(false, |changed, v| self.redact_value(v) | changed),
            Value::Object(map) => {
                let mut changed = false;
                if map.keys().any(|k| self.holds_secret(k)) {
                    *map = std::mem::take(map)
                        .into_iter()
                        .map(|(k, v)| (clean(&k), v))
                        .collect();
                    changed = true;
                }
                map.values_mut()
                    .fold(changed, |changed, v| self.redact_value(v) | changed)
            }
            _ => false,
        }
    }
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("server", &self.display)
            .field("credential", &self.credential.as_ref().map(|_| REDACTED))
            .finish()
    }
}

/// The token: the file's content when a file is given (trimmed; it must not be empty), else
/// the environment's value when not empty.
pub fn read_token(env: Option<String>, file: Option<&Path>) -> Result<Option<String>, RemoteError> {
    let Some(path) = file else {
        return Ok(env.map(|t| t.trim().to_string()).filter(|t| !t.is_empty()));
    };
    let shown = path.display();
    let bytes = crate::limits::read_regular_file(path, MAX_TOKEN_FILE).map_err(|e| match e {
        crate::limits::ReadError::Io(e) => {
            RemoteError::Config(format!("cannot read the token file {shown}: {e}"))
        }
        _ => RemoteError::Config(format!(
            "the token file {shown} is not a small regular file"
        )),
    })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| RemoteError::Config(format!("the token file {shown} is not valid UTF-8")))?;
    let token = text.trim();
    if token.is_empty() || token.contains(['\n', '\r']) {
        return Err(RemoteError::Config(format!(
            "the token file {shown} must hold one non-empty line"
        )));
    }
    Ok(Some(token.to_string()))
}

/// The `user:password` of the URL (decoded, raw) and the value of its `apiKey` (decoded,
/// raw), found without trusting the URL to parse.
#[allow(clippy::type_complexity)]
fn url_credentials(url: &str) -> (Option<(String, String)>, Option<(String, String)>) {
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = after_scheme
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    let userinfo = authority
        .rsplit_once('@')
        .map(|(u, _)| (decode(u), u.to_string()));
    let api_key = url
        .split_once('?')
        .map(|(_, q)| q.split('#').next().unwrap_or_default())
        .and_then(|q| {
            q.split('&')
                .filter_map(|pair| pair.split_once('='))
                .find(|(name, _)| *name == "apiKey")
                .map(|(_, v)| (decode(v), v.to_string()))
        });
    (userinfo, api_key)
}

fn query_names(query: &str) -> impl Iterator<Item = &str> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').map_or(p, |(n, _)| n))
}

/// Replaces each secret, and the userinfo of every URL, with `***`.
fn scrub(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_string();
    for s in secrets {
        if out.contains(s.as_str()) {
            out = out.replace(s.as_str(), REDACTED);
        }
    }
    let mut result = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        result.push_str(head);
        let end = tail
            .find(|c: char| c == '/' || c == '?' || c == '#' || c.is_whitespace() || c == '"')
            .unwrap_or(tail.len());
        match tail[..end].rfind('@') {
            Some(i) => {
                result.push_str(REDACTED);
                result.push_str(&tail[i..end]);
            }
            None => result.push_str(&tail[..end]),
        }
        rest = &tail[end..];
    }
    result.push_str(rest);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(url: &str) -> Origin {
        Origin::of(&url.parse().unwrap()).unwrap()
    }

    #[test]
    fn the_path_is_the_prefix() {
        let c = ServerConfig::new("http://127.0.0.1:4111", None).unwrap();
        assert_eq!(c.prefix(), "/api");
        assert_eq!(c.display(), "http://127.0.0.1:4111/api");
        assert_eq!(c.url("/agents"), "http://127.0.0.1:4111/api/agents");
        let c = ServerConfig::new("https://Example.COM/mastra/api/", None).unwrap();
        assert_eq!(c.prefix(), "/mastra/api");
        assert_eq!(c.display(), "https://example.com:443/mastra/api");
        let c = ServerConfig::new("http://[::1]:8080/", None).unwrap();
        assert_eq!(c.display(), "http://[::1]:8080/api");
    }

    #[test]
    fn bad_urls_are_config_errors_without_secrets() {
        for (url, why) in [
            ("ftp://host/api", "scheme must be http or https"),
            ("localhost:4111", "http://"),
            ("http://h/api?debug=1", "not debug"),
            ("http://user:sekret@h/api?x=1", "not x"),
        ] {
            let e = ServerConfig::new(url, None).unwrap_err().to_string();
            assert!(e.contains(why), "{url}: {e}");
            assert!(!e.contains("sekret"), "{e}");
        }
    }

    #[test]
    fn credentials_go_only_over_https_or_to_loopback() {
        assert!(origin("http://localhost:1").may_carry_credentials());
        assert!(origin("http://127.0.0.9:1").may_carry_credentials());
        assert!(origin("http://[::1]:1").may_carry_credentials());
        assert!(origin("https://example.com").may_carry_credentials());
        assert!(!origin("http://example.com").may_carry_credentials());
        assert!(!origin("http://10.0.0.1").may_carry_credentials());

        let local = ServerConfig::new("http://127.0.0.1:9/api", Some("tok-123".into())).unwrap();
        let own = local.origin().clone();
        assert_eq!(local.authorization(&own).as_deref(), Some("Bearer tok-123"));
        assert!(!local.credential_withheld());
        let other = origin("http://127.0.0.1:10");
        assert_eq!(
            local.authorization(&other),
            None,
            "another port is another origin"
        );

        let plain = ServerConfig::new("http://example.com/api", Some("tok-123".into())).unwrap();
        assert_eq!(plain.authorization(plain.origin()), None);
        assert!(plain.credential_withheld());
    }

    #[test]
    fn url_credentials_are_used_and_never_shown() {
        let c = ServerConfig::new("https://h.example/api?apiKey=k%2Fey-1", None).unwrap();
        assert_eq!(
            c.authorization(c.origin()).as_deref(),
            Some("Bearer k/ey-1")
        );
        assert_eq!(c.display(), "https://h.example:443/api");
        assert_eq!(c.redact("got k/ey-1 and k%2Fey-1"), "got *** and ***");

        let c = ServerConfig::new("https://al:pa%40ss@h.example/api", None).unwrap();
        assert_eq!(
            c.authorization(c.origin()).as_deref(),
            Some("Basic YWw6cGFAc3M=")
        );
        assert!(!format!("{c:?}").contains("pa"), "{c:?}");
        assert_eq!(
            c.redact("see https://al:pa%40ss@h.example/api, pa@ss"),
            "see https://***@h.example/api, ***"
        );

        let c = ServerConfig::new(
            "https://al:x@h.example/api?apiKey=kk1",
            Some("tok-9".into()),
        )
        .unwrap();
        assert_eq!(c.authorization(c.origin()).as_deref(), Some("Bearer tok-9"));
        assert_eq!(c.redact("tok-9 kk1"), "*** ***");
        assert_eq!(c.redact("http://u:v@other/x"), "http://***@other/x");
    }

    #[test]
    fn the_token_file_wins_and_must_hold_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "  from-file\n").unwrap();
        assert_eq!(
            read_token(Some("from-env".into()), Some(&file))
                .unwrap()
                .as_deref(),
            Some("from-file")
        );
        assert_eq!(
            read_token(Some(" from-env ".into()), None)
                .unwrap()
                .as_deref(),
            Some("from-env")
        );
        assert_eq!(read_token(Some("".into()), None).unwrap(), None);
        std::fs::write(&file, "\n").unwrap();
        assert!(read_token(None, Some(&file))
            .unwrap_err()
            .to_string()
            .contains("one non-empty line"));
        std::fs::write(&file, "a\nb").unwrap();
        assert!(read_token(None, Some(&file)).is_err());
        let missing = dir.path().join("nope");
        assert!(read_token(None, Some(&missing))
            .unwrap_err()
            .to_string()
            .contains("cannot read the token file"));
    }
}
