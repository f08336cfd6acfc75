//! Memory of the active plan along one axis, against several GPUs' HBM.
//! The sweep runs only while this view is shown, and again only when the
//! active plan or the sweep settings change.

use super::chart_frame::ChartFrame;
use crate::charts::draw;
use crate::charts::draw::sweep::axis_name;
use crate::i18n::results::{t, K};
use crate::state::use_state;
use crate::url::History;
use leptos::prelude::*;
use planner_core::sweep::{sweep, SweepResult};
use planner_core::workspace::SweepAxis;

const AXES: [(SweepAxis, &str); 3] = [
    (SweepAxis::SequenceLength, "sequence_length"),
    (SweepAxis::Batch, "batch"),
    (SweepAxis::ModelSize, "model_size"),
];

/// The sweep chart and its axis selector.
#[component]
pub fn SweepView(
    /// CSS height of the chart in pixels.
    #[prop(default = 340)]
    height: u32,
) -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let input = Memo::new(move |_| {
        state
            .ws
            .with(|w| (w.plans.get(w.active).cloned(), w.sweep.clone()))
    });
    let result = Memo::new(move |_| {
        input.with(|(plan, settings)| match plan {
            Some(p) => sweep(p, settings.axis, &settings.walls),
            None => SweepResult {
                axis: settings.axis,
                points: Vec::new(),
                walls: Vec::new(),
            },
        })
    });
    let axis = move || state.ws.with(|w| w.sweep.axis);
    let pick = move |ev| {
        let v = event_target_value(&ev);
        if let Some(&(a, _)) = AXES.iter().find(|(_, key)| *key == v) {
            state.update(History::Replace, |w| w.sweep.axis = a);
        }
    };
    view! {
        <label class="sweep-axis">
            {move || t(lang(), K::SweepAxis)}
            <select data-testid="sweep-axis" on:change=pick>
                {AXES
                    .iter()
                    .map(|&(a, key)| {
                        view! {
                            <option value=key selected=move || axis() == a>
                                {move || axis_name(lang(), a)}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </label>
        <ChartFrame name="sweep" title=K::SweepTitle series=result draw=draw::sweep::draw height=height />
    }
}
