//! Bad input never changes anything: each case asserts the exit code, a one-line error and
//! that the store is exactly as it was.

use serde_json::json;

use crate::assert_shown;
use crate::common::{assert_one_line_error, Env, Out};
use crate::steps::plan;

/// A store with a run waiting on a single-select question, a plan run, a multi-select run
/// and a run whose question was already answered.
struct Fixture {
    env: Env,
    select: String,
    plan: String,
    multi: String,
    done: String,
}

fn fixture() -> Fixture {
    let env = Env::new();
    let ask = |args: serde_json::Value| json!([{"toolCalls": [{"id": "c1", "name": "ask_user", "args": args}]}, {"text": "ok"}]);
    let agent = env.agent(ask(
        json!({"question": "Pick", "options": [{"label": "red"}, {"label": "blue"}]}),
    ));
    let (_, select) = env.start(&agent, &[]);
    let agent = env.agent(ask(json!({"question": "Pick many", "options": [{"label": "a"}, {"label": "b"}], "selectionMode": "multi_select"})));
    let (_, multi) = env.start(&agent, &[]);
    env.write("work/PLAN.md", "# P\nx");
    let agent = env.agent(json!([plan("p1", "PLAN.md"), {"text": "ok"}]));
    let (_, plan) = env.start(&agent, &[]);
    let agent = env.agent(ask(json!({"question": "Name?"})));
    let (_, done) = env.start(&agent, &[]);
    env.run(&["answer", &done, "Ada"]).assert_code(0);
    Fixture {
        env,
        select,
        plan,
        multi,
        done,
    }
}

impl Fixture {
    #[track_caller]
    fn rejects(&self, args: &[&str], code: i32, needle: &str) -> Out {
        let before = self.env.dump();
        let out = self.env.run(args);
        out.assert_code(code);
        assert_one_line_error(&out, needle);
        assert_eq!(self.env.dump(), before, "the store changed after {args:?}");
        out
    }
}

#[test]
fn the_bad_input_matrix() {
    let f = fixture();
    let (select, plan, multi, done) = (
        f.select.as_str(),
        f.plan.as_str(),
        f.multi.as_str(),
        f.done.as_str(),
    );
    f.rejects(&["answer", "00000000-dead", "x"], 3, "no run 00000000-dead");
    f.rejects(&["show", "ffff"], 3, "no run ffff");
    f.rejects(&["answer", "abc", "red"], 2, "too short");
    f.rejects(
        &["answer", select, "green"],
        2,
        "\"green\" is not one of the options; choose one of: \"red\", \"blue\"",
    );
    f.rejects(&["answer", select, ""], 2, "is not one of the options");
    f.rejects(
        &["answer", select, "bleu"],
        2,
        "\"bleu\" is not one of the options (did you mean \"blue\"?); choose one of: \"red\", \"blue\"",
    );
    f.rejects(
        &["answer", multi, "--multi", "A", "a"],
        2,
        "\"a\" is chosen more than once",
    );
    f.rejects(
        &["answer", select, "--json", "[\"red\"]"],
        2,
        "a single option",
    );
    f.rejects(
        &["answer", select, "--multi", "red"],
        2,
        "--multi is for multi-select questions",
    );
    f.rejects(
        &["answer", multi, "--multi", "a", "a"],
        2,
        "\"a\" is chosen more than once",
    );
    f.rejects(
        &["answer", multi, "--multi", "a", "c"],
        2,
        "\"c\" is not one of the options; choose one or more of: \"a\", \"b\"",
    );
    f.rejects(
        &["answer", multi, "--json", "{not json"],
        2,
        "--json is not valid JSON",
    );
    f.rejects(&["answer", multi, "--json", "[]"], 2, "no option chosen");
    f.rejects(&["answer", plan, "yes"], 2, "is a plan, not a question");
    f.rejects(
        &["review", select, "--approve"],
        2,
        "is a question, not a plan",
    );
    f.rejects(
        &["review", plan, "--json", r#"{"action":"maybe"}"#],
        2,
        "action must be",
    );
    f.rejects(&["review", plan], 2, "no decision given");
    f.rejects(&["answer", select], 2, "no answer given");
    f.rejects(
        &["answer", done, "--tool-call", "c1", "Bob"],
        4,
        "tool call c1 is not pending: it was resolved by tester",
    );
    f.rejects(
        &["answer", done, "Bob"],
        4,
        "is completed: nothing waits for answer",
    );
    f.rejects(
        &["answer", select, "--tool-call", "nope", "red"],
        3,
        "has no tool call nope",
    );
    f.rejects(&["resume", done], 4, "is already completed");
    f.rejects(&["resume", select], 4, "is waiting for input");
    f.rejects(&["cancel", done], 4, "is already completed");
    f.rejects(
        &["run", "--agent", "missing.json", "hi"],
        2,
        "cannot read agent file missing.json",
    );
    f.rejects(&["run"], 2, "no prompt given");
    f.rejects(
        &["run", "--model", "gpt/unknown", "hi"],
        2,
        "unknown model spec",
    );
    f.rejects(
        &["run", "--model", "script:nothing.json", "hi"],
        2,
        "cannot read script",
    );
}

#[test]
fn free_text_must_not_be_empty() {
    let env = Env::new();
    let agent =
        env.agent(json!([{"toolCalls": [{"name": "ask_user", "args": {"question": "Name?"}}]}]));
    let (_, run) = env.start(&agent, &[]);
    let before = env.dump();
    let out = env.cmd(&["answer", &run, "  "]).code(2);
    assert_shown!(env, out.stderr, @"error: the answer is empty; this question takes free text");
    let out = env.run_stdin(&["answer", &run, "-"], "\n");
    out.assert_code(2);
    assert_eq!(env.dump(), before);
}

#[test]
fn malformed_agent_files_are_rejected_before_anything_is_stored() {
    let env = Env::new();
    for (text, needle) in [
        ("{not json", "agent file agent.json: key must be a string"),
        (
            r#"{"id":"a","instructions":"","model":"script:s.json","extra":1}"#,
            "unknown field `extra`",
        ),
        (
            r#"{"id":"a","instructions":"","model":"script:s.json","tools":["shell"]}"#,
            "unknown tool \"shell\"",
        ),
        (
            r#"{"id":"a","instructions":"","model":"script:s.json","maxSteps":0}"#,
            "maxSteps must be between",
        ),
        (
            r#"{"id":"","instructions":"","model":"script:s.json"}"#,
            "id must not be empty",
        ),
        (
            r#"{"instructions":"","model":"script:s.json"}"#,
            "missing field `id`",
        ),
    ] {
        env.write("work/agent.json", text);
        let out = env.cmd(&["run", "--agent", "agent.json", "hi"]).code(2);
        assert_one_line_error(&out, needle);
    }
    env.write("work/s.json", r#"{"steps":[{"txt":"typo"}]}"#);
    env.write(
        "work/agent.json",
        r#"{"id":"a","instructions":"","model":"script:s.json"}"#,
    );
    let out = env.cmd(&["run", "--agent", "agent.json", "hi"]).code(2);
    assert_shown!(env, out.stderr, @"error: script [DIR]/work/s.json: unknown field `txt`, expected one of `id`, `text`, `toolCalls`, `delayMs`, `next` at line 1 column 16");
    assert!(!env.has_store(), "no store was created");
}

#[test]
fn an_exhausted_script_fails_the_run() {
    let env = Env::new();
    let agent =
        env.agent(json!([{"toolCalls": [{"name": "ask_user", "args": {"question": "Name?"}}]}]));
    let (_, run) = env.start(&agent, &[]);
    let out = env.cmd(&["answer", &run, "Ada"]).code(1);
    assert_shown!(env, out.stderr, @"
        error: run [RUN] failed: script [DIR]/work/script.json has no step 2 (it has 1); your answer was recorded, and resume continues the run
        hint: retry it with: mastra-ask resume [RUN]
        ");
    assert_shown!(env, out.stderr, @"
        error: run [RUN] failed: script [DIR]/work/script.json has no step 2 (it has 1); your answer was recorded, and resume continues the run
        hint: retry it with: mastra-ask resume [RUN]
        ");
    assert_eq!(env.status(&run), "failed");
    // The answer and its result are kept.
    assert_eq!(env.tool_results(&run).len(), 1);
}

#[test]
fn json_mode_errors_are_one_json_line() {
    let env = Env::new();
    let out = env.cmd(&["-o", "json", "show", "0000ffff"]).code(3);
    let line: serde_json::Value = serde_json::from_str(out.stderr.trim()).unwrap();
    assert_eq!(line["error"]["code"], "NOT_FOUND");
    assert_eq!(line["error"]["message"], "no run 0000ffff");
    let out = env
        .cmd(&["-o", "json", "run", "--model", "nope", "hi"])
        .code(2);
    let line: serde_json::Value = serde_json::from_str(out.stderr.trim()).unwrap();
    assert_eq!(line["error"]["code"], "USAGE");
}

/// A label given in another case is the label (§5.4): the label as the question wrote it
/// is stored and is what the model gets.
#[test]
fn a_label_in_another_case_is_taken_as_written_in_the_question() {
    let f = fixture();
    f.env.run(&["answer", &f.select, "BLUE"]).assert_code(0);
    f.env
        .run(&["answer", &f.multi, "--multi", "B", "a"])
        .assert_code(0);
    assert_eq!(
        f.env.tool_results(&f.select)[0].1["content"],
        "User answered: blue"
    );
    assert_eq!(
        f.env.show(&f.multi)["suspensions"][0]["resumeData"],
        json!(["b", "a"])
    );
}
