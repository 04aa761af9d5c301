//! One tap from a phone (SPEC §17): `/tap/SECRET`, the URL of a notification's one-tap
//! action. The secret is the credential (no session, csrf field or same origin): it names
//! one decision of one reviewer on one item (`Reviewers::tap`). A GET only shows a page with
//! one button that posts it, under what the item asks (a link preview decides nothing); a
//! POST uses the secret once and decides as its reviewer, via `tap`, through the one door
//! every frontend decides through (`decide::decide`: the policy, "1 of 2", someone first),
//! and answers in a short plain text a notification can show. Every refused secret slows its address (the sign-in
//! limiter), and unknown, used and expired secrets are answered alike. The path is never
//! logged with its secret (`middleware`).

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::html;

use super::layout::{frame, problem, respond, segment};
use super::text;
use crate::domain::Via;
use crate::items::ItemView;
use crate::output::sanitize;
use crate::runner::Outcome;
use crate::serve::app::Shared;
use crate::serve::auth;
use crate::serve::decide::{self, Refusal, Target};
use crate::serve::form::Form;
use crate::store::{Reviewers, TapRow, Who};

/// What an unknown, used or expired secret is told.
const VOID: &str = "this action is no longer valid: it was used, it expired, or its reviewer changed; open the item in the inbox instead";

/// The live tap of `secret` (spent when `spend`), after the address's pause; a refusal
/// slows the address further.
async fn live(
    app: &Shared,
    peer: SocketAddr,
    headers: &HeaderMap,
    secret: String,
    spend: bool,
) -> Result<Option<TapRow>, anyhow::Error> {
    let ip = auth::client(headers, peer, app.behind_proxy);
    tokio::time::sleep(app.limiter.delay(ip)).await;
    let tap = app.pool.with(move |s| Ok(s.tap(&secret, spend)?)).await?;
    if tap.is_none() {
        app.limiter.failed(ip);
    }
    Ok(tap)
}

pub async fn confirm(
    State(app): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path(secret): Path<String>,
) -> Response {
    let action = format!("/tap/{}", segment(&secret));
    match live(&app, peer, &headers, secret, false).await {
        Ok(Some(tap)) => {
            let asks = asks(&app, &tap).await;
            let body = html! {
                h1 { (text::line(&tap.label)) "?" }
                @if let Some(asks) = asks { p { strong { (text::line(&asks)) } } }
                p { "As " strong { (text::line(&tap.reviewer)) } ", on tool call "
                    code { (text::line(&tap.call_id)) } " of run " code { (text::line(&tap.run_id)) } "." }
                form.decide method="post" action=(action) {
                    div.buttons { button.primary type="submit" { (text::line(&tap.label)) } }
                }
            };
            respond(StatusCode::OK, None, frame("Decide", None, false, body))
        }
        Ok(None) => problem(StatusCode::FORBIDDEN, None, "Not valid", VOID),
        Err(e) => super::layout::failed(None, &e),
    }
}

/// What the tap's item asks, in a few words (its kind's headline, with an approval's
/// arguments), when it can be read.
async fn asks(app: &Shared, tap: &TapRow) -> Option<String> {
    let target = Target {
        run_id: tap.run_id.clone(),
        call_id: Some(tap.call_id.clone()),
        agent_id: None,
    };
    let found = app.pool.with(move |s| {
        Ok(decide::find(s, &target).ok().map(|(run, item)| {
            let view = ItemView::call(&item, &run.agent_id, 1);
            let h = crate::items::of(item.kind()).headline(&view);
            // An approval's arguments too: what runs is what is approved.
            match h.detail {
                Some(detail) => format!("{} {detail}", h.text),
                None => h.text,
            }
        }))
    });
    found.await.ok().flatten()
}

pub async fn decide(
    State(app): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path(secret): Path<String>,
) -> Response {
    let tap = match live(&app, peer, &headers, secret, true).await {
        Ok(Some(tap)) => tap,
        Ok(None) => return plain(StatusCode::FORBIDDEN, VOID.into()),
        Err(e) => return plain(StatusCode::INTERNAL_SERVER_ERROR, failed(&e)),
    };
    let answer = super::item::answer_of_fields(&Form::parse(tap.sends.as_bytes()));
    let target = Target {
        run_id: tap.run_id.clone(),
        call_id: Some(tap.call_id.clone()),
        agent_id: None,
    };
    let who = Who::reviewer(&tap.reviewer);
    let label = sanitize::one_line(&tap.label);
    match decide::decide(&app, target, answer, who, Via::Tap, false).await {
        Ok((decided, _)) => {
            let text = match &decided.outcome {
                Outcome::Partial(summary) => format!("{label}: recorded; {summary}"),
                _ => format!("{label}: recorded"),
            };
            plain(StatusCode::OK, text)
        }
        Err(Refusal::Decided(item)) => {
            let by = item.resolved_by.as_deref().unwrap_or("someone");
            let via = item.resolved_via.as_deref().unwrap_or("?");
            let text = format!(
                "not recorded: already {} by {} (via {})",
                item.state.as_str(),
                sanitize::one_line(by),
                sanitize::one_line(via)
            );
            plain(StatusCode::CONFLICT, text)
        }
        Err(Refusal::NotFound(m)) => plain(StatusCode::NOT_FOUND, format!("not recorded: {m}")),
        Err(Refusal::Invalid { message, .. }) => plain(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("not recorded: {message}"),
        ),
        Err(Refusal::Conflict(m)) => plain(StatusCode::CONFLICT, format!("not recorded: {m}")),
        Err(Refusal::Forbidden(m)) => plain(StatusCode::FORBIDDEN, format!("not recorded: {m}")),
        Err(Refusal::Failed(e)) => plain(StatusCode::INTERNAL_SERVER_ERROR, failed(&e)),
    }
}

/// A store failure, logged on serve's stderr, and told without its details.
fn failed(e: &anyhow::Error) -> String {
    eprintln!("error: a one-tap decision failed: {e:#}");
    "not recorded: the inbox failed; open the item in the inbox".into()
}

/// A short plain text, one line.
fn plain(status: StatusCode, text: String) -> Response {
    let line = sanitize::one_line(&text);
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{line}\n"),
    )
        .into_response()
}
