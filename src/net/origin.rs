//! Where a URL points, as far as trust goes: its scheme, host and port (its origin), which
//! decide whether credentials may travel to it, whether a redirect stays with the same
//! server, and whether a proxy can reach it. No IO.

use std::net::IpAddr;

use ureq::http::Uri;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    Http,
    Https,
}

impl Scheme {
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }
}

/// Scheme, host and port: what "the same server" means for credentials and redirects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub scheme: Scheme,
    /// Lower case; an IPv6 address keeps its brackets.
    pub host: String,
    pub port: u16,
}

impl Origin {
    /// The origin of an absolute http(s) URI.
    pub fn of(uri: &Uri) -> Result<Origin, String> {
        let scheme = match uri.scheme_str().map(str::to_ascii_lowercase).as_deref() {
            Some("http") => Scheme::Http,
            Some("https") => Scheme::Https,
            Some(other) => return Err(format!("the scheme must be http or https, not {other}")),
            None => return Err("it must start with http:// or https://".into()),
        };
        let host = uri
            .host()
            .filter(|h| !h.is_empty())
            .ok_or("it has no host")?
            .to_ascii_lowercase();
        let port = uri.port_u16().unwrap_or(match scheme {
            Scheme::Http => 80,
            Scheme::Https => 443,
        });
        Ok(Origin { scheme, host, port })
    }

    /// `localhost`, 127.0.0.0/8 or ::1: the server runs on this machine.
    pub fn is_loopback(&self) -> bool {
        let bare = self.host.trim_start_matches('[').trim_end_matches(']');
        bare == "localhost"
            || bare.ends_with(".localhost")
            || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }

    /// Whether credentials may travel to this origin: encrypted, or never off the machine.
    pub fn may_carry_credentials(&self) -> bool {
        self.scheme == Scheme::Https || self.is_loopback()
    }

    /// `scheme://host:port`, without a path.
    pub fn base(&self) -> String {
        format!("{}://{}:{}", self.scheme.as_str(), self.host, self.port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(url: &str) -> Origin {
        Origin::of(&url.parse().unwrap()).unwrap()
    }

    #[test]
    fn origins_are_scheme_host_and_port() {
        assert_eq!(
            origin("https://Example.COM/x").base(),
            "https://example.com:443"
        );
        assert_eq!(origin("http://[::1]:8080").host, "[::1]");
        assert!(origin("http://localhost:1").is_loopback());
        assert!(origin("http://a.localhost").is_loopback());
        assert!(!origin("http://10.0.0.1").is_loopback());
        assert!(Origin::of(&"ftp://h".parse().unwrap()).is_err());
    }
}
