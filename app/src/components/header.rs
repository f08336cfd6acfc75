//! Title, language switch, and the share actions: the link, the embed
//! snippet, and for platforms that block iframes the chart as SVG with a
//! Markdown snippet that links it to the planner.

use super::share::copy;
use super::snippets::{embed_snippet, markdown_snippet};
use crate::charts::{series, svg};
use crate::i18n::common::{t, K};
use crate::state::{use_state, AppState};
use crate::url::{self, History};
use leptos::prelude::*;
use planner_core::workspace::Lang;

/// The file the SVG export is saved as, and the Markdown snippet's image.
pub const SVG_FILE: &str = "memwall-frontier.svg";

/// Size of the exported chart in CSS pixels.
const SVG_SIZE: (u32, u32) = (900, 420);

/// Height the embed's iframe starts at, before the page reports its own.
const EMBED_START_HEIGHT: u32 = 640;

/// The cost-against-latency chart of the whole workspace as SVG.
fn chart_svg(state: AppState) -> String {
    state.ws.with_untracked(|w| {
        state.reports.with_untracked(|r| {
            svg::frontier_svg(&series::frontier_series(&w.plans, r), w.lang, SVG_SIZE)
        })
    })
}

/// Switches the language; plan names the app gave follow it.
fn switch_language(state: AppState) {
    state.update(History::Replace, |w| {
        let to = match w.lang {
            Lang::En => Lang::Zh,
            Lang::Zh => Lang::En,
        };
        for p in &mut w.plans {
            if let Some(name) = super::editor::naming::in_language(p, to) {
                p.name = name;
            }
        }
        w.lang = to;
    })
}

/// The page header.
#[component]
pub fn Header() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let full_link = move || {
        let hash = state.ws.with_untracked(|w| url::hash(w, false));
        format!("{}{hash}", url::base())
    };
    let copy_link = move |_| copy(state, full_link(), K::LinkCopied);
    let copy_embed = move |_| {
        let hash = state.ws.with_untracked(|w| url::hash(w, true));
        copy(
            state,
            embed_snippet(&url::base(), &hash, EMBED_START_HEIGHT),
            K::EmbedCopied,
        );
    };
    let download_svg = move |_| {
        crate::export::download_text(SVG_FILE, "image/svg+xml", &chart_svg(state));
    };
    let copy_markdown = move |_| {
        let names: Vec<String> = state
            .ws
            .with_untracked(|w| w.plans.iter().map(|p| p.name.clone()).collect());
        copy(
            state,
            markdown_snippet(&names, SVG_FILE, &full_link()),
            K::MarkdownCopied,
        );
    };
    view! {
        <header class="header">
            <h1 data-testid="app-title">{move || t(lang(), K::Title)}</h1>
            <p class="tagline" data-testid="tagline">{move || t(lang(), K::Tagline)}</p>
            <nav class="actions">
                <button data-testid="copy-link" on:click={copy_link}>{move || t(lang(), K::CopyLink)}</button>
                <button data-testid="copy-embed" on:click={copy_embed}>{move || t(lang(), K::CopyEmbed)}</button>
                <button data-testid="download-svg" on:click={download_svg}>{move || t(lang(), K::DownloadSvg)}</button>
                <button data-testid="copy-markdown" on:click={copy_markdown}>{move || t(lang(), K::CopyMarkdown)}</button>
                <button data-testid="lang-switch" on:click=move |_| switch_language(state)>{move || t(lang(), K::Language)}</button>
            </nav>
        </header>
    }
}
