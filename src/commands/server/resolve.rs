//! `answer` and `review` on a server's item, and what follows every leg of a server's run:
//! the answer is read and checked exactly as for a local item (`answer::given`,
//! `answer::checked`, `review::decision`), sent once (`ledger::send`) by the route of the
//! item's kind, and the resumed leg streamed; then, by how the leg ended, a person at the
//! terminal is asked what the run asks next, or the command says what waits and exits (75),
//! or exits 0 (finished) or 1 (failed).

use anyhow::Result;
use serde_json::Value;

use super::ledger::{send, Outgoing};
use super::leg::Streamed;
use super::listing::{self, shown};
use super::plan::{self, PlanSource};
use super::Server;
use crate::cli::{AnswerArgs, ApproveArgs, ItemArgs, ReviewArgs};
use crate::domain::{ItemKind, Via};
use crate::error::{fail, Error, Kind};
use crate::exit::Exit;
use crate::items::approval::{self, Verdict};
use crate::items::input::who;
use crate::items::plan::decision;
use crate::items::question::{ask as ask_question, checked, given, USAGE};
use crate::output::format;
use crate::remote::{Answer, LegEnd, SuspendedCall};
use crate::runner::prompt as prompting;
use crate::runner::view::{announce_items, resolved_line};
use crate::store::Store;
use crate::tools::approval::Decision as ApprovalDecision;
use crate::tools::ask_user::Question;
use crate::tools::submit_plan::{Decision, Plan};
use crate::ui;

pub fn answer(server: &Server, args: AnswerArgs) -> Result<Exit> {
    no_resume_refused(&args.item)?;
    let given = given(&args)?;
    if given.is_none() && !server.ctx.interactive() {
        return fail(Error::usage("no answer given").with_hint(USAGE));
    }
    if given.is_some() && args.item.run.is_none() {
        return fail(Error::usage("which run? pass RUN").with_hint(USAGE));
    }
    let kinds = [ItemKind::Question, ItemKind::Other];
    let item = listing::find(
        server,
        args.item.run.as_deref(),
        args.item.tool_call.as_deref(),
        args.agent.as_deref(),
        &kinds,
    )?;
    let session = Session::new(server, &args.item, PlanSource::default());
    let outgoing = match given {
        Some((value, via)) => {
            let data = match item.kind {
                ItemKind::Question => {
                    let q = question_of(&item)?;
                    checked(&q, &item.tool_call_id, &value, args.multi.is_some())?
                }
                _ if via != Via::Json => {
                    return fail(Error::usage(format!(
                        "tool call {} is an `other` item: its resume data is JSON of the tool's own shape",
                        format::shell_quote(&item.tool_call_id)
                    ))
                    .with_hint("pass it with --json VALUE"))
                }
                _ => value,
            };
            session.outgoing(Answer::Resume(data.clone()), data, via)
        }
        None => match session.prompt(&item)? {
            Some(outgoing) => outgoing,
            None => return Ok(Exit::Suspended),
        },
    };
    session.resolve(&item, outgoing)
}

pub fn review(server: &Server, args: ReviewArgs) -> Result<Exit> {
    no_resume_refused(&args.item)?;
    let asked = args.approve || args.reject || args.json.is_some();
    if !asked && !server.ctx.interactive() {
        // Let the local wording say which flags decide.
        decision(&args)?;
    }
    if asked && args.item.run.is_none() {
        return fail(Error::usage("which run? pass RUN"));
    }
    let item = listing::find(
        server,
        args.item.run.as_deref(),
        args.item.tool_call.as_deref(),
        args.agent.as_deref(),
        &[ItemKind::Plan],
    )?;
    let source = PlanSource {
        root: args.plan_root.clone(),
        file: args.plan_file.clone(),
    };
    let session = Session::new(server, &args.item, source);
    let outgoing = if asked {
        let (decision, via) = decision(&args)?;
        let data = if !decision.is_approved() {
            // A rejection never needs the plan: nothing is read, nothing of it is sent.
            decision.without_plan()
        } else {
            match plan::read(&item, &session.plans)? {
                Ok(plan) => plan::resume_data(server.ctx.out, &decision, &plan),
                Err(why) if !args.unseen => {
                    return fail(Error::usage(format!(
                        "cannot show the plan: {why}; approving a plan nobody has seen needs its text"
                    ))
                    .with_hint(
                        "pass --plan-root DIR (where the agent's paths start), --plan-file FILE, or --unseen",
                    ))
                }
                Err(why) => {
                    server.ctx.out.warn(&format!(
                        "the plan could not be read ({why}); the decision is sent with its path only"
                    ));
                    unread(&decision, &plan::path_of(&item))
                }
            }
        };
        session.outgoing(Answer::Resume(data.clone()), data, via)
    } else {
        match session.prompt(&item)? {
            Some(outgoing) => outgoing,
            None => return Ok(Exit::Suspended),
        }
    };
    session.resolve(&item, outgoing)
}

/// `approve` / `decline` on a server's approval item: the decision checked as for a local
/// one (`approve::decision`: the verb is the decision, and a `--json` must agree with it),
/// sent by `approve-tool-call` / `decline-tool-call`.
pub fn decide(server: &Server, args: &ApproveArgs, verdict: Verdict) -> Result<Exit> {
    let item_args = ItemArgs {
        run: Some(args.run.clone()),
        tool_call: args.tool_call.clone(),
        as_: args.as_.clone(),
        no_resume: args.no_resume,
    };
    no_resume_refused(&item_args)?;
    let (decision, via) = approval::decision(args, &verdict)?;
    let item = listing::find(
        server,
        Some(&args.run),
        args.tool_call.as_deref(),
        args.agent.as_deref(),
        &[ItemKind::Approval],
    )?;
    let session = Session::new(server, &item_args, PlanSource::default());
    let outgoing = session.approval(&decision, via);
    session.resolve(&item, outgoing)
}

/// A Mastra server resumes a run when it gets the answer: it cannot only be recorded.
fn no_resume_refused(args: &ItemArgs) -> Result<()> {
    if args.no_resume {
        return fail(Error::usage(
            "--no-resume does not work with --server: a Mastra server resumes the run when it gets the answer",
        ));
    }
    Ok(())
}

/// The resume data of a decision on a plan nobody could read: the path, no text.
fn unread(decision: &Decision, path: &str) -> Value {
    let mut data = decision.resume_data(&Plan {
        path: path.to_string(),
        title: String::new(),
        plan: String::new(),
    });
    if let Some(map) = data.as_object_mut() {
        map.remove("title");
        map.remove("plan");
    }
    data
}

fn question_of(item: &SuspendedCall) -> Result<Question> {
    item.suspend_payload
        .as_ref()
        .and_then(Question::from_payload)
        .ok_or_else(|| {
            Error::invalid(format!(
                "tool call {} has no readable question",
                format::shell_quote(&item.tool_call_id)
            ))
            .into()
        })
}

/// One sitting with a server's run: the answers sent so far, and how to go on after a leg.
pub struct Session<'a> {
    server: &'a Server<'a>,
    /// The ledger's store, opened (or created) when the first answer is sent.
    store: Option<Box<dyn Store>>,
    by: String,
    plans: PlanSource,
    /// Prompt for what the run asks next.
    prompt: bool,
    /// The items answered in this sitting (what an interruption reports as kept).
    recorded: Vec<String>,
}

impl<'a> Session<'a> {
    pub fn new(server: &'a Server<'a>, args: &ItemArgs, plans: PlanSource) -> Session<'a> {
        Session {
            server,
            store: None,
            by: who(args.as_.clone()),
            plans,
            prompt: server.ctx.interactive(),
            recorded: Vec::new(),
        }
    }

    /// A session without an answer of its own (`run`).
    pub fn starting(server: &'a Server<'a>) -> Session<'a> {
        Session::new(
            server,
            &ItemArgs {
                run: None,
                tool_call: None,
                as_: None,
                no_resume: false,
            },
            PlanSource::default(),
        )
    }

    /// What an approval decision sends, and what the ledger keeps of it (Mastra's
    /// approval resume data).
    fn approval(&self, decision: &ApprovalDecision, via: Via) -> Outgoing {
        let answer = if decision.approved {
            Answer::Approve
        } else {
            Answer::Decline {
                reason: decision.reason.clone(),
            }
        };
        self.outgoing(answer, decision.resume_data(), via)
    }

    fn outgoing(&self, answer: Answer, recorded: Value, via: Via) -> Outgoing {
        Outgoing {
            answer,
            recorded,
            by: self.by.clone(),
            via,
        }
    }

    /// Sends the answer to `item`, then follows the run.
    fn resolve(mut self, item: &SuspendedCall, outgoing: Outgoing) -> Result<Exit> {
        let streamed = self.send(item, &outgoing)?;
        self.follow(&item.run_id, streamed)
    }

    /// Sends one answer through the ledger and remembers it for this sitting.
    fn send(&mut self, item: &SuspendedCall, outgoing: &Outgoing) -> Result<Streamed> {
        if self.store.is_none() {
            self.store = Some(self.server.ctx.create_store()?);
        }
        let store = self.store.as_deref().expect("opened above");
        let streamed = send(self.server, store, item, outgoing)?;
        self.recorded.push(resolved_line(
            &item.tool_call_id,
            item.kind,
            &outgoing.recorded,
        ));
        Ok(streamed)
    }

    /// After a leg: prompt and send on while a person answers here, else say how the leg
    /// ended, as an exit code.
    pub fn follow(mut self, run_id: &str, mut streamed: Streamed) -> Result<Exit> {
        loop {
            let items = match streamed.leg.end {
                LegEnd::Finished { reason, .. } => {
                    if reason == "tool-calls" {
                        self.server.ctx.out.warn(&format!(
                            "run {run_id} stopped after its step budget: the agent was still calling tools (raise it with --max-steps)"
                        ));
                    }
                    return Ok(Exit::Success);
                }
                LegEnd::Failed { message } => {
                    return fail(Error::new(
                        Kind::Server,
                        format!("run {run_id} failed on {}: {message}", self.server.shown),
                    ))
                }
                LegEnd::Suspended(items) => items,
            };
            let next = items
                .first()
                .filter(|i| self.prompt && streamed.stop.is_none() && i.kind != ItemKind::Other);
            let outgoing = match next {
                Some(item) => self.prompt(item)?.map(|o| (item.clone(), o)),
                None => None,
            };
            let Some((item, outgoing)) = outgoing else {
                announce_items(self.server.ctx, run_id, &shown(&items));
                return Ok(Exit::Suspended);
            };
            streamed = self.send(&item, &outgoing)?;
        }
    }

    /// Asks the person at the terminal about `item`; leaving the prompt is exit 130 with
    /// nothing sent for it, and "leave it for later" (an approval) is `None`.
    fn prompt(&self, item: &SuspendedCall) -> Result<Option<Outgoing>> {
        let ctx = self.server.ctx;
        let left = || {
            prompting::left(
                ctx,
                &item.run_id,
                &item.tool_call_id,
                item.kind,
                &self.recorded,
            )
        };
        match item.kind {
            ItemKind::Question => match ask_question(&question_of(item)?)? {
                Some(data) => Ok(Some(self.outgoing(
                    Answer::Resume(data.clone()),
                    data,
                    Via::Prompt,
                ))),
                None => fail(left()),
            },
            ItemKind::Plan => {
                let plan = match plan::read(item, &self.plans)? {
                    Ok(plan) => plan,
                    Err(why) => {
                        return fail(Error::usage(format!("cannot show the plan: {why}")).with_hint(
                            "pass --plan-root DIR (where the agent's paths start) or --plan-file FILE, or decide with --reject",
                        ))
                    }
                };
                match ui::review(&plan)? {
                    Some(d) => {
                        let data = plan::resume_data(ctx.out, &d, &plan);
                        Ok(Some(self.outgoing(
                            Answer::Resume(data.clone()),
                            data,
                            Via::Prompt,
                        )))
                    }
                    None => fail(left()),
                }
            }
            ItemKind::Approval => {
                let args = item.args.clone().unwrap_or_default();
                match ui::approve(&item.tool_call_id, &item.tool_name, &args)? {
                    Some(ui::Chosen::Decided(d)) => Ok(Some(self.approval(&d, Via::Prompt))),
                    Some(ui::Chosen::Later) => Ok(None),
                    None => fail(left()),
                }
            }
            ItemKind::Other => fail(prompting::cannot_prompt(
                ctx,
                &item.run_id,
                &item.tool_call_id,
                ItemKind::Other,
            )),
        }
    }
}
