//! The tenants view: the workspace's plans as jobs on one shared pool.
//! The packing (`planner_core::tenants::share`) runs only while this view
//! is shown, and again only when the plans or the pool settings change.

use super::gpu_grid::GpuGrid;
use super::job_picker::JobPicker;
use super::pool_editor::PoolEditor;
use super::tenants_summary::TenantsSummary;
use super::tenants_table::TenantsTable;
use crate::components::diagnostic_list::DiagnosticList;
use crate::i18n::ops::{t, K};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::tenants::share;

/// Pool editor, job list, GPU grid, table and notes.
#[component]
pub fn TenantsView() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let input = Memo::new(move |_| state.ws.with(|w| w.tenants.sharing(&w.plans).0));
    let result = Memo::new(move |_| input.with(share));
    let any = move || input.with(|s| !s.jobs.is_empty());
    let notes = Signal::derive(move || result.with(|r| r.diagnostics.clone()));
    view! {
        <div class="ops" data-testid="tenants-view">
            <p class="note">{move || t(lang(), K::TenantsTitle)}</p>
            <div class="ops-settings">
                <PoolEditor />
                <JobPicker />
            </div>
            <Show
                when={any}
                fallback={move || view! { <p class="note" data-testid="tenants-empty">{move || t(lang(), K::NoJobs)}</p> }}
            >
                <TenantsSummary result={result} />
                <GpuGrid result={result} />
                <TenantsTable result={result} />
                <section class="ops-section">
                    <h4>{move || t(lang(), K::WhyNot)}</h4>
                    <DiagnosticList testid="tenants-diagnostics" item_testid="ops-diagnostic" class="diag-list" items={notes} empty={Signal::derive(move || t(lang(), K::NothingWrong).to_string())} />
                </section>
            </Show>
        </div>
    }
}
