//! Streams that break, tool-call arguments cut short, split or naming unknown tools, ids
//! the server left out, and a server that goes silent mid-answer.

use super::*;
use crate::assert_shown;

#[test]
fn a_stream_cut_before_any_text_is_retried() {
    let env = Env::new();
    let cut = Reply::Sse {
        frames: vec![chunk(
            Style::OpenAi,
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "ask_user", "arguments": "{\"q"}}]}),
            None,
        )],
        end: End::Reset,
    };
    let server = FakeServer::start(vec![cut, streamed_text(Style::OpenAi, "Whole.")]);
    let (out, _) = start(&env, &server);
    out.assert_code(0);
    assert_eq!(out.stdout, "Whole.\n");
    assert_eq!(server.count(), 2);
}

/// A stream that breaks once text was shown, or with an error frame: not retried; the run
/// fails keeping the text that was printed as its failed step's `text-delta`.
#[test]
fn broken_streams_fail_at_once_and_keep_the_text_shown() {
    let text_chunk = |style: Style, text: &str| chunk(style, json!({"content": text}), None);
    let start_chunk = chunk(
        Style::OpenAi,
        json!({"role": "assistant", "content": ""}),
        None,
    );
    let cases: Vec<(&str, Vec<String>, End, &str)> = vec![
        (
            "the stream ended before the response was complete",
            vec![text_chunk(Style::OpenAi, "Hel")],
            End::Close,
            "Hel",
        ),
        (
            "broke off the stream with an error: The model produced invalid content.",
            vec![
                start_chunk.clone(),
                text_chunk(Style::OpenAi, "Let me"),
                json!({"error": {"message": "The model produced invalid content.", "type": "server_error", "code": null}})
                    .to_string(),
            ],
            End::Close,
            "Let me",
        ),
        (
            // What llama.cpp sends when the model's output does not parse as a tool call.
            "broke off the stream with an error: Failed to parse input at pos 8",
            vec![
                text_chunk(Style::LlamaCpp, "```json\n"),
                json!({"error": {"code": 500, "message": "Failed to parse input at pos 8", "type": "server_error"}})
                    .to_string(),
            ],
            End::Done,
            "```json\n",
        ),
        (
            "broke off the stream with an error: upstream provider failed",
            vec!["event: error\ndata: {\"message\":\"upstream provider failed\"}".to_string()],
            End::Close,
            "",
        ),
    ];
    for (needle, frames, end, shown) in cases {
        let env = Env::new();
        let server = FakeServer::start(vec![Reply::Sse { frames, end }]);
        let (out, run) = start(&env, &server);
        assert_failed(&env, &out, &run, needle);
        let printed = if shown.is_empty() || shown.ends_with('\n') {
            shown.to_string()
        } else {
            format!("{shown}\n")
        };
        assert_eq!(out.stdout, printed, "{needle}");
        assert_eq!(server.count(), 1, "{needle}: not retried");

        // The failed step keeps what was printed, in `show -o json` and in `show`.
        let events = show_json(&env, &run)["events"].as_array().unwrap().clone();
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        if shown.is_empty() {
            assert_eq!(kinds, ["start", "step-start", "error"], "{needle}");
        } else {
            assert_eq!(
                kinds,
                ["start", "step-start", "text-delta", "error"],
                "{needle}"
            );
            assert_eq!(events[2]["payload"]["text"], shown, "{needle}");
            assert_eq!(
                events[2]["payload"]["id"], events[1]["payload"]["messageId"],
                "{needle}: the failed step's text"
            );
            let text = env.run(&["show", &run]).stdout;
            let line = format!(
                "  text                 \"{}\"\n",
                shown.replace('\n', "\\n")
            );
            assert!(text.contains(&line), "{needle}: {text}");
        }
        // Not a message: the retried call does not see half an answer.
        assert_eq!(
            show_json(&env, &run)["messages"],
            json!([{"role": "user", "content": "Greet me"}])
        );
        assert_resumes(&env, &server, &run);
        assert_eq!(
            server.requests()[1].body["messages"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }
}

#[test]
fn truncated_tool_arguments_become_an_error_result_and_the_run_goes_on() {
    let env = Env::new();
    let truncated = Reply::sse(vec![
        chunk(
            Style::OpenAi,
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_T", "type": "function", "function": {"name": "ask_user", "arguments": ""}}]}),
            None,
        ),
        chunk(
            Style::OpenAi,
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"question\": \"What is your fav"}}]}),
            None,
        ),
        chunk(Style::OpenAi, json!({}), Some("length")),
    ]);
    let server = FakeServer::start(vec![
        truncated,
        streamed_text(Style::OpenAi, "Sorry, let me stop there."),
    ]);
    let (out, run) = start(&env, &server);
    out.assert_code(0);
    assert_eq!(out.stdout, "Sorry, let me stop there.\n");
    assert_shown!(env, out.stderr, @r#"warning: tool call call_T (ask_user) failed: the arguments for ask_user were cut off because the response reached its token limit (finish_reason "length"): EOF while parsing a string at line 1 column 30; call the tool again with shorter arguments"#);
    assert_eq!(server.count(), 2);
    let messages = server.requests()[1].body["messages"].clone();
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        "{\"question\": \"What is your fav"
    );
    // Mastra's error-text: the plain message is the tool message's content.
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_T",
               "content": "Tool \"ask_user\" received invalid arguments — the provided JSON could not be parsed. Please provide valid JSON arguments."})
    );
    assert_eq!(env.status(&run), "completed");
    // The event keeps why (for the person) and the raw arguments.
    let events = show_json(&env, &run)["events"].clone();
    let error = events
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "tool-error")
        .unwrap()
        .clone();
    assert_eq!(
        error["payload"]["args"],
        "{\"question\": \"What is your fav"
    );
    assert_eq!(error["payload"]["error"]["name"], "ToolArgumentsError");
    assert!(error["payload"]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("finish_reason \"length\""));
}

#[test]
fn an_unknown_tool_gets_mastras_error_text_in_the_next_request() {
    let env = Env::new();
    let call = json!({"index": 0, "id": "call_D", "type": "function",
                      "function": {"name": "deploy", "arguments": "{\"env\":\"prod\"}"}});
    let mut frames = vec![chunk(
        Style::OpenAi,
        json!({"role": "assistant", "content": null, "tool_calls": [call]}),
        None,
    )];
    frames.extend(stream_end(Style::OpenAi, "tool_calls", 10, 5));
    let server = FakeServer::start(vec![
        Reply::sse(frames),
        streamed_text(Style::OpenAi, "I cannot deploy."),
    ]);
    let (out, run) = start(&env, &server);
    out.assert_code(0);
    assert_eq!(out.stdout, "I cannot deploy.\n");
    let text = "Tool \"deploy\" not found. Available tools: ask_user, submit_plan. Call tools by their exact name only — never add prefixes, namespaces, or colons.";
    assert_eq!(
        out.stderr,
        format!("warning: tool call call_D (deploy) failed: {text}\n")
    );
    let messages = server.requests()[1].body["messages"].clone();
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_D", "content": text})
    );
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn arguments_split_across_many_chunks_are_joined() {
    let env = Env::new();
    let question = "Which of \"A\", \"B\" or \u{e9}t\u{e9}? {not: json}";
    let args =
        json!({"question": question, "options": [{"label": "A"}, {"label": "B"}]}).to_string();
    let mut frames = vec![chunk(
        Style::OpenAi,
        json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_S", "type": "function", "function": {"name": "ask_user", "arguments": ""}}]}),
        None,
    )];
    for c in args.chars() {
        frames.push(chunk(
            Style::OpenAi,
            json!({"tool_calls": [{"index": 0, "function": {"arguments": c.to_string()}}]}),
            None,
        ));
    }
    frames.extend(stream_end(Style::OpenAi, "tool_calls", 10, 40));
    let server = FakeServer::start(vec![Reply::sse(frames)]);
    let (out, run) = start(&env, &server);
    out.assert_code(75);
    assert_eq!(server.count(), 1);
    let pending = env.run(&["pending", "-o", "json"]).json_lines();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["runId"], run.as_str());
    assert_eq!(pending[0]["toolCallId"], "call_S");
    assert_eq!(
        pending[0]["args"],
        json!({"question": question, "options": [{"label": "A"}, {"label": "B"}]})
    );
    assert_eq!(env.status(&run), "suspended");
}

#[test]
fn missing_tool_call_ids_are_generated_and_sent_back_consistently() {
    let env = Env::new();
    let server = FakeServer::start(vec![
        streamed_ask(Style::LlamaCpp, None, QUESTION),
        streamed_text(Style::LlamaCpp, "Hi Ada."),
    ]);
    let (out, run) = start(&env, &server);
    out.assert_code(75);
    let pending = env.run(&["pending", "-o", "json"]).json_lines();
    let id = pending[0]["toolCallId"].as_str().unwrap().to_string();
    assert!(id.starts_with("call_") && id.len() > 10, "{id}");

    let out = run_openai(&env, &server, &["answer", &run, "Ada"]);
    out.assert_code(0);
    let messages = server.requests()[1].body["messages"].clone();
    assert_eq!(messages[2]["tool_calls"][0]["id"], id.as_str());
    assert_eq!(messages[3]["tool_call_id"], id.as_str());
}

#[test]
fn a_silent_server_hits_the_read_timeout() {
    let env = Env::new();
    let server = FakeServer::start(vec![Reply::Silent(Duration::from_secs(30))]);
    let mut command = openai(
        &env,
        &server.base_url(),
        &["run", "--model", MODEL, "Greet me"],
    );
    command.env("MASTRA_ASK_READ_TIMEOUT", "300ms");
    let began = Instant::now();
    let out = env.run_with(command);
    // Long before the 30 s the other side stays silent: the 300 ms timeout ended it.
    assert!(
        began.elapsed() < Duration::from_secs(15),
        "took {:?}",
        began.elapsed()
    );
    let run = env.latest_run().unwrap();
    assert_failed(
        &env,
        &out,
        &run,
        "no answer for 300ms (raise MASTRA_ASK_READ_TIMEOUT)",
    );
    assert_eq!(server.count(), 1);
    assert_resumes(&env, &server, &run);
    assert_eq!(server.count(), 2);
}
