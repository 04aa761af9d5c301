//! `/`: what waits for a person, oldest first (kind, agent, the question, plan title or
//! tool and arguments, age, run), and `/events`, the event stream the page's script
//! listens to: an `event: change` each time items come or go, a comment every 15 s.

use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};

use super::layout::{age, failed, frame, item_href, kind_badge, respond, run_href, to_login};
use super::text;
use crate::domain::ItemKind;
use crate::serve::app::{for_reviewer, signed_in, Shared};
use crate::serve::KEEP_ALIVE;
use crate::store::{now_ms, PendingItem};
use crate::tools::ask_user::Question;

pub async fn page(State(app): State<Shared>, headers: HeaderMap) -> Response {
    let signed = match signed_in(&app, &headers).await {
        Ok(Some(s)) => s,
        Ok(None) => return to_login(),
        Err(e) => return failed(None, &e),
    };
    let items = match app.pool.with(|s| Ok(s.pending(None)?)).await {
        Ok(items) => items,
        Err(e) => return failed(Some(&signed), &e),
    };
    let now = now_ms();
    let body = html! {
        h1 { "Waiting for a person" }
        @if items.is_empty() {
            p.muted { "Nothing waits. This page updates when something does." }
        } @else {
            p.muted { (items.len()) " item(s), oldest first." }
            ul.items {
                @for item in &items { (entry(item, now)) }
            }
        }
    };
    respond(
        StatusCode::OK,
        Some(&signed),
        frame("Inbox", Some(&signed), true, body),
    )
}

/// What an item asks, in one line.
pub fn summary(
    kind: ItemKind,
    tool: &str,
    args: &serde_json::Value,
    payload: Option<&serde_json::Value>,
) -> Markup {
    match kind {
        ItemKind::Question => match payload.and_then(Question::from_payload) {
            Some(q) => html! { (text::line(&q.text)) },
            None => html! { "(unreadable question)" },
        },
        ItemKind::Plan => {
            let title = payload
                .and_then(|p| p["title"].as_str())
                .filter(|t| !t.is_empty())
                .unwrap_or("(untitled plan)");
            html! { (text::line(title)) }
        }
        ItemKind::Approval | ItemKind::Other => html! {
            code { (text::line(tool)) } " " span.muted { (text::line(&args.to_string())) }
        },
    }
}

fn entry(item: &PendingItem, now: i64) -> Markup {
    let c = &item.call;
    html! {
        li {
            (kind_badge(c.kind())) " "
            span.muted { "agent " (text::line(&item.agent_id)) " · " (age(c.created_at, now)) }
            a.open href=(item_href(&c.run_id, &c.call_id)) {
                (summary(c.kind(), &c.tool_name, &c.args, c.payload()))
            }
            span.muted { "run " a href=(run_href(&c.run_id)) { (c.run_id) } }
        }
    }
}

pub async fn events(State(app): State<Shared>, headers: HeaderMap) -> Response {
    let signed = match signed_in(&app, &headers).await {
        Ok(Some(s)) => s,
        Ok(None) => return (StatusCode::UNAUTHORIZED, "sign in first\n").into_response(),
        Err(e) => return failed(None, &e),
    };
    let Some(permit) = app.stream_permit(&signed.reviewer.name, &signed.session) else {
        return (StatusCode::SERVICE_UNAVAILABLE, "too many open streams\n").into_response();
    };
    let state = (app.changes.clone(), app.shutdown.clone(), permit, true);
    let stream = futures_util::stream::unfold(
        state,
        |(mut changes, mut shutdown, permit, first)| async move {
            if first {
                let hello = Bytes::from_static(b": connected\n\n");
                return Some((
                    Ok::<_, Infallible>(hello),
                    (changes, shutdown, permit, false),
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
            Some((Ok(chunk), (changes, shutdown, permit, false)))
        },
    );
    let mut r = Response::new(Body::from_stream(stream));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    for_reviewer(r, &signed.reviewer.name)
}
