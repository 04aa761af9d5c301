//! `serve`'s figures (SPEC §10, §13), on the release binary over loopback HTTP:
//! 1. an answer through the API (`resume-stream`) whose next leg `serve --drive` drives and
//!    streams to the next suspension, beside the same request to the Mastra server fixture
//!    (the question resumed to its end there), both made by the same client here;
//! 2. in a store seeded to `store_runs` runs, `store_pending` of them waiting: the inbox
//!    page and the API's listing of one agent's suspended runs, as a signed-in reviewer;
//! 3. `clients` threads, each its own connection, answering every one of those items
//!    twice over through the API (each item taken by two clients): every item must be
//!    recorded exactly once (one 200, one 409), and the store must say so;
//! 4. `streams` live-page event streams held open at once, and serve's resident memory
//!    before and while they are.
//!
//! SQLite stores only. Nothing here is asserted by tests: speed is measured, never tested.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::lifecycle::{self, Stage};
use crate::report::{mib, ms, quantile, Table};
use crate::spawn::{Runner, Sample};

/// How much serve is asked to do.
pub struct Load {
    pub answers: usize,
    pub store_runs: usize,
    pub store_pending: usize,
    pub clients: usize,
    pub streams: usize,
}

/// A `serve --listen 127.0.0.1:0` child of a runner, stopped on drop.
pub struct Serve {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    addr: String,
}

impl Serve {
    pub fn start(r: &Runner, extra: &[&str]) -> Result<Serve, String> {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut child = r
            .command(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start serve: {e}"))?;
        let mut lines = BufReader::new(child.stderr.take().ok_or("no stderr")?).lines();
        let addr = loop {
            let Some(Ok(line)) = lines.next() else {
                let _ = child.kill();
                return Err("serve exited before it served".into());
            };
            if let Some(rest) = line.split("(listening on ").nth(1) {
                break rest
                    .split([')', ','])
                    .next()
                    .unwrap_or_default()
                    .to_string();
            }
        };
        // One line per request goes to stderr: keep reading it so that serve never blocks.
        std::thread::spawn(move || lines.for_each(drop));
        Ok(Serve {
            child,
            url: format!("http://{addr}"),
            addr,
        })
    }

    /// serve's resident memory now, and its peak so far (KiB, from /proc).
    fn rss_kib(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
                .unwrap_or(0)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

/// A response: its status, its headers that matter here, its whole body.
pub struct Resp {
    pub status: u16,
    outcome: String,
    cookies: Vec<String>,
    pub body: String,
}

pub fn send(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<String>,
) -> Result<Resp, String> {
    let mut req = ureq::http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let result = match body {
        Some(b) => agent.run(req.body(b).map_err(|e| e.to_string())?),
        None => agent.run(req.body(()).map_err(|e| e.to_string())?),
    };
    let mut r = result.map_err(|e| format!("{method} {url}: {e}"))?;
    let header = |name: &str| {
        r.headers()
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok().map(str::to_string))
            .collect::<Vec<_>>()
    };
    let outcome = header("mastra-ask-outcome").join(",");
    let cookies = header("set-cookie");
    let body = r
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .map_err(|e| format!("{method} {url}: {e}"))?;
    Ok(Resp {
        status: r.status().as_u16(),
        outcome,
        cookies,
        body,
    })
}

/// A timed request, as a sample of the shared tables.
pub fn timed(f: impl FnOnce() -> Result<Resp, String>) -> Result<(Sample, Resp), String> {
    let start = Instant::now();
    let r = f()?;
    let wall = start.elapsed();
    Ok((
        Sample {
            wall,
            rss_kib: 0,
            code: r.status as i32,
            cpu: Duration::ZERO,
            faults: 0,
        },
        r,
    ))
}

/// `median / p99 (n)`.
pub fn tail(samples: &[Sample]) -> String {
    format!(
        "{} median, {} p99 (n={})",
        ms(quantile(samples, 0.5)),
        ms(quantile(samples, 0.99)),
        samples.len()
    )
}

/// The reviewer `bench`'s token in the runner's store.
fn reviewer(r: &Runner) -> Result<String, String> {
    reviewer_named(r, "bench")
}

/// A new reviewer's token in the runner's store.
pub fn reviewer_named(r: &Runner, name: &str) -> Result<String, String> {
    Ok(r.output(&["reviewer", "add", name], 0)?.trim().to_string())
}

/// The resume data that answers an item of the workload.
pub fn resume_data(stage: Stage) -> Value {
    match stage {
        Stage::Version => json!("2.0.0"),
        Stage::Channel => json!("beta"),
        Stage::Chores => json!(["Add tests", "Update docs"]),
        Stage::Plan => json!({"action": "approved"}),
    }
}

pub fn resume(
    agent: &ureq::Agent,
    base: &str,
    agent_id: &str,
    token: Option<&str>,
    body: &Value,
) -> Result<Resp, String> {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![("content-type", "application/json")];
    if let Some(b) = &bearer {
        headers.push(("authorization", b));
    }
    send(
        agent,
        "POST",
        &format!("{base}/api/agents/{agent_id}/resume-stream"),
        &headers,
        Some(body.to_string()),
    )
}

/// Signs `token` in through the login form; the session cookie (`name=value`).
fn sign_in(agent: &ureq::Agent, s: &Serve, token: &str) -> Result<String, String> {
    let page = send(agent, "GET", &format!("{}/login", s.url), &[], None)?;
    let pre = page
        .cookies
        .iter()
        .find(|c| c.starts_with("__Host-mastra-ask-pre="))
        .and_then(|c| c.split(';').next())
        .ok_or("no pre-session cookie")?
        .to_string();
    let marker = r#"name="csrf" value=""#;
    let at = page.body.find(marker).ok_or("no csrf field")? + marker.len();
    let csrf = &page.body[at..at + page.body[at..].find('"').unwrap_or(0)];
    let form = format!("csrf={csrf}&token={token}");
    let r = send(
        agent,
        "POST",
        &format!("{}/login", s.url),
        &[
            ("cookie", &pre),
            ("origin", &s.url),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
        Some(form),
    )?;
    r.cookies
        .iter()
        .find(|c| c.starts_with("__Host-mastra-ask-session="))
        .and_then(|c| c.split(';').next())
        .map(str::to_string)
        .ok_or_else(|| format!("sign-in failed ({})", r.status))
}

pub fn measure(
    table: &mut Table,
    bin: &std::path::Path,
    root: &std::path::Path,
    load: &Load,
) -> Result<(), String> {
    answers(table, bin, root, load.answers)?;
    big_store(table, bin, root, load)
}

/// 1: answers whose leg `serve --drive` drives, beside the fixture.
fn answers(
    table: &mut Table,
    bin: &std::path::Path,
    root: &std::path::Path,
    n: usize,
) -> Result<(), String> {
    crate::progress("serve --drive: answers through the API, their legs driven");
    let r = Runner::new(bin, &root.join("serve-drive")).map_err(|e| e.to_string())?;
    lifecycle::prepare(&r, None)?;
    lifecycle::lifecycles(&r, 2, 2)?;
    let token = reviewer(&r)?;
    let serve = Serve::start(&r, &["--drive"])?;
    let client = agent();
    let mut samples = Vec::with_capacity(n);
    for i in 0..n + 3 {
        let run = lifecycle::partial(&r, 0)?;
        let body = json!({"runId": run, "resumeData": "2.0.0"});
        let (s, resp) = timed(|| resume(&client, &serve.url, "release", Some(&token), &body))?;
        if resp.status != 200
            || resp.outcome != "driven"
            || !resp.body.contains("tool-call-suspended")
        {
            return Err(format!(
                "a driven answer answered {} ({}): {}",
                resp.status, resp.outcome, resp.body
            ));
        }
        if i >= 3 {
            samples.push(s); // the first three warm serve up
        }
    }
    table.row(
        "serve --drive: an answer through the API, its leg driven and streamed to the next suspension",
        "< 3 ms median, < 20 ms p99",
        tail(&samples),
        Some(quantile(&samples, 0.5).as_micros() < 3000 && quantile(&samples, 0.99).as_millis() < 20),
    );
    drop(serve);
    if let Some(why) = crate::server::unavailable() {
        crate::progress(&format!(
            "skipping the fixture's side of the answers: {why}"
        ));
        return Ok(());
    }
    let data = root.join("serve-fixture-data");
    std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
    let fixture = crate::server::Server::start(&data)?;
    let mut theirs = Vec::with_capacity(n);
    for i in 0..n + 3 {
        let (run, call) = crate::server::start(&r, &fixture.url, 1000 + i)?;
        let body = json!({"runId": run, "toolCallId": call, "resumeData": "bench"});
        let (s, resp) = timed(|| resume(&client, &fixture.url, "planner", None, &body))?;
        if resp.status != 200 {
            return Err(format!(
                "the fixture answered {}: {}",
                resp.status, resp.body
            ));
        }
        if i >= 3 {
            theirs.push(s);
        }
    }
    let ratio =
        quantile(&samples, 0.5).as_secs_f64() / quantile(&theirs, 0.5).as_secs_f64().max(1e-9);
    table.row(
        "the same client, the Mastra server fixture: a question resumed to its end",
        "",
        format!("{}; serve / fixture {ratio:.2}x", tail(&theirs)),
        None,
    );
    Ok(())
}

/// 2, 3 and 4, on a seeded store.
fn big_store(
    table: &mut Table,
    bin: &std::path::Path,
    root: &std::path::Path,
    load: &Load,
) -> Result<(), String> {
    crate::progress(&format!(
        "serve: seeding a store of {} runs, {} waiting",
        load.store_runs, load.store_pending
    ));
    let r = Runner::new(bin, &root.join("serve-big")).map_err(|e| e.to_string())?;
    lifecycle::prepare(&r, None)?;
    lifecycle::lifecycles(&r, 2, 2)?;
    for stage in 0..4 {
        lifecycle::partial(&r, stage)?;
    }
    crate::seed::seed(
        std::path::Path::new(&r.store),
        load.store_runs,
        load.store_pending,
    )?;
    let token = reviewer(&r)?;
    let serve = Serve::start(&r, &["--drive"])?;
    let client = agent();
    let cookie = sign_in(&client, &serve, &token)?;
    let items = lifecycle::pending(&r)?;
    let label = format!("{} runs, {} pending", load.store_runs, items.len());

    // 2. The inbox page and the API's listing.
    let mut page = Vec::new();
    let mut size = 0;
    for _ in 0..23 {
        let (s, resp) = timed(|| {
            send(
                &client,
                "GET",
                &format!("{}/", serve.url),
                &[("cookie", &cookie)],
                None,
            )
        })?;
        if resp.status != 200 {
            return Err(format!("the inbox answered {}", resp.status));
        }
        size = resp.body.len();
        page.push(s);
    }
    table.row(
        &format!("serve: the inbox page ({label})"),
        "< 30 ms at 100,000 runs",
        format!("{}; {} KiB of HTML", tail(&page[3..]), size / 1024),
        (load.store_runs >= 100_000).then(|| quantile(&page[3..], 0.5).as_millis() < 30),
    );
    let bearer = format!("Bearer {token}");
    let listing = format!(
        "{}/api/agents/release/suspended-runs?perPage=100&page=0",
        serve.url
    );
    let mut listed = Vec::new();
    for _ in 0..23 {
        let (s, resp) = timed(|| {
            send(
                &client,
                "GET",
                &listing,
                &[("authorization", &bearer)],
                None,
            )
        })?;
        if resp.status != 200 {
            return Err(format!(
                "the listing answered {}: {}",
                resp.status, resp.body
            ));
        }
        listed.push(s);
    }
    table.row(
        &format!("serve: `suspended-runs`, 100 a page, over the API ({label})"),
        "",
        tail(&listed[3..]),
        None,
    );

    // 3. Many clients answering every item, each item by two of them.
    crate::progress(&format!(
        "serve: {} clients answering {} items, each twice",
        load.clients,
        items.len()
    ));
    // Each item named by its call: the first answer's leg suspends the run again, and the
    // second must meet the item it was meant for (a 409), not the run's next one.
    let work: Vec<(String, String, Stage)> = items
        .iter()
        .chain(items.iter())
        .map(|i| (i.run.clone(), i.call.clone(), i.stage))
        .collect();
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(work.len()));
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..load.clients {
            scope.spawn(|| {
                let client = agent();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((run, call, stage)) = work.get(i) else {
                        break;
                    };
                    let body = json!({
                        "runId": run,
                        "toolCallId": call,
                        "resumeData": resume_data(*stage),
                    });
                    let got = timed(|| resume(&client, &serve.url, "release", Some(&token), &body));
                    results.lock().unwrap().push((i % items.len(), got));
                }
            });
        }
    });
    let elapsed = start.elapsed();
    let results = results.into_inner().unwrap();
    let mut recorded = vec![0usize; items.len()];
    let (mut conflicts, mut failures, mut samples) = (0, Vec::new(), Vec::new());
    for (item, got) in results {
        match got {
            Ok((s, resp)) if resp.status == 200 => {
                recorded[item] += 1;
                samples.push(s);
            }
            Ok((_, resp)) if resp.status == 409 => conflicts += 1,
            Ok((_, resp)) => failures.push(format!("{}: {}", resp.status, resp.body)),
            Err(e) => failures.push(e),
        }
    }
    for f in failures.iter().take(5) {
        eprintln!("bench: an answer failed: {f}");
    }
    let once = recorded.iter().filter(|&&n| n == 1).count();
    let in_store = api_resolutions(&r)?;
    let all = once == items.len() && failures.is_empty() && in_store == items.len();
    table.row(
        &format!(
            "serve --drive: {} clients answering {} items through the API, each item sent twice ({label})",
            load.clients,
            items.len()
        ),
        "all succeed, each exactly once",
        format!(
            "{once}/{} recorded once, {conflicts} 409s, {} failures, {in_store} in the store; \
             {:.2} s in all ({:.1} ms per item); a recorded answer with its leg {}",
            items.len(),
            failures.len(),
            elapsed.as_secs_f64(),
            elapsed.as_secs_f64() * 1000.0 / items.len().max(1) as f64,
            tail(&samples)
        ),
        Some(all),
    );
    // 4. Event streams held open.
    let (rss_before, _) = serve.rss_kib();
    // As many people's pages: serve holds at most 8 streams a session, 32 a reviewer.
    let mut held = Vec::with_capacity(load.streams);
    let (mut viewer, mut session) = (String::new(), String::new());
    for i in 0..load.streams {
        if i % 32 == 0 {
            viewer = reviewer_named(&r, &format!("viewer{}", i / 32))?;
        }
        if i % 8 == 0 {
            session = sign_in(&client, &serve, &viewer)?;
        }
        held.push(open_stream(&serve, &session)?);
    }
    std::thread::sleep(Duration::from_secs(1));
    let (rss_held, _) = serve.rss_kib();
    drop(held);
    table.row(
        &format!(
            "serve: {} live-page event streams held open at once",
            load.streams
        ),
        "< 64 MiB",
        format!(
            "resident memory {} before, {} while they are open ({:.1} KiB each)",
            mib(rss_before),
            mib(rss_held),
            rss_held.saturating_sub(rss_before) as f64 / load.streams.max(1) as f64
        ),
        Some(rss_held < 64 * 1024),
    );

    Ok(())
}

/// A live page's event stream, open once its headers said 200.
fn open_stream(s: &Serve, cookie: &str) -> Result<TcpStream, String> {
    let mut c = TcpStream::connect(&s.addr).map_err(|e| format!("connecting: {e}"))?;
    c.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    write!(
        c,
        "GET /events HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\nAccept: text/event-stream\r\n\r\n",
        s.addr
    )
    .map_err(|e| e.to_string())?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 16 << 10 || c.read(&mut byte).map_err(|e| e.to_string())? == 0 {
            return Err("an event stream ended before its headers".into());
        }
        head.push(byte[0]);
    }
    if !head.starts_with(b"HTTP/1.1 200") {
        return Err(format!(
            "an event stream was refused: {}",
            String::from_utf8_lossy(&head)
                .lines()
                .next()
                .unwrap_or_default()
        ));
    }
    Ok(c)
}

/// How many items the store says were resolved through the API.
fn api_resolutions(r: &Runner) -> Result<usize, String> {
    let conn =
        rusqlite::Connection::open(std::path::Path::new(&r.store)).map_err(|e| e.to_string())?;
    conn.query_row(
        "SELECT count(*) FROM calls WHERE resolved_via = 'api'",
        [],
        |row| row.get::<_, i64>(0),
    )
    .map(|n| n as usize)
    .map_err(|e| e.to_string())
}
