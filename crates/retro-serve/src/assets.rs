//! The page at `/`: HTML, script and style embedded in the binary (no CDN, no build step).
//! The board and pieces are drawn by the page itself (Unicode chess symbols on CSS squares).

use axum::{http::header, response::IntoResponse};

/// The page.
const INDEX_HTML: &str = include_str!("../assets/index.html");
/// Its script.
const APP_JS: &str = include_str!("../assets/app.js");
/// Its style sheet.
const STYLE_CSS: &str = include_str!("../assets/style.css");

/// `GET /`.
pub async fn index() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        INDEX_HTML,
    )
}

/// `GET /app.js`.
pub async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        APP_JS,
    )
}

/// `GET /style.css`.
pub async fn style() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        STYLE_CSS,
    )
}
