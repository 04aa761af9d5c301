//! The hook with the real Claude Code (SPEC §15): `@anthropic-ai/claude-code` from npm,
//! pinned with its lock file in tests/fixtures/claude-code (`.ci/run` installs it), run as
//! its native binary offline against a scripted Messages API of these tests (`model`), with
//! a throwaway HOME, `--setting-sources user` and a settings file whose `PreToolUse` hook is
//! `mastra-ask hook claude-code ... || exit 2`.
//!
//! Without the fixture installed the tests that need it are skipped with a message; in CI
//! (`CI` set) a missing fixture fails them. Such a test is named `claude_...` (checked when
//! it asks for the fixture), as the Mastra fixture's tests are named `mastra_...`.

mod hook_cli;
mod mcp_client;
mod model;
mod questions;
mod runs;
mod sessions;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::common::{Env, Out, BIN};
pub use model::{tool, Block, Model};

/// The real program: the native binary of the platform package (npm does not run the
/// package's postinstall here, so `node_modules/.bin/claude` stays a stub).
fn program() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude")
}

/// An `AskUserQuestion` input of three questions: single, multi and single select.
pub fn three_questions() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "DB", "multiSelect": false, "options": [
            {"label": "PostgreSQL", "description": "the server"},
            {"label": "SQLite", "description": "a file"}]},
        {"question": "Which checks?", "header": "Checks", "multiSelect": true, "options": [
            {"label": "lint", "description": "clippy"},
            {"label": "test", "description": "cargo test"},
            {"label": "docs", "description": "rustdoc"}]},
        {"question": "Which branch?", "header": "Branch", "multiSelect": false, "options": [
            {"label": "main", "description": "the default"},
            {"label": "next", "description": "the next release"}]}
    ]})
}

/// The real Claude Code when it is installed; says why not otherwise (and fails in CI).
pub fn installed() -> Option<PathBuf> {
    let test = crate::common::test_name();
    assert!(
        test.starts_with("claude_"),
        "the test {test:?} runs the real Claude Code: name it claude_..."
    );
    let path = program();
    if path.is_file() {
        return Some(path);
    }
    let why = "tests/fixtures/claude-code is not installed (run `npm ci` there)";
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        panic!("the Claude Code tests must run in CI, but {why}");
    }
    eprintln!("skipped: {why}");
    None
}

/// Claude Code in a test's environment, talking to a scripted model, with the hook.
pub struct Claude<'e> {
    env: &'e Env,
    program: PathBuf,
    pub model: Model,
    settings: PathBuf,
}

impl<'e> Claude<'e> {
    /// `None` where the fixture is not installed. `hook` are the hook's flags.
    pub fn new(env: &'e Env, turns: Vec<Vec<Block>>, hook: &[&str]) -> Option<Claude<'e>> {
        let program = installed()?;
        let command = format!("'{BIN}' hook claude-code {} || exit 2", hook.join(" "));
        let settings = env.write(
            "claude-settings.json",
            &json!({"hooks": {"PreToolUse": [{"matcher": "Bash|AskUserQuestion|ExitPlanMode",
                "hooks": [{"type": "command", "command": command, "timeout": 60}]}]}})
            .to_string(),
        );
        Some(Claude {
            env,
            program,
            model: Model::start(turns),
            settings,
        })
    }

    /// `claude ARGS` with the test's environment, the model's address and the settings.
    pub fn command(&self, args: &[&str]) -> Command {
        self.command_to(&self.model, Some(&self.settings), args)
    }

    /// `claude ARGS` talking to `model`, with the hook's settings or none.
    pub fn command_to(&self, model: &Model, settings: Option<&Path>, args: &[&str]) -> Command {
        let mut c = self.env.command_of(&self.program, args);
        if let Some(settings) = settings {
            c.arg("--settings").arg(settings);
        }
        c.args(["--setting-sources", "user", "--model", "scripted"])
            .env("ANTHROPIC_BASE_URL", model.url())
            .env("ANTHROPIC_API_KEY", "scripted")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1");
        c
    }

    /// `claude -p PROMPT --session-id SESSION`: its result line.
    pub fn print(&self, session: &str, prompt: &str) -> (Out, Value) {
        let c = self.command(&[
            "-p",
            prompt,
            "--session-id",
            session,
            "--output-format",
            "json",
        ]);
        result(self.env.run_with(c))
    }

    /// `claude -p --resume SESSION`: its result line.
    pub fn resume(&self, session: &str) -> (Out, Value) {
        let c = self.command(&["-p", "--resume", session, "--output-format", "json"]);
        result(self.env.run_with(c))
    }
}

impl Claude<'_> {
    /// Claude Code in the SDK's mode (`--input-format stream-json`, where `AskUserQuestion`
    /// and plan mode are offered), started with `args`, sent `prompt` when given: the lines
    /// it printed up to its `result` line, which is the last. Stdin is closed after the
    /// result; a permission request for a tool no hook decided is denied (never a hang).
    pub fn sdk(&self, args: &[&str], prompt: Option<&str>) -> Vec<Value> {
        use std::io::{BufRead, Write};
        let mut all = vec![
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-prompt-tool",
            "stdio",
        ];
        all.extend(args);
        let mut c = self.command(&all);
        c.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        if let Some(prompt) = prompt {
            let line = json!({"type": "user", "message": {"role": "user", "content": prompt}});
            writeln!(stdin, "{line}").unwrap();
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    if tx.send(v).is_err() {
                        return;
                    }
                }
            }
        });
        let mut lines = Vec::new();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(90);
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            let Ok(line) = rx.recv_timeout(left) else {
                let _ = child.kill();
                let out = crate::common::finish(child);
                panic!("claude printed no result line: {lines:#?}\n{out}");
            };
            if line["type"] == "control_request" {
                let answer = json!({"type": "control_response", "response": {
                    "subtype": "success", "request_id": line["request_id"],
                    "response": {"behavior": "deny", "message": "not allowed in this test"}}});
                writeln!(stdin, "{answer}").unwrap();
            }
            let done = line["type"] == "result";
            lines.push(line);
            if done {
                break;
            }
        }
        drop(stdin);
        crate::common::exit_within(
            &mut child,
            "claude after its result",
            std::time::Duration::from_secs(30),
        );
        lines
    }
}

/// The output and its last JSON line (the result).
fn result(out: Out) -> (Out, Value) {
    let last = out
        .stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<Value>(l).ok())
        .unwrap_or(Value::Null);
    (out, last)
}
