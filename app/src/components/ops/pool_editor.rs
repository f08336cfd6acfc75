//! The pool the tenants share: its GPU kind (MIG-capable kinds are marked,
//! from the core's MIG catalog), how many GPUs, and how jobs share one.

use crate::components::editor::bind::{choice, number};
use crate::components::editor::hardware::{id_key, id_of_key};
use crate::components::editor::lens::{use_workspace, Lens};
use crate::components::editor::parse::COUNT;
use crate::i18n::ops::{mode, t, K};
use crate::i18n::Lang;
use leptos::prelude::*;
use planner_core::catalog::{mig_profiles, GPUS};
use planner_core::tenants::ShareMode;

const MODES: [ShareMode; 3] = [ShareMode::Mig, ShareMode::MemoryCap, ShareMode::Exclusive];

/// Every catalog GPU, the MIG-capable ones marked.
pub fn gpu_options(lang: Lang) -> Vec<(String, String)> {
    GPUS.iter()
        .map(|e| {
            let mig = match mig_profiles(e.id) {
                Some(_) => format!(" · {}", t(lang, K::HasMig)),
                None => String::new(),
            };
            let label = format!("{} · {:.0} GB{mig}", e.name, e.spec.capacity.as_gb());
            (id_key(e.id), label)
        })
        .collect()
}

fn mode_options(lang: Lang) -> Vec<(String, String)> {
    MODES
        .iter()
        .map(|&m| (id_key(m), mode(lang, m).to_string()))
        .collect()
}

/// The pool editor.
#[component]
pub fn PoolEditor() -> impl IntoView {
    let ws = use_workspace();
    view! {
        <fieldset class="ops-box" data-testid="tenants-pool">
            <legend>{move || t(ws.lang(), K::Pool)}</legend>
            {choice(ws, K::PoolGpu, "tenants-gpu", gpu_options,
                |w| id_key(w.tenants.gpu),
                |w, key| if let Some(id) = id_of_key(key) { w.tenants.gpu = id })}
            {number(ws, K::PoolSize, "tenants-pool-size", COUNT,
                |w| w.tenants.gpus, |w, v| w.tenants.gpus = v)}
            {choice(ws, K::ShareModeLabel, "tenants-mode", mode_options,
                |w| id_key(w.tenants.mode),
                |w, key| if let Some(m) = id_of_key(key) { w.tenants.mode = m })}
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::catalog::GpuId;

    #[test]
    fn mig_gpus_are_marked_and_modes_round_trip() {
        let o = gpu_options(Lang::En);
        let h100 = o
            .iter()
            .find(|(k, _)| id_of_key::<GpuId>(k) == Some(GpuId::H100Sxm));
        assert!(h100.is_some_and(|(_, l)| l.ends_with("MIG")));
        assert!(o.iter().any(|(_, l)| !l.contains("MIG")));
        for (k, _) in mode_options(Lang::Zh) {
            assert!(id_of_key::<ShareMode>(&k).is_some(), "{k}");
        }
    }
}
