//! `ask`: one question for a person, from a shell script.

use anyhow::Result;
use serde_json::{json, Value};

use crate::agent::def::absolute;
use crate::cli::AskArgs;
use crate::context::Ctx;
use crate::domain::ASK_USER;
use crate::error::Error;
use crate::exit::Exit;
use crate::items::input::parse_json_flag;
use crate::runner::oneshot::{self, OneShot};
use crate::tools::{self, ask_user};

pub fn run(ctx: &Ctx, args: AskArgs) -> Result<Exit> {
    let input: Value = match (&args.json, &args.question) {
        (Some(j), _) => parse_json_flag(j)?,
        (None, question) => {
            let mut input = json!({"question": question.clone().unwrap_or_default()});
            if !args.options.is_empty() {
                let options: Vec<Value> =
                    args.options.iter().map(|l| json!({"label": l})).collect();
                input["options"] = json!(options);
                input["selectionMode"] = json!(if args.multi {
                    "multi_select"
                } else {
                    "single_select"
                });
            }
            input
        }
    };
    let question = ask_user::question(&input)
        .map_err(|r| Error::invalid(format!("invalid question: {}", tools::problems(&r))))?;
    let shot = OneShot {
        agent_id: "ask",
        tool: ASK_USER,
        prompt: question.text,
        args: input,
        cwd: absolute(std::path::Path::new("."))?.display().to_string(),
    };
    let watched = super::starting::watched(ctx, &args.wait, Default::default())?;
    oneshot::start(ctx, shot, watched)
}
