//! `--on-resolve CMD` (SPEC §17): once per resolved item, across every process on the store,
//! `sh -c CMD` with `{runId, toolCallId, kind, decision, by, via, at}` on stdin: for an
//! answer, an approval, a decline, a plan rejected, an item expired at a waiter's deadline
//! and a run cancelled; resolving processes in parallel, and two serves, run it once per
//! item; serve runs it for an item a plain `answer` resolved (and one that expired with
//! nobody waiting), but not for one resolved before its catch-up window; a failing hook never
//! fails the answer; `ask --wait` and an `mcp` call run it for the answer given elsewhere. On
//! PostgreSQL a runner's role claims only what is resolved, through the store's function.

use std::time::Duration;

use serde_json::{json, Value};

use crate::assert_shown;
use crate::command_tools::{tagger, tool, tool_agent};
use crate::common::{finish, never, Env};
use crate::pg_safety::{database, server, Role};
use crate::serve::harness::Served;

/// A hook that appends its stdin to `work/NAME`.
fn appending(env: &Env, name: &str) -> String {
    format!("cat >> '{}'", env.path(&format!("work/{name}")).display())
}

/// What the hook appended to `work/NAME`.
fn told(env: &Env, name: &str) -> String {
    std::fs::read_to_string(env.path(&format!("work/{name}"))).unwrap_or_default()
}

/// The lines of `told`, as JSON.
fn lines(env: &Env, name: &str) -> Vec<Value> {
    told(env, name)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A run whose one step asks for approval of `tag_release` (call `c1`), suspended.
fn approval(env: &Env) -> String {
    let tag = tagger(env);
    let agent = tool_agent(
        env,
        json!([
            {"toolCalls": [{"id": "c1", "name": "tag_release", "args": {"version": "v2"}}]},
            {"text": "done"}
        ]),
        vec![tool(
            "tag_release",
            &[&tag],
            json!({"requireApproval": true}),
        )],
    );
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    run
}

/// `ask` with `args`, suspended: its run id.
fn asked(env: &Env, args: &[&str]) -> String {
    let mut all = vec!["ask"];
    all.extend_from_slice(args);
    env.cmd(&all).code(75).stdout.trim().to_string()
}

#[test]
fn each_resolution_runs_the_hook_once_with_its_line() {
    let env = Env::new();
    let hook = appending(&env, "resolved.log");
    let flag = ["--on-resolve", hook.as_str()];
    let with =
        |args: &[&str]| -> Vec<String> { flag.iter().chain(args).map(|s| s.to_string()).collect() };
    let run = |args: &[&str], code: i32| {
        let all = with(args);
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        env.cmd(&all).code(code)
    };

    let q = asked(&env, &["Ship it?", "--option", "yes", "--option", "no"]);
    run(&["answer", &q, "yes"], 0);
    // Answered already: nothing resolved, nothing told again.
    run(&["answer", &q, "no"], 4);
    let path = env.write("work/PLAN.md", "# Plan\n\n1. Ship.\n");
    let path = path.to_str().unwrap();
    let approved = env.cmd(&["plan", path]).code(75).stdout.trim().to_string();
    run(&["review", &approved, "--approve"], 0);
    let rejected = env.cmd(&["plan", path]).code(75).stdout.trim().to_string();
    run(
        &["review", &rejected, "--reject", "--feedback", "Not yet."],
        0,
    );
    let a = approval(&env);
    run(&["approve", &a], 0);
    let d = approval(&env);
    run(&["decline", &d, "--reason", "No tags today."], 0);
    let c = asked(&env, &["Cancel me?"]);
    run(&["cancel", &c], 0);
    run(&["ask", "Anyone?", "--wait", "--timeout", "1s"], 124);
    assert_shown!(env, told(&env, "resolved.log"), @r#"
    {"runId":"[RUN]","toolCallId":"[CALL]","kind":"question","decision":"answered","by":"tester","via":"flag","at":"[TIME]","answer":"yes"}
    {"runId":"[RUN]","toolCallId":"[CALL]","kind":"plan","decision":"approved","by":"tester","via":"flag","at":"[TIME]"}
    {"runId":"[RUN]","toolCallId":"[CALL]","kind":"plan","decision":"rejected","by":"tester","via":"flag","at":"[TIME]"}
    {"runId":"[RUN]","toolCallId":"c1","kind":"approval","decision":"approved","by":"tester","via":"flag","at":"[TIME]"}
    {"runId":"[RUN]","toolCallId":"c1","kind":"approval","decision":"declined","by":"tester","via":"flag","at":"[TIME]"}
    {"runId":"[RUN]","toolCallId":"[CALL]","kind":"question","decision":"cancelled","by":null,"via":null,"at":"[TIME]"}
    {"runId":"[RUN]","toolCallId":"[CALL]","kind":"question","decision":"expired","by":null,"via":null,"at":"[TIME]"}
    "#);
    let runs: Vec<Value> = lines(&env, "resolved.log")
        .iter()
        .map(|l| l["runId"].clone())
        .collect();
    assert_eq!(
        runs[..6],
        [q, approved, rejected, a, d, c].map(|r| json!(r))
    );
}

#[test]
fn a_failing_hook_is_reported_and_the_answer_stands() {
    let env = Env::new();
    let q = asked(&env, &["Ship it?"]);
    let out = env
        .cmd(&[
            "--on-resolve",
            "cat > /dev/null; exit 3",
            "answer",
            &q,
            "yes",
        ])
        .code(0);
    assert_shown!(env, out.stderr, @"warning: --on-resolve command for [RUN] [CALL] failed (exit status: 3)");
    assert_eq!(env.status(&q), "completed");
    // Claimed before it ran: a later process does not run it again.
    let hook = appending(&env, "resolved.log");
    let r = asked(&env, &["Again?"]);
    env.cmd(&["--on-resolve", &hook, "answer", &r, "no"])
        .code(0);
    let told = lines(&env, "resolved.log");
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["runId"], json!(r));
}

/// The (run, tool call) of each line the hook appended to `work/NAME`, sorted.
fn told_items(env: &Env, name: &str) -> Vec<(String, String)> {
    let mut told: Vec<(String, String)> = lines(env, name)
        .iter()
        .map(|l| {
            let field = |k: &str| l[k].as_str().unwrap().to_string();
            (field("runId"), field("toolCallId"))
        })
        .collect();
    told.sort();
    told
}

#[test]
fn resolving_processes_in_parallel_run_the_hook_once_per_item() {
    let env = Env::new();
    let hook = appending(&env, "resolved.log");
    let ids = ["a", "b", "c", "d", "e", "f"];
    let calls: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "name": "ask_user", "args": {"question": format!("{id}?")}}))
        .collect();
    let agent = env.agent(json!([{"toolCalls": calls}, {"text": "done"}]));
    let mut expected = Vec::new();
    for _ in 0..2 {
        let (out, run) = env.start(&agent, &[]);
        out.assert_code(75);
        // Each answers one item, then claims every resolved item of the run whose hook no
        // process ran: they race for each other's. (Only recorded: none drives the leg.)
        let answering: Vec<_> = ids
            .iter()
            .map(|id| {
                let args = ["--on-resolve", &hook, "answer", &run, "--no-resume"];
                let mut args = args.to_vec();
                args.extend(["--tool-call", id, "x"]);
                env.spawn(&args)
            })
            .collect();
        for child in answering {
            let out = finish(child);
            // Recorded, whatever the others did meanwhile: 75 while items of the step still
            // wait, else 0 (the run goes on with whoever resolved the last one).
            assert!([0, 75].contains(&out.code), "{out:?}");
        }
        let resolved = format!(
            "SELECT count(*) FROM calls WHERE {} AND state = 'resolved'",
            env.of_run()
        );
        assert_eq!(env.count(&resolved, &[&run]), 6);
        expected.extend(ids.map(|id| (run.clone(), id.to_string())));
    }
    expected.sort();
    assert_eq!(told_items(&env, "resolved.log"), expected);
}

#[test]
fn two_serves_run_the_hook_once_per_item() {
    let env = Env::new();
    let hook = appending(&env, "resolved.log");
    let mut expected = Vec::new();
    for i in 0..8 {
        let run = asked(&env, &[&format!("Q{i}?")]);
        env.cmd(&["answer", &run, "yes"]).code(0);
        let call = env.run(&["-o", "json", "show", &run]).stdout;
        let call: Value = serde_json::from_str(call.trim()).unwrap();
        let call = call["suspensions"][0]["toolCallId"]
            .as_str()
            .unwrap()
            .to_string();
        expected.push((run, call));
    }
    expected.sort();
    let _one = Served::start(&env, &["--on-resolve", &hook]);
    let _two = Served::start(&env, &["--on-resolve", &hook]);
    env.poll("every item told", || lines(&env, "resolved.log").len() >= 8);
    never("a hook ran twice", Duration::from_millis(1500), || {
        lines(&env, "resolved.log").len() > 8
    });
    assert_eq!(told_items(&env, "resolved.log"), expected);
}

#[test]
fn serve_runs_the_hook_for_an_item_answered_without_the_flag() {
    let env = Env::new();
    let hook = appending(&env, "resolved.log");
    // Resolved before serve starts: one within its catch-up window (told when it starts),
    // one long ago (never told).
    let old = asked(&env, &["Old?"]);
    env.cmd(&["answer", &old, "yes"]).code(0);
    let sql = format!("UPDATE calls SET resolved_at = 1000 WHERE {}", env.of_run());
    env.exec(&sql, &[&old]);
    let recent = asked(&env, &["Recent?"]);
    env.cmd(&["cancel", &recent]).code(0);
    let served = Served::start(&env, &["--on-resolve", &hook]);
    env.poll("the recent item told", || {
        !told(&env, "resolved.log").is_empty()
    });

    let q = asked(&env, &["Ship it?", "--option", "yes", "--option", "no"]);
    env.cmd(&["answer", &q, "no"]).code(0);
    env.poll("the answer told", || lines(&env, "resolved.log").len() == 2);
    // Past its deadline with nobody waiting: serve closes it, and tells.
    let late = asked(&env, &["Late?", "--expires-in", "1s"]);
    env.poll("the expiry told", || lines(&env, "resolved.log").len() == 3);
    never("the hook ran again", Duration::from_millis(1500), || {
        lines(&env, "resolved.log").len() > 3
    });
    assert_shown!(env, told(&env, "resolved.log"), @r#"
    {"runId":"[RUN]","toolCallId":"[CALL]","kind":"question","decision":"cancelled","by":null,"via":null,"at":"[TIME]"}
    {"runId":"[RUN]","toolCallId":"[CALL]","kind":"question","decision":"answered","by":"tester","via":"flag","at":"[TIME]","answer":"no"}
    {"runId":"[RUN]","toolCallId":"[CALL]","kind":"question","decision":"expired","by":null,"via":null,"at":"[TIME]"}
    "#);
    let runs: Vec<Value> = lines(&env, "resolved.log")
        .iter()
        .map(|l| l["runId"].clone())
        .collect();
    assert_eq!(runs, [json!(recent), json!(q), json!(late)]);
    assert!(!served.log().contains("--on-resolve"), "{}", served.log());
}

#[test]
fn ask_wait_runs_the_hook_for_the_answer_given_elsewhere() {
    let env = Env::new();
    let hook = appending(&env, "resolved.log");
    let waiter = env.spawn(&[
        "--on-resolve",
        &hook,
        "ask",
        "Deploy?",
        "--option",
        "yes",
        "--option",
        "no",
        "--wait",
    ]);
    let run = env.first_pending();
    env.wait_for_waiter(&run);
    env.cmd(&["answer", &run, "yes"]).code(0);
    let out = finish(waiter);
    out.assert_code(0);
    assert_eq!(out.stdout, "yes\n");
    assert_shown!(env, told(&env, "resolved.log"), @r#"{"runId":"[RUN]","toolCallId":"[CALL]","kind":"question","decision":"answered","by":"tester","via":"flag","at":"[TIME]","answer":"yes"}"#);
}

/// A session of `url` with the store's schema first in the search path.
fn connect(url: &str) -> postgres::Client {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    c.batch_execute("SET search_path = mastra_ask").unwrap();
    c
}

/// The SQLSTATE of what `sql` did (empty when it succeeded).
fn refused(c: &mut postgres::Client, sql: &str) -> String {
    match c.batch_execute(sql) {
        Ok(()) => String::new(),
        Err(e) => e.code().map(|c| c.code().to_string()).unwrap_or_default(),
    }
}

#[test]
fn a_runner_role_claims_only_what_is_resolved() {
    let Some(admin) = server() else { return };
    let runner = Role::new(&admin, None);
    let env = Env::new();
    let db = database(&env);
    env.run(&["store", "grant", &runner.name]).assert_code(0);
    let as_runner = |args: &[&str], code: i32| {
        let mut cmd = env.command(args);
        cmd.env("MASTRA_ASK_DB", runner.url(&db));
        let out = env.run_with(cmd);
        out.assert_code(code);
        out
    };
    let asked = |question: &str| {
        let run = as_runner(&["ask", question], 75).stdout.trim().to_string();
        let call = env
            .value("SELECT call_id FROM calls WHERE run_id = ?1", &[&run])
            .unwrap();
        (run, call)
    };
    let (run, call) = asked("Ship it?");
    let claim = format!("SELECT claim_resolution('{run}', '{call}')");
    let mut c = connect(&runner.url(&db));
    let claimed = |c: &mut postgres::Client| -> bool { c.query_one(&claim, &[]).unwrap().get(0) };
    // Pending: the function claims nothing, so no role can silence the hook beforehand...
    assert!(!claimed(&mut c));
    // ...nor claim it directly, with the grants of store grant or with every grant.
    let forge = format!(
        "INSERT INTO resolve_claims (run_id, call_id, claimed_at) VALUES ('{run}', '{call}', 1)"
    );
    assert_eq!(refused(&mut c, &forge), "42501");
    connect(&env.store.url())
        .batch_execute(&format!(
            "GRANT ALL ON ALL TABLES IN SCHEMA mastra_ask TO {}",
            runner.name
        ))
        .unwrap();
    assert_eq!(refused(&mut c, &forge), "MA403");
    assert_eq!(refused(&mut c, "DELETE FROM resolve_claims"), "");
    assert_eq!(env.count("SELECT count(*) FROM resolve_claims", &[]), 0);

    // Answered (by the owner, without the flag): claimed once, through the function.
    env.cmd(&["answer", &run, "yes"]).code(0);
    assert!(claimed(&mut c));
    assert!(!claimed(&mut c));
    assert_eq!(refused(&mut c, "DELETE FROM resolve_claims"), "MA403");

    // The runner's own commands read the claims and claim through the program.
    let hook = appending(&env, "resolved.log");
    let (other, _) = asked("Cancel me?");
    as_runner(&["--on-resolve", &hook, "cancel", &other], 0);
    let told = lines(&env, "resolved.log");
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(
        (&told[0]["runId"], &told[0]["decision"]),
        (&json!(other), &json!("cancelled"))
    );
}

#[test]
fn an_mcp_call_runs_the_hook_for_its_answer() {
    let env = Env::new();
    let hook = appending(&env, "resolved.log");
    let mut c = crate::mcp::Client::spawn(&env, &["--wait", "5m", "--on-resolve", &hook]);
    c.initialize("2025-11-25", json!({}));
    c.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "request_approval", "arguments": {"action": "deploy to prod"}}}));
    let run = env.first_pending();
    env.cmd(&["approve", &run]).code(0);
    c.response(7);
    let out = c.close();
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    let told = lines(&env, "resolved.log");
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(
        (&told[0]["runId"], &told[0]["kind"], &told[0]["decision"]),
        (&json!(run), &json!("approval"), &json!("approved"))
    );
}
