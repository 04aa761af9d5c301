//! The driver lease: a killed driver is taken over by `resume`, a failed run can be
//! resumed, a live lease is respected, and `cancel` stops a running driver.

use serde_json::json;

use crate::assert_shown;
use crate::common::{assert_one_line_error, finish, Env};
use crate::steps::{ask, say};

/// Waits until the run's status is `status`.
fn wait_for(env: &Env, run: &str, status: &str) {
    env.poll(&format!("run never became {status}"), || {
        env.status(run) == status
    });
}

/// A run that asks a question, then thinks for a long time before finishing.
fn slow_after_answer(env: &Env) -> String {
    let agent = env.agent(json!([
        ask("q", "Go?"),
        {"delayMs": 30000, "text": "finished"}
    ]));
    env.suspended(&agent)
}

#[test]
fn a_killed_driver_is_taken_over_with_one_set_of_results() {
    let env = Env::new();
    let run = slow_after_answer(&env);
    let mut driver = env.spawn(&["answer", &run, "yes"]);
    wait_for(&env, &run, "running");
    driver.kill().unwrap(); // SIGKILL, during the leg (its model thinks for 30 s)
    driver.wait().unwrap();
    assert_eq!(env.status(&run), "running");

    // Make the model quick now, as a restarted provider would be.
    env.write(
        "work/script.json",
        &json!({"steps": [
            ask("q", "Go?"),
            say("finished")
        ]})
        .to_string(),
    );
    let out = env.cmd(&["resume", &run]).code(0);
    assert_eq!(out.stdout, "finished\n");
    assert_eq!(
        env.tool_results(&run).len(),
        1,
        "exactly one set of tool results"
    );
    assert_eq!(
        env.event_kinds(&run),
        [
            "start",
            "step-start",
            "tool-call",
            "step-finish",
            "tool-call-suspended",
            "tool-result",
            "step-start",
            "text-delta",
            "step-finish",
            "finish"
        ]
    );
}

#[test]
fn a_live_lease_makes_resume_exit_4() {
    let env = Env::new();
    let run = slow_after_answer(&env);
    let mut driver = env.spawn(&["answer", &run, "yes"]);
    wait_for(&env, &run, "running");
    let before = env.dump();
    let out = env.cmd(&["resume", &run]).code(4);
    assert_one_line_error(&out, "is being driven by process");
    assert_eq!(env.dump(), before);
    driver.kill().unwrap();
    driver.wait().unwrap();
}

#[test]
fn lease_rules_expired_and_other_host() {
    let env = Env::new();
    let run = slow_after_answer(&env);
    let mut driver = env.spawn(&["answer", &run, "yes"]);
    wait_for(&env, &run, "running");
    driver.kill().unwrap();
    driver.wait().unwrap();
    env.write(
        "work/script.json",
        &json!({"steps": [
            ask("q", "Go?"),
            say("finished")
        ]})
        .to_string(),
    );
    let set = |host: &str, pid: u32, expires: i64| {
        env.exec(
            &format!("UPDATE runs SET lease_host = ?2, lease_pid = {pid}, lease_expires_at = {expires} WHERE id = ?1"),
            &[&run, host],
        );
    };
    let far = i64::MAX / 2;
    // Another host's live lease: busy.
    set("some-other-host", 1, far);
    let out = env.cmd(&["resume", &run]).code(4);
    assert_one_line_error(&out, "is being driven by process 1 on some-other-host");
    // A lease held by a live process on this host: busy.
    set(&hostname(), std::process::id(), far);
    env.run(&["resume", &run]).assert_code(4);
    // An expired lease, even of a live process: taken over.
    set(&hostname(), std::process::id(), 0);
    env.run(&["resume", &run]).assert_code(0);
    assert_eq!(env.status(&run), "completed");
}

fn hostname() -> String {
    let out = std::process::Command::new("hostname").output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn a_failed_run_can_be_resumed() {
    let env = Env::new();
    let agent =
        env.agent(json!([{"toolCalls": [{"name": "ask_user", "args": {"question": "Name?"}}]}]));
    let (_, run) = env.start(&agent, &[]);
    env.run(&["answer", &run, "Ada"]).assert_code(1);
    assert_eq!(env.status(&run), "failed");
    env.write(
        "work/script.json",
        &json!({"steps": [
            {"toolCalls": [{"name": "ask_user", "args": {"question": "Name?"}}]},
            say("Hello Ada")
        ]})
        .to_string(),
    );
    let out = env.cmd(&["resume", &run]).code(0);
    assert_eq!(out.stdout, "Hello Ada\n");
    assert_eq!(env.tool_results(&run).len(), 1);
    let errors = env.count("SELECT count(*) FROM events WHERE kind = 'error'", &[]);
    assert_eq!(errors, 1, "the failure stays in the history");
}

#[test]
fn cancel_stops_a_running_driver_at_its_next_commit() {
    let env = Env::new();
    let agent = env.agent(json!([
        ask("q", "Go?"),
        {"delayMs": 1500, "text": "finished"}
    ]));
    let (_, run) = env.start(&agent, &[]);
    let driver = env.spawn(&["answer", &run, "yes"]);
    wait_for(&env, &run, "running");
    let out = env.cmd(&["cancel", &run]).code(0);
    assert_eq!(
        out.stdout,
        format!("cancelled run {run} (it was running)\n")
    );
    let out = finish(driver);
    out.assert_code(6);
    assert_shown!(env, out.stderr, @"run [RUN] was cancelled");
    assert_eq!(env.status(&run), "cancelled");
    let assistant = env.count(
        "SELECT count(*) FROM messages WHERE body LIKE '%finished%'",
        &[],
    );
    assert_eq!(assistant, 0);
}

#[test]
fn cancel_closes_pending_items() {
    let env = Env::new();
    let agent = env.agent(json!([ask("q", "Go?")]));
    let (_, run) = env.start(&agent, &[]);
    env.run(&["cancel", &run[..8]]).assert_code(0);
    assert_eq!(env.status(&run), "cancelled");
    assert_eq!(env.run(&["pending"]).stdout, "");
    let out = env
        .cmd(&["answer", &run, "--tool-call", "q", "late"])
        .code(4);
    assert_shown!(env, out.stderr, @"error: tool call q is not pending: it was cancelled");
}

#[test]
fn a_driver_renews_its_lease_while_the_model_thinks() {
    let env = Env::new();
    let agent = env.agent(json!([
        ask("q", "Go?"),
        {"delayMs": 4500, "text": "finished"}
    ]));
    let (_, run) = env.start(&agent, &[]);
    let driver = env.spawn(&["answer", &run, "yes"]);
    wait_for(&env, &run, "running");
    let expiry = || env.count("SELECT lease_expires_at FROM runs WHERE id = ?1", &[&run]);
    let first = expiry();
    env.poll("the driver never renewed its lease", || expiry() > first);
    finish(driver).assert_code(0);
    let lease = env.value("SELECT lease_token FROM runs WHERE id = ?1", &[&run]);
    assert_eq!(lease, None, "a finished run holds no lease");
}

/// Hosts are told apart by machine identity, never by name (SPEC §4): a driver killed on
/// "another container" with the same hostname keeps its lease until it expires, while on its
/// own host its dead process frees the lease at once.
#[test]
fn a_dead_driver_on_another_host_keeps_its_lease_until_it_expires() {
    let env = Env::new();
    let on = |host: &str, args: &[&str]| {
        let mut c = env.command(args);
        c.env("MASTRA_ASK_HOST_ID", host);
        c
    };
    let agent = env.agent(json!([
        ask("q", "Go?"),
        {"delayMs": 30000, "text": "finished"}
    ]));
    env.run_with(on("container-a", &["run", "--agent", &agent, "go"]))
        .assert_code(75);
    let run = env.latest_run().unwrap();
    let mut answer = on("container-a", &["answer", &run, "yes"]);
    answer
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut driver = answer.spawn().unwrap();
    wait_for(&env, &run, "running");
    driver.kill().unwrap();
    driver.wait().unwrap();

    // Another container with the same hostname: neither the lease nor the run is its own.
    let out = env.run_with(on("container-b", &["resume", &run]));
    out.assert_code(4);
    assert_eq!(env.status(&run), "running");

    env.write(
        "work/script.json",
        &json!({"steps": [
            ask("q", "Go?"),
            say("finished")
        ]})
        .to_string(),
    );
    // Its own host sees the driver's process gone and takes over at once.
    let out = env.run_with(on("container-a", &["resume", &run]));
    out.assert_code(0);
    assert_eq!(out.stdout, "finished\n");
}

/// Only a process on the run's own host drives it (SPEC §5.1): an answer from elsewhere (a
/// reviewer's laptop on a shared PostgreSQL store) is recorded there and says where the run
/// continues; `resume` elsewhere is refused; on the run's host it drives.
#[test]
fn an_answer_from_another_host_is_recorded_and_driven_by_the_runs_host() {
    let env = Env::new();
    let on = |host: &str, args: &[&str]| {
        let mut c = env.command(args);
        c.env("MASTRA_ASK_HOST_ID", host);
        c
    };
    let agent = env.agent(json!([ask("q", "Go?"), say("finished on the runner")]));
    env.run_with(on("ci-runner", &["run", "--agent", &agent, "go"]))
        .assert_code(75);
    let run = env.latest_run().unwrap();

    let out = env.run_with(on("laptop", &["answer", &run, "yes"]));
    out.assert_code(0);
    assert_eq!(out.stdout, "");
    assert_shown!(env, out.stderr, @"answer recorded; run [RUN] continues on the host that started it: its waiting process, or `mastra-ask resume [RUN]` run there");
    assert_eq!(env.status(&run), "running", "recorded, not driven");
    assert_eq!(
        env.tool_results(&run).len(),
        1,
        "the answer's result is stored"
    );

    let out = env.run_with(on("laptop", &["resume", &run]));
    out.assert_code(4);
    assert_shown!(env, out.stderr, @"
        error: run [RUN] belongs to another host (host id ci-runner): only a process there may drive it
        hint: run this command on the machine that started the run
        ");
    // A watcher there only watches: it never drives the run.
    let out = env.run_with(on(
        "laptop",
        &["wait", &run, "--drive", "--timeout", "300ms"],
    ));
    out.assert_code(124);
    assert_shown!(env, out.stderr, @"
        warning: run [RUN] belongs to another host: waiting without driving it
        error: timed out waiting for run [RUN]
        ");
    assert_eq!(env.status(&run), "running");

    let out = env.run_with(on("ci-runner", &["resume", &run]));
    out.assert_code(0);
    assert_eq!(out.stdout, "finished on the runner\n");
}
