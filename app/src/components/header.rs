//! Title, language switch, and the share actions.

use super::share::copy;
use crate::i18n::common::{t, K};
use crate::state::use_state;
use crate::url::{self, History};
use leptos::prelude::*;
use planner_core::workspace::Lang;

/// The embed snippet for the current workspace.
pub fn embed_snippet(base: &str, hash: &str) -> String {
    let src = format!("{base}{hash}").replace('"', "%22");
    format!(
        "<iframe src=\"{src}\" width=\"720\" height=\"480\" style=\"border:0\" loading=\"lazy\" title=\"memwall\"></iframe>"
    )
}

/// The page header.
#[component]
pub fn Header() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let switch = move |_| {
        state.update(History::Replace, |w| {
            w.lang = match w.lang {
                Lang::En => Lang::Zh,
                Lang::Zh => Lang::En,
            }
        })
    };
    let copy_link = move |_| {
        let hash = state.ws.with(|w| url::hash(w, false));
        copy(state, format!("{}{hash}", url::base()), K::LinkCopied);
    };
    let copy_embed = move |_| {
        let hash = state.ws.with(|w| url::hash(w, true));
        copy(state, embed_snippet(&url::base(), &hash), K::EmbedCopied);
    };
    view! {
        <header class="header">
            <h1 data-testid="app-title">{move || t(lang(), K::Title)}</h1>
            <p class="tagline" data-testid="tagline">{move || t(lang(), K::Tagline)}</p>
            <nav class="actions">
                <button data-testid="copy-link" on:click={copy_link}>{move || t(lang(), K::CopyLink)}</button>
                <button data-testid="copy-embed" on:click={copy_embed}>{move || t(lang(), K::CopyEmbed)}</button>
                <button data-testid="lang-switch" on:click={switch}>{move || t(lang(), K::Language)}</button>
            </nav>
        </header>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_escapes_quotes() {
        let s = embed_snippet("http://x/?a=\"b", "#embed=1&w=1.AA");
        assert!(s.starts_with("<iframe src=\"http://x/?a=%22b#embed=1&w=1.AA\""));
    }
}
