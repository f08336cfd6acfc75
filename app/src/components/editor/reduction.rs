//! A smaller model: pruning (2:4 sparsity or a pruned shape) and
//! distillation into a catalog model.

use super::bind::{choice, number, number_with_hint, pick};
use super::lens::use_plan;
use super::model_picker::{catalog_options, model_key, model_of_key};
use super::parse::{NUMBER, OPT_COUNT};
use crate::i18n::editor::{t, K};
use crate::i18n::Lang;
use leptos::prelude::*;
use planner_core::plan::{
    default_distillation_tokens, Distillation, ModelChoice, Plan, PrunedShape, Pruning,
};

fn shape(p: &Plan) -> PrunedShape {
    match p.levers.pruning {
        Pruning::Shape(s) => s,
        _ => PrunedShape::default(),
    }
}

fn shape_mut(p: &mut Plan) -> Option<&mut PrunedShape> {
    match &mut p.levers.pruning {
        Pruning::Shape(s) => Some(s),
        _ => None,
    }
}

macro_rules! kept {
    ($label:ident, $id:literal, $field:ident) => {
        number_with_hint(
            K::$label,
            $id,
            OPT_COUNT,
            |p| shape(p).$field,
            |p, v| {
                if let Some(s) = shape_mut(p) {
                    s.$field = v;
                }
            },
            Some(K::Keep),
        )
    };
}

fn students(lang: Lang) -> Vec<(String, String)> {
    let mut o = vec![(String::new(), t(lang, K::NoDistillation).to_string())];
    o.extend(catalog_options());
    o
}

fn student_key(p: &Plan) -> String {
    match &p.distillation {
        Some(Distillation {
            student: ModelChoice::Preset(id),
            ..
        }) => model_key(*id),
        // A custom student from a link has no menu entry; it shows as "none"
        // until another is picked.
        _ => String::new(),
    }
}

fn set_student(p: &mut Plan, key: &str) {
    p.distillation = model_of_key(key).map(|id| Distillation {
        student: ModelChoice::Preset(id),
        tokens: p
            .distillation
            .as_ref()
            .map_or_else(default_distillation_tokens, |d| d.tokens),
    });
}

/// Pruning and distillation levers.
#[component]
pub fn ReductionLevers() -> impl IntoView {
    let lens = use_plan();
    let shaped = Memo::new(move |_| lens.get(|p| matches!(p.levers.pruning, Pruning::Shape(_))));
    let distilled = Memo::new(move |_| lens.get(|p| p.distillation.is_some()));
    view! {
        <details class="lever-set" open data-testid="levers-reduction">
            <summary>{move || t(lens.lang(), K::Reduction)}</summary>
            {pick(K::Pruning, "lever-pruning", |p| p.levers.pruning, |p, v| p.levers.pruning = v)}
            <Show when={move || shaped.get()}>
                <div class="grid3">
                    {kept!(Layers, "prune-layers", layers)}
                    {kept!(Hidden, "prune-hidden", hidden)}
                    {kept!(Heads, "prune-heads", heads)}
                    {kept!(KvHeads, "prune-kv-heads", kv_heads)}
                    {kept!(Ffn, "prune-ffn", ffn)}
                </div>
            </Show>
            {choice(K::Student, "lever-student", students, student_key, set_student)}
            <Show when={move || distilled.get()}>
                {number(K::DistillTokens, "lever-distill-tokens", NUMBER,
                    |p| p.distillation.as_ref().map_or(0.0, |d| d.tokens),
                    |p, v| if let Some(d) = &mut p.distillation { d.tokens = v })}
            </Show>
        </details>
    }
}
