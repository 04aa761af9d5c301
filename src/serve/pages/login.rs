//! Signing in and out (SPEC §13): `POST /login` with a reviewer's `token`, or a single-use
//! link under `/login/...` whose GET only shows a button that posts the secret (a chat's
//! link preview fetches the page and spends nothing). Each sign-in starts a new session.
//! The sign-in forms carry a csrf value tied to a pre-session cookie; a failed sign-in is
//! slowed per client address and overall, and unknown and wrong secrets are answered alike.
//! A sign-in returns to the page that sent the person here (`auth::return_path`, only a
//! path of this server), else to the inbox; a used link tapped again in a browser it
//! signed in goes on to the inbox.

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup};

use super::layout::{frame, problem, respond};
use crate::serve::app::{for_reviewer, signed_in, Shared};
use crate::serve::auth::{self, NEXT_COOKIE, PRE_COOKIE, SESSION_COOKIE};
use crate::serve::form::Form;
use crate::store::{secret, Reviewer, Reviewers, SESSION_MAX_MS};

/// The pre-session cookie lives this long (a sign-in page left open for a while).
const PRE_AGE: Duration = Duration::from_secs(3600);

/// The request's pre-session id, or a new one with the cookie that sets it.
fn pre_session(headers: &HeaderMap) -> (String, Option<axum::http::HeaderValue>) {
    match auth::cookie(headers, PRE_COOKIE) {
        Some(id) => (id.to_string(), None),
        None => {
            let id = secret::generate();
            let cookie = auth::set_cookie(PRE_COOKIE, &id, PRE_AGE);
            (id, Some(cookie))
        }
    }
}

fn with_cookie(mut r: Response, cookie: Option<axum::http::HeaderValue>) -> Response {
    if let Some(c) = cookie {
        r.headers_mut().append(header::SET_COOKIE, c);
    }
    r
}

fn token_form(csrf: &str, failed: bool) -> Markup {
    html! {
        h1 { "Sign in" }
        @if failed {
            div.notice.error { "That token is not valid." }
        }
        form.decide method="post" action="/login" {
            input type="hidden" name="csrf" value=(csrf);
            label.field for="token" { "Your reviewer token" }
            input #token type="password" name="token" autocomplete="current-password" required;
            div.buttons { button.primary type="submit" { "Sign in" } }
        }
        p.muted { "A reviewer gets a token from " code { "mastra-ask reviewer add NAME" }
            ", or a sign-in link for a phone from " code { "mastra-ask reviewer link NAME" } "." }
    }
}

pub async fn form(State(app): State<Shared>, headers: HeaderMap) -> Response {
    if let Ok(Some(_)) = signed_in(&app, &headers).await {
        return Redirect::to("/").into_response();
    }
    let (pre, cookie) = pre_session(&headers);
    let csrf = auth::csrf_of("sign-in", &pre);
    let r = respond(
        StatusCode::OK,
        None,
        frame("Sign in", None, false, token_form(&csrf, false)),
    );
    with_cookie(r, cookie)
}

pub async fn link_form(headers: HeaderMap, Path(link): Path<String>) -> Response {
    let (pre, cookie) = pre_session(&headers);
    let csrf = auth::csrf_of("sign-in", &pre);
    let action = format!("/login/{}", super::layout::segment(&link));
    let body = html! {
        h1 { "Sign in to the inbox" }
        p { "This link signs you in once. Tap the button to use it." }
        form.decide method="post" action=(action) {
            input type="hidden" name="csrf" value=(csrf);
            div.buttons { button.primary type="submit" { "Sign in" } }
        }
    };
    with_cookie(
        respond(StatusCode::OK, None, frame("Sign in", None, false, body)),
        cookie,
    )
}

/// Refuses a sign-in form that did not come from here: 403, nothing changed.
fn refused(headers: &HeaderMap, origins: &[String], form: &Form) -> Option<Response> {
    let pre = auth::cookie(headers, PRE_COOKIE);
    let ok = auth::same_origin(headers, origins)
        && pre.is_some_and(|p| auth::csrf_ok("sign-in", p, form.get("csrf")));
    (!ok).then(|| {
        problem(
            StatusCode::FORBIDDEN,
            None,
            "Refused",
            "this form did not come from this inbox (or the page is too old): open the sign-in page again",
        )
    })
}

/// A sign-in form checked (its origin and csrf value), its client address, and the pause
/// that address's failures earned: the form, or the 403.
async fn checked(
    app: &Shared,
    peer: SocketAddr,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<(Form, std::net::IpAddr), Response> {
    let form = Form::parse(body);
    if let Some(r) = refused(headers, &app.origins, &form) {
        return Err(r);
    }
    let ip = auth::client(headers, peer, app.behind_proxy);
    tokio::time::sleep(app.limiter.delay(ip)).await;
    Ok((form, ip))
}

/// Signed in: the session cookie, and on to the page that sent them to sign in (its path
/// then forgotten), else the inbox.
fn welcome(headers: &HeaderMap, session: &str, reviewer: &Reviewer) -> Response {
    let max = Duration::from_millis(u64::try_from(SESSION_MAX_MS).unwrap_or(0));
    let mut r = Redirect::to(auth::return_path(headers)).into_response();
    r.headers_mut().append(
        header::SET_COOKIE,
        auth::set_cookie(SESSION_COOKIE, session, max),
    );
    r.headers_mut().append(
        header::SET_COOKIE,
        auth::set_cookie(NEXT_COOKIE, "", Duration::ZERO),
    );
    for_reviewer(r, &reviewer.name)
}

pub async fn with_token(
    State(app): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (form, ip) = match checked(&app, peer, &headers, &body).await {
        Ok(checked) => checked,
        Err(r) => return r,
    };
    let token = form.get("token").unwrap_or_default().trim().to_string();
    let session = secret::generate();
    let id = session.clone();
    let result = app.pool.with(move |s| Ok(s.sign_in(&token, &id)?)).await;
    match result {
        Ok(Some(reviewer)) => welcome(&headers, &session, &reviewer),
        Ok(None) => {
            app.limiter.failed(ip);
            let csrf = form.get("csrf").unwrap_or_default();
            respond(
                StatusCode::UNAUTHORIZED,
                None,
                frame("Sign in", None, false, token_form(csrf, true)),
            )
        }
        Err(e) => super::layout::failed(None, &e),
    }
}

pub async fn with_link(
    State(app): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path(link): Path<String>,
    body: Bytes,
) -> Response {
    let (_, ip) = match checked(&app, peer, &headers, &body).await {
        Ok(checked) => checked,
        Err(r) => return r,
    };
    let session = secret::generate();
    let id = session.clone();
    let result = app
        .pool
        .with(move |s| Ok(s.sign_in_with_link(&link, &id)?))
        .await;
    match result {
        Ok(Some(reviewer)) => welcome(&headers, &session, &reviewer),
        // A used link tapped again in a browser it signed in: on to the inbox.
        Ok(None) if matches!(signed_in(&app, &headers).await, Ok(Some(_))) => {
            Redirect::to("/").into_response()
        }
        Ok(None) => {
            app.limiter.failed(ip);
            problem(
                StatusCode::UNAUTHORIZED,
                None,
                "This link does not sign in",
                "it was used already, it expired (links last 15 minutes), or it was never given; ask for a new one (mastra-ask reviewer link NAME), or sign in with your token",
            )
        }
        Err(e) => super::layout::failed(None, &e),
    }
}

pub async fn logout(State(app): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let form = Form::parse(&body);
    let session = auth::cookie(&headers, SESSION_COOKIE).map(str::to_string);
    let ok = auth::same_origin(&headers, &app.origins)
        && session
            .as_deref()
            .is_some_and(|s| auth::csrf_ok("session", s, form.get("csrf")));
    if !ok {
        return problem(
            StatusCode::FORBIDDEN,
            None,
            "Refused",
            "this form did not come from this inbox",
        );
    }
    if let Some(s) = session {
        if let Err(e) = app.pool.with(move |st| Ok(st.end_session(&s)?)).await {
            return super::layout::failed(None, &e);
        }
    }
    let mut r = Redirect::to("/login").into_response();
    r.headers_mut().append(
        header::SET_COOKIE,
        auth::set_cookie(SESSION_COOKIE, "", Duration::ZERO),
    );
    r
}
