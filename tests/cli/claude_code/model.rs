//! A scripted Messages API on loopback for the real Claude Code (../shared/CLAUDE-CODE.md):
//! `POST /v1/messages` is answered as server-sent events with the turn of the script whose
//! index is the number of assistant messages in the request (so a resumed session gets the
//! turn after its last one), `count_tokens` with a small count, anything else with 404.
//! Every request body is kept, so a test reads what the model was told (a denial's reason).
//! `PLAN_FILE` in a tool input becomes the plan file the request's system prompt names.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

/// Stands, in a scripted tool input, for the plan file plan mode's system prompt names.
pub const PLAN_FILE: &str = "{PLAN_FILE}";

/// One content block of a scripted assistant turn.
#[derive(Clone, Debug)]
pub enum Block {
    Text(String),
    Tool {
        id: String,
        name: String,
        input: Value,
    },
}

/// A tool call block.
pub fn tool(id: &str, name: &str, input: Value) -> Block {
    Block::Tool {
        id: id.into(),
        name: name.into(),
        input,
    }
}

pub struct Model {
    port: u16,
    bodies: Arc<Mutex<Vec<Value>>>,
}

impl Model {
    /// Serves `turns`; past the last one, each request gets a turn saying "done".
    pub fn start(turns: Vec<Vec<Block>>) -> Model {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let kept = bodies.clone();
        let turns = Arc::new(turns);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (turns, kept) = (turns.clone(), kept.clone());
                std::thread::spawn(move || serve(stream, &turns, &kept));
            }
        });
        Model { port, bodies }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The bodies of the `/v1/messages` requests so far.
    pub fn requests(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }

    /// The text of every `tool_result` the model was sent for `tool_use_id`.
    pub fn results_for(&self, tool_use_id: &str) -> Vec<String> {
        let mut found = Vec::new();
        for body in self.requests() {
            for m in body["messages"].as_array().into_iter().flatten() {
                for block in m["content"].as_array().into_iter().flatten() {
                    if block["type"] == "tool_result" && block["tool_use_id"] == tool_use_id {
                        found.push(match &block["content"] {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        });
                    }
                }
            }
        }
        found.dedup();
        found
    }
}

fn serve(stream: TcpStream, turns: &[Vec<Block>], kept: &Mutex<Vec<Value>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut length = 0;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 {
            return;
        }
        if header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut out = stream;
    if path.starts_with("/v1/messages/count_tokens") {
        return reply(
            &mut out,
            "application/json",
            &json!({"input_tokens": 10}).to_string(),
        );
    }
    if !path.starts_with("/v1/messages") {
        let _ = out
            .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        return;
    }
    // Plan mode's system prompt names the file the plan goes to (its name is random).
    let text = body.to_string();
    let plan_file = text
        .split_once("create your plan at ")
        .and_then(|(_, rest)| rest.split_once(".md"))
        .map(|(path, _)| format!("{path}.md"));
    let said = body["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
    kept.lock().unwrap().push(body);
    let done = vec![Block::Text("done".into())];
    let turn = turns.get(said).unwrap_or(&done);
    let mut stream = events(turn);
    if let Some(path) = plan_file {
        stream = stream.replace(PLAN_FILE, &path);
    }
    reply(&mut out, "text/event-stream", &stream);
}

fn reply(out: &mut TcpStream, content_type: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(body.as_bytes());
}

/// A new message id: Claude Code joins the blocks of messages with the same id.
fn message_id() -> String {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("msg_scripted_{n}")
}

/// A turn as the Messages API streams it.
fn events(turn: &[Block]) -> String {
    let mut out = String::new();
    let mut event = |name: &str, data: Value| {
        out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    event(
        "message_start",
        json!({"type": "message_start", "message": {"id": message_id(), "type": "message",
            "role": "assistant", "model": "scripted", "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    );
    let mut stop = "end_turn";
    for (index, block) in turn.iter().enumerate() {
        match block {
            Block::Text(text) => {
                event(
                    "content_block_start",
                    json!({"type": "content_block_start",
                    "index": index, "content_block": {"type": "text", "text": ""}}),
                );
                event(
                    "content_block_delta",
                    json!({"type": "content_block_delta",
                    "index": index, "delta": {"type": "text_delta", "text": text}}),
                );
            }
            Block::Tool { id, name, input } => {
                stop = "tool_use";
                event(
                    "content_block_start",
                    json!({"type": "content_block_start",
                    "index": index, "content_block": {"type": "tool_use", "id": id,
                    "name": name, "input": {}}}),
                );
                event(
                    "content_block_delta",
                    json!({"type": "content_block_delta",
                    "index": index, "delta": {"type": "input_json_delta",
                    "partial_json": input.to_string()}}),
                );
            }
        }
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
    }
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 5}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    out
}
