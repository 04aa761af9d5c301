//! The frame of every page (title, who is signed in, sign out), the small pieces pages
//! share (kind badges, ages, links to runs and items), and the pages for errors.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup, DOCTYPE};

use super::text;
use crate::domain::ItemKind;
use crate::output::format;
use crate::serve::app::{for_reviewer, Signed};
use crate::serve::auth;

pub use crate::links::{item_path as item_href, run_path as run_href, segment};

/// A whole page.
pub fn frame(title: &str, signed: Option<&Signed>, script: bool, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { (title) " · mastra-ask" }
                link rel="stylesheet" href="/static/app.css";
                @if script { script src="/static/inbox.js" defer {} }
            }
            body {
                header {
                    a.home href="/" { "mastra-ask inbox" }
                    @if let Some(s) = signed {
                        form method="post" action="/logout" {
                            input type="hidden" name="csrf" value=(s.csrf);
                            span.muted { (text::line(&s.reviewer.name)) " " }
                            button.small type="submit" { "Sign out" }
                        }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// An HTML response with `status`, logged for the signed-in reviewer.
pub fn respond(status: StatusCode, signed: Option<&Signed>, markup: Markup) -> Response {
    let mut r = (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        markup.into_string(),
    )
        .into_response();
    if let Some(s) = signed {
        r = for_reviewer(r, &s.reviewer.name);
    }
    r
}

/// The way to page `back` for someone not signed in: to sign in, with `back` remembered
/// in the browser (`auth::NEXT_COOKIE`) for the sign-in to return to.
pub fn to_login(back: &str) -> Response {
    let mut r = Redirect::to("/login").into_response();
    if back != "/" && auth::is_own_path(back) {
        r.headers_mut().append(
            header::SET_COOKIE,
            auth::set_cookie(auth::NEXT_COOKIE, back, NEXT_AGE),
        );
    }
    r
}

/// How long a path waits for its sign-in.
const NEXT_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// A page that says what went wrong.
pub fn problem(
    status: StatusCode,
    signed: Option<&Signed>,
    title: &str,
    message: &str,
) -> Response {
    let body = html! {
        h1 { (title) }
        div.notice.error { (text::line(message)) }
        p { a href="/" { "Back to the inbox" } }
    };
    respond(status, signed, frame(title, signed, false, body))
}

pub async fn not_found() -> Response {
    problem(
        StatusCode::NOT_FOUND,
        None,
        "Not found",
        "there is no such page",
    )
}

/// A failure of the store, as a page.
pub fn failed(signed: Option<&Signed>, e: &anyhow::Error) -> Response {
    problem(
        StatusCode::INTERNAL_SERVER_ERROR,
        signed,
        "Something failed",
        &format!("the store failed: {e}"),
    )
}

pub fn kind_badge(kind: ItemKind) -> Markup {
    html! { span class={ "kind " (kind.noun()) } { (kind.noun()) } }
}

/// How long ago, and when.
pub fn age(at: i64, now: i64) -> Markup {
    html! { span.muted title=(format::time(at)) { (format::age(at, now)) " ago" } }
}
