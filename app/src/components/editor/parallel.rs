//! Parallel degrees, sequence parallelism, the pipeline schedule and the
//! micro-batch. Any combination may be typed; the core says which do not
//! divide. A change of TP, PP or CP moves DP with it when the GPU count
//! allows (`Plan::refit_data_parallel`).

use super::bind::{number, pick, toggle};
use super::lens::use_plan;
use super::parse::COUNT;
use crate::i18n::editor::{t, K};
use leptos::prelude::*;
use planner_core::plan::{PipelineSchedule, SequenceParallel};

/// A degree's number box. The model-parallel ones (TP, PP, CP) move DP
/// with them so the degrees keep using every GPU
/// (`Plan::refit_data_parallel`).
macro_rules! degree {
    ($label:ident, $id:literal, $field:ident) => {
        degree!($label, $id, $field, |_p: &mut planner_core::plan::Plan| {})
    };
    ($label:ident, $id:literal, $field:ident, refit) => {
        degree!($label, $id, $field, |p: &mut planner_core::plan::Plan| {
            p.refit_data_parallel();
        })
    };
    ($label:ident, $id:literal, $field:ident, $then:expr) => {
        number(
            use_plan(),
            K::$label,
            $id,
            COUNT,
            |p| p.levers.parallel.$field,
            |p, v| {
                p.levers.parallel.$field = v;
                ($then)(p);
            },
        )
    };
}

/// Parallelism levers.
#[component]
pub fn ParallelLevers() -> impl IntoView {
    let lens = use_plan();
    let interleaved = Memo::new(move |_| {
        lens.get(|p| {
            matches!(
                p.levers.parallel.schedule,
                PipelineSchedule::Interleaved { .. }
            )
        })
    });
    view! {
        <details class="lever-set" open data-testid="levers-parallel">
            <summary>{move || t(lens.lang(), K::Parallelism)}</summary>
            <div class="grid3">
                {degree!(Tp, "lever-tp", tp, refit)}
                {degree!(Pp, "lever-pp", pp, refit)}
                {degree!(Dp, "lever-dp", dp)}
                {degree!(Cp, "lever-cp", cp, refit)}
                {degree!(Ep, "lever-ep", ep)}
                {degree!(MicroBatch, "lever-micro-batch", micro_batch)}
            </div>
            {toggle(lens, K::SequenceParallel, "lever-sp",
                |p| p.levers.parallel.sequence_parallel == SequenceParallel::On,
                |p, on| p.levers.parallel.sequence_parallel = if on { SequenceParallel::On } else { SequenceParallel::Off })}
            {pick(lens, K::Schedule, "lever-schedule", |p| p.levers.parallel.schedule, |p, v| p.levers.parallel.schedule = v)}
            <Show when={move || interleaved.get()}>
                {number(lens, K::Chunks, "lever-chunks", COUNT,
                    |p| match p.levers.parallel.schedule { PipelineSchedule::Interleaved { chunks } => chunks, _ => 0 },
                    |p, v| if let PipelineSchedule::Interleaved { chunks } = &mut p.levers.parallel.schedule { *chunks = v })}
            </Show>
        </details>
    }
}
