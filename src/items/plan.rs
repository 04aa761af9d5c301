//! A plan (`submit_plan`): approved, or rejected with feedback (`review RUN --approve`,
//! `--reject --feedback TEXT`, `--json '{"action":...}'`, a form), on the plan as its place shows it
//! (`Plans`: this store's snapshot taken when it was submitted; a Mastra server's file, read
//! for the reviewer), shown at a terminal rendered, with the Approve / Reject menu. On a
//! Mastra server a rejection sends the decision and the feedback only, never the plan.

use anyhow::Result;
use serde_json::Value;

use super::answer::{unfit, Answer, Checked, Given};
use super::form::{Button, Field, Form, Headline};
use super::view::ItemView;
use super::{Asked, Item, Kind, Prompted, Verb};
use crate::domain::{Resolution, Via};
use crate::error::{fail, Error};
use crate::output::sanitize;
use crate::report::Report;
use crate::store::Run;
use crate::tools::submit_plan::{read_plan, Decision, Plan};
use crate::ui;

/// Where the plan of a plan item comes from, for the person deciding on it.
pub trait Plans {
    /// The plan of `item` as the person is shown it, or why it cannot be shown
    /// (`Ok(Err(why))`). A plan read from a file for the reviewer (a Mastra server's) is read
    /// only for an approval (`approving`): a rejection sends no plan.
    fn plan(&self, item: &Item, approving: bool) -> Result<Result<Plan, String>>;
}

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

    fn describe(&self, item: &ItemView, out: &mut String) {
        let field = |name| item.payload.and_then(|p| p.get(name));
        let path = field("path").and_then(Value::as_str).unwrap_or_default();
        out.push_str("plan: ");
        match field("title") {
            // A Mastra server's plan carries its path only.
            None if item.server.is_some() => sanitize::push_one_line(out, path),
            title => {
                let title = title.and_then(Value::as_str).unwrap_or_default();
                let title = if title.is_empty() {
                    "(untitled)"
                } else {
                    title
                };
                sanitize::push_one_line(out, title);
                out.push_str(" (");
                sanitize::push_one_line(out, path);
                out.push(')');
            }
        }
    }

    fn commands(&self, _item: &ItemView) -> Vec<Verb> {
        vec![
            Verb::new("review", &["--approve"], None),
            Verb::new("review", &["--reject", "--feedback <feedback>"], None),
        ]
    }

    fn prompt(&self, asked: &Asked) -> Result<Prompted> {
        let plan = match asked.plans.plan(asked.item, true)? {
            Ok(plan) => plan,
            Err(why) => {
                return fail(Error::usage(format!("cannot show the plan: {why}")).with_hint(
                    "pass --plan-root DIR (where the agent's paths start) or --plan-file FILE, or decide with --reject",
                ))
            }
        };
        Ok(match ui::review(&plan)? {
            Some(d) => Prompted::Resolved(decided(&d, &plan, asked.by, Via::Prompt)),
            None => Prompted::Left,
        })
    }

    /// A rejection sends the decision and the feedback only, never the plan's text.
    fn route(&self, resume_data: &Value) -> crate::remote::Answer {
        if resume_data["action"] != "rejected" {
            return crate::remote::Answer::Resume(resume_data.clone());
        }
        let mut sent = serde_json::json!({"action": "rejected"});
        if let Some(feedback) = resume_data.get("feedback") {
            sent["feedback"] = feedback.clone();
        }
        crate::remote::Answer::Resume(sent)
    }

    fn check(&self, item: &Item, answer: Answer, given: &Given) -> Result<Checked> {
        let (decision, unseen) = match answer {
            Answer::Data(data) => (Decision::from_json(&data).map_err(Error::invalid)?, false),
            Answer::Plan { decision, unseen } => (decision, unseen),
            other => return Err(unfit(item, &other)),
        };
        let resolution = resolution(&decision, item, given, unseen)?;
        Ok(Checked::plain(resolution))
    }

    fn headline(&self, item: &ItemView) -> Headline {
        let title = item.payload.and_then(|p| p["title"].as_str());
        Headline::words(title.filter(|t| !t.is_empty()).unwrap_or("(untitled plan)"))
    }

    fn form(&self, _item: &Item) -> Form {
        Form {
            fields: vec![Field::note("feedback", "Feedback (for a rejection)")],
            buttons: vec![
                Button::refusing("Reject", "action", "rejected"),
                Button::deciding("Approve", "action", "approved"),
            ],
        }
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

/// The plan a pending `submit_plan` item of this store submitted (its snapshot).
pub fn plan_of(item: &Item) -> Result<Plan> {
    item.payload()
        .and_then(Plan::from_payload)
        .ok_or_else(|| super::unreadable(item.call_id(), "plan"))
}

/// The resolution of `decision` on `item`'s plan as `given.plans` shows it. A plan nobody
/// can be shown is rejected without it, and approved only with `unseen` (`review
/// --unseen`: its path is sent, no text).
fn resolution(decision: &Decision, item: &Item, given: &Given, unseen: bool) -> Result<Resolution> {
    let (by, via) = (given.by, given.via);
    let why = match given.plans.plan(item, decision.is_approved())? {
        Ok(plan) => return Ok(decided(decision, &plan, by, via)),
        Err(why) => why,
    };
    let resume_data = if !decision.is_approved() {
        decision.without_plan()
    } else if unseen {
        given.report.warn(&format!(
            "the plan could not be read ({why}); the decision is sent with its path only"
        ));
        let mut data = decision.without_plan();
        let path = item.payload().and_then(|p| p["path"].as_str());
        data["path"] = serde_json::json!(path.unwrap_or_default());
        data
    } else {
        return fail(
            Error::usage(format!(
                "cannot show the plan: {why}; approving a plan nobody has seen needs its text"
            ))
            .with_hint(
                "pass --plan-root DIR (where the agent's paths start), --plan-file FILE, or --unseen",
            ),
        );
    };
    Ok(Resolution {
        resume_data,
        result: None,
        by: by.to_string(),
        via,
    })
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
/// `program`: the command as a person can paste it (`Context::program`).
pub fn warn_if_changed(report: &dyn Report, run: &Run, plan: &Plan, program: &str) {
    let now_on_disk = read_plan(std::path::Path::new(&run.cwd), &plan.path)
        .map(|text| Plan::from_text(&plan.path, &text));
    if now_on_disk.as_ref() != Ok(plan) {
        report.warn(&format!(
            "{} changed on disk since it was submitted; this decision is on the submitted version (see: {program} show {})",
            sanitize::one_line(&plan.path),
            run.id
        ));
    }
}
