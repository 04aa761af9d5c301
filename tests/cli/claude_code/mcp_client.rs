//! Claude Code as an MCP client of `mastra-ask mcp` (SPEC §16), headless, against the
//! scripted model: with the server in `--mcp-config` and `--permission-prompt-tool
//! mcp__mastra-ask__approval_prompt`, a `Bash` call Claude Code may not run by itself is an
//! approval item of this store. While nobody decided, Claude Code is told it waits (a
//! denial the model reads); approved from another process, the retried call runs, once.

use serde_json::{json, Value};

use super::{tool, Block, Claude};
use crate::common::{Env, BIN};

const SESSION: &str = "0b9d4c1e-27a3-4f60-9c59-5d0f3e7a8b21";

/// The model: `Bash` appends "ran" to out.txt; after the denial it says so; asked again,
/// the same call (another id); asked once more, the same call again.
fn turns() -> Vec<Vec<Block>> {
    let append = json!({"command": "echo ran >> out.txt", "description": "append"});
    vec![
        vec![tool("toolu_first", "Bash", append.clone())],
        vec![Block::Text("It waits for a person.".into())],
        vec![tool("toolu_again", "Bash", append.clone())],
        vec![Block::Text("Done.".into())],
        vec![tool("toolu_third", "Bash", append)],
    ]
}

/// `claude -p PROMPT` (resuming the session after the first), with `mastra-ask mcp` as its
/// permission prompt tool: its result line.
fn asked(claude: &Claude, env: &Env, prompt: &str, first: bool) -> Value {
    let config = env.write(
        "mcp.json",
        &json!({"mcpServers": {"mastra-ask": {"command": BIN, "args": ["mcp", "--wait", "2s"],
            "env": {"MASTRA_ASK_DB": env.store.url()}}}})
        .to_string(),
    );
    let config = config.display().to_string();
    let session = if first { "--session-id" } else { "--resume" };
    let c = claude.command_to(
        &claude.model,
        None,
        &[
            "-p",
            prompt,
            session,
            SESSION,
            "--mcp-config",
            &config,
            "--permission-prompt-tool",
            "mcp__mastra-ask__approval_prompt",
            "--output-format",
            "json",
        ],
    );
    let out = env.run_with(c);
    out.assert_code(0);
    serde_json::from_str(out.stdout.lines().last().unwrap_or("null")).unwrap_or(Value::Null)
}

fn written(env: &Env) -> String {
    std::fs::read_to_string(env.work().join("out.txt")).unwrap_or_default()
}

#[test]
fn claude_asks_permission_through_mastra_ask_mcp_and_an_approval_runs_the_call_once() {
    let env = Env::new();
    let Some(claude) = Claude::new(&env, turns(), &[]) else {
        return;
    };
    asked(&claude, &env, "append to the file", true);
    assert_eq!(written(&env), "", "nothing ran without a decision");
    // The model was told the call waits for a person, and how it is decided.
    let requests = claude.model.requests();
    let last = requests.last().unwrap()["messages"].as_array().unwrap();
    let told = &last.last().unwrap()["content"][0];
    assert_eq!(told["tool_use_id"], "toolu_first", "{told}");
    let text = told["content"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("A person has not decided yet (run ") && text.contains(" approve "),
        "{text}"
    );
    let pending = env.cmd(&["pending", "-o", "json"]).code(0);
    let item: Value = serde_json::from_str(pending.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(
        (&item["agentId"], &item["kind"]),
        (&json!("mcp"), &json!("approval")),
        "{item}"
    );
    let run = item["runId"].as_str().unwrap().to_string();
    env.cmd(&["approve", &run]).code(0);

    asked(&claude, &env, "try again", false);
    assert_eq!(written(&env), "ran\n", "the approved call ran, once");
    assert_eq!(env.status(&run), "completed");

    // The approval was used: the same call once more is a new item, and does not run.
    asked(&claude, &env, "once more", false);
    assert_eq!(written(&env), "ran\n");
    let pending = env.cmd(&["pending", "-q"]).code(0);
    assert_eq!(pending.stdout.lines().count(), 1, "{}", pending.stdout);
    assert!(!pending.stdout.contains(&run), "{}", pending.stdout);
}
