//! What a leg prints: `-o json` as the server's chunks byte for byte, a failing agent's
//! exit, `wait` until the run is no longer suspended.

use super::*;
use crate::assert_shown;

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_json_output_is_the_servers_chunks_byte_for_byte() {
    let Some(fx) = shared() else { return };
    let env = Env::new();
    let run = start(&env, &fx.url(), "planner", "[scenario:multi]");
    let tap = Tap::new(fx.port());
    let tapped = format!("http://127.0.0.1:{}", tap.port);
    let out = at(
        &env,
        &tapped,
        &[
            "-o",
            "json",
            "answer",
            &run,
            "--multi",
            "Add tests",
            "Bump deps",
        ],
    );
    out.assert_code(0);
    let lines: Vec<String> = out.stdout.lines().map(str::to_string).collect();
    let on_the_wire = tap.data_payloads();
    assert!(on_the_wire.len() > 5, "{on_the_wire:?}");
    assert_eq!(lines, on_the_wire);
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_failing_agent_exits_1_without_a_stack() {
    let Some(fx) = shared() else { return };
    let env = Env::new();
    let out = at(
        &env,
        &fx.url(),
        &["run", "--agent", "planner", "[scenario:boom]"],
    );
    out.assert_code(1);
    assert_shown!(env, out.stderr, @"
        run [RUN]
        error: run [RUN] failed on http://127.0.0.1:[PORT]/api: the scripted model failed on purpose
        ");
    assert!(!out.stderr.contains("    at "), "no stack: {}", out.stderr);
    let json = at(
        &env,
        &fx.url(),
        &["-o", "json", "run", "--agent", "planner", "[scenario:boom]"],
    );
    json.assert_code(1);
    assert!(
        json.stdout.contains("\"stack\""),
        "the chunk is passed on whole"
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_wait_returns_once_the_run_is_no_longer_suspended() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "planner", "[scenario:question]");
    let out = at(&env, &url, &["wait", &run, "--timeout", "1s"]);
    out.assert_code(124);
    let waiter = env.spawn(&["--server", &url, "wait", &run]);
    at(&env, &url, &["answer", &run, "done"]).assert_code(0);
    let out = crate::common::finish(waiter);
    out.assert_code(0);
    assert_eq!(
        out.stderr,
        format!("run {run} finished on {url}/api: its last leg, after {}'s answer from this store, ended with a finish\n", env.me())
    );
}
