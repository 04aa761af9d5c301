//! A serve child process per test, an HTTP client that keeps nothing between requests
//! (cookies and tokens are passed explicitly, so each test says who it is), and the items
//! tests answer.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{exit_within, poll_for, Env, PATIENCE};

pub struct Served {
    pub child: Child,
    /// Its origin: `http://127.0.0.1:PORT`, or its `--public-url`.
    pub base: String,
    /// Where it listens: `http://127.0.0.1:PORT` (or `https://`).
    local: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Served {
    /// `serve --listen 127.0.0.1:0` with `extra` flags; waits (30 s at most) until it says
    /// where it serves.
    pub fn start(env: &Env, extra: &[&str]) -> Served {
        Served::start_with(env, extra, |_| {})
    }

    /// `start`, with the command changed by `adjust` first (its environment, its
    /// directory).
    pub fn start_with(env: &Env, extra: &[&str], adjust: impl FnOnce(&mut Command)) -> Served {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut command = env.command(&args);
        adjust(&mut command);
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let lines = log.clone();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        });
        let (base, local) = poll_for("serve never started", PATIENCE, || {
            let found = log.lock().unwrap().iter().find_map(|l| {
                let rest = l.strip_prefix("serving the inbox at ")?;
                let base = rest.split(' ').next()?.to_string();
                let addr = rest.split("(listening on ").nth(1)?;
                let addr = addr.split([')', ',']).next()?;
                let scheme = if rest.contains(", TLS)") {
                    "https"
                } else {
                    "http"
                };
                Some((base, format!("{scheme}://{addr}")))
            });
            if found.is_none() {
                if let Ok(Some(status)) = child.try_wait() {
                    panic!(
                        "serve exited ({status}): {}",
                        log.lock().unwrap().join("\n")
                    );
                }
            }
            found
        });
        Served {
            child,
            base,
            local,
            log,
        }
    }

    /// What serve printed on stderr so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    pub fn port(&self) -> u16 {
        self.local.rsplit(':').next().unwrap().parse().unwrap()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.local)
    }

    /// Sends SIGTERM; waits (40 s at most) for the exit code.
    pub fn terminate(&mut self) -> i32 {
        signal(self.child.id(), libc::SIGTERM);
        exit_within(
            &mut self.child,
            "serve did not stop",
            Duration::from_secs(40),
        )
        .code()
        .unwrap_or(-1)
    }

    pub fn get(&self, path: &str, headers: &[(&str, &str)]) -> Resp {
        send(&self.url(path), "GET", headers, None)
    }

    pub fn post(&self, path: &str, headers: &[(&str, &str)], body: &str) -> Resp {
        send(&self.url(path), "POST", headers, Some(body))
    }

    /// `POST /api/...` with a bearer token and a JSON body.
    pub fn api(&self, path: &str, token: &str, body: &Value) -> Resp {
        let auth = format!("Bearer {token}");
        self.post(
            &format!("/api{path}"),
            &[
                ("authorization", &auth),
                ("content-type", "application/json"),
            ],
            &body.to_string(),
        )
    }

    pub fn api_get(&self, path: &str, token: &str) -> Resp {
        let auth = format!("Bearer {token}");
        self.get(&format!("/api{path}"), &[("authorization", &auth)])
    }

    /// Signs in with a token the way the sign-in page does; the session cookie.
    pub fn sign_in(&self, token: &str) -> Session {
        let page = self.get("/login", &[]);
        assert_eq!(page.status, 200, "{}", page.body);
        let pre = page
            .cookie("__Host-mastra-ask-pre")
            .expect("a pre-session cookie");
        let csrf = csrf_of(&page.body);
        let cookie = format!("__Host-mastra-ask-pre={pre}");
        let body = form(&[("csrf", &csrf), ("token", token)]);
        let r = self.post(
            "/login",
            &[("cookie", &cookie), ("origin", &self.base)],
            &body,
        );
        assert_eq!(r.status, 303, "{}", r.body);
        let session = r
            .cookie("__Host-mastra-ask-session")
            .expect("a session cookie");
        let inbox = self.page(
            &Session {
                cookie: session.clone(),
                csrf: String::new(),
            },
            "/",
        );
        Session {
            cookie: session,
            csrf: csrf_of(&inbox.body),
        }
    }

    /// A page as a signed-in person gets it.
    pub fn page(&self, s: &Session, path: &str) -> Resp {
        self.get(path, &[("cookie", &s.header())])
    }

    /// A form posted from a page of this server, with the session's csrf value.
    pub fn submit(&self, s: &Session, path: &str, fields: &[(&str, &str)]) -> Resp {
        let mut all = vec![("csrf", s.csrf.as_str())];
        all.extend_from_slice(fields);
        self.post(
            path,
            &[("cookie", &s.header()), ("origin", &self.base)],
            &form(&all),
        )
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn signal(pid: u32, sig: i32) {
    // SAFETY: sending a signal to a child process of this test.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(pid as i32, sig);
    }
}

/// A signed-in browser's cookie and its forms' csrf value.
#[derive(Clone)]
pub struct Session {
    pub cookie: String,
    pub csrf: String,
}

impl Session {
    pub fn header(&self) -> String {
        format!("__Host-mastra-ask-session={}", self.cookie)
    }
}

/// The `csrf` value of the first form of a page.
pub fn csrf_of(html: &str) -> String {
    let at = html.find(r#"name="csrf" value=""#).expect("a csrf field");
    let rest = &html[at + r#"name="csrf" value=""#.len()..];
    rest[..rest.find('"').unwrap()].to_string()
}

pub fn form(fields: &[(&str, &str)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in fields {
        s.append_pair(k, v);
    }
    s.finish()
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The value a `Set-Cookie` of this response gives cookie `name`.
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("set-cookie"))
            .find_map(|(_, v)| v.strip_prefix(&format!("{name}=")))
            .map(|v| v.split(';').next().unwrap().to_string())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// The `data:` frames of an event stream, `[DONE]` as a string.
    pub fn frames(&self) -> Vec<Value> {
        self.body
            .split("\n\n")
            .filter_map(|f| f.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap_or_else(|_| Value::from(d)))
            .collect()
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

pub fn send(url: &str, method: &str, headers: &[(&str, &str)], body: Option<&str>) -> Resp {
    let agent = agent();
    let mut req = ureq::http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let result = match body {
        Some(b) => agent.run(req.body(b.to_string()).unwrap()),
        None => agent.run(req.body(()).unwrap()),
    };
    let mut r = result.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = r.status().as_u16();
    let headers = r
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let body = r
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .unwrap_or_default();
    Resp {
        status,
        headers,
        body,
    }
}

/// Adds reviewer `name`; their token.
pub fn reviewer(env: &Env, name: &str) -> String {
    let out = env.cmd(&["reviewer", "add", name]).code(0);
    out.stdout.trim().to_string()
}

/// A pending one-question run (`ask`, no waiter); its run id and tool call id.
pub fn asked(env: &Env, args: &[&str]) -> (String, String) {
    let mut all = vec!["ask"];
    all.extend_from_slice(args);
    let out = env.cmd(&all).code(75);
    let run = out.stdout.trim().to_string();
    (run.clone(), only_item(env, &run))
}

/// A pending one-plan run of a file with `text`; its run id and tool call id.
pub fn planned(env: &Env, text: &str) -> (String, String) {
    env.write("work/PLAN.md", text);
    let out = env.cmd(&["plan", "PLAN.md"]).code(75);
    let run = out.stdout.trim().to_string();
    (run.clone(), only_item(env, &run))
}

/// A run of an agent with these script steps, started with `--wait` (its waiter, still
/// running) and suspended on its first item: the waiter and the run id.
pub fn waiting_run(env: &Env, steps: Value) -> (Child, String) {
    waiting_run_of(env, &env.agent(steps))
}

/// `waiting_run` of an agent file.
pub fn waiting_run_of(env: &Env, agent: &str) -> (Child, String) {
    let waiter = env
        .command(&["run", "--agent", agent, "--wait", "--timeout", "60s", "Go"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = env.first_pending();
    env.wait_for_waiter(&run);
    (waiter, run)
}

/// The only pending item of a run.
pub fn only_item(env: &Env, run: &str) -> String {
    let out = env.run(&["pending", "--run", run, "-q"]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", out.stdout);
    lines[0].split(' ').nth(1).unwrap().to_string()
}

/// The only item (pending or not) of a run.
pub fn only_call(env: &Env, run: &str) -> String {
    let show = env.show(run);
    let items = show["suspensions"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{show}");
    items[0]["toolCallId"].as_str().unwrap().to_string()
}

/// `(state, resolvedBy, resolvedVia, resumeData)` of an item.
pub fn item_state(env: &Env, run: &str, call: &str) -> (String, Value, Value, Value) {
    let show = env.show(run);
    let item = show["suspensions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["toolCallId"] == call)
        .cloned()
        .unwrap_or_else(|| panic!("no item {call}: {show}"));
    (
        item["state"].as_str().unwrap().to_string(),
        item["resolvedBy"].clone(),
        item["resolvedVia"].clone(),
        item["resumeData"].clone(),
    )
}

/// The body of `resume-stream` for an item.
pub fn resume_body(run: &str, call: &str, data: Value) -> Value {
    json!({"runId": run, "toolCallId": call, "resumeData": data})
}
