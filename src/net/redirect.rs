//! Redirects, by hand and by one rule for every request (a model provider's, a Mastra
//! server's): ureq follows none. A request with a body (a POST: an answer, a chat call) is
//! followed only through 307 or 308 and only to the same origin, since following otherwise
//! would turn it into a GET or post it to another server; a GET goes wherever it is sent,
//! its credentials only to its own origin (the caller decides what to send where). At most
//! `MAX_REDIRECTS`. No IO.

use ureq::http::Uri;

use super::origin::Origin;

/// The most redirects one request follows.
pub const MAX_REDIRECTS: usize = 5;

/// Why a redirect is not followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// No usable `Location`.
    NoLocation,
    /// Following would turn the POST into a GET and lose its body.
    NotKept(String),
    /// It sends the POST to another server.
    Elsewhere(String),
}

/// Whether `status` is a redirect.
fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Where `response` to a request for `current` sends it: None when it is no redirect (use
/// the response), else the next URL or why it is not followed; `posting`: the request has a
/// body.
pub fn of_response<B>(
    response: &ureq::http::Response<B>,
    current: &str,
    posting: bool,
) -> Option<Result<String, Refused>> {
    let status = response.status().as_u16();
    if !is_redirect(status) {
        return None;
    }
    let location = response
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok());
    Some(next(status, location, current, posting))
}

/// Where a redirect answer (`status`, its `Location`) to a request for `current` sends it;
/// `posting`: the request has a body.
pub fn next(
    status: u16,
    location: Option<&str>,
    current: &str,
    posting: bool,
) -> Result<String, Refused> {
    let Some(next) = location.and_then(|l| resolve(current, l)) else {
        return Err(Refused::NoLocation);
    };
    if posting {
        if !matches!(status, 307 | 308) {
            return Err(Refused::NotKept(next));
        }
        let origin = |url: &str| url.parse::<Uri>().ok().and_then(|u| Origin::of(&u).ok());
        if origin(&next).is_none() || origin(&next) != origin(current) {
            return Err(Refused::Elsewhere(next));
        }
    }
    Ok(next)
}

/// Where a `Location` points, as an absolute URL.
pub fn resolve(current: &str, location: &str) -> Option<String> {
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
    fn a_post_is_followed_only_by_307_or_308_to_its_own_server() {
        let cur = "https://h/v1/chat";
        assert_eq!(
            next(308, Some("/v2/chat"), cur, true),
            Ok("https://h/v2/chat".into())
        );
        assert_eq!(
            next(302, Some("/v2/chat"), cur, true),
            Err(Refused::NotKept("https://h/v2/chat".into()))
        );
        assert_eq!(
            next(307, Some("https://other/chat"), cur, true),
            Err(Refused::Elsewhere("https://other/chat".into()))
        );
        assert_eq!(
            next(302, Some("https://other/x"), cur, false),
            Ok("https://other/x".into())
        );
        assert_eq!(next(301, None, cur, false), Err(Refused::NoLocation));
        assert!(is_redirect(303) && !is_redirect(304));
    }
}
