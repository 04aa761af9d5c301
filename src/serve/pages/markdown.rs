//! A plan's Markdown snapshot as HTML with no live markup (SPEC §13): raw HTML in it is
//! shown as escaped text, images are never loaded (their text is shown instead), and links
//! are kept only to http, https and mailto, marked `rel="noopener noreferrer nofollow"`.
//! Hidden and control characters are shown as in `text`.

use maud::{Markup, PreEscaped};
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

use super::text;

/// The plan's HTML.
pub fn render(markdown: &str) -> Markup {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut links: Vec<bool> = Vec::new();
    let mut in_image = 0usize;
    let events = Parser::new_ext(markdown, options).filter_map(|event| {
        Some(match event {
            Event::Html(raw) | Event::InlineHtml(raw) => shown(&raw),
            Event::Text(t) => shown(&t),
            Event::Code(code) => {
                let mut s = String::from("<code>");
                s.push_str(&text::shown(&code, false).into_string());
                s.push_str("</code>");
                Event::Html(CowStr::from(s))
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                let safe = allowed(&dest_url);
                links.push(safe);
                if !safe {
                    return None;
                }
                let mut s = String::from("<a href=\"");
                text::escape_into(&mut s, &dest_url);
                s.push_str("\" rel=\"noopener noreferrer nofollow\">");
                Event::Html(CowStr::from(s))
            }
            Event::End(TagEnd::Link) => {
                if !links.pop().unwrap_or(false) {
                    return None;
                }
                Event::Html(CowStr::from("</a>"))
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                in_image += 1;
                let mut s = String::from("<span class=\"image\">[image: ");
                text::escape_into(&mut s, &dest_url);
                s.push(' ');
                Event::Html(CowStr::from(s))
            }
            Event::End(TagEnd::Image) => {
                in_image = in_image.saturating_sub(1);
                Event::Html(CowStr::from("]</span>"))
            }
            other => other,
        })
    });
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events);
    PreEscaped(out)
}

/// Text as escaped HTML, hidden characters shown.
fn shown(s: &str) -> Event<'static> {
    Event::Html(CowStr::from(text::shown(s, true).into_string()))
}

/// Whether a link may be followed from a plan.
fn allowed(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|p| lower.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_carry_no_live_markup() {
        let md = "# Plan\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n\
                  [ok](https://example.com) [bad](javascript:alert(1)) ![pic](https://evil.example/p.png)\n\n\
                  `<b>` and **bold**\n";
        let html = render(md).into_string();
        for live in ["<script", "<img", "javascript:", "<b>"] {
            assert!(!html.contains(live), "{live} in {html}");
        }
        assert!(
            html.contains("&lt;script&gt;") && html.contains("onerror"),
            "{html}"
        );
        assert!(
            html.contains(
                r#"<a href="https://example.com" rel="noopener noreferrer nofollow">ok</a>"#
            ),
            "{html}"
        );
        assert!(
            html.contains("[image: https://evil.example/p.png pic]"),
            "{html}"
        );
        assert!(html.contains("<strong>bold</strong>"), "{html}");
    }
}
