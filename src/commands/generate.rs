//! The command line as the binary builds it, and `completions` and `man`, generated from it.
//!
//! `command()` is the clap definition of src/cli.rs with its examples and the exit-code table
//! (src/exit.rs) attached; `parse()` is how the binary reads its arguments. The committed
//! files in completions/ and man/ come from here (a test keeps them current); the shells'
//! completion itself is `crate::completion`. This module
//! holds no help text of its own: the words live in cli.rs and exit.rs, this only lays them
//! out, so `--help`, the man pages and the completions never disagree.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use clap::{ArgMatches, CommandFactory};
use roff::{bold, italic, roman, Roff};

use super::Ctx;
use crate::cli::{Cli, CompletionsArgs, ManArgs, ENVIRONMENT, EXAMPLES};
use crate::exit::Exit;

/// The program's name, as installed and as completions register it.
const BIN: &str = "mastra-ask";

/// Help text is laid out to fit this many columns, so clap never rewraps an example in the
/// middle of a word of a command line (it wraps only lines longer than the terminal).
const WIDTH: usize = 80;

/// The command line definition with each command's examples, and the exit codes in the
/// main command's long help.
pub fn command() -> clap::Command {
    let main = examples_help("");
    Cli::command()
        .after_help(main.clone())
        .after_long_help(format!("{main}\n{}", exit_codes_help()))
        .mut_subcommands(|sub| {
            let text = examples_help(sub.get_name());
            if text.is_empty() {
                sub
            } else {
                sub.after_help(text)
            }
        })
}

/// Parses the process's arguments with `command()`.
///
/// The examples are attached only when help is shown (a second parse, then), so that an
/// ordinary command does not pay for laying them out. And clap counts a value taken from the
/// environment as given, so with `MASTRA_ASK_DB` set every usage line of an error would show
/// `--db <PATH>` as if it were required: a usage error is reported from a parse that ignores
/// the environment when that parse fails the same way (otherwise the environment caused it,
/// and its error stands).
pub fn parse() -> Result<ArgMatches, clap::Error> {
    parse_from(std::env::args_os())
}

/// `parse` of the given arguments (the first is the program's name).
pub fn parse_from<I, T>(args: I) -> Result<ArgMatches, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    match Cli::command().try_get_matches_from(&args) {
        Ok(matches) => Ok(matches),
        // The version needs nothing more.
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayVersion => Err(e),
        // Help: shown by the full definition, with the examples.
        Err(e) if !e.use_stderr() => command().try_get_matches_from(&args),
        Err(e) => match without_env(command()).try_get_matches_from(&args) {
            Err(plain) if plain.kind() == e.kind() => Err(plain),
            _ => Err(e),
        },
    }
}

/// `cmd` with no argument read from the environment.
fn without_env(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| a.env(None)).mut_subcommands(without_env)
}

/// The examples of a command (`""`: the main one) as an "Examples:" section of `--help`.
fn examples_help(name: &str) -> String {
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

fn examples_of(name: &str) -> Option<&'static [(&'static str, &'static str)]> {
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
fn exit_codes_help() -> String {
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

pub fn completions(ctx: &Ctx, args: CompletionsArgs) -> Result<Exit> {
    ctx.out.write(&completion_script(args.shell));
    Ok(Exit::Success)
}

/// The completion script of a shell: the hook that has the shell ask this program
/// (`completion`), so the committed scripts never go stale for commands, flags or run ids.
pub fn completion_script(shell: clap_complete::Shell) -> String {
    crate::completion::script(shell)
}

pub fn man(ctx: &Ctx, args: ManArgs) -> Result<Exit> {
    let pages = man_pages()?;
    match args.out_dir {
        None => {
            if let Some((_, main)) = pages.first() {
                ctx.out.write(main);
            }
        }
        Some(dir) => {
            write_all(&pages, &dir)?;
            ctx.out.info(&format!(
                "wrote {} man pages to {}",
                pages.len(),
                dir.display()
            ));
        }
    }
    Ok(Exit::Success)
}

/// Every man page, `mastra-ask.1` first, then one `mastra-ask-<subcommand>.1` per
/// subcommand: (file name, roff text).
pub fn man_pages() -> Result<Vec<(String, String)>> {
    // No `help` subcommand: it has no page of its own, so no page may link to one.
    let mut main = command()
        .disable_help_subcommand(true)
        .subcommand_help_heading("COMMANDS");
    main.build();
    let mut pages = vec![(format!("{BIN}.1"), render(&main, "", true)?)];
    for sub in main.get_subcommands() {
        let name = format!("{BIN}-{}", sub.get_name());
        let page = sub.clone().name(name.clone()).display_name(name.clone());
        pages.push((format!("{name}.1"), render(&page, sub.get_name(), false)?));
    }
    Ok(pages)
}

/// One page: clap_mangen's sections, then EXAMPLES, EXIT STATUS and, on the main page,
/// ENVIRONMENT and FILES (else SEE ALSO), then the version.
fn render(cmd: &clap::Command, examples: &str, main: bool) -> Result<String> {
    let version = cmd.get_version().unwrap_or_default().to_string();
    let man = clap_mangen::Man::new(cmd.clone())
        .source(format!("{BIN} {version}"))
        .manual(BIN);
    let mut sections: Vec<Vec<u8>> = Vec::new();
    let mut section = |render: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| -> Result<()> {
        let mut buf = Vec::new();
        render(&mut buf)?;
        sections.push(buf);
        Ok(())
    };
    section(&|w| man.render_title(w))?;
    section(&|w| man.render_name_section(w))?;
    section(&|w| man.render_synopsis_section(w))?;
    section(&|w| man.render_description_section(w))?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        section(&|w| man.render_options_section(w))?;
    }
    if cmd.has_subcommands() {
        section(&|w| man.render_subcommands_section(w))?;
    }
    let ours = own_sections(examples, main);
    section(&|w| w.write_all(ours.as_bytes()))?;
    section(&|w| man.render_version_section(w))?;
    // Each part starts with roff's preamble (a string definition); the page needs it once.
    let preamble = Roff::new().render();
    let mut page = String::new();
    for (i, part) in sections.iter().enumerate() {
        let text = String::from_utf8_lossy(part);
        match text.strip_prefix(&preamble) {
            Some(rest) if i > 0 => page.push_str(rest),
            _ => page.push_str(&text),
        }
    }
    Ok(page)
}

/// The sections clap_mangen does not write.
fn own_sections(examples: &str, main: bool) -> String {
    let mut roff = Roff::new();
    if let Some(examples) = examples_of(examples) {
        roff.control("SH", ["EXAMPLES"]);
        for (what, line) in examples {
            roff.control("PP", []).text([roman(format!("{what}:"))]);
            roff.control("RS", ["4"]).control("nf", []);
            for part in fold_command(line, WIDTH - 8) {
                roff.text([roman(part)]);
            }
            roff.control("fi", []).control("RE", []);
        }
    }
    roff.control("SH", ["EXIT STATUS"]);
    for (_, code, meaning) in crate::exit::TABLE {
        roff.control("TP", [])
            .text([bold(code.to_string())])
            .text([roman(meaning.replace('`', ""))]);
    }
    if main {
        roff.control("SH", ["ENVIRONMENT"]);
        for (name, meaning) in ENVIRONMENT {
            roff.control("TP", [])
                .text([bold(*name)])
                .text([roman(*meaning)]);
        }
        roff.control("SH", ["FILES"]);
        roff.control("TP", [])
            .text([italic("$XDG_DATA_HOME/mastra-ask/mastra-ask.db")])
            .text([roman(
                "The default store (~/.local/share/mastra-ask/mastra-ask.db when XDG_DATA_HOME \
                 is not set), created with mode 0600 in a 0700 directory, with its write-ahead \
                 log (-wal) and index (-shm) beside it. --db or MASTRA_ASK_DB choose another \
                 file, or a PostgreSQL database.",
            )]);
    } else {
        roff.control("SH", ["SEE ALSO"]);
        roff.text([bold(BIN), roman("(1)")]);
    }
    let text = roff.render();
    text.strip_prefix(&Roff::new().render())
        .unwrap_or(&text)
        .to_string()
}

fn write_all(pages: &[(String, String)], dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (file, text) in pages {
        let path = dir.join(file);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
