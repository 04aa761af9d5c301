//! HTTP to a Mastra server: blocking ureq agents (rustls; the certificates of
//! `SSL_CERT_FILE` as the trust store, read only when a TLS connection needs them; the proxy
//! of `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` unless `NO_PROXY` or a loopback server),
//! redirects followed by hand so that a credential never crosses to another origin and an
//! answer is never posted to another server, and failures sorted by how far the request got.
//!
//! Every JSON request has a deadline for the whole exchange, answer included
//! (`Deadlines::json_budget`), so no drip of bytes can stretch it; a stream gets only the
//! connect deadline here, because the leg's reader (`client`) keeps the idle deadline. It
//! knows routes only as paths and never builds a message from a request header.

use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::http::{Response, Uri};
use ureq::Body;

use super::config::ServerConfig;
use super::deadline::Deadlines;
use super::error::{error_body, error_code, Delivery, RemoteError};
use crate::duration;
use crate::limits;
use crate::net::redirect::{self, Refused, MAX_REDIRECTS};
use crate::net::{Agents, Origin, Timeouts};

/// The most we read of one JSON answer.
pub const MAX_JSON: u64 = 16 * 1024 * 1024;
/// The most we read of an error body.
const MAX_ERROR_BODY: u64 = 64 * 1024;
const IDLE_AGE: Duration = Duration::from_secs(4);

/// One request: a path under the API prefix, a JSON body for a POST, and the agent it is
/// about (so a 404 can say which agent is unknown).
pub struct Request<'a> {
    pub path: &'a str,
    pub body: Option<&'a Value>,
    pub agent: Option<&'a str>,
}

pub struct Http {
    config: ServerConfig,
    deadlines: Deadlines,
    agents: Agents,
}

impl Http {
    pub fn new(config: ServerConfig, deadlines: Deadlines) -> Result<Http, RemoteError> {
        let timeouts = Timeouts {
            connect: deadlines.connect(),
            // Below the 5 s keep-alive of Node's HTTP server, so a pooled connection is not
            // one the server is closing.
            idle_age: Some(IDLE_AGE),
            ..Timeouts::default()
        };
        Ok(Http {
            agents: Agents::new(config.origin(), timeouts).map_err(RemoteError::Config)?,
            config,
            deadlines,
        })
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    pub fn deadlines(&self) -> &Deadlines {
        &self.deadlines
    }

    /// The agent for a request to `url`.
    fn agent_for(&self, url: &str) -> Result<&ureq::Agent, RemoteError> {
        self.agents.for_url(url).map_err(RemoteError::Config)
    }

    /// Sends the request and returns a 2xx answer; any other status becomes its error. A
    /// JSON request, answer included, must be done within `budget` from now.
    fn send_within(
        &self,
        req: &Request<'_>,
        budget: Option<Duration>,
    ) -> Result<Response<Body>, RemoteError> {
        let response = self.send_following(req, budget)?;
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

    /// Sends a request that answers with an event stream: only the connect deadline here.
    pub fn send_stream(&self, req: &Request<'_>) -> Result<Response<Body>, RemoteError> {
        self.send_within(req, None)
    }

    /// GETs (or POSTs) and decodes a JSON answer, with our secrets taken out of it.
    pub fn json(&self, req: &Request<'_>) -> Result<Value, RemoteError> {
        let too_large = || {
            self.protocol(format!(
                "the answer to {} is larger than {}",
                req.path,
                limits::show_size(MAX_JSON)
            ))
        };
        let bytes = self.json_bytes(req, MAX_JSON, too_large)?;
        self.decode(&bytes, req)
    }

    /// Decodes a JSON answer, with our secrets taken out of every string of it.
    pub fn decode<T: serde::de::DeserializeOwned>(
        &self,
        bytes: &[u8],
        req: &Request<'_>,
    ) -> Result<T, RemoteError> {
        let bad = |e: serde_json::Error| {
            self.protocol(format!("the answer to {} is not JSON: {e}", req.path))
        };
        if !self.config.may_hold_secret(bytes) {
            return serde_json::from_slice(bytes).map_err(bad);
        }
        let mut value: Value = serde_json::from_slice(bytes).map_err(bad)?;
        self.config.redact_value(&mut value);
        serde_json::from_value(value)
            .map_err(|e| self.protocol(format!("the answer to {} does not parse: {e}", req.path)))
    }

    /// The body of a JSON answer, at most `limit` bytes (more is `too_large`), read within
    /// the request's deadline.
    pub fn json_bytes(
        &self,
        req: &Request<'_>,
        limit: u64,
        too_large: impl FnOnce() -> RemoteError,
    ) -> Result<Vec<u8>, RemoteError> {
        let budget = self.deadlines.json_budget(Instant::now());
        let response = self.send_within(req, Some(budget))?;
        response
            .into_body()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => too_large(),
                other => self.transport(&other, Delivery::Accepted, budget),
            })
    }

    /// GETs a JSON answer of at most `limit` bytes (more is `too_large`) and decodes it as it
    /// is read, within the request's deadline, with our secrets taken out of it: the raw
    /// answer is never held whole beside what it decodes to. Returns how many bytes it took.
    pub fn json_streamed<T: serde::de::DeserializeOwned>(
        &self,
        req: &Request<'_>,
        limit: u64,
        too_large: impl FnOnce() -> RemoteError,
    ) -> Result<(T, u64), RemoteError> {
        let budget = self.deadlines.json_budget(Instant::now());
        let response = self.send_within(req, Some(budget))?;
        let mut body = Capped {
            inner: response.into_body().into_reader(),
            read: 0,
            limit,
        };
        let decoded = serde_json::from_reader::<_, Value>(std::io::BufReader::with_capacity(
            64 * 1024,
            &mut body,
        ))
        .and_then(|mut value| {
            self.config.redact_value(&mut value);
            // Moves the decoded strings into `T`; nothing is copied.
            serde_json::from_value(value)
        });
        match decoded {
            Ok(value) => Ok((value, body.read)),
            Err(_) if body.read > limit => Err(too_large()),
            Err(e) if e.io_error_kind() == Some(std::io::ErrorKind::TimedOut) => Err(self
                .transport(
                    &ureq::Error::Timeout(ureq::Timeout::Global),
                    Delivery::Accepted,
                    budget,
                )),
            Err(e) if e.is_io() => Err(RemoteError::Transport {
                server: self.config.display().to_string(),
                delivery: Delivery::Accepted,
                detail: self
                    .config
                    .redact(&format!("the answer to {} broke off: {e}", req.path)),
            }),
            Err(e) => Err(self.protocol(format!("the answer to {} does not parse: {e}", req.path))),
        }
    }

    /// A transport failure of this server, sorted and scrubbed; `budget` is the deadline of
    /// the whole request, which a timeout names.
    pub fn transport(&self, e: &ureq::Error, floor: Delivery, budget: Duration) -> RemoteError {
        let (delivery, detail) = sort(e, self.deadlines.connect(), budget);
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

    fn send_following(
        &self,
        req: &Request<'_>,
        budget: Option<Duration>,
    ) -> Result<Response<Body>, RemoteError> {
        let mut url = self.config.url(req.path);
        let until = budget.map(|b| Instant::now() + b);
        let budget = budget.unwrap_or_default();
        for _ in 0..=MAX_REDIRECTS {
            let uri: Uri = url
                .parse()
                .map_err(|e| self.protocol(format!("a redirect to a bad URL ({e})")))?;
            let origin =
                Origin::of(&uri).map_err(|e| self.protocol(format!("a redirect to {url}: {e}")))?;
            let left = match until {
                Some(u) => {
                    let left = u.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(self.transport(
                            &ureq::Error::Timeout(ureq::Timeout::Global),
                            Delivery::NotSent,
                            budget,
                        ));
                    }
                    Some(left)
                }
                None => None,
            };
            let auth = self.config.authorization(&origin);
            let agent = self.agent_for(&url)?;
            let result = match req.body {
                Some(body) => {
                    let mut r = agent
                        .post(&url)
                        .header("Content-Type", "application/json")
                        .header("Accept", "text/event-stream, application/json");
                    if let Some(a) = &auth {
                        r = r.header("Authorization", a);
                    }
                    r.config()
                        .timeout_global(left)
                        .build()
                        .send(body.to_string())
                }
                None => {
                    let mut r = agent.get(&url).header("Accept", "application/json");
                    if let Some(a) = &auth {
                        r = r.header("Authorization", a);
                    }
                    r.config().timeout_global(left).build().call()
                }
            };
            let response = result.map_err(|e| self.transport(&e, Delivery::NotSent, budget))?;
            let status = response.status().as_u16();
            let Some(next) = redirect::of_response(&response, &url, req.body.is_some()) else {
                return Ok(response);
            };
            url = match next {
                Ok(next) => next,
                Err(Refused::NoLocation) => {
                    return Err(
                        self.server_error(status, "a redirect without a usable Location".into())
                    )
                }
                // Following would turn the POST into a GET and lose the answer.
                Err(Refused::NotKept(next)) => {
                    return Err(self.server_error(
                        status,
                        format!("it redirects this request to {next}; use that server URL"),
                    ))
                }
                // An answer goes to the server that was named, or nowhere.
                Err(Refused::Elsewhere(next)) => {
                    return Err(self.server_error(
                        status,
                        format!(
                            "it redirects this answer to another server ({next}); nothing was sent there (use that server URL if it is the right one)"
                        ),
                    ))
                }
            };
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
            // A mastra-ask `serve`'s policy refusal (SPEC §14), not a failed sign-in.
            403 if error_code(body).as_deref() == Some("FORBIDDEN") => {
                RemoteError::Forbidden { server, message }
            }
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
            409 => RemoteError::Decided { server, message },
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

/// A reader that fails once it gave more than `limit` bytes, and counts what it gave.
struct Capped<R> {
    inner: R,
    read: u64,
    limit: u64,
}

impl<R: std::io::Read> std::io::Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = (self.limit + 1).saturating_sub(self.read);
        if room == 0 {
            return Err(std::io::Error::other("the answer is larger than its cap"));
        }
        let take = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..take])?;
        self.read += n as u64;
        Ok(n)
    }
}

/// How far a failed request got, and what happened, from ureq's error.
fn sort(e: &ureq::Error, connect: Duration, budget: Duration) -> (Delivery, String) {
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
            format!("no connection within {}", duration::show(connect))
        }
        E::Timeout(_) => format!("no complete answer within {}", duration::show(budget)),
        E::Io(io) if io.kind() == K::ConnectionRefused => "connection refused".to_string(),
        other => other.to_string(),
    };
    (delivery, detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_withheld_token_is_named_in_the_hint() {
        let config = ServerConfig::new("http://example.com/api", Some("t0k".into())).unwrap();
        let http = Http::new(config, Deadlines::default()).unwrap();
        let req = Request {
            path: "/agents",
            body: None,
            agent: None,
        };
        let e = http.status_error(401, br#"{"error":"Unauthorized"}"#, &req);
        assert_eq!(
            e.hint().unwrap(),
            "the token was not sent: example.com is plain http and not on this machine; use https"
        );
    }

    const D: Duration = Duration::from_secs(1);

    #[test]
    fn connection_failures_are_not_sent_others_unknown() {
        assert_eq!(
            sort(&ureq::Error::ConnectionFailed, D, D).0,
            Delivery::NotSent
        );
        assert_eq!(sort(&ureq::Error::HostNotFound, D, D).0, Delivery::NotSent);
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(sort(&ureq::Error::Io(refused), D, D).0, Delivery::NotSent);
        let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        assert_eq!(sort(&ureq::Error::Io(reset), D, D).0, Delivery::Unknown);
        assert_eq!(
            sort(&ureq::Error::Timeout(ureq::Timeout::RecvResponse), D, D).0,
            Delivery::Unknown
        );
    }
}
