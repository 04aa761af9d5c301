//! Small formatting helpers: times, ages, and the words of commands we print for a
//! person to paste (shell-quoted, with control and invisible characters escaped).

/// RFC 3339 UTC, always three digits of milliseconds, so that times line up in a column.
pub fn time(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| format!("{t:.3}"))
        .unwrap_or_else(|_| ms.to_string())
}

/// A short age such as `42s`, `5m`, `3h`, `2d`.
pub fn age(from_ms: i64, now_ms: i64) -> String {
    let mut out = String::new();
    push_age(&mut out, from_ms, now_ms);
    out
}

/// `age(from_ms, now_ms)` appended to `out`.
pub fn push_age(out: &mut String, from_ms: i64, now_ms: i64) {
    use std::fmt::Write;
    let s = now_ms.saturating_sub(from_ms).max(0) / 1000;
    let _ = match s {
        s if s < 60 => write!(out, "{s}s"),
        s if s < 3600 => write!(out, "{}m", s / 60),
        s if s < 86_400 => write!(out, "{}h", s / 3600),
        s => write!(out, "{}d", s / 86_400),
    };
}

/// Quotes a word for a shell when it needs it. A word with a control, bidi or invisible
/// character is written in `$'…'` quoting (bash, zsh, ksh and POSIX 2024 `sh`) with each
/// such character as the `\xHH` escapes of its UTF-8 bytes, so the printed word is harmless
/// on a terminal and, pasted, gives the exact bytes back (`\u` escapes would depend on the
/// locale). Other words that need quoting get single quotes.
pub fn shell_quote(s: &str) -> String {
    let mut out = String::new();
    push_shell_quoted(&mut out, s);
    out
}

/// `shell_quote(s)` appended to `out` (a plain word is copied as is).
pub fn push_shell_quoted(out: &mut String, s: &str) {
    use std::fmt::Write;
    let bare = |b: &u8| b.is_ascii_alphanumeric() || b"_-./:@%+=,".contains(b);
    if !s.is_empty() && s.as_bytes().iter().all(bare) {
        return out.push_str(s);
    }
    if !s.chars().any(super::sanitize::needs_escape) {
        out.push('\'');
        for (i, part) in s.split('\'').enumerate() {
            if i > 0 {
                out.push_str(r"'\''");
            }
            out.push_str(part);
        }
        return out.push('\'');
    }
    out.push_str("$'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if super::sanitize::needs_escape(c) => {
                for b in c.encode_utf8(&mut [0; 4]).bytes() {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// `--name VALUE` for a printed command, written `--name=VALUE` when VALUE starts with `-`
/// so that the parser takes it as the value and not as another flag.
pub fn flag(name: &str, value: &str) -> String {
    let mut out = String::new();
    push_flag(&mut out, name, value);
    out
}

/// `flag(name, value)` appended to `out`.
pub fn push_flag(out: &mut String, name: &str, value: &str) {
    out.push_str(name);
    out.push(if value.starts_with('-') { '=' } else { ' ' });
    push_shell_quoted(out, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_ages() {
        assert_eq!(time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(time(1_500), "1970-01-01T00:00:01.500Z");
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

    #[test]
    fn controls_and_invisibles_are_escaped_in_dollar_quotes() {
        assert_eq!(shell_quote("a\x1b]52;c;x\x07"), r"$'a\x1b]52;c;x\x07'");
        assert_eq!(shell_quote("r\u{202e}l"), r"$'r\xe2\x80\xael'");
        assert_eq!(shell_quote("x\u{9b}\r\0"), r"$'x\xc2\x9b\x0d\x00'");
        assert_eq!(shell_quote("it's \\ \u{200b}"), r"$'it\'s \\ \xe2\x80\x8b'");
        assert!(!shell_quote("\u{e0041}\u{feff}")
            .chars()
            .any(|c| !c.is_ascii_graphic()));
    }

    #[test]
    fn flags_whose_value_starts_with_a_dash() {
        assert_eq!(flag("--tool-call", "call_1"), "--tool-call call_1");
        assert_eq!(flag("--tool-call", "-rf"), "--tool-call=-rf");
        assert_eq!(flag("--tool-call", "--x y"), "--tool-call='--x y'");
        assert_eq!(flag("--tool-call", "-\x1b"), r"--tool-call=$'-\x1b'");
    }
}
