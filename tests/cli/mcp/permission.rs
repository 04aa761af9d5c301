//! `approval_prompt`, Claude Code's `--permission-prompt-tool` contract (SPEC §16): it denies
//! while nobody decided; the same call retried (a new `claude -p`, a new server) finds the
//! same item; an allow, with the input as approved, is used once; a refusal is kept.

use serde_json::{json, Value};

use super::{text, Client};
use crate::common::Env;

fn ask(c: &mut Client, id: i64, command: &str) -> Value {
    let args = json!({"tool_name": "Bash", "input": {"command": command}, "tool_use_id": format!("toolu_{id}")});
    let r = c.call(id, "approval_prompt", args);
    assert_eq!(r["isError"], json!(false), "{r}");
    serde_json::from_str(&text(&r)).expect("the result's text is JSON")
}

fn runs(env: &Env) -> i64 {
    env.count("SELECT count(*) FROM runs", &[])
}

#[test]
fn a_retried_permission_prompt_finds_its_item_and_an_allow_is_used_once() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &["--wait", "0s"]);
    c.initialize("2025-06-18", json!({}));
    let first = ask(&mut c, 1, "ls");
    crate::assert_shown!(env, first, @r#"{"behavior":"deny","message":"A person has not decided yet (run [RUN]). To decide it, use: mastra-ask approve [RUN], or mastra-ask decline [RUN]. Then retry the same call: it finds the decision."}"#);
    assert_eq!(ask(&mut c, 2, "ls")["behavior"], json!("deny"));
    assert_eq!(runs(&env), 1, "the retry found the same item");
    c.kill();
    let run = env.latest_run().unwrap();
    let changed = r#"{"tool_name":"Bash","input":{"command":"ls -la"}}"#;
    env.cmd(&["approve", &run, "--args", changed]).code(0);
    // A new server (a new `claude -p`), the same call: the allow, with the approved input.
    let mut c = Client::spawn(&env, &["--wait", "0s"]);
    c.initialize("2025-06-18", json!({}));
    let allowed = ask(&mut c, 3, "ls");
    assert_eq!(
        allowed,
        json!({"behavior": "allow", "updatedInput": {"command": "ls -la"}})
    );
    // Used once: the same call again asks a person again.
    assert_eq!(ask(&mut c, 4, "ls")["behavior"], json!("deny"));
    assert_eq!(runs(&env), 2);
    let again = env.latest_run().unwrap();
    env.cmd(&["decline", &again, "--reason", "not in this repository"])
        .code(0);
    let refused = ask(&mut c, 5, "ls");
    assert_eq!(
        refused,
        json!({"behavior": "deny", "message": "not in this repository"})
    );
    assert_eq!(ask(&mut c, 6, "ls"), refused, "a refusal is kept");
    // Another input is another item.
    assert_eq!(ask(&mut c, 7, "rm -rf build")["behavior"], json!("deny"));
    assert_eq!(runs(&env), 3);
    let bad = c.call(
        8,
        "approval_prompt",
        json!({"tool_name": "Bash", "input": "ls"}),
    );
    crate::assert_shown!(env, text(&bad), @r#"{"error":true,"message":"Tool input validation failed for approval_prompt. Please fix the following errors and try again:\n- input: Expected object, received string\n\nProvided arguments: {\n  \"tool_name\": \"Bash\",\n  \"input\": \"ls\"\n}","validationErrors":{"input":["Expected object, received string"]}}"#);
    c.close();
}
