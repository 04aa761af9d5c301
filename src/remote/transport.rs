//! HTTP to a Mastra server: one blocking ureq agent (rustls, `SSL_CERT_FILE` as the trust
//! store when set, the proxy of `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` unless `NO_PROXY` or a
//! loopback server), redirects followed by hand so that a credential never crosses to
//! another origin, and failures sorted by how far the request got.
//!
//! Streams get no read timeout (a resumed leg may think for minutes, and dropping it would
//! make Mastra abort the run); JSON answers do. It knows routes only as paths and never
//! builds a message from a request header.

use std::time::Duration;

use serde_json::Value;
use ureq::http::{Response, Uri};
use ureq::Body;

use super::config::{Origin, Scheme, ServerConfig};
use super::error::{error_body, Delivery, RemoteError};

/// The longest wait for a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest silence while a JSON answer arrives.
pub const JSON_READ_TIMEOUT: Duration = Duration::from_secs(60);
/// The most we read of a JSON answer.
pub const MAX_JSON: u64 = 16 * 1024 * 1024;
/// The most we read of an error body.
const MAX_ERROR_BODY: u64 = 64 * 1024;
const MAX_REDIRECTS: usize = 5;
const IDLE_AGE: Duration = Duration::from_secs(4);

/// One request: a path under the API prefix, a JSON body for a POST, and the agent it is
/// about (so a 404 can say which agent is unknown).
pub struct Request<'a> {
    pub path: &'a str,
    pub body: Option<&'a Value>,
    pub agent: Option<&'a str>,
    /// An event stream is expected: no read timeout.
    pub stream: bool,
}

pub struct Http {
    agent: ureq::Agent,
    config: ServerConfig,
}

impl Http {
    pub fn new(config: ServerConfig) -> Result<Http, RemoteError> {
        let mut builder = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(CONNECT_TIMEOUT))
            // Below the 5 s keep-alive of Node's HTTP server, so a pooled connection is not
            // one the server is closing.
            .max_idle_age(IDLE_AGE)
            .user_agent(concat!("mastra-ask/", env!("CARGO_PKG_VERSION")))
            .proxy(proxy_for(config.origin(), |n| std::env::var(n).ok())?);
        if let Some(tls) = trust_store(std::env::var_os("SSL_CERT_FILE"))? {
            builder = builder.tls_config(tls);
        }
        Ok(Http {
            agent: ureq::Agent::new_with_config(builder.build()),
            config,
        })
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Sends the request and returns a 2xx answer; any other status becomes its error.
    pub fn send(&self, req: &Request<'_>) -> Result<Response<Body>, RemoteError> {
        let response = self.send_following(req)?;
        let status = response.status().as_u16();
        if (200..300).contains(&status) {
            return Ok(response);
        }
        let body = response
            .into_body()
            .with_config()
            .limit(MAX_ERROR_BODY)
            .read_to_vec()
            .unwrap_or_default();
        Err(self.status_error(status, &body, req))
    }

    /// GETs (or POSTs) and decodes a JSON answer.
    pub fn json(&self, req: &Request<'_>) -> Result<Value, RemoteError> {
        let response = self.send(req)?;
        let bytes = response
            .into_body()
            .with_config()
            .limit(MAX_JSON)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => self.protocol(format!(
                    "the answer to {} is larger than {} MiB",
                    req.path,
                    MAX_JSON >> 20
                )),
                other => self.transport(&other, Delivery::Accepted),
            })?;
        serde_json::from_slice(&bytes)
            .map_err(|e| self.protocol(format!("the answer to {} is not JSON: {e}", req.path)))
    }

    /// A transport failure of this server, sorted and scrubbed.
    pub fn transport(&self, e: &ureq::Error, floor: Delivery) -> RemoteError {
        let (delivery, detail) = sort(e);
        let delivery = match (floor, delivery) {
            (Delivery::Accepted, _) | (_, Delivery::Accepted) => Delivery::Accepted,
            (Delivery::Unknown, _) | (_, Delivery::Unknown) => Delivery::Unknown,
            _ => Delivery::NotSent,
        };
        RemoteError::Transport {
            server: self.config.display().to_string(),
            delivery,
            detail: self.config.redact(&detail),
        }
    }

    pub fn protocol(&self, detail: String) -> RemoteError {
        RemoteError::Protocol {
            server: self.config.display().to_string(),
            detail: self.config.redact(&detail),
        }
    }

    fn send_following(&self, req: &Request<'_>) -> Result<Response<Body>, RemoteError> {
        let mut url = self.config.url(req.path);
        for _ in 0..=MAX_REDIRECTS {
            let uri: Uri = url
                .parse()
                .map_err(|e| self.protocol(format!("a redirect to a bad URL ({e})")))?;
            let origin =
                Origin::of(&uri).map_err(|e| self.protocol(format!("a redirect to {url}: {e}")))?;
            let auth = self.config.authorization(&origin);
            let result = match req.body {
                Some(body) => {
                    let mut r = self
                        .agent
                        .post(&url)
                        .header("Content-Type", "application/json")
                        .header("Accept", "text/event-stream, application/json");
                    if let Some(a) = &auth {
                        r = r.header("Authorization", a);
                    }
                    if !req.stream {
                        r = r.config().timeout_per_read(Some(JSON_READ_TIMEOUT)).build();
                    }
                    r.send(body.to_string())
                }
                None => {
                    let mut r = self.agent.get(&url).header("Accept", "application/json");
                    if let Some(a) = &auth {
                        r = r.header("Authorization", a);
                    }
                    if !req.stream {
                        r = r.config().timeout_per_read(Some(JSON_READ_TIMEOUT)).build();
                    }
                    r.call()
                }
            };
            let response = result.map_err(|e| self.transport(&e, Delivery::NotSent))?;
            let status = response.status().as_u16();
            if !matches!(status, 301 | 302 | 303 | 307 | 308) {
                return Ok(response);
            }
            let next = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .and_then(|l| resolve(&url, l));
            let Some(next) = next else {
                return Err(
                    self.server_error(status, "a redirect without a usable Location".into())
                );
            };
            if req.body.is_some() && !matches!(status, 307 | 308) {
                // Following would turn the POST into a GET and lose the answer.
                return Err(self.server_error(
                    status,
                    format!("it redirects this request to {next}; use that server URL"),
                ));
            }
            url = next;
        }
        Err(self.protocol(format!("more than {MAX_REDIRECTS} redirects")))
    }

    fn server_error(&self, status: u16, message: String) -> RemoteError {
        RemoteError::Server {
            server: self.config.display().to_string(),
            status,
            message: self.config.redact(&message),
        }
    }

    /// The error of a non-2xx answer (SPEC §12's mapping).
    fn status_error(&self, status: u16, body: &[u8], req: &Request<'_>) -> RemoteError {
        let (message, issues) = error_body(body);
        let message = self.config.redact(&message);
        let server = self.config.display().to_string();
        let json_error = serde_json::from_slice::<Value>(body).is_ok() && !message.is_empty();
        match status {
            400 => RemoteError::Invalid {
                server,
                message,
                issues: issues
                    .into_iter()
                    .map(|mut i| {
                        i.message = self.config.redact(&i.message);
                        i
                    })
                    .collect(),
            },
            401 | 403 => RemoteError::Unauthorized {
                hint: self.auth_hint(),
                server,
                status,
                message,
            },
            404 => match req.agent {
                Some(agent) if json_error => RemoteError::UnknownAgent {
                    server,
                    agent: agent.to_string(),
                },
                _ => RemoteError::NoRoute {
                    server,
                    path: req.path.to_string(),
                },
            },
            500 if message.contains("could not find a suspended run") => {
                RemoteError::NoSuspendedRun { message }
            }
            500 if message.contains("because it is not suspended") => {
                RemoteError::NotSuspended { message }
            }
            _ => RemoteError::Server {
                server,
                status,
                message,
            },
        }
    }

    fn auth_hint(&self) -> String {
        let origin = self.config.origin();
        if self.config.credential_withheld() {
            format!(
                "the token was not sent: {} is plain http and not on this machine; use https",
                origin.host
            )
        } else if self.config.has_credential() {
            "check the token (MASTRA_SERVER_TOKEN or --server-token-file)".into()
        } else {
            "the server wants a token: set MASTRA_SERVER_TOKEN or pass --server-token-file".into()
        }
    }
}

/// How far a failed request got, and what happened, from ureq's error.
fn sort(e: &ureq::Error) -> (Delivery, String) {
    use std::io::ErrorKind as K;
    use ureq::Error as E;
    let delivery = match e {
        E::ConnectionFailed
        | E::HostNotFound
        | E::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve)
        | E::Tls(_)
        | E::Pem(_)
        | E::Rustls(_)
        | E::BadUri(_)
        | E::InvalidProxyUrl
        | E::ConnectProxyFailed(_)
        | E::TlsRequired
        | E::RequireHttpsOnly(_) => Delivery::NotSent,
        E::Io(io) if matches!(io.kind(), K::ConnectionRefused | K::AddrNotAvailable) => {
            Delivery::NotSent
        }
        _ => Delivery::Unknown,
    };
    let detail = match e {
        E::ConnectionFailed => "connection refused".to_string(),
        E::HostNotFound => "host not found".to_string(),
        E::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve) => {
            format!("no connection within {} s", CONNECT_TIMEOUT.as_secs())
        }
        E::Timeout(_) => format!("no answer for {} s", JSON_READ_TIMEOUT.as_secs()),
        E::Io(io) if io.kind() == K::ConnectionRefused => "connection refused".to_string(),
        other => other.to_string(),
    };
    (delivery, detail)
}

/// Where a `Location` points, as an absolute URL.
fn resolve(current: &str, location: &str) -> Option<String> {
    let location = location.trim();
    if location.is_empty() {
        return None;
    }
    let (scheme, rest) = current.split_once("://")?;
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let base = &current[..scheme.len() + 3 + authority_end];
    if location.contains("://") {
        return Some(location.to_string());
    }
    if let Some(net) = location.strip_prefix("//") {
        return Some(format!("{scheme}://{net}"));
    }
    if location.starts_with('/') {
        return Some(format!("{base}{location}"));
    }
    let path = rest[authority_end..]
        .split(['?', '#'])
        .next()
        .unwrap_or("/");
    let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    let dir = if dir.is_empty() { "/" } else { dir };
    Some(format!("{base}{dir}{location}"))
}

/// The proxy for this server: none for a loopback server (a proxy cannot reach our own
/// loopback) or one `NO_PROXY` names, else the scheme's variable, then `ALL_PROXY`.
fn proxy_for(
    origin: &Origin,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<ureq::Proxy>, RemoteError> {
    if origin.is_loopback() {
        return Ok(None);
    }
    let var = |names: &[&'static str]| {
        names
            .iter()
            .find_map(|n| env(n).filter(|v| !v.trim().is_empty()).map(|v| (*n, v)))
    };
    if let Some((_, list)) = var(&["NO_PROXY", "no_proxy"]) {
        if no_proxy_matches(&list, &origin.host) {
            return Ok(None);
        }
    }
    let names: &[&str] = match origin.scheme {
        Scheme::Https => &["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"],
        Scheme::Http => &["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"],
    };
    let Some((name, url)) = var(names) else {
        return Ok(None);
    };
    ureq::Proxy::new(url.trim())
        .map(Some)
        .map_err(|_| RemoteError::Config(format!("{name} is not a usable proxy URL")))
}

/// Whether a `NO_PROXY` list names this host: `*`, the host itself, or a domain it is in.
fn no_proxy_matches(list: &str, host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    list.split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .any(|entry| {
            let entry = entry
                .trim_start_matches("*.")
                .trim_start_matches('.')
                .to_ascii_lowercase();
            let entry = entry.trim_start_matches('[').trim_end_matches(']');
            entry == "*"
                || host == entry
                || host
                    .strip_suffix(entry)
                    .is_some_and(|head| head.ends_with('.'))
        })
}

/// The trust store of `SSL_CERT_FILE` (PEM certificates) in place of the built-in roots.
fn trust_store(
    ssl_cert_file: Option<std::ffi::OsString>,
) -> Result<Option<ureq::tls::TlsConfig>, RemoteError> {
    let Some(path) = ssl_cert_file.filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    let shown = std::path::Path::new(&path).display().to_string();
    let pem = std::fs::read(&path)
        .map_err(|e| RemoteError::Config(format!("cannot read SSL_CERT_FILE {shown}: {e}")))?;
    let certs: Vec<_> = ureq::tls::parse_pem(&pem)
        .filter_map(|item| match item {
            Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
            _ => None,
        })
        .collect();
    if certs.is_empty() {
        return Err(RemoteError::Config(format!(
            "SSL_CERT_FILE {shown} holds no PEM certificate"
        )));
    }
    let roots = ureq::tls::RootCerts::new_with_certs(&certs);
    Ok(Some(
        ureq::tls::TlsConfig::builder().root_certs(roots).build(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_resolve_against_the_current_url() {
        let cur = "http://h:1/api/agents/x/stream";
        assert_eq!(
            resolve(cur, "https://o:2/p").as_deref(),
            Some("https://o:2/p")
        );
        assert_eq!(resolve(cur, "//o:2/p").as_deref(), Some("http://o:2/p"));
        assert_eq!(
            resolve(cur, "/v2/agents").as_deref(),
            Some("http://h:1/v2/agents")
        );
        assert_eq!(
            resolve(cur, "y/stream").as_deref(),
            Some("http://h:1/api/agents/x/y/stream")
        );
        assert_eq!(resolve("http://h:1", "a").as_deref(), Some("http://h:1/a"));
        assert_eq!(resolve(cur, " "), None);
    }

    #[test]
    fn no_proxy_lists() {
        assert!(no_proxy_matches("*", "example.com"));
        assert!(no_proxy_matches("a.b, example.com", "example.com"));
        assert!(no_proxy_matches(".example.com", "api.example.com"));
        assert!(no_proxy_matches("*.example.com", "api.example.com"));
        assert!(no_proxy_matches("example.com", "api.example.com"));
        assert!(!no_proxy_matches("example.com", "badexample.com"));
        assert!(!no_proxy_matches("", "example.com"));
        assert!(no_proxy_matches("::1", "[::1]"));
    }

    #[test]
    fn proxies_by_scheme_never_for_loopback_or_no_proxy() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |n: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == n)
                    .map(|(_, v)| v.to_string())
            }
        };
        let https = Origin::of(&"https://api.example.com".parse().unwrap()).unwrap();
        let http = Origin::of(&"http://api.example.com".parse().unwrap()).unwrap();
        let local = Origin::of(&"http://127.0.0.1:4111".parse().unwrap()).unwrap();
        let vars = env(&[
            ("HTTPS_PROXY", "http://user:pw@proxy.internal:3128"),
            ("http_proxy", "http://plain.internal:8080"),
        ]);
        let p = proxy_for(&https, vars).unwrap().unwrap();
        assert_eq!(
            (p.host(), p.port(), p.password()),
            ("proxy.internal", 3128, Some("pw"))
        );
        assert_eq!(
            proxy_for(&http, vars).unwrap().unwrap().host(),
            "plain.internal"
        );
        assert!(proxy_for(&local, vars).unwrap().is_none());
        let all = env(&[
            ("ALL_PROXY", "http://all.internal:1"),
            ("NO_PROXY", ".example.com"),
        ]);
        assert!(proxy_for(&https, all).unwrap().is_none());
        let all = env(&[("ALL_PROXY", "http://all.internal:1")]);
        assert_eq!(
            proxy_for(&https, all).unwrap().unwrap().host(),
            "all.internal"
        );
        assert!(proxy_for(&https, env(&[])).unwrap().is_none());
    }

    #[test]
    fn ssl_cert_file_must_hold_certificates() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ca.pem");
        assert!(trust_store(None).unwrap().is_none());
        std::fs::write(&file, "not a certificate").unwrap();
        let e = trust_store(Some(file.clone().into()))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("ca.pem holds no PEM certificate"), "{e}");
        std::fs::write(
            &file,
            "-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n",
        )
        .unwrap();
        assert!(trust_store(Some(file.into())).unwrap().is_some());
        let e = trust_store(Some(dir.path().join("nope").into()))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("cannot read SSL_CERT_FILE"), "{e}");
    }

    #[test]
    fn a_withheld_token_is_named_in_the_hint() {
        let config = ServerConfig::new("http://example.com/api", Some("t0k".into())).unwrap();
        let http = Http::new(config).unwrap();
        let req = Request {
            path: "/agents",
            body: None,
            agent: None,
            stream: false,
        };
        let e = http.status_error(401, br#"{"error":"Unauthorized"}"#, &req);
        assert_eq!(
            e.hint().unwrap(),
            "the token was not sent: example.com is plain http and not on this machine; use https"
        );
    }

    #[test]
    fn connection_failures_are_not_sent_others_unknown() {
        assert_eq!(sort(&ureq::Error::ConnectionFailed).0, Delivery::NotSent);
        assert_eq!(sort(&ureq::Error::HostNotFound).0, Delivery::NotSent);
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(sort(&ureq::Error::Io(refused)).0, Delivery::NotSent);
        let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        assert_eq!(sort(&ureq::Error::Io(reset)).0, Delivery::Unknown);
        assert_eq!(
            sort(&ureq::Error::Timeout(ureq::Timeout::RecvResponse)).0,
            Delivery::Unknown
        );
    }
}
