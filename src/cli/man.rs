//! The man pages, laid out from the command line as the binary builds it (`cli::command()`):
//! clap_mangen's sections, then the examples, the exit codes, and on the main page the
//! environment and the files. `man` prints or writes them; the committed files in man/ come
//! from here (a test keeps them current). The words live in cli.rs and exit.rs.

use std::io::Write as _;

use anyhow::Result;
use roff::{bold, italic, roman, Roff};

use super::help::{examples_of, fold_command, WIDTH};
use super::{command, BIN, ENVIRONMENT};

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
