//! `command:` models: a program that answers on stdout, fails, prints bad JSON, hangs or
//! is missing.

use super::*;
use crate::assert_shown;

fn command_agent(env: &Env, program: &str) -> String {
    let agent = json!({"id": "cmd", "instructions": "Test agent.", "model": format!("command:{program} --flag 'two words'")});
    env.write("agents/agent.json", &agent.to_string())
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_command_model_asks_and_answers() {
    let env = Env::new();
    // Logs what it was given and its arguments; asks first, answers once it has the answer.
    script(
        &env,
        "agents/model.sh",
        r#"input=$(cat)
dir=$(dirname "$0")
printf '%s\n' "$input" >> "$dir/inputs.jsonl"
printf '%s|' "$@" > "$dir/argv.txt"
case "$input" in
  *'User answered'*) printf '{"content":"Hello, Ada."}\n' ;;
  *) printf '{"toolCalls":[{"name":"ask_user","args":{"question":"What is your name?"}}]}\n' ;;
esac
"#,
    );
    // The relative program resolves against the agent file's directory, not the shell's.
    let agent = command_agent(&env, "./model.sh");
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    assert_shown!(env, out.stderr, @"
        run [RUN] is waiting for input (1 pending):
          [CALL] question: What is your name?
            mastra-ask answer [RUN] <answer>
        ");
    let out = env.cmd(&["answer", &run, "Ada"]).code(0);
    assert_eq!(out.stdout, "Hello, Ada.\n");
    assert_eq!(env.status(&run), "completed");

    assert_eq!(
        std::fs::read_to_string(env.path("agents/argv.txt")).unwrap(),
        "--flag|two words|"
    );
    let inputs: Vec<Value> = std::fs::read_to_string(env.path("agents/inputs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(inputs.len(), 2);
    assert_eq!(
        inputs[0]["messages"][0],
        json!({"role": "system", "content": "Test agent."})
    );
    assert_eq!(
        inputs[0]["messages"][1],
        json!({"role": "user", "content": "Go"})
    );
    let tools: Vec<&str> = inputs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["ask_user", "submit_plan"]);
    assert!(inputs[0]["tools"][0]["parameters"]["properties"]["question"].is_object());
    let second = inputs[1]["messages"].as_array().unwrap();
    let id = second[2]["toolCalls"][0]["id"].as_str().unwrap();
    assert_eq!(second[3]["role"], "tool");
    assert_eq!(second[3]["toolCallId"], id);
    assert_eq!(
        second[3]["content"],
        "{\"content\":\"User answered: Ada\",\"isError\":false}"
    );
}

#[test]
fn a_command_model_that_fails_shows_its_last_stderr_line() {
    let env = Env::new();
    script(
        &env,
        "agents/fail.sh",
        "cat >/dev/null\necho 'loading' >&2\necho 'error: no weights in /models' >&2\nexit 3\n",
    );
    let (out, run) = env.start(&command_agent(&env, "./fail.sh"), &[]);
    out.assert_code(1);
    assert_shown!(env, out.stderr, @"
        error: run [RUN] failed: model command [DIR]/agents/fail.sh --flag 'two words' exited with status 3: error: no weights in /models
        hint: retry it with: mastra-ask resume [RUN]
        ");
    assert_eq!(env.status(&run), "failed");
    assert_eq!(
        env.messages(&run),
        [json!({"role": "user", "content": "Go"})]
    );
    // Fixed, the run goes on.
    script(
        &env,
        "agents/fail.sh",
        "cat >/dev/null\necho '{\"content\":\"Fine now.\"}'\n",
    );
    let out = env.cmd(&["resume", &run]).code(0);
    assert_eq!(out.stdout, "Fine now.\n");
}

#[test]
fn a_command_model_printing_bad_json_is_a_clear_error() {
    let env = Env::new();
    script(&env, "agents/bad.sh", "echo 'Sure! Here is my answer.'\n");
    let (out, run) = env.start(&command_agent(&env, "./bad.sh"), &[]);
    out.assert_code(1);
    assert_shown!(env, out.stderr, @r#"
        error: run [RUN] failed: model command [DIR]/agents/bad.sh --flag 'two words' printed an invalid message: expected value at line 1 column 1; it must print one assistant message {"content"?, "toolCalls"?: [{"id"?, "name", "args"}]}
        hint: retry it with: mastra-ask resume [RUN]
        "#);
    assert_eq!(env.status(&run), "failed");
    script(&env, "agents/bad.sh", "echo '{\"tool_calls\":[]}'\n");
    let out = env.cmd(&["resume", &run]).code(1);
    assert_shown!(env, out.stderr, @r#"
        error: run [RUN] failed: model command [DIR]/agents/bad.sh --flag 'two words' printed an invalid message: unknown field `tool_calls`, expected `content` or `toolCalls` at line 1 column 13; it must print one assistant message {"content"?, "toolCalls"?: [{"id"?, "name", "args"}]}
        hint: retry it with: mastra-ask resume [RUN]
        "#);
}

#[test]
fn a_command_model_that_hangs_is_stopped_at_the_read_timeout() {
    let env = Env::new();
    script(&env, "agents/slow.sh", "sleep 30\n");
    let mut command = env.command(&["run", "--agent", &command_agent(&env, "./slow.sh"), "Go"]);
    command.env("MASTRA_ASK_READ_TIMEOUT", "300ms");
    let began = Instant::now();
    let out = env.run_with(command);
    // Long before the 30 s the other side stays silent: the 300 ms timeout ended it.
    assert!(
        began.elapsed() < Duration::from_secs(15),
        "took {:?}",
        began.elapsed()
    );
    out.assert_code(1);
    assert_shown!(env, out.stderr, @"
        error: run [RUN] failed: model command [DIR]/agents/slow.sh --flag 'two words' did not answer within 300ms (raise MASTRA_ASK_READ_TIMEOUT)
        hint: retry it with: mastra-ask resume [RUN]
        ");
}

#[test]
fn a_missing_command_fails_before_anything_is_stored() {
    let env = Env::new();
    let out = env
        .cmd(&["run", "--agent", &command_agent(&env, "./nope.sh"), "Go"])
        .code(2);
    assert_shown!(env, out.stderr, @"error: command: program [DIR]/agents/nope.sh not found");
    let out = env
        .cmd(&["run", "--model", "command:no-such-program-xyz", "Go"])
        .code(2);
    assert_shown!(env, out.stderr, @"error: command: program no-such-program-xyz not found in PATH");
    assert_eq!(env.dump(), "no store");
}
