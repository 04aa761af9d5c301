//! A run of a Mastra server, as the loop's place (SPEC §12): the server keeps the run and
//! resumes it when it gets an answer, streaming the leg back; this store keeps only the
//! ledger, which stands in for the lease (exactly once among the processes that share the
//! store) and remembers the runs this store started. Recording an answer claims it in the
//! ledger and queues it; the leg sends it by the route of the item's kind and streams the
//! leg to its end. A watcher (`wait`) looks at the listing until the run is no longer
//! suspended, and then at what the ledger knows of how it ended.
//!
//! The server keeps its own runs: nothing here drives a model or stores a run, and
//! credentials never reach a printed line or the store (`Server::shown` is what both see).

pub mod claims;
mod ledger;
mod leg;
pub mod listing;
mod plan;
mod server;

use std::time::{Duration, Instant};

use anyhow::Result;

use self::ledger::Claim;
use super::end::{End, How};
use super::place::{Driver, Place, Ran, State};
use super::record::Outcome;
use super::target::check_prefix;
use super::Context;
use crate::domain::{ItemKind, Resolution};
use crate::error::{fail, Error, Kind};
use crate::items::{self, Item, Plans};
use crate::output::format;
use crate::remote::{Answer, LegEnd, Start, SuspendedCall};
use crate::store::{now_ms, LedgerEntry, LedgerKind, LedgerState, Store};
use crate::tools::submit_plan::Plan;

pub use plan::PlanFiles;
pub use server::Server;

/// How often a watcher lists the server's suspended runs.
const POLL: Duration = Duration::from_secs(1);

/// A run of a Mastra server.
pub struct Mastra<'a> {
    ctx: &'a Context<'a>,
    server: &'a Server,
    /// `--agent ID`: list this agent's runs only.
    agent: Option<String>,
    plans: PlanFiles,
    /// Watching (`wait`): every look lists the server afresh.
    watching: bool,
    run_id: String,
    now: Now,
    /// A listing read for a pick (`everything_pending`), kept for the lookup that follows.
    listing: Option<Vec<SuspendedCall>>,
    /// The ledger's store, once opened.
    ledger: Option<Box<dyn Store>>,
    /// A name was typed with `--as`: the ledger records it as typed.
    claimed: bool,
}

/// How the run stands, as this process knows it.
enum Now {
    /// Nothing known yet.
    Unknown,
    /// Listed with these items (none: no longer listed); `fresh`: just read.
    Listed { items: Vec<Item>, fresh: bool },
    /// A leg for this process to run: a start, or an answer claimed in the ledger.
    Queued(Box<Send>),
    /// The last leg ended so.
    After(End),
}

enum Send {
    Start {
        agent: String,
        start: Start,
    },
    Answer {
        call: Box<SuspendedCall>,
        answer: Answer,
        claim: Claim,
    },
}

impl<'a> Mastra<'a> {
    /// A run of `server`, to be found (`load`); `agent`: list that agent's runs only.
    pub fn new(ctx: &'a Context<'a>, server: &'a Server, agent: Option<String>) -> Mastra<'a> {
        Mastra {
            ctx,
            server,
            agent,
            plans: PlanFiles::default(),
            watching: false,
            run_id: String::new(),
            now: Now::Unknown,
            listing: None,
            ledger: None,
            claimed: false,
        }
    }

    /// Whether `--as` named who answers (`Deciding::claimed`).
    pub fn claiming(mut self, claimed: bool) -> Mastra<'a> {
        self.claimed = claimed;
        self
    }

    /// Plans are read from `plans` (`review --plan-root`, `--plan-file`).
    pub fn reading_plans(mut self, plans: PlanFiles) -> Mastra<'a> {
        self.plans = plans;
        self
    }

    /// Watches the run (`wait`): a run no longer listed is looked up in the ledger.
    pub fn watching(mut self) -> Mastra<'a> {
        self.watching = true;
        self
    }

    /// A new run of `agent` (`run --server`): its first leg is this process's to run.
    pub fn starting(
        ctx: &'a Context<'a>,
        server: &'a Server,
        agent: &str,
        start: Start,
    ) -> Mastra<'a> {
        let mut place = Mastra::new(ctx, server, Some(agent.to_string()));
        place.run_id = start.run_id.clone();
        place.now = Now::Queued(Box::new(Send::Start {
            agent: agent.to_string(),
            start,
        }));
        place
    }

    /// The ledger's store: the existing one (None when there is none yet), or with
    /// `create` one created.
    fn ledger(&mut self, create: bool) -> Result<Option<&dyn Store>> {
        if self.ledger.is_none() {
            self.ledger = match create {
                true => Some(self.ctx.create_store()?),
                false => self.ctx.store_as_is()?,
            };
        }
        Ok(self.ledger.as_deref())
    }

    /// The suspended calls to look among: the listing kept from a pick, else a new one.
    fn listing(&mut self, agent: Option<&str>) -> Result<Vec<SuspendedCall>> {
        if let Some(calls) = self.listing.take() {
            return Ok(calls);
        }
        match listing::calls(self.server, agent) {
            Ok(calls) => Ok(calls),
            // A request cut short by the hard deadline is the timeout, whatever it failed with.
            Err(_) if self.server.deadlines.passed(Instant::now()) => {
                Err(self.timed_out(false)?.into())
            }
            Err(e) => Err(e),
        }
    }

    /// The run's items in `calls`.
    fn of_run(&self, calls: Vec<SuspendedCall>) -> Vec<Item> {
        let mine = calls
            .into_iter()
            .filter(|c| c.run_id == self.run_id)
            .collect();
        listing::items(mine)
    }

    /// The agent to list: `--agent`, or the one the ledger knows for the run.
    fn agent_for(&mut self, input: &str) -> Result<Option<String>> {
        if let Some(agent) = &self.agent {
            return Ok(Some(agent.clone()));
        }
        let server = self.server;
        let known = listing::known_agent(server, self.ledger(false)?, input)?;
        Ok(known)
    }

    /// A watcher's look at the listing: the run's items now.
    fn relist(&mut self) -> Result<Vec<Item>> {
        let agent = self.agent_for(&self.run_id.clone())?;
        let calls = self.listing(agent.as_deref())?;
        Ok(self.of_run(calls))
    }

    /// The run is no longer listed: how it ended, as far as the ledger knows (still running
    /// while this store's answer to it is being streamed).
    fn ended(&mut self) -> Result<State> {
        let (server, run_id, idle) = (self.server, self.run_id.clone(), self.server.deadlines.idle);
        let entries: Vec<LedgerEntry> = match self.ledger(false)? {
            Some(store) => store.answers_of_run(&server.shown, &run_id)?,
            None => Vec::new(),
        };
        let run = format::shell_quote(&run_id);
        let last = entries.iter().max_by_key(|e| e.updated_at);
        let after = |e: &LedgerEntry| match e.key.kind {
            LedgerKind::Start => format!("started from this store by {}", e.by),
            LedgerKind::Answer(_) => format!("after {}'s answer from this store", e.by),
        };
        let end = match last {
            Some(e) if e.state == LedgerState::Sending && !claims::is_stale(e, idle, now_ms()) => {
                return Ok(State::Running(Driver::Other))
            }
            Some(e) if e.state == LedgerState::Delivered && e.outcome.as_deref() == Some("finished") => End {
                how: How::Completed { finish_reason: None },
                said: Some(format!(
                    "run {run} finished on {}: its last leg, {}, ended with a finish",
                    server.shown,
                    after(e)
                )),
            },
            Some(e) if e.state == LedgerState::Delivered && e.outcome.as_deref() == Some("failed") => End {
                how: How::Failed {
                    error: format!("its last leg, {}, ended with an error", after(e)),
                    expired: false,
                    kind: Kind::Server,
                },
                said: None,
            },
            _ => End {
                how: How::NotKnown,
                said: Some(format!(
                    "run {run} is no longer suspended on {}; whether it finished or failed is not known here (Mastra lists suspended runs only, and the run's last answer was not streamed from this store)",
                    server.shown
                )),
            },
        };
        Ok(State::Ended(end))
    }

    /// Neither listed nor in the ledger (`wait`): not found, with what might be meant.
    fn unknown(&mut self, input: &str) -> Result<Error> {
        let server = self.server;
        let known_prefix = match self.ledger(false)? {
            Some(store) => !store
                .answers_matching(&server.shown, input, false, 1)?
                .is_empty(),
            None => false,
        };
        let error = Error::not_found(format!(
            "no suspended run {} on {}, and this store's ledger has no answer to it",
            format::shell_quote(input),
            server.shown
        ));
        Ok(if known_prefix {
            error.with_hint(
                "a run that is no longer listed is known by its full id only: pass the whole run id",
            )
        } else {
            error.with_hint(format!("list what waits with: {}", server.pending))
        })
    }
}

impl Place for Mastra<'_> {
    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn load(&mut self, input: &str) -> Result<()> {
        check_prefix(input)?;
        self.run_id = input.to_string();
        let agent = self.agent_for(input)?;
        let calls = self.listing(agent.as_deref())?;
        let id = match listing::listed_run(&calls, input)? {
            Some(id) => id,
            None if self.watching => {
                let server = self.server;
                let known = match self.ledger(false)? {
                    Some(store) => !store.answers_of_run(&server.shown, input)?.is_empty(),
                    None => false,
                };
                if !known {
                    return fail(self.unknown(input)?);
                }
                input.to_string()
            }
            None => {
                let server = self.server;
                return fail(listing::not_listed(server, self.ledger(false)?, input)?);
            }
        };
        self.run_id = id;
        let items = self.of_run(calls);
        self.now = Now::Listed { items, fresh: true };
        Ok(())
    }

    fn state(&mut self) -> Result<State> {
        let look_again = match &mut self.now {
            Now::Queued(_) => return Ok(State::Running(Driver::Me)),
            Now::After(end) => return Ok(State::Ended(end.clone())),
            Now::Listed { fresh, .. } => {
                let again = self.watching && !*fresh;
                *fresh = false;
                again
            }
            Now::Unknown => true,
        };
        if look_again {
            let items = self.relist()?;
            self.now = Now::Listed {
                items,
                fresh: false,
            };
        }
        match &self.now {
            Now::Listed { items, .. } if !items.is_empty() => Ok(State::Suspended),
            _ => self.ended(),
        }
    }

    fn pending(&mut self) -> Result<Vec<Item>> {
        Ok(match &self.now {
            Now::Listed { items, .. } => items.clone(),
            _ => Vec::new(),
        })
    }

    fn everything_pending(&mut self, kinds: &[ItemKind]) -> Result<Vec<Item>> {
        let calls = listing::calls(self.server, self.agent.as_deref())?;
        let mine: Vec<SuspendedCall> = calls
            .iter()
            .filter(|c| kinds.contains(&c.kind))
            .cloned()
            .collect();
        self.listing = Some(calls);
        Ok(listing::items(mine))
    }

    fn not_pending(&mut self, id: &str, _kinds: &[ItemKind]) -> Result<Error> {
        let listed = self.pending()?;
        let (server, run_id) = (self.server, self.run_id.clone());
        listing::call_not_listed(server, self.ledger(false)?, &run_id, id, &listed)
    }

    fn nothing_waits(&mut self, _kinds: &[ItemKind]) -> Error {
        Error::not_found(format!(
            "run {} has nothing pending",
            format::shell_quote(&self.run_id)
        ))
    }

    fn holds(&self, _kind: ItemKind) -> bool {
        true
    }

    /// Claims the answer in the ledger and queues it: the leg sends it.
    /// A server records the name the answer is given by (its own, or `--as`'s claim, in
    /// the ledger): it checks no identity of this machine.
    fn record(
        &mut self,
        item: &Item,
        resolution: &Resolution,
        _who: &crate::store::Identity,
        _drive: bool,
    ) -> Result<Outcome> {
        let Item::Server { call, .. } = item else {
            anyhow::bail!("tool call {} is not a server's", item.call_id());
        };
        let answer = items::of(call.kind).route(&resolution.resume_data);
        let sent = match &answer {
            Answer::Resume(data) => data.clone(),
            _ => resolution.resume_data.clone(),
        };
        if call.kind == ItemKind::Plan {
            if let Some(line) = plan::sending_line(&sent) {
                self.ctx.report.info(&line);
            }
        }
        let (ctx, server, claimed) = (self.ctx, self.server, self.claimed);
        let store = self.ledger(true)?.expect("created");
        let claim = ledger::claim_answer(
            ctx.report,
            server,
            store,
            call,
            &sent,
            &resolution.by,
            claimed,
            resolution.via,
        )?;
        self.now = Now::Queued(Box::new(Send::Answer {
            call: call.clone(),
            answer,
            claim,
        }));
        Ok(Outcome::Driven)
    }

    /// Sends what is queued and streams the leg to its end.
    fn leg(&mut self) -> Result<Ran> {
        let Now::Queued(send) = std::mem::replace(&mut self.now, Now::Unknown) else {
            anyhow::bail!("no leg of run {} is this process's to run", self.run_id);
        };
        let (ctx, server) = (self.ctx, self.server);
        let by = crate::store::Who::this_process(None).by;
        let store = self.ledger(true)?.expect("created");
        let streamed = match send.as_ref() {
            Send::Answer {
                call,
                answer,
                claim,
            } => ledger::deliver(ctx.report, server, store, call, answer, claim)?,
            Send::Start { agent, start } => {
                ledger::start(ctx.report, server, store, agent, start, &by)?
            }
        };
        let suspended = matches!(streamed.leg.end, LegEnd::Suspended(_));
        self.now = match streamed.leg.end {
            LegEnd::Suspended(calls) => Now::Listed {
                items: listing::items(calls),
                fresh: true,
            },
            LegEnd::Finished { reason, .. } => Now::After(End {
                how: How::Completed {
                    finish_reason: Some(reason),
                },
                said: None,
            }),
            LegEnd::Failed { message } => Now::After(End {
                how: How::Failed {
                    error: message,
                    expired: false,
                    kind: Kind::Server,
                },
                said: None,
            }),
            // A decision a `serve`'s policy needs more of (SPEC §14): the run still waits.
            LegEnd::Partial { needed } => Now::After(End {
                how: How::Partial,
                said: Some(format!(
                    "recorded on {}; {}",
                    server.shown,
                    crate::output::sanitize::one_line(&needed)
                )),
            }),
            // A mastra-ask `serve` that only recorded the answer (SPEC §13).
            LegEnd::Recorded => Now::After(End {
                how: How::NotKnown,
                said: Some(format!(
                    "answer recorded on {}; nobody there continues run {} now: the host that \
                     started it does (its waiting process, or `mastra-ask resume {}` there)",
                    server.shown, self.run_id, self.run_id
                )),
            }),
        };
        Ok(Ran {
            suspended,
            stop_asked: streamed.stop.is_some(),
        })
    }

    /// Never asked: a server's run is never without its driver.
    fn take(&mut self) -> Result<()> {
        Ok(())
    }

    fn pause(&mut self, until: Option<Instant>) -> Result<()> {
        let nap = until.map_or(POLL, |d| {
            POLL.min(d.saturating_duration_since(Instant::now()))
        });
        std::thread::sleep(nap);
        Ok(())
    }

    fn timed_out(&mut self, _expire: bool) -> Result<Error> {
        Ok(Error::new(
            Kind::TimedOut,
            format!(
                "timed out waiting for run {}: it is still suspended on {}",
                format::shell_quote(&self.run_id),
                self.server.shown
            ),
        ))
    }

    fn refuses_only_recording(&self) -> Option<Error> {
        Some(Error::usage(
            "--no-resume does not work with --server: a Mastra server resumes the run when it gets the answer",
        ))
    }

    fn server(&self) -> Option<&str> {
        Some(&self.server.shown)
    }
}

impl Plans for Mastra<'_> {
    /// The plan as the suspend payload carries it, else read from `--plan-file` or under
    /// `--plan-root` (for an approval only: a rejection sends no plan).
    fn plan(&self, item: &Item, approving: bool) -> Result<Result<Plan, String>> {
        let Item::Server { call, .. } = item else {
            return Ok(Ok(items::plan::plan_of(item)?));
        };
        plan::read(call, &self.plans, approving)
    }
}
