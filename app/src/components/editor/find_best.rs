//! "Find best plans": the GPU budget, whether other GPU kinds and (for
//! training) other frameworks may be tried, and the button that starts the search in Web Workers
//! (`crate::search_run`). Progress, cancel and the plans found show in the
//! results column (`components::results::search_results`), next to the
//! charts. A serving plan with a request stream the serving search can
//! size also gets "Size for the stream" (`crate::size_run`), whose
//! answers show in `components::results::sizing_results`.

use super::found::{scenario, serving_scenario};
use super::lens::{active, use_plan};
use super::number_box::NumberBox;
use super::parse::{parse_count, COUNT};
use super::toggle::Toggle;
use crate::i18n::editor::{t, K};
use crate::search_run::{use_search, SEARCH_SECTION_ID};
use crate::size_run::{use_size, SizePhase, SIZE_SECTION_ID};
use leptos::prelude::*;
use planner_core::search::Permission;

/// Scrolls the results column's section `id` into view, after it has
/// rendered its progress bar.
fn reveal(id: &'static str) {
    request_animation_frame(move || {
        if let Some(el) = document().get_element_by_id(id) {
            let opts = web_sys::ScrollIntoViewOptions::new();
            opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
            el.scroll_into_view_with_scroll_into_view_options(&opts);
        }
    });
}

/// Budget box, search button.
#[component]
pub fn FindBest() -> impl IntoView {
    let lens = use_plan();
    let run = use_search();
    let size = use_size();
    let lang = move || lens.lang();
    let budget = RwSignal::new(None::<u32>);
    let other_gpus = RwSignal::new(true);
    let other_frameworks = RwSignal::new(false);
    let other_formats = RwSignal::new(true);
    let trains = move || lens.get(|p| p.training_stack().is_some());
    let busy = move || run.phase.get().busy();
    let base = move || lens.state().ws.with_untracked(|w| active(w).cloned());
    let start = move |_| {
        let Some(plan) = base() else { return };
        let max = budget.get_untracked().unwrap_or(plan.hardware.gpus).max(1);
        let frameworks = other_frameworks.get_untracked();
        run.start(scenario(plan, max, other_gpus.get_untracked(), frameworks));
        reveal(SEARCH_SECTION_ID);
    };
    let sizable = move || lens.get(|p| planner_core::search::stream_rate(p).is_ok());
    let sizing = move || matches!(size.phase.get(), SizePhase::Running { .. });
    let size_it = move |_| {
        let Some(plan) = base() else { return };
        let max = budget.get_untracked().unwrap_or(plan.hardware.gpus).max(1);
        // Other GPU kinds and narrower formats, as the boxes allow.
        let allow = |on: bool| {
            if on {
                Permission::Allowed
            } else {
                Permission::Forbidden
            }
        };
        let ways = planner_core::search::serving_ways(
            &serving_scenario(plan, max),
            allow(other_formats.get_untracked()),
            allow(other_gpus.get_untracked()),
        );
        size.start(ways);
        reveal(SIZE_SECTION_ID);
    };
    view! {
        <section class="editor-block find-best" data-testid="find-best-panel">
            <h3>{move || t(lang(), K::FindBest)}</h3>
            <div class="row">
                <label class="field">
                    <span class="field-label">{move || t(lang(), K::GpuBudget)}</span>
                    <NumberBox
                        testid="gpu-budget"
                        value={Signal::derive(move || budget.get().map(|b| (COUNT.show)(&b)).unwrap_or_else(|| lens.get(|p| p.hardware.gpus.to_string())))}
                        on_text={Callback::new(move |s: String| parse_count(&s).map(|b| budget.set(Some(b))).is_some())}
                        label={Signal::derive(move || t(lang(), K::GpuBudget).to_string())}
                    />
                </label>
                <Toggle
                        testid="search-other-gpus"
                        label={Signal::derive(move || t(lang(), K::OtherGpus).to_string())}
                        checked={Signal::from(other_gpus)}
                        on_toggle={Callback::new(move |on| other_gpus.set(on))}
                    />
                <Show when=trains>
                    <Toggle
                        testid="search-other-frameworks"
                        label={Signal::derive(move || t(lang(), K::OtherFrameworks).to_string())}
                        checked={Signal::from(other_frameworks)}
                        on_toggle={Callback::new(move |on| other_frameworks.set(on))}
                    />
                </Show>
                <button data-testid="find-best" disabled={busy} on:click={start}>
                    {move || t(lang(), if busy() { K::Searching } else { K::FindBestButton })}
                </button>
                <Show when=sizable>
                    <Toggle
                        testid="size-other-formats"
                        label={Signal::derive(move || t(lang(), K::OtherFormats).to_string())}
                        checked={Signal::from(other_formats)}
                        on_toggle={Callback::new(move |on| other_formats.set(on))}
                    />
                </Show>
                <Show when=sizable>
                    <button
                        data-testid="size-stream"
                        disabled={sizing}
                        title={move || t(lang(), K::SizeHint)}
                        on:click={size_it}
                    >
                        {move || t(lang(), K::SizeButton)}
                    </button>
                </Show>
            </div>
        </section>
    }
}
