//! Downloads of the whole workspace: JSON of plans and reports, CSV of the
//! comparison.

use crate::compare;
use crate::export::{self, CSV_BOM};
use crate::i18n::results::{t, K};
use crate::state::use_state;
use leptos::prelude::*;

/// The export buttons.
#[component]
pub fn ExportBar() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let json = move |_| {
        let text = state.ws.with_untracked(|w| {
            state
                .reports
                .with_untracked(|r| export::workspace_json(w, r))
        });
        export::download_text("memwall-workspace.json", "application/json", &text);
    };
    let csv = move |_| {
        let lang = state.ws.with_untracked(|w| w.lang);
        let text = state.ws.with_untracked(|w| {
            state
                .reports
                .with_untracked(|r| compare::csv(&compare::rows(&w.plans, r), lang))
        });
        export::download_text(
            "memwall-comparison.csv",
            "text/csv;charset=utf-8",
            &format!("{CSV_BOM}{text}"),
        );
    };
    view! {
        <div class="exports">
            <button data-testid="export-json" on:click=json>{move || t(lang(), K::ExportJson)}</button>
            <button data-testid="export-csv" on:click=csv>{move || t(lang(), K::ExportCsv)}</button>
        </div>
    }
}
