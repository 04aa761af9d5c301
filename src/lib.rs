//! mastra-ask: durable human-in-the-loop agent runs.
//!
//! `main` parses the command line, builds the context once, dispatches to a command, prints
//! an error once and maps the outcome to an exit code. Nothing else happens here.

pub mod agent;
pub mod cli;
pub mod commands;
pub mod domain;
pub mod duration;
pub mod error;
pub mod exit;
pub mod output;
pub mod providers;
pub mod remote;
pub mod store;
pub mod sys;
#[cfg(test)]
pub mod testing;
pub mod tools;
pub mod ui;

use clap::parser::ValueSource;
use clap::FromArgMatches;

use cli::{Cli, ColorChoice, OutputFormat};
use exit::Exit;

/// Runs the program; returns the process exit code.
pub fn main() -> i32 {
    let matches = match commands::generate::parse() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                Exit::Usage.code()
            } else {
                0
            };
        }
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return Exit::Usage.code();
        }
    };
    set_colors(cli.color);
    let db_flag = (matches.value_source("db") == Some(ValueSource::CommandLine))
        .then(|| cli.db.clone())
        .flatten();
    let ctx = commands::Ctx {
        location: store::Location::resolve(cli.db.as_deref()),
        db_flag,
        out: output::Out::new(cli.output == OutputFormat::Json),
        no_input: cli.no_input,
        on_suspend: cli.on_suspend.clone(),
    };
    match commands::dispatch(&ctx, cli.command) {
        Ok(exit) => exit.code(),
        Err(e) => report(&ctx.out, &e),
    }
}

fn set_colors(choice: ColorChoice) {
    let on = match choice {
        ColorChoice::Always => Some(true),
        ColorChoice::Never => Some(false),
        ColorChoice::Auto if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) => {
            Some(false)
        }
        ColorChoice::Auto => None,
    };
    if let Some(on) = on {
        console::set_colors_enabled(on);
        console::set_colors_enabled_stderr(on);
    }
}

/// Prints an error once and returns its exit code.
fn report(out: &output::Out, e: &anyhow::Error) -> i32 {
    let kinded = e.chain().find_map(|c| c.downcast_ref::<error::Error>());
    let (code, exit, hint) = match kinded {
        Some(k) => (k.kind.code(), k.kind.exit(), k.hint.as_deref()),
        None if e
            .chain()
            .any(|c| c.is::<rusqlite::Error>() || c.is::<postgres::Error>()) =>
        {
            ("STORE", Exit::Failure, store::hint_for(e))
        }
        None if e.chain().any(|c| c.is::<std::io::Error>()) => ("IO", Exit::Failure, None),
        None => ("INTERNAL", Exit::Failure, None),
    };
    // SQLite's own error code under its message adds nothing for a person.
    let message: Vec<String> = e
        .chain()
        .filter(|c| !c.is::<rusqlite::ffi::Error>())
        .map(|c| c.to_string())
        .collect();
    out.error(code, &message.join(": "), hint);
    exit.code()
}
