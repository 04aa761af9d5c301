//! The real Mastra server of tests/fixtures/mastra-server, run by the tests: `node
//! server.mjs` on a free loopback port with a fresh LibSQL directory, up once `/test/health`
//! answers, stopped with its process group on drop, restartable on the same port and
//! storage. It also ends by itself when the test process does (its stdin is a lifeline).
//!
//! Without the fixture's `node_modules` the tests that need it are ignored, with this line
//! as the reason in `cargo test`'s list and summary:
//! `#[cfg_attr(mastra_fixture_missing, ignore = "needs tests/fixtures/mastra-server installed")]`
//! (build.rs sets the cfg). Install it with
//! `(cd tests/fixtures/mastra-server && npm ci --legacy-peer-deps)`; Node 20+ runs it.
//! Without node they are skipped with a message. In CI (`CI` set) neither happens: a
//! missing fixture or node fails them.
//!
//! So that no test can forget the mark, a test that needs the fixture is named `mastra_...`
//! and carries the mark, and no other test does: every way in here checks the running
//! test's name (every run, CI included), and `marks::every_mastra_test_is_marked` checks
//! the sources for the pairing.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use mastra_ask::remote::{Client, ServerConfig};
use serde_json::Value;
use tempfile::TempDir;

use crate::common::{exit_within, poll};

/// How long a start may take on a loaded 2-core machine (it takes 1-3 s).
const START_PATIENCE: Duration = Duration::from_secs(90);

pub struct Fixture {
    child: Child,
    /// Held open: the server exits when it closes.
    _lifeline: ChildStdin,
    port: u16,
    data: TempDir,
    /// From spawning node to the first healthy answer.
    pub started_in: Duration,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mastra-server")
}

/// The mark's reason, as `cargo test` lists it.
pub const MARK: &str = "needs tests/fixtures/mastra-server installed";

/// Refuses a test not named `mastra_...`: only those carry the mark that lists them as
/// ignored where the fixture is not installed (a fresh clone).
fn only_for_marked_tests() {
    let test = crate::common::test_name();
    assert!(
        test.starts_with("mastra_"),
        "the test {test:?} uses the Mastra fixture: name it mastra_... and mark it \
         #[cfg_attr(mastra_fixture_missing, ignore = \"{MARK}\")]"
    );
}

/// Whether the fixture can run here; says why not (and fails in CI).
fn available() -> bool {
    only_for_marked_tests();
    let why = if !dir().join("node_modules").is_dir() {
        Some(
            "tests/fixtures/mastra-server/node_modules is missing \
             (run `npm ci --legacy-peer-deps` there)",
        )
    } else if Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_err()
    {
        Some("node is not installed")
    } else {
        None
    };
    let Some(why) = why else { return true };
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        panic!("the Mastra server tests must run in CI, but {why}");
    }
    eprintln!("skipped: the Mastra server tests need a real Mastra server, and {why}");
    false
}

/// One server shared by the tests that do not restart it (each uses its own runs).
pub fn shared() -> Option<&'static Fixture> {
    only_for_marked_tests();
    static SHARED: OnceLock<Option<Fixture>> = OnceLock::new();
    SHARED.get_or_init(Fixture::start).as_ref()
}

impl Fixture {
    /// A server of its own, for a test that restarts it; None when skipped.
    pub fn start() -> Option<Fixture> {
        if !available() {
            return None;
        }
        let data = tempfile::tempdir().unwrap();
        let (child, lifeline, port, started_in) = spawn(data.path(), 0);
        Some(Fixture {
            child,
            _lifeline: lifeline,
            port,
            data,
            started_in,
        })
    }

    /// Stops the server (SIGTERM, waiting for it to exit) and starts it again on the same
    /// port and storage.
    pub fn restart(&mut self) {
        signal_group(&self.child, libc::SIGTERM);
        exit_within(&mut self.child, "the server did not stop", START_PATIENCE);
        let (child, lifeline, port, started_in) = spawn(self.data.path(), self.port);
        assert_eq!(port, self.port);
        self.child = child;
        self._lifeline = lifeline;
        self.started_in = started_in;
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server URL as a user gives it (no path: the default prefix /api).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn client(&self) -> Client {
        Client::new(ServerConfig::new(&self.url(), None).unwrap()).unwrap()
    }

    /// The fixture's request counter.
    pub fn requests(&self) -> Value {
        get_json(self.port, "/test/requests").expect("the request counter answers")
    }

    /// How many POSTs to `/api/agents/{agent}/{route}` named this run and tool call.
    pub fn calls(&self, agent: &str, route: &str, run_id: &str, tool_call_id: Option<&str>) -> u64 {
        let want = format!("POST /api/agents/{agent}/{route}");
        self.requests()["calls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| {
                c["route"] == want.as_str()
                    && c["runId"] == run_id
                    && c["toolCallId"].as_str() == tool_call_id
            })
            .map(|c| c["count"].as_u64().unwrap())
            .sum()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        signal_group(&self.child, libc::SIGKILL);
        let _ = self.child.wait();
    }
}

fn signal_group(child: &Child, sig: libc::c_int) {
    // SAFETY: signals the process group the child leads (it was spawned as its leader).
    unsafe {
        libc::kill(-(child.id() as libc::pid_t), sig);
    }
}

/// Starts node; returns once the server answers its health route.
fn spawn(data: &Path, port: u16) -> (Child, ChildStdin, u16, Duration) {
    use std::os::unix::process::CommandExt;
    let began = Instant::now();
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(data.join("server.log"))
        .unwrap();
    let mut child = Command::new("node")
        .arg("server.mjs")
        .current_dir(dir())
        .env("FIXTURE_DATA_DIR", data)
        .env("FIXTURE_PORT", port.to_string())
        .env("FIXTURE_STDIN_LIFELINE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log)
        .process_group(0)
        .spawn()
        .expect("node starts");
    let lifeline = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let port = serde_json::from_str::<Value>(&line)
                .ok()
                .and_then(|v| v["listening"]["port"].as_u64());
            if let Some(port) = port {
                let _ = tx.send(port as u16);
            }
        }
    });
    let port = match rx.recv_timeout(START_PATIENCE) {
        Ok(port) => port,
        Err(_) => {
            let _ = child.kill();
            let log = std::fs::read_to_string(data.join("server.log")).unwrap_or_default();
            panic!("the Mastra server did not start; its log:\n{log}");
        }
    };
    poll("the server never became healthy", START_PATIENCE, || {
        get_json(port, "/test/health").is_some()
    });
    (child, lifeline, port, began.elapsed())
}

/// A GET on the loopback server, straight (never through a proxy of the environment).
fn get_json(port: u16, path: &str) -> Option<Value> {
    let agent: ureq::Agent = ureq::Agent::config_builder().proxy(None).build().into();
    let mut response = agent
        .get(&format!("http://127.0.0.1:{port}{path}"))
        .call()
        .ok()?;
    serde_json::from_str(&response.body_mut().read_to_string().ok()?).ok()
}

/// A loopback relay to the server that records every byte the server sends back, one
/// record per connection, for comparing what a client handed over with what was on the
/// wire.
pub struct Tap {
    pub port: u16,
    recorded: Arc<Mutex<Vec<Record>>>,
}

/// The bytes one connection's server side sent.
type Record = Arc<Mutex<Vec<u8>>>;

impl Tap {
    pub fn new(upstream: u16) -> Tap {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let connections = recorded.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(mut client) = client else { return };
                let record = Arc::new(Mutex::new(Vec::new()));
                connections.lock().unwrap().push(record.clone());
                std::thread::spawn(move || {
                    let mut server = TcpStream::connect(("127.0.0.1", upstream)).unwrap();
                    let (mut c2, mut s2) =
                        (client.try_clone().unwrap(), server.try_clone().unwrap());
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut c2, &mut s2);
                    });
                    let mut buf = [0u8; 16 * 1024];
                    loop {
                        let n = match server.read(&mut buf) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => n,
                        };
                        // Recorded before it is passed on, so the client never has a byte
                        // the record lacks.
                        record.lock().unwrap().extend_from_slice(&buf[..n]);
                        if client.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                    let _ = client.shutdown(std::net::Shutdown::Both);
                });
            }
        });
        Tap { port, recorded }
    }

    /// The `data:` payloads of the one recorded event stream, `[DONE]` excluded (other
    /// answers on the same connections, JSON ones, are skipped).
    pub fn data_payloads(&self) -> Vec<String> {
        let mut streams = Vec::new();
        for record in self.recorded.lock().unwrap().iter() {
            let raw = record.lock().unwrap().clone();
            let mut rest = raw.as_slice();
            while let Some(split) = rest.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&rest[..split]).to_ascii_lowercase();
                let body = &rest[split + 4..];
                let (content, used) = if head.contains("transfer-encoding: chunked") {
                    dechunk(body)
                } else {
                    let length = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .map_or(0, |n| n.trim().parse::<usize>().unwrap());
                    (
                        body[..length.min(body.len())].to_vec(),
                        length.min(body.len()),
                    )
                };
                if head.contains("content-type: text/event-stream") {
                    streams.push(content);
                }
                rest = &body[used..];
            }
        }
        assert_eq!(streams.len(), 1, "one event stream went through the tap");
        let text = String::from_utf8(streams.pop().unwrap()).expect("the stream is UTF-8");
        text.split("\n\n")
            .filter(|f| !f.is_empty())
            .map(|f| {
                f.strip_prefix("data: ")
                    .unwrap_or_else(|| panic!("a frame that is not one data line: {f:?}"))
                    .to_string()
            })
            .filter(|d| d != "[DONE]")
            .collect()
    }
}

/// A loopback relay to the server that can hold answers back: while it holds, a request
/// that begins with `POST ` is not passed on (its connection stays open until the client
/// goes, then the server's side is closed having seen nothing of it). Everything else goes
/// through. For a sender that dies before the server got its answer.
pub struct Gate {
    pub port: u16,
    hold: Arc<std::sync::atomic::AtomicBool>,
    held: Arc<std::sync::atomic::AtomicUsize>,
    gets: Arc<std::sync::atomic::AtomicUsize>,
}

impl Gate {
    pub fn new(upstream: u16) -> Gate {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let hold = Arc::new(AtomicBool::new(false));
        let held = Arc::new(AtomicUsize::new(0));
        let gets = Arc::new(AtomicUsize::new(0));
        let (h, n, g) = (hold.clone(), held.clone(), gets.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(mut client) = client else { return };
                let (hold, held, gets) = (h.clone(), n.clone(), g.clone());
                std::thread::spawn(move || {
                    let mut server = TcpStream::connect(("127.0.0.1", upstream)).unwrap();
                    let (mut back_from, mut back_to) =
                        (server.try_clone().unwrap(), client.try_clone().unwrap());
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut back_from, &mut back_to);
                    });
                    let mut buf = [0u8; 16 * 1024];
                    let mut holding = false;
                    loop {
                        let n = match client.read(&mut buf) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => n,
                        };
                        if buf[..n].starts_with(b"GET ") {
                            gets.fetch_add(1, Ordering::SeqCst);
                        }
                        if !holding && hold.load(Ordering::SeqCst) && buf[..n].starts_with(b"POST ")
                        {
                            holding = true;
                            held.fetch_add(1, Ordering::SeqCst);
                        }
                        if !holding && server.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                    let _ = server.shutdown(std::net::Shutdown::Both);
                });
            }
        });
        Gate {
            port,
            hold,
            held,
            gets,
        }
    }

    /// How many GET requests went through.
    pub fn gets(&self) -> usize {
        self.gets.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Holds answers back from now on (true), or lets them through (false).
    pub fn hold(&self, on: bool) {
        self.hold.store(on, std::sync::atomic::Ordering::SeqCst);
    }

    /// How many answers it has held back.
    pub fn held(&self) -> usize {
        self.held.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// The body of a chunked transfer encoding (as far as it was recorded), and how many bytes
/// of `raw` it took.
fn dechunk(raw: &[u8]) -> (Vec<u8>, usize) {
    let mut body = Vec::new();
    let mut at = 0;
    while let Some(eol) = raw[at..].windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&raw[at..at + eol]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
            .unwrap_or_else(|_| panic!("a chunk size, not {size_text:?}"));
        let start = at + eol + 2;
        if size == 0 {
            // The last chunk, then the (empty) trailer's CRLF.
            return (body, (start + 2).min(raw.len()));
        }
        let end = (start + size).min(raw.len());
        body.extend_from_slice(&raw[start..end]);
        if end + 2 > raw.len() {
            return (body, raw.len());
        }
        at = end + 2;
    }
    (body, raw.len())
}

/// Every test named `mastra_...` carries the mark, and no other test does: the fixture
/// refuses tests of other names, so together a test that needs it cannot go unmarked.
#[test]
fn every_mastra_test_is_marked_and_no_other() {
    let mut wrong = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (name, marked) in tests_in(&text) {
                    if name.starts_with("mastra_") != marked {
                        wrong.push(format!("{}: {name} (marked: {marked})", path.display()));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "tests named mastra_... must carry the mark `{MARK}`, and only they: {wrong:#?}"
    );
    // The README says how many a fresh clone lists as ignored: this binary's own list.
    let list = Command::new(std::env::current_exe().unwrap())
        .args(["--list", "--format", "terse"])
        .output()
        .unwrap();
    let count = String::from_utf8_lossy(&list.stdout)
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .filter(|name| name.rsplit("::").next().unwrap().starts_with("mastra_"))
        .count();
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"));
    let said = format!("(the {count} named `mastra_...`)");
    assert!(
        readme.unwrap().contains(&said),
        "the README should say {said}"
    );
}

/// Each `#[test]` function of a source file: its name, and whether its attributes carry
/// the fixture's mark (a macro's `$name` is skipped: its expansion is checked at run time).
fn tests_in(text: &str) -> Vec<(String, bool)> {
    let mut found = Vec::new();
    let mut attrs: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if line == "#[test]" {
            attrs = Some(String::new());
        } else if let Some(seen) = attrs.as_mut() {
            if let Some(rest) = line.strip_prefix("fn ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                    .collect();
                if !name.starts_with('$') {
                    found.push((name, seen.contains("mastra_fixture_missing")));
                }
                attrs = None;
            } else {
                seen.push_str(line);
            }
        }
    }
    found
}
