//! What every page shares: the style sheet, the one-sentence page an error or "sign in" is
//! shown by, and how times and scores are written.

use axum::response::Html;
use maud::{html, Markup, DOCTYPE};

pub(crate) const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem;color:#222}\
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}\
.muted{color:#666}.late{color:#a40}.bad{color:#b00}.good{color:#070}pre{background:#f4f4f4;padding:.5rem;overflow:auto}\
nav{display:flex;gap:1rem;align-items:center;border-bottom:1px solid #ddd;padding-bottom:.5rem}nav form{margin-left:auto}\
iframe{width:100%;height:40rem;border:1px solid #ccc}";

/// A page that only says something (an error, "sign in"), with the way back home.
pub(crate) fn message(title: &str, text: &str) -> Html<String> {
    Html(
        html! {
            (DOCTYPE)
            html lang="en" { head { meta charset="utf-8"; meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) } style { (STYLE) } }
                body { nav { a href="/" { strong { "← the course" } } } h1 { (title) } p { (text) } } }
        }
        .into_string(),
    )
}

/// The heading of a page that answers `status`: in words, not a number.
pub(crate) fn heading(status: axum::http::StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "Not understood",
        401 | 403 => "Refused",
        404 => "Not found",
        413 => "Too large",
        422 => "Not taken",
        429 => "Too many",
        500..=599 => "The server failed",
        _ => status.canonical_reason().unwrap_or("Refused"),
    }
}

/// A time as the pages write it (UTC).
pub(crate) fn when(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default()
}

/// A score as the pages write it.
pub(crate) fn points(score: Option<f64>) -> String {
    score.map_or_else(|| "–".into(), |s| format!("{s:.2}"))
}

/// A deadline as the course wrote it, with its offset (`2026-12-10 23:59 +01:00`); the page's
/// script adds the reader's own time beside it.
pub(crate) fn deadline(at: &chrono::DateTime<chrono::FixedOffset>) -> Markup {
    html! {
        time datetime=(at.to_rfc3339()) { (at.format("%Y-%m-%d %H:%M %:z")) }
    }
}
