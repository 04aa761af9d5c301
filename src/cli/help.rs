//! The layout of the help text that is not clap's: each command's examples as an
//! "Examples:" section, folded to fit the width, and the exit-code table in the main
//! command's long help. The words live in cli.rs and exit.rs; this only lays them out, for
//! `--help` here and for the man pages (`man`).

use crate::cli::EXAMPLES;

/// Help text is laid out to fit this many columns, so clap never rewraps an example in the
/// middle of a word of a command line (it wraps only lines longer than the terminal).
pub const WIDTH: usize = 80;

/// The examples of a command (`""`: the main one) as an "Examples:" section of `--help`.
pub fn examples_help(name: &str) -> String {
    let Some(examples) = examples_of(name) else {
        return String::new();
    };
    let mut text = String::from("Examples:\n");
    for (i, (what, line)) in examples.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text.push_str(&format!("  # {what}\n"));
        for part in fold_command(line, WIDTH - 2) {
            text.push_str(&format!("  {part}\n"));
        }
    }
    text
}

pub fn examples_of(name: &str) -> Option<&'static [(&'static str, &'static str)]> {
    EXAMPLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, examples)| *examples)
}

/// A shell command line folded into lines of at most `width` columns where it can be:
/// broken only at spaces outside quotes, each broken line ending in ` \`, the next ones
/// indented, so that every line pastes back into a shell as the same command.
pub fn fold_command(line: &str, width: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (None, ' ') => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                continue;
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in words {
        let indent = if lines.is_empty() { 0 } else { 4 };
        if !current.is_empty() && indent + current.len() + 1 + word.len() + 2 > width {
            lines.push(format!("{}{current} \\", " ".repeat(indent)));
            current.clear();
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(&word);
    }
    let indent = if lines.is_empty() { 0 } else { 4 };
    lines.push(format!("{}{current}", " ".repeat(indent)));
    lines
}

/// The exit-code table for `--help`, each meaning wrapped under its own column.
pub fn exit_codes_help() -> String {
    let mut text = String::from("Exit codes:\n");
    for (_, code, meaning) in crate::exit::TABLE {
        let meaning = meaning.replace('`', "");
        let mut first = true;
        for line in wrap(&meaning, WIDTH - 8) {
            let lead = if first {
                format!("  {code:>3}  ")
            } else {
                " ".repeat(7)
            };
            text.push_str(&format!("{lead}{line}\n"));
            first = false;
        }
    }
    text
}

/// Words of `text` in lines of at most `width` columns (a longer word gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        if !current.is_empty() && current.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    lines.push(current);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::command;

    #[test]
    fn folded_commands_break_only_between_words_outside_quotes() {
        let line = r#"mastra-ask answer 3f2c9a1b --multi "Add tests and more tests" "Update docs" --as someone"#;
        let lines = fold_command(line, 40);
        assert_eq!(
            lines,
            [
                "mastra-ask answer 3f2c9a1b --multi \\",
                "    \"Add tests and more tests\" \\",
                "    \"Update docs\" --as someone",
            ]
        );
        let joined = lines.join("\n").replace(" \\\n    ", " ");
        assert_eq!(joined, line);
        assert_eq!(
            fold_command("mastra-ask pending", 40),
            ["mastra-ask pending"]
        );
    }

    #[test]
    fn every_example_belongs_to_a_command() {
        let cmd = command();
        for (name, examples) in EXAMPLES {
            assert!(!examples.is_empty(), "{name}: no examples");
            assert!(
                name.is_empty() || cmd.find_subcommand(name).is_some(),
                "examples for a command that does not exist: {name}"
            );
        }
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            assert!(
                examples_of(sub.get_name()).is_some(),
                "`{}` has no examples in cli::EXAMPLES",
                sub.get_name()
            );
        }
    }

    #[test]
    fn help_lines_fit_the_width() {
        let mut cmd = command();
        let mut texts = vec![cmd.render_long_help().to_string()];
        for sub in cmd.get_subcommands_mut().filter(|s| s.get_name() != "help") {
            texts.push(sub.render_long_help().to_string());
        }
        for text in texts {
            let after = text.split("Examples:").nth(1).expect("an Examples section");
            for line in after.lines() {
                assert!(line.chars().count() <= WIDTH, "too wide: {line:?}");
            }
        }
    }
}
