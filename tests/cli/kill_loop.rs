//! The kill loop: 60 runs, each with one of its three legs (`run`, `answer`, `review`)
//! killed with SIGKILL at a random point: while the process starts, opens the store,
//! waits for the model, or commits. Every kill is followed by what a person would do:
//! `resume` when the run was left running (it takes over at once: the killed pid is
//! gone), the answer again when it was never recorded, a new `run` when none was created.
//! Every run then completes with each tool result exactly once and gap-free sequences.

use std::thread::sleep;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::Env;
use crate::invariants::assert_consistent;
use crate::rng::Rng;

const ITERATIONS: usize = 60;

/// Three legs of several model calls each (an invalid question and an unknown tool are
/// answered at once, so a leg commits several times), every call taking a moment.
fn agent(env: &Env) -> String {
    env.write("work/plan.md", "# Plan\n\n1. Ship it.\n");
    env.agent(json!([
        {"delayMs": 5, "toolCalls": [{"name": "ask_user", "args": {"question": ""}}]},
        {"delayMs": 5, "toolCalls": [{"name": "nope", "args": {}}]},
        {"delayMs": 5, "toolCalls": [{"id": "q", "name": "ask_user", "args": {"question": "Go?"}}]},
        {"delayMs": 5, "toolCalls": [{"name": "ask_user", "args": {"question": 7}}]},
        {"delayMs": 5, "text": "Plan written.", "toolCalls": [
            {"id": "p", "name": "submit_plan", "args": {"path": "plan.md"}}
        ]},
        {"delayMs": 5, "text": "Done."}
    ]))
}

fn status(env: &Env, run: &str) -> String {
    env.value("SELECT status FROM runs WHERE id = ?1", &[run])
        .unwrap_or_else(|| "none".into())
}

/// A random delay up to `max`.
fn random_delay(rng: &mut Rng, max: Duration) -> Duration {
    Duration::from_micros(rng.below(max.as_micros().max(1) as usize) as u64)
}

/// Starts `args`, kills it after a random delay within `window` (how long the command
/// takes when nothing kills it) — measured from its start, or from the moment its run is
/// seen running (mid-leg) — and reaps it.
fn kill_somewhere(env: &Env, rng: &mut Rng, args: &[&str], run: Option<&str>, window: Duration) {
    let mut child = env.spawn(args);
    if let (Some(run), true) = (run, rng.chance(75)) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while status(env, run) != "running" && Instant::now() < deadline {
            if child.try_wait().ok().flatten().is_some() {
                break;
            }
            sleep(Duration::from_micros(200));
        }
        // Inside the leg: its model calls take 5 ms each, so a kill within a few ms of the
        // run being seen running lands mid-leg however slow the machine is.
        sleep(random_delay(rng, Duration::from_millis(4).min(window / 2)));
    } else {
        sleep(random_delay(rng, window));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// How long each leg takes when nothing kills it: `run`, `answer`, `review`.
fn windows(env: &Env, agent: &str) -> [Duration; 3] {
    let timed = |args: &[&str], code: i32| {
        let start = Instant::now();
        env.run(args).assert_code(code);
        start.elapsed()
    };
    let mut w = [Duration::ZERO; 3];
    for _ in 0..3 {
        w[0] = w[0].max(timed(&["run", "--agent", agent, "go"], 75));
        let id = env.latest_run().unwrap();
        w[1] = w[1].max(timed(&["answer", &id, "yes"], 75));
        w[2] = w[2].max(timed(&["review", &id, "--approve"], 0));
    }
    w
}

/// Takes the run to its end as a person would; returns how many `resume`s that took.
fn finish(env: &Env, agent: &str, run: &mut Option<String>, before: &[String]) -> usize {
    let mut resumes = 0;
    for _ in 0..10 {
        let Some(id) = run.clone().or_else(|| new_run(env, before)) else {
            env.run(&["run", "--agent", agent, "go"]).assert_code(75);
            continue;
        };
        *run = Some(id.clone());
        match status(env, &id).as_str() {
            "running" => {
                let out = env.run(&["resume", &id]);
                assert!([0, 75].contains(&out.code), "resume: {out:?}");
                resumes += 1;
            }
            "suspended" => {
                let items = env.run(&["pending", "--run", &id, "-q"]).stdout;
                let out = if items.contains(" q") {
                    env.run(&["answer", &id, "yes"])
                } else {
                    env.run(&["review", &id, "--approve"])
                };
                assert!([0, 75].contains(&out.code), "{out:?}");
            }
            "completed" => return resumes,
            other => panic!("run {id} is {other}"),
        }
    }
    panic!("run {run:?} did not complete");
}

fn new_run(env: &Env, before: &[String]) -> Option<String> {
    env.latest_run().filter(|id| !before.contains(id))
}

#[test]
fn runs_killed_anywhere_in_a_leg_complete_with_every_result_once() {
    let env = Env::new();
    let agent = agent(&env);
    let mut rng = Rng::new(99);
    let window = windows(&env, &agent);
    let mut resumes = 0;
    let mut runs: Vec<String> = env
        .rows("SELECT id FROM runs", &[])
        .into_iter()
        .map(|r| r[0].clone().unwrap())
        .collect();
    for i in 0..ITERATIONS {
        let leg = i % 3;
        let mut run = None;
        if leg == 0 {
            let args = ["run", "--agent", &agent, "go"];
            kill_somewhere(&env, &mut rng, &args, None, window[0]);
        } else {
            env.run(&["run", "--agent", &agent, "go"]).assert_code(75);
            let id = env.latest_run().unwrap();
            if leg == 2 {
                env.run(&["answer", &id, "yes"]).assert_code(75);
            }
            let args = if leg == 1 {
                vec!["answer", &id, "yes"]
            } else {
                vec!["review", &id, "--approve"]
            };
            kill_somewhere(&env, &mut rng, &args, Some(&id), window[leg]);
            run = Some(id);
        }
        resumes += finish(&env, &agent, &mut run, &runs);
        runs.push(run.unwrap());
    }

    for run in &runs {
        assert_eq!(env.status(run), "completed");
        let messages = env.messages(run);
        let roles: Vec<&str> = messages
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(
            roles,
            [
                "user",
                "assistant",
                "tool",
                "assistant",
                "tool",
                "assistant",
                "tool",
                "assistant",
                "tool",
                "assistant",
                "tool",
                "assistant"
            ],
            "run {run}: every step's response and result exactly once"
        );
        let kinds = env.event_kinds(run);
        let count = |k: &str| kinds.iter().filter(|e| *e == k).count();
        assert_eq!(count("step-start"), 6, "run {run}: {kinds:?}");
        assert_eq!(count("tool-result") + count("tool-error"), 5, "run {run}");
        assert_eq!(count("finish"), 1, "run {run}");
    }
    assert_consistent(&env);
    // Most kills landed inside a leg, which `resume` had to take over.
    assert!(
        resumes >= ITERATIONS / 4,
        "only {resumes} kills needed a resume"
    );
    eprintln!("kill loop: {ITERATIONS} kills, {resumes} taken over by resume");
}
