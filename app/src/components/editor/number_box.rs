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
    // The core names this field at fault (TP that does not divide the
    // heads, say): the box is marked and its title lists the values
    // offered (issue 15).
    let state = crate::state::use_state();
    let id = testid.clone();
    let offered = Memo::new(move |_| {
        let i = state.ws.with(|w| w.active);
        state.reports.with(|r| {
            r.get(i).and_then(|r| {
                crate::guidance::faults(r)
                    .into_iter()
                    .find(|f| f.1 == id)
                    .map(|f| {
                        f.2.iter()
                            .map(u32::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
            })
        })
    });
    view! {
        <input
            type="text"
            inputmode="decimal"
            class="num"
            class:invalid={move || invalid.get()}
            class:at-fault={move || offered.with(Option::is_some)}
            title={move || offered.get()}
            aria-invalid={move || (invalid.get() || offered.with(Option::is_some)).to_string()}
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
