//! The command line against the real Mastra server (SPEC §12), through the binary: listing,
//! answering each kind of item by its route, plans read under --plan-root, refusals that send
//! nothing, the ledger's exactly-once among processes sharing a store (on the suite's
//! backend), stop signals that do not drop a leg, and `-o json` passing the server's chunks
//! through byte for byte.

use serde_json::{json, Value};

use super::fixture::{shared, Fixture, Tap};
use crate::common::{assert_one_line_error, Env, Out};
use crate::pty::{Pty, DOWN, ENTER, ESC};

/// The shared server, a fresh environment, and the server's URL; None when skipped.
pub(super) fn on_the_shared_server() -> Option<(&'static Fixture, Env, String)> {
    let fx = shared()?;
    Some((fx, Env::new(), fx.url()))
}

/// `mastra-ask --server URL ARGS...` in the test's environment.
pub(super) fn at(env: &Env, url: &str, args: &[&str]) -> Out {
    let mut all = vec!["--server", url];
    all.extend_from_slice(args);
    env.run(&all)
}

/// Starts a run of `agent` with `tags` in its prompt (`run -q`): its id.
#[track_caller]
pub(super) fn start(env: &Env, url: &str, agent: &str, tags: &str) -> String {
    let out = at(env, url, &["run", "-q", "--agent", agent, tags]);
    out.assert_code(75);
    let id = out.stdout.trim().to_string();
    assert_eq!(uuid::Uuid::parse_str(&id).unwrap().get_version_num(), 4);
    id
}

/// `pending -o json` lines of one run.
pub(super) fn listed(env: &Env, url: &str, run: &str) -> Vec<Value> {
    let out = at(env, url, &["-o", "json", "pending"]);
    out.assert_code(0);
    out.json_lines()
        .into_iter()
        .filter(|i| i["runId"] == run)
        .collect()
}

/// The only listed item of a run.
#[track_caller]
pub(super) fn only(env: &Env, url: &str, run: &str) -> Value {
    let items = listed(env, url, run);
    assert_eq!(items.len(), 1, "{items:?}");
    items[0].clone()
}

pub(super) fn id_of(item: &Value) -> String {
    item["toolCallId"].as_str().unwrap().to_string()
}

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
    assert_one_line_error(&nope, "no agent \"nope\" on");
}

#[test]
fn mastra_cli_other_commands_are_a_usage_error_naming_those_that_work() {
    let env = Env::new();
    for args in [
        &["runs"][..],
        &["show", "abcd"],
        &["cancel", "abcd"],
        &["prune", "--older-than", "1d"],
    ] {
        let mut all = vec!["--server", "http://127.0.0.1:9"];
        all.extend_from_slice(args);
        let out = env.run(&all);
        out.assert_code(2);
        assert_one_line_error(
            &out,
            &format!(
                "{} does not work with --server; on a Mastra server these do: agents, pending, answer, review, approve, decline, run, wait",
                args[0]
            ),
        );
    }
    let out = env.run(&["agents"]);
    out.assert_code(2);
    assert_one_line_error(&out, "agents works on a Mastra server's runs only");
    let out = env.run(&["--server", "ftp://h/api", "pending"]);
    out.assert_code(2);
    assert_one_line_error(&out, "bad server URL ftp://h/api");
    let out = env.run(&["--server", "http://127.0.0.1:9", "pending"]);
    out.assert_code(1);
    assert_one_line_error(&out, "connection refused");
}

/// `MASTRA_SERVER_URL` exported is a default, as a kubectl context is: the commands that
/// exist only locally (`runs`, `show`, ...) work on the local store with a one-line note,
/// and the server commands still go to the server; `--server` on the command line refuses
/// them (above).
#[test]
fn mastra_cli_server_url_from_the_environment_leaves_local_commands_local() {
    let env = Env::new();
    let ran = env.run(&["ask", "Ship it?"]);
    ran.assert_code(75);
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
    assert!(show.stdout.contains(&run), "{}", show.stdout);
    with_url(&["completions", "bash"]).assert_code(0);
    let pending = with_url(&["pending"]);
    pending.assert_code(1);
    assert_one_line_error(&pending, "connection refused");
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_free_text_question_answered() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    let out = at(
        &env,
        &url,
        &["run", "--agent", "planner", "[scenario:question]"],
    );
    out.assert_code(75);
    let run = out
        .stderr
        .lines()
        .next()
        .unwrap()
        .strip_prefix("run ")
        .unwrap()
        .to_string();
    assert!(
        out.stderr
            .contains(&format!("run {run} is waiting for input (1 pending):")),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains(&format!("answer {run} <answer>")));
    let out = at(&env, &url, &["answer", &run[..8], "darkMode"]);
    out.assert_code(0);
    assert_eq!(
        out.stdout,
        "Received: {\"content\":\"User answered: darkMode\",\"isError\":false}\n"
    );
    assert!(listed(&env, &url, &run).is_empty());
    let entry = env.rows(
        "SELECT server, kind, state, resume_data, resolved_by, resolved_via, outcome FROM ledger WHERE run_id = ?1 AND kind <> 'start'",
        &[&run],
    );
    assert_eq!(
        entry,
        [[
            Some(format!("{url}/api")),
            Some("question".into()),
            Some("delivered".into()),
            Some("\"darkMode\"".into()),
            Some("tester".into()),
            Some("flag".into()),
            Some("finished".into())
        ]
        .to_vec()]
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_multi_select_answered() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "planner", "[scenario:multi]");
    let out = at(
        &env,
        &url,
        &["answer", &run, "--multi", "Add tests", "Update docs"],
    );
    out.assert_code(0);
    assert_eq!(
        out.stdout,
        "Received: {\"content\":\"User answered: Add tests, Update docs\",\"isError\":false}\n"
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_plan_rejected_with_feedback_then_approved_carries_the_plan() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let rel = format!("plans/{}.md", uuid::Uuid::new_v4());
    let root = env.path("repo");
    env.write(&format!("repo/{rel}"), "# Dark mode\n\n1. Add a setting.\n");
    let run = start(
        &env,
        &url,
        "planner",
        &format!("[scenario:plan] [plan:{rel}]"),
    );
    let root = root.to_str().unwrap();

    // Approving a plan nobody can read is refused, and sends nothing.
    let out = at(&env, &url, &["review", &run, "--approve"]);
    out.assert_code(2);
    assert_one_line_error(&out, &format!("cannot show the plan: {rel} does not exist"));
    let first = only(&env, &url, &run);
    assert_eq!(
        fx.calls("planner", "resume-stream", &run, Some(&id_of(&first))),
        0
    );

    let out = at(
        &env,
        &url,
        &[
            "review",
            &run,
            "--plan-root",
            root,
            "--reject",
            "--feedback",
            "More tests, please.",
        ],
    );
    out.assert_code(75);
    assert!(
        out.stderr.contains(&format!("review {run} --approve")),
        "{}",
        out.stderr
    );
    let second = only(&env, &url, &run);
    assert_ne!(
        id_of(&second),
        id_of(&first),
        "a revised plan is a new call"
    );

    env.write(
        &format!("repo/{rel}"),
        "# Dark mode\n\n1. Add a setting.\n2. Test it.\n",
    );
    let out = at(
        &env,
        &url,
        &[
            "-o",
            "json",
            "review",
            &run,
            "--plan-root",
            root,
            "--approve",
        ],
    );
    out.assert_code(0);
    let chunks = out.json_lines();
    let result = &chunks[0]["payload"]["result"];
    assert_eq!(
        result["submittedPlan"],
        json!({"title": "Dark mode", "path": rel, "plan": "1. Add a setting.\n2. Test it."})
    );
    let sent = env.value(
        "SELECT resume_data FROM ledger WHERE run_id = ?1 AND tool_call_id = ?2",
        &[&run, &id_of(&second)],
    );
    // The ledger keeps no plan text (SPEC §12).
    assert_eq!(
        serde_json::from_str::<Value>(&sent.unwrap()).unwrap(),
        json!({"action": "approved", "path": rel})
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_a_plan_that_cannot_be_read_can_be_rejected_or_approved_from_a_file_or_unseen() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(
        &env,
        &url,
        "planner",
        "[scenario:plan] [plan:../outside.md]",
    );
    env.write("outside.md", "# Outside\n\nnot to be read\n");
    // A rejection reads nothing and sends the decision only.
    let out = at(&env, &url, &["review", &run, "--reject"]);
    out.assert_code(75);
    assert!(!out.stderr.contains("could not be read"), "{}", out.stderr);
    let file = env.write("given.md", "# Given\n\nfrom a file\n");
    let out = at(
        &env,
        &url,
        &[
            "-o",
            "json",
            "review",
            &run,
            "--plan-file",
            file.to_str().unwrap(),
            "--approve",
        ],
    );
    out.assert_code(0);
    assert_eq!(
        out.json_lines()[0]["payload"]["result"]["submittedPlan"],
        json!({"title": "Given", "path": "../outside.md", "plan": "from a file"})
    );
    let run = start(&env, &url, "planner", "[scenario:plan] [plan:nowhere.md]");
    at(&env, &url, &["review", &run, "--approve", "--unseen"]).assert_code(0);
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_custom_suspension_takes_json() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "planner", "[scenario:custom]");
    let out = at(&env, &url, &["answer", &run, "tonight"]);
    out.assert_code(2);
    assert_one_line_error(&out, "is an `other` item");
    let out = at(
        &env,
        &url,
        &["answer", &run, "--json", r#"{"window":"tonight 22:00"}"#],
    );
    out.assert_code(0);
    assert_eq!(
        out.stdout,
        "Received: {\"service\":\"billing\",\"window\":\"tonight 22:00\"}\n"
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_bad_answers_are_refused_here_and_nothing_is_sent() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let multi = start(&env, &url, "planner", "[scenario:multi]");
    let plan = start(&env, &url, "planner", "[scenario:plan]");
    let question = start(&env, &url, "planner", "[scenario:question]");
    for (args, code, needle) in [
        (
            vec!["answer", &multi, "--multi", "Add tests", "Nope"],
            2,
            "\"Nope\" is not one of the options",
        ),
        (vec!["answer", &multi, "--multi"], 2, "a value is required"),
        (
            vec!["answer", &multi, "--json", "{\"a\":1}"],
            2,
            "option labels",
        ),
        (vec!["answer", &question, ""], 2, "empty"),
        (
            vec!["answer", &question, "--multi", "a"],
            2,
            "--multi is for multi-select questions",
        ),
        (
            vec!["answer", &plan, "yes"],
            2,
            "is a plan, not a question or an `other`",
        ),
        (
            vec!["review", &question, "--approve"],
            2,
            "is a question, not a plan",
        ),
        (
            vec!["review", &plan, "--json", "{\"action\":\"maybe\"}"],
            2,
            "action must be",
        ),
        (vec!["answer", &question], 2, "no answer given"),
        (
            vec!["answer", &question, "--no-resume", "x"],
            2,
            "--no-resume does not work with --server",
        ),
    ] {
        let out = at(&env, &url, &args);
        out.assert_code(code);
        assert!(out.stderr.contains(needle), "{args:?}: {}", out.stderr);
    }
    for run in [&multi, &plan, &question] {
        let item = only(&env, &url, run);
        assert_eq!(
            fx.calls("planner", "resume-stream", run, Some(&id_of(&item))),
            0,
            "{run}"
        );
    }
    assert_eq!(
        env.rows("SELECT kind FROM ledger WHERE kind <> 'start'", &[]),
        Vec::<Vec<Option<String>>>::new(),
        "nothing recorded either"
    );
}

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
        &format!("question {question} of run {run} was already answered by tester (the server took that answer)"),
    );
    let plan = id_of(&only(&env, &url, &run));
    at(&env, &url, &["review", &run, "--approve", "--unseen"]).assert_code(0);
    let out = at(&env, &url, &["review", &run, "--approve", "--unseen"]);
    out.assert_code(4);
    assert_one_line_error(
        &out,
        &format!("run {run} is no longer suspended on {url}/api: plan {plan} was answered by tester from this store"),
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
    assert!(
        out.stderr.contains("failed on")
            && out.stderr.contains("the scripted model failed on purpose"),
        "{}",
        out.stderr
    );
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
        format!("run {run} finished on {url}/api: its last leg, after tester's answer from this store, ended with a finish\n")
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_at_a_terminal_run_asks_each_item_in_turn() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    env.write(
        "work/plans/chain.md",
        "# Chain plan\n\n1. Name it.\n2. Ship it.\n",
    );
    let mut pty = Pty::spawn(
        &env,
        &[
            "--server",
            &url,
            "run",
            "--agent",
            "planner",
            "[scenario:chain] [plan:plans/chain.md]",
        ],
        &[],
    );
    pty.expect("Which name?");
    pty.send("darkMode\r");
    pty.expect("# Chain plan");
    pty.expect("2. Ship it.");
    pty.expect("> Approve");
    pty.send(ENTER);
    pty.expect("Received: ");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    // The model saw the plan exactly as shown (the JSON in its text escapes the newline).
    assert!(
        text.contains(r#""submittedPlan":{"title":"Chain plan","path":"plans/chain.md","plan":"1. Name it.\n2. Ship it.""#),
        "{text}"
    );
    assert!(!text.contains("is waiting for input"), "{text}");
    let vias = env.rows(
        "SELECT kind, resolved_via FROM ledger WHERE kind <> 'start' ORDER BY created_at",
        &[],
    );
    assert_eq!(
        vias,
        [
            [Some("question".to_string()), Some("prompt".to_string())].to_vec(),
            [Some("plan".to_string()), Some("prompt".to_string())].to_vec()
        ]
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_leaving_a_prompt_sends_nothing_for_that_item() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "planner", "[scenario:chain] [plan:plans/c.md]");
    env.write("work/plans/c.md", "# C\n\nbody\n");
    let mut pty = Pty::spawn(&env, &["--server", &url, "answer", &run], &[]);
    pty.expect("Which name?");
    pty.send("x\r");
    pty.expect("> Approve");
    pty.send(ESC);
    let (code, text) = pty.finish();
    assert_eq!(code, 130, "{text}");
    assert!(text.contains("recorded earlier: "), "{text}");
    assert!(text.contains(&format!("review {run}")), "{text}");
    let plan = only(&env, &url, &run);
    assert_eq!(plan["kind"], "plan");
    assert_eq!(
        fx.calls("planner", "resume-stream", &run, Some(&id_of(&plan))),
        0
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_without_a_run_a_person_picks_among_the_servers_questions() {
    let Some(fx) = Fixture::start() else { return };
    let env = Env::new();
    let url = fx.url();
    let first = start(&env, &url, "planner", "[scenario:question] first");
    let second = start(&env, &url, "planner", "[scenario:question] second");
    start(&env, &url, "ops", "[scenario:approval]");
    let mut pty = Pty::spawn(&env, &["--server", &url, "answer"], &[]);
    pty.expect("Which question?");
    pty.expect(&first);
    pty.expect(&second);
    pty.send(&format!("{DOWN}{ENTER}"));
    pty.expect("What should the new setting be called?");
    pty.send("picked\r");
    pty.expect("User answered: picked");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    assert!(listed(&env, &url, &second).is_empty());
    assert_eq!(listed(&env, &url, &first).len(), 1);
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_an_approval_approved_and_another_declined_with_a_reason() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let yes = start(&env, &url, "ops", "[scenario:approval] yes");
    let no = start(&env, &url, "ops", "[scenario:approval] no");
    let yes_call = id_of(&only(&env, &url, &yes));
    let no_call = id_of(&only(&env, &url, &no));
    let item = only(&env, &url, &yes);
    assert_eq!(item["kind"], "approval");
    assert_eq!(item["args"], json!({"target": "prod-db"}));

    // The wrong verb for the item, or a --json that disagrees with the verb: nothing sent.
    let out = at(&env, &url, &["answer", &yes, "yes"]);
    out.assert_code(2);
    assert_one_line_error(&out, "is an approval, not a question or an `other`");
    let out = at(
        &env,
        &url,
        &["approve", &yes, "--json", r#"{"approved":false}"#],
    );
    out.assert_code(2);

    let out = at(&env, &url, &["approve", &yes]);
    out.assert_code(0);
    assert_eq!(out.stdout, "Received: {\"deployed\":\"prod-db\"}\n");
    let out = at(
        &env,
        &url,
        &["decline", &no, "--reason", "Not on prod, please."],
    );
    out.assert_code(0);
    assert_eq!(out.stdout, "Received: \"Not on prod, please.\"\n");

    assert_eq!(
        fx.calls("ops", "approve-tool-call", &yes, Some(&yes_call)),
        1
    );
    assert_eq!(fx.calls("ops", "decline-tool-call", &no, Some(&no_call)), 1);
    for run in [&yes, &no] {
        assert_eq!(fx.calls("ops", "resume-stream", run, None), 0);
        assert_eq!(
            fx.calls("ops", "decline-tool-call", run, Some(&yes_call)),
            0
        );
    }
    let sent = env.rows(
        "SELECT kind, resume_data FROM ledger WHERE kind <> 'start' ORDER BY created_at",
        &[],
    );
    assert_eq!(
        sent,
        [
            [
                Some("approval".to_string()),
                Some(r#"{"approved":true}"#.to_string())
            ]
            .to_vec(),
            [
                Some("approval".to_string()),
                Some(r#"{"approved":false,"reason":"Not on prod, please."}"#.to_string())
            ]
            .to_vec()
        ]
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_require_tool_approval_approve_then_answer_the_same_call() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let out = at(
        &env,
        &url,
        &[
            "run",
            "-q",
            "--require-approval",
            "--agent",
            "planner",
            "[scenario:question]",
        ],
    );
    out.assert_code(75);
    let run = out.stdout.trim().to_string();
    let approval = only(&env, &url, &run);
    assert_eq!(approval["kind"], "approval");
    assert_eq!(approval["toolName"], "ask_user");
    let call = id_of(&approval);

    let out = at(&env, &url, &["approve", &run]);
    out.assert_code(75);
    assert!(
        out.stderr.contains(&format!("answer {run} <answer>")),
        "{}",
        out.stderr
    );
    let question = only(&env, &url, &run);
    assert_eq!(question["kind"], "question");
    assert_eq!(id_of(&question), call, "Mastra reuses the call id");

    let out = at(&env, &url, &["answer", &run, "--tool-call", &call, "x"]);
    out.assert_code(0);
    assert_eq!(
        out.stdout,
        "Received: {\"content\":\"User answered: x\",\"isError\":false}\n"
    );
    // Two entries for one call id, told apart by their kind.
    let kinds = env.rows(
        "SELECT kind, state FROM ledger WHERE tool_call_id = ?1 ORDER BY created_at",
        &[&call],
    );
    assert_eq!(
        kinds,
        [
            [Some("approval".to_string()), Some("delivered".to_string())].to_vec(),
            [Some("question".to_string()), Some("delivered".to_string())].to_vec()
        ]
    );
    assert_eq!(
        fx.calls("planner", "approve-tool-call", &run, Some(&call)),
        1
    );
    assert_eq!(fx.calls("planner", "resume-stream", &run, Some(&call)), 1);
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_at_a_terminal_an_approval_starts_on_decline() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    // The run's first leg, started at a terminal, asks for the approval inline.
    let mut pty = Pty::spawn(
        &env,
        &[
            "--server",
            &url,
            "run",
            "--agent",
            "ops",
            "[scenario:approval] inline",
        ],
        &[],
    );
    pty.expect("wants to run deploy with:");
    pty.expect("> Decline (the tool does not run)");
    pty.send(ENTER);
    pty.expect("Received: \"Tool call was not approved by the user\"");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    let run = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("run "))
        .unwrap()
        .to_string();
    let sent = env.rows(
        "SELECT tool_call_id, kind, resolved_via FROM ledger WHERE run_id = ?1 AND kind <> 'start'",
        &[&run],
    );
    assert_eq!(sent.len(), 1, "{sent:?}");
    let call = sent[0][0].clone().unwrap();
    assert_eq!(
        sent[0][1..],
        [Some("approval".to_string()), Some("prompt".to_string())]
    );
    assert_eq!(fx.calls("ops", "decline-tool-call", &run, Some(&call)), 1);
    assert_eq!(fx.calls("ops", "approve-tool-call", &run, Some(&call)), 0);
}
