//! A labelled drop-down. Option labels are text nodes; the selected option
//! follows what it edits (a plan, a workspace setting, the scenario).

use leptos::prelude::*;

/// A labelled `<select>`.
#[component]
pub fn Select(
    /// The field's label, in the workspace's language.
    #[prop(into)]
    label: Signal<String>,
    /// `data-testid` of the `<select>`.
    #[prop(into)]
    testid: String,
    /// The options as (key, visible label), in order.
    #[prop(into)]
    options: Signal<Vec<(String, String)>>,
    /// The key of the current option.
    #[prop(into)]
    value: Signal<String>,
    /// Called with the key the user picks.
    on_pick: Callback<String>,
) -> impl IntoView {
    // Memos, so that typing elsewhere in the workspace does not rebuild the list.
    let options = Memo::new(move |_| options.get());
    let value = Memo::new(move |_| value.get());
    view! {
        <label class="field">
            <span class="field-label">{move || label.get()}</span>
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
