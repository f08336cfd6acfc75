//! The typed rows: a peak and a time measured on the active plan, added
//! as a row each, listed with a button to remove each.

use super::input::{row_of, Problem};
use super::tables::show_value;
use crate::components::editor::lens::{active, use_plan};
use crate::i18n::calibrate::{figure, t, K};
use leptos::prelude::*;
use planner_core::calibrate::{time_figure, Figure, FigureValue, PlanRow};

/// The peak and time boxes and the button that adds them as a row of the
/// active plan (or says why not).
#[component]
pub fn RowEntry(
    /// The rows typed so far.
    rows: RwSignal<Vec<PlanRow>>,
    /// Why the last action did nothing.
    trouble: RwSignal<Option<Problem>>,
) -> impl IntoView {
    let lens = use_plan();
    let lang = move || lens.lang();
    let peak = RwSignal::new(String::new());
    let time = RwSignal::new(String::new());
    let time_label = move || {
        let f = lens
            .get(|p| Some(time_figure(p)))
            .unwrap_or(Figure::StepTime);
        t(
            lang(),
            if f == Figure::Tpot {
                K::MeasuredTpot
            } else {
                K::MeasuredStep
            },
        )
    };
    let add_row = move |_| {
        let plan = lens.state().ws.with_untracked(|w| active(w).cloned());
        let Some(plan) = plan else { return };
        match row_of(&plan, &peak.get_untracked(), &time.get_untracked()) {
            Ok(r) => {
                rows.update(|rs| rs.push(r));
                peak.set(String::new());
                time.set(String::new());
                trouble.set(None);
            }
            Err(p) => trouble.set(Some(p)),
        }
    };
    view! {
        <div class="row">
            <label class="field">
                <span class="field-label">{move || t(lang(), K::MeasuredPeak)}</span>
                <input type="text" inputmode="decimal" data-testid="calib-peak"
                    prop:value={move || peak.get()}
                    on:input={move |ev| peak.set(event_target_value(&ev))} />
            </label>
            <label class="field">
                <span class="field-label">{time_label}</span>
                <input type="text" inputmode="decimal" data-testid="calib-time"
                    prop:value={move || time.get()}
                    on:input={move |ev| time.set(event_target_value(&ev))} />
            </label>
            <button data-testid="calib-add-row" on:click={add_row}>{move || t(lang(), K::AddRow)}</button>
        </div>
    }
}

/// The rows typed so far, each with its remove button; nothing when there
/// are none.
#[component]
pub fn RowList(
    /// The rows typed so far.
    rows: RwSignal<Vec<PlanRow>>,
) -> impl IntoView {
    let lens = use_plan();
    let lang = move || lens.lang();
    view! {
        <Show when={move || rows.with(|r| !r.is_empty())}>
            <p class="hint">{move || t(lang(), K::RowsTitle)}</p>
            <ul data-testid="calib-rows">
                {move || {
                    let l = lang();
                    rows.get()
                        .into_iter()
                        .enumerate()
                        .map(|(i, r)| {
                            let f = time_figure(&r.plan);
                            let text = format!(
                                "{} {} · {} · {}: {} · {}: {}",
                                t(l, K::Row),
                                i + 1,
                                r.plan.name,
                                figure(l, Figure::PeakAllocated),
                                show_value(r.peak_allocated.map(FigureValue::Bytes)),
                                figure(l, f),
                                show_value(r.time.map(FigureValue::Time)),
                            );
                            view! {
                                <li data-testid={format!("calib-row-{i}")}>
                                    {text} " "
                                    <button data-testid={format!("calib-remove-row-{i}")}
                                        on:click={move |_| rows.update(|rs| { if i < rs.len() { rs.remove(i); } })}>
                                        {t(l, K::RemoveRow)}
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
        </Show>
    }
}
