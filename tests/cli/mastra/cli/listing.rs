//! Listing a server's agents and pending items, the commands `--server` refuses, and a
//! server URL from the environment that leaves local commands local.

use super::*;
use crate::assert_shown;

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_agents_and_pending_in_every_shape() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    let out = at(&env, &url, &["agents"]);
    out.assert_code(0);
    assert_eq!(
        out.stdout,
        "planner  (Planner)  tools: ask_user, submit_plan, choose_window\n    Asks questions and submits plans.\nops  (Ops)  tools: deploy\n"
    );
    let lines = at(&env, &url, &["-o", "json", "agents"]).json_lines();
    assert_eq!(lines[1]["id"], "ops");
    assert_eq!(lines[1]["tools"], json!(["deploy"]));

    let run = start(&env, &url, "planner", "[scenario:multi]");
    let custom = start(&env, &url, "planner", "[scenario:custom]");
    let server = format!("{url}/api");
    let item = only(&env, &url, &run);
    let call = id_of(&item);
    let command = format!("mastra-ask --server {server} answer {run} --multi <label>...");
    assert_eq!(item["kind"], "question");
    assert_eq!(item["server"], server);
    assert_eq!(item["agentId"], "planner");
    assert_eq!(item["args"], Value::Null);
    assert_eq!(item["command"], command);
    assert_eq!(item["commands"], json!([command]));
    assert!(item["suspendedAt"].as_str().unwrap().ends_with('Z'));
    let other = only(&env, &url, &custom);
    assert_eq!(other["kind"], "other");
    assert_eq!(
        other["commands"],
        json!([format!(
            "mastra-ask --server {server} answer {custom} --json <value>"
        )])
    );

    let text = at(&env, &url, &["pending", "--agent", "planner"]);
    text.assert_code(0);
    let mine: Vec<&str> = text
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with(&run))
        .take(2)
        .collect();
    assert!(
        mine[0].starts_with(&format!(
            "{run}  {call} question: Which chores should come with the change? [Add tests | Update docs | Bump deps] (choose one or more)  "
        )),
        "{mine:?}"
    );
    assert_eq!(mine[1], format!("    {command}"));
    let quiet = at(&env, &url, &["pending", "-q", "--run", &run[..8]]);
    assert_eq!(quiet.stdout, format!("{run} {call} question\n"));
    let ops = at(&env, &url, &["pending", "-q", "--agent", "ops"]);
    assert!(!ops.stdout.contains(&run));
    // Runs started here are in this store's ledger; a listing alone creates no store.
    let lister = Env::new();
    at(&lister, &url, &["pending", "--agent", "ops"]).assert_code(0);
    assert!(!lister.has_store(), "listing creates no store");

    let nope = at(&env, &url, &["pending", "--agent", "nope"]);
    nope.assert_code(3);
    assert_shown!(lister, nope.stderr, @r#"error: no agent "nope" on http://127.0.0.1:[PORT]/api"#);
}

#[test]
fn server_cli_other_commands_are_a_usage_error_naming_those_that_work() {
    let env = Env::new();
    for args in [
        &["runs"][..],
        &["show", "abcd"],
        &["cancel", "abcd"],
        &["prune", "--older-than", "1d"],
    ] {
        let mut all = vec!["--server", "http://127.0.0.1:9"];
        all.extend_from_slice(args);
        let out = env.cmd(&all).code(2);
        assert_one_line_error(
            &out,
            &format!(
                "{} does not work with --server; on a Mastra server these do: agents, pending, answer, review, approve, decline, run, wait",
                args[0]
            ),
        );
    }
    let out = env.cmd(&["agents"]).code(2);
    assert_shown!(env, out.stderr, @"
        error: agents works on a Mastra server's runs only
        hint: pass --server URL (or set MASTRA_SERVER_URL)
        ");
    let out = env.cmd(&["--server", "ftp://h/api", "pending"]).code(2);
    assert_shown!(env, out.stderr, @"error: bad server URL ftp://h/api: the scheme must be http or https, not ftp");
    let out = env
        .cmd(&["--server", "http://127.0.0.1:9", "pending"])
        .code(1);
    assert_shown!(env, out.stderr, @"
        error: http://127.0.0.1:[PORT]/api: connection refused (the request did not reach the server)
        hint: is the server running, and is the URL right?
        ");
}

/// `MASTRA_SERVER_URL` exported is a default, as a kubectl context is: the commands that
/// exist only locally (`runs`, `show`, ...) work on the local store with a one-line note,
/// and the server commands still go to the server; `--server` on the command line refuses
/// them (above).
#[test]
fn server_cli_server_url_from_the_environment_leaves_local_commands_local() {
    let env = Env::new();
    let ran = env.cmd(&["ask", "Ship it?"]).code(75);
    let run = ran.stdout.trim().to_string();
    let with_url = |args: &[&str]| {
        let mut c = env.command(args);
        c.env("MASTRA_SERVER_URL", "http://127.0.0.1:9");
        env.run_with(c)
    };
    let runs = with_url(&["runs", "-o", "json"]);
    runs.assert_code(0);
    assert_eq!(runs.json_lines()[0]["runId"], run.as_str());
    let show = with_url(&["show", &run]);
    show.assert_code(0);
    assert_eq!(
        show.stderr,
        "note: show works on this store's runs; MASTRA_SERVER_URL is for the commands that work on a Mastra server\n"
    );
    assert_shown!(env, show.stdout, @r#"
        run      [RUN]
        agent    ask
        model    none
        status   suspended
        cwd      [DIR]/work/.
        created  [TIME]
        updated  [TIME]
        usage    0 in, 0 out

        transcript
          user: Ship it?
          assistant calls ask_user ([CALL]): {"question":"Ship it?"}

        items
          [CALL] question: Ship it?
            pending since [TIME]

        events
          [TIME]  start                agent ask
          [TIME]  step-start           step 1
          [TIME]  tool-call            [CALL] ask_user {"question":"Ship it?"}
          [TIME]  step-finish          tool-calls
          [TIME]  tool-call-suspended  [CALL] ask_user waits: question "Ship it?"
        "#);
    with_url(&["completions", "bash"]).assert_code(0);
    let pending = with_url(&["pending"]);
    pending.assert_code(1);
    assert_shown!(env, pending.stderr, @"
        error: http://127.0.0.1:[PORT]/api: connection refused (the request did not reach the server)
        hint: is the server running, and is the URL right?
        ");
}
