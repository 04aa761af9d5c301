//! Untrusted text (from a model, a tool, a person) in HTML: escaped by maud like every
//! value, and beyond that (SPEC §5.6 in HTML form) every control, bidi or invisible
//! character shown as its escape (`\u{200b}`) in a marked span, never left to act on the
//! page or hide what the text holds.

use maud::{html, Markup, PreEscaped};

use crate::output::sanitize;

/// `s` as HTML: one line (newlines shown as `\n`), or with its newlines and tabs kept
/// (`block`, inside a `pre` or a `white-space: pre-wrap` element).
pub fn shown(s: &str, block: bool) -> Markup {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if sanitize::needs_escape(c) && !(block && (c == '\n' || c == '\t')) {
            out.push_str(r#"<span class="esc" title="a hidden or control character">"#);
            escape_into(&mut out, &sanitize::one_line(&c.to_string()));
            out.push_str("</span>");
        } else {
            escape_char(&mut out, c);
        }
    }
    PreEscaped(out)
}

/// One line of untrusted text.
pub fn line(s: &str) -> Markup {
    shown(s, false)
}

/// Untrusted text that keeps its lines.
pub fn block(s: &str) -> Markup {
    html! { span.block { (shown(s, true)) } }
}

pub fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        escape_char(out, c);
    }
}

fn escape_char(out: &mut String, c: char) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        '\'' => out.push_str("&#39;"),
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_hidden_characters_are_shown_not_live() {
        let s = line("<script>alert(1)</script>\u{1b}[31m\u{200b}x\ny").into_string();
        assert!(!s.contains("<script"), "{s}");
        assert!(s.contains("&lt;script&gt;"), "{s}");
        assert!(
            s.contains(r"\x1b") && s.contains(r"\u{200b}") && s.contains(r"\n"),
            "{s}"
        );
        let b = shown("a\nb\tc\u{202e}", true).into_string();
        assert!(b.contains("a\nb\tc") && b.contains(r"\u{202e}"), "{b}");
    }
}
