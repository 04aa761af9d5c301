//! `mastra-ask mcp` (SPEC §16): an MCP server over stdio, a frontend like the commands and
//! serve. It translates: JSON-RPC lines in (`wire`), the session's version and the
//! client's capabilities (`session`), the five tools and their inputs (`tools`), each call
//! a one-step run of agent `mcp` started through the run layer (`runner::oneshot`) under
//! the server's policy, then waited on in the store (`calls`). Who may decide, what an
//! answer must be and the first answer winning are the store's and the item kinds'; nothing
//! here decides. Stdout carries protocol messages only: the run layer reports to `Quiet`
//! (warnings on stderr), and every message is written whole by `wire::Out`.
//!
//! Requests are read on the main thread; each `tools/call` (and `tasks/result`) waits on a
//! thread of its own, `MAX_WAITING` at most, so `ping` and other requests are answered
//! meanwhile. At the end of input the calls stop
//! waiting at once; their runs stay pending in the store for any other frontend.

mod calls;
mod elicit;
mod handle;
mod permission;
mod session;
mod tasks;
mod tools;
mod wire;

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Result;
use serde_json::{json, Value};

use crate::domain::{Event, Sink, StoredEvent};
use crate::report::Report;
use crate::runner::start::Watched;
use crate::runner::{Context, StoreFrom};
use crate::store::Location;
use session::Session;
use wire::{Incoming, Line, Out};

pub use wire::MAX_LINE;

/// The agent id of every run a call starts.
pub const AGENT: &str = "mcp";

/// How the server was started.
pub struct Setup {
    pub location: Location,
    pub db_flag: Option<String>,
    pub store_from: StoreFrom,
    pub on_suspend: Option<String>,
    /// `--on-resolve CMD`: run for a call's item once it is resolved (SPEC §17).
    pub on_resolve: Option<String>,
    /// `--wait`: how long a call waits for a person before it returns "pending".
    pub wait: Duration,
    /// The review, expiry and escalation of every run a call starts.
    pub watched: Watched,
    /// Where plans are read when the client declares no roots.
    pub cwd: PathBuf,
}

impl Setup {
    fn context(&self) -> Context<'static> {
        Context {
            location: self.location.clone(),
            db_flag: self.db_flag.clone(),
            store_from: self.store_from,
            on_suspend: self.on_suspend.clone(),
            on_resolve: self.on_resolve.clone(),
            interactive: false,
            server: None,
            report: &Quiet,
        }
    }
}

/// The run layer's reports: nothing on stdout; warnings on stderr.
struct Quiet;

impl Report for Quiet {
    fn json(&self) -> bool {
        false
    }
    fn info(&self, _line: &str) {}
    fn warn(&self, line: &str) {
        eprintln!("warning: {}", crate::output::sanitize::one_line(line));
    }
    fn line(&self, _line: &str) {}
    fn json_line(&self, _value: &Value) {}
    fn leg(&self) -> Box<dyn Sink + '_> {
        Box::new(Quiet)
    }
    fn stored_events(&self, _run_id: &str, _events: &[StoredEvent]) {}
}

impl Sink for Quiet {
    fn event(&mut self, _run_id: &str, _event: &Event) {}
}

/// One server: its set-up, where it writes, and the session so far.
struct Server<'a, W: Write> {
    setup: &'a Setup,
    out: &'a Out<W>,
    session: Mutex<Session>,
    /// The requests this server sent, waiting for the client's response.
    asked: session::Asked,
    /// The input ended.
    closed: AtomicBool,
    /// How many requests wait on threads of their own (`MAX_WAITING` at most).
    waiting: AtomicUsize,
    /// The runs whose item a form of this client asks for now, and how many forms.
    forms: Mutex<std::collections::HashMap<String, usize>>,
}

/// How many `tools/call` and `tasks/result` requests may wait at once; more are refused
/// (-32603) until one ends.
pub const MAX_WAITING: usize = 32;

/// Serves one client on `input` and `output` until the input ends.
pub fn serve(setup: &Setup, input: &mut dyn BufRead, output: impl Write + Send) -> Result<()> {
    let out = Out::new(output);
    let server = Server {
        setup,
        out: &out,
        session: Mutex::new(Session::default()),
        asked: session::Asked::default(),
        closed: AtomicBool::new(false),
        waiting: AtomicUsize::new(0),
        forms: Mutex::default(),
    };
    std::thread::scope(|scope| {
        loop {
            let line = match wire::read_line(input, MAX_LINE) {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) => {
                    eprintln!("mcp: reading stdin failed: {e}");
                    break;
                }
            };
            let text = match line {
                Line::TooLong => {
                    let what = format!("Invalid Request: a message is at most {} bytes", MAX_LINE);
                    out.error(&Value::Null, wire::INVALID_REQUEST, &what);
                    continue;
                }
                Line::Text(text) if text.iter().all(u8::is_ascii_whitespace) => continue,
                Line::Text(text) => text,
            };
            match wire::parse(&text) {
                Err((id, code, message)) => out.error(&id, code, &message),
                Ok(Incoming::Request { id, method, .. })
                    if matches!(method.as_str(), "tools/call" | "tasks/result")
                        && server.waiting.load(Ordering::SeqCst) >= MAX_WAITING =>
                {
                    let what = format!("{MAX_WAITING} requests wait already: call again later");
                    out.error(&id, wire::INTERNAL_ERROR, &what);
                }
                Ok(Incoming::Request { id, method, params }) if method == "tools/call" => {
                    let server = &server;
                    if let Some((name, task)) = server.tool_call(&id, &params) {
                        server.waiting.fetch_add(1, Ordering::SeqCst);
                        scope.spawn(move || {
                            server.run_call(&id, &params, name, task);
                            server.waiting.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                }
                Ok(Incoming::Request { id, method, params }) if method == "tasks/result" => {
                    let server = &server;
                    server.waiting.fetch_add(1, Ordering::SeqCst);
                    scope.spawn(move || {
                        server.task_result(&id, &params);
                        server.waiting.fetch_sub(1, Ordering::SeqCst);
                    });
                }
                Ok(Incoming::Request { id, method, params }) => {
                    server.request(&id, &method, &params)
                }
                Ok(Incoming::Notification { .. }) => {}
                Ok(Incoming::Response { id, result }) => server.asked.deliver(&id, result),
            }
        }
        server.closed.store(true, Ordering::SeqCst);
        server.asked.close();
    });
    Ok(())
}

impl<W: Write + Send> Server<'_, W> {
    /// Every request but `tools/call`, answered at once.
    fn request(&self, id: &Value, method: &str, params: &Value) {
        let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        match method {
            "initialize" => match session.initialize(params) {
                Ok(result) => self.out.result(id, result),
                Err(message) => self.out.error(id, wire::INVALID_PARAMS, &message),
            },
            "ping" => self.out.result(id, json!({})),
            "tools/list" => self.out.result(id, tools::listed(session.tasks())),
            "tasks/get" | "tasks/cancel" if session.tasks() => {
                drop(session);
                match self.task(method, params) {
                    Ok(task) => self.out.result(id, task),
                    Err(message) => self.out.error(id, wire::INVALID_PARAMS, &message),
                }
            }
            _ => self.out.error(
                id,
                wire::METHOD_NOT_FOUND,
                &format!(
                    "Method not found: {}",
                    crate::output::sanitize::one_line(method)
                ),
            ),
        }
    }

    /// Where plans may be: the client's roots when it declares them, else the server's
    /// working directory.
    fn roots(&self) -> Vec<PathBuf> {
        let declared = self
            .session
            .lock()
            .map(|s| s.roots_declared())
            .unwrap_or(false);
        let listed = declared
            .then(|| {
                self.asked
                    .ask(self.out, "roots/list", json!({}), Duration::from_secs(10))
            })
            .flatten()
            .and_then(Result::ok)
            .map(|r| tools::roots_of(&r))
            .unwrap_or_default();
        match listed.is_empty() {
            true => vec![self.setup.cwd.clone()],
            false => listed,
        }
    }
}
