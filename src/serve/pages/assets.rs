//! The inbox's one stylesheet and one script, served by the server itself (the CSP allows
//! nothing else, and no inline code). The script only reloads the inbox when what waits
//! changes; every page works without it.

use axum::http::header;
use axum::response::IntoResponse;

const CSS: &str = include_str!("app.css");
const SCRIPT: &str = include_str!("inbox.js");

pub async fn css() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], CSS)
}

pub async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        SCRIPT,
    )
}
