//! Number formats of weights (the routed experts' apart, for an MoE),
//! GEMMs and the KV cache, and the optimizer.

use super::bind::pick;
use super::lens::use_plan;
use crate::i18n::editor::{t, K};
use leptos::prelude::*;

/// Precision and optimizer levers.
#[component]
pub fn PrecisionLevers() -> impl IntoView {
    let lens = use_plan();
    let moe = Memo::new(move |_| lens.get(|p| p.model.spec().moe.is_some()));
    view! {
        <details class="lever-set" open data-testid="levers-precision">
            <summary>{move || t(lens.lang(), K::Precision)}</summary>
            {pick(lens, K::WeightsPrecision, "lever-weights-precision", |p| p.levers.precision.weights, |p, v| p.levers.precision.weights = v)}
            <Show when=move || moe.get()>
                {pick(lens, K::ExpertsPrecision, "lever-experts-precision", |p| p.levers.precision.experts, |p, v| p.levers.precision.experts = v)}
            </Show>
            {pick(lens, K::ComputePrecision, "lever-compute-precision", |p| p.levers.precision.compute, |p, v| p.levers.precision.compute = v)}
            <Show when=move || !lens.trains()>
                {pick(lens, K::KvPrecision, "lever-kv-precision", |p| p.levers.precision.kv_cache, |p, v| p.levers.precision.kv_cache = v)}
            </Show>
            <Show when=move || lens.trains()>
                {pick(lens, K::Optimizer, "lever-optimizer", |p| p.levers.optimizer, |p, v| p.levers.optimizer = v)}
            </Show>
        </details>
    }
}
