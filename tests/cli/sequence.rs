//! Scripts answering a run whose leg another process is advancing (SPEC §5.1, §13): `answer`
//! on a waiter's run right after the previous answer waits for the next question instead of
//! finding nothing pending, and says at once that nothing waits once the run has ended; a
//! one-step run (`ask`, `plan`) ends in the transaction that resolves its item, so a waiter
//! stopped or killed a moment later leaves no run `running`. Real processes, both backends.

use std::process::Child;
use std::time::Duration;

use serde_json::json;

use crate::assert_shown;
use crate::common::{finish, finish_within, Env};

fn send(child: &Child, sig: libc::c_int) {
    // SAFETY: kill only sends a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

/// A waiter (`run --wait`) of an agent that asks two questions one after the other, each
/// leg taking a moment, then ends after `last_ms`; the run's id once it waits.
fn two_questions(env: &Env, last_ms: u64) -> (Child, String) {
    let agent = env.agent(json!([
        {"toolCalls": [{"id": "q1", "name": "ask_user", "args": {"question": "Which?",
            "options": [{"label": "alpha"}, {"label": "beta"}]}}]},
        {"delayMs": 500, "toolCalls": [{"id": "q2", "name": "ask_user", "args": {
            "question": "What else?", "options": [{"label": "Add tests"}, {"label": "Docs"}],
            "selectionMode": "multi_select"}}]},
        {"delayMs": last_ms, "text": "done"}
    ]));
    let waiter = env.spawn(&["run", "--agent", &agent, "--wait", "Go"]);
    let run = env.first_pending();
    env.wait_for_waiter(&run);
    (waiter, run)
}

#[test]
fn a_script_answers_a_waiters_run_question_after_question() {
    let env = Env::new();
    let (waiter, run) = two_questions(&env, 500);
    let out = env.cmd(&["answer", &run, "beta"]).code(0);
    assert_shown!(env, out.stderr, @"answer recorded; the waiting process continues the run");
    // The waiter is still asking the model: this answer waits for its next question.
    let out = env.cmd(&["answer", &run, "--multi", "Add tests"]).code(0);
    assert_shown!(env, out.stderr, @"answer recorded; the waiting process continues the run");
    // The leg after the last answer ends the run: nothing waits, once it has ended.
    let out = env.cmd(&["answer", &run, "alpha"]).code(4);
    assert_shown!(env, out.stderr, @"error: run [RUN] is completed: nothing waits for answer");
    let out = finish_within(waiter, "the waiter never ended", Duration::from_secs(30));
    out.assert_code(0);
    assert_eq!(out.stdout, "done\n");
    let answers: Vec<_> = env.show(&run)["suspensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["resumeData"].clone())
        .collect();
    assert_eq!(answers, [json!("beta"), json!(["Add tests"])]);
}

#[test]
fn a_review_after_an_answer_waits_for_the_plan_the_waiter_asks_for_next() {
    let env = Env::new();
    env.write("work/plan.md", "# Release\n");
    let agent = env.agent(json!([
        {"toolCalls": [{"id": "q1", "name": "ask_user", "args": {"question": "Ready?"}}]},
        {"delayMs": 500, "toolCalls": [{"id": "p1", "name": "submit_plan",
            "args": {"path": "plan.md"}}]},
        {"text": "done"}
    ]));
    let waiter = env.spawn(&["run", "--agent", &agent, "--wait", "Go"]);
    let run = env.first_pending();
    env.wait_for_waiter(&run);
    env.cmd(&["answer", &run, "yes"]).code(0);
    let out = env.cmd(&["review", &run, "--approve"]).code(0);
    assert_shown!(env, out.stderr, @"answer recorded; the waiting process continues the run");
    let out = finish_within(waiter, "the waiter never ended", Duration::from_secs(30));
    out.assert_code(0);
    assert_eq!(out.stdout, "done\n");
}

#[test]
fn the_wait_for_the_next_question_ends_at_its_timeout() {
    let env = Env::new();
    let (waiter, run) = two_questions(&env, 0);
    env.cmd(&["answer", &run, "beta"]).code(0);
    let out = env
        .cmd(&["answer", &run, "--timeout", "0s", "--multi", "Add tests"])
        .code(4);
    assert_shown!(env, out.stderr, @"error: run [RUN] is running: nothing waits for answer");
    env.cmd(&["answer", &run, "--multi", "Add tests"]).code(0);
    finish(waiter).assert_code(0);
    // Without a waiter or a driver nothing advances the run: no wait at all.
    let run = env
        .cmd(&["ask", "Ship?"])
        .code(75)
        .stdout
        .trim()
        .to_string();
    env.cmd(&["answer", &run, "yes"]).code(0);
    let out = env.cmd(&["answer", &run, "again"]).code(4);
    assert_shown!(env, out.stderr, @"error: run [RUN] is completed: nothing waits for answer");
}

#[test]
fn a_one_step_run_ends_with_its_answer_even_when_its_waiter_is_killed() {
    let env = Env::new();
    // The waiter is stopped, so the answer is only recorded for it; then it is killed.
    let waiter = env.spawn(&[
        "ask", "Ship?", "--option", "yes", "--option", "no", "--wait",
    ]);
    let run = env.first_pending();
    env.wait_for_waiter(&run);
    send(&waiter, libc::SIGSTOP);
    let out = env.cmd(&["answer", &run, "yes"]).code(0);
    assert_shown!(env, out.stderr, @"answer recorded; the waiting process continues the run");
    assert_eq!(env.status(&run), "completed");
    send(&waiter, libc::SIGKILL);
    finish(waiter);
    let shown = env.show(&run);
    assert_eq!(
        (&shown["status"], &shown["output"], &shown["finishReason"]),
        (&json!("completed"), &json!(""), &json!("stop"))
    );
    assert_eq!(
        env.event_kinds(&run)[5..],
        ["tool-result", "step-start", "step-finish", "finish"]
    );
    env.cmd(&["wait", &run]).code(0);

    // A stopped plan waiter, continued, tells the outcome as before.
    env.write("work/PLAN.md", "# Ship it\n");
    let waiter = env.spawn(&["plan", "PLAN.md", "--wait"]);
    let run = poll_new_run(&env, &run);
    env.wait_for_waiter(&run);
    send(&waiter, libc::SIGSTOP);
    env.cmd(&["review", &run, "--approve"]).code(0);
    assert_eq!(env.status(&run), "completed");
    send(&waiter, libc::SIGCONT);
    let out = finish(waiter);
    out.assert_code(0);
    assert_eq!(out.stdout, "");
}

/// The run that waits now, other than `old`.
fn poll_new_run(env: &Env, old: &str) -> String {
    crate::common::poll_for("no new run waited", crate::common::PATIENCE, || {
        let out = env.run(&["pending", "-q"]);
        let id = out.stdout.split(' ').next()?.to_string();
        (!id.is_empty() && id != old).then_some(id)
    })
}
