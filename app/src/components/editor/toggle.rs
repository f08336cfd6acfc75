//! A labelled checkbox.

use crate::i18n::editor::{t, K};
use crate::state::use_state;
use leptos::prelude::*;

/// A checkbox with its label.
#[component]
pub fn Toggle(
    /// The label.
    label: K,
    /// `data-testid` of the checkbox.
    #[prop(into)]
    testid: String,
    /// Whether it is checked in the plan.
    #[prop(into)]
    checked: Signal<bool>,
    /// Called with the new state when the user clicks.
    on_toggle: Callback<bool>,
) -> impl IntoView {
    let state = use_state();
    view! {
        <label class="toggle">
            <input
                type="checkbox"
                data-testid={testid}
                prop:checked={move || checked.get()}
                on:change={move |ev| on_toggle.run(event_target_checked(&ev))}
            />
            <span>{move || t(state.lang(), label)}</span>
        </label>
    }
}
