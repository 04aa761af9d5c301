//! `review`: approve or reject a submitted plan, then advance the run (drive the leg it
//! resumes, prompt on at a terminal).

use anyhow::Result;

use super::Ctx;
use crate::cli::ReviewArgs;
use crate::domain::{ItemKind, Resolution, Via};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::runner::advance::{self, Advance, Policy};
use crate::runner::input::{parse_json_flag, read_stdin, read_text_file, who};
use crate::runner::target::target_of;
use crate::runner::view::{plan_of, warn_if_changed};
use crate::tools::submit_plan::Decision;

pub fn run(ctx: &Ctx, args: ReviewArgs) -> Result<Exit> {
    let item_args = &args.item;
    if !args.approve && !args.reject && args.json.is_none() && ctx.interactive() {
        return advance::prompt_chosen(ctx, item_args, ItemKind::Plan);
    }
    let (decision, via) = decision(&args)?;
    let (store, run, item) = target_of(ctx, item_args, ItemKind::Plan)?;
    let plan = plan_of(&item)?;
    warn_if_changed(ctx, &run, &plan);
    let resolution = Resolution {
        resume_data: decision.resume_data(&plan),
        result: Some(decision.result(&plan)),
        by: who(item_args.as_.clone()),
        via,
    };
    let policy = Policy::acting(ctx, item_args, &resolution.by);
    Advance::new(ctx, store.as_ref(), &run.id, policy).resolve(&item, &resolution)
}

/// The decision given on the command line, and how.
pub fn decision(args: &ReviewArgs) -> Result<(Decision, Via)> {
    if let Some(j) = &args.json {
        let d = Decision::from_json(&parse_json_flag(j)?)
            .map_err(|e| Error::invalid(format!("--json: {e}")))?;
        return Ok((d, Via::Json));
    }
    if args.approve {
        return Ok((Decision::Approved { feedback: None }, Via::Flag));
    }
    if args.reject {
        let feedback = match (&args.feedback, &args.feedback_file) {
            (Some(f), _) => Some(f.clone()),
            (_, Some(p)) if p.as_os_str() == "-" => Some(read_stdin("the feedback")?),
            (_, Some(p)) => Some(read_text_file(p, "feedback file")?),
            _ => None,
        };
        if feedback.as_ref().is_some_and(|f| f.trim().is_empty()) {
            return fail(Error::usage("the feedback is empty").with_hint(
                "write what should change, or leave out --feedback to reject without feedback",
            ));
        }
        return Ok((Decision::Rejected { feedback }, Via::Flag));
    }
    fail(Error::usage("no decision given").with_hint(
        "pass --approve, --reject [--feedback TEXT | --feedback-file FILE] or --json '{\"action\":\"approved\"}'",
    ))
}
