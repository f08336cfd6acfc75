//! The list of plans: pick one to edit, add, duplicate, remove.

use crate::i18n::common::{t, K};
use crate::state::use_state;
use crate::url::History;
use leptos::prelude::*;
use planner_core::share::MAX_PLANS;

/// Plan tabs.
#[component]
pub fn PlanTabs() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let count = move || state.ws.with(|w| w.plans.len());
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
                            {name}
                        </button>
                    }
                }}
            />
            <button
                data-testid="dup-plan"
                disabled={move || count() >= MAX_PLANS}
                on:click={move |_| {
                    state.update(History::Push, |w| {
                        if w.plans.len() < MAX_PLANS {
                            let mut p = w.plans[w.active].clone();
                            p.name = format!("{} (2)", p.name);
                            w.plans.insert(w.active + 1, p);
                            w.active += 1;
                        }
                    })
                }}
            >
                "+"
            </button>
            <button
                data-testid="remove-plan"
                disabled={move || count() <= 1}
                on:click={move |_| {
                    state.update(History::Push, |w| {
                        if w.plans.len() > 1 {
                            w.plans.remove(w.active);
                            w.active = w.active.min(w.plans.len() - 1);
                        }
                    })
                }}
            >
                "−"
            </button>
        </div>
    }
}
