//! Renders a plan's Markdown for a terminal: title, headings, lists, block quotes, rules and
//! code blocks, with bold, italic and inline code.
//!
//! A small line-based renderer rather than a full Markdown engine: plans are short documents
//! written by a model, and this keeps the rendering dependent on console's colour switch
//! only. Its input must already be sanitized (it adds escape sequences of its own and would
//! not notice hostile ones). Without colours the plan is shown as its Markdown source, which
//! reads well as plain text. It only formats; it never prints.

use console::{measure_text_width, Style};

/// The lines to show for a plan: a title line, the path, a blank line, then the body.
pub fn render(title: &str, path: &str, body: &str, styled: bool) -> Vec<String> {
    let paint = Paint { on: styled };
    let title = if title.is_empty() {
        "(untitled plan)"
    } else {
        title
    };
    let mut lines = if styled {
        vec![
            paint.apply(Style::new().bold().underlined(), title),
            paint.apply(Style::new().dim(), path),
        ]
    } else {
        vec![format!("# {title}"), format!("({path})")]
    };
    lines.push(String::new());
    if !styled {
        lines.extend(body.lines().map(str::to_string));
        return lines;
    }
    let mut fence: Option<String> = None;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            } else {
                lines.push(format!(
                    "{}{}",
                    paint.apply(Style::new().dim(), "  │ "),
                    paint.apply(Style::new().cyan(), line)
                ));
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(trimmed[..3].to_string());
            continue;
        }
        lines.push(block_line(line, &paint));
    }
    lines
}

/// How many terminal rows `lines` take at `columns` wide.
pub fn rows(lines: &[String], columns: usize) -> usize {
    let columns = columns.max(1);
    lines
        .iter()
        .map(|l| measure_text_width(l).div_ceil(columns).max(1))
        .sum()
}

fn block_line(line: &str, paint: &Paint) -> String {
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    if let Some((level, text)) = heading(trimmed) {
        let style = match level {
            1 => Style::new().bold().underlined(),
            2 => Style::new().bold(),
            _ => Style::new().bold().italic(),
        };
        return paint.apply(style, text);
    }
    if is_rule(trimmed) {
        return paint.apply(Style::new().dim(), &"─".repeat(40));
    }
    if let Some(rest) = trimmed.strip_prefix('>') {
        return format!(
            "{indent}{}{}",
            paint.apply(Style::new().dim(), "│ "),
            paint.apply(Style::new().italic(), &inline(rest.trim_start(), paint))
        );
    }
    if let Some(rest) = ["- ", "* ", "+ "]
        .iter()
        .find_map(|m| trimmed.strip_prefix(m))
    {
        let (mark, rest) = match rest {
            r if r.starts_with("[ ] ") => ("☐", &r[4..]),
            r if r.starts_with("[x] ") || r.starts_with("[X] ") => ("☑", &r[4..]),
            r => ("•", r),
        };
        return format!(
            "{indent}{} {}",
            paint.apply(Style::new().cyan(), mark),
            inline(rest, paint)
        );
    }
    if let Some((number, rest)) = ordered_item(trimmed) {
        return format!(
            "{indent}{} {}",
            paint.apply(Style::new().cyan(), number),
            inline(rest, paint)
        );
    }
    format!("{indent}{}", inline(trimmed, paint))
}

/// `## Text` → (2, "Text"), trailing `#`s dropped.
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|&c| c == '#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &line[level..];
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((level, rest.trim().trim_end_matches('#').trim_end()))
}

fn is_rule(line: &str) -> bool {
    let marks: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    marks.len() >= 3
        && ['-', '*', '_']
            .iter()
            .any(|&m| marks.chars().all(|c| c == m))
}

/// `12. rest` or `12) rest` → ("12.", "rest").
fn ordered_item(line: &str) -> Option<(&str, &str)> {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let after = &line[digits..];
    if (after.starts_with(". ") || after.starts_with(") ")) && after.len() > 2 {
        Some((&line[..digits + 1], &after[2..]))
    } else {
        None
    }
}

/// Inline code (`x`), bold (**x**) and italic (*x*); anything unmatched stays as written.
fn inline(text: &str, paint: &Paint) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['`', '*']) {
        out.push_str(&rest[..i]);
        let at = &rest[i..];
        let span = if let Some(code) = at.strip_prefix('`') {
            code.find('`')
                .filter(|&end| end > 0)
                .map(|end| (Style::new().cyan(), &code[..end], end + 2))
        } else if let Some(strong) = at.strip_prefix("**") {
            strong
                .find("**")
                .filter(|&end| end > 0 && !strong.starts_with(' '))
                .map(|end| (Style::new().bold(), &strong[..end], end + 4))
        } else {
            let em = &at[1..];
            em.find('*')
                .filter(|&end| end > 0 && !em.starts_with(' ') && !em.starts_with('*'))
                .map(|end| (Style::new().italic(), &em[..end], end + 2))
        };
        match span {
            Some((style, inner, used)) => {
                out.push_str(&paint.apply(style, inner));
                rest = &at[used..];
            }
            None => {
                // '`' and '*' are one byte long.
                out.push_str(&at[..1]);
                rest = &at[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Styles text when colours are on, and only then.
struct Paint {
    on: bool,
}

impl Paint {
    fn apply(&self, style: Style, text: &str) -> String {
        style.force_styling(self.on).apply_to(text).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: Vec<String>) -> Vec<String> {
        lines
            .into_iter()
            .map(|l| console::strip_ansi_codes(&l).into_owned())
            .collect()
    }

    const PLAN: &str = "## Steps\n\n1. Bump the **version**\n- run `cargo test`\n  - [x] done *first*\n> note\n\n---\n```sh\n## not a heading\n```\nend";

    #[test]
    fn renders_headings_lists_quotes_rules_and_code() {
        let lines = render("Release", "PLAN.md", PLAN, true);
        assert!(
            lines[0].contains("\u{1b}["),
            "title is styled: {:?}",
            lines[0]
        );
        assert_eq!(
            plain(lines),
            [
                "Release",
                "PLAN.md",
                "",
                "Steps",
                "",
                "1. Bump the version",
                "• run cargo test",
                "  ☑ done first",
                "│ note",
                "",
                &"─".repeat(40),
                "  │ ## not a heading",
                "end",
            ]
        );
    }

    #[test]
    fn without_colours_the_markdown_source_is_shown() {
        let lines = render("", "p.md", "## A\n- b", false);
        assert_eq!(lines, ["# (untitled plan)", "(p.md)", "", "## A", "- b"]);
    }

    #[test]
    fn unmatched_marks_and_escaped_text_stay_as_written() {
        let paint = Paint { on: true };
        let text = r"a * b ** c ` d \x1b[2J 2*3";
        assert_eq!(console::strip_ansi_codes(&inline(text, &paint)), text);
        assert_eq!(heading("#hashtag"), None);
        assert_eq!(heading("### Three ###"), Some((3, "Three")));
        assert_eq!(
            ordered_item("2019. was a year"),
            Some(("2019.", "was a year"))
        );
    }

    #[test]
    fn counts_wrapped_rows() {
        let lines = vec!["x".repeat(25), String::new(), "y".repeat(10)];
        assert_eq!(rows(&lines, 10), 3 + 1 + 1);
    }
}
