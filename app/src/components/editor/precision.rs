//! Number formats of weights, GEMMs and the KV cache, and the optimizer.

use super::bind::pick;
use crate::i18n::editor::{t, K};
use crate::state::use_state;
use leptos::prelude::*;

/// Precision and optimizer levers.
#[component]
pub fn PrecisionLevers() -> impl IntoView {
    let state = use_state();
    view! {
        <details class="lever-set" open data-testid="levers-precision">
            <summary>{move || t(state.lang(), K::Precision)}</summary>
            {pick(K::WeightsPrecision, "lever-weights-precision", |p| p.levers.precision.weights, |p, v| p.levers.precision.weights = v)}
            {pick(K::ComputePrecision, "lever-compute-precision", |p| p.levers.precision.compute, |p, v| p.levers.precision.compute = v)}
            {pick(K::KvPrecision, "lever-kv-precision", |p| p.levers.precision.kv_cache, |p, v| p.levers.precision.kv_cache = v)}
            {pick(K::Optimizer, "lever-optimizer", |p| p.levers.optimizer, |p, v| p.levers.optimizer = v)}
        </details>
    }
}
