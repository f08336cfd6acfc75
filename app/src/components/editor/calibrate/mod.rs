//! Calibration in the browser: paste a GPU harness report, or type what a
//! run of the active plan measured, fit the overhead and efficiency knobs
//! with the core's fitter (`planner_core::calibrate`), see the knobs, the
//! errors before and after and the active plan's prediction with them, and
//! write the fitted knobs into the plan. Nothing pasted is rendered as
//! markup: names, ids and messages are text nodes.

mod fit;
mod input;
mod result;
mod rows;
mod tables;

use super::lens::use_plan;
use crate::i18n::calibrate::{t, K};
use fit::run_fit;
use input::Problem;
use leptos::prelude::*;
use planner_core::calibrate::{Calibration, PlanRow};
use result::FitResult;
use rows::{RowEntry, RowList};

/// The collapsible calibration panel.
#[component]
pub fn CalibratePanel() -> impl IntoView {
    let lens = use_plan();
    let lang = move || lens.lang();
    let pasted = RwSignal::new(String::new());
    let rows = RwSignal::new(Vec::<PlanRow>::new());
    let result = RwSignal::new(None::<Calibration>);
    let trouble = RwSignal::new(None::<Problem>);
    let applied = RwSignal::new(false);

    let run = move |_| {
        let out = pasted.with_untracked(|s| rows.with_untracked(|rs| run_fit(s, rs)));
        applied.set(false);
        match out {
            Ok(c) => {
                result.set(Some(c));
                trouble.set(None);
            }
            Err(p) => {
                result.set(None);
                trouble.set(Some(p));
            }
        }
    };

    view! {
        <details class="lever-set calibrate" data-testid="calib-panel">
            <summary>{move || t(lang(), K::Calibrate)}</summary>
            <p class="hint">{move || t(lang(), K::About)}</p>
            <textarea
                data-testid="calib-json"
                rows="4"
                spellcheck="false"
                aria-label={move || t(lang(), K::PasteReport)}
                placeholder={move || t(lang(), K::PasteReport)}
                prop:value={move || pasted.get()}
                on:input={move |ev| pasted.set(event_target_value(&ev))}
            ></textarea>
            <RowEntry rows={rows} trouble={trouble} />
            <RowList rows={rows} />
            <div class="row">
                <button data-testid="calib-fit" on:click={run}>{move || t(lang(), K::Fit)}</button>
            </div>
            {move || trouble.get().map(|p| view! {
                <p class="error" role="alert" data-testid="calib-error">{t(lang(), p.key)} " " {p.detail}</p>
            })}
            <FitResult result={result} applied={applied} />
        </details>
    }
}
