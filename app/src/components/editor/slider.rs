//! A slider with a number box beside it: the slider for quick drags, the
//! box for an exact value. Both write the same field.

use super::number_box::NumberBox;
use super::parse::Scale;
use leptos::prelude::*;

/// A labelled slider and number box.
#[component]
pub fn Slider(
    /// The field's label, in the workspace's language.
    #[prop(into)]
    label: Signal<String>,
    /// `data-testid` of the number box; the range input gets `{testid}-range`.
    #[prop(into)]
    testid: String,
    /// How slider positions map to values.
    scale: Scale,
    /// The plan's value.
    #[prop(into)]
    value: Signal<f64>,
    /// The plan's value as the box shows it.
    #[prop(into)]
    text: Signal<String>,
    /// Called with the value at each slider position while dragging.
    on_slide: Callback<f64>,
    /// Called with each text typed in the box; returns whether it was a value.
    on_text: Callback<String, bool>,
) -> impl IntoView {
    let (min, max, step) = scale.bounds();
    view! {
        <div class="field slider" role="group" aria-label={move || label.get()}>
            <span class="field-label">{move || label.get()}</span>
            <input
                type="range"
                data-testid={format!("{testid}-range")}
                aria-label={move || label.get()}
                min={min}
                max={max}
                step={step}
                prop:value={move || scale.position(value.get()).to_string()}
                on:input={move |ev| {
                    if let Ok(p) = event_target_value(&ev).parse::<f64>() {
                        on_slide.run(scale.value(p));
                    }
                }}
            />
            <NumberBox testid={testid} value={text} on_text={on_text} label={label} />
        </div>
    }
}
