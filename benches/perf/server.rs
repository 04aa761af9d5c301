//! `--server` against the real Mastra server of tests/fixtures/mastra-server (when node and
//! its npm packages are there): `pending` and `answer` as whole processes of the release
//! binary, beside the same HTTP requests made by curl, so that the ratio shows what the
//! command adds to the server's own time (its start-up, the ledger's two durable commits,
//! the listing before an answer).
//!
//! Each `answer` sample answers a fresh run that suspended on a free-text question; curl's
//! sample resumes another such run with the same body to `data: [DONE]`.

use std::ffi::OsString;
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

/// Mastra's own cost per process, the reference of SPEC §10: a cold `node server.mjs` (the
/// real `@mastra/server` routes and `@mastra/core`, LibSQL storage) on storage holding
/// suspended runs, which boots and resumes one of them to the end of its leg. `n` samples,
/// each a run of its own (made beforehand by a warm server on the same storage, then
/// stopped). The wall time runs from spawn to the resumed leg's `[DONE]`.
pub fn per_process(r: &Runner, data: &Path, n: usize) -> Result<Vec<Sample>, String> {
    let mut runs = Vec::with_capacity(n);
    {
        let server = Server::start(data)?;
        for i in 0..n {
            runs.push(start(r, &server.url, 1000 + i)?);
        }
    }
    runs.into_iter()
        .map(|(run, call)| {
            let body = serde_json::json!({"runId": run, "toolCallId": call, "resumeData": "bench"})
                .to_string();
            let args: Vec<OsString> = vec![
                "--resume-mastra".into(),
                r.stderr_file().into(),
                data.into(),
                body.into(),
            ];
            r.measure_helper(&args, "node server.mjs (one resume)", 0)
        })
        .collect()
}

/// The helper mode of `per_process`: `--resume-mastra STDERR DATA_DIR BODY`. Never returns.
pub fn helper(args: &[OsString]) -> ! {
    crate::spawn::report_and_exit(resume_cold(args))
}

fn resume_cold(args: &[OsString]) -> std::io::Result<Sample> {
    let [stderr, data, body] = args else {
        return Err(std::io::Error::other(
            "usage: --resume-mastra STDERR DATA BODY",
        ));
    };
    let body = body.to_string_lossy();
    let start = Instant::now();
    let mut child = Command::new("node")
        .arg("server.mjs")
        .current_dir(fixture())
        .env("FIXTURE_DATA_DIR", data)
        .env("FIXTURE_PORT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(stderr)?)
        .spawn()?;
    let outcome = listening_port(&mut child).and_then(|port| resume(port, &body));
    let wall = start.elapsed();
    let _ = child.kill();
    let (_, usage) = crate::spawn::wait4(child.id())?;
    let done = outcome?;
    Ok(crate::spawn::sample(wall, if done { 0 } else { 1 }, &usage))
}

fn listening_port(child: &mut Child) -> std::io::Result<u16> {
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| std::io::Error::other("no stdout"))?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    serde_json::from_str::<serde_json::Value>(&line)
        .ok()
        .and_then(|v| v["listening"]["port"].as_u64())
        .and_then(|p| u16::try_from(p).ok())
        .ok_or_else(|| std::io::Error::other(format!("the Mastra server did not start: {line:?}")))
}

/// POSTs the resume and reads the event stream to its last event (`data: [DONE]`, after
/// which the server may hold the connection open); whether that came.
fn resume(port: u16, body: &str) -> std::io::Result<bool> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(60)))?;
    write!(
        s,
        "POST /api/agents/planner/resume-stream HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut seen = Vec::new();
    let mut buf = [0u8; 16384];
    while seen.len() < 64 << 20 {
        let n = s.read(&mut buf)?;
        if n == 0 {
            break;
        }
        seen.extend_from_slice(&buf[..n]);
        // The marker may straddle two reads: look at the tail.
        let tail = &seen[seen.len().saturating_sub(n + 16)..];
        if tail.windows(12).any(|w| w == b"data: [DONE]") {
            return Ok(true);
        }
    }
    Ok(false)
}
