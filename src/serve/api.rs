//! Mastra's agent routes over this store (SPEC §13, shared/MASTRA-SERVER.md), so that
//! `mastra-ask --server`, Mastra's client and curl answer its runs: the agents, their
//! suspended runs, `resume-stream`, `approve-tool-call`, `decline-tool-call`, with Mastra's
//! bodies and SSE framing (`data: <json>\n\n`, `data: [DONE]\n\n`).
//!
//! Unlike Mastra: bad resume data is a 400 with `issues` and consumes nothing; a decided
//! item is a 409 naming who decided; approve/decline on a non-approval is a 400; starting
//! runs is a 405. Every answering response says in `Mastra-Ask-Outcome` who continues
//! (and, for a `partial` decision, in `Mastra-Ask-Needed` what the policy still needs).
//! Only `Authorization: Bearer` signs a request in here, never the session cookie.

// A refusal here is the response itself, made once per request: boxing it buys nothing.
#![allow(clippy::result_large_err)]

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};

use super::app::{api_reviewer, for_reviewer, Shared};
use super::auth;
use super::decide::{self, Answer, Refusal, Target};
use super::frames::sse;
use crate::domain::{ItemKind, Via};
use crate::output::{format, sanitize};
use crate::runner::Outcome;
use crate::store::{PendingItem, Who};
use crate::tools::approval;

pub fn router() -> Router<Shared> {
    Router::new()
        .route("/agents", get(agents))
        .route("/agents/{agent}/suspended-runs", get(suspended))
        .route("/agents/{agent}/resume-stream", post(resume))
        .route("/agents/{agent}/approve-tool-call", post(approve))
        .route("/agents/{agent}/decline-tool-call", post(decline))
        .route("/agents/{agent}/stream", post(start).get(start))
        .route("/agents/{agent}/generate", post(start))
        .fallback(unknown)
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({"error": message.into()}))).into_response()
}

/// Mastra's 400 for a body that does not fit.
fn issues(field: &str, message: impl Into<String>) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(json!({
            "error": "Invalid request body",
            "issues": [{"field": field, "message": message.into()}],
        })),
    )
        .into_response()
}

fn failed(e: anyhow::Error) -> Response {
    error(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!("the store failed: {e}"),
    )
}

async fn unknown() -> Response {
    error(StatusCode::NOT_FOUND, "no such route")
}

async fn start() -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "mastra-ask serve does not start runs: start them where they run (mastra-ask run, ask or plan), and answer them here",
    )
}

/// Signs the request in, or answers 401 (and the POSTs' same-origin check, 403).
async fn reviewer(app: &Shared, headers: &HeaderMap, post: bool) -> Result<String, Response> {
    if post && !auth::same_origin(headers, &app.origins) {
        return Err(error(
            StatusCode::FORBIDDEN,
            "cross-origin requests are refused",
        ));
    }
    match api_reviewer(app, headers).await {
        Ok(Some(r)) => Ok(r.name),
        Ok(None) => Err(error(
            StatusCode::UNAUTHORIZED,
            "sign in with Authorization: Bearer TOKEN (a reviewer's token: mastra-ask reviewer add NAME)",
        )),
        Err(e) => Err(failed(e)),
    }
}

/// `GET /api/agents`: every agent with runs in the store, keyed by id, in Mastra's shape
/// (from the agent definition its latest run stored).
async fn agents(State(app): State<Shared>, headers: HeaderMap) -> Response {
    let who = match reviewer(&app, &headers, false).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let listed = app
        .pool
        .with(|s| {
            let mut agents = Map::new();
            for (id, run_id) in s.latest_run_of_each_agent()? {
                let def = s.run(&run_id)?.map(|r| r.agent).unwrap_or(Value::Null);
                agents.insert(id.clone(), agent_json(&id, &def));
            }
            Ok(agents)
        })
        .await;
    match listed {
        Ok(agents) => for_reviewer(Json(Value::Object(agents)).into_response(), &who),
        Err(e) => failed(e),
    }
}

fn agent_json(id: &str, def: &Value) -> Value {
    let mut tools = Map::new();
    for t in def["tools"].as_array().into_iter().flatten() {
        let (name, description, schema) = match t {
            Value::String(name) => (name.clone(), Value::from(""), Value::Null),
            other => (
                other["name"].as_str().unwrap_or_default().to_string(),
                other.get("description").cloned().unwrap_or(Value::from("")),
                other.get("inputSchema").cloned().unwrap_or(Value::Null),
            ),
        };
        tools.insert(
            name.clone(),
            json!({"id": name, "description": description, "inputSchema": schema}),
        );
    }
    json!({
        "id": id,
        "name": def["name"].as_str().unwrap_or(id),
        "description": "",
        "instructions": def["instructions"],
        "tools": tools,
        "agents": {},
        "workflows": {},
        "provider": "mastra-ask",
        "modelId": model_shown(def["model"].as_str().unwrap_or_default()),
        "source": "code",
    })
}

/// The model as the API shows it: a scripted or command model by its kind alone, since its
/// spec names a file or a command line of serve's machine (`script:/srv/…/script.json`).
fn model_shown(spec: &str) -> &str {
    match spec.split_once(':') {
        Some((kind @ ("script" | "command"), _)) => kind,
        _ => spec,
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    per_page: Option<String>,
    page: Option<String>,
}

/// `GET /api/agents/:agentId/suspended-runs`: the agent's runs with pending items, newest
/// first; paged when both `perPage` and `page` (0-based) are given, as Mastra does.
async fn suspended(
    State(app): State<Shared>,
    headers: HeaderMap,
    Path(agent): Path<String>,
    Query(page): Query<Page>,
) -> Response {
    let who = match reviewer(&app, &headers, false).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let number = |field: &str, v: &Option<String>, min: u64| -> Result<Option<u64>, Response> {
        match v {
            None => Ok(None),
            Some(s) => match s.parse::<u64>() {
                Ok(n) if n >= min => Ok(Some(n)),
                _ => Err((
                    StatusCode::BAD_REQUEST,
                    Json(json!({"error": "Invalid query parameters",
                        "issues": [{"field": field, "message": format!("expected a whole number of at least {min}")}]})),
                )
                    .into_response()),
            },
        }
    };
    let per_page = match number("perPage", &page.per_page, 1) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let page = match number("page", &page.page, 0) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let id = agent.clone();
    let found = app
        .pool
        .with(move |s| {
            let known = s.latest_run_of_each_agent()?.iter().any(|(a, _)| *a == id);
            Ok(known.then(|| s.pending(None)).transpose()?)
        })
        .await;
    let items = match found {
        Ok(Some(items)) => items,
        Ok(None) => {
            return error(
                StatusCode::NOT_FOUND,
                format!("Agent with id {agent} not found"),
            )
        }
        Err(e) => return failed(e),
    };
    let mut runs = runs_of(&agent, items);
    let total = runs.len();
    if let (Some(per), Some(page)) = (per_page, page) {
        let skip = usize::try_from(per.saturating_mul(page)).unwrap_or(usize::MAX);
        runs = runs
            .into_iter()
            .skip(skip)
            .take(usize::try_from(per).unwrap_or(usize::MAX))
            .collect();
    }
    for_reviewer(
        Json(json!({"runs": runs, "total": total})).into_response(),
        &who,
    )
}

/// The agent's pending items grouped by run, newest run first (by its last suspension).
fn runs_of(agent: &str, items: Vec<PendingItem>) -> Vec<Value> {
    let mut by_run: BTreeMap<String, (i64, Vec<Value>)> = BTreeMap::new();
    for item in items.into_iter().filter(|i| i.agent_id == agent) {
        let c = item.call;
        let approval = c.kind() == ItemKind::Approval;
        let mut call = json!({
            "toolCallId": c.call_id,
            "toolName": c.tool_name,
            "requiresApproval": approval,
        });
        if approval {
            call["args"] = c.args.clone();
        } else {
            call["suspendPayload"] = c.payload().cloned().unwrap_or(Value::Null);
        }
        let entry = by_run.entry(c.run_id).or_insert((0, Vec::new()));
        entry.0 = entry.0.max(c.created_at);
        entry.1.push(call);
    }
    let mut runs: Vec<(String, i64, Vec<Value>)> = by_run
        .into_iter()
        .map(|(id, (at, calls))| (id, at, calls))
        .collect();
    runs.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    runs.into_iter()
        .map(|(run_id, at, calls)| {
            json!({"runId": run_id, "status": "suspended", "suspendedAt": format::time(at), "toolCalls": calls})
        })
        .collect()
}

/// The request body as a JSON object, or Mastra's 400.
fn object(body: &Bytes) -> Result<Map<String, Value>, Response> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(issues("root", "expected an object")),
        Err(e) => Err(issues("body", e.to_string())),
    }
}

/// A required string field of the body.
fn string(body: &Map<String, Value>, field: &str) -> Result<String, Response> {
    match body.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(issues(field, "expected a string")),
        None => Err(issues(
            field,
            "Invalid input: expected string, received undefined",
        )),
    }
}

/// `POST …/resume-stream`: `{runId, toolCallId?, resumeData}`.
async fn resume(
    State(app): State<Shared>,
    headers: HeaderMap,
    Path(agent): Path<String>,
    body: Bytes,
) -> Response {
    let who = match reviewer(&app, &headers, true).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let body = match object(&body) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let run = match string(&body, "runId") {
        Ok(r) => r,
        Err(r) => return r,
    };
    let Some(data) = body.get("resumeData").cloned() else {
        return issues("resumeData", "resumeData is required");
    };
    let call = match body.get("toolCallId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return issues("toolCallId", "expected a string"),
    };
    answer(app, who, agent, run, call, Answer::Data(data)).await
}

async fn approve(
    State(app): State<Shared>,
    headers: HeaderMap,
    Path(agent): Path<String>,
    body: Bytes,
) -> Response {
    decision(app, headers, agent, body, true).await
}

async fn decline(
    State(app): State<Shared>,
    headers: HeaderMap,
    Path(agent): Path<String>,
    body: Bytes,
) -> Response {
    decision(app, headers, agent, body, false).await
}

/// `POST …/approve-tool-call` and `…/decline-tool-call`: `{runId, toolCallId, reason?}`.
async fn decision(
    app: Shared,
    headers: HeaderMap,
    agent: String,
    body: Bytes,
    approved: bool,
) -> Response {
    let who = match reviewer(&app, &headers, true).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let body = match object(&body) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let (run, call) = match (string(&body, "runId"), string(&body, "toolCallId")) {
        (Ok(r), Ok(c)) => (r, c),
        (Err(r), _) | (_, Err(r)) => return r,
    };
    let decision = if approved {
        approval::Decision::approve()
    } else {
        let reason = match body.get("reason") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return issues("reason", "expected a string"),
        };
        approval::Decision::decline(reason)
    };
    answer(app, who, agent, run, Some(call), Answer::Approval(decision)).await
}

/// Records the answer, then streams what became of it: the header says who continues, the
/// stream carries the leg serve drives or a live waiter's leg as it is stored (or, when
/// nobody here continues the run, a comment saying who does), then `[DONE]`.
async fn answer(
    app: Shared,
    who: String,
    agent: String,
    run: String,
    call: Option<String>,
    answer: Answer,
) -> Response {
    // An answer's stream needs no stream place: the legs it carries have places of their own.
    let target = Target {
        run_id: run,
        call_id: call,
        agent_id: Some(agent),
    };
    let decided = decide::decide(&app, target, answer, Who::reviewer(&who), Via::Api, true).await;
    let (decided, rx) = match decided {
        Ok(d) => d,
        Err(refusal) => return for_reviewer(refused(refusal), &who),
    };
    let mut response = sse(rx);
    response.headers_mut().insert(
        "mastra-ask-outcome",
        HeaderValue::from_static(decided.header()),
    );
    // What the policy still needs, for the `--server` client's line (SPEC §14).
    if let Outcome::Partial(needed) = &decided.outcome {
        if let Ok(v) = HeaderValue::from_str(&sanitize::ascii_line(needed)) {
            response.headers_mut().insert("mastra-ask-needed", v);
        }
    }
    for_reviewer(response, &who)
}

/// The answer to a refused decision.
fn refused(refusal: Refusal) -> Response {
    match refusal {
        Refusal::NotFound(m) => error(StatusCode::NOT_FOUND, m),
        Refusal::Invalid { field, message } => issues(field, message),
        Refusal::Decided(item) => {
            let by = item.resolved_by.clone().unwrap_or_else(|| "someone".into());
            let at = item.resolved_at.map(format::time).unwrap_or_default();
            (
                StatusCode::CONFLICT,
                Json(json!({
                    "error": format!("tool call {} was already decided by {by} at {at}", item.call_id),
                    "code": "CONFLICT",
                    "decided": decide::decided(&item),
                })),
            )
                .into_response()
        }
        Refusal::Conflict(m) => (
            StatusCode::CONFLICT,
            Json(json!({"error": m, "code": "CONFLICT"})),
        )
            .into_response(),
        Refusal::Forbidden(m) => (
            StatusCode::FORBIDDEN,
            Json(json!({"error": m, "code": "FORBIDDEN"})),
        )
            .into_response(),
        Refusal::Failed(e) => failed(e),
    }
}
