//! A labelled checkbox.

use leptos::prelude::*;

/// A checkbox with its label.
#[component]
pub fn Toggle(
    /// The label, in the workspace's language.
    #[prop(into)]
    label: Signal<String>,
    /// `data-testid` of the checkbox.
    #[prop(into)]
    testid: String,
    /// Whether it is checked (in the plan or the workspace).
    #[prop(into)]
    checked: Signal<bool>,
    /// Called with the new state when the user clicks.
    on_toggle: Callback<bool>,
) -> impl IntoView {
    view! {
        <label class="toggle">
            <input
                type="checkbox"
                data-testid={testid}
                prop:checked={move || checked.get()}
                on:change={move |ev| on_toggle.run(event_target_checked(&ev))}
            />
            <span>{move || label.get()}</span>
        </label>
    }
}
