//! Activation checkpointing, the attention kernel, ZeRO/FSDP sharding and
//! the training framework that runs them.

use super::bind::{choice, hint, number, number_with_hint, pick};
use super::lens::use_plan;
use super::parse::{COUNT, OPT_COUNT};
use crate::i18n::editor::{t, K};
use leptos::prelude::*;
use planner_core::plan::{AttentionKernel, Checkpointing};
use planner_core::stack::TrainingStack;
use planner_core::{Lang, Named};

/// The framework option that leaves the choice to the planner.
const DEFAULT: &str = "default";

/// The training frameworks, the planner's choice first, by the core's
/// names.
fn frameworks(lang: Lang) -> Vec<(String, String)> {
    std::iter::once((
        DEFAULT.to_string(),
        t(lang, K::FrameworkDefault).to_string(),
    ))
    .chain(
        TrainingStack::ALL
            .iter()
            .map(|s| (s.key().to_string(), s.name(lang).to_string())),
    )
    .collect()
}

/// The attention kernels by the core's names.
fn kernels(lang: Lang) -> Vec<(String, String)> {
    AttentionKernel::ALL
        .iter()
        .map(|k| (k.key().to_string(), k.name(lang).to_string()))
        .collect()
}

/// Recompute and sharding levers.
#[component]
pub fn MemoryLevers() -> impl IntoView {
    let lens = use_plan();
    let ckpt = Memo::new(move |_| lens.get(|p| p.levers.checkpointing));
    view! {
        <details class="lever-set" open data-testid="levers-memory">
            <summary>{move || t(lens.lang(), K::MemorySection)}</summary>
            {choice(lens, K::Attention, "lever-attention", kernels,
                |p| p.levers.attention.key().to_string(),
                |p, key| if let Some(k) = AttentionKernel::ALL.into_iter().find(|k| k.key() == key) { p.levers.attention = k })}
            // Recomputation and sharding act on training states only.
            <Show when=move || lens.trains()>
                {pick(lens, K::Checkpointing, "lever-checkpointing", |p| p.levers.checkpointing, |p, v| p.levers.checkpointing = v)}
                <Show when={move || matches!(ckpt.get(), Checkpointing::Uniform { .. })}>
                    {number(lens, K::CkptGroup, "lever-ckpt-group", COUNT,
                        |p| match p.levers.checkpointing { Checkpointing::Uniform { group } => group, _ => 0 },
                        |p, v| if let Checkpointing::Uniform { group } = &mut p.levers.checkpointing { *group = v })}
                </Show>
                <Show when={move || matches!(ckpt.get(), Checkpointing::Block { .. })}>
                    {number(lens, K::CkptLayers, "lever-ckpt-layers", COUNT,
                        |p| match p.levers.checkpointing { Checkpointing::Block { layers } => layers, _ => 0 },
                        |p, v| if let Checkpointing::Block { layers } = &mut p.levers.checkpointing { *layers = v })}
                </Show>
                {choice(lens, K::TrainingFramework, "lever-training-stack", frameworks,
                    |p| p.levers.training_stack.map_or(DEFAULT.to_string(), |s| s.key().to_string()),
                    |p, key| p.levers.training_stack = TrainingStack::ALL.into_iter().find(|s| s.key() == key))}
                {pick(lens, K::Sharding, "lever-sharding", |p| p.levers.sharding, |p, v| p.levers.sharding = v)}
                {number_with_hint(lens, K::ShardGroup, "lever-shard-group", OPT_COUNT,
                    |p| p.levers.shard_group, |p, v| p.levers.shard_group = v, hint(lens, K::WholeDpGroup))}
            </Show>
        </details>
    }
}
