//! The inbox's addresses (SPEC §13): the page of a run and of an item, each id one
//! percent-encoded path segment, so that no id (however odd: `/`, `?`, `..`, spaces) can
//! name another page. serve's pages link with the paths, `reviewer link` prints a sign-in
//! link; once `serve --public-url` is
//! recorded, every `pending -o json` line and `--on-suspend` payload carries an item's whole
//! URL (`item_url`), so a hook can post a link a reviewer taps.
//!
//! Only the shapes of addresses live here: no I/O, no store.

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// What stays unescaped in a path segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// A value as one path segment.
pub fn segment(s: &str) -> String {
    let encoded = utf8_percent_encode(s, SEGMENT).to_string();
    // `.` and `..` are left alone by the set, and would be a step of the path.
    match encoded.as_str() {
        "." => "%2E".into(),
        ".." => "%2E%2E".into(),
        _ => encoded,
    }
}

/// `/runs/RUN`.
pub fn run_path(run: &str) -> String {
    format!("/runs/{}", segment(run))
}

/// `/runs/RUN/items/CALL`.
pub fn item_path(run: &str, call: &str) -> String {
    format!("/runs/{}/items/{}", segment(run), segment(call))
}

/// A sign-in link's path (`/login/SECRET`), under the public URL `base` when one is
/// recorded.
pub fn login_url(base: Option<&str>, secret: &str) -> String {
    let path = format!("/login/{}", segment(secret));
    match base {
        Some(base) => format!("{}{path}", base.trim_end_matches('/')),
        None => path,
    }
}

/// The item's page under the public URL `base` (an origin, as serve records it).
pub fn item_url(base: &str, run: &str, call: &str) -> String {
    format!("{}{}", base.trim_end_matches('/'), item_path(run, call))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_is_one_segment() {
        assert_eq!(
            item_url("https://inbox.example.com/", "r-1", "call_1"),
            "https://inbox.example.com/runs/r-1/items/call_1"
        );
        assert_eq!(
            item_path("a/b", "c?d e#f"),
            "/runs/a%2Fb/items/c%3Fd%20e%23f"
        );
        assert_eq!(run_path(".."), "/runs/%2E%2E");
        assert_eq!(item_path(".", "é"), "/runs/%2E/items/%C3%A9");
        assert_eq!(login_url(None, "abc"), "/login/abc");
        assert_eq!(
            login_url(Some("https://i.example.com/"), "abc"),
            "https://i.example.com/login/abc"
        );
    }
}
