//! A text box for one number. It shows the plan's value, keeps the text
//! as typed while the user types (so the caret never jumps), applies every
//! text that reads as a value, and marks one that does not; leaving the
//! box shows the plan's value again.

use leptos::prelude::*;

/// One number box.
#[component]
pub fn NumberBox(
    /// `data-testid` of the input.
    #[prop(into)]
    testid: String,
    /// The plan's value, written as the box shows it.
    #[prop(into)]
    value: Signal<String>,
    /// Called with each typed text; returns whether the text was a value
    /// (and so was applied). A text that is not keeps the old value.
    on_text: Callback<String, bool>,
    /// Accessible name of the box (the field's label).
    #[prop(into)]
    label: Signal<String>,
    /// What an empty box means ("catalog price", "none").
    #[prop(optional, into)]
    placeholder: MaybeProp<String>,
) -> impl IntoView {
    let draft = RwSignal::new(None::<String>);
    let invalid = RwSignal::new(false);
    view! {
        <input
            type="text"
            inputmode="decimal"
            class="num"
            class:invalid={move || invalid.get()}
            aria-invalid={move || invalid.get().to_string()}
            aria-label={move || label.get()}
            data-testid={testid}
            placeholder={move || placeholder.get()}
            prop:value={move || draft.get().unwrap_or_else(|| value.get())}
            on:input={move |ev| {
                let text = event_target_value(&ev);
                invalid.set(!on_text.run(text.clone()));
                draft.set(Some(text));
            }}
            on:blur={move |_| {
                draft.set(None);
                invalid.set(false);
            }}
        />
    }
}
