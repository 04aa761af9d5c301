//! Sixteen processes at a time running mixed commands (answer, review, pending, show, runs,
//! cancel) on 200 runs, some of them hot (many processes race for their items). Afterwards
//! every command exited with a code that means what it did, each item was resolved by at
//! most one process (and the one the store names), every cancel stuck, and every run is
//! consistent (see invariants.rs). Bounded: a fixed number of commands, no timing asserted.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{json, Value};

use crate::common::Env;
use crate::invariants::assert_consistent;
use crate::rng::Rng;
use crate::steps::ask;

const RUNS: usize = 200;
const WORKERS: usize = 16;
const OPS_PER_WORKER: usize = 60;
/// Runs most commands aim at, so that processes race for the same items.
const HOT: usize = 12;

/// Codes of an `answer` or `review` whose decision was recorded: the run completed, waits
/// again, or was cancelled while this process drove it.
const RECORDED: [i32; 3] = [0, 75, 6];
/// Codes of one that changed nothing: no such item yet, or it is no longer pending.
const REFUSED: [i32; 2] = [3, 4];

/// A question, then two at once, then a plan, then the end; the last two model calls take
/// a moment, so that other processes meet runs that are being driven.
fn agent(env: &Env) -> String {
    env.write("work/plan.md", "# Plan\n\n1. Ship it.\n");
    env.agent(json!([
        ask("q1", "First?"),
        {"toolCalls": [
            {"id": "q2", "name": "ask_user", "args": {
                "question": "Which?",
                "options": [{"label": "A"}, {"label": "B"}]
            }},
            {"id": "q3", "name": "ask_user", "args": {"question": "Why?"}}
        ]},
        {"delayMs": 10, "text": "Plan written.", "toolCalls": [
            {"id": "plan", "name": "submit_plan", "args": {"path": "plan.md"}}
        ]},
        {"delayMs": 10, "text": "Done."}
    ]))
}

/// One `answer` or `review` process: what it tried and how it ended.
#[derive(Debug)]
struct Attempt {
    run: String,
    call: String,
    who: String,
    code: i32,
}

#[derive(Default)]
struct Log {
    attempts: Vec<Attempt>,
    cancelled: Vec<String>,
    unexpected: Vec<String>,
}

fn resolve_args<'a>(rng: &mut Rng, run: &'a str, call: &'a str, who: &'a str) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    let decision = match call {
        "plan" if rng.chance(70) => vec!["--approve".to_string()],
        "plan" => vec![
            "--reject".into(),
            "--feedback".into(),
            "Smaller steps.".into(),
        ],
        "q2" => vec![rng.pick(&["A", "B"]).to_string()],
        _ => vec![format!("answer by {who}")],
    };
    args.push(if call == "plan" { "review" } else { "answer" }.into());
    args.extend([
        run.to_string(),
        "--tool-call".into(),
        call.into(),
        "--as".into(),
        who.into(),
    ]);
    args.extend(decision);
    args
}

fn worker(env: &Env, runs: &[String], index: usize, log: &Mutex<Log>) {
    let mut rng = Rng::new(index as u64 + 1);
    for op in 0..OPS_PER_WORKER {
        let run = if rng.chance(50) {
            runs[rng.below(HOT)].clone()
        } else {
            rng.pick(runs).clone()
        };
        let who = format!("w{index}-{op}");
        let roll = rng.below(100);
        let (args, allowed): (Vec<String>, &[i32]) = match roll {
            0..=49 => {
                // An informed answer: look at what waits first (a `pending` process).
                let listed = env.run(&["pending", "--run", &run, "-q"]);
                if listed.code != 0 {
                    log.lock()
                        .unwrap()
                        .unexpected
                        .push(format!("pending: {listed:?}"));
                    continue;
                }
                let calls: Vec<String> = listed
                    .stdout
                    .lines()
                    .filter_map(|l| l.split_whitespace().nth(1).map(str::to_string))
                    .collect();
                let call = if calls.is_empty() {
                    rng.pick(&["q1", "q2", "q3", "plan"]).to_string()
                } else {
                    rng.pick(&calls).clone()
                };
                (resolve_args(&mut rng, &run, &call, &who), &[0, 3, 4, 6, 75])
            }
            50..=59 => {
                // A blind answer: the item may not exist yet, or be long resolved.
                let call = rng.pick(&["q1", "q2", "q3", "plan"]).to_string();
                (resolve_args(&mut rng, &run, &call, &who), &[0, 3, 4, 6, 75])
            }
            60..=71 => (
                vec!["-o".into(), "json".into(), "show".into(), run.clone()],
                &[0],
            ),
            72..=79 => (vec!["runs".into(), "--limit".into(), "50".into()], &[0]),
            80..=89 => (vec!["-o".into(), "json".into(), "pending".into()], &[0]),
            90..=94 => (vec!["show".into(), run.clone()], &[0]),
            _ => (vec!["cancel".into(), run.clone()], &[0, 4]),
        };
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = env.run(&argv);
        let mut log = log.lock().unwrap();
        if !allowed.contains(&out.code) {
            log.unexpected.push(format!(
                "`{}` exited {}: {}",
                argv.join(" "),
                out.code,
                out.stderr
            ));
            continue;
        }
        if args[0] == "-o" {
            let lines: Vec<Option<Value>> = out
                .stdout
                .lines()
                .map(|l| serde_json::from_str(l).ok())
                .collect();
            if lines.iter().any(Option::is_none) {
                log.unexpected
                    .push(format!("`{}` printed bad JSON", argv.join(" ")));
            }
            // A run shown while others write to it is one consistent snapshot: every
            // event it points at is there.
            let events = lines.iter().flatten().flat_map(|v| v["events"].as_array());
            if events.flatten().any(|e| !e["payload"].is_object()) {
                log.unexpected.push(format!(
                    "`{}` showed an event without payload",
                    argv.join(" ")
                ));
            }
        }
        match args[0].as_str() {
            "answer" | "review" => log.attempts.push(Attempt {
                run: run.clone(),
                call: args[3].clone(),
                who,
                code: out.code,
            }),
            "cancel" if out.code == 0 => log.cancelled.push(run.clone()),
            _ => {}
        }
    }
}

#[test]
fn sixteen_processes_of_mixed_commands_keep_every_run_consistent() {
    let env = Env::new();
    let agent = agent(&env);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..RUNS / 8 {
                    env.run(&["run", "--agent", &agent, "go"]).assert_code(75);
                }
            });
        }
    });
    let runs: Vec<String> = env
        .rows("SELECT id FROM runs ORDER BY id", &[])
        .into_iter()
        .map(|r| r[0].clone().unwrap())
        .collect();
    assert_eq!(runs.len(), RUNS);

    let log = Mutex::new(Log::default());
    std::thread::scope(|s| {
        for i in 0..WORKERS {
            let (env, runs, log) = (&env, &runs, &log);
            s.spawn(move || worker(env, runs, i, log));
        }
    });
    let log = log.into_inner().unwrap();
    assert!(log.unexpected.is_empty(), "{}", log.unexpected.join("\n"));

    // Exactly once: each item has at most one process that recorded a decision for it,
    // and it is the one the store names; every other attempt changed nothing.
    let mut winners: HashMap<(String, String), Vec<&Attempt>> = HashMap::new();
    for a in &log.attempts {
        assert!(
            RECORDED.contains(&a.code) || REFUSED.contains(&a.code),
            "{a:?}"
        );
        if RECORDED.contains(&a.code) {
            winners
                .entry((a.run.clone(), a.call.clone()))
                .or_default()
                .push(a);
        }
    }
    let resolved: Vec<(String, String, String)> = runs
        .iter()
        .flat_map(|run| {
            let show = env.show(run);
            show["suspensions"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter(|s| s["state"] == "resolved")
                .map(|s| {
                    let text = |k: &str| s[k].as_str().unwrap().to_string();
                    (run.clone(), text("toolCallId"), text("resolvedBy"))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    for (key, ws) in &winners {
        assert_eq!(ws.len(), 1, "item {key:?} recorded by {ws:?}");
    }
    assert_eq!(
        resolved.len(),
        winners.len(),
        "one winner per resolved item"
    );
    for (run, call, by) in &resolved {
        let w = winners.get(&(run.clone(), call.clone()));
        assert_eq!(
            w.map(|w| w[0].who.as_str()),
            Some(by.as_str()),
            "item {run} {call} names {by} as its resolver"
        );
    }
    for run in &log.cancelled {
        assert_eq!(
            env.status(run),
            "cancelled",
            "a cancel that succeeded stuck"
        );
    }
    assert_consistent(&env);

    // The commands did what the test is about: items raced for and runs finished.
    let refused = log
        .attempts
        .iter()
        .filter(|a| REFUSED.contains(&a.code))
        .count();
    let completed = env.count("SELECT count(*) FROM runs WHERE status = 'completed'", &[]);
    eprintln!(
        "stress: {} attempts, {} items resolved, {refused} refused, {} cancels, {completed} runs completed",
        log.attempts.len(),
        resolved.len(),
        log.cancelled.len()
    );
    assert!(resolved.len() >= 60, "{} items resolved", resolved.len());
    assert!(
        refused > 0 && completed > 0,
        "{refused} refused, {completed} completed"
    );
}
