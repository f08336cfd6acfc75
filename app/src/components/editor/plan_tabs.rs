//! The list of plans: pick one to edit, start a new one, duplicate or
//! remove the one being edited.

use crate::i18n::editor::{t, K};
use crate::presets::new_plan;
use crate::state::use_state;
use crate::url::History;
use leptos::prelude::*;
use planner_core::link::MAX_PLANS;

/// Plan tabs and the add/duplicate/remove buttons.
#[component]
pub fn PlanTabs() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let count = move || state.ws.with(|w| w.plans.len());
    let add = move |_| {
        state.update(History::Push, |w| {
            if w.plans.len() < MAX_PLANS {
                let plan = new_plan(w.lang, w.plans.len() + 1);
                w.insert_plan(w.plans.len(), plan);
                w.active = w.plans.len() - 1;
            }
        })
    };
    let duplicate = move |_| {
        state.update(History::Push, |w| {
            if let (true, Some(p)) = (w.plans.len() < MAX_PLANS, w.plans.get(w.active)) {
                let mut p = p.clone();
                p.name = format!("{} ({})", p.name, t(w.lang, K::CopySuffix));
                w.insert_plan(w.active + 1, p);
                w.active += 1;
            }
        })
    };
    let remove = move |_| {
        state.update(History::Push, |w| {
            if w.plans.len() > 1 && w.active < w.plans.len() {
                w.remove_plan(w.active);
                w.active = w.active.min(w.plans.len() - 1);
            }
        })
    };
    view! {
        <div class="plan-tabs" data-testid="plan-list">
            <h2>{move || t(lang(), K::Plans)}</h2>
            <For
                each={move || (0..count()).collect::<Vec<_>>()}
                key={|i| *i}
                children={move |i| {
                    let name = move || state.ws.with(|w| w.plans.get(i).map(|p| p.name.clone()).unwrap_or_default());
                    let active = move || state.ws.with(|w| w.active == i);
                    view! {
                        <button
                            class="tab"
                            class:active={active}
                            data-testid={format!("plan-tab-{i}")}
                            on:click={move |_| state.update(History::Push, |w| w.active = i)}
                        >
                            // The plan's number: narrow charts label their bars with it.
                            <span class="tab-num" aria-hidden="true">{i + 1}</span>
                            {name}
                        </button>
                    }
                }}
            />
            <span class="tab-actions">
                <button data-testid="add-plan" disabled={move || count() >= MAX_PLANS} on:click={add}>
                    {move || t(lang(), K::AddPlan)}
                </button>
                <button data-testid="dup-plan" disabled={move || count() >= MAX_PLANS} on:click={duplicate}>
                    {move || t(lang(), K::Duplicate)}
                </button>
                <button data-testid="remove-plan" disabled={move || count() <= 1} on:click={remove}>
                    {move || t(lang(), K::Remove)}
                </button>
            </span>
        </div>
    }
}
