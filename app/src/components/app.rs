//! The root: state, frame, and either the planner or the embed view.

use super::editor::EditorPanel;
use super::results::{EmbedView, ResultsPanel};
use super::{banner::Banner, header::Header};
use crate::state::AppState;
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
    // Back and forward restore the workspace from the address.
    let on_pop =
        wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || state.reload_from_address());
    if let Some(w) = web_sys::window() {
        let f = on_pop.as_ref().unchecked_ref();
        let _ = w.add_event_listener_with_callback("popstate", f);
        let _ = w.add_event_listener_with_callback("hashchange", f);
    }
    on_pop.forget();

    view! {
        <Show
            when={move || state.embed.get()}
            fallback={move || {
                view! {
                    <div class="page" data-testid="planner">
                        <Header />
                        <Banner />
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

use wasm_bindgen::JsCast;
