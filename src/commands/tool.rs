//! `tool`: call a tool outside any run. `ask_user` and `submit_plan` print their readable
//! fallback text; `write_file` writes a file beneath the current directory (the helper an
//! agent's command tool runs, SPEC §11) and prints what it wrote as JSON.

use std::io::IsTerminal;

use anyhow::Result;
use serde_json::json;

use crate::cli::ToolArgs;
use crate::context::Ctx;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::input::{parse_json_flag, read_stdin};
use crate::output::sanitize;
use crate::tools::{self, write_file};

pub fn run(ctx: &Ctx, args: ToolArgs) -> Result<Exit> {
    let input = match &args.json {
        Some(j) => parse_json_flag(j)?,
        None if std::io::stdin().is_terminal() => {
            return fail(
                Error::usage("no input given")
                    .with_hint("pass --json INPUT, or the input as JSON on stdin"),
            )
        }
        None => parse_json_flag(&read_stdin("the tool's input")?)?,
    };
    if args.name == write_file::NAME {
        let here = std::env::current_dir()
            .map_err(|e| Error::invalid(format!("cannot read the current directory: {e}")))?;
        return match write_file::run(&input, &here) {
            Ok(written) => {
                ctx.out.json_line(&written);
                Ok(Exit::Success)
            }
            Err(e) => fail(Error::invalid(e)),
        };
    }
    let Some(outcome) = tools::fallback(&args.name, &input) else {
        return fail(Error::usage(format!(
            "unknown tool \"{}\"; the tools are ask_user, submit_plan and write_file",
            args.name
        )));
    };
    match outcome {
        Ok(text) if ctx.out.is_json() => {
            ctx.out.json_line(&json!({"tool": args.name, "text": text}))
        }
        Ok(text) => ctx.out.line(&sanitize::block(&text)),
        Err(result) => {
            ctx.out.json_line(&result);
            return fail(Error::invalid(format!(
                "invalid input for {}: {}",
                args.name,
                tools::problems(&result)
            )));
        }
    }
    Ok(Exit::Success)
}
