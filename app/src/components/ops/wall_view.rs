//! The wall over time (`planner_core::wall::wall`): every published model
//! evaluated under the active plan's workload and levers, against GPU
//! memory by year, as a chart and a table. It runs only while this view is
//! shown, and again only when the active plan changes.

use super::wall_table::WallTable;
use crate::charts::draw;
use crate::components::editor::lens::active;
use crate::components::results::chart_frame::ChartFrame;
use crate::i18n::ops::{t, K};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::wall::{wall, WallSeries};

/// Chart, note and table.
#[component]
pub fn WallView(
    /// CSS height of the chart in pixels.
    #[prop(default = 380)]
    height: u32,
) -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let plan = Memo::new(move |_| state.ws.with(|w| active(w).cloned()));
    let series = Memo::new(move |_| {
        plan.with(|p| match p {
            Some(p) => wall(p, &p.hardware.gpu),
            // A workspace always holds a plan; an empty chart says so if not.
            None => WallSeries {
                plan: String::new(),
                gpu: String::new(),
                models: Vec::new(),
                gpus: Vec::new(),
            },
        })
    });
    view! {
        <div class="ops" data-testid="wall-view">
            <ChartFrame name="wall" title={K::WallTitle} series={series} draw={draw::wall::draw} height={height} />
            <p class="note" data-testid="wall-note">{move || t(lang(), K::WallNote)}</p>
            <WallTable series={series} />
        </div>
    }
}
