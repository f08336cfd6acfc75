//! The active plan's diagnostics in plain words, in the workspace's
//! language.

use crate::components::diagnostic_list::DiagnosticList;
use crate::i18n::results::{t, K};
use crate::state::use_state;
use leptos::prelude::*;

/// What is wrong or worth knowing about the active plan.
#[component]
pub fn DiagnosticsList() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let diagnostics = Memo::new(move |_| {
        let i = state.ws.with(|w| w.active);
        state
            .reports
            .with(|r| r.get(i).map(|r| r.diagnostics.clone()).unwrap_or_default())
    });
    view! {
        <section class="diagnostics">
            <h3>{move || t(lang(), K::Diagnostics)}</h3>
            <DiagnosticList
                testid="diagnostics"
                item_testid="diagnostic"
                items={diagnostics}
                empty={Signal::derive(move || t(lang(), K::NoProblems).to_string())}
                empty_testid="no-diagnostics"
                fixes=true
            />
        </section>
    }
}
