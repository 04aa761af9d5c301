//! `mastra-ask mcp` (SPEC §16) through the real binary: a harness that spawns the server
//! and speaks newline-delimited JSON-RPC to it (`Client`), for exact whole responses; the
//! wire's bad input; calls answered from another process, pending and `await_answer`
//! across a restarted server; the server's policy.

mod calls;
mod clients;
mod forms;
mod permission;
mod tasks;
mod wire;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{channel, Receiver};

use serde_json::{json, Value};

use crate::common::{printed, Env, Out, PATIENCE};

/// A running `mastra-ask mcp` and the lines it wrote so far.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Reads stdout until the server closes it.
    reader: Option<std::thread::JoinHandle<()>>,
    /// Every line read from stdout, for the check that all were JSON-RPC messages.
    pub seen: Vec<Value>,
    /// Responses read while waiting for another.
    stash: Vec<Value>,
}

impl Client {
    /// `mastra-ask mcp ARGS` in `env`.
    pub fn spawn(env: &Env, args: &[&str]) -> Client {
        let mut all = vec!["mcp"];
        all.extend_from_slice(args);
        let mut child = env
            .command(&all)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            reader: Some(reader),
            seen: Vec::new(),
            stash: Vec::new(),
        }
    }

    /// Writes `bytes` as they are.
    pub fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Sends one message.
    pub fn send(&mut self, message: Value) {
        self.raw(format!("{message}\n").as_bytes());
    }

    /// The next message the server wrote (every line must be one JSON-RPC 2.0 message).
    #[track_caller]
    pub fn next(&mut self) -> Value {
        let line = match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(_) => {
                let _ = self.child.kill();
                let mut stderr = String::new();
                if let Some(mut e) = self.child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
                }
                panic!("the server wrote no line within {PATIENCE:?}; its stderr:\n{stderr}");
            }
        };
        let v: Value = serde_json::from_str(&printed(line.as_bytes()))
            .unwrap_or_else(|e| panic!("stdout carried a line that is not JSON ({e}): {line:?}"));
        assert_eq!(v["jsonrpc"], json!("2.0"), "{v}");
        self.seen.push(v.clone());
        v
    }

    /// Sends a request and returns the response with its id (messages in between, such as
    /// progress, are skipped).
    #[track_caller]
    pub fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(id)
    }

    /// The response to request `id`: responses to other requests that come first are kept
    /// for their turn; notifications and requests of the server in between are skipped.
    #[track_caller]
    pub fn response(&mut self, id: i64) -> Value {
        if let Some(at) = self.stash.iter().position(|v| v["id"] == json!(id)) {
            return self.stash.remove(at);
        }
        loop {
            let v = self.next();
            match (v["id"] == json!(id), v.get("method").is_some()) {
                (true, false) => return v,
                (false, false) => self.stash.push(v),
                _ => {}
            }
        }
    }

    /// `initialize` with `version` and `capabilities`, then `notifications/initialized`.
    pub fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let params = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "clientInfo": {"name": "harness", "version": "1"},
        });
        let r = self.request(0, "initialize", params);
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    /// A `tools/call` of `name` with `arguments`: its result.
    #[track_caller]
    pub fn call(&mut self, id: i64, name: &str, arguments: Value) -> Value {
        let r = self.request(
            id,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        );
        r["result"].clone()
    }

    /// Closes stdin; the server must exit within `PATIENCE`. Its exit, stderr, and on
    /// stdout the messages it wrote after (calls still waiting end as pending), each one
    /// JSON-RPC message.
    pub fn close(mut self) -> Out {
        drop(self.stdin.take());
        crate::common::exit_within(
            &mut self.child,
            "the server exits at the end of input",
            PATIENCE,
        );
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
        let rest: Vec<String> = self.lines.try_iter().collect();
        for line in &rest {
            let v: Value = serde_json::from_str(line).expect("a JSON-RPC message");
            assert_eq!(v["jsonrpc"], json!("2.0"), "{line}");
        }
        let mut stderr = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            std::io::Read::read_to_string(&mut e, &mut stderr).unwrap();
        }
        Out {
            code: self.child.wait().unwrap().code().unwrap_or(-1),
            stdout: rest.iter().map(|l| format!("{l}\n")).collect(),
            stderr: printed(stderr.as_bytes()),
        }
    }

    /// Kills the server (no goodbye).
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a tool result's one block.
#[track_caller]
pub fn text(result: &Value) -> String {
    assert_eq!(
        result["content"].as_array().map(Vec::len),
        Some(1),
        "{result}"
    );
    result["content"][0]["text"]
        .as_str()
        .expect("a text block")
        .to_string()
}

/// The run id a pending result names.
#[track_caller]
pub fn pending_run(result: &Value) -> String {
    let t = text(result);
    let at = t.find("(run ").expect("a pending result names its run") + 5;
    t[at..at + 36].to_string()
}
