//! Cost against latency for every plan, with the Pareto frontier.

use super::chart_frame::ChartFrame;
use crate::charts::{draw, series};
use crate::i18n::results::{t, K};
use crate::state::use_state;
use leptos::prelude::*;

/// The frontier chart and the names of plans it could not place.
#[component]
pub fn FrontierView(
    /// CSS height of the chart in pixels.
    #[prop(default = 340)]
    height: u32,
) -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let series = Memo::new(move |_| {
        state
            .ws
            .with(|w| state.reports.with(|r| series::frontier_series(&w.plans, r)))
    });
    let unplaced = move || series.with(|s| s.unplaced.join(", "));
    let assumed = move || {
        series.with(|s| {
            s.points
                .iter()
                .filter_map(|p| {
                    p.assumed_price
                        .as_ref()
                        .map(|src| format!("{}: {src}", p.name))
                })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <ChartFrame name="frontier" title=K::FrontierTitle series=series draw=draw::frontier::draw height=height />
        <Show when=move || series.with(|s| s.metric.is_some() && !s.unplaced.is_empty())>
            <p class="note" data-testid="frontier-unplaced">
                {move || t(lang(), K::NotPlaced)}
                " "
                {unplaced}
            </p>
        </Show>
        <Show when=move || !assumed().is_empty()>
            <p class="note" data-testid="frontier-assumed">
                <strong>{move || format!("○ {}", t(lang(), K::PriceAssumed))}</strong>
                " — "
                {move || assumed().join("; ")}
            </p>
        </Show>
    }
}
