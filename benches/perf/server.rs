//! `--server` against the real Mastra server of tests/fixtures/mastra-server (when node and
//! its npm packages are there): `pending` and `answer` as whole processes of the release
//! binary, beside the same HTTP requests made by curl, so that the ratio shows what the
//! command adds to the server's own time (its start-up, the ledger's two durable commits,
//! the listing before an answer).
//!
//! Each `answer` sample answers a fresh run that suspended on a free-text question; curl's
//! sample resumes another such run with the same body to `data: [DONE]`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::report::{quantile, timing, Table};
use crate::spawn::{Runner, Sample};

/// The fixture's directory.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mastra-server")
}

/// Why the server figures cannot be measured here, if they cannot.
pub fn unavailable() -> Option<String> {
    if !fixture().join("node_modules").is_dir() {
        return Some("tests/fixtures/mastra-server/node_modules is missing (npm ci --legacy-peer-deps there)".into());
    }
    for tool in ["node", "curl"] {
        let ok = Command::new(tool)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Some(format!("{tool} is not installed"));
        }
    }
    None
}

/// The fixture server, stopped on drop.
pub struct Server {
    child: Child,
    pub url: String,
}

impl Server {
    pub fn start(data: &Path) -> Result<Server, String> {
        let mut child = Command::new("node")
            .arg("server.mjs")
            .current_dir(fixture())
            .env("FIXTURE_DATA_DIR", data)
            .env("FIXTURE_PORT", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start node: {e}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        let port = serde_json::from_str::<serde_json::Value>(&line)
            .ok()
            .and_then(|v| v["listening"]["port"].as_u64())
            .ok_or_else(|| format!("the Mastra server did not start: {line:?}"))?;
        Ok(Server {
            child,
            url: format!("http://127.0.0.1:{port}"),
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Measures `pending` and `answer` with `--server`, and curl doing the same requests.
pub fn measure(table: &mut Table, r: &Runner, data: &Path, n: usize) -> Result<(), String> {
    let server = Server::start(data)?;
    let url = server.url.as_str();
    let api = format!("{url}/api");
    // Warm the server up, and leave some runs suspended for `pending` to list.
    for i in 0..10 {
        start(r, url, i)?;
    }
    let pending: Vec<Sample> = (0..n)
        .map(|_| r.measure(&["--server", url, "pending"], 0))
        .collect::<Result<_, _>>()?;
    let lists = [
        format!("{api}/agents"),
        format!("{api}/agents/planner/suspended-runs?perPage=100&page=0"),
        format!("{api}/agents/ops/suspended-runs?perPage=100&page=0"),
    ];
    let mut curl_args = vec!["-sf", "-o", "/dev/null"];
    for l in &lists {
        curl_args.push(l);
        if l != lists.last().unwrap() {
            curl_args.extend(["-o", "/dev/null"]);
        }
    }
    let curl_pending: Vec<Sample> = (0..n)
        .map(|_| r.measure_program(Path::new("/usr/bin/curl"), &curl_args, 0))
        .collect::<Result<_, _>>()?;
    let mut answers = Vec::with_capacity(n);
    let mut curl_answers = Vec::with_capacity(n);
    for i in 0..n {
        let (run, _) = start(r, url, 100 + 2 * i)?;
        answers.push(r.measure(&["--server", url, "answer", &run, "bench"], 0)?);
        let (run, call) = start(r, url, 101 + 2 * i)?;
        let body = serde_json::json!({"runId": run, "toolCallId": call, "resumeData": "bench"})
            .to_string();
        let route = format!("{api}/agents/planner/resume-stream");
        let args = [
            "-sfN",
            "-o",
            "/dev/null",
            "-H",
            "content-type: application/json",
            "-d",
            &body,
            &route,
        ];
        curl_answers.push(r.measure_program(Path::new("/usr/bin/curl"), &args, 0)?);
    }
    let ratio = |a: &[Sample], b: &[Sample]| {
        quantile(a, 0.5).as_secs_f64() / quantile(b, 0.5).as_secs_f64().max(1e-9)
    };
    table.row(
        "`pending --server` (2 agents, 10 suspended runs): 3 GETs",
        "",
        timing(&pending),
        None,
    );
    table.row(
        "curl, the same 3 GETs on one connection",
        "",
        format!(
            "{}; mastra-ask / curl {:.2}x",
            timing(&curl_pending),
            ratio(&pending, &curl_pending)
        ),
        None,
    );
    table.row(
        "`answer --server` a question, the leg streamed to its end (listing, ledger, resume)",
        "",
        timing(&answers),
        None,
    );
    table.row(
        "curl, the resume alone (`resume-stream` to `[DONE]`)",
        "",
        format!(
            "{}; mastra-ask / curl {:.2}x",
            timing(&curl_answers),
            ratio(&answers, &curl_answers)
        ),
        None,
    );
    Ok(())
}

/// Starts a run on a free-text question (not measured): its id and the pending call's id.
pub fn start(r: &Runner, url: &str, i: usize) -> Result<(String, String), String> {
    let prompt = format!("[scenario:question] bench {i} {:?}", Instant::now());
    let id = r.output(
        &["--server", url, "run", "-q", "--agent", "planner", &prompt],
        75,
    )?;
    let id = id.trim().to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let listed = r.output(&["--server", url, "pending", "-q", "--run", &id], 0)?;
        if let Some(call) = listed.split_whitespace().nth(1) {
            return Ok((id, call.to_string()));
        }
        if Instant::now() > deadline {
            return Err(format!("run {id} was never listed"));
        }
    }
}
