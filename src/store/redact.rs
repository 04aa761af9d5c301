//! Store URLs as messages and printed commands show them: without the password, wherever
//! the URL carries it (`user:pw@`, `?password=`, any `…password…` parameter, and inside
//! `options`), and likewise for a libpq keyword/value string; in a command for a person to
//! paste, without the user too. Pure string work; nothing here connects.

use super::location::keywords;

/// `url` without its password.
pub fn redact(url: &str) -> String {
    shown(url, true)
}

/// A PostgreSQL `url` as a command for a person to paste names it: without the password
/// and without the user (`user@`, a `user` parameter), so that whoever pastes the command
/// connects as themselves (their `PGUSER`, else their OS user name), not as the process
/// that printed it.
pub fn pasteable(url: &str) -> String {
    shown(url, false)
}

/// `url` without its password, and without its user unless `with_user`.
fn shown(url: &str, with_user: bool) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return match keywords(url) {
            Some(mut pairs) => {
                pairs.retain(|(k, _)| with_user || k != "user");
                redact_keywords(&pairs)
            }
            None => url.to_string(),
        };
    };
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let mut out = format!("{scheme}://");
    match before_query.rsplit_once('@') {
        Some((userinfo, host)) if with_user => {
            let user = userinfo.split(':').next().unwrap_or_default();
            out.push_str(&format!("{user}@{host}"));
        }
        Some((_, host)) => out.push_str(host),
        None => out.push_str(before_query),
    }
    let Some(query) = query else { return out };
    let kept: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .filter_map(|param| {
            let (key, value) = param.split_once('=').unwrap_or((param, ""));
            let key_text = decode(key).to_ascii_lowercase();
            if key_text.contains("password") || (!with_user && key_text == "user") {
                return None;
            }
            if key_text == "options" && decode(value).to_ascii_lowercase().contains("password") {
                return Some(format!("{key}=[redacted]"));
            }
            Some(param.to_string())
        })
        .collect();
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    out
}

/// A keyword/value string without its password (`options` that mention one are hidden).
fn redact_keywords(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .filter(|(k, _)| !k.contains("password"))
        .map(|(k, v)| {
            if k == "options" && v.to_ascii_lowercase().contains("password") {
                return format!("{k}=[redacted]");
            }
            if v.is_empty() || v.contains(|c: char| c.is_whitespace() || c == '\'' || c == '\\') {
                format!("{k}='{}'", v.replace('\\', "\\\\").replace('\'', "\\'"))
            } else {
                format!("{k}={v}")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Percent-decoding (and `+` as a space), lossy: only to look for the word "password".
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_removed_wherever_the_url_carries_them() {
        let cases = [
            ("postgres://u:pw@h:5432/db", "postgres://u@h:5432/db"),
            (
                "postgres://u:p@w/x@h/db?sslmode=disable",
                "postgres://u@h/db?sslmode=disable",
            ),
            ("postgres://u@h/db?password=S3cr3t", "postgres://u@h/db"),
            (
                "postgres://h/db?connect_timeout=3&PassWord=x&sslpassword=y",
                "postgres://h/db?connect_timeout=3",
            ),
            (
                "postgres://h/db?options=-c%20password%3Dx&application_name=a",
                "postgres://h/db?options=[redacted]&application_name=a",
            ),
            (
                "postgres://h/db?options=-c%20lock_timeout%3D1s",
                "postgres://h/db?options=-c%20lock_timeout%3D1s",
            ),
            ("postgres://h/db?%70assword=x", "postgres://h/db"),
            ("postgres://h/db?bad%=1&%", "postgres://h/db?bad%=1&%"),
            ("no scheme at all", "no scheme at all"),
            (
                "host=h port=1 user=u password=Kpw-KKK111 dbname=d",
                "host=h port=1 user=u dbname=d",
            ),
            (
                "dbname='my db' password='a b' options='-c password=x'",
                "dbname='my db' options=[redacted]",
            ),
        ];
        for (url, shown) in cases {
            assert_eq!(redact(url), shown, "{url}");
        }
    }

    #[test]
    fn a_pasteable_url_names_no_user_and_no_password() {
        let cases = [
            (
                "postgres://ci:pw@db.internal:5432/mastra_ask?sslmode=verify-full&user=ci&sslrootcert=/ca.crt",
                "postgres://db.internal:5432/mastra_ask?sslmode=verify-full&sslrootcert=/ca.crt",
            ),
            ("postgres://ci@h/db?%75ser=ci", "postgres://h/db"),
            ("postgresql://h/db", "postgresql://h/db"),
            ("postgres://ci@/db?host=/run/pg", "postgres:///db?host=/run/pg"),
            ("host=h user=ci password=x dbname=d", "host=h dbname=d"),
        ];
        for (url, shown) in cases {
            assert_eq!(pasteable(url), shown, "{url}");
        }
    }
}
