//! The GPUs: which kind, how many, how they are grouped in nodes and
//! NVLink domains, and the network between nodes.

use super::bind::{choice, count_slider, hint, number, number_with_hint};
use super::lens::use_plan;
use super::parse::{Scale, COUNT};
use crate::i18n::editor::{t, K};
use crate::i18n::Lang;
use leptos::prelude::*;
use planner_core::catalog::{GPUS, LINKS};
use planner_core::hardware::GpuChoice;
use planner_core::plan::Plan;

/// The catalog key of any catalog id (its name in plans and links).
pub fn id_key<T: serde::Serialize>(id: T) -> String {
    serde_json::to_value(id)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The catalog id of a key.
pub fn id_of_key<T: serde::de::DeserializeOwned>(key: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(key.to_string())).ok()
}

fn gpu_options(p: &Plan, lang: Lang) -> Vec<(String, String)> {
    let mut o: Vec<(String, String)> = GPUS
        .iter()
        .map(|e| {
            (
                id_key(e.id),
                format!("{} · {:.0} GB", e.name, e.spec.capacity.as_gb()),
            )
        })
        .collect();
    if let GpuChoice::Custom(c) = &p.hardware.gpu {
        o.push((
            "custom".into(),
            format!("{} {}", t(lang, K::CustomEntry), c.name),
        ));
    }
    o
}

fn gpu_key(p: &Plan) -> String {
    match &p.hardware.gpu {
        GpuChoice::Preset(id) => id_key(*id),
        GpuChoice::Custom(_) => "custom".into(),
    }
}

fn scale_out_options(lang: Lang) -> Vec<(String, String)> {
    let mut o = vec![(String::new(), t(lang, K::ScaleOutAuto).to_string())];
    o.extend(
        LINKS
            .iter()
            // The role's type is not exported by the catalog; its
            // serialised name is stable.
            .filter(|l| id_key(l.role) == "scale_out")
            .map(|l| (id_key(l.id), l.name.to_string())),
    );
    o
}

/// GPU levers.
#[component]
pub fn HardwareLevers() -> impl IntoView {
    let lens = use_plan();
    // The menu lists the plan's own custom GPU, so it depends on the plan.
    let options = move |lang| lens.get(|p| gpu_options(p, lang));
    // An empty power-limit box runs the GPU at its rated TDP.
    let tdp_hint = Signal::derive(move || {
        Some(lens.get(|p| format!("TDP {:.0}", p.hardware.gpu.spec().tdp.as_watts())))
    });
    view! {
        <details class="lever-set" open data-testid="levers-hardware">
            <summary>{move || t(lens.lang(), K::Gpus)}</summary>
            {choice(lens, K::Gpu, "hw-gpu", options, gpu_key, |p, key| {
                if let Some(id) = id_of_key(key) {
                    p.hardware.gpu = GpuChoice::Preset(id);
                }
            })}
            {count_slider(lens, K::GpuCount, "hw-gpus", Scale::Log2 { min: 0, max: 15 },
                |p| p.hardware.gpus, |p, v| { p.hardware.gpus = v; p.refit_data_parallel(); })}
            <div class="grid2">
                {number(lens, K::GpusPerNode, "hw-gpus-per-node", COUNT, |p| p.hardware.gpus_per_node, |p, v| p.hardware.gpus_per_node = v)}
                {number_with_hint(lens, K::ScaleUpDomain, "hw-scale-up", super::parse::OPT_COUNT,
                    |p| Some(p.hardware.scale_up_domain).filter(|d| *d != 0),
                    |p, v| p.hardware.scale_up_domain = v.unwrap_or(0), hint(lens, K::OneNode))}
            </div>
            {number_with_hint(lens, K::PowerLimit, "hw-power-limit", super::parse::OPT_WATTS,
                |p| p.hardware.power_limit, |p, v| p.hardware.power_limit = v, tdp_hint)}
            {choice(lens, K::ScaleOut, "hw-scale-out", scale_out_options,
                |p| p.hardware.scale_out.map(id_key).unwrap_or_default(),
                |p, key| p.hardware.scale_out = id_of_key(key))}
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::catalog::{CxlId, GpuId, LinkId};

    #[test]
    fn catalog_keys_round_trip() {
        for id in GpuId::ALL {
            assert_eq!(id_of_key::<GpuId>(&id_key(*id)), Some(*id));
        }
        for id in LinkId::ALL {
            assert_eq!(id_of_key::<LinkId>(&id_key(*id)), Some(*id));
        }
        for id in CxlId::ALL {
            assert_eq!(id_of_key::<CxlId>(&id_key(*id)), Some(*id));
        }
        assert_eq!(id_of_key::<GpuId>(""), None);
        assert_eq!(id_of_key::<GpuId>("custom"), None);
    }

    #[test]
    fn scale_out_menu_has_auto_and_fabrics_only() {
        let o = scale_out_options(Lang::En);
        assert_eq!(o[0].0, "");
        assert!(o
            .iter()
            .skip(1)
            .all(|(k, _)| id_of_key::<LinkId>(k).is_some()));
        assert!(!o.iter().any(|(k, _)| k == "nvlink4"));
    }
}
