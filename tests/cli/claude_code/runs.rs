//! Claude Code as a run (SPEC §15, "Claude Code as a run"): `run --agent FILE` with a
//! `claudeCode` agent starts the real Claude Code in the SDK's mode with this program as
//! its host and its hook; a gated call suspends the run (exit 75), and whoever resolves
//! the last pending item drives the next leg with `claude -p --resume`.

use std::process::Command;

use serde_json::{json, Value};

use super::{installed, program, tool, Block, Model};
use crate::assert_shown;
use crate::common::{Env, Out};

/// A model that calls `Bash` to append "ran" to out.txt, then says done.
fn appends() -> Vec<Vec<Block>> {
    vec![vec![tool(
        "toolu_bash1",
        "Bash",
        json!({"command": "echo ran >> out.txt", "description": "append"}),
    )]]
}

/// What out.txt holds (empty when the tool never ran).
fn written(env: &Env) -> String {
    std::fs::read_to_string(env.work().join("out.txt")).unwrap_or_default()
}

/// A Claude Code agent file in `work/` with `block` (beside the program and `--model`).
fn agent(env: &Env, block: Value) -> String {
    let mut code = json!({"command": program(), "args": ["--model", "scripted"]});
    for (k, v) in block.as_object().unwrap() {
        if k == "args" {
            let extra = v.as_array().unwrap().iter().cloned();
            code["args"].as_array_mut().unwrap().extend(extra);
        } else {
            code[k] = v.clone();
        }
    }
    let file = json!({"id": "coder", "name": "Coder", "claudeCode": code});
    env.write("work/coder.json", &file.to_string())
        .to_string_lossy()
        .into_owned()
}

/// mastra-ask with `args`, in the test's environment plus the scripted model's address
/// (what reaches `claude` when it drives a leg).
fn command(env: &Env, model: &Model, args: &[&str]) -> Command {
    let mut c = env.command(args);
    c.env("ANTHROPIC_BASE_URL", model.url())
        .env("ANTHROPIC_API_KEY", "scripted")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1");
    c
}

fn run(env: &Env, model: &Model, args: &[&str]) -> Out {
    env.run_with(command(env, model, args))
}

/// Starts a run of the agent `file` that suspends on its gated call (exit 75): its id.
fn suspended(env: &Env, model: &Model, file: &str) -> String {
    run(env, model, &["run", "--agent", file, "append to the file"]).assert_code(75);
    env.latest_run().unwrap()
}

#[test]
fn claude_run_an_approval_suspends_and_approve_drives_the_next_leg() {
    let env = Env::new();
    if installed().is_none() {
        return;
    }
    let model = Model::start(appends());
    let file = agent(&env, json!({}));
    let started = run(
        &env,
        &model,
        &["run", "--agent", &file, "append to the file"],
    );
    assert_shown!(env, started, @r#"
    [exit 75]
    --- stderr
    run [RUN] is waiting for input (1 pending):
      toolu_bash1 approval: Bash {"command":"echo ran >> out.txt","description":"append"}
        mastra-ask approve [RUN]
        mastra-ask decline [RUN] --reason <reason>
    "#);
    let id = env.latest_run().unwrap();
    assert_eq!(written(&env), "");
    let approved = run(&env, &model, &["approve", &id]);
    assert_shown!(env, approved, @r#"
    [exit 0]
    --- stdout
    done
    "#);
    assert_eq!(written(&env), "ran\n");
    let shown = env.cmd(&["show", &id]).code(0);
    assert_shown!(env, shown.stdout, @r#"
    run      [RUN]
    agent    coder
    model    claude-code
    status   completed
    cwd      [DIR]/work
    created  [TIME]
    updated  [TIME]
    usage    20 in, 10 out
    finish   stop

    transcript
      user: append to the file
      assistant calls Bash (toolu_bash1): {"command":"echo ran >> out.txt","description":"append"}
      assistant: done

    items
      toolu_bash1 approval: Bash {"command":"echo ran >> out.txt","description":"append"}
        resolved by tester via flag at [TIME]: {"approved":true}

    events
      [TIME]  start                agent coder
      [TIME]  step-start           step 1
      [TIME]  tool-call            toolu_bash1 Bash {"command":"echo ran >> out.txt","description":"append"}
      [TIME]  step-finish          tool-calls
      [TIME]  tool-call-approval   toolu_bash1 Bash {"command":"echo ran >> out.txt","description":"append"} waits for approval
      [TIME]  text                 "done"
      [TIME]  finish               stop (10 in, 5 out tokens)
    "#);
}

#[test]
fn claude_run_a_project_settings_file_with_disable_all_hooks_cannot_open_the_gate() {
    let env = Env::new();
    if installed().is_none() {
        return;
    }
    env.write("work/.claude/settings.json", r#"{"disableAllHooks": true}"#);
    let model = Model::start(appends());
    let file = agent(&env, json!({}));
    let announce = "cat > announced.json";
    let args = [
        "--on-suspend",
        announce,
        "run",
        "--agent",
        &file,
        "append to the file",
    ];
    run(&env, &model, &args).assert_code(75);
    assert_eq!(written(&env), "");
    let id = env.latest_run().unwrap();
    assert_eq!(env.status(&id), "suspended");
    // --on-suspend ran once, with the gated call's pending line.
    let announced = std::fs::read_to_string(env.work().join("announced.json")).unwrap();
    let line: Value = serde_json::from_str(&announced).unwrap();
    assert_eq!(
        (&line["runId"], &line["toolCallId"]),
        (&json!(id), &json!("toolu_bash1"))
    );
}

#[test]
fn claude_run_an_ungated_write_is_denied_without_a_hang() {
    let env = Env::new();
    if installed().is_none() {
        return;
    }
    let write = json!({"file_path": env.work().join("w.txt"), "content": "x"});
    let model = Model::start(vec![vec![tool("toolu_write", "Write", write)]]);
    let file = agent(&env, json!({"gate": "Bash"}));
    let done = run(&env, &model, &["run", "--agent", &file, "write a file"]);
    assert_shown!(env, done, @r#"
    [exit 0]
    --- stdout
    done
    "#);
    assert!(!env.work().join("w.txt").exists());
    assert_shown!(env, format!("{:?}", model.results_for("toolu_write")), @r#"["Write is not allowed in this run: mastra-ask's gate does not cover it, and the run's permission mode does not allow it"]"#);
}

#[test]
fn claude_run_two_approvals_racing_one_drives_and_the_tool_runs_once() {
    let env = Env::new();
    if installed().is_none() {
        return;
    }
    let model = Model::start(appends());
    let file = agent(&env, json!({}));
    let id = suspended(&env, &model, &file);
    let spawn = || {
        command(&env, &model, &["approve", &id])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let within = std::time::Duration::from_secs(120);
    let outs = [
        crate::common::finish_within(a, "the first approve", within),
        crate::common::finish_within(b, "the second approve", within),
    ];
    let drove: Vec<&Out> = outs.iter().filter(|o| o.stdout == "done\n").collect();
    assert_eq!(drove.len(), 1, "{outs:#?}");
    assert_eq!(written(&env), "ran\n");
    assert_eq!(env.status(&id), "completed");
    let other = outs.iter().find(|o| o.stdout != "done\n").unwrap();
    // The other one found the item decided: before the winner's leg began, or once it ended
    // (it waited for the run, which a live driver was advancing).
    assert_eq!(other.code, 4, "{other}");
    let said = other.stderr.replace(&id, "[RUN]");
    assert!(
        [
            "error: tool call toolu_bash1 is not pending: it was resolved by tester\n",
            "error: run [RUN] is completed: nothing waits for approval\n",
        ]
        .contains(&said.replace(&env.me(), "tester").as_str()),
        "{other}"
    );
}

#[test]
fn claude_run_arguments_that_open_the_gate_are_refused() {
    let env = Env::new();
    let file = agent(&env, json!({"args": ["--settings={}"]}));
    let refused = env.cmd(&["run", "--agent", &file, "go"]).code(2);
    assert_shown!(env, refused, @r#"
    [exit 2]
    --- stderr
    error: agent file [DIR]/work/coder.json: claudeCode.args may not contain --settings: mastra-ask sets the session, the settings and the gate of a Claude Code run
    "#);
    let file = agent(&env, json!({"args": ["--bare"]}));
    let refused = env.cmd(&["run", "--agent", &file, "go"]).code(2);
    assert_shown!(env, refused, @r#"
    [exit 2]
    --- stderr
    error: agent file [DIR]/work/coder.json: claudeCode.args may not contain --bare: mastra-ask sets the session, the settings and the gate of a Claude Code run
    "#);
    assert!(!env.has_store());
}

#[test]
fn claude_run_a_missing_claude_fails_the_run() {
    let env = Env::new();
    let file = agent(&env, json!({"command": "/nonexistent/claude"}));
    let failed = env.cmd(&["run", "--agent", &file, "go"]).code(1);
    assert_shown!(env, failed, @r#"
    [exit 1]
    --- stderr
    error: run [RUN] failed: cannot start Claude Code (/nonexistent/claude): No such file or directory (os error 2)
    hint: retry it with: mastra-ask resume [RUN]
    "#);
}

#[test]
fn claude_run_a_question_a_plan_and_an_approval_answered_through_serve_drive() {
    use crate::serve::harness::{reviewer, Served};
    let env = Env::new();
    if installed().is_none() {
        return;
    }
    let question = json!({"questions": [{"question": "Which database?", "header": "DB",
        "multiSelect": false, "options": [{"label": "PostgreSQL", "description": "the server"},
        {"label": "SQLite", "description": "a file"}]}]});
    let plan =
        json!({"file_path": super::model::PLAN_FILE, "content": "# Ship it\n\n1. Tag v2.\n"});
    let model = Model::start(vec![
        vec![tool("toolu_ask", "AskUserQuestion", question)],
        vec![tool("toolu_write", "Write", plan)],
        vec![tool("toolu_plan", "ExitPlanMode", json!({}))],
    ]);
    let file = agent(&env, json!({"args": ["--permission-mode", "plan"]}));
    run(&env, &model, &["run", "--agent", &file, "plan the release"]).assert_code(75);
    let id = env.latest_run().unwrap();
    let token = reviewer(&env, "alice");
    let served = Served::start_with(&env, &["--drive"], |c| {
        c.env("ANTHROPIC_BASE_URL", model.url())
            .env("ANTHROPIC_API_KEY", "scripted")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1");
    });
    // Each answer is followed by the leg serve drives, up to the next item.
    let decide = |path: &str, body: Value| {
        let r = served.api(&format!("/agents/coder/{path}"), &token, &body);
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.header("mastra-ask-outcome"), Some("driven"), "{}", r.body);
    };
    let resume =
        |call: &str, data: Value| json!({"runId": id, "toolCallId": call, "resumeData": data});
    decide("resume-stream", resume("toolu_ask/1", json!("SQLite")));
    assert_eq!(
        env.run(&["pending", "-q"]).stdout.split(' ').nth(1),
        Some("toolu_write")
    );
    decide(
        "approve-tool-call",
        json!({"runId": id, "toolCallId": "toolu_write"}),
    );
    decide(
        "resume-stream",
        resume("toolu_plan", json!({"action": "approved", "feedback": ""})),
    );
    assert_eq!(env.status(&id), "completed");
    assert_eq!(
        model.results_for("toolu_ask"),
        ["Your questions have been answered: \"Which database?\"=\"SQLite\". You can now continue with these answers in mind."]
    );
    assert_eq!(model.results_for("toolu_plan").len(), 1);
    // Claude Code names the plan file from the prompt and two random words.
    let mut shown = env.cmd(&["show", &id]).code(0).stdout;
    // The events' lines are cut at a width that the random words move.
    shown.truncate(shown.find("\nevents\n").unwrap());
    while let Some(at) = shown.find("plan-the-release-") {
        let name = &shown[at..];
        let end = name.find(".md").unwrap();
        shown.replace_range(at..at + end, "plan-the-release[WORDS]");
    }
    assert_shown!(env, shown, @r##"
    run      [RUN]
    agent    coder
    model    claude-code
    status   completed
    cwd      [DIR]/work
    created  [TIME]
    updated  [TIME]
    usage    40 in, 20 out
    finish   stop

    transcript
      user: plan the release
      assistant calls AskUserQuestion (toolu_ask/1): {"question":"Which database?","options":[{"label":"PostgreSQL","description":"the server"},{"label":"SQLite","description":"a file"}],"selectionMode":"single_select"}
      AskUserQuestion (toolu_ask/1) returned: {"content":"User answered: SQLite","isError":false}
      assistant calls Write (toolu_write): {"file_path":"[DIR]/home/.claude/plans/plan-the-release[WORDS].md","content":"# Ship it\n\n1. Tag v2.\n"}
      assistant calls ExitPlanMode (toolu_plan): {"path":"[DIR]/home/.claude/plans/plan-the-release[WORDS].md","plan":"# Ship it\n\n1. Tag v2.\n"}
      ExitPlanMode (toolu_plan) returned: {"content":"Plan approved. Proceed with implementation following the approved plan.","isError":false,"toolId":"submit_plan","submittedPlan":{"title":"Ship it","path":"[DIR]/home/.claude/plans/plan-the-release[WORDS].md","plan":"1. Tag v2."}}
      assistant: done

    items
      toolu_ask/1 question: Which database? [PostgreSQL | SQLite]
        resolved by alice via api at [TIME]: "SQLite"
      toolu_write approval: Write {"file_path":"[DIR]/home/.claude/plans/plan-the-release[WORDS].md","content":"# Ship it\n\n1. Tag v2.\n"}
        resolved by alice via api at [TIME]: {"approved":true}
      toolu_plan plan: Ship it ([DIR]/home/.claude/plans/plan-the-release[WORDS].md)
        resolved by alice via api at [TIME]: {"action":"approved","path":"[DIR]/home/.claude/plans/plan-the-release[WORDS].md","title":"Ship it","plan":"1. Tag v2."}

    "##);
}

#[test]
fn claude_run_a_gated_call_that_ran_without_a_decision_fails_the_run_gate_bypassed() {
    let env = Env::new();
    if installed().is_none() {
        return;
    }
    // The user's own settings switch every hook off, and the agent's arguments let Bash
    // run without asking: the call runs ungated, and the run says so.
    env.write("home/.claude/settings.json", r#"{"disableAllHooks": true}"#);
    let model = Model::start(appends());
    let file = agent(&env, json!({"args": ["--allowedTools", "Bash"]}));
    let failed = run(
        &env,
        &model,
        &["run", "--agent", &file, "append to the file"],
    );
    assert_shown!(env, failed, @r#"
    [exit 1]
    --- stderr
    error: run [RUN] failed: gate bypassed: Claude Code ran Bash call toolu_bash1 without a decision recorded in mastra-ask
    hint: retry it with: mastra-ask resume [RUN]
    "#);
    let id = env.latest_run().unwrap();
    assert_eq!(env.status(&id), "failed");
}

#[test]
fn claude_run_with_wait_its_waiter_drives_the_leg_an_approval_resumes() {
    let env = Env::new();
    if installed().is_none() {
        return;
    }
    // The store's location stays out of Claude Code's tools' environment.
    let model = Model::start(vec![vec![tool(
        "toolu_env",
        "Bash",
        json!({"command": "echo \"db=${MASTRA_ASK_DB:-unset}\" >> out.txt"}),
    )]]);
    let file = agent(&env, json!({}));
    let waiter = command(
        &env,
        &model,
        &["run", "--agent", &file, "--wait", "--timeout", "90s", "go"],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let id = env.first_pending();
    env.wait_for_waiter(&id);
    // The reviewer's process has no model key: the waiter drives.
    let approved = env.cmd(&["approve", &id]).code(0);
    assert_shown!(env, approved, @r#"
    [exit 0]
    --- stderr
    answer recorded; the waiting process continues the run
    "#);
    let out =
        crate::common::finish_within(waiter, "the waiter", std::time::Duration::from_secs(90));
    assert_shown!(env, out, @r#"
    [exit 0]
    --- stdout
    done
    --- stderr
    run [RUN] is waiting for input (1 pending):
      toolu_env approval: Bash {"command":"echo \"db=${MASTRA_ASK_DB:-unset}\" >> out.txt"}
        mastra-ask approve [RUN]
        mastra-ask decline [RUN] --reason <reason>
    "#);
    assert_eq!(written(&env), "db=unset\n");
}

#[test]
fn claude_run_without_a_gated_call_completes_and_a_reply_continues_the_session() {
    let env = Env::new();
    if installed().is_none() {
        return;
    }
    let model = Model::start(vec![vec![Block::Text("Hello.".into())]]);
    let file = agent(&env, json!({}));
    let done = run(&env, &model, &["run", "--agent", &file, "say hello"]);
    assert_shown!(env, done, @r#"
    [exit 0]
    --- stdout
    Hello.
    "#);
    let id = env.latest_run().unwrap();
    let replied = run(&env, &model, &["reply", &id, "and again"]);
    assert_shown!(env, replied, @r#"
    [exit 0]
    --- stdout
    done
    "#);
    // The same session, resumed: the model reads the first exchange, then the reply.
    let last = model.requests().pop().unwrap().to_string();
    assert!(
        last.contains("say hello") && last.contains("and again"),
        "{last}"
    );
    let shown = env.cmd(&["show", &id]).code(0);
    assert_shown!(env, shown.stdout, @r#"
    run      [RUN]
    agent    coder
    model    claude-code
    status   completed
    cwd      [DIR]/work
    created  [TIME]
    updated  [TIME]
    usage    20 in, 10 out
    finish   stop

    transcript
      user: say hello
      assistant: Hello.
      user: and again
      assistant: done

    events
      [TIME]  start                agent coder
      [TIME]  text                 "Hello."
      [TIME]  finish               stop (10 in, 5 out tokens)
      [TIME]  text                 "done"
      [TIME]  finish               stop (10 in, 5 out tokens)
    "#);
}

#[test]
fn claude_run_a_claude_that_fails_or_prints_garbage_fails_the_run_with_what_it_said() {
    let env = Env::new();
    let fails = |body: &str| {
        crate::command_tools::script(&env, "fake-claude", body);
        let file = agent(&env, json!({"command": "./fake-claude"}));
        env.cmd(&["run", "--agent", &file, "go"]).code(1).stderr
    };
    let said = fails("echo 'warming up' >&2\necho 'fatal: no credentials' >&2\nexit 3\n");
    assert_shown!(env, said, @r#"
    error: run [RUN] failed: Claude Code exited with exit status: 3: fatal: no credentials
    hint: retry it with: mastra-ask resume [RUN]
    "#);
    let said = fails("echo 'not json at all'\nsleep 1\n");
    assert_shown!(env, said, @r#"
    error: run [RUN] failed: Claude Code printed something that is not a JSON line: not json at all
    hint: retry it with: mastra-ask resume [RUN]
    "#);
}

#[test]
fn claude_run_a_decline_drives_the_next_leg_and_the_model_reads_the_reason() {
    let env = Env::new();
    if installed().is_none() {
        return;
    }
    let model = Model::start(appends());
    let file = agent(&env, json!({}));
    let id = suspended(&env, &model, &file);
    let declined = run(&env, &model, &["decline", &id, "--reason", "Not on main."]);
    assert_shown!(env, declined, @r#"
    [exit 0]
    --- stdout
    done
    "#);
    assert_eq!(written(&env), "");
    assert_eq!(env.status(&id), "completed");
    assert_eq!(
        model.results_for("toolu_bash1"),
        ["PreToolUse:Bash hook error: declined by tester: Not on main."]
    );
}

#[test]
fn claude_run_cancelled_while_it_waits_is_never_driven_again() {
    let env = Env::new();
    if installed().is_none() {
        return;
    }
    let model = Model::start(appends());
    let file = agent(&env, json!({}));
    let id = suspended(&env, &model, &file);
    env.cmd(&["cancel", &id]).code(0);
    assert_eq!(env.status(&id), "cancelled");
    let approved = run(&env, &model, &["approve", &id]);
    assert_eq!(approved.code, 4, "{approved}");
    assert_eq!(written(&env), "");
    assert_eq!(env.status(&id), "cancelled");
}

#[test]
fn claude_run_approved_with_changes_runs_the_changed_input() {
    let env = Env::new();
    if installed().is_none() {
        return;
    }
    let model = Model::start(appends());
    let file = agent(&env, json!({}));
    let id = suspended(&env, &model, &file);
    let changed = r#"{"command":"echo edited >> out.txt","description":"append"}"#;
    let approved = run(&env, &model, &["approve", &id, "--args", changed]);
    assert_shown!(env, approved, @r#"
    [exit 0]
    --- stdout
    done
    "#);
    assert_eq!(written(&env), "edited\n");
}
