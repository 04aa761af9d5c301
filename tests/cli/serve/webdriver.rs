//! A small synchronous WebDriver client (W3C protocol over HTTP) for headless Chromium:
//! start chromedriver on a free port, open sessions with a fresh profile each, navigate,
//! find elements, click, type, read, take screenshots. Every request has a deadline.
//!
//! When the browser or its driver is missing the tests skip, except under `CI`, where
//! they fail: CI installs them (`.ci/run`).

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Value};

use crate::common::{poll, PATIENCE};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// WebDriver's key for an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// chromedriver, running; ended when dropped.
pub struct Driver {
    child: Child,
    base: String,
    profiles: tempfile::TempDir,
}

/// Whether the browser tests can run here; under `CI` a missing browser fails the test.
pub fn available() -> bool {
    let there =
        std::path::Path::new(CHROMIUM).exists() && std::path::Path::new(CHROMEDRIVER).exists();
    if !there {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but {CHROMIUM} or {CHROMEDRIVER} is missing: install chromium chromium-driver"
        );
        eprintln!("skipped: no {CHROMIUM} or {CHROMEDRIVER}");
    }
    there
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

fn call(method: &str, url: &str, body: Option<Value>) -> Value {
    let agent = agent();
    let result = match body {
        Some(b) => agent
            .post(url)
            .header("content-type", "application/json")
            .send(b.to_string()),
        None if method == "DELETE" => agent.delete(url).call(),
        None => agent.get(url).call(),
    };
    let mut r = result.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let text = r
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    if v["value"]["error"].is_string() {
        panic!("{method} {url}: {}", v["value"]);
    }
    v["value"].clone()
}

impl Driver {
    pub fn start() -> Driver {
        let port = free_port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        poll("chromedriver never answered", PATIENCE, || {
            agent().get(&format!("{base}/status")).call().is_ok()
        });
        Driver {
            child,
            base,
            profiles: tempfile::tempdir().unwrap(),
        }
    }

    /// A new browser with a profile of its own, its window `width`×`height`.
    pub fn browser(&self, width: u32, height: u32) -> Browser {
        let profile = tempfile::tempdir_in(self.profiles.path()).unwrap().keep();
        let args = vec![
            "--headless".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-quic".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--disable-dev-shm-usage".into(),
            format!("--user-data-dir={}", profile.display()),
            format!("--window-size={width},{height}"),
        ];
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": args,
                "mobileEmulation": {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2.0}},
            },
        }}});
        let v = call("POST", &format!("{}/session", self.base), Some(caps));
        Browser {
            url: format!("{}/session/{}", self.base, v["sessionId"].as_str().unwrap()),
            _profile: profile,
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Browser {
    url: String,
    _profile: PathBuf,
}

/// An element of the page.
#[derive(Clone, PartialEq)]
pub struct Element(String);

impl Browser {
    pub fn go(&self, url: &str) {
        call(
            "POST",
            &format!("{}/url", self.url),
            Some(json!({"url": url})),
        );
    }

    pub fn current_url(&self) -> String {
        call("GET", &format!("{}/url", self.url), None)
            .as_str()
            .unwrap()
            .to_string()
    }

    pub fn source(&self) -> String {
        call("GET", &format!("{}/source", self.url), None)
            .as_str()
            .unwrap()
            .to_string()
    }

    pub fn find(&self, css: &str) -> Element {
        let v = call(
            "POST",
            &format!("{}/element", self.url),
            Some(json!({"using": "css selector", "value": css})),
        );
        match v[ELEMENT].as_str() {
            Some(e) => Element(e.to_string()),
            None => panic!("no {css} in {}: {v}\n{}", self.current_url(), self.source()),
        }
    }

    pub fn find_all(&self, css: &str) -> Vec<Element> {
        call(
            "POST",
            &format!("{}/elements", self.url),
            Some(json!({"using": "css selector", "value": css})),
        )
        .as_array()
        .unwrap()
        .iter()
        .map(|e| Element(e[ELEMENT].as_str().unwrap().to_string()))
        .collect()
    }

    pub fn click(&self, e: &Element) {
        call(
            "POST",
            &format!("{}/element/{}/click", self.url, e.0),
            Some(json!({})),
        );
    }

    /// Clicks an element that submits a form (or follows a link) and waits (30 s at most)
    /// until the next page has loaded.
    pub fn submit(&self, e: &Element) {
        self.script("window.__before_submit = true;");
        self.click(e);
        poll("the next page never loaded", PATIENCE, || {
            self.script(
                "return window.__before_submit === undefined && document.readyState === 'complete';",
            ) == json!(true)
        });
    }

    pub fn type_in(&self, e: &Element, text: &str) {
        call(
            "POST",
            &format!("{}/element/{}/value", self.url, e.0),
            Some(json!({"text": text})),
        );
    }

    pub fn text(&self, e: &Element) -> String {
        call("GET", &format!("{}/element/{}/text", self.url, e.0), None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The element's box: x, y, width, height (CSS pixels).
    pub fn rect(&self, e: &Element) -> (f64, f64, f64, f64) {
        let r = call("GET", &format!("{}/element/{}/rect", self.url, e.0), None);
        let f = |k: &str| r[k].as_f64().unwrap();
        (f("x"), f("y"), f("width"), f("height"))
    }

    /// Runs a script in the page (the CSP does not apply to WebDriver's own scripts).
    pub fn script(&self, source: &str) -> Value {
        call(
            "POST",
            &format!("{}/execute/sync", self.url),
            Some(json!({"script": source, "args": []})),
        )
    }

    /// The cookies the browser holds for the current page.
    pub fn cookies(&self) -> Vec<Value> {
        call("GET", &format!("{}/cookie", self.url), None)
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    pub fn screenshot(&self) -> Vec<u8> {
        let v = call("GET", &format!("{}/screenshot", self.url), None);
        base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap())
            .unwrap()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let agent = agent();
        let _ = agent.delete(&self.url).call();
    }
}
