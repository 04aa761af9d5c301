//! `approve` and `decline`: decide a tool call that waits for approval (SPEC §11), in this
//! store or on `--server`'s, then advance the run like `answer` does (drive the leg it
//! resumes, in which an approved tool runs first, or stream the server's; prompt on at a
//! terminal for what the run asks next). The verb is the decision: neither ever prompts for
//! it, and a `--json` that says otherwise is refused. `approve --args` approves with changes
//! (SPEC §14.1, this store only); `--all` is `approve_all`.

use anyhow::Result;
use serde_json::Value;

use crate::cli::ApproveArgs;
use crate::context::Ctx;
use crate::domain::{ItemKind, Via};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::items::input::parse_json_flag;
use crate::items::Answer;
use crate::policy::Deciding;
use crate::runner::{Advance, Picked};
use crate::store::Who;
use crate::tools::approval::Decision;

/// What `approve` and `decline` stand for.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Approve,
    /// With `--reason`, if given.
    Decline {
        reason: Option<String>,
    },
}

impl Verdict {
    pub fn verb(&self) -> &'static str {
        match self {
            Verdict::Approve => "approve",
            Verdict::Decline { .. } => "decline",
        }
    }
}

/// `changed`: `approve --args JSON`, the arguments approved in place of the proposed ones
/// (refused with `--server` before this).
pub fn run(ctx: &Ctx, args: &ApproveArgs, verdict: Verdict, changed: Option<&str>) -> Result<Exit> {
    if args.all {
        return super::approve_all::run(ctx, args, verdict);
    }
    let (decision, via) = decision(args, &verdict)?;
    let answer = match changed {
        Some(json) => Answer::Changed(
            serde_json::from_str::<Value>(json)
                .map_err(|e| Error::invalid(format!("--args is not valid JSON: {e}")))?,
        ),
        None => Answer::Approval(decision),
    };
    let picked = Picked::of(ctx)?;
    let deciding = Deciding::claiming(args.as_.is_some());
    let place = picked.place(ctx, deciding, args.agent.clone(), None);
    let who = Who::this_process(args.as_.clone());
    let mut advance = Advance::acting(ctx, place, args.no_resume, who)?.next_within(args.timeout);
    let call = args.tool_call.as_deref();
    let item = advance.target(Some(&args.run), &[ItemKind::Approval], call)?;
    advance.answer(&item, answer, via)
}

/// The decision the command stands for, checked before anything is looked up: a `--json`
/// must agree with the verb.
pub fn decision(args: &ApproveArgs, verdict: &Verdict) -> Result<(Decision, Via)> {
    let approving = *verdict == Verdict::Approve;
    if let Some(j) = &args.json {
        let d = Decision::from_json(&parse_json_flag(j)?)
            .map_err(|e| Error::invalid(format!("--json: {e}")))?;
        if d.approved != approving {
            let other = if d.approved { "approve" } else { "decline" };
            return fail(
                Error::usage(format!(
                    "--json says {{\"approved\": {}}}, but the command is {}",
                    d.approved,
                    verdict.verb()
                ))
                .with_hint(format!("to {other} the call, use: mastra-ask {other} RUN")),
            );
        }
        return Ok((d, Via::Json));
    }
    match verdict {
        Verdict::Approve => Ok((Decision::approve(), Via::Flag)),
        Verdict::Decline {
            reason: Some(reason),
        } if reason.trim().is_empty() => fail(
            Error::usage("the reason is empty")
                .with_hint("write why, or leave out --reason to decline with the default reason"),
        ),
        Verdict::Decline { reason } => Ok((Decision::decline(reason.clone()), Via::Flag)),
    }
}
