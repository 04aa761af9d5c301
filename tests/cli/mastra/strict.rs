//! Against the real Mastra server (SPEC §12, issue 21 item 2, finding L5): a strict `wait`
//! (an empty RUN 2, an unknown id 3, a stale prefix 3; finished told from the ledger, and
//! said when it cannot be known), an answered approval named by a prefix (4, from the
//! ledger), and ledger claims whose sender was killed: released and sent exactly once more
//! when the server still lists the call, never resent when the server consumed it. On the
//! suite's store backend (SQLite, or PostgreSQL with MASTRA_ASK_TEST_POSTGRES).

use super::cli::{at, id_of, listed, on_the_shared_server, only, start};
use super::fixture::Gate;
use crate::assert_shown;
use crate::common::{assert_one_line_error, finish, Env};

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_strict_wait_refuses_empty_unknown_and_stale_ids() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    let server = format!("{url}/api");
    let out = at(&env, &url, &["wait", ""]);
    out.assert_code(2);
    assert_shown!(env, out.stderr, @r#"error: run id "" is too short: give at least 4 characters"#);
    let out = at(
        &env,
        &url,
        &["wait", "00000000-0000-0000-0000-000000000000"],
    );
    out.assert_code(3);
    assert_one_line_error(
        &out,
        &format!("no suspended run 00000000-0000-0000-0000-000000000000 on {server}, and this store's ledger has no answer to it"),
    );

    let run = start(&env, &url, "planner", "[scenario:question]");
    at(&env, &url, &["answer", &run, "done"]).assert_code(0);
    // A prefix names listed runs only: once the run is gone, it is a stale one.
    let out = at(&env, &url, &["wait", &run[..8]]);
    out.assert_code(3);
    assert_eq!(
        out.stderr.lines().nth(1),
        Some("hint: a run that is no longer listed is known by its full id only: pass the whole run id")
    );
    // The full id of a run this store answered: how its last leg ended.
    let out = at(&env, &url, &["wait", &run]);
    out.assert_code(0);
    assert_eq!(
        out.stderr,
        format!("run {run} finished on {server}: its last leg, after {}'s answer from this store, ended with a finish\n", env.me())
    );
    // Another store never answered it: not found.
    let elsewhere = Env::new();
    at(&elsewhere, &url, &["wait", &run]).assert_code(3);
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_strict_wait_says_what_it_cannot_know() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "planner", "[scenario:question]");
    // The waiter has a store of its own; the answer comes from another.
    let watcher = Env::new();
    let gate = Gate::new(fx.port());
    let waiter = watcher.spawn(&["--server", &gate.url(), "wait", &run, "--timeout", "60s"]);
    // Two listings (agents and their runs, twice): it has seen the run suspended.
    watcher.poll("the waiter lists the run", || gate.gets() >= 6);
    at(&env, &url, &["answer", &run, "done"]).assert_code(0);
    let out = finish(waiter);
    out.assert_code(0);
    assert_eq!(
        out.stderr,
        format!("run {run} is no longer suspended on {}/api; whether it finished or failed is not known here (Mastra lists suspended runs only, and the run's last answer was not streamed from this store)\n", gate.url())
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_an_answered_approval_named_by_a_prefix_is_a_conflict() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "ops", "[scenario:approval]");
    let call = id_of(&only(&env, &url, &run));
    at(&env, &url, &["approve", &run]).assert_code(0);
    for id in [&run[..], &run[..8]] {
        let out = at(&env, &url, &["approve", id]);
        out.assert_code(4);
        assert_one_line_error(
            &out,
            &format!("run {run} is no longer suspended on {url}/api: approval {call} was answered by {} from this store", env.me()),
        );
    }
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_a_claim_whose_sender_died_before_the_server_got_it_is_sent_once_more() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "planner", "[scenario:question]");
    let call = id_of(&only(&env, &url, &run));
    let gate = Gate::new(fx.port());
    gate.hold(true);
    let sender = env.spawn(&["--server", &gate.url(), "answer", &run, "first"]);
    env.poll("the answer reaches the gate", || gate.held() == 1);
    // SAFETY: kills our own child, which has not been waited for.
    unsafe { libc::kill(sender.id() as libc::pid_t, libc::SIGKILL) };
    finish(sender);
    gate.hold(false);
    assert_eq!(fx.calls("planner", "resume-stream", &run, Some(&call)), 0);

    let pending = at(&env, &gate.url(), &["pending", "--agent", "planner"]);
    pending.assert_code(0);
    let mine: Vec<&str> = pending
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with(&run))
        .take(3)
        .collect();
    assert!(
        mine[2].starts_with(&format!("    claimed by {} ", env.me()))
            && mine[2].ends_with(
                ", gone); whether it arrived is unknown; the next answer releases it and sends"
            ),
        "{mine:?}"
    );
    let claim = at(
        &env,
        &gate.url(),
        &["-o", "json", "pending", "--agent", "planner"],
    )
    .json_lines()
    .into_iter()
    .find(|i| i["runId"] == run.as_str())
    .unwrap()["claim"]
        .clone();
    assert_eq!(
        (claim["holder"].as_str(), claim["stale"].as_bool()),
        (Some("gone"), Some(true))
    );

    let out = at(&env, &gate.url(), &["answer", &run, "second"]);
    out.assert_code(0);
    assert!(
        out.stderr.starts_with(&format!(
            "warning: released the stale claim on question {call} of run {run}, claimed by {} ",
            env.me()
        )),
        "{}",
        out.stderr
    );
    assert_eq!(
        out.stdout,
        "Received: {\"content\":\"User answered: second\",\"isError\":false}\n"
    );
    assert_eq!(fx.calls("planner", "resume-stream", &run, Some(&call)), 1);
    assert_eq!(
        env.rows(
            "SELECT state, resume_data FROM ledger WHERE run_id = ?1 AND kind <> 'start'",
            &[&run]
        ),
        [[Some("delivered".into()), Some("\"second\"".into())].to_vec()]
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_a_sender_killed_mid_leg_is_never_resent() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "planner", "[scenario:chain] [slow:3000]");
    let call = id_of(&only(&env, &url, &run));
    let sender = env.spawn(&["--server", &url, "answer", &run, "first"]);
    env.poll("the answer reaches the server", || {
        fx.calls("planner", "resume-stream", &run, Some(&call)) == 1
    });
    // SAFETY: kills our own child, which has not been waited for.
    unsafe { libc::kill(sender.id() as libc::pid_t, libc::SIGKILL) };
    finish(sender);
    // Mastra drops a run whose client disconnects mid-leg: nothing waits any more.
    env.poll("the server drops the run", || {
        listed(&env, &url, &run).is_empty()
    });
    let out = at(&env, &url, &["answer", &run, "second"]);
    out.assert_code(4);
    assert_one_line_error(
        &out,
        &format!("run {run} is no longer suspended on {url}/api: question {call} was answered by {} from this store", env.me()),
    );
    assert_eq!(fx.calls("planner", "resume-stream", &run, Some(&call)), 1);
}
