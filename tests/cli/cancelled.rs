//! A cancelled CI job (SPEC §5.3, §5.5): SIGTERM, SIGINT or SIGHUP to a waiter. A one-step
//! run's waiter (`ask`/`plan --wait`) cancels its run (its items close as cancelled, a later
//! answer exits 4 saying the job that waited is gone) and exits 143, 130 or 129; a `run
//! --wait` waiter deregisters and leaves the run suspended for a later answer or waiter.
//! Real processes and real signals, on both backends.

use std::process::Child;

use serde_json::json;

use crate::common::{finish, Env, Out};

fn send(child: &Child, sig: libc::c_int) {
    // SAFETY: kill only sends a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

/// Starts a one-step waiter with `args`, waits until it waits, signals it; its run id and
/// how it ended.
fn signalled(env: &Env, args: &[&str], sig: libc::c_int) -> (String, Out) {
    let waiter = env.spawn(args);
    let run = env.first_pending();
    env.wait_for_waiter(&run);
    send(&waiter, sig);
    (run, finish(waiter))
}

fn waiters(env: &Env, run: &str) -> i64 {
    let sql = format!("SELECT count(*) FROM waiters WHERE {}", env.of_run());
    env.count(&sql, &[run])
}

#[test]
fn a_sigtermed_plan_waiter_cancels_its_run_and_a_later_review_says_the_job_is_gone() {
    let env = Env::new();
    env.write("work/PLAN.md", "# Ship it\n");
    let (run, out) = signalled(&env, &["plan", "PLAN.md", "--wait"], libc::SIGTERM);
    out.assert_code(143);
    assert!(
        out.stderr.ends_with(&format!(
            "error: got SIGTERM: cancelled run {run}; its items closed as cancelled\n"
        )),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
    assert_eq!(env.status(&run), "cancelled");
    assert!(env.run(&["pending", "-q"]).stdout.is_empty());
    assert_eq!(waiters(&env, &run), 0);
    let states: Vec<String> = env.show(&run)["suspensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["state"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(states, ["cancelled"]);

    let later = env.run(&["review", &run, "--approve"]);
    later.assert_code(4);
    assert!(
        later.stderr.contains(&format!(
            "run {run} is cancelled (the job that waited for it was stopped: its waiter, pid "
        )) && later
            .stderr
            .contains(", got SIGTERM): nothing waits for review"),
        "{}",
        later.stderr
    );
}

#[test]
fn a_sighupped_ask_waiter_exits_129_and_a_sigint_one_130() {
    let env = Env::new();
    let ask = [
        "ask", "Ship it?", "--option", "yes", "--option", "no", "--wait",
    ];
    let (first, hup) = signalled(&env, &ask, libc::SIGHUP);
    hup.assert_code(129);
    assert!(
        hup.stderr.contains("error: got SIGHUP: cancelled run"),
        "{}",
        hup.stderr
    );
    assert_eq!(env.status(&first), "cancelled");

    let (second, int) = signalled(&env, &ask, libc::SIGINT);
    int.assert_code(130);
    assert!(
        int.stderr.contains("error: got SIGINT: cancelled run"),
        "{}",
        int.stderr
    );
    assert_eq!(env.status(&second), "cancelled");
    assert!(env.run(&["pending", "-q"]).stdout.is_empty());

    let later = env.run(&["answer", &second, "yes"]);
    later.assert_code(4);
    assert!(later.stderr.contains("got SIGINT"), "{}", later.stderr);
}

#[test]
fn a_json_waiter_ends_with_a_terminated_error_line() {
    let env = Env::new();
    let (_, out) = signalled(
        &env,
        &["-o", "json", "ask", "Ship it?", "--wait"],
        libc::SIGTERM,
    );
    out.assert_code(143);
    let last: serde_json::Value = serde_json::from_str(out.stderr.trim_end()).unwrap();
    assert_eq!(last["error"]["code"], "TERMINATED", "{last}");
    // The outcome line of a waiter that got an answer is never printed.
    assert!(!out.stdout.contains("\"answer\""), "{}", out.stdout);
}

#[test]
fn a_sigtermed_run_waiter_leaves_the_run_suspended_and_an_answer_still_drives_it() {
    let env = Env::new();
    let agent = env.agent(json!([
        {"toolCalls": [{"id": "q1", "name": "ask_user", "args": {"question": "Which version?"}}]},
        {"text": "Released."}
    ]));
    let waiter = env.spawn(&["run", "--agent", &agent, "--wait", "Go"]);
    let run = env.first_pending();
    env.wait_for_waiter(&run);
    send(&waiter, libc::SIGTERM);
    let out = finish(waiter);
    out.assert_code(143);
    assert!(
        out.stderr.contains(&format!(
            "error: got SIGTERM: stopped waiting for run {run}, which stays suspended for a later waiter or resume\n"
        )),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!("wait {run} --drive")),
        "{}",
        out.stderr
    );
    assert_eq!(env.status(&run), "suspended");
    assert_eq!(waiters(&env, &run), 0);
    // No live waiter: the answering process drives the leg itself.
    let answered = env.run(&["answer", &run, "v2"]);
    answered.assert_code(0);
    assert!(answered.stdout.contains("Released."), "{}", answered.stdout);
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn a_run_answered_on_another_host_says_it_waits_for_its_host() {
    let env = Env::new();
    let agent = env.agent(json!([
        {"toolCalls": [{"id": "q1", "name": "ask_user", "args": {"question": "Which version?"}}]},
        {"text": "Released."}
    ]));
    let on = |host: &str, args: &[&str]| {
        let mut c = env.command(args);
        c.env("MASTRA_ASK_HOST_ID", host);
        env.run_with(c)
    };
    on("ci-box", &["run", "--agent", &agent, "Go"]).assert_code(75);
    let run = env.first_pending();
    on("laptop", &["answer", &run, "v2"]).assert_code(0);
    let runs = on("laptop", &["runs"]);
    assert!(
        runs.stdout
            .starts_with(&format!("{run}  answered, waiting for host ci-box ")),
        "{}",
        runs.stdout
    );
    let show = on("laptop", &["show", &run]);
    assert!(
        show.stdout
            .contains("status   answered, waiting for host ci-box\n"),
        "{}",
        show.stdout
    );
    // On its own host, its state is what `resume` continues.
    on("ci-box", &["resume", &run]).assert_code(0);
    assert_eq!(env.status(&run), "completed");
}

/// `wait --drive` only watches a run another job started: a signal stops it and leaves even
/// a one-step run pending for its own waiter or a reviewer.
#[test]
fn a_sigtermed_wait_drive_leaves_a_plan_run_pending() {
    let env = Env::new();
    env.write("work/PLAN.md", "# Ship it\n");
    env.run(&["plan", "PLAN.md"]).assert_code(75);
    let run = env.first_pending();
    let watcher = env.spawn(&["wait", &run, "--drive"]);
    env.wait_for_waiter(&run);
    send(&watcher, libc::SIGTERM);
    let out = finish(watcher);
    out.assert_code(143);
    assert!(
        out.stderr.contains(&format!(
            "error: got SIGTERM: stopped waiting for run {run}, which stays suspended"
        )),
        "{}",
        out.stderr
    );
    assert_eq!(env.status(&run), "suspended");
    assert_eq!(waiters(&env, &run), 0);
    env.run(&["review", &run, "--approve"]).assert_code(0);
    assert_eq!(env.status(&run), "completed");
}
