//! The editor column: scenario, workload, plans and their levers.

use super::plan_tabs::PlanTabs;
use leptos::prelude::*;

/// Everything that edits the workspace.
#[component]
pub fn EditorPanel() -> impl IntoView {
    view! { <PlanTabs /> }
}
