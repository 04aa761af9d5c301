//! `/runs/RUN/items/TOOL_CALL_ID`: one item and its form, posted to the same URL (SPEC
//! §13's field names): a question (`answer`; `label` repeated for multi-select, the
//! options with their descriptions), a plan rendered from its Markdown snapshot (`action`
//! = `approved` | `rejected`, `feedback` for a rejection only), an approval with its tool,
//! the tool's description and its escaped, indented arguments (`approved` = `false` |
//! `true`, `reason`; Decline first) and the arguments as editable JSON (`args`: approved with changes when they differ, SPEC §14.1, checked
//! against the tool's schema where every decision is checked). A decision is a 303
//! back here, where the page shows what was recorded (an approval with changes: the
//! arguments that run beside those proposed) and links on to the next waiting item and the
//! inbox; when someone decided first, a 409 page says who, when and what. Bad input is a
//! 400 that consumed nothing, with what the person typed kept.

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup};
use serde_json::{json, Value};

use super::layout::{
    age, failed, frame, item_href, kind_badge, problem, respond, run_href, to_login,
};
use super::run::decided_line;
use super::{markdown, text};
use crate::domain::{CallRecord, CallState, ItemKind, Via};
use crate::items::form::Field;
use crate::items::{self, Item};
use crate::policy::ItemGate;
use crate::serve::app::{for_reviewer, signed_in, Shared, Signed};
use crate::serve::auth;
use crate::serve::decide::{self, Answer, Refusal, Target};
use crate::serve::form::Form;
use crate::store::{now_ms, Run, Store, Who};
use crate::tools::approval;
use crate::tools::ask_user::Question;
use crate::tools::submit_plan::Plan;

#[derive(serde::Deserialize)]
pub struct Done {
    /// What the decision just made came to (set by the redirect after it).
    done: Option<String>,
}

/// A message above the item.
enum Notice {
    Error(String),
    Conflict(String),
    Recorded(String),
}

pub async fn page(
    State(app): State<Shared>,
    headers: HeaderMap,
    Path((run, call)): Path<(String, String)>,
    Query(done): Query<Done>,
) -> Response {
    let signed = match signed_in(&app, &headers).await {
        Ok(Some(s)) => s,
        Ok(None) => return to_login(&item_href(&run, &call)),
        Err(e) => return failed(None, &e),
    };
    let notice = done
        .done
        .as_deref()
        .map(|d| Notice::Recorded(recorded_text(d)));
    show(&app, &signed, &run, &call, StatusCode::OK, notice, None).await
}

/// What became of a decision (`decide::done_token`), in words.
fn recorded_text(done: &str) -> String {
    match done {
        "waiter" => "Recorded. The run's waiting process continues it now.".into(),
        "driven" => "Recorded. This inbox continues the run now.".into(),
        "pending" => "Recorded. Other items of this step must be decided before the run goes on.".into(),
        "partial" => "Recorded. The run's policy needs more approvals before the run goes on.".into(),
        "here" => "Recorded. The run continues when a waiting process, or `mastra-ask resume` on its host, picks it up.".into(),
        _ => "Recorded. The run continues on the host that started it: its waiting process, or `mastra-ask resume` there.".into(),
    }
}

async fn show(
    app: &Shared,
    signed: &Signed,
    run: &str,
    call: &str,
    status: StatusCode,
    notice: Option<Notice>,
    edited: Option<&str>,
) -> Response {
    let target = Target {
        run_id: run.to_string(),
        call_id: Some(call.to_string()),
        agent_id: None,
    };
    let found = app
        .pool
        .with(move |s| {
            Ok(match decide::find(s, &target) {
                Ok((run, item)) => {
                    let gate = gate_of(s, &run, &item)?;
                    let next = match item.state {
                        CallState::Pending => None,
                        _ => next_waiting(s, &item)?,
                    };
                    Ok((run, item, gate, next))
                }
                Err(refusal) => Err(refusal),
            })
        })
        .await;
    match found {
        Ok(Ok((run, item, gate, next))) => {
            let shown = Shown {
                notice,
                edited,
                next,
            };
            let body = render(signed, &run, &item, gate.as_ref(), shown);
            respond(
                status,
                Some(signed),
                frame("Item", Some(signed), false, body),
            )
        }
        Ok(Err(Refusal::NotFound(m))) => {
            problem(StatusCode::NOT_FOUND, Some(signed), "Not found", &m)
        }
        Ok(Err(Refusal::Failed(e))) | Err(e) => failed(Some(signed), &e),
        // Finding an item by its id refuses nothing else.
        Ok(Err(
            Refusal::Invalid { message, .. }
            | Refusal::Conflict(message)
            | Refusal::Forbidden(message),
        )) => problem(
            StatusCode::CONFLICT,
            Some(signed),
            "Not available",
            &message,
        ),
        Ok(Err(Refusal::Decided(item))) => problem(
            StatusCode::CONFLICT,
            Some(signed),
            "Not available",
            &format!("tool call {} was decided", item.call_id),
        ),
    }
}

/// The page of the oldest item that waits, other than `item`.
fn next_waiting(store: &dyn Store, item: &CallRecord) -> anyhow::Result<Option<String>> {
    Ok(store
        .pending(None)?
        .into_iter()
        .map(|p| p.call)
        .find(|c| (&c.run_id, &c.call_id) != (&item.run_id, &item.call_id))
        .map(|c| item_href(&c.run_id, &c.call_id)))
}

/// What the page shows besides the item.
struct Shown<'a> {
    notice: Option<Notice>,
    /// The text a person last typed (`form`).
    edited: Option<&'a str>,
    /// The next waiting item's page, once this one is decided.
    next: Option<String>,
}

/// Who may decide the item under its run's policy and what was decided so far (SPEC §14);
/// `None` without a policy (no read then).
fn gate_of(store: &dyn Store, run: &Run, item: &CallRecord) -> anyhow::Result<Option<ItemGate>> {
    if run.gate.policy.is_none() {
        return Ok(None);
    }
    let decisions = store.decisions(&run.id)?;
    Ok(ItemGate::of(run, item, &decisions))
}

fn render(
    signed: &Signed,
    run: &Run,
    item: &CallRecord,
    gate: Option<&ItemGate>,
    shown: Shown,
) -> Markup {
    let now = now_ms();
    html! {
        p.muted {
            (kind_badge(item.kind())) " agent " (text::line(&run.agent_id)) " · " (age(item.created_at, now))
            " · run " a href=(run_href(&run.id)) { (run.id) }
        }
        @match &shown.notice {
            Some(Notice::Error(m)) => div.notice.error role="alert" { (text::line(m)) },
            Some(Notice::Conflict(m)) => div.notice.conflict role="alert" { (text::line(m)) },
            Some(Notice::Recorded(m)) => div.notice role="status" { (m) },
            None => {},
        }
        (what_it_asks(run, item))
        @if let Some(gate) = gate {
            div #policy {
                @for line in gate.lines(item.state == CallState::Pending) {
                    p.muted { (text::line(&line)) }
                }
            }
        }
        @if item.state == CallState::Pending {
            (form(signed, run, item, shown.edited))
        } @else {
            div.notice.conflict #decided {
                strong { "Decided: " } (decision_text(item)) br;
                span.muted { (decided_line(item)) }
            }
            p.after {
                @if let Some(next) = &shown.next {
                    a.next href=(next) { "Next waiting item" } " "
                }
                a.inbox href="/" { "Inbox" }
            }
        }
    }
}

/// The description the run's agent gives tool `name`, if any.
fn tool_description<'r>(run: &'r Run, name: &str) -> Option<&'r str> {
    run.agent["tools"]
        .as_array()?
        .iter()
        .find(|t| t["name"] == name)?["description"]
        .as_str()
        .filter(|d| !d.trim().is_empty())
}

/// The question, plan or tool call, as the person reads it before deciding (and, for an
/// approval with changes, the arguments that run beside those proposed).
fn what_it_asks(run: &Run, item: &CallRecord) -> Markup {
    match item.kind() {
        ItemKind::Question => {
            let q = item.payload().and_then(Question::from_payload);
            html! { h1 { @match &q { Some(q) => (text::block(&q.text)), None => "(unreadable question)" } } }
        }
        ItemKind::Plan => {
            let plan = item.payload().and_then(Plan::from_payload);
            match plan {
                Some(p) => html! {
                    h1 { "Plan: " @if p.title.is_empty() { "(untitled)" } @else { (text::line(&p.title)) } }
                    p.muted { "from " code { (text::line(&p.path)) } " as it was submitted" }
                    div.plan { (markdown::render(&p.plan)) }
                },
                None => html! { h1 { "(unreadable plan)" } },
            }
        }
        ItemKind::Approval | ItemKind::Other => {
            let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
            html! {
                h1 { "Run the tool " code { (text::line(&item.tool_name)) } "?" }
                @if let Some(d) = tool_description(run, &item.tool_name) {
                    p.tool-description { (text::line(d)) }
                }
                div.args {
                    @match &item.approved_args {
                        Some(approved) => {
                            p.muted { "proposed with these arguments:" }
                            pre { (text::shown(&pretty(&item.args), true)) }
                            p { strong { "approved with changes:" } " it runs with these arguments" }
                            pre.changed { (text::shown(&pretty(approved), true)) }
                        },
                        None => {
                            p.muted { "with these arguments:" }
                            pre { (text::shown(&pretty(&item.args), true)) }
                        },
                    }
                }
            }
        }
    }
}

/// The item's form (`items::Kind::form`) as a page shows it; `edited`: what a person last
/// typed into its first text box (an approval's arguments, a plan's feedback), the page
/// again after a refusal.
fn form(signed: &Signed, run: &Run, item: &CallRecord, edited: Option<&str>) -> Markup {
    let action = item_href(&item.run_id, &item.call_id);
    let form = items::of(item.kind()).form(&Item::of_call(run, item));
    let first_text = form
        .fields
        .iter()
        .position(|f| matches!(f, Field::Text { .. }));
    html! {
        form.decide method="post" action=(action) {
            input type="hidden" name="csrf" value=(signed.csrf);
            @for (i, f) in form.fields.iter().enumerate() {
                (field(f, edited.filter(|_| Some(i) == first_text)))
            }
            @if !form.buttons.is_empty() {
                div.buttons {
                    @for b in &form.buttons {
                        @let class = if b.refuses { "danger" } else { "primary" };
                        @match b.sends {
                            Some((name, value)) => button class=(class) type="submit" name=(name) value=(value) { (b.label) },
                            None => button class=(class) type="submit" { (b.label) },
                        }
                    }
                }
            }
        }
    }
}

fn field(f: &Field, edited: Option<&str>) -> Markup {
    match f {
        Field::Text {
            name,
            label,
            required,
            value,
            code,
        } => html! {
            label.field for=(name) { (label) }
            textarea id=(name) name=(name) required[*required] rows=[code.then_some("6")] spellcheck=[code.then_some("false")] {
                @if let Some(text) = edited.or(value.as_deref()) { (text) }
            }
        },
        Field::Pick {
            name,
            multi,
            required,
            options,
        } => html! {
            fieldset {
                legend { @if *multi { "Choose one or more" } @else { "Choose one" } }
                @for (i, c) in options.iter().enumerate() {
                    label.choice {
                        @if *multi {
                            input type="checkbox" name=(name) value=(c.label) id={ "o" (i) };
                        } @else {
                            input type="radio" name=(name) value=(c.label) id={ "o" (i) } required[*required];
                        }
                        span {
                            (text::line(&c.label))
                            @if let Some(d) = &c.description { span.desc { (text::line(d)) } }
                        }
                    }
                }
            }
        },
    }
}

/// What was decided on an item, in words.
fn decision_text(item: &CallRecord) -> Markup {
    let data = item.resume_data.clone().unwrap_or(Value::Null);
    match (item.kind(), &data) {
        (_, Value::Null) => html! { (item.state.as_str()) },
        (ItemKind::Question, Value::String(s)) => html! { (text::line(s)) },
        (ItemKind::Question, Value::Array(labels)) => {
            let labels: Vec<&str> = labels.iter().filter_map(Value::as_str).collect();
            html! { (text::line(&labels.join(", "))) }
        }
        (ItemKind::Plan, d) => html! {
            (d["action"].as_str().unwrap_or("?"))
            @if let Some(f) = d["feedback"].as_str() { ": " (text::block(f)) }
        },
        (_, d) if d["approved"] == true && item.approved_args.is_some() => {
            html! { "approved with changes" }
        }
        (_, d) if d["approved"] == true => html! { "approved" },
        (_, d) => html! {
            "declined" @if let Some(r) = d["reason"].as_str() { ": " (text::block(r)) }
        },
    }
}

/// The decision a form stands for; a refusal's words when `args` is no JSON.
fn answer_of(form: &Form) -> Result<Answer, String> {
    if let (Some("true"), Some(text)) = (form.get("approved"), form.get("args")) {
        return serde_json::from_str(text)
            .map(Answer::Changed)
            .map_err(|e| format!("the arguments are not valid JSON: {e}; nothing was recorded"));
    }
    Ok(answer_of_fields(form))
}

pub(super) fn answer_of_fields(form: &Form) -> Answer {
    if let Some(approved) = form.get("approved") {
        let reason = form
            .get("reason")
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_string);
        return Answer::Approval(approval::Decision {
            approved: approved == "true",
            reason,
        });
    }
    if let Some(action) = form.get("action") {
        let mut d = json!({"action": action});
        if let Some(f) = form.get("feedback").filter(|f| !f.trim().is_empty()) {
            d["feedback"] = json!(f);
        }
        return Answer::Data(d);
    }
    // A question's own answer in place of its options (Claude Code's "Other").
    if let Some(other) = form.get("other").filter(|o| !o.trim().is_empty()) {
        return Answer::Data(json!({ "other": other }));
    }
    let labels = form.all("label");
    if !labels.is_empty() || form.get("answer").is_none() {
        return Answer::Data(json!(labels));
    }
    Answer::Data(json!(form.get("answer").unwrap_or_default()))
}

pub async fn decide(
    State(app): State<Shared>,
    headers: HeaderMap,
    Path((run, call)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    let signed = match signed_in(&app, &headers).await {
        Ok(Some(s)) => s,
        Ok(None) => return to_login(&item_href(&run, &call)),
        Err(e) => return failed(None, &e),
    };
    let form = Form::parse(&body);
    if !auth::same_origin(&headers, &app.origins)
        || !auth::csrf_ok("session", &signed.session, form.get("csrf"))
    {
        return problem(
            StatusCode::FORBIDDEN,
            Some(&signed),
            "Refused",
            "this form did not come from this inbox (or your session changed): open the item again",
        );
    }
    let edited = form.get("args").or(form.get("feedback"));
    let answer = match answer_of(&form) {
        Ok(a) => a,
        Err(m) => {
            let notice = Some(Notice::Error(m));
            return show(
                &app,
                &signed,
                &run,
                &call,
                StatusCode::BAD_REQUEST,
                notice,
                edited,
            )
            .await;
        }
    };
    let target = Target {
        run_id: run.clone(),
        call_id: Some(call.clone()),
        agent_id: None,
    };
    let by = signed.reviewer.name.clone();
    // The page does not wait for the leg: serve drives it on (if it does) and the
    // redirected page shows what was recorded.
    let decided = decide::decide(&app, target, answer, Who::reviewer(&by), Via::Web, false).await;
    let (status, notice) = match decided {
        Ok((d, _)) => {
            let done = decide::done_token(&d.outcome);
            let to = format!("{}?done={done}", item_href(&d.run_id, &d.call_id));
            return for_reviewer(Redirect::to(&to).into_response(), &signed.reviewer.name);
        }
        Err(Refusal::Invalid { mut message, .. }) => {
            if !message.ends_with("nothing was recorded") {
                message.push_str("; nothing was recorded");
            }
            (StatusCode::BAD_REQUEST, Notice::Error(message))
        }
        Err(Refusal::Decided(item)) => {
            let who = item.resolved_by.clone().unwrap_or_else(|| "someone".into());
            let m = format!("{who} decided this item first; nothing of yours was recorded.");
            (StatusCode::CONFLICT, Notice::Conflict(m))
        }
        Err(Refusal::Conflict(m)) => (StatusCode::CONFLICT, Notice::Conflict(m)),
        Err(Refusal::Forbidden(m)) => (StatusCode::FORBIDDEN, Notice::Error(m)),
        Err(Refusal::NotFound(m)) => {
            return problem(StatusCode::NOT_FOUND, Some(&signed), "Not found", &m)
        }
        Err(Refusal::Failed(e)) => return failed(Some(&signed), &e),
    };
    show(&app, &signed, &run, &call, status, Some(notice), edited).await
}
