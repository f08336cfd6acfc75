//! The model of the plan being edited: a catalog entry, or a custom
//! architecture (typed in, or imported from a Hugging Face config.json).

use super::bind::choice;
use super::custom_model::CustomModel;
use super::hf_import::HfImport;
use super::lens::use_plan;
use crate::i18n::editor::{t, K};
use crate::i18n::Lang;
use crate::numfmt::params_label;
use leptos::prelude::*;
use planner_core::catalog::{self, ModelId, MODELS};
use planner_core::plan::{CustomModel as Custom, ModelChoice, Plan};

/// The catalog key of a model id (its name in plans and links).
pub fn model_key(id: ModelId) -> String {
    serde_json::to_value(id)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The model id of a catalog key.
pub fn model_of_key(key: &str) -> Option<ModelId> {
    serde_json::from_value(serde_json::Value::String(key.to_string())).ok()
}

/// Every catalog model as (key, "name · parameters").
pub fn catalog_options() -> Vec<(String, String)> {
    MODELS
        .iter()
        .map(|e| {
            (
                model_key(e.id),
                format!("{} · {}", e.name, params_label(e.spec.params().total())),
            )
        })
        .collect()
}

fn options(lang: Lang) -> Vec<(String, String)> {
    let mut o = catalog_options();
    o.push(("custom".into(), t(lang, K::CustomModel).into()));
    o
}

fn key(p: &Plan) -> String {
    match &p.model {
        ModelChoice::Preset(id) => model_key(*id),
        ModelChoice::Custom(_) => "custom".into(),
    }
}

fn set(p: &mut Plan, key: &str) {
    if let Some(id) = model_of_key(key) {
        p.set_preset_model(id);
    } else if let (true, ModelChoice::Preset(id)) = (key == "custom", &p.model) {
        // Start from the catalog entry, so the user edits from a real shape.
        p.model = ModelChoice::Custom(Custom {
            name: catalog::model(*id).name.to_string(),
            spec: p.model.spec(),
            shipped: p.model.shipped(),
        });
    }
}

/// Model menu, custom editor and config.json import.
#[component]
pub fn ModelPicker() -> impl IntoView {
    let lens = use_plan();
    let custom = Memo::new(move |_| lens.get(|p| matches!(p.model, ModelChoice::Custom(_))));
    view! {
        <section class="editor-block model" data-testid="model-picker">
            <h3>{move || t(lens.lang(), K::Model)}</h3>
            {choice(lens, K::Model, "model-select", options, key, set)}
            <Show when={move || custom.get()}>
                <CustomModel />
            </Show>
            <HfImport />
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_keys_round_trip() {
        for id in ModelId::ALL {
            assert_eq!(model_of_key(&model_key(*id)), Some(*id));
        }
        assert_eq!(model_of_key("custom"), None);
        assert_eq!(catalog_options().len(), MODELS.len());
    }

    #[test]
    fn custom_starts_from_the_catalog_shape() {
        let mut p = planner_core::example_plan();
        set(&mut p, "custom");
        assert_eq!(key(&p), "custom");
        assert_eq!(p.model.spec(), catalog::model(ModelId::Llama2_7b).spec);
        set(&mut p, "no-such-model");
        assert_eq!(key(&p), "custom");
        set(&mut p, &model_key(ModelId::Qwen25_7b));
        assert_eq!(p.model, ModelChoice::Preset(ModelId::Qwen25_7b));
    }
}
