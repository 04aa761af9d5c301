//! The command line against the real Mastra server (SPEC §12), through the binary: listing,
//! answering each kind of item by its route, plans read under --plan-root, refusals that send
//! nothing, the ledger's exactly-once among processes sharing a store (on the suite's
//! backend), stop signals that do not drop a leg, and `-o json` passing the server's chunks
//! through byte for byte.

use serde_json::{json, Value};

use super::fixture::{shared, Fixture, Tap};
use crate::common::{assert_one_line_error, Env, Out};
use crate::pty::{Pty, DOWN, ENTER, ESC};

mod answers;
mod approvals;
mod delivery;
mod listing;
mod output;
mod terminal;

/// The shared server, a fresh environment, and the server's URL; None when skipped.
pub(super) fn on_the_shared_server() -> Option<(&'static Fixture, Env, String)> {
    let fx = shared()?;
    Some((fx, Env::new(), fx.url()))
}

/// `mastra-ask --server URL ARGS...` in the test's environment.
pub(super) fn at(env: &Env, url: &str, args: &[&str]) -> Out {
    let mut all = vec!["--server", url];
    all.extend_from_slice(args);
    env.run(&all)
}

/// Starts a run of `agent` with `tags` in its prompt (`run -q`): its id.
#[track_caller]
pub(super) fn start(env: &Env, url: &str, agent: &str, tags: &str) -> String {
    let out = at(env, url, &["run", "-q", "--agent", agent, tags]);
    out.assert_code(75);
    let id = out.stdout.trim().to_string();
    assert_eq!(uuid::Uuid::parse_str(&id).unwrap().get_version_num(), 4);
    id
}

/// `pending -o json` lines of one run.
pub(super) fn listed(env: &Env, url: &str, run: &str) -> Vec<Value> {
    let out = at(env, url, &["-o", "json", "pending"]);
    out.assert_code(0);
    out.json_lines()
        .into_iter()
        .filter(|i| i["runId"] == run)
        .collect()
}

/// The only listed item of a run.
#[track_caller]
pub(super) fn only(env: &Env, url: &str, run: &str) -> Value {
    let items = listed(env, url, run);
    assert_eq!(items.len(), 1, "{items:?}");
    items[0].clone()
}

pub(super) fn id_of(item: &Value) -> String {
    item["toolCallId"].as_str().unwrap().to_string()
}
