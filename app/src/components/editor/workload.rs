//! What the plan runs: pre-training, full fine-tuning, LoRA, QLoRA, or
//! serving, with its lengths and batch.

use super::bind::{count_slider, number, pick};
use super::lens::use_plan;
use super::parse::{Scale, COUNT, NUMBER};
use crate::i18n::editor::{t, K};
use leptos::prelude::*;
use planner_core::plan::{Inference, LoraSpec, Plan, Training, TrainingKind, Workload};

fn training(p: &Plan) -> Option<&Training> {
    match &p.workload {
        Workload::Training(t) => Some(t),
        Workload::Inference(_) => None,
    }
}

fn training_mut(p: &mut Plan) -> Option<&mut Training> {
    match &mut p.workload {
        Workload::Training(t) => Some(t),
        Workload::Inference(_) => None,
    }
}

fn inference(p: &Plan) -> Option<&Inference> {
    match &p.workload {
        Workload::Inference(i) => Some(i),
        Workload::Training(_) => None,
    }
}

fn inference_mut(p: &mut Plan) -> Option<&mut Inference> {
    match &mut p.workload {
        Workload::Inference(i) => Some(i),
        Workload::Training(_) => None,
    }
}

fn lora(p: &Plan) -> Option<LoraSpec> {
    match training(p)?.kind {
        TrainingKind::Lora(l) | TrainingKind::Qlora(l) => Some(l),
        _ => None,
    }
}

fn lora_mut(p: &mut Plan) -> Option<&mut LoraSpec> {
    match &mut training_mut(p)?.kind {
        TrainingKind::Lora(l) | TrainingKind::Qlora(l) => Some(l),
        _ => None,
    }
}

/// Lengths from 128 to 1 M tokens.
const TOKENS: Scale = Scale::Log2 { min: 7, max: 20 };
/// Batches from 1 to 16 384.
const BATCH: Scale = Scale::Log2 { min: 0, max: 14 };

/// Training fields.
#[component]
fn TrainingFields() -> impl IntoView {
    let lens = use_plan();
    let is_lora = Memo::new(move |_| lens.get(|p| lora(p).is_some()));
    view! {
        {count_slider(lens, K::SeqLen, "seq-len", TOKENS, |p| training(p).map_or(0, |t| t.seq_len), |p, v| {
            if let Some(t) = training_mut(p) {
                t.seq_len = v;
            }
        })}
        {count_slider(lens, K::GlobalBatch, "global-batch", BATCH, |p| training(p).map_or(0, |t| t.global_batch), |p, v| {
            if let Some(t) = training_mut(p) {
                t.global_batch = v;
            }
        })}
        {number(lens, K::Tokens, "tokens", NUMBER, |p| training(p).map_or(0.0, |t| t.tokens), |p, v| {
            if let Some(t) = training_mut(p) {
                t.tokens = v;
            }
        })}
        <Show when={move || is_lora.get()}>
            <div class="grid2">
                {number(lens, K::LoraRank, "lora-rank", COUNT, |p| lora(p).map_or(0, |l| l.rank), |p, v| {
                    if let Some(l) = lora_mut(p) {
                        l.rank = v;
                    }
                })}
                {pick(lens, K::LoraTargets, "lora-targets", |p| lora(p).map_or(planner_core::plan::LoraTargets::AllLinear, |l| l.targets), |p, v| {
                    if let Some(l) = lora_mut(p) {
                        l.targets = v;
                    }
                })}
            </div>
        </Show>
    }
}

/// Serving fields.
#[component]
fn InferenceFields() -> impl IntoView {
    let lens = use_plan();
    view! {
        {count_slider(lens, K::PromptTokens, "prompt-tokens", TOKENS, |p| inference(p).map_or(0, |i| i.prompt_tokens), |p, v| {
            if let Some(i) = inference_mut(p) {
                i.prompt_tokens = v;
            }
        })}
        {count_slider(lens, K::OutputTokens, "output-tokens", Scale::Log2 { min: 0, max: 17 }, |p| inference(p).map_or(0, |i| i.output_tokens), |p, v| {
            if let Some(i) = inference_mut(p) {
                i.output_tokens = v;
            }
        })}
        {count_slider(lens, K::Batch, "batch", BATCH, |p| inference(p).map_or(0, |i| i.batch), |p, v| {
            if let Some(i) = inference_mut(p) {
                i.batch = v;
            }
        })}
    }
}

/// Workload kind and its fields.
#[component]
pub fn WorkloadEditor() -> impl IntoView {
    let lens = use_plan();
    let is_training = Memo::new(move |_| lens.get(|p| training(p).is_some()));
    view! {
        <section class="editor-block workload" data-testid="workload-editor">
            <h3>{move || t(lens.lang(), K::Workload)}</h3>
            {pick(lens, K::WorkloadKind, "workload-kind", |p| p.workload.clone(), |p, w| p.workload = w)}
            <Show when={move || is_training.get()} fallback={|| view! { <InferenceFields /> }}>
                <TrainingFields />
            </Show>
        </section>
    }
}
