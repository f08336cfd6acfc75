//! The time chart of the plans in scope.

use super::chart_frame::ChartFrame;
use super::scope::Scope;
use crate::charts::{draw, series};
use crate::i18n::results::K;
use crate::state::use_state;
use leptos::prelude::*;

/// Step time, or TTFT and TPOT, by exposed part, with the expected range.
#[component]
pub fn TimeView(
    /// Which plans to draw.
    scope: Scope,
    /// CSS height of the chart in pixels.
    #[prop(default = 340)]
    height: u32,
) -> impl IntoView {
    let state = use_state();
    let series = Memo::new(move |_| {
        let picked = state.ws.with(|w| scope.pick(w));
        state.reports.with(|r| {
            series::time_series(
                picked
                    .iter()
                    .filter_map(|(i, name)| r.get(*i).map(|rep| (name.as_str(), rep))),
            )
        })
    });
    view! {
        <ChartFrame name="time" title=K::TimeTitle series=series draw=draw::time::draw height=height />
        <RangeBasis />
    }
}

/// Which measured runs the active plan's time range comes from.
#[component]
fn RangeBasis() -> impl IntoView {
    use planner_core::report::TimeReport;
    use planner_core::Named;
    let state = use_state();
    let basis = Memo::new(move |_| {
        let i = state.ws.with(|w| w.active);
        state.reports.with(|r| {
            r.get(i).map(|r| match &r.time {
                TimeReport::Training(t) => t.range_basis,
                TimeReport::Inference(t) => t.range_basis,
            })
        })
    });
    move || {
        basis.get().map(|b| {
            let lang = state.lang();
            let text = crate::i18n::results::range_basis(lang, b.name(lang), b.band(0).rows);
            view! { <p class="note range-basis" data-testid="range-basis">{text}</p> }
        })
    }
}
