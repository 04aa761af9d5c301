//! Model settings sent under each wire's names (and to a `command:` model on stdin), bad
//! settings refused, and the step budget of a leg.

use super::*;

const SETTINGS: &str = r#"{"temperature": 0.2, "maxOutputTokens": 256, "topP": 0.9, "seed": 42, "stopSequences": ["END", "\n\n"]}"#;

/// An agent file on `model` with the settings above.
fn settings_agent(env: &Env, model: &str) -> String {
    let agent = json!({
        "id": "tuned", "instructions": "Be brief.", "model": model,
        "modelSettings": serde_json::from_str::<Value>(SETTINGS).unwrap(),
    });
    env.write("agents/tuned.json", &agent.to_string())
        .to_string_lossy()
        .into_owned()
}

/// Every request carries the settings under the wire names: `max_completion_tokens` for
/// OpenAI itself, `max_tokens` for every other server (llama.cpp reads only that one).
#[test]
fn model_settings_are_sent_on_every_request_under_the_wire_names() {
    for (server_kind, max_key) in [
        ("openai", "max_completion_tokens"),
        ("openai-compatible", "max_tokens"),
    ] {
        let env = Env::new();
        let server = FakeServer::start(vec![
            ask(Style::OpenAi, true, "q1", QUESTION),
            text(Style::OpenAi, true, "Hello, Ada."),
        ]);
        let model = match server_kind {
            "openai" => MODEL.to_string(),
            _ => format!(
                "openai-compatible/qwen2.5-7b-instruct@{}",
                server.base_url()
            ),
        };
        let agent = settings_agent(&env, &model);
        let out = run_openai(&env, &server, &["run", "--agent", &agent, "Greet me"]);
        out.assert_code(75);
        let run = env.latest_run().unwrap();
        let out = run_openai(&env, &server, &["answer", &run, "Ada"]);
        out.assert_code(0);
        assert_eq!(server.count(), 2);
        for request in server.requests() {
            let body = request.body.as_object().unwrap();
            let keys: Vec<&str> = body.keys().map(String::as_str).collect();
            let mut expected = vec![
                "messages",
                "model",
                "seed",
                "stop",
                "stream",
                "stream_options",
                "temperature",
                "tools",
                "top_p",
            ];
            expected.push(max_key);
            expected.sort();
            let mut keys = keys.clone();
            keys.sort();
            assert_eq!(keys, expected, "{server_kind}");
            assert_eq!(body["temperature"], json!(0.2));
            assert_eq!(body[max_key], json!(256));
            assert_eq!(body["top_p"], json!(0.9));
            assert_eq!(body["seed"], json!(42));
            assert_eq!(body["stop"], json!(["END", "\n\n"]));
        }
        // Kept with the run's agent, under Mastra's names.
        assert_eq!(
            show_json(&env, &run)["agent"]["modelSettings"],
            serde_json::from_str::<Value>(SETTINGS).unwrap()
        );
    }
}

#[test]
fn an_agent_without_settings_sends_none() {
    let env = Env::new();
    let server = FakeServer::start(vec![text(Style::OpenAi, false, "Hi.")]);
    let mut command = openai(
        &env,
        &server.base_url(),
        &["run", "--model", MODEL, "Greet me"],
    );
    command.env("MASTRA_ASK_STREAM", "0");
    env.run_with(command).assert_code(0);
    let body = server.requests()[0].body.clone();
    let mut keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(keys, ["messages", "model", "stream", "tools"]);
}

#[test]
fn bad_model_settings_are_refused_before_anything_is_stored() {
    let env = Env::new();
    for (settings, message) in [
        (
            json!({"temperature": 3}),
            "modelSettings.temperature must be a number from 0 to 2",
        ),
        (
            json!({"maxTokens": 100}),
            "unknown key \"maxTokens\" in modelSettings; the keys are temperature, maxOutputTokens, topP, seed, stopSequences",
        ),
        (
            json!({"stopSequences": "END"}),
            "modelSettings.stopSequences must be a list of at most 16 non-empty strings",
        ),
    ] {
        let agent = json!({"id": "a", "instructions": "", "model": MODEL, "modelSettings": settings});
        let file = env.write("agents/bad.json", &agent.to_string());
        let out = env.cmd(&["run", "--agent", &file.to_string_lossy(), "Go"]).code(2);
        assert_one_line_error(&out, message);
        assert!(
            out.stderr.starts_with(&format!(
                "error: agent file {}: ",
                file.to_string_lossy()
            )),
            "{}",
            out.stderr
        );
    }
    assert_eq!(env.dump(), "no store");
}

#[test]
fn a_command_model_gets_the_settings_on_stdin() {
    let env = Env::new();
    script(
        &env,
        "agents/model.sh",
        "cat > \"$(dirname \"$0\")/input.json\"\nprintf '{\"content\":\"Hi.\"}\\n'\n",
    );
    let agent = settings_agent(&env, "command:./model.sh");
    let (out, _) = env.start(&agent, &[]);
    out.assert_code(0);
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(env.path("agents/input.json")).unwrap())
            .unwrap();
    assert_eq!(
        input["modelSettings"],
        serde_json::from_str::<Value>(SETTINGS).unwrap()
    );
}

/// A model that keeps calling tools that fail (as small local models do) until the leg's
/// budget runs out: each failure is shown as it happens, then the budget, naming
/// `--max-steps`.
#[test]
fn a_leg_that_runs_out_of_steps_says_so_and_shows_each_failed_call() {
    let env = Env::new();
    let call = |id: &str, name: &str, args: &str| {
        let mut frames = vec![chunk(
            Style::LlamaCpp,
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": args}}
            ]}),
            None,
        )];
        frames.extend(stream_end(Style::LlamaCpp, "tool_calls", 10, 5));
        Reply::sse(frames)
    };
    let server = FakeServer::start(vec![
        call("c1", "submit_plan", r#"{"path":"plan.md"}"#),
        call("c2", "deploy_web_app", r#"{"path":"/srv"}"#),
    ]);
    let spec = format!("openai-compatible/qwen@{}", server.base_url());
    let out = env
        .cmd(&["run", "--max-steps", "2", "--model", &spec, "Ship it"])
        .code(0);
    let run = env.latest_run().unwrap();
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        format!(
            "warning: tool call c1 (submit_plan) failed: Failed to submit plan: plan.md does not exist\n\
             warning: tool call c2 (deploy_web_app) failed: Tool \"deploy_web_app\" not found. Available tools: ask_user, submit_plan. Call tools by their exact name only — never add prefixes, namespaces, or colons.\n\
             warning: run {run} stopped after its step budget: the model was still calling tools (raise it with --max-steps, or `mastra-ask reply {run} ...` to go on)\n"
        )
    );
    assert_eq!(server.count(), 2);
    // The second request carried the first failure back, as a JSON result object.
    assert_eq!(
        server.requests()[1].body["messages"][3]["content"],
        r#"{"content":"Failed to submit plan: plan.md does not exist","isError":true}"#
    );
    let shown = show_json(&env, &run);
    assert_eq!(shown["status"], "completed");
    let last = shown["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["type"], "finish");
    assert_eq!(last["payload"]["finishReason"], "tool-calls");
}
