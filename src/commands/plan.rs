//! `plan`: one plan file for a person to review, from a shell script.

use anyhow::Result;
use serde_json::json;

use crate::context::Ctx;
use crate::domain::SUBMIT_PLAN;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::runner::oneshot::{self, OneShot};
use crate::tools::submit_plan::read_plan;

pub fn run(ctx: &Ctx, args: crate::cli::PlanArgs) -> Result<Exit> {
    let shown = args.file.display().to_string();
    let file = args
        .file
        .canonicalize()
        .map_err(|e| Error::invalid(format!("plan file {shown}: {e}")))?;
    let (Some(dir), Some(name)) = (file.parent(), file.file_name().and_then(|n| n.to_str())) else {
        return fail(Error::invalid(format!(
            "plan file {shown} has no usable name"
        )));
    };
    read_plan(dir, name).map_err(|e| Error::invalid(format!("plan file {shown}: {e}")))?;
    let shot = OneShot {
        agent_id: "plan",
        tool: SUBMIT_PLAN,
        prompt: format!("Review the plan {shown}"),
        args: json!({"path": name}),
        cwd: dir.display().to_string(),
    };
    oneshot::start(ctx, shot, &args.wait)
}
