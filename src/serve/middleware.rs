//! What every request and response goes through: the body read whole, capped at
//! `MAX_BODY` (413, nothing consumed) and within `REQUEST_TIMEOUT` (408, the connection
//! closed); the security headers of SPEC §13 on every response; and one log line per
//! request on stderr: method, path (no query; a sign-in link's secret left out), status,
//! duration, reviewer. Never a token, cookie, secret or answer.

use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, Limited};

use super::app::LoggedAs;
use super::{MAX_BODY, REQUEST_TIMEOUT};

/// The Content-Security-Policy of every response: nothing from elsewhere, no inline code,
/// never in a frame.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
    connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

pub async fn headers(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = logged_path(request.uri().path());
    let mut response = next.run(request).await;
    let h = response.headers_mut();
    for (name, value) in [
        (header::CACHE_CONTROL, "no-store"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::CONTENT_SECURITY_POLICY, CSP),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
    let who = response
        .extensions()
        .get::<LoggedAs>()
        .map(|l| l.0.clone())
        .unwrap_or_else(|| "-".into());
    eprintln!(
        "{method} {path} {} {}ms {who}",
        response.status().as_u16(),
        started.elapsed().as_millis()
    );
    response
}

/// The path as logged: printable, and without a sign-in link's or a one-tap secret.
fn logged_path(path: &str) -> String {
    let path = if path.starts_with("/login/") {
        "/login/…"
    } else if path.starts_with("/tap/") {
        "/tap/…"
    } else {
        path
    };
    crate::output::sanitize::one_line(path)
}

pub async fn body(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let api = parts.uri.path().starts_with("/api/");
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return too_large(api);
    }
    if parts.method == Method::GET || parts.method == Method::HEAD {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let read = tokio::time::timeout(REQUEST_TIMEOUT, Limited::new(body, MAX_BODY).collect());
    let bytes: Bytes = match read.await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => return too_large(api),
        Ok(Err(_)) => {
            return (StatusCode::BAD_REQUEST, "the request body broke off\n").into_response()
        }
        Err(_) => {
            let mut r = (
                StatusCode::REQUEST_TIMEOUT,
                "the request took too long to arrive\n",
            )
                .into_response();
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return r;
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

fn too_large(api: bool) -> Response {
    let message = format!("the request body is larger than {} bytes", MAX_BODY);
    let mut r = if api {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            axum::Json(serde_json::json!({"error": message})),
        )
            .into_response()
    } else {
        (StatusCode::PAYLOAD_TOO_LARGE, format!("{message}\n")).into_response()
    };
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}
