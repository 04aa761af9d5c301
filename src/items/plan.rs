//! A plan (`submit_plan`): decided with `review RUN --approve`, `--reject [--feedback TEXT |
//! --feedback-file FILE]` or `--json '{"action":...}'`, on the snapshot taken when it was
//! submitted (a warning when the file changed since), shown at a terminal rendered, with the
//! Approve / Reject menu.

use anyhow::Result;
use serde_json::Value;

use super::view::ItemView;
use super::{Asked, Kind, Prompted, Verb};
use crate::cli::ReviewArgs;
use crate::domain::{CallRecord, Resolution, Via};
use crate::error::{fail, Error};
use crate::items::input::{parse_json_flag, read_stdin, read_text_file};
use crate::output::sanitize;
use crate::report::Report;
use crate::store::Run;
use crate::tools::submit_plan::{read_plan, Decision, Plan};
use crate::ui;

pub struct PlanItem;

impl Kind for PlanItem {
    fn article(&self) -> &'static str {
        "a plan"
    }

    fn verbs(&self) -> &'static [&'static str] {
        &["review"]
    }

    fn picker_title(&self) -> &'static str {
        "Which plan?"
    }

    fn nothing_pending(&self) -> &'static str {
        "no plan is waiting for a review"
    }

    fn describe(&self, item: &ItemView) -> String {
        let payload = item.payload.cloned().unwrap_or_default();
        let title = payload["title"].as_str().unwrap_or_default();
        let path = sanitize::one_line(payload["path"].as_str().unwrap_or_default());
        match payload.get("title") {
            // A Mastra server's plan carries its path only.
            None if item.server.is_some() => format!("plan: {path}"),
            _ => format!(
                "plan: {} ({path})",
                sanitize::one_line(if title.is_empty() {
                    "(untitled)"
                } else {
                    title
                })
            ),
        }
    }

    fn commands(&self, _item: &ItemView) -> Vec<Verb> {
        vec![
            Verb::new("review", &["--approve"], None),
            Verb::new("review", &["--reject", "--feedback <feedback>"], None),
        ]
    }

    fn prompt(&self, asked: &Asked) -> Result<Prompted> {
        let plan = plan_of(asked.call)?;
        warn_if_changed(asked.report, asked.run, &plan);
        Ok(match ui::review(&plan)? {
            Some(d) => Prompted::Resolved(decided(&d, &plan, asked.by, Via::Prompt)),
            None => Prompted::Left,
        })
    }

    fn outcome(&self, answer: &Value) -> Vec<String> {
        let rejected = answer["action"] == "rejected";
        answer["feedback"]
            .as_str()
            .filter(|_| rejected)
            .map(str::to_string)
            .into_iter()
            .collect()
    }
}

/// The plan a pending `submit_plan` item submitted.
pub fn plan_of(call: &CallRecord) -> Result<Plan> {
    call.payload
        .as_ref()
        .and_then(Plan::from_payload)
        .ok_or_else(|| super::unreadable(&call.call_id, "plan"))
}

/// The resolution of a decision on `plan`: the resume data and, for the model, its result.
pub fn decided(decision: &Decision, plan: &Plan, by: &str, via: Via) -> Resolution {
    Resolution {
        resume_data: decision.resume_data(plan),
        result: Some(decision.result(plan)),
        by: by.to_string(),
        via,
    }
}

/// Says so when the plan file now differs from the submitted version being decided on.
pub fn warn_if_changed(report: &dyn Report, run: &Run, plan: &Plan) {
    let now_on_disk = read_plan(std::path::Path::new(&run.cwd), &plan.path)
        .map(|text| Plan::from_text(&plan.path, &text));
    if now_on_disk.as_ref() != Ok(plan) {
        report.warn(&format!(
            "{} changed on disk since it was submitted; this decision is on the submitted version (see: mastra-ask show {})",
            sanitize::one_line(&plan.path),
            run.id
        ));
    }
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
