//! The reliability view: checkpoints and failures of the active plan
//! (`planner_core::checkpoint`), a table of its figures and a chart of
//! goodput and interval against the failure rate
//! (`planner_core::checkpoint::failure_sweep`). Serving plans get a note:
//! checkpoints are a training matter.

use super::reliability_inputs::ReliabilityInputs;
use super::reliability_table::{rows, ReliabilityTable};
use crate::charts::draw;
use crate::charts::series::reliability_series;
use crate::components::diagnostic_list::DiagnosticList;
use crate::components::editor::lens::active;
use crate::components::results::chart_frame::ChartFrame;
use crate::i18n::ops::{t, K};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::checkpoint::{checkpoint, failure_sweep};
use planner_core::plan::Workload;

/// Inputs, table, chart and notes.
#[component]
pub fn ReliabilityView(
    /// CSS height of the chart in pixels.
    #[prop(default = 340)]
    height: u32,
) -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    // The training plan being edited (none when it serves) and the settings.
    let input = Memo::new(move |_| {
        state.ws.with(|w| {
            let plan = active(w)
                .filter(|p| matches!(p.workload, Workload::Training(_)))
                .cloned();
            (plan, w.reliability)
        })
    });
    let report = Memo::new(move |_| input.with(|(p, s)| p.as_ref().map(|p| checkpoint(p, s))));
    let series = Memo::new(move |_| {
        let points =
            input.with(|(p, s)| p.as_ref().map(|p| failure_sweep(p, s)).unwrap_or_default());
        report.with(|c| reliability_series(c.as_ref(), points))
    });
    let table = Signal::derive(move || {
        report.with(|c| c.as_ref().map(|c| rows(c, lang())).unwrap_or_default())
    });
    let diagnostics = Signal::derive(move || {
        report.with(|c| {
            c.as_ref()
                .map(|c| c.diagnostics.clone())
                .unwrap_or_default()
        })
    });
    view! {
        <div class="ops" data-testid="reliability-view">
            <Show
                when={move || report.with(Option::is_some)}
                fallback={move || view! { <p class="note" data-testid="reliability-note">{move || t(lang(), K::TrainingOnly)}</p> }}
            >
                <p class="note">{move || t(lang(), K::ReliabilityTitle)}</p>
                <ReliabilityInputs report={report} />
                <ReliabilityTable rows={table} />
                <ChartFrame name="reliability" title={K::ReliabilityChart} series={series} draw={draw::reliability::draw} height={height} />
                <Show when={move || diagnostics.with(|d| !d.is_empty())}>
                    <DiagnosticList testid="reliability-diagnostics" item_testid="ops-diagnostic" class="diag-list" items={diagnostics} empty={Signal::derive(move || t(lang(), K::NoNotes).to_string())} />
                </Show>
            </Show>
        </div>
    }
}
