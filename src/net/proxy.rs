//! Which proxy a request goes through (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, and
//! `NO_PROXY`), the same rule for a model provider and a Mastra server: none for a server on
//! this machine (a proxy cannot reach our loopback), none for a host `NO_PROXY` names, else
//! the scheme's variable, then `ALL_PROXY`. It reads only the environment it is given.

use super::origin::{Origin, Scheme};

/// The proxy for a server at `origin` (`env`: the environment): none for a loopback server (a proxy cannot reach our own
/// loopback) or one `NO_PROXY` names, else the scheme's variable, then `ALL_PROXY`.
pub fn for_origin(
    origin: &Origin,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<ureq::Proxy>, String> {
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
        .map_err(|_| format!("{name} is not a usable proxy URL"))
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let p = for_origin(&https, vars).unwrap().unwrap();
        assert_eq!(
            (p.host(), p.port(), p.password()),
            ("proxy.internal", 3128, Some("pw"))
        );
        assert_eq!(
            for_origin(&http, vars).unwrap().unwrap().host(),
            "plain.internal"
        );
        assert!(for_origin(&local, vars).unwrap().is_none());
        let all = env(&[
            ("ALL_PROXY", "http://all.internal:1"),
            ("NO_PROXY", ".example.com"),
        ]);
        assert!(for_origin(&https, all).unwrap().is_none());
        let all = env(&[("ALL_PROXY", "http://all.internal:1")]);
        assert_eq!(
            for_origin(&https, all).unwrap().unwrap().host(),
            "all.internal"
        );
        assert!(for_origin(&https, env(&[])).unwrap().is_none());
    }
}
