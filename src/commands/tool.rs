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
use crate::items::input::parse_json_flag;
use crate::limits::{self, ReadError, MAX_TOOL_INPUT};
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
        None => parse_json_flag(&stdin_input()?)?,
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

/// The tool's input on stdin, up to `MAX_TOOL_INPUT`: more than the 1 MiB of other input,
/// so that the JSON around a whole 1 MiB `write_file` content fits.
fn stdin_input() -> Result<String> {
    let what = "the tool's input";
    let bytes =
        limits::read_capped(std::io::stdin().lock(), MAX_TOOL_INPUT).map_err(|e| match e {
            ReadError::Io(e) => Error::invalid(format!("cannot read {what} from stdin: {e}")),
            other => Error::invalid(format!("{what} on stdin {other}")),
        })?;
    String::from_utf8(bytes)
        .map_err(|_| Error::invalid(format!("{what} on stdin is not valid UTF-8")).into())
}
