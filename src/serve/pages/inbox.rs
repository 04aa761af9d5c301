//! `/`: what waits for a person, oldest first (kind, agent, the question, plan title or
//! tool and arguments, age, run), and `/events`, the event stream the page's script
//! listens to: an `event: change` each time items come or go after the stream opened, a
//! comment every 15 s. The page carries the change count it was rendered at
//! (`data-since`), and its script opens `/events?since=N`: a change between the page and
//! its stream is sent at once, so the page reloads once for it, and never for older ones.

use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};

use super::layout::{age, failed, frame, item_href, kind_badge, respond, to_login};
use super::text;
use crate::domain::CallRecord;
use crate::items::ItemView;
use crate::serve::app::{for_reviewer, signed_in, Shared};
use crate::serve::KEEP_ALIVE;
use crate::store::{now_ms, PendingItem};

pub async fn page(State(app): State<Shared>, headers: HeaderMap) -> Response {
    let signed = match signed_in(&app, &headers).await {
        Ok(Some(s)) => s,
        Ok(None) => return to_login("/"),
        Err(e) => return failed(None, &e),
    };
    // Read before the items: a change after this read is one the page may not show.
    let since = *app.changes.borrow();
    let items = match app.pool.with(|s| Ok(s.pending(None)?)).await {
        Ok(items) => items,
        Err(e) => return failed(Some(&signed), &e),
    };
    let now = now_ms();
    let body = html! {
        div #inbox data-since=(since) {
            h1 { "Waiting for a person" }
            @if items.is_empty() {
                p.muted { "Nothing waits. This page updates when something does." }
            } @else {
                p.muted { (count(items.len())) ", oldest first." }
                ul.items {
                    @for item in &items { (entry(item, now)) }
                }
            }
        }
    };
    respond(
        StatusCode::OK,
        Some(&signed),
        frame("Inbox", Some(&signed), true, body),
    )
}

/// "1 item", "3 items".
pub fn count(n: usize) -> String {
    format!("{n} item{}", if n == 1 { "" } else { "s" })
}

/// What an item asks, in one line (its kind's headline).
pub fn summary(c: &CallRecord) -> Markup {
    let h = crate::items::of(c.kind()).headline(&ItemView::call(c, "", 1));
    html! {
        @if h.code { code { (text::line(&h.text)) } } @else { (text::line(&h.text)) }
        @if let Some(detail) = &h.detail { " " span.muted { (text::line(detail)) } }
    }
}

/// One waiting item: the whole card is the link to its page (one big tap target).
fn entry(item: &PendingItem, now: i64) -> Markup {
    let c = &item.call;
    html! {
        li {
            a.open href=(item_href(&c.run_id, &c.call_id)) {
                (kind_badge(c.kind())) " "
                span.muted { "agent " (text::line(&item.agent_id)) " · " (age(c.created_at, now)) }
                span.what { (summary(c)) }
                span.muted { "run " (c.run_id) }
            }
        }
    }
}

#[derive(serde::Deserialize)]
pub struct Since {
    /// The change count the page was rendered at.
    since: Option<u64>,
}

pub async fn events(
    State(app): State<Shared>,
    headers: HeaderMap,
    Query(since): Query<Since>,
) -> Response {
    let signed = match signed_in(&app, &headers).await {
        Ok(Some(s)) => s,
        Ok(None) => return (StatusCode::UNAUTHORIZED, "sign in first\n").into_response(),
        Err(e) => return failed(None, &e),
    };
    let Some(permit) = app.stream_permit(&signed.reviewer.name, &signed.session) else {
        return (StatusCode::SERVICE_UNAVAILABLE, "too many open streams\n").into_response();
    };
    // Only changes after this stream opened wake it, and one the page missed (made after
    // it was rendered) is sent at once.
    let mut changes = app.changes.clone();
    let now = *changes.borrow_and_update();
    let missed = since.since.is_some_and(|s| s != now);
    let hello = if missed {
        Bytes::from(format!(": connected\n\nevent: change\ndata: {now}\n\n"))
    } else {
        Bytes::from_static(b": connected\n\n")
    };
    let state = (changes, app.shutdown.clone(), permit, Some(hello));
    let stream = futures_util::stream::unfold(
        state,
        |(mut changes, mut shutdown, permit, hello)| async move {
            if let Some(hello) = hello {
                return Some((
                    Ok::<_, Infallible>(hello),
                    (changes, shutdown, permit, None),
                ));
            }
            if *shutdown.borrow() {
                return None;
            }
            let chunk = tokio::select! {
                changed = changes.changed() => match changed {
                    Ok(()) => Bytes::from(format!("event: change\ndata: {}\n\n", *changes.borrow_and_update())),
                    Err(_) => return None,
                },
                _ = shutdown.changed() => return None,
                _ = tokio::time::sleep(KEEP_ALIVE) => Bytes::from_static(b": keep-alive\n\n"),
            };
            Some((Ok(chunk), (changes, shutdown, permit, None)))
        },
    );
    let mut r = Response::new(Body::from_stream(stream));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    for_reviewer(r, &signed.reviewer.name)
}
