//! Answering and reviewing at a terminal (SPEC §5.2), driven through a pseudo-terminal: the
//! prompts take keys, what they record is stored with `via = prompt`, quitting records
//! nothing and exits 130, and without a terminal nothing ever prompts or waits.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{assert_one_line_error, Env, Out};
use crate::pty::{Pty, CTRL_C, DOWN, ENTER, ESC};

fn free_text() -> Value {
    json!({"toolCalls": [{"id": "call_version", "name": "ask_user", "args": {"question": "Which version are we releasing?"}}]})
}

fn single_select() -> Value {
    json!({"toolCalls": [{"id": "call_channel", "name": "ask_user", "args": {
        "question": "Which channel?",
        "options": [
            {"label": "stable", "description": "Everyone gets it"},
            {"label": "beta", "description": "Opt-in testers first"},
            {"label": "nightly"}
        ]
    }}]})
}

fn multi_select() -> Value {
    json!({"toolCalls": [{"id": "call_chores", "name": "ask_user", "args": {
        "question": "What comes first?",
        "options": [{"label": "Add tests"}, {"label": "Update docs"}, {"label": "Bump deps"}],
        "selectionMode": "multi_select"
    }}]})
}

fn plan_step() -> Value {
    json!({"toolCalls": [{"id": "call_plan", "name": "submit_plan", "args": {"path": "PLAN.md"}}]})
}

const PLAN: &str =
    "# Release plan\n\n## Steps\n\n1. Freeze main\n2. Tag the release\n\n```sh\ngit tag v2\n```\n";

fn done() -> Value {
    json!({"text": "Done."})
}

/// A run of a scripted agent, suspended on its first step (started without a terminal).
fn suspended(env: &Env, steps: Value) -> String {
    env.write("work/PLAN.md", PLAN);
    let agent = env.agent(steps);
    env.suspended(&agent)
}

/// `(state, resolved_via, resolved_by, resume_data)` of one tool call.
fn resolution(env: &Env, run: &str, call: &str) -> (String, Option<String>, Option<String>, Value) {
    let show = env.show(run);
    let item = show["suspensions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["toolCallId"] == call)
        .unwrap()
        .clone();
    let text = |k: &str| item[k].as_str().map(str::to_string);
    (
        text("state").unwrap(),
        text("resolvedVia"),
        text("resolvedBy"),
        item["resumeData"].clone(),
    )
}

#[track_caller]
fn assert_answered(env: &Env, run: &str, call: &str, answer: Value) {
    let (state, via, by, data) = resolution(env, run, call);
    assert_eq!(state, "resolved");
    assert_eq!(via.as_deref(), Some("prompt"));
    assert_eq!(by.as_deref(), Some("tester"));
    assert_eq!(data, answer);
}

fn result_content(env: &Env, run: &str, call: &str) -> String {
    env.tool_results(run)
        .into_iter()
        .find(|(id, _)| id == call)
        .map(|(_, r)| r["content"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no result for {call}"))
}

#[test]
fn free_text_is_typed_and_recorded_via_prompt() {
    let env = Env::new();
    let run = suspended(&env, json!([free_text(), done()]));
    let mut pty = Pty::spawn(&env, &["answer", &run], &[]);
    // An empty line is not an answer: the prompt stays.
    pty.dialog(&[
        ("Which version are we releasing?", "   \r"),
        ("the answer is empty", "2.0.0\r"),
        ("Done.", ""),
    ]);
    pty.ends(0);
    assert_answered(&env, &run, "call_version", json!("2.0.0"));
    assert_eq!(
        result_content(&env, &run, "call_version"),
        "User answered: 2.0.0"
    );
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn single_select_starts_on_the_first_option_and_moves_with_arrows() {
    let env = Env::new();
    let run = suspended(&env, json!([single_select(), done()]));
    let mut pty = Pty::spawn(&env, &["answer", &run[..8]], &[]);
    pty.dialog(&[
        ("Which channel?", ""),
        ("> stable — Everyone gets it", ""),
        ("beta — Opt-in testers first", DOWN),
        ("> beta", ENTER),
        ("Which channel?: beta", ""),
    ]);
    pty.ends(0);
    assert_answered(&env, &run, "call_channel", json!("beta"));
    assert_eq!(
        result_content(&env, &run, "call_channel"),
        "User answered: beta"
    );
}

#[test]
fn multi_select_ticks_with_space_and_needs_at_least_one() {
    let env = Env::new();
    let run = suspended(&env, json!([multi_select(), done()]));
    let mut pty = Pty::spawn(&env, &["answer", &run], &[]);
    pty.dialog(&[
        ("What comes first?", ""),
        ("Bump deps", ENTER),
        ("choose at least one option", ""),
        ("Bump deps", &format!(" {DOWN}{DOWN} {ENTER}")),
        ("Done.", ""),
    ]);
    pty.ends(0);
    assert_answered(&env, &run, "call_chores", json!(["Add tests", "Bump deps"]));
    assert_eq!(
        result_content(&env, &run, "call_chores"),
        "User answered: Add tests, Bump deps"
    );
}

#[test]
fn a_plan_is_shown_and_approved_from_the_menu() {
    let env = Env::new();
    let run = suspended(&env, json!([plan_step(), done()]));
    // A pager that would announce itself: a plan that fits the screen is never paged.
    let mut pty = Pty::spawn(
        &env,
        &["review", &run],
        &[("PAGER", "echo PAGER-STARTED; cat")],
    );
    pty.expect("# Release plan");
    pty.expect("(PLAN.md)");
    pty.expect("1. Freeze main");
    pty.expect("git tag v2");
    pty.expect("> Approve");
    pty.send(ENTER);
    pty.expect("Done.");
    let (code, text) = pty.finish();
    assert_eq!(code, 0);
    assert!(!text.contains("PAGER-STARTED"), "{text}");
    let (_, via, _, data) = resolution(&env, &run, "call_plan");
    assert_eq!(via.as_deref(), Some("prompt"));
    assert_eq!(data["action"], "approved");
    assert!(result_content(&env, &run, "call_plan").starts_with("Plan approved."));
}

#[test]
fn a_plan_is_rejected_with_feedback_typed_inline() {
    let env = Env::new();
    let run = suspended(&env, json!([plan_step(), done()]));
    let mut pty = Pty::spawn(&env, &["review", &run], &[]);
    pty.expect("> Approve");
    pty.send(DOWN);
    pty.expect("> Reject with feedback");
    pty.send(ENTER);
    pty.expect("Feedback for the agent");
    pty.send("Add a rollback step\r");
    pty.expect("Done.");
    let (code, _) = pty.finish();
    assert_eq!(code, 0);
    let (_, via, _, data) = resolution(&env, &run, "call_plan");
    assert_eq!(via.as_deref(), Some("prompt"));
    assert_eq!(data["action"], "rejected");
    assert_eq!(data["feedback"], "Add a rollback step");
    assert!(result_content(&env, &run, "call_plan").contains("Add a rollback step"));
}

#[test]
fn feedback_can_be_written_in_the_editor_when_asked_for() {
    let env = Env::new();
    let run = suspended(&env, json!([plan_step(), done()]));
    // The editor is run as `sh -c '$EDITOR "$@"'`: this one writes the file and exits.
    let editor = "printf 'Split the tag step\\n\\nand sign it' >";
    let mut pty = Pty::spawn(&env, &["review", &run], &[("EDITOR", editor)]);
    pty.expect("> Approve");
    pty.send(&format!("{DOWN}{DOWN}{DOWN}"));
    pty.expect("> Reject with feedback written in an editor");
    pty.send(ENTER);
    pty.expect("Done.");
    let (code, _) = pty.finish();
    assert_eq!(code, 0);
    let (_, _, _, data) = resolution(&env, &run, "call_plan");
    assert_eq!(data["action"], "rejected");
    assert_eq!(data["feedback"], "Split the tag step\n\nand sign it");
}

#[test]
fn a_plan_longer_than_the_screen_goes_through_the_pager() {
    let env = Env::new();
    let long: String = (1..=80).map(|i| format!("- step {i}\n")).collect();
    env.write("work/PLAN.md", &format!("# Long plan\n\n{long}"));
    let agent = env.agent(json!([plan_step(), done()]));
    let run = env.suspended(&agent);
    let mut pty = Pty::spawn(
        &env,
        &["review", &run],
        &[("PAGER", "echo PAGER-STARTED; cat")],
    );
    pty.expect("PAGER-STARTED");
    pty.expect("- step 80");
    pty.expect("> Approve");
    pty.send(ENTER);
    let (code, _) = pty.finish();
    assert_eq!(code, 0);
}

#[test]
fn ctrl_c_leaves_the_item_pending_records_nothing_and_exits_130() {
    let env = Env::new();
    let run = suspended(&env, json!([single_select(), done()]));
    let before = env.dump();
    let mut pty = Pty::spawn(&env, &["answer", &run], &[]);
    pty.expect("> stable");
    pty.send(DOWN);
    pty.expect("> beta");
    assert!(!pty.signal_keys_on(), "a prompt reads Ctrl-C as a key");
    pty.send(CTRL_C);
    let (code, text) = pty.finish();
    assert_eq!(code, 130, "{text}");
    assert!(
        text.contains("error: interrupted; nothing recorded"),
        "{text}"
    );
    // The terminal is left as the shell needs it: signal keys on, cursor shown.
    assert!(pty.signal_keys_on());
    let hidden = text
        .rfind("\u{1b}[?25l")
        .expect("the menu hides the cursor");
    assert!(text.rfind("\u{1b}[?25h") > Some(hidden), "{text:?}");
    assert!(
        text.contains(&format!("mastra-ask answer {run}")),
        "the hint names the command: {text}"
    );
    assert_eq!(env.dump(), before);
    assert_eq!(env.status(&run), "suspended");
}

#[test]
fn ctrl_c_in_free_text_and_esc_in_a_menu_also_record_nothing() {
    let env = Env::new();
    let run = suspended(&env, json!([free_text(), done()]));
    let before = env.dump();
    let mut pty = Pty::spawn(&env, &["answer", &run], &[]);
    pty.expect("Which version");
    pty.send("2.0");
    pty.send(CTRL_C);
    let (code, text) = pty.finish();
    assert_eq!(code, 130, "{text}");
    assert_eq!(env.dump(), before);

    let env = Env::new();
    let run = suspended(&env, json!([plan_step(), done()]));
    let before = env.dump();
    let mut pty = Pty::spawn(&env, &["review", &run], &[]);
    pty.expect("> Approve");
    pty.send(ESC);
    let (code, text) = pty.finish();
    assert_eq!(code, 130, "{text}");
    assert!(text.contains(&format!("mastra-ask review {run}")), "{text}");
    assert_eq!(env.dump(), before);
}

#[test]
fn run_answers_two_questions_inline_and_completes() {
    let env = Env::new();
    let agent = env.agent(json!([free_text(), single_select(), done()]));
    let mut pty = Pty::spawn(&env, &["run", "--agent", &agent, "Prepare"], &[]);
    pty.expect("Which version are we releasing?");
    pty.send("2.0.0\r");
    pty.expect("> stable");
    pty.send(&format!("{DOWN}{DOWN}{ENTER}"));
    pty.expect("Done.");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    // Nothing was left to answer later, so no command to answer it was printed.
    assert!(!text.contains("is waiting for input"), "{text}");
    let run = env.latest_run().unwrap();
    assert_eq!(env.status(&run), "completed");
    assert_answered(&env, &run, "call_version", json!("2.0.0"));
    assert_answered(&env, &run, "call_channel", json!("nightly"));
    let results: Vec<String> = env
        .tool_results(&run)
        .into_iter()
        .map(|(_, r)| r["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(results, ["User answered: 2.0.0", "User answered: nightly"]);
}

#[test]
fn quitting_inline_during_run_leaves_the_run_suspended() {
    let env = Env::new();
    let agent = env.agent(json!([free_text(), single_select(), done()]));
    let mut pty = Pty::spawn(&env, &["run", "--agent", &agent, "Prepare"], &[]);
    pty.expect("Which version are we releasing?");
    pty.send("2.0.0\r");
    pty.expect("> stable");
    pty.send(ESC);
    let (code, text) = pty.finish();
    assert_eq!(code, 130, "{text}");
    // The error says what this sitting kept, and what it did not.
    assert!(
        text.contains("nothing recorded for tool call call_channel")
            && text.contains("recorded earlier: call_version (question) \"2.0.0\""),
        "{text}"
    );
    let run = env.latest_run().unwrap();
    assert_eq!(env.status(&run), "suspended");
    assert_answered(&env, &run, "call_version", json!("2.0.0"));
    assert_eq!(resolution(&env, &run, "call_channel").0, "pending");
}

#[test]
fn without_a_run_the_pending_items_of_the_right_kind_are_offered() {
    let env = Env::new();
    env.write("work/PLAN.md", PLAN);
    let agent = env.agent(json!([free_text(), done()]));
    let (_, first) = env.start(&agent, &[]);
    let (_, second) = env.start(&agent, &[]);
    // A plan waits too, from another agent: `answer` does not offer it.
    env.write(
        "work/plan-script.json",
        &json!({"steps": [plan_step(), done()]}).to_string(),
    );
    env.cmd(&["run", "--model", "script:plan-script.json", "Plan it"])
        .code(75);

    // Esc in the choice records nothing.
    let before = env.dump();
    let mut pty = Pty::spawn(&env, &["answer"], &[]);
    pty.expect("Which question?");
    pty.expect(&format!("{second}  call_version question"));
    pty.send(ESC);
    let (code, text) = pty.finish();
    assert_eq!(code, 130, "{text}");
    assert_eq!(env.dump(), before);

    let mut pty = Pty::spawn(&env, &["answer"], &[]);
    pty.expect("Which question?");
    pty.expect(&format!("> {first}  call_version question: Which"));
    pty.expect(&format!("{second}  call_version question"));
    pty.send(&format!("{DOWN}{ENTER}"));
    pty.expect("Which version are we releasing?");
    pty.send("3.1\r");
    pty.expect("Done.");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("plan:"), "plans are not offered: {text}");
    assert_answered(&env, &second, "call_version", json!("3.1"));
    assert_eq!(env.status(&first), "suspended");
}

#[test]
fn review_without_a_run_takes_the_only_plan_and_answer_with_none_says_so() {
    let env = Env::new();
    let run = suspended(&env, json!([plan_step(), done()]));
    let mut pty = Pty::spawn(&env, &["answer"], &[]);
    let (code, text) = {
        pty.expect("no question is waiting for an answer");
        pty.finish()
    };
    assert_eq!(code, 3, "{text}");

    let mut pty = Pty::spawn(&env, &["review"], &[]);
    pty.expect("> Approve");
    pty.send(ENTER);
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    assert_eq!(
        resolution(&env, &run, "call_plan").1.as_deref(),
        Some("prompt")
    );
}

const HOSTILE: &str = "Clear\u{1b}[2J title\u{1b}]0;pwned\u{7} rtl\u{202e}gnp.exe";
const HOSTILE_SHOWN: &str = "Clear\\x1b[2J title\\x1b]0;pwned\\x07 rtl\\u{202e}gnp.exe";

#[track_caller]
fn assert_nothing_raw(text: &str) {
    assert!(!text.contains("\u{1b}[2J"), "raw clear-screen in {text:?}");
    assert!(
        !text.contains("\u{1b}]0;"),
        "raw title sequence in {text:?}"
    );
    assert!(!text.contains('\u{7}'), "raw bell in {text:?}");
    assert!(!text.contains('\u{202e}'), "raw bidi override in {text:?}");
}

#[test]
fn hostile_questions_and_labels_are_shown_escaped_in_the_prompt() {
    let env = Env::new();
    let run = suspended(
        &env,
        json!([{"toolCalls": [{"id": "q1", "name": "ask_user", "args": {
            "question": HOSTILE,
            "options": [{"label": "a\u{1b}[31mred", "description": HOSTILE}, {"label": "b"}]
        }}]}]),
    );
    let mut pty = Pty::spawn(&env, &["answer", &run], &[]);
    pty.expect(HOSTILE_SHOWN);
    pty.expect("a\\x1b[31mred — ");
    pty.send(CTRL_C);
    let (code, text) = pty.finish();
    assert_eq!(code, 130, "{text}");
    assert_nothing_raw(&text);
    assert!(!text.contains("\u{1b}[31mred"), "{text:?}");
}

#[test]
fn hostile_plans_are_shown_escaped_in_the_review() {
    let env = Env::new();
    env.write(
        "work/PLAN.md",
        &format!("# {HOSTILE}\n\n## Steps {HOSTILE}\n\n- {HOSTILE}\n"),
    );
    let agent = env.agent(json!([plan_step(), done()]));
    let run = env.suspended(&agent);
    for color in ["never", "always"] {
        let mut pty = Pty::spawn(&env, &["--color", color, "review", &run], &[]);
        pty.expect(HOSTILE_SHOWN);
        pty.expect(HOSTILE_SHOWN);
        pty.expect(HOSTILE_SHOWN);
        pty.expect("Approve");
        pty.send(ESC);
        let (code, text) = pty.finish();
        assert_eq!(code, 130, "{text}");
        assert_nothing_raw(&text);
    }
}

/// An SGR (colour or style) escape sequence: ESC [ digits and semicolons, then `m`.
fn has_sgr(text: &str) -> bool {
    text.split('\u{1b}').skip(1).any(|rest| {
        rest.strip_prefix('[').is_some_and(|r| {
            let params: String = r
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ';')
                .collect();
            r[params.len()..].starts_with('m')
        })
    })
}

#[test]
fn colours_follow_no_color_and_the_color_flag() {
    let env = Env::new();
    let run = suspended(&env, json!([plan_step(), done()]));
    // NO_COLOR is set by the harness.
    let mut pty = Pty::spawn(&env, &["review", &run], &[]);
    pty.expect("Approve");
    pty.send(ESC);
    let (_, plain) = pty.finish();
    assert!(!has_sgr(&plain), "colours despite NO_COLOR: {plain:?}");

    let mut pty = Pty::spawn(&env, &["--color", "always", "review", &run], &[]);
    pty.expect("Approve");
    pty.send(ESC);
    let (_, coloured) = pty.finish();
    assert!(
        has_sgr(&coloured),
        "no colours with --color always: {coloured:?}"
    );
    // Rendered Markdown: the heading without its marks, the code block without its fence.
    assert!(!coloured.contains("## Steps"), "{coloured:?}");
    assert!(!coloured.contains("```"), "{coloured:?}");
}

/// Runs a command that must end quickly (it must never wait for input).
#[track_caller]
fn quick(env: &Env, mut command: std::process::Command) -> Out {
    command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let start = Instant::now();
    let out = env.run_with(command);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    out
}

#[test]
fn without_a_terminal_nothing_prompts_or_waits() {
    let env = Env::new();
    let run = suspended(&env, json!([free_text(), done()]));
    let plan_run = {
        env.write(
            "work/plan-script.json",
            &json!({"steps": [plan_step(), done()]}).to_string(),
        );
        env.run(&["run", "--model", "script:plan-script.json", "Plan it"])
            .assert_code(75);
        env.latest_run().unwrap()
    };
    let before = env.dump();
    let cases: [(Vec<&str>, &str); 4] = [
        (vec!["answer", &run], "--multi"),
        (vec!["answer"], "--multi"),
        (vec!["review", &plan_run], "--approve"),
        (vec!["review"], "--approve"),
    ];
    for closed in [false, true] {
        for (args, flag) in &cases {
            let mut command = env.command(args);
            if closed {
                close_stdin(&mut command);
            }
            let out = quick(&env, command);
            out.assert_code(2);
            assert_one_line_error(&out, "no ");
            assert!(out.stderr.contains(flag), "{args:?}: {}", out.stderr);
        }
    }
    assert_eq!(env.dump(), before);
    // A run that suspends says how to answer and exits 75.
    let agent = env.agent(json!([free_text(), done()]));
    for closed in [false, true] {
        let mut command = env.command(&["run", "--agent", &agent, "Go"]);
        if closed {
            close_stdin(&mut command);
        }
        let out = quick(&env, command);
        out.assert_code(75);
        assert!(out.stderr.contains("<answer>"), "{}", out.stderr);
    }
}

/// Sends the command's stderr to `path`, after the pseudo-terminal is set up (which closes
/// every other descriptor before the program starts).
fn stderr_to(command: &mut std::process::Command, path: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::CommandExt;
    let path = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: open, dup2 and close are async-signal-safe; the path was prepared before.
    unsafe {
        command.pre_exec(move || {
            let fd = libc::open(
                path.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
                0o600,
            );
            if fd < 0 || libc::dup2(fd, 2) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::close(fd);
            Ok(())
        });
    }
}

fn close_stdin(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: close(2) is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::close(0);
            Ok(())
        });
    }
}

#[test]
fn at_a_terminal_no_input_or_a_redirected_stream_means_no_prompt() {
    let env = Env::new();
    let run = suspended(&env, json!([free_text(), done()]));
    let before = env.dump();

    // --no-input, stdin and stderr both terminals.
    let mut pty = Pty::spawn(&env, &["--no-input", "answer", &run], &[]);
    pty.expect("error: no answer given");
    let (code, _) = pty.finish();
    assert_eq!(code, 2);

    // stdin from /dev/null, stderr a terminal.
    let mut command = env.command(&["answer", &run]);
    command.env("TERM", "xterm");
    let mut pty = Pty::from_command(command);
    pty.expect("error: no answer given");
    let (code, _) = pty.finish();
    assert_eq!(code, 2);

    // stdin a terminal, stderr to a file.
    let log = env.path("stderr.log");
    let mut command = env.command(&["answer", &run]);
    command
        .stdin(std::process::Stdio::inherit())
        .env("TERM", "xterm");
    stderr_to(&mut command, &log);
    let (code, _) = Pty::from_command(command).finish();
    assert_eq!(code, 2);
    assert!(std::fs::read_to_string(&log)
        .unwrap()
        .contains("error: no answer given"));
    assert_eq!(env.dump(), before);

    // `run` with --no-input at a terminal suspends as before.
    let agent = env.agent(json!([free_text(), done()]));
    let mut pty = Pty::spawn(&env, &["--no-input", "run", "--agent", &agent, "Go"], &[]);
    pty.expect("is waiting for input");
    let (code, _) = pty.finish();
    assert_eq!(code, 75);
}

#[test]
fn ask_at_a_terminal_prompts_and_prints_the_answer() {
    let env = Env::new();
    let mut pty = Pty::spawn(
        &env,
        &["ask", "Deploy now?", "--option", "yes", "--option", "no"],
        &[],
    );
    pty.expect("> yes");
    pty.send(DOWN);
    pty.expect("> no");
    pty.send(ENTER);
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    let run = env.latest_run().unwrap();
    assert!(
        text.lines().any(|l| l.trim() == "no"),
        "the answer is printed: {text}"
    );
    assert!(
        !text.contains(&run),
        "no run id when the answer came at once: {text}"
    );
    let row = env
        .rows("SELECT resolved_via, resume_data FROM calls", &[])
        .remove(0);
    let (via, data) = (row[0].clone().unwrap(), row[1].clone().unwrap());
    assert_eq!((via.as_str(), data.as_str()), ("prompt", "\"no\""));
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn a_reviewer_who_chose_to_reject_is_never_one_enter_from_approving() {
    let env = Env::new();
    let run = suspended(&env, json!([plan_step(), done()]));
    let before = env.dump();
    let mut pty = Pty::spawn(&env, &["review", &run], &[]);
    pty.expect("> Approve");
    pty.send(DOWN);
    pty.expect("> Reject with feedback");
    pty.send(ENTER);
    pty.expect("Feedback for the agent");
    // An empty line: no feedback. The menu comes back on the entry chosen, not on Approve.
    pty.send(ENTER);
    pty.expect("no feedback given; choose again");
    pty.expect("> Reject with feedback (typed here)");
    // The Enter pressed out of habit asks for feedback again; it never approves.
    pty.send(ENTER);
    pty.expect("Feedback for the agent");
    pty.send(CTRL_C);
    let (code, text) = pty.finish();
    assert_eq!(code, 130, "{text}");
    assert_eq!(env.dump(), before, "nothing was recorded");
    assert_eq!(env.status(&run), "suspended");
}

#[test]
fn ctrl_c_in_free_text_ends_the_typed_line_first() {
    let env = Env::new();
    let run = suspended(&env, json!([free_text(), done()]));
    let mut pty = Pty::spawn(&env, &["answer", &run], &[]);
    pty.expect("Which version");
    pty.send("half typed");
    pty.expect("half typed");
    pty.send(CTRL_C);
    let (code, text) = pty.finish();
    assert_eq!(code, 130, "{text}");
    let typed = text.find("half typed").unwrap();
    let error = text.find("error: interrupted").unwrap();
    assert!(
        text[typed..error].contains('\n'),
        "the error starts on a line of its own: {text:?}"
    );
}

#[test]
fn the_feedback_editor_shows_the_plan_below_a_scissors_line() {
    let env = Env::new();
    let run = suspended(&env, json!([plan_step(), done()]));
    let seen = env.path("seen.md");
    env.write(
        "work/editor.sh",
        &format!(
            "#!/bin/sh\ncp \"$1\" '{}'\nsed -i '1s/^/Please split the tag step/' \"$1\"\n",
            seen.display()
        ),
    );
    let editor = format!("sh {}", env.path("work/editor.sh").display());
    let mut pty = Pty::spawn(&env, &["review", &run], &[("EDITOR", &editor)]);
    pty.expect("> Approve");
    pty.send(&format!("{DOWN}{DOWN}{DOWN}"));
    pty.expect("> Reject with feedback written in an editor");
    pty.send(ENTER);
    pty.expect("Feedback for the agent (from the editor):");
    pty.expect("Please split the tag step");
    pty.expect("Done.");
    let (code, _) = pty.finish();
    assert_eq!(code, 0);
    let template = std::fs::read_to_string(&seen).unwrap();
    assert!(template.contains(">8"), "{template}");
    assert!(template.contains("#   Release plan"), "{template}");
    assert!(template.contains("1. Freeze main"), "{template}");
    let (_, _, _, data) = resolution(&env, &run, "call_plan");
    assert_eq!(data["feedback"], "Please split the tag step");
}

#[test]
fn a_paged_plan_is_summed_up_and_can_be_read_again() {
    let env = Env::new();
    let long: String = (1..=80).map(|i| format!("- step {i}\n")).collect();
    env.write("work/PLAN.md", &format!("# Long plan\n\n{long}"));
    let agent = env.agent(json!([plan_step(), done()]));
    let (_, run) = env.start(&agent, &[]);
    let mut pty = Pty::spawn(&env, &["review", &run], &[("PAGER", "echo PAGED; cat")]);
    pty.expect("PAGED");
    pty.expect("Long plan (PLAN.md):");
    pty.expect("shown in the pager");
    pty.send(&format!("{DOWN}{DOWN}{DOWN}{DOWN}"));
    pty.expect("> Read the plan again");
    pty.send(ENTER);
    pty.expect("PAGED");
    pty.expect("> Approve");
    pty.send(ENTER);
    pty.expect("Done.");
    let (code, _) = pty.finish();
    assert_eq!(code, 0);
}

// ---- a waiter at a terminal whose item is decided elsewhere -------------------------------

/// `plan --wait` at a terminal, its menu open, is approved by another process: leaving the
/// menu says who decided (never "nothing recorded … still pending"), and the waiter ends by
/// that decision (exit 0, the run completed). Both backends.
#[test]
fn a_terminal_plan_waiter_approved_elsewhere_says_so_when_its_menu_is_left() {
    let env = Env::new();
    env.write("work/PLAN.md", PLAN);
    let mut pty = Pty::spawn(&env, &["plan", "PLAN.md", "--wait"], &[]);
    pty.expect("> Approve");
    let run = env.first_pending();
    env.run(&["review", &run, "--approve", "--as", "colleague"])
        .assert_code(0);
    pty.send(ESC);
    pty.expect("was approved by colleague from another process");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("still pending"), "{text}");
    assert!(!text.contains("nothing recorded"), "{text}");
    assert_eq!(env.status(&run), "completed");
}

/// `run --wait` at a terminal, its question open, answered by another process: choosing at
/// the prompt afterwards does not record over it (no conflict, exit 0); the waiter says who
/// answered and drives the next leg itself.
#[test]
fn a_terminal_run_waiter_answered_elsewhere_drives_the_next_leg() {
    let env = Env::new();
    let agent = env.agent(json!([single_select(), done()]));
    let mut pty = Pty::spawn(&env, &["run", "--wait", "--agent", &agent, "Go"], &[]);
    pty.expect("Which channel?");
    let run = env.first_pending();
    let out = env.cmd(&["answer", &run, "beta", "--as", "bob"]).code(0);
    assert!(
        out.stderr.contains("the waiting process continues the run"),
        "{}",
        out.stderr
    );
    pty.send(ENTER);
    pty.expect("was answered by bob from another process");
    pty.expect("Done.");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    let (_, via, by, data) = resolution(&env, &run, "call_channel");
    assert_eq!((via.as_deref(), by.as_deref()), (Some("flag"), Some("bob")));
    assert_eq!(data, json!("beta"));
    assert_eq!(env.status(&run), "completed");
}

/// `review RUN` at a terminal, its menu open, while a colleague rejects the plan: leaving the
/// menu says who decided, not "still pending", and exits 4 (already resolved).
#[test]
fn a_terminal_review_left_after_a_decision_elsewhere_says_who_decided() {
    let env = Env::new();
    let run = suspended(&env, json!([plan_step(), done()]));
    let mut pty = Pty::spawn(&env, &["review", &run], &[]);
    pty.expect("> Approve");
    env.run(&[
        "--no-input",
        "review",
        &run,
        "--reject",
        "--as",
        "colleague",
    ])
    .assert_code(0);
    pty.send(ESC);
    pty.expect("was rejected by colleague from another process; nothing recorded here");
    let (code, text) = pty.finish();
    assert_eq!(code, 4, "{text}");
    assert!(!text.contains("still pending"), "{text}");
}
