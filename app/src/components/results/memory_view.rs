//! The memory chart of the plans in scope.

use super::chart_frame::ChartFrame;
use super::scope::Scope;
use crate::charts::{draw, series};
use crate::i18n::results::K;
use crate::state::use_state;
use leptos::prelude::*;

/// Memory per GPU by item and tier, with the HBM wall.
#[component]
pub fn MemoryView(
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
            series::memory_series(
                picked
                    .iter()
                    .filter_map(|(i, name)| r.get(*i).map(|rep| (name.as_str(), rep))),
            )
        })
    });
    view! { <ChartFrame name="memory" title=K::MemoryTitle series=series draw=draw::memory::draw height=height /> }
}
