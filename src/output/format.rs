//! Small formatting helpers: times, ages, shell quoting.

/// RFC 3339 UTC, millisecond precision.
pub fn time(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_string())
        .unwrap_or_else(|_| ms.to_string())
}

/// A short age such as `42s`, `5m`, `3h`, `2d`.
pub fn age(from_ms: i64, now_ms: i64) -> String {
    let s = ((now_ms - from_ms).max(0)) / 1000;
    match s {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// Quotes a word for a POSIX shell when it needs it.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_ages() {
        assert_eq!(time(0), "1970-01-01T00:00:00Z");
        assert_eq!(time(1_500), "1970-01-01T00:00:01.5Z");
        assert_eq!(age(0, 59_000), "59s");
        assert_eq!(age(0, 7_200_000), "2h");
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("abc-1.2"), "abc-1.2");
        assert_eq!(shell_quote("Add tests"), "'Add tests'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
