//! What must hold of every run in a store once no process drives it, whatever happened
//! before (races, cancels, kills): the store invariants of SPEC §4 checked run by run.
//!
//! Read through the product (`show -o json`) where the product's view is the point
//! (messages, items, events), and through SQL for what only the store knows (sequence
//! numbers, leases).

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::common::Env;
use crate::steps::{ask, say};

/// One run as the checks see it.
struct Run {
    id: String,
    status: String,
    lease: Option<String>,
    messages: Vec<Value>,
    items: Vec<Value>,
    events: Vec<Value>,
    message_seqs: Vec<i64>,
    event_seqs: Vec<i64>,
}

fn seqs(env: &Env, table: &str, run: &str) -> Vec<i64> {
    let sql = format!(
        "SELECT seq FROM {table} WHERE {} ORDER BY seq",
        env.of_run()
    );
    env.rows(&sql, &[run])
        .into_iter()
        .map(|r| r[0].as_deref().unwrap().parse().unwrap())
        .collect()
}

fn load(env: &Env) -> Vec<Run> {
    let rows: Vec<(String, String, Option<String>)> = env
        .rows("SELECT id, status, lease_token FROM runs ORDER BY id", &[])
        .into_iter()
        .map(|r| (r[0].clone().unwrap(), r[1].clone().unwrap(), r[2].clone()))
        .collect();
    rows.into_iter()
        .map(|(id, status, lease)| {
            let show = env.show(&id);
            let list = |k: &str| show[k].as_array().cloned().unwrap_or_default();
            Run {
                messages: list("messages"),
                items: list("suspensions"),
                events: list("events"),
                message_seqs: seqs(env, "messages", &id),
                event_seqs: seqs(env, "events", &id),
                id,
                status,
                lease,
            }
        })
        .collect()
}

fn str_of<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or_default()
}

/// Every violation of the invariants in the store, one line each (empty when all hold).
pub fn violations(env: &Env) -> Vec<String> {
    let mut out = Vec::new();
    for run in load(env) {
        check_run(&run, &mut out);
    }
    out
}

#[track_caller]
pub fn assert_consistent(env: &Env) {
    let v = violations(env);
    assert!(v.is_empty(), "{} violation(s):\n{}", v.len(), v.join("\n"));
}

fn check_run(run: &Run, out: &mut Vec<String>) {
    let mut bad = |what: String| out.push(format!("run {} ({}): {what}", run.id, run.status));
    // Sequences without gaps.
    for (name, seqs) in [("messages", &run.message_seqs), ("events", &run.event_seqs)] {
        if seqs.iter().enumerate().any(|(i, s)| *s != i as i64) {
            bad(format!("{name} sequence has gaps: {seqs:?}"));
        }
    }
    // No driver left behind: every driver has exited when this runs.
    if run.status == "running" {
        bad("still running with no process driving it".into());
    }
    if run.lease.is_some() && run.status != "running" {
        bad("holds a lease while not running".into());
    }
    // Tool results exactly once per resolved call, none for the others.
    let mut results: HashMap<&str, usize> = HashMap::new();
    for m in run.messages.iter().filter(|m| m["role"] == "tool") {
        *results.entry(str_of(m, "toolCallId")).or_default() += 1;
    }
    let mut result_events: HashMap<&str, usize> = HashMap::new();
    for e in &run.events {
        if matches!(str_of(e, "type"), "tool-result" | "tool-error") {
            *result_events
                .entry(e["payload"]["toolCallId"].as_str().unwrap_or_default())
                .or_default() += 1;
        }
    }
    for (id, n) in &results {
        if *n != 1 {
            bad(format!("tool call {id} has {n} results"));
        }
        if result_events.get(id) != Some(n) {
            bad(format!(
                "tool call {id} has {n} result message(s) but {:?} result event(s)",
                result_events.get(id)
            ));
        }
    }
    for (id, n) in &result_events {
        if !results.contains_key(id) {
            bad(format!(
                "tool call {id} has {n} result event(s) and no result"
            ));
        }
    }
    // Items: resolved at most once (one resolver), results only once the step resumed.
    let pending = run.items.iter().filter(|i| i["state"] == "pending").count();
    for item in &run.items {
        let id = str_of(item, "toolCallId");
        let state = str_of(item, "state");
        let has_result = results.contains_key(id);
        let resolver = item["resolvedBy"].as_str();
        match state {
            "resolved" if resolver.is_none() => bad(format!("item {id} resolved by nobody")),
            "pending" | "cancelled" | "expired" if has_result => {
                bad(format!("item {id} is {state} but has a result"))
            }
            "pending" if resolver.is_some() => bad(format!("item {id} pending yet resolved")),
            _ => {}
        }
    }
    // Status coherent with items and events.
    let last = run.events.last().map(|e| str_of(e, "type")).unwrap_or("");
    match run.status.as_str() {
        "suspended" if pending == 0 => bad("suspended with nothing pending".into()),
        "suspended" if last != "tool-call-suspended" => {
            bad(format!("suspended, but its last event is {last}"))
        }
        "completed" | "failed" | "cancelled" if pending > 0 => {
            bad(format!("{pending} item(s) still pending"))
        }
        "completed" if last != "finish" => bad(format!("completed, but its last event is {last}")),
        _ => {}
    }
    // Every step that started stored its response or its error, once.
    let count = |kind: &str| run.events.iter().filter(|e| e["type"] == kind).count();
    let answers = run
        .messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .count();
    if count("step-start") != answers + count("error") {
        bad(format!(
            "{} step-start event(s) for {answers} response(s) and {} error(s)",
            count("step-start"),
            count("error")
        ));
    }
}

#[test]
fn the_checks_catch_gaps_duplicated_results_and_stray_leases() {
    // Tampers with the SQLite schema itself.
    let env = Env::sqlite();
    let agent = env.agent(json!([ask("q", "Q?"), say("done")]));
    let (_, run) = env.start(&agent, &[]);
    env.run(&["answer", &run, "yes"]).assert_code(0);
    assert_eq!(violations(&env), Vec::<String>::new());
    let conn = env.conn();
    conn.execute_batch(
        "INSERT INTO messages (run, seq, call_id, body) \
           SELECT run, seq + 100, call_id, body FROM messages WHERE call_id IS NOT NULL;
         DELETE FROM events WHERE seq = 2;
         UPDATE runs SET lease_token = 'x';",
    )
    .unwrap();
    let found = violations(&env).join("\n");
    for needle in ["sequence has gaps", "has 2 results", "holds a lease"] {
        assert!(found.contains(needle), "{needle} not in:\n{found}");
    }
}
