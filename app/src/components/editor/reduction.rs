//! A smaller model: pruning (2:4 sparsity or a pruned shape) and
//! distillation into a catalog model.

use super::bind::{choice, hint, number, number_with_hint, pick};
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
            use_plan(),
            K::$label,
            $id,
            OPT_COUNT,
            |p| shape(p).$field,
            |p, v| {
                if let Some(s) = shape_mut(p) {
                    s.$field = v;
                }
            },
            hint(use_plan(), K::Keep),
        )
    };
}

fn students(p: &Plan, lang: Lang) -> Vec<(String, String)> {
    let mut o = vec![(String::new(), t(lang, K::NoDistillation).to_string())];
    o.extend(catalog_options());
    // A custom student (from a link) keeps an entry of its own.
    if let Some(Distillation {
        student: ModelChoice::Custom(c),
        ..
    }) = &p.distillation
    {
        o.push((
            "custom".into(),
            format!("{} {}", t(lang, K::CustomEntry), c.name),
        ));
    }
    o
}

fn student_key(p: &Plan) -> String {
    match &p.distillation {
        Some(Distillation {
            student: ModelChoice::Preset(id),
            ..
        }) => model_key(*id),
        Some(Distillation {
            student: ModelChoice::Custom(_),
            ..
        }) => "custom".into(),
        None => String::new(),
    }
}

fn set_student(p: &mut Plan, key: &str) {
    if key == "custom" {
        return;
    }
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
            {pick(lens, K::Pruning, "lever-pruning", |p| p.levers.pruning, |p, v| p.levers.pruning = v)}
            <Show when={move || shaped.get()}>
                <div class="grid3">
                    {kept!(Layers, "prune-layers", layers)}
                    {kept!(Hidden, "prune-hidden", hidden)}
                    {kept!(Heads, "prune-heads", heads)}
                    {kept!(KvHeads, "prune-kv-heads", kv_heads)}
                    {kept!(Ffn, "prune-ffn", ffn)}
                </div>
            </Show>
            {choice(lens, K::Student, "lever-student", move |lang| lens.get(|p| students(p, lang)), student_key, set_student)}
            <Show when={move || distilled.get()}>
                {number(lens, K::DistillTokens, "lever-distill-tokens", NUMBER,
                    |p| p.distillation.as_ref().map_or(0.0, |d| d.tokens),
                    |p, v| if let Some(d) = &mut p.distillation { d.tokens = v })}
            </Show>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::catalog::ModelId;
    use planner_core::example_plan;

    #[test]
    fn students_are_picked_kept_and_dropped() {
        let mut p = example_plan();
        set_student(&mut p, &model_key(ModelId::Llama31_8b));
        assert_eq!(student_key(&p), model_key(ModelId::Llama31_8b));
        assert_eq!(
            p.distillation.as_ref().map(|d| d.tokens),
            Some(default_distillation_tokens())
        );
        // A custom student from a link is listed and survives re-picking it.
        let custom = planner_core::plan::CustomModel {
            shipped: None,
            name: "mine".into(),
            spec: p.model.spec(),
        };
        p.distillation = Some(Distillation {
            student: ModelChoice::Custom(custom),
            tokens: 1e9,
        });
        assert_eq!(student_key(&p), "custom");
        assert!(students(&p, Lang::En)
            .iter()
            .any(|(k, l)| k == "custom" && l.ends_with("mine")));
        set_student(&mut p, "custom");
        assert_eq!(student_key(&p), "custom");
        set_student(&mut p, "");
        assert_eq!(p.distillation, None);
    }
}
