//! The results column and the embed view.
//!
//! Both show the workspace's view (memory, time, cost against latency,
//! sweep, comparison); the planner adds the view tabs, diagnostics and
//! exports, the embed view only the active plan's result and a link to the
//! full page.

pub mod body;
pub mod chart_frame;
pub mod compare_table;
pub mod diagnostics;
pub mod exports;
pub mod family_summary;
pub mod frontier_view;
pub mod memory_view;
pub mod scope;
pub mod search_results;
pub mod serving_panel;
pub mod sweep_view;
pub mod time_view;
pub mod view_tabs;

use super::ops::checklist::ChecklistPanel;
use super::verdict::VerdictLine;
use crate::i18n::common::{t, K};
use crate::state::use_state;
use crate::url;
use body::ResultBody;
use diagnostics::DiagnosticsList;
use exports::ExportBar;
use family_summary::FamilySummary;
use leptos::prelude::*;
use scope::Scope;
use search_results::SearchResults;
use serving_panel::ServingPanel;
use view_tabs::ViewTabs;

/// Every result of the workspace.
#[component]
pub fn ResultsPanel() -> impl IntoView {
    view! {
        <div class="results-panel">
            <VerdictLine />
            <ViewTabs />
            <div class="result-body" data-testid="result-body">
                <ResultBody scope=Scope::All />
            </div>
            <SearchResults />
            <FamilySummary />
            <ServingPanel />
            <DiagnosticsList />
            <ChecklistPanel />
            <ExportBar />
        </div>
    }
}

/// One chosen result, without the editor, sized for an iframe: the
/// workspace's view for its active plan, and a link to the full page.
#[component]
pub fn EmbedView() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let name = move || {
        state.ws.with(|w| {
            w.plans
                .get(w.active)
                .map(|p| p.name.clone())
                .unwrap_or_default()
        })
    };
    let full = move || format!("{}{}", url::base(), state.ws.with(|w| url::hash(w, false)));
    view! {
        <div class="embed-result">
            <div class="embed-head">
                <span class="embed-plan" data-testid="embed-plan">{name}</span>
                <VerdictLine />
                <a class="open-full" data-testid="open-full" href=full target="_blank" rel="noopener">
                    {move || t(lang(), K::OpenFull)}
                </a>
            </div>
            <ResultBody scope=Scope::Active />
        </div>
    }
}
