//! One leg of a server's run streamed to `data: [DONE]` and reported like a local leg: in
//! text mode the agent's text on stdout and tool failures on stderr (the report's printer of
//! local events), in JSON mode the server's chunks as it sent them.
//!
//! Ctrl-C and SIGTERM while it streams do not drop the connection (Mastra would abort the
//! run and delete its suspension): the command says it finishes the leg, and a second Ctrl-C
//! within 5 s of the first stops waiting (exit 130); SIGTERMs never do, the deadlines bound
//! the leg anyway. Nothing here decides what follows the leg.

use std::time::{Duration, Instant};

use crate::domain::{Event, EventKind, Sink};
use crate::remote::{Chunk, Leg, Listener, RemoteError, Stop, StopGuard};
use crate::report::Report;

/// A leg read to its end, and whether a stop was asked for meanwhile.
pub struct Streamed {
    pub leg: Leg,
    pub stop: Option<Stop>,
}

/// What a person is told when a SIGTERM arrives while a leg streams.
const FINISHING: &str =
    "finishing the leg on the server before stopping (Mastra drops a run whose client disconnects)";
/// How soon after a first Ctrl-C a second one stops waiting.
const SECOND_CTRL_C: Duration = Duration::from_secs(5);

/// Runs `request` (a start or an answer) with the stop signals held, reporting each chunk;
/// `pending` is the command that lists what waits (`mastra-ask --server URL pending`).
pub fn stream(
    report: &dyn Report,
    pending: &str,
    request: impl FnOnce(&mut dyn Listener) -> Result<Leg, RemoteError>,
) -> Result<Streamed, RemoteError> {
    let out = report;
    let guard = StopGuard::install();
    let mut printer = Printer {
        out,
        sink: out.streamed(),
        guard: &guard,
        ints: 0,
        terms: 0,
        first_int: None,
    };
    let leg = request(&mut printer);
    drop(printer);
    let stop = guard.requested();
    drop(guard);
    if leg.is_ok() && stop.is_some() {
        out.info("the leg has finished on the server; stopping as asked");
    }
    if let Ok(leg) = &leg {
        if leg.dropped > 0 {
            out.warn(&format!(
                "the leg announced {} more suspended calls than mastra-ask keeps from one leg; list them with: {}",
                leg.dropped, pending
            ));
        }
    }
    leg.map(|leg| Streamed { leg, stop })
}

/// Prints each chunk, and tells what the stop signals that arrived mean.
struct Printer<'a> {
    out: &'a dyn Report,
    sink: Box<dyn Sink + 'a>,
    guard: &'a StopGuard,
    /// The SIGINTs and SIGTERMs already answered.
    ints: usize,
    terms: usize,
    /// When the last Ctrl-C that did not stop waiting came.
    first_int: Option<Instant>,
}

impl Listener for Printer<'_> {
    fn chunk(&mut self, chunk: Chunk<'_>) {
        if self.out.json() {
            self.out.chunk(chunk.line);
            return;
        }
        // Chunks of types local runs do not emit (`text-start`, `tool-call-delta`, ...)
        // print nothing in text mode.
        let kind = chunk.value["type"].as_str().and_then(EventKind::parse);
        if let Some(kind) = kind {
            let event = Event {
                kind,
                payload: chunk.value["payload"].clone(),
            };
            let run_id = chunk.value["runId"].as_str().unwrap_or_default();
            self.sink.event(run_id, &event);
        }
    }

    fn stop_now(&mut self) -> bool {
        let (ints, terms) = self.guard.counts();
        for _ in self.terms..terms {
            self.out.info(FINISHING);
        }
        self.terms = terms;
        if ints > self.ints {
            let new = ints - self.ints;
            self.ints = ints;
            let now = Instant::now();
            let soon = self
                .first_int
                .is_some_and(|first| now.duration_since(first) <= SECOND_CTRL_C);
            if new > 1 || soon {
                return true;
            }
            self.first_int = Some(now);
            self.out.info(&format!(
                "{FINISHING}; press Ctrl-C again within {} s to stop waiting (the run may then be lost on the server)",
                SECOND_CTRL_C.as_secs()
            ));
        }
        false
    }
}
