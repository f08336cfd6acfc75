//! The scenario menu: load a built-in workspace (the default plan or one of
//! the three situations of the brief) in place of the current one. The
//! old workspace stays one step back in the browser's history.

use super::select::Select;
use crate::i18n::editor::{t, K};
use crate::i18n::Lang;
use crate::presets::Preset;
use crate::state::use_state;
use crate::url::History;
use leptos::prelude::*;

/// The label of a preset.
fn name(p: Preset) -> K {
    match p {
        Preset::Default => K::PresetDefault,
        Preset::Example => K::PresetExample,
        Preset::Budget => K::PresetBudget,
        Preset::Serving => K::PresetServing,
        Preset::MultiTenant => K::PresetMultiTenant,
        Preset::China => K::PresetChina,
    }
}

/// What a preset shows, in one sentence.
fn about(p: Preset) -> K {
    match p {
        Preset::Default => K::AboutDefault,
        Preset::Example => K::AboutExample,
        Preset::Budget => K::AboutBudget,
        Preset::Serving => K::AboutServing,
        Preset::MultiTenant => K::AboutMultiTenant,
        Preset::China => K::AboutChina,
    }
}

/// Preset menu and the loaded preset's description.
#[component]
pub fn ScenarioPanel() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    // The preset the workspace still is, if it is one unchanged (its plan
    // names in either language, since the language may have been switched
    // after loading it).
    let current = Memo::new(move |_| {
        state.ws.with(|w| {
            Preset::ALL.into_iter().find(|p| {
                [Lang::En, Lang::Zh]
                    .into_iter()
                    .any(|l| p.workspace(l).plans == w.plans)
            })
        })
    });
    let options = Signal::derive(move || {
        let mut o = vec![(String::new(), t(lang(), K::EditedWorkspace).to_string())];
        o.extend(Preset::ALL.map(|p| (p.key().to_string(), t(lang(), name(p)).to_string())));
        o
    });
    let load = Callback::new(move |key: String| {
        if let Some(p) = Preset::from_key(&key) {
            state.update(History::Push, |w| {
                let preset = p.workspace(w.lang);
                w.plans = preset.plans;
                // The job choices belong to the plans they sit beside.
                w.tenants = preset.tenants;
                w.active = 0;
                // The first screen's scenario opens on its comparison.
                if p == Preset::Default {
                    w.view = preset.view;
                }
            });
        }
    });
    view! {
        <section class="editor-block scenario" data-testid="scenario">
            <Select
                label={Signal::derive(move || t(lang(), K::Scenario).to_string())}
                testid="preset-select"
                options={options}
                value={Signal::derive(move || current.get().map(|p| p.key().to_string()).unwrap_or_default())}
                on_pick={load}
            />
            <p class="hint" data-testid="preset-about">
                {move || current.get().map(|p| t(lang(), about(p))).unwrap_or_else(|| t(lang(), K::AboutEdited))}
            </p>
        </section>
    }
}
