//! `completions` and `man`, generated from the command line as the binary builds it
//! (`cli::command()`: the clap definition with its examples and the exit-code table). The
//! committed files in completions/ and man/ come from here (a test keeps them current). This
//! module holds no help text of its own: the words live in cli.rs and exit.rs, this only
//! lays them out, so `--help`, the man pages and the completions never disagree.

use std::io::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use roff::{bold, italic, roman, Roff};

use crate::cli::help::{examples_of, fold_command, WIDTH};
use crate::cli::{command, CompletionsArgs, ManArgs, ENVIRONMENT};
use crate::context::Ctx;
use crate::exit::Exit;

/// The program's name, as installed and as completions register it.
const BIN: &str = "mastra-ask";

pub fn completions(ctx: &Ctx, args: CompletionsArgs) -> Result<Exit> {
    ctx.out.write(&completion_script(args.shell));
    Ok(Exit::Success)
}

/// The completion script of a shell.
pub fn completion_script(shell: clap_complete::Shell) -> String {
    let mut cmd = command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, BIN, &mut buf);
    let script = String::from_utf8_lossy(&buf).into_owned();
    match shell {
        clap_complete::Shell::Bash => fix_bash_dispatch(&script),
        clap_complete::Shell::Fish => script + &fish_positional_values(&cmd),
        _ => script,
    }
}

/// Works around clap_complete's bug with hyphenated binary names in bash
/// (clap-rs/clap#6421, still open in clap_complete 4.6): the script's dispatch loop spells
/// the state of `mastra-ask runs` as `mastra__ask__subcmd__runs`, its case arms as
/// `mastra__subcmd__ask__subcmd__runs`, so nothing completes below the first word. The arms
/// are respelled the way the loop builds the state; once clap_complete is fixed, the wrong
/// spelling no longer occurs and this changes nothing (the completion tests hold either way).
fn fix_bash_dispatch(script: &str) -> String {
    script.replace("mastra__subcmd__ask", "mastra__ask")
}

/// clap_complete's fish script offers nothing for positional arguments (clap-rs/clap#6295,
/// still open), so `completions <TAB>` would list files: this adds the values of each
/// subcommand's positional arguments that have a fixed set of them.
fn fish_positional_values(cmd: &clap::Command) -> String {
    let mut lines = String::new();
    for sub in cmd.get_subcommands() {
        for arg in sub.get_positionals() {
            let values: Vec<String> = arg
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect();
            if !values.is_empty() {
                lines.push_str(&format!(
                    "complete -c {BIN} -n \"__fish_mastra_ask_using_subcommand {}\" -f -a \"{}\"\n",
                    sub.get_name(),
                    values.join(" ")
                ));
            }
        }
    }
    lines
}

pub fn man(ctx: &Ctx, args: ManArgs) -> Result<Exit> {
    let pages = man_pages()?;
    match args.out_dir {
        None => {
            if let Some((_, main)) = pages.first() {
                ctx.out.write(main);
            }
        }
        Some(dir) => write_all(&pages, &dir)?,
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
    fn the_bash_dispatch_fix_respells_only_the_broken_arms() {
        let broken = "    mastra__ask,runs)\n        cmd=\"mastra__ask__subcmd__runs\"\n        mastra__subcmd__ask__subcmd__runs)\n";
        assert_eq!(
            fix_bash_dispatch(broken),
            "    mastra__ask,runs)\n        cmd=\"mastra__ask__subcmd__runs\"\n        mastra__ask__subcmd__runs)\n"
        );
    }
}
