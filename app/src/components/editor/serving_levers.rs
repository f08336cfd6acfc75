//! Serving memory: the KV cache layout, chunked prefill, and a cap on the
//! share of GPU memory the process may use (how a shared GPU is split).

use super::bind::{fraction_slider, hint, number, number_with_hint, pick, toggle};
use super::lens::use_plan;
use super::parse::{COUNT, OPT_COUNT};
use crate::i18n::editor::{t, K};
use leptos::prelude::*;
use planner_core::plan::KvCacheLayout;

/// The cap a newly ticked box starts at: vLLM's default
/// `gpu_memory_utilization` of 0.9.
pub const DEFAULT_CAP: f64 = 0.9;

/// Serving levers.
#[component]
pub fn ServingLevers() -> impl IntoView {
    let lens = use_plan();
    let paged =
        Memo::new(move |_| lens.get(|p| matches!(p.levers.kv_cache, KvCacheLayout::Paged { .. })));
    let capped = Memo::new(move |_| lens.get(|p| p.levers.memory_cap.is_some()));
    view! {
        <details class="lever-set" open data-testid="levers-serving">
            <summary>{move || t(lens.lang(), K::Serving)}</summary>
            {pick(lens, K::KvLayout, "lever-kv-layout", |p| p.levers.kv_cache, |p, v| p.levers.kv_cache = v)}
            <Show
                when={move || paged.get()}
                fallback={move || number(lens, K::ReserveTokens, "lever-kv-reserve", COUNT,
                    |p| match p.levers.kv_cache { KvCacheLayout::Contiguous { reserve_tokens } => reserve_tokens, _ => 0 },
                    |p, v| if let KvCacheLayout::Contiguous { reserve_tokens } = &mut p.levers.kv_cache { *reserve_tokens = v })}
            >
                {number(lens, K::BlockTokens, "lever-kv-block", COUNT,
                    |p| match p.levers.kv_cache { KvCacheLayout::Paged { block_tokens } => block_tokens, _ => 0 },
                    |p, v| if let KvCacheLayout::Paged { block_tokens } = &mut p.levers.kv_cache { *block_tokens = v })}
            </Show>
            {number_with_hint(lens, K::PrefillChunk, "lever-prefill-chunk", OPT_COUNT,
                |p| p.levers.prefill_chunk, |p, v| p.levers.prefill_chunk = v, hint(lens, K::WholeBatch))}
            {toggle(lens, K::MemoryCapOn, "lever-memory-cap-on", |p| p.levers.memory_cap.is_some(),
                |p, on| p.levers.memory_cap = on.then_some(p.levers.memory_cap.unwrap_or(DEFAULT_CAP)))}
            <Show when={move || capped.get()}>
                {fraction_slider(lens, K::MemoryCap, "lever-memory-cap",
                    |p| p.levers.memory_cap.unwrap_or(1.0),
                    |p, v| p.levers.memory_cap = Some(v))}
            </Show>
        </details>
    }
}
