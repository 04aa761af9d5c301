//! Eight signed-in reviewers racing through `serve --drive` on the last approval a policy
//! needs (SPEC §13, §14), as eight real `mastra-ask --server` processes started together,
//! each with its own token and ledger: serve records one, drives the run (the tool runs
//! once), and answers the seven others 409, which their clients exit 4 on (or, for one
//! that lists what waits after the driven leg ended, 3: the run no longer waits there).

use serde_json::json;

use super::harness::Served;
use crate::policy_race::{assert_told_once, gated, race, two_of_the_racers, RACERS};

#[test]
fn eight_reviewers_racing_through_serve_resolve_the_last_approval_once() {
    let env = crate::common::Env::new();
    let tokens: Vec<String> = (0..=RACERS)
        .map(|i| {
            let name = format!("rev{i}");
            let out = env.run(&["reviewer", "add", &name, "--group", "racers"]);
            out.assert_code(0);
            out.stdout.trim().to_string()
        })
        .collect();
    let run = two_of_the_racers(&env);
    let served = Served::start(&env, &["--drive"]);
    let first = served.api(
        "/agents/tester/approve-tool-call",
        &tokens[0],
        &json!({"runId": run, "toolCallId": "c1"}),
    );
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.header("mastra-ask-outcome"), Some("partial"));

    let children = tokens[1..]
        .iter()
        .enumerate()
        .map(|(n, token)| {
            let ledger = format!("ledger-{n}.db");
            let mut c = env.command(&[
                "--db",
                &ledger,
                "--server",
                served.base.as_str(),
                "approve",
                &run,
            ]);
            c.env("MASTRA_SERVER_TOKEN", token);
            gated(&env, n, c)
        })
        .collect();
    let outs = race(&env, children);
    assert_told_once(&env, &run, "rev0", &outs, true);
}
