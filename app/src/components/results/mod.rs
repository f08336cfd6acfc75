//! The results column and the embed view.
//!
//! Both show the workspace's view (memory, time, cost against latency,
//! sweep, comparison); the planner adds the view tabs, diagnostics and
//! exports; the embed view ([`embed`]) the whole comparison and a link to
//! the full page.

pub mod body;
pub mod chart_frame;
pub mod compare_table;
pub mod diagnostics;
pub mod disagg_panel;
pub mod embed;
pub mod exports;
pub mod family_summary;
pub mod frontier_view;
pub mod memory_view;
pub mod scope;
pub mod search_results;
pub mod serving_panel;
pub mod sizing_results;
pub mod sweep_view;
pub mod time_view;
pub mod view_tabs;

pub use embed::EmbedView;

use super::ops::checklist::ChecklistPanel;
use super::verdict::VerdictLine;
use body::ResultBody;
use diagnostics::DiagnosticsList;
use disagg_panel::DisaggPanel;
use exports::ExportBar;
use family_summary::FamilySummary;
use leptos::prelude::*;
use scope::Scope;
use search_results::SearchResults;
use serving_panel::ServingPanel;
use sizing_results::SizingResults;
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
            <SizingResults />
            <FamilySummary />
            <ServingPanel />
            <DisaggPanel />
            <DiagnosticsList />
            <ChecklistPanel />
            <ExportBar />
        </div>
    }
}
