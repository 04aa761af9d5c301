//! Makes untrusted text (from a model or a person) safe to print on a terminal: control
//! characters (C0, C1, escape sequences), bidi controls and invisible characters are shown
//! escaped (`\x1b`, `\u{200b}`), always, terminal or not, so what a person reads is what
//! the text holds.
//!
//! It never drops or reorders characters, and it leaves visible text (any script, emoji)
//! alone.

use std::borrow::Cow;
use std::fmt::Write;

fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Characters that show nothing (or nothing on most terminals) yet change what text
/// means or hides data: format characters (zero-width spaces and joiners, word joiners and
/// invisible operators, the byte-order mark, interlinear annotations, shorthand format
/// controls), tag characters, the variation selectors supplement, fillers that render blank,
/// and the line and paragraph separators.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}'
        | '\u{034f}'
        | '\u{0600}'..='\u{0605}'
        | '\u{06dd}'
        | '\u{070f}'
        | '\u{0890}'..='\u{0891}'
        | '\u{08e2}'
        | '\u{115f}'..='\u{1160}'
        | '\u{17b4}'..='\u{17b5}'
        | '\u{180b}'..='\u{180f}'
        | '\u{200b}'..='\u{200d}'
        | '\u{2028}'..='\u{2029}'
        | '\u{2060}'..='\u{2065}'
        | '\u{206a}'..='\u{206f}'
        | '\u{3164}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff0}'..='\u{fffb}'
        | '\u{110bd}'
        | '\u{110cd}'
        | '\u{13430}'..='\u{1343f}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0000}'..='\u{e0fff}'
    )
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

/// Whether `c` is shown escaped: control, bidi or invisible.
pub fn needs_escape(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    c.is_control() || is_bidi(c) || is_invisible(c)
}

/// Whether `s` is printable ASCII only (besides newlines and tabs when `block`): nothing in
/// it needs escaping. The common case, checked 32 bytes at a time without a branch per byte.
fn plain(s: &str, block: bool) -> bool {
    let ok = |b: u8| b.wrapping_sub(0x20) < 0x5f || (block && (b == b'\n' || b == b'\t'));
    s.as_bytes()
        .chunks(32)
        .all(|chunk| chunk.iter().fold(true, |all, &b| all & ok(b)))
}

/// For text shown on one line (questions, labels, titles, ids): newlines become `\n`.
pub fn one_line(s: &str) -> String {
    let mut out = String::new();
    push_one_line(&mut out, s);
    out
}

/// `one_line(s)` appended to `out`: copied as is when nothing needs escaping.
pub fn push_one_line(out: &mut String, s: &str) {
    if plain(s, false) {
        return out.push_str(s);
    }
    out.reserve(s.len());
    for c in s.chars() {
        if needs_escape(c) {
            escape_into(out, c);
        } else {
            out.push(c);
        }
    }
}

/// For an HTTP header's value, which carries visible ASCII only: `one_line(s)`, with every
/// character beyond ASCII escaped too (`\u{e9}`).
pub fn ascii_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() && !c.is_ascii_control() {
            out.push(c);
        } else {
            escape_into(&mut out, c);
        }
    }
    out
}

/// For text shown as a block (plans, agent output): newlines and tabs are kept.
pub fn block(s: &str) -> String {
    block_cow(s).into_owned()
}

/// `block(s)`, borrowed when nothing needs escaping (what every line printed goes through).
pub fn block_cow(s: &str) -> Cow<'_, str> {
    if plain(s, true) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c != '\n' && c != '\t' && needs_escape(c) {
            escape_into(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A line of JSON made safe for a terminal without changing its value: inside strings, the
/// characters text mode escapes (C0 and C1 controls, DEL, bidi controls, invisible
/// characters) become `\uXXXX` escapes (a surrogate pair past U+FFFF); between tokens, line
/// breaks and tabs become spaces, so one JSON value stays on one line.
pub fn json(s: &str) -> Cow<'_, str> {
    if plain(s, false) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let (mut in_string, mut escaped) = (false, false);
    for c in s.chars() {
        match (in_string, c) {
            (true, _) if escaped => {
                escaped = false;
                out.push(c);
            }
            (true, '\\') => {
                escaped = true;
                out.push(c);
            }
            (_, '"') => {
                in_string = !in_string;
                out.push(c);
            }
            (false, '\r' | '\n' | '\t') => out.push(' '),
            (_, c) if needs_escape(c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            (_, c) => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// JSON lines, each ending in a newline, each made safe as `json` makes one line.
pub fn json_lines(s: &str) -> Cow<'_, str> {
    if s.split_terminator('\n').all(|line| plain(line, false)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for line in s.split_terminator('\n') {
        out.push_str(&json(line));
        out.push('\n');
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_keep_their_value_and_lose_raw_controls() {
        let plain = r#"{"a":"b \" c","n":[1,2.5]}"#;
        assert!(matches!(json(plain), std::borrow::Cow::Borrowed(_)));
        let hostile = "{\"t\":\"x\u{202e}y\u{9b}z\u{e0041}\\\"\u{7f}\",\r\"k\u{200b}\":1}";
        let safe = json(hostile);
        assert_eq!(
            safe,
            r#"{"t":"x\u202ey\u009bz\udb40\udc41\"\u007f", "k\u200b":1}"#
        );
        let a: serde_json::Value = serde_json::from_str(hostile).unwrap();
        let b: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(a, b, "the same value");
        assert!(safe.bytes().all(|b| (0x20..0x7f).contains(&b)));
        assert_eq!(
            json("{\"é\":\"ü 日本\"}"),
            "{\"é\":\"ü 日本\"}",
            "visible text stays"
        );
    }

    #[test]
    fn json_lines_are_each_made_safe_and_plain_ones_are_not_copied() {
        let plain = "{\"a\":1}\n{\"b\":\"c\"}\n";
        assert!(matches!(json_lines(plain), Cow::Borrowed(_)));
        let hostile = "{\"a\":\"\u{1b}[2J\"}\n{\"b\":\"\u{202e}\"}\n";
        assert_eq!(
            json_lines(hostile),
            "{\"a\":\"\\u001b[2J\"}\n{\"b\":\"\\u202e\"}\n"
        );
        assert!(matches!(block_cow("a\n\tb\n"), Cow::Borrowed(_)));
        assert_eq!(block_cow("a\r\n"), "a\\r\n");
        let mut out = String::from("x ");
        push_one_line(&mut out, "y\nz");
        push_one_line(&mut out, " w");
        assert_eq!(out, "x y\\nz w");
    }

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
    fn escapes_invisible_characters() {
        assert_eq!(
            one_line("a\u{200b}b\u{feff}c\u{2060}d\u{e0041}\u{e007f}e"),
            "a\\u{200b}b\\u{feff}c\\u{2060}d\\u{e0041}\\u{e007f}e"
        );
        for c in [
            '\u{200c}',
            '\u{200d}',
            '\u{2064}',
            '\u{2028}',
            '\u{ad}',
            '\u{180e}',
            '\u{e0100}',
        ] {
            assert_eq!(one_line(&c.to_string()), format!("\\u{{{:x}}}", c as u32));
        }
        // Visible text of any script, and emoji with their presentation selector, stay.
        assert_eq!(block("Ωμέγα ✔️ 😀 ﷺ"), "Ωμέγα ✔️ 😀 ﷺ");
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
