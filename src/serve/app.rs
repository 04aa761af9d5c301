//! The routes and what every handler shares: the store pool, how serve was started
//! (`--db`, `--drive`), the server's origins, the sign-in limiter, the change counter of
//! live pages, the shutdown signal and the bounds on open event streams (all, one
//! reviewer's, one session's). Also the two ways a request is signed in (`signed_in` for
//! pages, `api_reviewer` for the API) and how a failure becomes a response.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::from_fn;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::watch;

use super::auth::{self, Limiter};
use super::decide::Serving;
use super::places::{Place, Places};
use super::pool::Pool;
use super::{api, middleware, pages, MAX_STREAMS, STREAMS_PER_REVIEWER, STREAMS_PER_SESSION};
use crate::store::{Reviewer, Reviewers};

pub struct App {
    pub pool: Arc<Pool>,
    /// What deciding needs: the store, `--db`, `--drive`.
    pub serving: Serving,
    /// Every origin a POST may come from (the first is `origin`).
    pub origins: Vec<String>,
    pub behind_proxy: bool,
    pub limiter: Limiter,
    pub changes: watch::Receiver<u64>,
    pub shutdown: watch::Receiver<bool>,
    /// The live pages' event streams, by reviewer and by session.
    streams: Places<String>,
    session_streams: Places<String>,
}

pub type Shared = Arc<App>;

impl App {
    pub fn new(
        serving: Serving,
        origins: Vec<String>,
        behind_proxy: bool,
        changes: watch::Receiver<u64>,
        shutdown: watch::Receiver<bool>,
    ) -> App {
        App {
            pool: Arc::new(Pool::new(serving.location.clone())),
            serving,
            origins,
            behind_proxy,
            limiter: Limiter::new(),
            changes,
            shutdown,
            streams: Places::new(MAX_STREAMS, STREAMS_PER_REVIEWER),
            session_streams: Places::new(MAX_STREAMS, STREAMS_PER_SESSION),
        }
    }

    /// A place for one more event stream of `reviewer` in `session`, or `None` when
    /// `MAX_STREAMS` are open, or the reviewer holds `STREAMS_PER_REVIEWER` or the session
    /// `STREAMS_PER_SESSION`.
    pub fn stream_permit(&self, reviewer: &str, session: &str) -> Option<StreamPlace> {
        let of_reviewer = self.streams.take(reviewer.to_string())?;
        let of_session = self.session_streams.take(session.to_string())?;
        Some((of_reviewer, of_session))
    }
}

/// A live page's place among the open event streams, held while it is open.
pub type StreamPlace = (Place<String>, Place<String>);

pub fn router(app: Shared) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/static/app.css", get(pages::assets::css))
        .route("/static/inbox.js", get(pages::assets::script))
        .route(
            "/login",
            get(pages::login::form).post(pages::login::with_token),
        )
        .route(
            "/login/{secret}",
            get(pages::login::link_form).post(pages::login::with_link),
        )
        .route("/logout", post(pages::login::logout))
        .route(
            "/tap/{secret}",
            get(pages::tap::confirm).post(pages::tap::decide),
        )
        .route("/", get(pages::inbox::page))
        .route("/events", get(pages::inbox::events))
        .route("/runs/{run}", get(pages::run::page))
        .route(
            "/runs/{run}/items/{call}",
            get(pages::item::page).post(pages::item::decide),
        )
        .nest("/api", api::router())
        .fallback(pages::layout::not_found)
        .layer(from_fn(middleware::body))
        .layer(from_fn(middleware::headers))
        .with_state(app)
}

/// 200 while the store answers.
async fn healthz(State(app): State<Shared>) -> Response {
    match app.pool.with(|s| Ok(s.public_url()?)).await {
        Ok(_) => (StatusCode::OK, "ok\n").into_response(),
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "the store does not answer\n",
        )
            .into_response(),
    }
}

/// A signed-in person (pages).
#[derive(Clone)]
pub struct Signed {
    pub reviewer: Reviewer,
    /// The csrf value of their forms.
    pub csrf: String,
    pub session: String,
}

/// The reviewer of the request's session cookie, if it is live.
pub async fn signed_in(app: &Shared, headers: &HeaderMap) -> anyhow::Result<Option<Signed>> {
    let Some(session) = auth::cookie(headers, auth::SESSION_COOKIE).map(str::to_string) else {
        return Ok(None);
    };
    let id = session.clone();
    let reviewer = app.pool.with(move |s| Ok(s.session_reviewer(&id)?)).await?;
    Ok(reviewer.map(|reviewer| Signed {
        reviewer,
        csrf: auth::csrf_of("session", &session),
        session,
    }))
}

/// The reviewer of the request's bearer token (the API), if it is valid.
pub async fn api_reviewer(app: &Shared, headers: &HeaderMap) -> anyhow::Result<Option<Reviewer>> {
    let Some(token) = auth::bearer(headers).map(str::to_string) else {
        return Ok(None);
    };
    app.pool
        .with(move |s| Ok(s.reviewer_of_token(&token)?))
        .await
}

/// Who a response was for, for the request log.
#[derive(Clone)]
pub struct LoggedAs(pub String);

/// `response`, logged as made for `name`.
pub fn for_reviewer(mut response: Response, name: &str) -> Response {
    response.extensions_mut().insert(LoggedAs(name.to_string()));
    response
}
