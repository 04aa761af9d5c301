//! `review`: approve or reject a submitted plan, in this store or on `--server`'s (its plan
//! read under `--plan-root` or from `--plan-file`), then advance the run (drive the leg it
//! resumes, or stream the server's; prompt on at a terminal).

use anyhow::Result;

use crate::cli::ReviewArgs;
use crate::context::Ctx;
use crate::domain::{ItemKind, Via};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::input::{parse_json_flag, read_stdin, read_text_file};
use crate::items::Answer;
use crate::policy::Deciding;
use crate::runner::{Advance, Picked, PlanFiles};
use crate::store::Who;
use crate::tools::submit_plan::Decision;

pub fn run(ctx: &Ctx, args: ReviewArgs) -> Result<Exit> {
    let plans = PlanFiles {
        root: args.plan_root.clone(),
        file: args.plan_file.clone(),
    };
    let picked = Picked::of(ctx)?;
    let deciding = Deciding::claiming(args.item.as_.is_some());
    let place = picked.place(ctx, deciding, args.agent.clone(), Some(plans));
    let who = Who::this_process(args.item.as_.clone());
    let mut advance =
        Advance::acting(ctx, place, args.item.no_resume, who)?.next_within(args.item.timeout);
    let (run, call) = (args.item.run.as_deref(), args.item.tool_call.as_deref());
    if !args.approve && !args.reject && args.json.is_none() && ctx.interactive() {
        return advance.prompt_chosen(run, call, &[ItemKind::Plan]);
    }
    let (decision, via) = decision(&args)?;
    let item = advance.target(run, &[ItemKind::Plan], call)?;
    let unseen = args.unseen;
    advance.answer(&item, Answer::Plan { decision, unseen }, via)
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
