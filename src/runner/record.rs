//! Recording a resolution, and who moves the run on after it (SPEC §5.1): the one decision
//! every frontend shares. This process drives the leg the resolution resumes when the policy
//! allows it (not `--no-resume`, or `serve --drive`), it is on the run's own host, it has the
//! model, and no live waiter claims the leg (the store decides that last part atomically, in
//! the transaction that records). Otherwise a live waiter drives, or nobody here does and
//! the run waits for its host, or other items of the step must be resolved first.
//!
//! What became of it is an `Outcome`, and its wording for a person is derived from it here,
//! once; an HTTP frontend maps the same value to its `Mastra-Ask-Outcome` header. Nothing
//! here prompts or needs a terminal.

use anyhow::Result;

use super::advance::{on_own_host, Advance};
use super::view::resolved_line;
use crate::agent::lease;
use crate::domain::{CallRecord, Resolution};
use crate::store::{Resolved, Run};

/// What became of a recorded resolution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// This process drives the leg the resolution resumed (it holds the lease now).
    Driven,
    /// A live waiter drives the leg.
    Waiter,
    /// Recorded, and nobody here drives the run on.
    Recorded(Continues),
    /// Recorded; this many more items of the step must be resolved before the run continues.
    Pending(usize),
}

/// Where a run that nobody here drives continues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Continues {
    /// On this host: by a waiter that comes later, or `resume`.
    Here,
    /// On the host that started the run (its id): its waiter, or `resume` run there.
    OnHost(String),
}

impl Outcome {
    /// The value of an answering response's `Mastra-Ask-Outcome` header (SPEC §13).
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Driven => "driven",
            Outcome::Waiter => "waiter",
            Outcome::Recorded(_) | Outcome::Pending(_) => "recorded",
        }
    }

    /// What a person is told of it; `None` when the leg it resumed is what follows.
    /// `program` is the command to paste (`mastra-ask --db ...`).
    pub fn wording(&self, program: &str, run_id: &str) -> Option<String> {
        Some(match self {
            Outcome::Driven => return None,
            Outcome::Waiter => "answer recorded; the waiting process continues the run".into(),
            Outcome::Recorded(Continues::Here) => format!(
                "recorded; a waiting process, or `{program} resume {run_id}`, continues the run"
            ),
            Outcome::Recorded(Continues::OnHost(_)) => format!(
                "answer recorded; run {run_id} continues on the host that started it: its waiting process, or `{program} resume {run_id}` run there"
            ),
            Outcome::Pending(n) => format!(
                "recorded; {n} more item(s) of this step must be resolved before the run continues"
            ),
        })
    }
}

impl Advance<'_> {
    /// Records `resolution` for `item` of `run` (as read before) exactly once, and says who
    /// moves the run on. When this process drives, the events the resolution appended are
    /// reported and the lease is this process's; a waiter's leg can then be followed from
    /// the store (`follow`) starting with those events.
    pub fn record(
        &mut self,
        run: &Run,
        item: &CallRecord,
        resolution: &Resolution,
    ) -> Result<Outcome> {
        let here = on_own_host(run);
        let allowed = self.policy.drive && here;
        if allowed && self.provider.is_none() {
            // Without the model's keys this process can still record for a live waiter.
            match self.provider_for(run) {
                Ok(p) => self.provider = Some(p),
                Err(_) if self.store.has_waiter(&run.id)? => {}
                Err(e) => return Err(e),
            }
        }
        let offer = (allowed && self.provider.is_some()).then(lease::mine);
        let resolved = self
            .store
            .resolve(&run.id, &item.call_id, resolution, offer.as_ref())?;
        self.recorded.push(resolved_line(
            &item.call_id,
            item.kind(),
            &resolution.resume_data,
        ));
        Ok(match resolved {
            Resolved::Recorded { still_pending } => Outcome::Pending(still_pending),
            Resolved::Resumed { events, driving } if driving => {
                self.ctx.report.stored_events(&run.id, &events);
                self.watch.passed(&events);
                self.lease = offer;
                Outcome::Driven
            }
            Resolved::Resumed { events, .. } => {
                self.watch = super::watch::Watch::since(events.first().map(|e| e.seq - 1));
                // An offer the store declined went to a live waiter.
                if offer.is_some() || self.store.has_waiter(&run.id)? {
                    Outcome::Waiter
                } else if here {
                    Outcome::Recorded(Continues::Here)
                } else {
                    Outcome::Recorded(Continues::OnHost(run.host.clone().unwrap_or_default()))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_is_worded_once_and_named_for_the_header() {
        let said = |o: Outcome| (o.as_str(), o.wording("mastra-ask --db x.db", "r1"));
        assert_eq!(said(Outcome::Driven), ("driven", None));
        assert_eq!(
            said(Outcome::Waiter),
            (
                "waiter",
                Some("answer recorded; the waiting process continues the run".into())
            )
        );
        assert_eq!(
            said(Outcome::Recorded(Continues::Here)),
            (
                "recorded",
                Some("recorded; a waiting process, or `mastra-ask --db x.db resume r1`, continues the run".into())
            )
        );
        assert_eq!(
            said(Outcome::Recorded(Continues::OnHost("h".into()))),
            (
                "recorded",
                Some("answer recorded; run r1 continues on the host that started it: its waiting process, or `mastra-ask --db x.db resume r1` run there".into())
            )
        );
        assert_eq!(
            said(Outcome::Pending(2)),
            (
                "recorded",
                Some("recorded; 2 more item(s) of this step must be resolved before the run continues".into())
            )
        );
    }
}
