//! `/runs/RUN`: one run: its status, its transcript (a tool's result as the words the model
//! read), and its items with who decided, when and how (`web`, `api`, or the command line's
//! ways).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use maud::{html, Markup};

use super::inbox::summary;
use super::layout::{failed, frame, item_href, kind_badge, problem, respond, run_href, to_login};
use super::text;
use crate::domain::{CallRecord, Message};
use crate::output::format;
use crate::serve::app::{signed_in, Shared};

pub async fn page(
    State(app): State<Shared>,
    headers: HeaderMap,
    Path(run): Path<String>,
) -> Response {
    let signed = match signed_in(&app, &headers).await {
        Ok(Some(s)) => s,
        Ok(None) => return to_login(&run_href(&run)),
        Err(e) => return failed(None, &e),
    };
    let id = run.clone();
    let found = app
        .pool
        .with(move |s| {
            let Some(run) = s.run(&id)? else {
                return Ok(None);
            };
            let messages = s.messages(&run.id)?;
            let calls = s.calls(&run.id)?;
            Ok(Some((run, messages, calls)))
        })
        .await;
    let (run, messages, calls) = match found {
        Ok(Some(f)) => f,
        Ok(None) => {
            return problem(
                StatusCode::NOT_FOUND,
                Some(&signed),
                "No such run",
                &format!("no run {run}"),
            )
        }
        Err(e) => return failed(Some(&signed), &e),
    };
    let body = html! {
        h1 { "Run " (text::line(&run.id)) }
        dl {
            dt { "status" } dd { (run.status.as_str()) }
            dt { "agent" } dd { (text::line(&run.agent_id)) }
            dt { "started" } dd { (format::time(run.created_at)) }
            dt { "updated" } dd { (format::time(run.updated_at)) }
            @if let Some(e) = &run.error { dt { "error" } dd { (text::line(e)) } }
            @if let Some(o) = &run.output { dt { "output" } dd { (text::block(o)) } }
        }
        h2 { "Items" }
        @let items: Vec<&CallRecord> = calls.iter().filter(|c| c.is_item()).collect();
        @if items.is_empty() { p.muted { "None." } }
        ul.items {
            @for c in items { (item_entry(c)) }
        }
        h2 { "Transcript" }
        div.transcript {
            @for m in &messages { (message(m)) }
        }
    };
    respond(
        StatusCode::OK,
        Some(&signed),
        frame("Run", Some(&signed), false, body),
    )
}

/// An item of the run and what became of it.
fn item_entry(c: &CallRecord) -> Markup {
    html! {
        li {
            (kind_badge(c.kind())) " "
            a.open href=(item_href(&c.run_id, &c.call_id)) {
                (summary(c))
            }
            span.muted { (decided_line(c)) }
            @if let Some(args) = &c.approved_args {
                span.muted { " · approved with changes: " (text::line(&args.to_string())) }
            }
        }
    }
}

/// "resolved by alice via web at …", or the item's state.
pub fn decided_line(c: &CallRecord) -> Markup {
    html! {
        (c.state.as_str())
        @if let Some(by) = &c.resolved_by { " by " (text::line(by)) }
        @if let Some(claim) = &c.claim { " (claims " (text::line(claim)) ")" }
        @if let Some(via) = &c.resolved_via { " via " (text::line(via)) }
        @if let Some(at) = c.resolved_at { " at " (format::time(at)) }
    }
}

fn message(m: &Message) -> Markup {
    match m {
        Message::User { content } => html! {
            div.message { div.role { "user" } (text::block(content)) }
        },
        Message::Assistant {
            content,
            tool_calls,
        } => html! {
            div.message {
                div.role { "assistant" }
                @if let Some(c) = content { (text::block(c)) }
                @for call in tool_calls {
                    div { "calls " code { (text::line(&call.name)) } " " span.muted { (text::line(&call.args.to_string())) } }
                }
            }
        },
        Message::Tool {
            tool_name, content, ..
        } => html! {
            div.message {
                div.role { "tool " (text::line(tool_name)) }
                (tool_content(content))
            }
        },
    }
}

/// What a tool gave, as a person reads it: the text of a result object's `content` (the
/// words the model reads), other JSON indented, anything else as it is.
fn tool_content(content: &str) -> Markup {
    match serde_json::from_str::<serde_json::Value>(content) {
        Ok(v) if v["content"].is_string() => {
            html! { (text::block(v["content"].as_str().unwrap_or_default())) }
        }
        Ok(v @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) => {
            let pretty = serde_json::to_string_pretty(&v).unwrap_or_default();
            html! { pre { (text::shown(&pretty, true)) } }
        }
        _ => html! { (text::block(content)) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::CallState;

    #[test]
    fn a_claim_is_shown_escaped_beside_who_the_store_recorded() {
        let c = CallRecord {
            state: CallState::Resolved,
            resolved_by: Some("runner".into()),
            claim: Some("<b>alice</b>".into()),
            resolved_via: Some("flag".into()),
            resolved_at: Some(0),
            ..CallRecord::fixture("r", "c", "deploy", serde_json::json!({}))
        };
        assert_eq!(
            decided_line(&c).into_string(),
            "resolved by runner (claims &lt;b&gt;alice&lt;/b&gt;) via flag at 1970-01-01T00:00:00.000Z"
        );
    }
}
