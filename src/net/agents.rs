//! The HTTP agents of one client (a model provider, a Mastra server): ureq over rustls, the
//! proxy of the server's origin (`proxy`), no redirect followed by ureq (`redirect` has the
//! rule), the client's timeouts, and a TLS agent built on first use, so that `SSL_CERT_FILE`
//! is read only when a TLS connection needs it (`tls`). Building an agent does no IO.

use std::sync::OnceLock;
use std::time::Duration;

use super::origin::Origin;
use super::{proxy, tls};

/// How long a client's connections may take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timeouts {
    pub connect: Duration,
    /// Between two reads of an answer, and two writes of a request.
    pub per_read: Option<Duration>,
    pub per_write: Option<Duration>,
    /// A pooled connection idle longer than this is not reused.
    pub idle_age: Option<Duration>,
}

pub struct Agents {
    timeouts: Timeouts,
    proxy: Option<ureq::Proxy>,
    /// For plain http.
    plain: OnceLock<ureq::Agent>,
    /// For https (or an https proxy): only then is `SSL_CERT_FILE` read.
    tls: OnceLock<Result<ureq::Agent, String>>,
}

impl Agents {
    /// The agents for a server at `origin`, with the proxy the environment gives it.
    pub fn new(origin: &Origin, timeouts: Timeouts) -> Result<Agents, String> {
        Ok(Agents {
            timeouts,
            proxy: proxy::for_origin(origin, |n| std::env::var(n).ok())?,
            plain: OnceLock::new(),
            tls: OnceLock::new(),
        })
    }

    /// The agent for a request to `url`.
    pub fn for_url(&self, url: &str) -> Result<&ureq::Agent, String> {
        let https_proxy = self
            .proxy
            .as_ref()
            .is_some_and(|p| p.protocol() == ureq::ProxyProtocol::Https);
        let https = url
            .get(..8)
            .is_some_and(|s| s.eq_ignore_ascii_case("https://"));
        if !https && !https_proxy {
            return Ok(self.plain.get_or_init(|| self.build(None)));
        }
        self.tls
            .get_or_init(|| {
                let roots = tls::trust_store(std::env::var_os("SSL_CERT_FILE"))?;
                Ok(self.build(roots))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn build(&self, tls: Option<ureq::tls::TlsConfig>) -> ureq::Agent {
        let t = self.timeouts;
        let mut builder = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(t.connect))
            .timeout_per_read(t.per_read)
            .timeout_per_write(t.per_write)
            .user_agent(concat!("mastra-ask/", env!("CARGO_PKG_VERSION")))
            .proxy(self.proxy.clone());
        if let Some(age) = t.idle_age {
            builder = builder.max_idle_age(age);
        }
        if let Some(tls) = tls {
            builder = builder.tls_config(tls);
        }
        ureq::Agent::new_with_config(builder.build())
    }
}
