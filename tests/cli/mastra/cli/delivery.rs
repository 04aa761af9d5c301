//! An answer reaches the server once: an answered call, an unknown run, a restarted
//! server, eight processes racing on one item (the ledger), stop signals during a leg.

use super::*;

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_answered_call_is_a_conflict_and_an_unknown_run_not_found() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "planner", "[scenario:chain]");
    let question = id_of(&only(&env, &url, &run));
    at(&env, &url, &["answer", &run, "darkMode"]).assert_code(75);
    let out = at(
        &env,
        &url,
        &["answer", &run, "--tool-call", &question, "again"],
    );
    out.assert_code(4);
    assert_one_line_error(
        &out,
        &format!("question {question} of run {run} was already answered by {} (the server took that answer)", env.me()),
    );
    let plan = id_of(&only(&env, &url, &run));
    at(&env, &url, &["review", &run, "--approve", "--unseen"]).assert_code(0);
    let out = at(&env, &url, &["review", &run, "--approve", "--unseen"]);
    out.assert_code(4);
    assert_one_line_error(
        &out,
        &format!("run {run} is no longer suspended on {url}/api: plan {plan} was answered by {} from this store", env.me()),
    );
    assert_eq!(
        fx.calls("planner", "resume-stream", &run, Some(&question)),
        1
    );
    assert_eq!(fx.calls("planner", "resume-stream", &run, Some(&plan)), 1);

    let unknown = uuid::Uuid::new_v4().to_string();
    let out = at(&env, &url, &["answer", &unknown, "x"]);
    out.assert_code(3);
    assert_one_line_error(&out, &format!("no suspended run {unknown} on {url}/api"));
    let out = at(&env, &url, &["-o", "json", "answer", &unknown, "x"]);
    out.assert_code(3);
    let e: Value = serde_json::from_str(out.stderr.trim()).unwrap();
    assert_eq!(e["error"]["code"], "NOT_FOUND");
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_restart_between_suspension_and_answer() {
    let Some(mut fx) = Fixture::start() else {
        return;
    };
    let env = Env::new();
    let url = fx.url();
    let run = start(&env, &url, "planner", "[scenario:question]");
    fx.restart();
    let out = at(&env, &url, &["answer", &run, "after a restart"]);
    out.assert_code(0);
    assert_eq!(
        out.stdout,
        "Received: {\"content\":\"User answered: after a restart\",\"isError\":false}\n"
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_eight_processes_answer_one_item_and_one_request_reaches_the_server() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "planner", "[scenario:question]");
    let call = id_of(&only(&env, &url, &run));
    let children: Vec<_> = (0..8)
        .map(|i| {
            let who = format!("p{i}");
            env.spawn(&["--server", &url, "answer", &run, "--as", &who, &who])
        })
        .collect();
    let outs: Vec<Out> = children.into_iter().map(crate::common::finish).collect();
    let codes: Vec<i32> = outs.iter().map(|o| o.code).collect();
    assert_eq!(codes.iter().filter(|c| **c == 0).count(), 1, "{codes:?}");
    assert_eq!(codes.iter().filter(|c| **c == 4).count(), 7, "{codes:?}");
    let winner = outs.iter().position(|o| o.code == 0).unwrap();
    for o in outs.iter().filter(|o| o.code == 4) {
        assert!(
            o.stderr.contains(&format!("answered by p{winner}")),
            "{}",
            o.stderr
        );
    }
    assert_eq!(fx.calls("planner", "resume-stream", &run, Some(&call)), 1);
    assert_eq!(
        outs[winner].stdout,
        format!("Received: {{\"content\":\"User answered: p{winner}\",\"isError\":false}}\n")
    );
}

/// Sends `sig` to the answering process once its resume request reached the server, while
/// the scripted model thinks; the leg must finish and the run go on to its plan.
fn stop_during_a_leg(sig: libc::c_int) {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "planner", "[scenario:chain] [slow:3000]");
    let call = id_of(&only(&env, &url, &run));
    let child = env.spawn(&["--server", &url, "answer", &run, "darkMode"]);
    env.poll("the answer never reached the server", || {
        fx.calls("planner", "resume-stream", &run, Some(&call)) > 0
    });
    // SAFETY: signals our own child, which has not been waited for.
    unsafe { libc::kill(child.id() as libc::pid_t, sig) };
    let out = crate::common::finish(child);
    out.assert_code(75);
    assert!(
        out.stderr
            .contains("finishing the leg on the server before stopping"),
        "{}",
        out.stderr
    );
    assert!(out
        .stderr
        .contains("the leg has finished on the server; stopping as asked"));
    let next = only(&env, &url, &run);
    assert_eq!(next["kind"], "plan", "the run went on to its next call");
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_sigint_during_a_leg_lets_it_finish() {
    stop_during_a_leg(libc::SIGINT);
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_sigterm_during_a_leg_lets_it_finish() {
    stop_during_a_leg(libc::SIGTERM);
}
