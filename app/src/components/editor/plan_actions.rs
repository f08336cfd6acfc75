//! Rename the plan being edited, and keep plans in this browser
//! (localStorage) to open again later.

use super::lens::use_plan;
use super::saved_plans::SavedPlans;
use crate::i18n::editor::{t, K};
use crate::storage::{self, Saved};
use crate::url::History;
use leptos::prelude::*;

/// The saved list with `saved` added, replacing one of the same name.
pub fn with_saved(mut list: Vec<Saved>, saved: Saved) -> Vec<Saved> {
    match list.iter_mut().find(|s| s.name == saved.name) {
        Some(old) => *old = saved,
        None => list.push(saved),
    }
    list
}

/// Name field, save button and the saved plans.
#[component]
pub fn PlanActions() -> impl IntoView {
    let lens = use_plan();
    let lang = move || lens.lang();
    let saved = RwSignal::new(storage::load());
    let save = move |_| {
        let entry = lens.state().ws.with_untracked(|w| {
            super::lens::active(w).map(|p| Saved {
                name: p.name.clone(),
                plan: p.clone(),
            })
        });
        if let Some(entry) = entry {
            saved.update(|list| *list = with_saved(std::mem::take(list), entry));
            saved.with_untracked(|list| storage::store(list));
            lens.state().notice.set(Some(t(lang(), K::Saved)));
        }
    };
    view! {
        <div class="editor-block plan-actions">
            <label class="field">
                <span class="field-label">{move || t(lang(), K::PlanName)}</span>
                <input
                    type="text"
                    data-testid="rename-plan"
                    maxlength="200"
                    prop:value={move || lens.get(|p| p.name.clone())}
                    on:input={move |ev| {
                        let name = event_target_value(&ev);
                        lens.set(History::Replace, |p| p.name = name);
                    }}
                />
            </label>
            <button data-testid="save-plan" on:click={save}>
                {move || t(lang(), K::SavePlan)}
            </button>
            <SavedPlans saved={saved} />
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::example_plan;

    #[test]
    fn saving_a_name_again_replaces_it() {
        let a = Saved {
            name: "a".into(),
            plan: example_plan(),
        };
        let mut a2 = a.clone();
        a2.plan.hardware.gpus = 16;
        let b = Saved {
            name: "b".into(),
            plan: example_plan(),
        };
        let list = with_saved(with_saved(vec![a], b.clone()), a2.clone());
        assert_eq!(list, vec![a2, b]);
    }
}
