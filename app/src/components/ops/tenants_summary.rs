//! The packing in a few figures: jobs placed, GPUs used, GPUs the placed
//! jobs would take alone, and the sharing actually used (MIG falls back to
//! whole GPUs on parts without it).

use crate::i18n::ops::{mode, t, K};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::tenants::SharingResult;

/// Figures of a packing.
#[component]
pub fn TenantsSummary(
    /// The packing.
    result: Memo<SharingResult>,
) -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    view! {
        <dl class="figures" data-testid="tenants-summary">
            <div class="figure">
                <dt>{move || t(lang(), K::JobsPlaced)}</dt>
                <dd data-testid="tenants-placed">{move || result.with(|r| format!("{} / {}", r.placed, r.jobs.len()))}</dd>
            </div>
            <div class="figure">
                <dt>{move || t(lang(), K::GpusUsed)}</dt>
                <dd data-testid="tenants-used">{move || result.with(|r| format!("{} / {}", r.gpus_used, r.pool_gpus))}</dd>
            </div>
            <div class="figure">
                <dt>{move || t(lang(), K::WithoutSharing)}</dt>
                <dd data-testid="tenants-without">{move || result.with(|r| r.gpus_without_sharing.to_string())}</dd>
            </div>
            <div class="figure">
                <dt>{move || t(lang(), K::ModeUsed)}</dt>
                <dd data-testid="tenants-mode-used">{move || result.with(|r| mode(lang(), r.mode))}</dd>
            </div>
        </dl>
    }
}
