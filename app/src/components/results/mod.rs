//! The results column and the embed view.

use super::verdict::VerdictLine;
use leptos::prelude::*;

/// Every result of the workspace.
#[component]
pub fn ResultsPanel() -> impl IntoView {
    view! { <VerdictLine /> }
}

/// One chosen result, without the editor, for iframes.
#[component]
pub fn EmbedView() -> impl IntoView {
    view! { <VerdictLine /> }
}
