//! The example agent walked through end to end, each step a separate process on one store.

use serde_json::{json, Value};

use crate::common::Env;

// ---- the release example, through each decision -----------------------------------------

// The version and channel are the ones answered: the script uses what it was told.
const APPROVED: &str =
    "The plan is approved. Tests and docs come first; I tag v3.1.0 now, once you approve the tag.\n";
const TAGGED: &str =
    "Tagged v3.1.0. Release preparation for the beta channel is underway: the announcement comes next.\n";
const NOT_TAGGED: &str = "I did not tag the release: the tag was declined. The plan stands; tell me when to tag (mastra-ask reply RUN MESSAGE).\n";
const REVISED: &str =
    "I revised the plan to address your feedback and wrote it to RELEASE_PLAN-v2.md.\n";
const REPLANNED: &str = "Following your message, I wrote a new plan to RELEASE_PLAN-v2.md.\n";
const WAITS: &str = "You rejected the plan without feedback, so I stop here and wait: tell me what to change (mastra-ask reply RUN MESSAGE) and I will write a new plan.\n";

/// What `run`, `answer` and `review` print on stderr when the run waits for one item.
fn waiting(run: &str, item: &str, commands: &[&str]) -> String {
    let mut s = format!("run {run} is waiting for input (1 pending):\n  {item}\n");
    for c in commands {
        s.push_str(&format!("    mastra-ask {c}\n"));
    }
    s
}

fn plan_waits(run: &str, item: &str) -> String {
    waiting(
        run,
        item,
        &[
            &format!("review {run} --approve"),
            &format!("review {run} --reject --feedback <feedback>"),
        ],
    )
}

/// What the approval of the release's tag prints when the run waits for it.
fn tag_waits(run: &str) -> String {
    waiting(
        run,
        "call_tag approval: tag_release {\"version\":\"3.1.0\"}",
        &[
            &format!("approve {run}"),
            &format!("decline {run} --reason <reason>"),
        ],
    )
}

/// Approves the plan, then the tag: the run completes.
#[track_caller]
fn approve_plan_and_tag(env: &Env, run: &str) {
    approve_plan(env, run);
    step(env, &["approve", run], 0, TAGGED, "");
    assert_eq!(env.status(run), "completed");
}

/// Approves the plan: the run waits for its tag to be approved.
#[track_caller]
fn approve_plan(env: &Env, run: &str) {
    step(
        env,
        &["review", run, "--approve"],
        75,
        APPROVED,
        &tag_waits(run),
    );
}

/// Asserts one command's exit code and whole output.
#[track_caller]
fn step(env: &Env, args: &[&str], code: i32, stdout: &str, stderr: &str) {
    let out = env.run(args);
    out.assert_code(code);
    assert_eq!(out.stdout, stdout, "stdout of {args:?}");
    assert_eq!(out.stderr, stderr, "stderr of {args:?}");
}

/// The example started as the README's tour does and its three questions answered, each a
/// process of its own; returns the run, now waiting for its plan to be reviewed.
fn to_the_plan(env: &Env) -> String {
    let agent = Env::example_agent();
    let cwd = Env::example_dir();
    let out = env
        .cmd(&[
            "run",
            "--agent",
            &agent,
            "--cwd",
            &cwd,
            "Prepare the next release",
        ])
        .code(75);
    let run = env.latest_run().unwrap();
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        waiting(
            &run,
            "call_version question: Which version are we releasing?",
            &[&format!("answer {run} <answer>")]
        )
    );
    step(
        env,
        &["answer", &run, "3.1.0"],
        75,
        "",
        &waiting(
            &run,
            "call_channel question: Which channel should the release go to? [stable | beta | nightly]",
            &[&format!("answer {run} <label>")],
        ),
    );
    step(
        env,
        &["answer", &run[..8], "beta"],
        75,
        "",
        &waiting(
            &run,
            "call_chores question: What should be done before the release? [Add tests | Update docs | Bump dependencies] (choose one or more)",
            &[&format!("answer {run} --multi <label>...")],
        ),
    );
    step(
        env,
        &["answer", &run, "--multi", "Add tests", "Update docs"],
        75,
        "I wrote the release plan to RELEASE_PLAN.md.\n",
        &plan_waits(&run, "call_plan plan: Release plan (RELEASE_PLAN.md)"),
    );
    run
}

/// The plans the run submitted, in order (path and title), and their decisions.
fn reviewed(env: &Env, run: &str) -> Vec<(String, String, String)> {
    env.show(run)["suspensions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["toolName"] == "submit_plan")
        .map(|s| {
            (
                s["suspendPayload"]["path"].as_str().unwrap().to_string(),
                s["suspendPayload"]["title"].as_str().unwrap().to_string(),
                s["resumeData"]["action"]
                    .as_str()
                    .unwrap_or("pending")
                    .to_string(),
            )
        })
        .collect()
}

fn plans(list: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    list.iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

#[test]
fn the_release_example_approved() {
    let env = Env::new();
    let run = to_the_plan(&env);

    let pending = env.cmd(&["pending", "-o", "json"]).code(0);
    let items = pending.json_lines();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["runId"], run.as_str());
    assert_eq!(items[0]["toolCallId"], "call_plan");
    assert_eq!(items[0]["agentId"], "release");
    assert_eq!(
        items[0]["suspendPayload"]["plan"],
        std::fs::read_to_string(Env::example_dir() + "/RELEASE_PLAN.md")
            .unwrap()
            .split_once("\n\n")
            .unwrap()
            .1
            .trim()
    );

    approve_plan_and_tag(&env, &run);
    assert_eq!(
        reviewed(&env, &run),
        plans(&[("RELEASE_PLAN.md", "Release plan", "approved")])
    );
    let results = env.tool_results(&run);
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "call_version",
            "call_channel",
            "call_chores",
            "call_plan",
            "call_tag"
        ]
    );
    assert_eq!(
        results[4].1,
        json!({"tag": "v3.1.0", "note": "an example: no git tag was made"})
    );
    assert_eq!(
        results[2].1,
        json!({"content": "User answered: Add tests, Update docs", "isError": false})
    );
    assert_eq!(
        results[3].1["content"],
        "Plan approved. Proceed with implementation following the approved plan."
    );
    step(&env, &["pending"], 0, "", &env.nothing_pending());
}

#[test]
fn the_release_example_revises_its_plan_after_feedback() {
    let env = Env::new();
    let run = to_the_plan(&env);
    step(
        &env,
        &[
            "review",
            &run,
            "--reject",
            "--feedback",
            "Add a rollback step.",
        ],
        75,
        REVISED,
        &plan_waits(
            &run,
            "call_plan_v2 plan: Release plan (revised) (RELEASE_PLAN-v2.md)",
        ),
    );
    // The model got the feedback, verbatim.
    let results = env.tool_results(&run);
    assert_eq!(results[3].0, "call_plan");
    assert_eq!(
        results[3].1["submittedPlan"]["feedback"],
        "Add a rollback step."
    );
    assert!(results[3].1["content"]
        .as_str()
        .unwrap()
        .contains("Add a rollback step."));
    let pending = env.run(&["pending", "-o", "json"]).json_lines();
    assert!(pending[0]["suspendPayload"]["plan"]
        .as_str()
        .unwrap()
        .contains("4. Prepare a rollback"));

    approve_plan_and_tag(&env, &run);
    assert_eq!(
        reviewed(&env, &run),
        plans(&[
            ("RELEASE_PLAN.md", "Release plan", "rejected"),
            ("RELEASE_PLAN-v2.md", "Release plan (revised)", "approved"),
        ])
    );
}

#[test]
fn the_release_example_waits_for_a_reply_after_a_bare_rejection() {
    let env = Env::new();
    let run = to_the_plan(&env);
    // It stops and says it waits; the run is finished, nothing is pending.
    step(&env, &["review", &run, "--reject"], 0, WAITS, "");
    assert_eq!(env.status(&run), "completed");
    step(&env, &["pending"], 0, "", &env.nothing_pending());

    // The reply leads to a new plan.
    step(
        &env,
        &["reply", &run, "Add a rollback step."],
        75,
        REPLANNED,
        &plan_waits(
            &run,
            "call_replan plan: Release plan (revised) (RELEASE_PLAN-v2.md)",
        ),
    );
    approve_plan_and_tag(&env, &run);
    assert_eq!(
        reviewed(&env, &run),
        plans(&[
            ("RELEASE_PLAN.md", "Release plan", "rejected"),
            ("RELEASE_PLAN-v2.md", "Release plan (revised)", "approved"),
        ])
    );
    let messages = env.messages(&run);
    let users: Vec<&str> = messages
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(users, ["Prepare the next release", "Add a rollback step."]);
}

#[test]
fn the_release_example_tag_approved_with_another_version_is_tagged() {
    let env = Env::new();
    let run = to_the_plan(&env);
    approve_plan(&env, &run);
    step(
        &env,
        &["approve", &run, "--args", r#"{"version":"3.1.1"}"#],
        0,
        "Tagged the release with the version you approved in place of v3.1.0 (the tool's result says which). Release preparation for the beta channel is underway: the announcement comes next.\n",
        "",
    );
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn the_release_example_declined_tag_is_never_made_and_a_reply_asks_again() {
    let env = Env::new();
    let run = to_the_plan(&env);
    approve_plan(&env, &run);
    step(
        &env,
        &["decline", &run, "--reason", "Not before the docs are out."],
        0,
        NOT_TAGGED,
        "",
    );
    let tag = env
        .tool_results(&run)
        .into_iter()
        .find(|(id, _)| id == "call_tag");
    assert_eq!(
        tag.map(|(_, r)| r),
        Some(json!("Not before the docs are out.")),
        "the reason is text"
    );
    let reason = env
        .messages(&run)
        .into_iter()
        .find(|m| m["toolCallId"] == "call_tag")
        .unwrap();
    assert_eq!(reason["content"], "Not before the docs are out.");
    // A reply: the agent asks to tag again; approved, the run completes.
    let second = env
        .cmd(&["reply", &run, "The docs are out: tag it."])
        .code(75);
    assert_eq!(second.stdout, APPROVED);
    let id = env
        .run(&["pending", "-q"])
        .stdout
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    let out = env.cmd(&["approve", &run]).code(0);
    assert_eq!(out.stdout, TAGGED);
    assert_ne!(id, "call_tag", "a new call, with a generated id");
}

#[test]
fn the_release_example_writes_its_plan_with_write_file_inside_its_working_directory() {
    let env = Env::new();
    // The example's agent on a test script that uses write_file, as a real model would.
    env.write(
        "work/writes.json",
        &json!({"steps": [
            {"toolCalls": [
                {"id": "w1", "name": "write_file", "args": {"path": "../outside.md", "content": "x"}},
                {"id": "w2", "name": "write_file", "args": {"path": "MY_PLAN.md", "content": "# My plan\n\n1. Tag it.\n"}}
            ]},
            {"toolCalls": [{"id": "p1", "name": "submit_plan", "args": {"path": "MY_PLAN.md"}}]},
            {"text": "done"}
        ]})
        .to_string(),
    );
    let out = env
        .cmd(&[
            "run",
            "--agent",
            &Env::example_agent(),
            "--model",
            "script:writes.json",
            "Plan it",
        ])
        .code(75);
    assert_eq!(
        std::fs::read_to_string(env.path("work/MY_PLAN.md")).unwrap(),
        "# My plan\n\n1. Tag it.\n"
    );
    assert!(!env.path("outside.md").exists());
    assert!(
        out.stderr.starts_with(
            "warning: tool call w1 (write_file) failed: Tool \"write_file\" exited with status 2; its stderr ends with:\\nerror: cannot write ../outside.md: the path leaves the working directory\n"
        ),
        "{}",
        out.stderr
    );
    let run = env.latest_run().unwrap();
    let written = env
        .tool_results(&run)
        .into_iter()
        .find(|(id, _)| id == "w2")
        .unwrap()
        .1;
    assert_eq!(written, json!({"path": "MY_PLAN.md", "bytes": 22}));
    assert_eq!(
        reviewed(&env, &run),
        plans(&[("MY_PLAN.md", "My plan", "pending")])
    );
}

#[test]
fn the_release_example_run_from_elsewhere_shows_why_no_plan_was_reviewed() {
    let env = Env::new();
    // The tour's command without --cwd: the plan file is not in the working directory.
    let out = env
        .cmd(&[
            "run",
            "-q",
            "--agent",
            &Env::example_agent(),
            "Prepare the next release",
        ])
        .code(75);
    let run = out.stdout.trim().to_string();
    env.run(&["answer", &run, "2.0.0"]).assert_code(75);
    env.run(&["answer", &run, "beta"]).assert_code(75);
    step(
        &env,
        &["answer", &run, "--multi", "Add tests", "Update docs"],
        0,
        "I wrote the release plan to RELEASE_PLAN.md.\nI could not submit the release plan, so nothing was reviewed and I stop here. This example reads its plans from examples/release: run it with --cwd examples/release.\n",
        "warning: tool call call_plan (submit_plan) failed: Failed to submit plan: RELEASE_PLAN.md does not exist\n",
    );
    assert!(reviewed(&env, &run).is_empty());
    // In JSON mode the failure is the stored tool-result, as the model got it.
    let events = env.show(&run)["events"].clone();
    let failed = events
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "tool-result" && e["payload"]["toolCallId"] == "call_plan")
        .unwrap()
        .clone();
    assert_eq!(
        failed["payload"]["result"],
        json!({"content": "Failed to submit plan: RELEASE_PLAN.md does not exist", "isError": true})
    );
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

#[test]
fn json_events_follow_the_mastra_envelope() {
    let env = Env::new();
    let agent = env.agent(json!([
        {"toolCalls": [{"id": "q1", "name": "ask_user", "args": {"question": "Name?"}}]},
        {"text": "Hello, Ada."}
    ]));
    let (out, run) = env.start(&agent, &["-o", "json"]);
    out.assert_code(75);
    assert_eq!(out.stderr, "");
    let events = out.json_lines();
    assert_eq!(
        kinds(&events),
        [
            "start",
            "step-start",
            "tool-call",
            "step-finish",
            "tool-call-suspended"
        ]
    );
    for e in &events {
        assert_eq!(e["runId"], run.as_str());
        assert_eq!(e["from"], "AGENT");
        assert!(e["payload"].is_object());
    }
    assert_eq!(events[0]["payload"]["id"], "tester");
    let suspended = &events[4]["payload"];
    assert_eq!(suspended["toolCallId"], "q1");
    assert_eq!(suspended["toolName"], "ask_user");
    assert_eq!(suspended["suspendPayload"], json!({"question": "Name?"}));
    let schema: Value = serde_json::from_str(suspended["resumeSchema"].as_str().unwrap()).unwrap();
    assert_eq!(schema["type"], "string");

    let out = env.cmd(&["-o", "json", "answer", &run, "Ada"]).code(0);
    let events = out.json_lines();
    assert_eq!(
        kinds(&events),
        [
            "tool-result",
            "step-start",
            "text-delta",
            "step-finish",
            "finish"
        ]
    );
    assert_eq!(
        events[0]["payload"],
        json!({"toolCallId": "q1", "toolName": "ask_user", "args": {"question": "Name?"},
               "result": {"content": "User answered: Ada", "isError": false}})
    );
    assert_eq!(events[2]["payload"]["text"], "Hello, Ada.");
    assert_eq!(
        events[4]["payload"],
        json!({"finishReason": "stop", "text": "Hello, Ada.",
               "usage": {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}})
    );

    // The stored events are the same sequence, without gaps.
    let show = env.run(&["-o", "json", "show", &run]);
    let shown = &show.json_lines()[0];
    let stored = shown["events"].as_array().unwrap();
    assert_eq!(
        kinds(stored),
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
    assert_eq!(shown["status"], "completed");
    assert_eq!(shown["suspensions"][0]["resolvedBy"], "tester");
    assert_eq!(shown["suspensions"][0]["resolvedVia"], "flag");
}

#[test]
fn an_agent_that_only_talks_completes_at_once() {
    let env = Env::new();
    let agent = env.agent(json!([{"text": "Nothing to ask."}]));
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(0);
    assert_eq!(out.stdout, "Nothing to ask.\n");
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn the_budget_ends_a_leg_that_keeps_calling_tools() {
    let env = Env::new();
    let bad_call = json!({"toolCalls": [{"name": "ask_user", "args": {"question": ""}}]});
    let agent = env.agent(json!([bad_call, bad_call, bad_call]));
    let (out, run) = env.start(&agent, &["--max-steps", "2", "-o", "json"]);
    out.assert_code(0);
    let events = out.json_lines();
    let finish = events.last().unwrap();
    assert_eq!(finish["type"], "finish");
    assert_eq!(finish["payload"]["finishReason"], "tool-calls");
    let results = env.tool_results(&run);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].1["error"], true);
}

#[test]
fn a_script_that_branches_to_nowhere_is_refused_or_fails_the_run() {
    let env = Env::new();
    // A goto to no step: refused when the script is read, before anything is stored.
    let agent = env.agent(json!([
        {"id": "ask", "toolCalls": [{"name": "ask_user", "args": {"question": "Which?"}}],
         "next": [{"when": {"answer": "a"}, "goto": "nowhere"}]}
    ]));
    let out = env.cmd(&["run", "--agent", &agent, "Go"]).code(2);
    let script = env.path("work/script.json");
    assert_eq!(
        out.stderr,
        format!(
            "error: script {}: step 1 goes to \"nowhere\", but no step has that id\n",
            script.display()
        )
    );
    assert_eq!(env.dump(), "no store");

    // An answer no case expects: the run fails, saying what the model received.
    let agent = env.agent(json!([
        {"id": "ask", "toolCalls": [{"id": "q", "name": "ask_user", "args": {"question": "Which?", "options": [{"label": "a"}, {"label": "b"}]}}],
         "next": [{"when": {"answer": "a"}, "goto": "a"}]},
        {"id": "a", "text": "A."}
    ]));
    let run = env.suspended(&agent);
    let out = env.cmd(&["answer", &run, "b"]).code(1);
    assert_eq!(
        out.stderr,
        format!(
            "error: run {run} failed: script {}: step 1 (\"ask\") has no case for what the model received (a result of ask_user: {{\"content\":\"User answered: b\",\"isError\":false}}); your answer was recorded, and resume continues the run\n\
             hint: retry it with: mastra-ask resume {run}\n",
            script.display()
        )
    );
    assert_eq!(env.status(&run), "failed");
}

// ---- the README's tour, run as written ------------------------------------------------

/// The `console` blocks of the README's "A tour" section.
fn tour_blocks() -> Vec<Vec<String>> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("\n## A tour\n").expect("the README has a tour");
    let rest = &readme[start + 1..];
    let section = &rest[..rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3)];
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in section.lines() {
        match (&mut current, line) {
            (None, "```console") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.push(current.take().unwrap()),
            (Some(lines), l) => lines.push(l.to_string()),
            (None, _) => {}
        }
    }
    blocks
}

/// `12s ago` → `0s ago`: ages depend on the clock.
fn no_ages(line: &str) -> String {
    match line.strip_suffix("s ago") {
        Some(head) => {
            let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            format!("{}0s ago", &head[..head.len() - digits])
        }
        None => line.to_string(),
    }
}

/// `text` with the README's run id (and its 8-character prefix) put for the real one, or
/// the other way round.
fn swap(ids: &Option<(String, String)>, text: &str, from_readme: bool) -> String {
    match ids {
        Some((shown, real)) => {
            let (a, b) = if from_readme {
                (shown, real)
            } else {
                (real, shown)
            };
            text.replace(a.as_str(), b).replace(&a[..8], &b[..8])
        }
        None => text.to_string(),
    }
}

/// Runs the binary from the repository's root with stdout and stderr in one file, as a
/// terminal shows them; returns the exit code and what was printed.
fn merged(env: &Env, args: &[String]) -> (i32, String) {
    let file = env.path("merged.txt");
    let out = std::fs::File::create(&file).unwrap();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut command = env.command(&args);
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(out.try_clone().unwrap())
        .stderr(out);
    let status = command.status().unwrap();
    (
        status.code().unwrap_or(-1),
        crate::common::printed(&std::fs::read(&file).unwrap()),
    )
}

/// Every command of the tour is run in order on one store; what it prints (stdout and
/// stderr together) must be the lines that follow it, the README's run id standing for the
/// real one and ages aside. `$ echo $?` checks the exit code of the command before it; a
/// lone `...` leaves a command's output unchecked; `  # ...` after a command is a comment.
#[test]
fn the_readme_tour_is_what_the_binary_prints() {
    let env = Env::new();
    let blocks = tour_blocks();
    assert!(blocks.len() >= 2, "{blocks:?}");
    let mut ids: Option<(String, String)> = None; // (the README's, the real one)
    let mut last_code: Option<i32> = None;
    let mut commands = 0;
    for block in blocks {
        let mut lines = block.into_iter().peekable();
        while let Some(line) = lines.next() {
            let command = line
                .strip_prefix("$ ")
                .unwrap_or_else(|| panic!("expected a command, got {line:?}"));
            let mut expected = Vec::new();
            while lines.peek().is_some_and(|l| !l.starts_with("$ ")) {
                expected.push(lines.next().unwrap());
            }
            if command == "echo $?" {
                assert_eq!(
                    expected,
                    [last_code.unwrap().to_string()],
                    "after {commands} commands"
                );
                continue;
            }
            let command = command.split("  #").next().unwrap().trim();
            let words = shell_words::split(command.strip_prefix("mastra-ask ").unwrap()).unwrap();
            let args: Vec<String> = words.iter().map(|w| swap(&ids, w, true)).collect();
            let (code, printed) = merged(&env, &args);
            last_code = Some(code);
            commands += 1;
            if ids.is_none() {
                let shown = expected[0]
                    .strip_prefix("run ")
                    .and_then(|l| l.split(' ').next())
                    .expect("the tour starts with a run that prints its id")
                    .to_string();
                ids = Some((shown, env.latest_run().unwrap()));
            }
            if expected == ["..."] {
                continue;
            }
            let printed: Vec<String> = swap(&ids, &printed, false).lines().map(no_ages).collect();
            let expected: Vec<String> = expected.iter().map(|l| no_ages(l)).collect();
            assert_eq!(printed, expected, "output of `{command}`");
        }
    }
    assert!(commands >= 8, "the tour ran only {commands} commands");
    let run = &ids.unwrap().1;
    assert_eq!(env.status(run), "completed");
}
