//! `wait --server URL RUN`: watches the server's listing until the run is no longer
//! suspended, strictly: an empty or short RUN is a usage error (2); a RUN that no listed run
//! matches is not found (3), unless it is the full id of a run this store's ledger answered;
//! `--timeout` is a hard deadline (124 at it, whatever the server does meanwhile).
//!
//! Mastra lists suspended runs only, so what happened to a run once it is no longer listed is
//! known only from this store's ledger: how the last leg it streamed ended (`finished` 0,
//! `failed` 1). When the last answer was not streamed from here, the command says it cannot
//! know. While this store's answer to the run is still being streamed, the run is not listed
//! either, and `wait` goes on waiting.

use std::time::{Duration, Instant};

use anyhow::Result;

use super::claims;
use super::listing;
use super::{error, Server};
use crate::cli::WaitArgs;
use crate::error::{fail, Error, Kind};
use crate::exit::Exit;
use crate::output::format;
use crate::remote::{Client, SuspendedCall};
use crate::runner::target::check_prefix;
use crate::store::{now_ms, LedgerEntry, LedgerState};

/// How often `wait` lists the server's suspended runs.
const POLL: Duration = Duration::from_secs(1);

pub fn run(server: &Server, args: WaitArgs) -> Result<Exit> {
    if args.drive {
        return fail(Error::usage(
            "--drive does not work with --server: the server drives its own runs",
        ));
    }
    let input = args.run.as_str();
    check_prefix(input)?;
    let deadlines = match args.timeout {
        Some(t) => server.deadlines.until(Instant::now() + t),
        None => server.deadlines,
    };
    let client = Client::with_deadlines(server.config.clone(), deadlines).map_err(error)?;
    // A request cut short by the hard deadline is the timeout, whatever it failed with.
    let list = || -> Result<Option<Vec<SuspendedCall>>> {
        match listing::items_of(&client, None) {
            Ok(items) => Ok(Some(items)),
            Err(_) if deadlines.passed(Instant::now()) => Ok(None),
            Err(e) => Err(e),
        }
    };
    let timed_out = |run: &str| {
        fail(Error::new(
            Kind::TimedOut,
            format!(
                "timed out waiting for run {}: it is still suspended on {}",
                format::shell_quote(run),
                server.shown
            ),
        ))
    };
    let Some(mut items) = list()? else {
        return timed_out(input);
    };
    let run_id = match listing::listed_run(&items, input)? {
        Some(id) => id,
        None => {
            if answers(server, input)?.is_empty() {
                return fail(unknown(server, input)?);
            }
            input.to_string()
        }
    };
    loop {
        if !items.iter().any(|i| i.run_id == run_id) {
            if let Some(exit) = ended(server, &run_id)? {
                return Ok(exit);
            }
        }
        let now = Instant::now();
        if deadlines.passed(now) {
            return timed_out(&run_id);
        }
        let nap = deadlines
            .hard
            .map_or(POLL, |d| POLL.min(d.saturating_duration_since(now)));
        std::thread::sleep(nap);
        items = match list()? {
            Some(items) => items,
            None => return timed_out(&run_id),
        };
    }
}

/// This store's answers to the run `run_id` (its full id) on this server.
fn answers(server: &Server, run_id: &str) -> Result<Vec<LedgerEntry>> {
    Ok(match server.ctx.existing_store()? {
        Some(store) => store.answers_of_run(&server.shown, run_id)?,
        None => Vec::new(),
    })
}

/// Neither listed nor in the ledger: not found, with what might be meant.
fn unknown(server: &Server, input: &str) -> Result<Error> {
    let known_prefix = match server.ctx.existing_store()? {
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
        error.with_hint(format!(
            "list what waits with: {}",
            server.pending_command()
        ))
    })
}

/// The run is no longer listed: how it ended, as far as this store's ledger knows (None
/// while this store's answer to it is still being streamed).
fn ended(server: &Server, run_id: &str) -> Result<Option<Exit>> {
    let out = &server.ctx.out;
    let now = now_ms();
    let entries = answers(server, run_id)?;
    let last = entries.iter().max_by_key(|e| e.updated_at);
    let run = format::shell_quote(run_id);
    match last {
        Some(e)
            if e.state == LedgerState::Sending
                && !claims::is_stale(e, server.deadlines.idle, now) =>
        {
            Ok(None)
        }
        Some(e) if e.state == LedgerState::Delivered && e.outcome.as_deref() == Some("finished") => {
            out.info(&format!(
                "run {run} finished on {}: its last leg, after {}'s answer from this store, ended with a finish",
                server.shown, e.by
            ));
            Ok(Some(Exit::Success))
        }
        Some(e) if e.state == LedgerState::Delivered && e.outcome.as_deref() == Some("failed") => {
            fail(Error::new(
                Kind::Server,
                format!(
                    "run {run} failed on {}: its last leg, after {}'s answer from this store, ended with an error",
                    server.shown, e.by
                ),
            ))
        }
        _ => {
            out.info(&format!(
                "run {run} is no longer suspended on {}; whether it finished or failed is not known here (Mastra lists suspended runs only, and the run's last answer was not streamed from this store)",
                server.shown
            ));
            Ok(Some(Exit::Success))
        }
    }
}
