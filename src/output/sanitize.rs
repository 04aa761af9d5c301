//! Makes untrusted text (from a model or a person) safe to print on a terminal: control
//! characters (C0, C1, escape sequences) and bidi overrides are shown escaped, always,
//! terminal or not.

use std::fmt::Write;

fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape_into(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

fn needs_escape(c: char) -> bool {
    c.is_control() || is_bidi(c) || c == '\u{2028}' || c == '\u{2029}'
}

/// For text shown on one line (questions, labels, titles, ids): newlines become `\n`.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if needs_escape(c) {
            escape_into(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// For text shown as a block (plans, agent output): newlines and tabs are kept.
pub fn block(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c != '\n' && c != '\t' && needs_escape(c) {
            escape_into(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(one_line("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(one_line("\x1b]0;title\x07"), "\\x1b]0;title\\x07");
        assert_eq!(one_line("abc\u{202e}def"), "abc\\u{202e}def");
        assert_eq!(one_line("x\u{9b}31m"), "x\\u{9b}31m");
        assert_eq!(one_line("two\nlines\ttab\x7f"), "two\\nlines\\ttab\\x7f");
        assert_eq!(one_line("naïve 日本"), "naïve 日本");
    }

    #[test]
    fn blocks_keep_newlines_and_tabs() {
        assert_eq!(block("# T\n\tx\r\n\x1b[31m"), "# T\n\tx\\r\n\\x1b[31m");
    }

    #[test]
    fn no_text_gets_a_control_character_through() {
        let mut rng = crate::testing::Rng::new(2);
        for _ in 0..crate::testing::CASES {
            let s = crate::testing::string(&mut rng);
            assert!(!one_line(&s).chars().any(needs_escape), "{s:?}");
            assert!(
                !block(&s)
                    .chars()
                    .any(|c| c != '\n' && c != '\t' && needs_escape(c)),
                "{s:?}"
            );
        }
    }
}
