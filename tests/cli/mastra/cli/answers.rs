//! Answering each kind of item by its route: free text, multi-select, plans (read under
//! --plan-root, or not readable), custom suspensions; bad answers refused with nothing sent.

use super::*;
use crate::assert_shown;

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
    assert_shown!(env, out.stderr, @"
        run [RUN]
        run [RUN] is waiting for input (1 pending):
          q_f36488b3d2 question: What should the new setting be called?
            mastra-ask --server http://127.0.0.1:[PORT]/api answer [RUN] <answer>
        ");
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
            Some(env.me()),
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
    assert_shown!(env, out.stderr, @"
        error: tool call w_9ffe20cbe2 is an `other` item: its resume data is JSON of the tool's own shape
        hint: pass it with --json VALUE
        ");
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
