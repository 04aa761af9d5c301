//! Full runs against servers shaped like OpenAI's and llama.cpp's, streamed and not:
//! the question, the suspension, the answer sent back in the wire's format, the text.

use super::*;

/// The model asks, the run suspends, the answer goes back as a `tool` message in the right
/// wire format, the model answers with text.
fn full_run(style: Style, stream: bool) {
    let env = Env::new();
    let id = match style {
        Style::OpenAi => "call_Qz8yW2mN5pL0vX7a",
        Style::LlamaCpp => "Hq3vV9mZpQxT4b",
    };
    let server = FakeServer::start(vec![
        ask(style, stream, id, QUESTION),
        text(style, stream, "Hello, Ada! Nice to meet you."),
    ]);
    // llama.cpp is reached as an openai-compatible server without a key.
    let (spec, key) = match style {
        Style::OpenAi => (MODEL.to_string(), Some(KEY)),
        Style::LlamaCpp => (
            format!(
                "openai-compatible/qwen2.5-7b-instruct@{}",
                server.base_url()
            ),
            None,
        ),
    };
    let command = |args: &[&str]| {
        let mut c = env.command(args);
        if let Some(k) = key {
            c.env("OPENAI_API_KEY", k)
                .env("OPENAI_BASE_URL", server.base_url());
        }
        if !stream {
            c.env("MASTRA_ASK_STREAM", "0");
        }
        c
    };

    let out = env.run_with(command(&["run", "--model", &spec, "Greet me"]));
    out.assert_code(75);
    let run = env.latest_run().unwrap();
    assert!(
        out.stderr.contains(&format!("{id} question: {QUESTION}")),
        "{}",
        out.stderr
    );
    assert_eq!(server.count(), 1);

    let first = &server.requests()[0];
    assert_eq!(first.path, "/v1/chat/completions");
    assert_eq!(first.header("content-type"), Some("application/json"));
    match key {
        Some(k) => assert_eq!(
            first.header("authorization"),
            Some(format!("Bearer {k}").as_str())
        ),
        None => assert_eq!(first.header("authorization"), None),
    }
    let body = &first.body;
    let model = if style == Style::OpenAi {
        "gpt-4o-mini"
    } else {
        "qwen2.5-7b-instruct"
    };
    assert_eq!(body["model"], model);
    assert_eq!(body["stream"], json!(stream));
    if stream {
        assert_eq!(body["stream_options"], json!({"include_usage": true}));
    } else {
        assert!(body.get("stream_options").is_none());
    }
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "system");
    assert!(messages[0]["content"]
        .as_str()
        .unwrap()
        .contains("ask_user"));
    assert_eq!(messages[1], json!({"role": "user", "content": "Greet me"}));
    assert_eq!(names(&body["tools"]), ["ask_user", "submit_plan"]);
    let ask_tool = &body["tools"][0];
    assert_eq!(ask_tool["type"], "function");
    assert_eq!(ask_tool["function"]["parameters"]["type"], "object");
    assert!(ask_tool["function"]["parameters"]["properties"]["question"].is_object());

    let out = env.run_with(command(&["answer", &run, "Ada"]));
    out.assert_code(0);
    assert_eq!(out.stdout, "Hello, Ada! Nice to meet you.\n");
    assert_eq!(server.count(), 2);
    let messages = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(messages.len(), 4);
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "content": "", "tool_calls": [{
            "id": id, "type": "function",
            "function": {"name": "ask_user", "arguments": "{\"question\":\"What is your name?\"}"},
        }]})
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": id,
               "content": "{\"content\":\"User answered: Ada\",\"isError\":false}"})
    );

    assert_eq!(env.status(&run), "completed");
    let shown = show_json(&env, &run);
    assert_eq!(shown["agent"]["model"], spec.as_str());
    assert_eq!(
        shown["usage"],
        json!({"inputTokens": 270, "outputTokens": 24, "totalTokens": 294})
    );
    let finish = shown["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(finish["type"], "finish");
    assert_eq!(finish["payload"]["usage"]["totalTokens"], 294);
    assert_eq!(finish["payload"]["text"], "Hello, Ada! Nice to meet you.");
    let text = env.run(&["show", &run]);
    assert!(
        text.stdout.contains(&format!("model    {spec}\n")),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("usage    270 in, 24 out\n"),
        "{}",
        text.stdout
    );
}

#[test]
fn openai_streamed_full_run() {
    full_run(Style::OpenAi, true);
}

#[test]
fn openai_non_streamed_full_run() {
    full_run(Style::OpenAi, false);
}

#[test]
fn llama_cpp_streamed_full_run() {
    full_run(Style::LlamaCpp, true);
}

#[test]
fn llama_cpp_non_streamed_full_run() {
    full_run(Style::LlamaCpp, false);
}

#[test]
fn streamed_text_arrives_as_text_deltas() {
    let env = Env::new();
    let server = FakeServer::start(vec![streamed_text(Style::OpenAi, "One two three.")]);
    let out = run_openai(
        &env,
        &server,
        &["-o", "json", "run", "--model", MODEL, "Greet me"],
    );
    out.assert_code(0);
    let deltas: Vec<String> = out
        .json_lines()
        .iter()
        .filter(|e| e["type"] == "text-delta")
        .map(|e| e["payload"]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(deltas, ["One ", "two ", "three."]);
}
