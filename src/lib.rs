//! mastra-ask: durable human-in-the-loop agent runs.
//!
//! `main` parses the command line, builds the context once, dispatches to a command, turns
//! an error into the command error and prints it once, and maps the outcome to an exit code
//! (through the error's kind: no backend error type is known here). Nothing else happens
//! here.
//!
//! The layers, top down: the frontends (`commands`, over the terminal's `context`), the run
//! layer (`runner`) and the item kinds (`items`), then `agent`, `remote`, `store`, `ui`,
//! `output`, `providers`, `tools`, the HTTP set-up both HTTP clients share (`net`), and the
//! shared vocabulary (`domain`, `report`, `error`, `links`).
//!
//! `unsafe` is denied in the whole crate but `sys`, where each block says why it is sound.

#![deny(unsafe_code)]

pub mod agent;
pub mod cli;
pub mod commands;
pub mod completion;
pub mod context;
pub mod domain;
pub mod duration;
pub mod error;
pub mod exit;
pub mod hook;
pub mod items;
pub mod limits;
pub mod links;
pub mod mcp;
pub mod net;
pub mod notify;
pub mod output;
pub mod policy;
pub mod providers;
pub mod remote;
pub mod report;
pub mod runner;
pub mod serve;
pub mod store;
#[allow(unsafe_code)]
pub mod sys;
#[cfg(test)]
pub mod testing;
pub mod tools;
pub mod ui;

use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::FromArgMatches;

use cli::{Cli, ColorChoice, OutputFormat};
use exit::Exit;

/// Runs the program; returns the process exit code.
pub fn main() -> ExitCode {
    run().into()
}

fn run() -> Exit {
    completion::complete_if_asked(cli::command);
    let mut matches = match cli::parse() {
        Ok(m) => m,
        Err(e) => return parse_error(&e),
    };
    let (db_source, server_source) = (matches.value_source("db"), matches.value_source("server"));
    // Takes the values out of the matches (`from_arg_matches` would parse a copy of them).
    let cli = match Cli::from_arg_matches_mut(&mut matches) {
        Ok(c) => c,
        Err(e) => return parse_error(&e),
    };
    set_colors(cli.color);
    let db_flag = (db_source == Some(ValueSource::CommandLine))
        .then(|| cli.db.clone())
        .flatten();
    let store_from = match db_source {
        _ if cli.db.as_deref().is_none_or(str::is_empty) => runner::StoreFrom::Default,
        Some(ValueSource::CommandLine) => runner::StoreFrom::Flag,
        _ => runner::StoreFrom::Env,
    };
    let out = output::Out::new(cli.output == OutputFormat::Json);
    // `MASTRA_SERVER_URL` from the environment is a default, like a kubectl context: a
    // command that exists only here works on this store, and says so; `--server` given on
    // the command line still refuses it.
    let from_env = server_source == Some(ValueSource::EnvVariable);
    let local = commands::local_only(&cli.command).filter(|_| from_env && cli.server.is_some());
    // (`tool`, `completions` and `man` touch no runs: nothing to say.)
    if let Some(name) = local.filter(|n| !["tool", "completions", "man"].contains(n)) {
        out.info(&format!(
            "note: {name} works on this store's runs; MASTRA_SERVER_URL is for the commands that work on a Mastra server"
        ));
    }
    let url = cli.server.as_deref().filter(|_| local.is_none());
    let server = match server_config(url, cli.server_token_file.as_deref()) {
        Ok(s) => s,
        Err(e) => return report(&out, e.into()),
    };
    let ctx = context::Ctx {
        run: runner::Context {
            location: store::Location::resolve(cli.db.as_deref()),
            db_flag,
            store_from,
            on_suspend: cli.on_suspend.clone(),
            on_resolve: cli.on_resolve.clone(),
            interactive: runner::at_a_terminal(cli.no_input),
            server,
            report: &out,
        },
        out: &out,
        token_file_given: cli.server_token_file.is_some(),
    };
    match commands::dispatch(&ctx, cli.command) {
        Ok(exit) => exit,
        Err(e) => report(&out, error::Error::at_boundary(e, &ctx.program())),
    }
}

/// Prints what the argument parser refused (or the help and version it was asked for) and
/// returns the exit code. Its errors echo argv, so they are sanitized like every other line,
/// and in JSON mode they are the JSON error line.
fn parse_error(e: &clap::Error) -> Exit {
    if !e.use_stderr() {
        let _ = e.print();
        return Exit::Success;
    }
    let json = output::usage::json_requested(std::env::args_os(), std::env::var_os(OUTPUT_ENV));
    let (message, rest) = output::usage::split_parse_error(&e.render().to_string());
    set_colors(ColorChoice::Auto);
    let out = output::Out::new(json);
    out.error("USAGE", &message, None);
    if !json {
        out.details(&rest);
    }
    Exit::Usage
}

/// The Mastra server of `--server` (or `MASTRA_SERVER_URL`), with its token.
fn server_config(
    url: Option<&str>,
    token_file: Option<&std::path::Path>,
) -> anyhow::Result<Option<remote::ServerConfig>> {
    let Some(url) = url.filter(|u| !u.trim().is_empty()) else {
        return Ok(None);
    };
    let token = remote::read_token(std::env::var(remote::TOKEN_ENV).ok(), token_file)
        .map_err(|e| error::Error::usage(e.to_string()))?;
    let config =
        remote::ServerConfig::new(url, token).map_err(|e| error::Error::usage(e.to_string()))?;
    Ok(Some(config))
}

/// The environment variable that sets `--output`.
const OUTPUT_ENV: &str = "MASTRA_ASK_OUTPUT";

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
fn report(out: &output::Out, e: error::Error) -> Exit {
    out.error(e.kind.code(), &e.message, e.hint.as_deref());
    e.kind.exit()
}
