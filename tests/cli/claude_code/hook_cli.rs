//! `hook claude-code` through the binary without Claude Code: the JSON Claude Code sends
//! on stdin, the exact JSON line the hook prints, for each way a call maps to items and each
//! way it fails (garbage, hostile input, a broken store, a session of another run), on the
//! backend the suite runs against.

use serde_json::{json, Value};

use crate::assert_shown;
use crate::common::{Env, Out};

const SESSION: &str = "6f1c1f0e-4a55-4a6a-9d1e-1b2c3d4e5f60";

/// A `PreToolUse` call of `tool` with `input` as `id`, in the test's work directory.
fn call(env: &Env, tool: &str, input: Value, id: &str) -> String {
    json!({
        "session_id": SESSION,
        "transcript_path": env.path(&format!("home/.claude/projects/p/{SESSION}.jsonl")),
        "cwd": env.work(),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": id
    })
    .to_string()
}

/// The hook, headless (`claude -p`), with `flags`, fed `stdin`.
fn hook(env: &Env, flags: &[&str], stdin: &str) -> Out {
    hook_in(env, flags, stdin, "sdk-cli")
}

fn hook_in(env: &Env, flags: &[&str], stdin: &str, entrypoint: &str) -> Out {
    let mut args = vec!["hook", "claude-code"];
    args.extend(flags);
    run_in(env, &args, stdin, entrypoint)
}

/// `mastra-ask ARGS` as Claude Code runs a hook: `CLAUDE_CODE_ENTRYPOINT`, the call on stdin.
fn run_in(env: &Env, args: &[&str], stdin: &str, entrypoint: &str) -> Out {
    use std::io::Write;
    let mut c = env.command(args);
    c.env("CLAUDE_CODE_ENTRYPOINT", entrypoint)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    // A hook that stops reading early must not fail the test on a broken pipe.
    let _ = pipe.write_all(stdin.as_bytes());
    drop(pipe);
    crate::common::finish(child)
}

fn bash(env: &Env, command: &str, id: &str) -> String {
    call(env, "Bash", json!({"command": command}), id)
}

#[test]
fn each_decision_on_an_approval_is_what_the_hook_answers() {
    let env = Env::new();
    let first = bash(&env, "make deploy", "toolu_1");
    assert_shown!(env, hook(&env, &[], &first), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"waiting for a person in mastra-ask (mastra-ask approve [RUN] --tool-call toolu_1); then `claude -p --resume [RUN]` continues"}}
    "#);
    assert_shown!(env, hook(&env, &[], &first), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"waiting for a person in mastra-ask (mastra-ask approve [RUN] --tool-call toolu_1); then `claude -p --resume [RUN]` continues"}}
    "#);
    env.cmd(&[
        "approve",
        SESSION,
        "--args",
        r#"{"command": "make deploy-staging"}"#,
    ])
    .code(0);
    assert_shown!(env, hook(&env, &[], &first), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"make deploy-staging"}}}
    "#);
    // mastra-ask never drives a Claude Code session, nor follows one: Claude Code runs it.
    assert_shown!(env, env.cmd(&["wait", SESSION]).code(4), @r"
    [exit 4]
    --- stderr
    error: run [RUN] is a Claude Code session: wait cannot follow it, as Claude Code runs it; `claude -p --resume [RUN]` on the host that ran it continues it
    ");
    assert_shown!(env, env.cmd(&["resume", SESSION]).code(4), @r"
    [exit 4]
    --- stderr
    error: run [RUN] is a Claude Code session, which mastra-ask does not drive: `claude -p --resume [RUN]` on the host that ran it continues it
    ");
    // The same id with another input is not what was decided.
    let other = bash(&env, "make deploy-prod", "toolu_1");
    assert_shown!(env, hook(&env, &[], &other), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"tool call toolu_1 was recorded with another input than this one"}}
    "#);

    let second = bash(&env, "rm -rf build", "toolu_2");
    let third = bash(&env, "ls", "toolu_3");
    hook(&env, &[], &second).assert_code(0);
    // While one call waits, another of the same session (a parallel call) is denied.
    assert_shown!(env, hook(&env, &[], &third), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"another call of this session waits for a decision in mastra-ask: one gated call waits at a time; make this call again once that one is decided"}}
    "#);
    env.cmd(&["decline", SESSION, "--reason", "keep the build"])
        .code(0);
    assert_shown!(env, hook(&env, &[], &second), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"declined by tester: keep the build"}}
    "#);

    hook(&env, &[], &third).assert_code(0);
    env.cmd(&["cancel", SESSION]).code(0);
    assert_shown!(env, hook(&env, &[], &third), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the session's run [RUN] was cancelled in mastra-ask"}}
    "#);
    assert_shown!(env, hook(&env, &[], &first), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the session's run [RUN] was cancelled in mastra-ask"}}
    "#);
}

#[test]
fn ask_user_question_is_one_question_item_each_and_the_answers_go_back() {
    let env = Env::new();
    let input = super::three_questions();
    let asked = call(&env, "AskUserQuestion", input, "toolu_q");
    assert_shown!(env, hook(&env, &[], &asked), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"waiting for a person in mastra-ask (mastra-ask answer [RUN] --tool-call toolu_q/1); then `claude -p --resume [RUN]` continues"}}
    "#);
    assert_shown!(env, env.cmd(&["pending"]).code(0), @r"
    [exit 0]
    --- stdout
    [RUN]  toolu_q/1 question: Which database? [PostgreSQL | SQLite]  [AGE] ago
        mastra-ask answer [RUN] --tool-call toolu_q/1 <label>
        mastra-ask answer [RUN] --tool-call toolu_q/1 --other <text>
    [RUN]  toolu_q/2 question: Which checks? [lint | test | docs] (choose one or more)  [AGE] ago
        mastra-ask answer [RUN] --tool-call toolu_q/2 --multi <label>...
        mastra-ask answer [RUN] --tool-call toolu_q/2 --other <text>
    [RUN]  toolu_q/3 question: Which branch? [main | next]  [AGE] ago
        mastra-ask answer [RUN] --tool-call toolu_q/3 <label>
        mastra-ask answer [RUN] --tool-call toolu_q/3 --other <text>
    ");
    env.cmd(&["answer", SESSION, "--tool-call", "toolu_q/1", "sqlite"])
        .code(75);
    assert_shown!(env, hook(&env, &[], &asked), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"waiting for a person in mastra-ask (mastra-ask answer [RUN] --tool-call toolu_q/2); then `claude -p --resume [RUN]` continues"}}
    "#);
    env.cmd(&[
        "answer",
        SESSION,
        "--tool-call",
        "toolu_q/2",
        "--multi",
        "lint",
        "test",
    ])
    .code(75);
    let other = ["--other", "release/2.0"];
    env.cmd(&[&["answer", SESSION, "--tool-call", "toolu_q/3"][..], &other].concat())
        .code(0);
    assert_shown!(env, hook(&env, &[], &asked), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"questions":[{"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"PostgreSQL","description":"the server"},{"label":"SQLite","description":"a file"}]},{"question":"Which checks?","header":"Checks","multiSelect":true,"options":[{"label":"lint","description":"clippy"},{"label":"test","description":"cargo test"},{"label":"docs","description":"rustdoc"}]},{"question":"Which branch?","header":"Branch","multiSelect":false,"options":[{"label":"main","description":"the default"},{"label":"next","description":"the next release"}]}],"answers":{"Which database?":"SQLite","Which checks?":"lint, test","Which branch?":"release/2.0"}}}}
    "#);
}

#[test]
fn exit_plan_mode_is_the_plan_its_transcript_names() {
    let env = Env::new();
    let plan = env.write(
        "home/.claude/plans/calm-river.md",
        "# Ship it\n\n1. Tag v2.\n",
    );
    let line = json!({"type": "assistant", "message": {"content": [{"type": "tool_use",
        "name": "Write", "input": {"file_path": plan, "content": "# Ship it"}}]}});
    env.write(
        &format!("home/.claude/projects/p/{SESSION}.jsonl"),
        &format!("{line}\n"),
    );
    let exit = call(&env, "ExitPlanMode", json!({}), "toolu_p1");
    hook(&env, &[], &exit).assert_code(0);
    assert_shown!(env, env.cmd(&["pending"]).code(0), @r"
    [exit 0]
    --- stdout
    [RUN]  toolu_p1 plan: Ship it ([DIR]/home/.claude/plans/calm-river.md)  [AGE] ago
        mastra-ask review [RUN] --approve
        mastra-ask review [RUN] --reject --feedback <feedback>
    ");
    env.cmd(&[
        "review",
        SESSION,
        "--reject",
        "--feedback",
        "tag v3 instead",
    ])
    .code(0);
    assert_shown!(env, hook(&env, &[], &exit), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the plan was rejected by tester: tag v3 instead"}}
    "#);
    let again = call(&env, "ExitPlanMode", json!({}), "toolu_p2");
    hook(&env, &[], &again).assert_code(0);
    env.cmd(&["review", SESSION, "--approve"]).code(0);
    assert_shown!(env, hook(&env, &[], &again), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}
    "#);
}

#[test]
fn exit_plan_mode_without_a_plan_file_says_so() {
    let env = Env::new();
    let exit = call(&env, "ExitPlanMode", json!({}), "toolu_p1");
    hook(&env, &[], &exit).assert_code(0);
    assert_shown!(env, env.cmd(&["pending"]).code(0), @r"
    [exit 0]
    --- stdout
    [RUN]  toolu_p1 plan: No plan file found (no plan file)  [AGE] ago
        mastra-ask review [RUN] --approve
        mastra-ask review [RUN] --reject --feedback <feedback>
    ");
}

#[test]
fn outside_claude_p_it_asks_without_a_policy_and_denies_while_reviewers_decide() {
    let env = Env::new();
    let first = bash(&env, "make", "toolu_1");
    assert_shown!(env, hook_in(&env, &[], &first, "cli"), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"no policy governs this session: decide at the terminal"}}
    "#);
    assert_shown!(env, env.cmd(&["pending"]).code(0), @r"
    [exit 0]
    --- stderr
    nothing is pending in the store [STORE] (from MASTRA_ASK_DB)
    ");
    env.run(&["reviewer", "add", "bob"]).assert_code(0);
    let gated = hook_in(&env, &["--reviewer", "bob"], &first, "cli");
    assert_shown!(env, gated, @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"waiting for reviewers: 0 of 1 approval; waiting for 1 from bob (mastra-ask approve [RUN] --tool-call toolu_1)"}}
    "#);
}

#[test]
fn garbage_hostile_input_and_a_broken_store_are_denied() {
    let env = Env::new();
    assert_shown!(env, hook(&env, &[], "not json"), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the hook input is not a PreToolUse call: expected ident at line 1 column 2"}}
    "#);
    assert_shown!(env, hook(&env, &[], "{}"), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the hook input is not a PreToolUse call: missing field `session_id` at line 1 column 2"}}
    "#);
    let huge = bash(&env, &"x".repeat(1 << 20), "toolu_big");
    assert_shown!(env, hook(&env, &[], &huge), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the hook input on stdin is larger than 1 MiB"}}
    "#);
    let wrong = call(&env, "Bash", json!("rm -rf /"), "toolu_1");
    assert_shown!(env, hook(&env, &[], &wrong), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the hook input's tool_input is not an object"}}
    "#);
    let escapes = bash(&env, "echo \u{1b}[2J\u{1b}]0;owned\u{7}", "toolu_esc");
    assert_shown!(env, hook(&env, &[], &escapes), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"waiting for a person in mastra-ask (mastra-ask approve [RUN] --tool-call toolu_esc); then `claude -p --resume [RUN]` continues"}}
    "#);
    assert_shown!(env, env.cmd(&["pending"]).code(0), @r#"
    [exit 0]
    --- stdout
    [RUN]  toolu_esc approval: Bash {"command":"echo \u001b[2J\u001b]0;owned\u0007"}  [AGE] ago
        mastra-ask approve [RUN]
        mastra-ask decline [RUN] --reason <reason>
    "#);
    assert_shown!(env, hook(&env, &["--wait", "10m"], &escapes), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"mastra-ask hook claude-code: --wait is at most 9m"}}
    "#);

    // A session id that names a run of another agent, or another directory.
    let asked = env
        .cmd(&["ask", "Go?", "--option", "yes", "--option", "no"])
        .code(75)
        .stdout;
    // Only a Claude Code question takes an "Other" answer.
    let other = env
        .cmd(&["answer", asked.trim(), "--other", "maybe"])
        .code(2);
    assert_shown!(env, other, @r#"
    [exit 2]
    --- stderr
    error: this question takes no other answer; choose one of: "yes", "no"
    "#);
    let other = bash(&env, "ls", "toolu_x").replace(SESSION, asked.trim());
    assert_shown!(env, hook(&env, &[], &other), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"session [RUN] names a run of agent \"ask\" in mastra-ask, not a Claude Code session"}}
    "#);
    let moved = bash(&env, "ls", "toolu_2")
        .replace(&format!("\"{}\"", env.work().display()), "\"/elsewhere\"");
    assert_shown!(env, hook(&env, &[], &moved), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"session [RUN] was recorded in directory \"[DIR]/work\", not \"/elsewhere\""}}
    "#);
}

#[test]
fn a_store_that_cannot_be_opened_is_a_denial() {
    let env = Env::sqlite();
    std::fs::write(env.db(), "not a database, not at all").unwrap();
    let first = bash(&env, "ls", "toolu_1");
    assert_shown!(env, hook(&env, &[], &first), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"mastra-ask could not gate this call, so it may not run: opening the store at [STORE]: file is not a database: file is not a database: Error code 26: file is not a database"}}
    "#);
}

#[test]
fn on_suspend_runs_once_per_gated_call() {
    let env = Env::new();
    let first = bash(&env, "make deploy", "toolu_1");
    let args = [
        "--on-suspend",
        "cat >> notified.jsonl",
        "hook",
        "claude-code",
    ];
    let out = run_in(&env, &args, &first, "sdk-cli");
    assert!(
        out.stdout.contains(r#""permissionDecision":"defer""#),
        "{out}"
    );
    let notified = std::fs::read_to_string(env.work().join("notified.jsonl")).unwrap();
    let lines: Vec<Value> = notified
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{notified}");
    assert_eq!(lines[0]["toolCallId"], "toolu_1");
    assert_eq!(lines[0]["agentId"], "claude-code");
    // Asked again, the call is not new: no second notification.
    run_in(&env, &args, &first, "sdk-cli").assert_code(0);
    let again = std::fs::read_to_string(env.work().join("notified.jsonl")).unwrap();
    assert_eq!(again, notified);
}

#[test]
fn a_session_another_user_started_is_denied() {
    let env = Env::new();
    let first = bash(&env, "ls", "toolu_1");
    hook(&env, &[], &first).assert_code(0);
    env.cmd(&["approve", SESSION]).code(0);
    // As if another user's process had started the session (the owner writes the row).
    env.exec(
        "UPDATE runs SET started_by = 'mallory', started_as = 'os-user' WHERE id = ?1",
        &[SESSION],
    );
    // Who this process is differs by machine and backend (an OS user, a role).
    let denied = |call: &str| {
        let out = hook(&env, &[], call);
        let (said, me) = out.stdout.split_once(", not by ").unwrap();
        assert!(me.ends_with("\"}}\n"), "{out}");
        format!("{said}, not by [ME]")
    };
    let decided = denied(&first);
    assert_shown!(env, decided, @r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"run [RUN] was started by OS user mallory, not by [ME]"#);
    assert_eq!(denied(&bash(&env, "ls", "toolu_2")), decided);
}

/// A Claude Code question in the inbox: its page offers the options, not required, and an
/// "Other" field (Claude Code takes free text besides them); what is typed there is
/// recorded as `answer --other` records it, and goes back to Claude Code as the answer.
#[test]
fn the_inbox_answers_a_claude_code_question_with_other_text() {
    use crate::serve::harness::{reviewer, Served};
    let env = Env::new();
    let input = json!({"questions": [
        {"question": "Which branch?", "header": "Branch", "multiSelect": false, "options": [
            {"label": "main", "description": "the default"},
            {"label": "next", "description": "the next release"}]}
    ]});
    let asked = call(&env, "AskUserQuestion", input, "toolu_o");
    hook(&env, &[], &asked).assert_code(0);
    let token = reviewer(&env, "alice");
    let served = Served::start(&env, &[]);
    let s = served.sign_in(&token);
    let item = format!("/runs/{SESSION}/items/toolu_o%2F1");
    let page = served.page(&s, &item);
    assert_eq!(page.status, 200, "{}", page.body);
    for shown in [
        r#"<input type="radio" name="answer" value="main" id="o0">"#,
        r#"<label class="field" for="other">Other: your own answer instead</label><textarea id="other" name="other"></textarea>"#,
    ] {
        assert!(page.body.contains(shown), "{shown}: {}", page.body);
    }
    let r = served.submit(&s, &item, &[("other", "release/2.0")]);
    assert_eq!(r.status, 303, "{}", r.body);
    let stored = &env.show(SESSION)["suspensions"][0];
    assert_eq!(
        (&stored["resumeData"], &stored["resolvedVia"]),
        (&json!({"other": "release/2.0"}), &json!("web")),
        "{stored}"
    );
    let answered = hook(&env, &[], &asked);
    assert!(
        answered
            .stdout
            .contains(r#""answers":{"Which branch?":"release/2.0"}"#),
        "{}",
        answered.stdout
    );
}

/// A Claude Code approval on a phone, in a real browser: the inbox's card says which tool
/// and what it runs, as clear as our own items; the item's page shows the input; a tap on
/// Approve records it, and the hook's next call for it is `allow`.
#[test]
fn on_a_phone_a_claude_code_approval_reads_like_our_own_and_one_tap_allows_it() {
    use crate::serve::harness::{reviewer, Served};
    use crate::serve::webdriver::{available, Driver};
    if !available() {
        return;
    }
    let env = Env::new();
    let asked = bash(&env, "cargo publish && git tag v2.0.0", "toolu_p");
    hook(&env, &[], &asked).assert_code(0);
    let token = reviewer(&env, "alice");
    let served = Served::start(&env, &[]);
    let driver = Driver::start();
    let phone = driver.browser(390, 844);
    phone.go(&served.url("/login"));
    phone.type_in(&phone.find("#token"), &token);
    phone.submit(&phone.find("button[type=submit]"));

    let card = phone.text(&phone.find("ul.items a.open"));
    let lines: Vec<&str> = card.lines().collect();
    assert!(
        lines[0].starts_with("APPROVAL agent claude-code · "),
        "{card}"
    );
    assert_eq!(
        lines[1..],
        [
            r#"Bash {"command":"cargo publish && git tag v2.0.0"}"#,
            &format!("run {SESSION}")
        ],
        "{card}"
    );
    std::fs::write("/tmp/serve-phone-claude-code.png", phone.screenshot()).unwrap();

    phone.submit(&phone.find("ul.items a.open"));
    let asks = phone.text(&phone.find("h1"));
    assert_eq!(asks, "Run the tool Bash?");
    let args = phone.text(&phone.find("#args"));
    assert!(args.contains("cargo publish && git tag v2.0.0"), "{args}");
    std::fs::write("/tmp/serve-phone-claude-code-item.png", phone.screenshot()).unwrap();
    phone.submit(&phone.find("button[name=approved][value=true]"));
    assert!(phone.source().contains("Decided"), "{}", phone.source());

    let allowed = hook(&env, &[], &asked);
    assert!(
        allowed.stdout.contains(r#""permissionDecision":"allow""#),
        "{}",
        allowed.stdout
    );
}

/// The owner's minimum policy for Claude Code (`policy set ... --for-agent claude-code`):
/// a session the hook starts with no policy flags is under it, and flags that would leave
/// nobody it allows are a denial, never an ungoverned session.
#[test]
fn the_owner_s_minimum_for_claude_code_governs_every_session() {
    let env = Env::new();
    for name in ["alice", "bob", "carol"] {
        env.cmd(&["reviewer", "add", name]).code(0);
    }
    env.cmd(&[
        "policy",
        "set",
        "floor",
        "--reviewer",
        "alice",
        "--reviewer",
        "bob",
        "--for-agent",
        "claude-code",
    ])
    .code(0);
    let bad = env.cmd(&[
        "policy",
        "set",
        "x",
        "--reviewer",
        "alice",
        "--for-agent",
        "claude code\u{1b}",
    ]);
    assert_shown!(env, bad.code(2), @r"
    [exit 2]
    --- stderr
    error: agent id $'claude code\x1b' is not a name mastra-ask takes: 1 to 64 letters, digits, `.`, `_`, `-` or `@`, not starting with `-`
    ");
    let carol = bash(&env, "make deploy", "toolu_c");
    assert_shown!(env, hook(&env, &["--reviewer", "carol"], &carol), @r#"
    [exit 0]
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"mastra-ask could not gate this call, so it may not run: the run's review leaves nobody policy floor (the minimum for agent claude-code) allows: it may only tighten it (its reviewers are alice, bob)"}}
    "#);
    let asked = bash(&env, "make deploy", "toolu_m");
    hook(&env, &[], &asked).assert_code(0);
    assert_shown!(env, env.cmd(&["pending"]).code(0), @r#"
    [exit 0]
    --- stdout
    [RUN]  toolu_m approval: Bash {"command":"make deploy"}  [AGE] ago
        0 of 1 approval; waiting for 1 from alice or bob
        mastra-ask approve [RUN]
        mastra-ask decline [RUN] --reason <reason>
    "#);
}

#[test]
fn a_run_s_hook_denies_another_session_a_missing_run_and_a_run_not_of_claude_code() {
    let env = Env::new();
    let input = bash(&env, "cargo publish", "toolu_1");
    let other = hook(&env, &["--run", "0b5c1f5e-other"], &input);
    let missing = hook(&env, &["--run", SESSION], &input);
    let agent = env.agent(json!([{"text": "done"}]));
    let (_, id) = env.start(&agent, &[]);
    let mut of_model: Value = serde_json::from_str(&input).unwrap();
    of_model["session_id"] = json!(id);
    let model = hook(&env, &["--run", &id], &of_model.to_string());
    let said = [other, missing, model]
        .map(|o| format!("{} {}", o.code, o.stdout.replace(&id, "[RUN]")))
        .join("");
    assert_shown!(env, said, @r#"
    0 {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"this hook gates run 0b5c1f5e-other of mastra-ask, not session [RUN]"}}
    0 {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"run [RUN] is not in mastra-ask's store"}}
    0 {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"run [RUN] of mastra-ask is not a Claude Code run"}}
    "#);
}
