//! The root: state, frame, and either the planner or the embed view.

use super::editor::EditorPanel;
use super::results::{EmbedView, ResultsPanel};
use super::share::ShareDialog;
use super::{banner::Banner, header::Header};
use crate::state::AppState;
use leptos::ev;
use leptos::prelude::*;

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let lang = web_sys::window()
        .and_then(|w| w.navigator().language())
        .map(|t| crate::i18n::from_browser_tag(&t))
        .unwrap_or_default();
    let state = AppState::start(lang);
    provide_context(state);
    provide_context(crate::search_run::SearchRun::new());
    provide_context(crate::size_run::SizeRun::new());
    // Back and forward, and a link pasted into the address bar, restore the
    // workspace from the address. The listeners live as long as the page,
    // so their handles are dropped without removing them.
    let _ = window_event_listener(ev::popstate, move |_| state.reload_from_address());
    let _ = window_event_listener(ev::hashchange, move |_| state.reload_from_address());
    // `<html lang>` follows the language switch.
    Effect::new(move |_| {
        let tag = crate::i18n::to_html_tag(state.lang());
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("lang", tag);
        }
    });

    view! {
        <Show
            when={move || state.embed.get()}
            fallback={move || {
                view! {
                    <div class="page" data-testid="planner">
                        <Header />
                        <Banner />
                        <ShareDialog />
                        <main class="layout">
                            <section class="editor" data-testid="editor">
                                <EditorPanel />
                            </section>
                            <section class="results" data-testid="results">
                                <ResultsPanel />
                            </section>
                        </main>
                    </div>
                }
            }}
        >
            <div class="embed" data-testid="embed-view">
                <Banner />
                <EmbedView />
            </div>
        </Show>
    }
}
