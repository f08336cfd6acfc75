//! Plans saved in this browser: open one as a new plan, or forget it.

use crate::i18n::editor::{t, K};
use crate::state::use_state;
use crate::storage::{self, Saved};
use crate::url::History;
use leptos::prelude::*;
use planner_core::link::MAX_PLANS;

/// The saved list.
#[component]
pub fn SavedPlans(
    /// The saved plans (as in localStorage); deleting writes it back.
    saved: RwSignal<Vec<Saved>>,
) -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let open = move |i: usize| {
        if let Some(s) = saved.with_untracked(|l| l.get(i).cloned()) {
            state.update(History::Push, |w| {
                if w.plans.len() < MAX_PLANS {
                    let mut plan = s.plan;
                    plan.name = s.name;
                    w.plans.push(plan);
                    w.active = w.plans.len() - 1;
                }
            });
        }
    };
    let forget = move |i: usize| {
        saved.update(|l| {
            if i < l.len() {
                l.remove(i);
            }
        });
        saved.with_untracked(|l| storage::store(l));
    };
    view! {
        <div class="saved" data-testid="saved-plans">
            <h3>
                {move || t(lang(), K::SavedPlans)} " (" <span data-testid="saved-count">{move || saved.with(Vec::len)}</span> ")"
            </h3>
            <ul data-testid="saved-list">
                {move || {
                    saved
                        .get()
                        .into_iter()
                        .enumerate()
                        .map(|(i, s)| {
                            view! {
                                <li data-testid={format!("saved-{i}")}>
                                    <span class="saved-name">{s.name}</span>
                                    <button data-testid={format!("open-saved-{i}")} on:click={move |_| open(i)}>
                                        {move || t(lang(), K::Open)}
                                    </button>
                                    <button data-testid={format!("delete-saved-{i}")} on:click={move |_| forget(i)}>
                                        {move || t(lang(), K::Forget)}
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
            <Show when={move || saved.with(Vec::is_empty)}>
                <p class="hint" data-testid="saved-empty">{move || t(lang(), K::NothingSaved)}</p>
            </Show>
        </div>
    }
}
