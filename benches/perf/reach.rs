//! The reach figures of SPEC §10 (§17), on the release binary over loopback, on the bench's
//! store (SQLite, or PostgreSQL with `--postgres`):
//! 1. a new item to its notification sent: `serve --public-url ... --ntfy-token-file` and a
//!    reviewer whose private ntfy channel is a fake ntfy server here (`Ntfy`: a loopback
//!    listener that timestamps each publication as its body arrives); items made one at a
//!    time by `ask` (a one-step run: the item is committed before the process exits),
//!    each timed from that exit to the fake's receipt of its notification;
//! 2. a tap to its decision committed: a POST to each notification's first action URL
//!    (serve commits the decision before it answers), timed to its response;
//! 3. a decision to the waiting process going on: `ask --wait` waiting, `answer` from
//!    another process, timed from `answer`'s exit to the waiter's;
//! 4. on PostgreSQL only, two `serve --drive` on one store, 64 clients answering 1,000
//!    items through both (each item sent once to each serve): each recorded exactly once,
//!    counted in the store.
//!
//! Nothing here is asserted by tests: speed is measured, never tested.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::lifecycle;
use crate::report::{ms, quantile, Table};
use crate::serve::{self as served, Serve};
use crate::spawn::{Runner, Sample};
use crate::Backend;

/// The base of links serve gives out; the taps are posted to serve itself.
const PUBLIC_URL: &str = "https://inbox.example";
/// How long a notification or an exit may take before the bench gives up.
const PATIENCE: Duration = Duration::from_secs(20);

/// How much is measured.
pub struct Load {
    /// Items notified and tapped.
    pub items: usize,
    /// Waiters answered.
    pub waiters: usize,
    /// With PostgreSQL: items answered through two serves, and the clients answering.
    pub items_two_serves: usize,
    pub clients: usize,
}

pub fn measure(
    table: &mut Table,
    backend: &mut Backend,
    bin: &Path,
    root: &Path,
    load: &Load,
) -> Result<(), String> {
    let store = backend.name();
    notified_and_tapped(table, backend, bin, root, load.items, store)?;
    waiters(table, backend, bin, root, load.waiters, store)?;
    if let Backend::Postgres(_) = backend {
        two_serves(table, backend, bin, root, load)?;
    }
    Ok(())
}

/// A fake ntfy server: every request is a publication, answered 200; its JSON body and the
/// moment it had arrived are kept.
struct Ntfy {
    addr: String,
    got: Arc<Mutex<Vec<(Instant, Value)>>>,
}

impl Ntfy {
    fn start() -> Result<Ntfy, String> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let addr = listener
            .local_addr()
            .map_err(|e| e.to_string())?
            .to_string();
        let got = Arc::new(Mutex::new(Vec::new()));
        let keep = got.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let keep = keep.clone();
                std::thread::spawn(move || serve_ntfy(conn, &keep));
            }
        });
        Ok(Ntfy { addr, got })
    }

    fn count(&self) -> usize {
        self.got.lock().unwrap().len()
    }

    /// The `n`th publication (from 0), once it arrived.
    fn nth(&self, n: usize) -> Result<(Instant, Value), String> {
        let until = Instant::now() + PATIENCE;
        loop {
            if let Some(p) = self.got.lock().unwrap().get(n) {
                return Ok(p.clone());
            }
            if Instant::now() > until {
                return Err(format!("notification {} never came", n + 1));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }
}

/// Requests on one connection, each kept with the moment its body was read.
fn serve_ntfy(conn: TcpStream, got: &Mutex<Vec<(Instant, Value)>>) {
    let Ok(mut writer) = conn.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(conn);
    loop {
        let mut length = 0;
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line == "\r\n" {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let at = Instant::now();
        let value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        got.lock().unwrap().push((at, value));
        let reply = r#"{"id":"m1","event":"message"}"#;
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            reply.len()
        );
        if writer
            .write_all(format!("{head}{reply}").as_bytes())
            .is_err()
        {
            return;
        }
    }
}

fn sample(wall: Duration) -> Sample {
    Sample {
        wall,
        rss_kib: 0,
        code: 0,
        cpu: Duration::ZERO,
        faults: 0,
    }
}

/// `median, p99 (n)`.
fn tail(samples: &[Sample]) -> String {
    served::tail(samples)
}

/// 1 and 2: items notified, then each tapped.
fn notified_and_tapped(
    table: &mut Table,
    backend: &mut Backend,
    bin: &Path,
    root: &Path,
    n: usize,
    store: &str,
) -> Result<(), String> {
    crate::progress(&format!(
        "reach ({store}): {n} new items to their notifications, then their taps"
    ));
    let r = backend.runner(bin, root, "reach-notify")?;
    let ntfy = Ntfy::start()?;
    r.output(&["runs"], 0)?; // creates the store
    served::reviewer_named(&r, "phone")?;
    let channel = format!("ntfy:http://{}/phone", ntfy.addr);
    r.output(&["reviewer", "notify", "phone", &channel], 0)?;
    let tokens = r.cwd.join("ntfy-tokens");
    std::fs::write(&tokens, format!("{} tk_bench\n", ntfy.addr)).map_err(|e| e.to_string())?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| e.to_string())?;
    let tokens = tokens.to_string_lossy().into_owned();
    let serve = Serve::start(
        &r,
        &["--public-url", PUBLIC_URL, "--ntfy-token-file", &tokens],
    )?;

    // 1. One item at a time, its notification awaited before the next.
    let warm = 3;
    let mut notified = Vec::with_capacity(n);
    let mut taps = Vec::with_capacity(n + warm);
    for i in 0..n + warm {
        let question = format!("Ship build {i}?");
        r.output(&["ask", &question, "--option", "yes", "--option", "no"], 75)?;
        let exited = Instant::now();
        let (at, body) = ntfy.nth(i)?;
        if body["message"] != json!(question) {
            return Err(format!("notification {} was not the item's: {body}", i + 1));
        }
        let tap = body["actions"][0]["url"]
            .as_str()
            .and_then(|u| u.strip_prefix(PUBLIC_URL))
            .filter(|path| path.starts_with("/tap/"))
            .ok_or_else(|| format!("notification {} has no one-tap action: {body}", i + 1))?;
        taps.push(format!("{}{tap}", serve.url));
        if i >= warm {
            notified.push(sample(at.saturating_duration_since(exited)));
        }
    }
    let extra = ntfy.count() - (n + warm);
    table.row(
        &format!("reach ({store}): a new item (`ask`, its process's exit) to its notification received by an ntfy server (loopback)"),
        "≤ 100 ms median, ≤ 1 s p99",
        format!(
            "{}{}",
            tail(&notified),
            if extra > 0 { format!("; {extra} notifications more than items") } else { String::new() }
        ),
        Some(quantile(&notified, 0.5).as_millis() <= 100 && quantile(&notified, 0.99).as_millis() <= 1000),
    );

    // 2. Each item's first action tapped (the decision is committed before the response).
    let client = served::agent();
    let mut tapped = Vec::with_capacity(n);
    for (i, url) in taps.iter().enumerate() {
        let (s, resp) = served::timed(|| served::send(&client, "POST", url, &[], None))?;
        if resp.status != 200 {
            return Err(format!("a tap answered {}: {}", resp.status, resp.body));
        }
        if i >= warm {
            tapped.push(s);
        }
    }
    let decided = r
        .output(&["pending", "-o", "json"], 0)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    table.row(
        &format!("reach ({store}): a tap (POST to the action's URL) to its decision committed, at serve's response"),
        "≤ 10 ms median",
        format!("{}; {decided} items left pending", tail(&tapped)),
        Some(quantile(&tapped, 0.5).as_millis() <= 10 && decided == 0),
    );
    drop(serve);
    Ok(())
}

/// 3: `ask --wait` waiting, answered by `answer`, one at a time.
fn waiters(
    table: &mut Table,
    backend: &mut Backend,
    bin: &Path,
    root: &Path,
    n: usize,
    store: &str,
) -> Result<(), String> {
    crate::progress(&format!("reach ({store}): {n} answers to their waiters"));
    let r = backend.runner(bin, root, "reach-wait")?;
    r.output(&["runs"], 0)?; // creates the store
    let mut woke = Vec::with_capacity(n);
    for i in 0..n + 2 {
        let question = format!("Go on {i}?");
        let mut waiter = r
            .command(&[
                "ask",
                &question,
                "--option",
                "yes",
                "--option",
                "no",
                "--wait",
                "--timeout",
                "5m",
                "--no-input",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start a waiter: {e}"))?;
        let (tx, exited) = std::sync::mpsc::channel();
        let reaper = std::thread::spawn(move || {
            let status = waiter.wait();
            let _ = tx.send(Instant::now());
            status
        });
        let run = waiting_run(&r)?;
        // Past its first look: the waiter waits.
        std::thread::sleep(Duration::from_millis(100));
        r.output(&["answer", &run, "yes"], 0)?;
        let answered = Instant::now();
        let done = exited
            .recv_timeout(PATIENCE)
            .map_err(|_| format!("the waiter of run {run} did not go on"))?;
        let status = reaper.join().map_err(|_| "a reaper panicked")?;
        if !status.map(|s| s.success()).unwrap_or(false) {
            return Err(format!("the waiter of run {run} failed"));
        }
        if i >= 2 {
            woke.push(sample(done.saturating_duration_since(answered)));
        }
    }
    let (target, met) = match backend {
        Backend::Sqlite => ("≤ 250 ms", 250),
        Backend::Postgres(_) => ("≤ 50 ms", 50),
    };
    table.row(
        &format!("reach ({store}): a decision (`answer`, its process's exit) to the waiting `ask --wait` going on (its exit)"),
        target,
        format!(
            "{}; max {}",
            tail(&woke),
            ms(quantile(&woke, 1.0))
        ),
        Some(quantile(&woke, 0.5).as_millis() <= met),
    );
    Ok(())
}

/// The run of the one pending item, once there is one.
fn waiting_run(r: &Runner) -> Result<String, String> {
    let until = Instant::now() + PATIENCE;
    loop {
        let text = r.output(&["pending", "-o", "json"], 0)?;
        if let Some(line) = text.lines().find(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).map_err(|e| format!("{e}: {line}"))?;
            return Ok(v["runId"].as_str().unwrap_or_default().to_string());
        }
        if Instant::now() > until {
            return Err("the waiter's item never became pending".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// 4: two serves on one PostgreSQL store, clients answering every item through both.
fn two_serves(
    table: &mut Table,
    backend: &mut Backend,
    bin: &Path,
    root: &Path,
    load: &Load,
) -> Result<(), String> {
    crate::progress(&format!(
        "reach (PostgreSQL): two serves, {} clients answering {} items through both",
        load.clients, load.items_two_serves
    ));
    let r = backend.runner(bin, root, "reach-two-serves")?;
    lifecycle::prepare(&r, None)?;
    lifecycle::lifecycles(&r, 2, 2)?;
    for stage in 0..4 {
        lifecycle::partial(&r, stage)?;
    }
    let pending = load.items_two_serves;
    backend.seed(&r, pending + pending / 10, pending)?;
    let token = served::reviewer_named(&r, "bench")?;
    let serves = [
        Serve::start(&r, &["--drive"])?,
        Serve::start(&r, &["--drive"])?,
    ];
    let items = lifecycle::pending(&r)?;
    // Each item twice, once to each serve, one after the other in the list: racing.
    let work: Vec<(usize, usize)> = (0..items.len()).flat_map(|i| [(i, 0), (i, 1)]).collect();
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(work.len()));
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..load.clients {
            scope.spawn(|| {
                let client = served::agent();
                while let Some(&(i, via)) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let item = &items[i];
                    let body = json!({
                        "runId": item.run,
                        "toolCallId": item.call,
                        "resumeData": served::resume_data(item.stage),
                    });
                    let got =
                        served::resume(&client, &serves[via].url, "release", Some(&token), &body);
                    results
                        .lock()
                        .unwrap()
                        .push((i, got.map(|r| (r.status, r.body))));
                }
            });
        }
    });
    let elapsed = start.elapsed();
    let mut recorded = vec![0usize; items.len()];
    let (mut conflicts, mut failures) = (0, Vec::new());
    for (i, got) in results.into_inner().unwrap() {
        match got {
            Ok((200, _)) => recorded[i] += 1,
            Ok((409, _)) => conflicts += 1,
            Ok((status, body)) => failures.push(format!("{status}: {body}")),
            Err(e) => failures.push(e),
        }
    }
    for f in failures.iter().take(5) {
        eprintln!("bench: an answer failed: {f}");
    }
    let once = recorded.iter().filter(|&&n| n == 1).count();
    let in_store = crate::pg::count(
        crate::url(&r)?,
        "SELECT count(*) FROM mastra_ask.calls WHERE resolved_via = 'api'",
    )?;
    let all = once == items.len() && failures.is_empty() && in_store == items.len() as i64;
    table.row(
        &format!(
            "reach (PostgreSQL): two `serve --drive` on one store, {} clients answering {} items through both (each item sent to each serve)",
            load.clients,
            items.len()
        ),
        "each exactly once",
        format!(
            "{once}/{} recorded once, {conflicts} 409s, {} failures, {in_store} in the store; {:.2} s in all",
            items.len(),
            failures.len(),
            elapsed.as_secs_f64()
        ),
        Some(all),
    );
    Ok(())
}
