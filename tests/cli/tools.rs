//! Every result and error of the two tools (SPEC §2), as the model receives them in a run,
//! and the fallbacks of `mastra-ask tool`.

use serde_json::{json, Value};

use crate::assert_shown;
use crate::common::Env;
use crate::steps::say;

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"id": id, "name": name, "args": args})
}

#[test]
fn an_empty_question_returns_the_validation_object_and_the_run_goes_on() {
    let env = Env::new();
    let agent = env.agent(json!([
        {"toolCalls": [call("c1", "ask_user", json!({"question": ""}))]},
        {"toolCalls": [call("c2", "ask_user", json!({"question": "Q?", "selectionMode": "multi_select"}))]},
        say("gave up")
    ]));
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(0);
    let results = env.tool_results(&run);
    assert_eq!(
        results[0].1,
        json!({
            "error": true,
            "message": "Tool input validation failed for ask_user. Please fix the following errors and try again:\n- question: String must contain at least 1 non-blank character\n\nProvided arguments: {\n  \"question\": \"\"\n}",
            "validationErrors": {"question": ["String must contain at least 1 non-blank character"]}
        })
    );
    assert_eq!(
        results[1].1,
        json!({"content": "Failed to ask user: selectionMode requires options.", "isError": true})
    );
    let calls = env.count("SELECT count(*) FROM calls", &[]);
    assert_eq!(calls, 0, "no suspension was created");
}

fn plan_agent(env: &Env) -> (String, String) {
    env.write("work/PLAN.md", "# Ship it\n\n- tag\n- publish\n");
    let agent = env.agent(json!([
        {"toolCalls": [call("p1", "submit_plan", json!({"path": "PLAN.md"}))]},
        say("after review")
    ]));
    let run = env.suspended(&agent);
    (agent, run)
}

#[test]
fn an_approved_plan() {
    let env = Env::new();
    let (_, run) = plan_agent(&env);
    env.run(&["review", &run, "--approve"]).assert_code(0);
    assert_eq!(
        env.tool_results(&run)[0].1,
        json!({
            "content": "Plan approved. Proceed with implementation following the approved plan.",
            "isError": false,
            "toolId": "submit_plan",
            "submittedPlan": {"title": "Ship it", "path": "PLAN.md", "plan": "- tag\n- publish"}
        })
    );
}

#[test]
fn a_plan_rejected_with_feedback_carries_it_verbatim() {
    let env = Env::new();
    let (_, run) = plan_agent(&env);
    let feedback = "Add a rollback step.\nAnd a dry run.";
    env.run(&["review", &run, "--reject", "--feedback", feedback])
        .assert_code(0);
    let result = &env.tool_results(&run)[0].1;
    assert_eq!(result["isError"], false);
    assert_eq!(result["toolId"], "submit_plan");
    assert_eq!(result["submittedPlan"]["feedback"], feedback);
    let content = result["content"].as_str().unwrap();
    assert!(content.contains(feedback), "{content}");
    assert!(
        content.contains("submit it again with submit_plan"),
        "{content}"
    );
}

#[test]
fn a_plan_rejected_with_feedback_from_a_file_or_json() {
    let env = Env::new();
    let (_, run) = plan_agent(&env);
    env.write("work/feedback.txt", "Too vague.");
    env.run(&[
        "review",
        &run,
        "--reject",
        "--feedback-file",
        "feedback.txt",
    ])
    .assert_code(0);
    assert_eq!(
        env.tool_results(&run)[0].1["submittedPlan"]["feedback"],
        "Too vague."
    );

    let env = Env::new();
    let (_, run) = plan_agent(&env);
    env.run(&[
        "review",
        &run,
        "--json",
        r#"{"action":"rejected","feedback":"No."}"#,
    ])
    .assert_code(0);
    assert_eq!(
        env.tool_results(&run)[0].1["submittedPlan"]["feedback"],
        "No."
    );
    let via = env.value("SELECT resolved_via FROM calls", &[]).unwrap();
    assert_eq!(via, "json");
}

#[test]
fn a_plan_rejected_without_feedback_tells_the_model_to_wait() {
    let env = Env::new();
    let (_, run) = plan_agent(&env);
    env.run(&["review", &run, "--reject"]).assert_code(0);
    let result = &env.tool_results(&run)[0].1;
    assert!(result["content"]
        .as_str()
        .unwrap()
        .contains("wait for the user's next message"));
    assert_eq!(
        result["submittedPlan"],
        json!({"title": "Ship it", "path": "PLAN.md", "plan": "- tag\n- publish"})
    );
}

#[test]
fn the_reviewer_is_told_when_the_file_changed_since_submission() {
    let env = Env::new();
    let (_, run) = plan_agent(&env);
    env.write("work/PLAN.md", "# Something else\n");
    let out = env.cmd(&["review", &run, "--approve"]).code(0);
    assert_shown!(env, out.stderr, @"warning: PLAN.md changed on disk since it was submitted; this decision is on the submitted version (see: mastra-ask show [RUN])");
    assert_eq!(
        env.tool_results(&run)[0].1["submittedPlan"]["title"],
        "Ship it"
    );
}

#[test]
fn bad_plan_paths_are_errors_for_the_model_without_suspension() {
    let env = Env::new();
    std::fs::create_dir(env.path("work/dir.md")).unwrap();
    std::fs::write(env.path("work/big.md"), vec![b'a'; 1024 * 1024 + 1]).unwrap();
    std::fs::write(env.path("work/latin1.md"), [b'#', b' ', 0xe9]).unwrap();
    env.write("secret.md", "# Secret\n");
    std::os::unix::fs::symlink(env.path("secret.md"), env.path("work/link.md")).unwrap();
    let paths = [
        "missing.md",
        "dir.md",
        "big.md",
        "latin1.md",
        "../secret.md",
        "link.md",
    ];
    let calls: Vec<Value> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| call(&format!("p{i}"), "submit_plan", json!({"path": p})))
        .collect();
    let agent = env.agent(json!([{"toolCalls": calls}, {"text": "ok"}]));
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(0);
    let contents: Vec<String> = env
        .tool_results(&run)
        .into_iter()
        .map(|(_, r)| {
            assert_eq!(r["isError"], true);
            r["content"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(
        contents,
        [
            "Failed to submit plan: missing.md does not exist",
            "Failed to submit plan: dir.md is not a regular file",
            "Failed to submit plan: big.md is larger than 1 MiB",
            "Failed to submit plan: latin1.md is not valid UTF-8",
            "Failed to submit plan: ../secret.md is outside the working directory",
            "Failed to submit plan: link.md is outside the working directory",
        ]
    );
}

#[test]
fn a_plan_resolves_against_the_runs_working_directory() {
    let env = Env::new();
    env.write("elsewhere/PLAN.md", "# Elsewhere\nbody");
    let agent = env.agent(json!([
        {"toolCalls": [call("p1", "submit_plan", json!({"path": "PLAN.md"}))]},
        say("done")
    ]));
    let cwd = env.path("elsewhere");
    let (out, run) = env.start(&agent, &["--cwd", cwd.to_str().unwrap()]);
    out.assert_code(75);
    let pending = env.run(&["pending", "-o", "json"]).json_lines();
    assert_eq!(pending[0]["suspendPayload"]["title"], "Elsewhere");
    let shown = env.run(&["-o", "json", "show", &run]).json_lines();
    assert_eq!(
        shown[0]["cwd"],
        cwd.canonicalize().unwrap().to_str().unwrap()
    );
}

#[test]
fn tool_fallbacks_outside_a_run() {
    let env = Env::new();
    let out = env
        .cmd(&[
            "tool",
            "ask_user",
            "--json",
            r#"{"question":"Deploy now?"}"#,
        ])
        .code(0);
    assert_eq!(out.stdout, "[Question for user]: Deploy now?\n");

    let out = env.cmd(&[
        "tool", "ask_user", "--json",
        r#"{"question":"Which?","options":[{"label":"A"},{"label":"B"}],"selectionMode":"multi_select"}"#,
    ]).code(0);
    assert_eq!(
        out.stdout,
        "[Question for user]: Which?\nOptions: A, B\nSelection mode: multi_select\n"
    );

    let out = env
        .cmd(&["tool", "submit_plan", "--json", r#"{"path":"PLAN.md"}"#])
        .code(0);
    assert_eq!(out.stdout, "[Plan submitted for review]\n\nPath: PLAN.md\n");

    let out = env
        .cmd(&["tool", "ask_user", "--json", r#"{"question":""}"#])
        .code(2);
    assert_eq!(out.json_lines()[0]["error"], true);
    assert_shown!(env, out.stderr, @"error: invalid input for ask_user: question: String must contain at least 1 non-blank character");

    let out = env
        .cmd(&["tool", "delete_everything", "--json", "{}"])
        .code(2);
    assert_shown!(env, out.stderr, @r#"error: unknown tool "delete_everything"; the tools are ask_user, submit_plan and write_file"#);
    assert!(!env.has_store(), "the tool command never creates a store");
}
