//! One leg of a server's run streamed to `data: [DONE]` and printed like a local leg: in
//! text mode the agent's text on stdout and tool failures on stderr (the same printer as
//! local events), in JSON mode the server's chunks exactly as it sent them.
//!
//! Ctrl-C and SIGTERM while it streams do not drop the connection (Mastra would abort the
//! run and delete its suspension): the leg is read to its end and the caller told that a
//! stop was asked for. Nothing here decides what follows the leg.

use crate::domain::{Event, EventKind, Sink};
use crate::remote::{Chunk, Leg, RemoteError, Stop, StopGuard};

use super::Server;

/// A leg read to its end, and whether a stop was asked for meanwhile.
pub struct Streamed {
    pub leg: Leg,
    pub stop: Option<Stop>,
}

/// What a person is told when they ask to stop while a leg streams.
const FINISHING: &str =
    "finishing the leg on the server before stopping (Mastra drops a run whose client disconnects)";

/// Runs `request` (a start or an answer) with the stop signals held, printing each chunk.
pub fn stream(
    server: &Server,
    request: impl FnOnce(&mut dyn FnMut(Chunk<'_>)) -> Result<Leg, RemoteError>,
) -> Result<Streamed, RemoteError> {
    let out = &server.ctx.out;
    let guard = StopGuard::install((!out.is_json()).then_some(FINISHING));
    let mut sink = out.sink();
    let mut print = |chunk: Chunk<'_>| {
        if out.is_json() {
            out.json_text_line(chunk.line);
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
            sink.event(run_id, &event);
        }
    };
    let leg = request(&mut print);
    let stop = guard.requested();
    drop(guard);
    if stop.is_some() {
        out.info("the leg has finished on the server; stopping as asked");
    }
    leg.map(|leg| Streamed { leg, stop })
}
