//! The wall's models as a table: when each was published, its size, the
//! memory it needs on one GPU under the active plan, and the fewest GPUs of
//! the plan's kind that hold it.

use super::ops_table::OpsTable;
use crate::charts::draw::wall::{fewest, month};
use crate::i18n::ops::K;
use crate::numfmt::{gb, si};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::wall::WallSeries;

const COLUMNS: [K; 5] = [
    K::Model,
    K::Published,
    K::ParamsCol,
    K::OneGpu,
    K::FewestGpus,
];

/// The table.
#[component]
pub fn WallTable(
    /// The wall's data.
    series: Memo<WallSeries>,
) -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    view! {
        <OpsTable testid="wall-table" columns={&COLUMNS}>
            {move || {
                let lang = lang();
                series.with(|s| {
                    s.models
                        .iter()
                        .map(|m| view! {
                            <tr data-testid="wall-row">
                                <td>{m.name.clone()}</td>
                                <td>{month(m.date)}</td>
                                <td>{si(m.published_params)}</td>
                                <td>{gb(m.one_gpu)}</td>
                                <td>{fewest(m, &s.gpu, lang)}</td>
                            </tr>
                        })
                        .collect_view()
                })
            }}
        </OpsTable>
    }
}
