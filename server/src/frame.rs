//! The frame of every page of the server but the one-sentence ones (`view::message`): the
//! course's title, the signed-in person with their way to sign out, and the page's title.

use axum::response::Html;
use maud::{html, Markup, DOCTYPE};

use crate::auth::Who;
use crate::state::State;
use crate::view::STYLE;

/// A page of the server: the course's title, the signed-in person, and sign out.
pub(crate) fn page(state: &State, who: Option<&Who>, title: &str, body: Markup) -> Html<String> {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · " (state.course.title) }
                style { (STYLE) }
                script src="/static/live.js" defer {}
            }
            body {
                nav {
                    a href="/" { strong { (state.course.title) } }
                    @if let Some(who) = who {
                        @match &who.student {
                            Some(id) => span.muted { "signed in as " (who.name.as_deref().or(state.course.student(id).map(|s| s.name.as_str())).unwrap_or(id)) },
                            None => { a href="/instructor" { "the class" } span.muted { "signed in as the instructor" } },
                        }
                        @if let Some(csrf) = &who.csrf {
                            a href="/access" { "your access" }
                            form method="post" action="/logout" {
                                input type="hidden" name="csrf" value=(csrf);
                                button type="submit" { "Sign out" }
                            }
                        }
                    }
                }
                h1 { (title) }
                (body)
            }
        }
    };
    Html(markup.into_string())
}
