//! `tool`: call a tool outside any run; prints its readable fallback text.

use anyhow::Result;
use serde_json::json;

use super::input::parse_json_flag;
use super::Ctx;
use crate::cli::ToolArgs;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::output::sanitize;
use crate::tools;

pub fn run(ctx: &Ctx, args: ToolArgs) -> Result<Exit> {
    let input = parse_json_flag(&args.json)?;
    let Some(outcome) = tools::fallback(&args.name, &input) else {
        return fail(Error::usage(format!(
            "unknown tool \"{}\"; the tools are ask_user and submit_plan",
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
