//! The fit's outcome: its tables, the button that writes the fitted knobs
//! into the active plan, and a note once it has.

use super::fit::{apply_fitted, predictions};
use super::tables::{errors_table, knobs_table, prediction_table};
use crate::components::editor::lens::use_plan;
use crate::i18n::calibrate::{t, K};
use crate::url::History;
use leptos::prelude::*;
use planner_core::calibrate::Calibration;

/// The last fit's tables and the apply button; nothing before a fit.
#[component]
pub fn FitResult(
    /// The last fit, if it succeeded.
    result: RwSignal<Option<Calibration>>,
    /// Whether its knobs were written into the plan.
    applied: RwSignal<bool>,
) -> impl IntoView {
    let lens = use_plan();
    let lang = move || lens.lang();
    let apply = move |_| {
        if let Some(c) = result.get_untracked() {
            lens.set(History::Push, |p| apply_fitted(&c, p));
            applied.set(true);
        }
    };
    move || {
        result.get().map(|c| {
            let l = lang();
            let ps = lens.get(|p| predictions(p, &c));
            view! {
                <div class="calib-result" data-testid="calib-result">
                    {knobs_table(l, &c)}
                    {errors_table(l, &c)}
                    {prediction_table(l, ps)}
                    <div class="row">
                        <button data-testid="calib-apply" on:click={apply}>{t(l, K::Apply)}</button>
                    </div>
                    <Show when={move || applied.get()}>
                        <p class="hint" data-testid="calib-applied">{move || t(lang(), K::Applied)}</p>
                    </Show>
                </div>
            }
        })
    }
}
