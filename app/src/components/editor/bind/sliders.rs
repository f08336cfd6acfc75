//! Sliders bound through a lens: a drag replaces the history entry, as
//! typing in the number box beside it does.

use super::{on_text, text, Reads, Writes};
use crate::components::editor::lens::Lens;
use crate::components::editor::parse::{to_count, Scale, COUNT, NUMBER};
use crate::components::editor::slider::Slider;
use crate::i18n::Label;
use crate::url::History;
use leptos::prelude::*;

/// A slider over counts in powers of two, with an exact number box.
pub fn count_slider<L: Lens>(
    lens: L,
    label: impl Label,
    testid: impl Into<String>,
    scale: Scale,
    get: impl Reads<L::Target, u32>,
    set: impl Writes<L::Target, u32>,
) -> impl IntoView {
    view! {
        <Slider
            label={text(lens, label)}
            testid={testid.into()}
            scale={scale}
            value={Signal::derive(move || lens.get(|p| f64::from(get(p))))}
            text={Signal::derive(move || lens.get(|p| get(p).to_string()))}
            on_slide={Callback::new(move |v: f64| lens.set(History::Replace, |p| set(p, to_count(v))))}
            on_text={on_text(lens, COUNT, set)}
        />
    }
}

/// A slider over a fraction from 0 to 1, with an exact number box.
pub fn fraction_slider<L: Lens>(
    lens: L,
    label: impl Label,
    testid: impl Into<String>,
    get: impl Reads<L::Target, f64>,
    set: impl Writes<L::Target, f64>,
) -> impl IntoView {
    view! {
        <Slider
            label={text(lens, label)}
            testid={testid.into()}
            scale={Scale::Linear { min: 0.0, max: 1.0, step: 0.05 }}
            value={Signal::derive(move || lens.get(get))}
            text={Signal::derive(move || lens.get(|p| (NUMBER.show)(&get(p))))}
            on_slide={Callback::new(move |v: f64| lens.set(History::Replace, |p| set(p, v)))}
            on_text={on_text(lens, NUMBER, set)}
        />
    }
}
