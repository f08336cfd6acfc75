//! A labelled drop-down. Option labels are text nodes; the selected option
//! follows the plan.

use crate::i18n::editor::{t, K};
use crate::state::use_state;
use leptos::prelude::*;

/// A labelled `<select>`.
#[component]
pub fn Select(
    /// The field's label.
    label: K,
    /// `data-testid` of the `<select>`.
    #[prop(into)]
    testid: String,
    /// The options as (key, visible label), in order.
    #[prop(into)]
    options: Signal<Vec<(String, String)>>,
    /// The key of the plan's current option.
    #[prop(into)]
    value: Signal<String>,
    /// Called with the key the user picks.
    on_pick: Callback<String>,
) -> impl IntoView {
    let state = use_state();
    // Memos, so that typing elsewhere in the plan does not rebuild the list.
    let options = Memo::new(move |_| options.get());
    let value = Memo::new(move |_| value.get());
    view! {
        <label class="field">
            <span class="field-label">{move || t(state.lang(), label)}</span>
            <select data-testid={testid} on:change={move |ev| on_pick.run(event_target_value(&ev))}>
                {move || {
                    let current = value.get();
                    options
                        .get()
                        .into_iter()
                        .map(|(key, text)| {
                            let selected = key == current;
                            view! {
                                <option value={key} prop:selected={selected}>
                                    {text}
                                </option>
                            }
                        })
                        .collect_view()
                }}
            </select>
        </label>
    }
}
