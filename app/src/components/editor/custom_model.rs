//! The shape of a custom model: the dimensions that decide its memory.
//! Only shown when the plan's model is custom.

use super::bind::number;
use super::lens::use_plan;
use super::parse::COUNT;
use crate::i18n::editor::{t, K};
use crate::numfmt::params_label;
use crate::url::History;
use leptos::prelude::*;
use planner_core::model::{ModelSpec, MoeSpec};
use planner_core::plan::{ModelChoice, Plan};

fn spec(p: &Plan) -> Option<&ModelSpec> {
    match &p.model {
        ModelChoice::Custom(c) => Some(&c.spec),
        ModelChoice::Preset(_) => None,
    }
}

fn spec_mut(p: &mut Plan) -> Option<&mut ModelSpec> {
    match &mut p.model {
        ModelChoice::Custom(c) => Some(&mut c.spec),
        ModelChoice::Preset(_) => None,
    }
}

/// Sets the routed experts; 0 makes the model dense. A model that becomes
/// MoE starts with top-2 routing over experts of the dense FFN's width
/// (Mixtral's shape), which the user then edits.
pub fn set_experts(s: &mut ModelSpec, experts: u32) {
    match (&mut s.moe, experts) {
        (_, 0) => s.moe = None,
        (Some(m), n) => m.experts = n,
        (None, n) => {
            s.moe = Some(MoeSpec {
                experts: n,
                top_k: 2,
                expert_ffn: s.ffn,
                shared_ffn: 0,
                dense_layers: 0,
            })
        }
    }
}

macro_rules! dim {
    ($label:ident, $id:literal, $field:ident) => {
        number(
            use_plan(),
            K::$label,
            $id,
            COUNT,
            |p| spec(p).map_or(0, |s| s.$field),
            |p, v| {
                if let Some(s) = spec_mut(p) {
                    s.$field = v;
                }
            },
        )
    };
}

/// Name and dimensions of the custom model.
#[component]
pub fn CustomModel() -> impl IntoView {
    let lens = use_plan();
    let lang = move || lens.lang();
    let moe = Memo::new(move |_| lens.get(|p| spec(p).is_some_and(|s| s.moe.is_some())));
    view! {
        <div class="custom-model" data-testid="custom-model">
            <label class="field">
                <span class="field-label">{move || t(lang(), K::ModelName)}</span>
                <input
                    type="text"
                    data-testid="custom-name"
                    maxlength="200"
                    prop:value={move || lens.get(|p| match &p.model { ModelChoice::Custom(c) => c.name.clone(), _ => String::new() })}
                    on:input={move |ev| {
                        let name = event_target_value(&ev);
                        lens.set(History::Replace, |p| {
                            if let ModelChoice::Custom(c) = &mut p.model {
                                c.name = name;
                            }
                        });
                    }}
                />
            </label>
            <div class="grid3">
                {dim!(Layers, "custom-layers", layers)}
                {dim!(Hidden, "custom-hidden", hidden)}
                {dim!(Heads, "custom-heads", heads)}
                {dim!(KvHeads, "custom-kv-heads", kv_heads)}
                {dim!(HeadDim, "custom-head-dim", head_dim)}
                {dim!(Ffn, "custom-ffn", ffn)}
                {dim!(Vocab, "custom-vocab", vocab)}
                {number(
                    lens,
                    K::Experts,
                    "custom-experts",
                    COUNT,
                    |p| spec(p).and_then(|s| s.moe).map_or(0, |m| m.experts),
                    |p, v| {
                        if let Some(s) = spec_mut(p) {
                            set_experts(s, v);
                        }
                    },
                )}
                <Show when={move || moe.get()}>
                    {number(
                        lens,
                        K::TopK,
                        "custom-top-k",
                        COUNT,
                        |p| spec(p).and_then(|s| s.moe).map_or(0, |m| m.top_k),
                        |p, v| {
                            if let Some(m) = spec_mut(p).and_then(|s| s.moe.as_mut()) {
                                m.top_k = v;
                            }
                        },
                    )}
                </Show>
            </div>
            <p class="hint" data-testid="custom-params">
                {move || t(lang(), K::Parameters)} " "
                {move || lens.get(|p| spec(p).map(|s| params_label(s.params().total())).unwrap_or_default())}
            </p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::catalog::{model, ModelId};

    #[test]
    fn experts_switch_moe_on_and_off() {
        let mut s = model(ModelId::Llama2_7b).spec;
        set_experts(&mut s, 8);
        assert_eq!(
            s.moe.map(|m| (m.experts, m.top_k, m.expert_ffn)),
            Some((8, 2, s.ffn))
        );
        set_experts(&mut s, 16);
        assert_eq!(s.moe.map(|m| m.experts), Some(16));
        set_experts(&mut s, 0);
        assert_eq!(s.moe, None);
    }
}
