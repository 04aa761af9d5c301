//! Text from a model is shown escaped in text mode (SPEC §5.6), terminal or not.

use serde_json::json;

use crate::common::Env;
use crate::steps::plan;

const HOSTILE: &str = "Clear\u{1b}[2J title\u{1b}]0;pwned\u{7} rtl\u{202e}gnp.exe\nsecond line";

#[test]
fn hostile_questions_and_labels_are_escaped_in_pending_and_show() {
    let env = Env::new();
    let agent = env.agent(json!([
        {"toolCalls": [{"id": "q\u{1b}[1m", "name": "ask_user", "args": {"question": HOSTILE, "options": [{"label": "a\u{1b}[31mred"}, {"label": "b"}]}}]}
    ]));
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    let expected = "Clear\\x1b[2J title\\x1b]0;pwned\\x07 rtl\\u{202e}gnp.exe\\nsecond line";
    for text in [
        out.stderr.clone(),
        env.run(&["pending"]).stdout,
        env.run(&["show", &run]).stdout,
    ] {
        assert!(text.contains(expected), "{text}");
        assert!(text.contains("a\\x1b[31mred"), "{text}");
        assert!(!text.contains('\u{1b}'), "raw escape in {text:?}");
        assert!(!text.contains('\u{202e}'), "raw bidi override in {text:?}");
        assert!(!text.contains('\u{7}'));
    }
    // JSON keeps the data as it is (escaped by JSON itself).
    let items = env.run(&["pending", "-o", "json"]).json_lines();
    assert_eq!(items[0]["suspendPayload"]["question"], HOSTILE);
}

#[test]
fn agent_text_keeps_newlines_but_not_escapes() {
    let env = Env::new();
    let agent = env.agent(json!([{"text": "line one\n\tindented \u{1b}[2Jgone"}]));
    let (out, _) = env.start(&agent, &[]);
    out.assert_code(0);
    assert_eq!(out.stdout, "line one\n\tindented \\x1b[2Jgone\n");
}

#[test]
fn colours_follow_the_flag_and_no_color() {
    let env = Env::new();
    let mut cmd = env.command(&["--color", "always", "show", "0000abcd"]);
    cmd.env_remove("NO_COLOR");
    let out = env.run_with(cmd);
    out.assert_code(3);
    assert!(
        out.stderr
            .starts_with("\u{1b}[31m\u{1b}[1merror:\u{1b}[0m no run 0000abcd"),
        "{:?}",
        out.stderr
    );
    // NO_COLOR (set by the harness) and --color never give plain text.
    assert!(env
        .run(&["show", "0000abcd"])
        .stderr
        .starts_with("error: no run"));
    let mut cmd = env.command(&["--color", "never", "show", "0000abcd"]);
    cmd.env_remove("NO_COLOR");
    assert!(env.run_with(cmd).stderr.starts_with("error: no run"));
}

#[test]
fn hostile_plans_are_escaped_in_pending_and_show() {
    let env = Env::new();
    env.write(
        "work/PLAN.md",
        &format!("# {HOSTILE}\n\nStep one {HOSTILE}\n"),
    );
    let agent = env.agent(json!([plan("p1", "PLAN.md")]));
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    // The title is the first line of HOSTILE; the rest goes to the plan's body.
    let title = "p1 plan: Clear\\x1b[2J title\\x1b]0;pwned\\x07 rtl\\u{202e}gnp.exe (PLAN.md)";
    let show = env.run(&["show", &run]).stdout;
    for text in [
        out.stderr.clone(),
        env.run(&["pending"]).stdout,
        show.clone(),
    ] {
        assert!(text.contains(title), "{text}");
        assert!(!text.contains('\u{1b}'), "raw escape in {text:?}");
        assert!(!text.contains('\u{202e}'), "raw bidi override in {text:?}");
        assert!(!text.contains('\u{7}'));
    }
    // `show`'s events name the plan by its title, escaped.
    assert!(
        show.contains("p1 submit_plan waits: plan \"Clear\\x1b[2J title\\x1b]0;pwned\\x07 rtl\\u{202e}gnp.exe\" (PLAN.md)"),
        "{show}"
    );
}
