//! Tabs that choose the result shown; the choice is part of the workspace
//! (and so of the link).

use crate::i18n::common;
use crate::i18n::results::{t, K};
use crate::state::use_state;
use crate::url::History;
use leptos::prelude::*;
use planner_core::workspace::View;

/// Every view with its testid suffix.
pub const VIEWS: [(View, &str); 8] = [
    (View::Memory, "memory"),
    (View::Time, "time"),
    (View::Frontier, "frontier"),
    (View::Sweep, "sweep"),
    (View::Compare, "compare"),
    (View::Tenants, "tenants"),
    (View::Reliability, "reliability"),
    (View::Wall, "wall"),
];

/// The view tabs.
#[component]
pub fn ViewTabs() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let current = Memo::new(move |_| state.ws.with(|w| w.view));
    view! {
        <nav class="view-tabs" role="tablist" aria-label=move || t(lang(), K::ResultViews)>
            {VIEWS
                .into_iter()
                .map(|(v, key)| {
                    view! {
                        <button
                            role="tab"
                            class="tab"
                            class:active=move || current.get() == v
                            aria-selected=move || (current.get() == v).to_string()
                            data-testid=format!("view-tab-{key}")
                            on:click=move |_| state.update(History::Push, |w| w.view = v)
                        >
                            {move || common::view(lang(), v)}
                        </button>
                    }
                })
                .collect_view()}
        </nav>
    }
}
