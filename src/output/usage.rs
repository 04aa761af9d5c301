//! How an argument-parser error is shown: its message as our one error line (a JSON error
//! line in `-o json`), the parser's usage lines after it, all sanitized, because the parser
//! echoes argv and argv can hold anything.
//!
//! The parser failed, so `-o json` is found by a plain scan of argv (and the environment).
//! Nothing here decides an exit code.

use std::ffi::OsString;

/// Whether `-o json` / `--output json` (or `MASTRA_ASK_OUTPUT=json`) was asked for; the
/// last one on the command line wins, as in the parser.
pub fn json_requested(args: impl IntoIterator<Item = OsString>, env: Option<OsString>) -> bool {
    let args: Vec<String> = args
        .into_iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut chosen: Option<&str> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            break;
        }
        if a == "-o" || a == "--output" {
            chosen = args.get(i + 1).map(String::as_str).or(chosen);
            i += 2;
            continue;
        }
        if let Some(v) = a.strip_prefix("--output=") {
            chosen = Some(v);
        } else if let Some(v) = a.strip_prefix("-o").filter(|_| !a.starts_with("--")) {
            chosen = Some(v.strip_prefix('=').unwrap_or(v));
        }
        i += 1;
    }
    match chosen {
        Some(v) => v == "json",
        None => env.is_some_and(|v| v == "json"),
    }
}

/// Splits the parser's rendered error into its message (without `error: `) and the lines
/// after it (its indented notes such as the possible values, usage, tips). Without an
/// `error: ` line (help shown for a missing subcommand), the message says so and the whole
/// text follows it.
pub fn split_parse_error(rendered: &str) -> (String, String) {
    let Some(body) = rendered.strip_prefix("error: ") else {
        return (
            "a subcommand or argument is missing; see mastra-ask --help".into(),
            format!("\n{}", rendered.trim_end()),
        );
    };
    let (message, rest) = body.split_once("\n\n").unwrap_or((body, ""));
    let (message, notes) = match message.split_once("\n  ") {
        Some((m, notes)) => (m, format!("  {notes}\n")),
        None => (message, String::new()),
    };
    let rest = rest.trim_end();
    let rest = if rest.is_empty() {
        notes
    } else {
        format!("{notes}\n{rest}")
    };
    (message.trim_end().to_string(), rest.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(args: &[&str], env: Option<&str>) -> bool {
        let args = std::iter::once("mastra-ask")
            .chain(args.iter().copied())
            .map(OsString::from);
        json_requested(args, env.map(OsString::from))
    }

    #[test]
    fn finds_json_output_however_it_is_written() {
        assert!(json(&["-o", "json", "runs", "--status", "x"], None));
        assert!(json(&["runs", "--output=json"], None));
        assert!(json(&["runs", "--output", "json"], None));
        assert!(json(&["-ojson", "runs"], None));
        assert!(json(&["-o=json", "runs"], None));
        assert!(json(&["runs"], Some("json")));
        assert!(!json(&["runs"], Some("text")));
        assert!(!json(&["-o", "json", "-o", "text", "runs"], None));
        assert!(!json(&["-o", "text", "runs"], Some("json")));
        assert!(!json(&["answer", "--", "-o", "json"], None));
        assert!(!json(&["-o"], None));
    }

    #[test]
    fn splits_message_from_usage() {
        let rendered = "error: invalid value 'x\ny' for '--status <STATUS>'\n  [possible values: a]\n\nFor more information, try '--help'.\n";
        let (message, rest) = split_parse_error(rendered);
        assert_eq!(message, "invalid value 'x\ny' for '--status <STATUS>'");
        assert_eq!(
            rest,
            "  [possible values: a]\n\nFor more information, try '--help'."
        );
        let (_, rest) = split_parse_error("error: bad\n\nUsage: x\n");
        assert_eq!(rest, "\nUsage: x");
        let (message, rest) = split_parse_error("error: unexpected argument 'x'\n");
        assert_eq!(
            (message.as_str(), rest.as_str()),
            ("unexpected argument 'x'", "")
        );
        let (message, rest) = split_parse_error("Usage: mastra-ask <COMMAND>\n");
        assert!(message.contains("missing"));
        assert_eq!(rest, "\nUsage: mastra-ask <COMMAND>");
    }
}
