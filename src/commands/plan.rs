//! `plan`: one plan file for a person to review, from a shell script. FILE follows the rule
//! of every plan path (`tools::model_path`): a relative FILE as written and, when it lies
//! beneath the current directory, as resolved there (so `.ssh/key.md`, `.git/x.md` or a
//! symlink into them is refused as a model's path would be); and the file itself
//! (`read_plan`, in its own folder: a Markdown file whose name has no leading dot).

use anyhow::Result;
use serde_json::json;

use crate::context::Ctx;
use crate::domain::SUBMIT_PLAN;
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::runner::oneshot::{self, OneShot};
use crate::tools::model_path::{self, PLAN};
use crate::tools::submit_plan::read_plan;

pub fn run(ctx: &Ctx, args: crate::cli::PlanArgs) -> Result<Exit> {
    let shown = args.file.display().to_string();
    let refused =
        |what: String| Error::invalid(format!("plan file {shown} cannot be a plan: {what}"));
    if args.file.is_relative() {
        model_path::check(&args.file, PLAN).map_err(refused)?;
    }
    let file = args
        .file
        .canonicalize()
        .map_err(|e| Error::invalid(format!("plan file {shown}: {e}")))?;
    let here = std::env::current_dir().and_then(|d| d.canonicalize());
    if let (true, Ok(here)) = (args.file.is_relative(), here) {
        if let Ok(inside) = file.strip_prefix(&here) {
            model_path::check(inside, PLAN)
                .map_err(|what| refused(format!("it leads to {}, and {what}", inside.display())))?;
        }
    }
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
    let watched = super::starting::watched(ctx, &args.wait, Default::default())?;
    oneshot::start(ctx, shot, watched)
}
