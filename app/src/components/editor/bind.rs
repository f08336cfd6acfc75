//! Fields bound to the active plan: each function takes a label, a test id,
//! how to read the field from a plan and how to write it, and returns the
//! input. Typing and dragging replace the history entry; picking from a
//! list or ticking a box pushes one.

use super::lens::use_plan;
use super::number_box::NumberBox;
use super::parse::{to_count, Codec, Scale, COUNT, NUMBER};
use super::pick::Pick;
use super::select::Select;
use super::slider::Slider;
use super::toggle::Toggle;
use crate::i18n::editor::{t, K};
use crate::i18n::Lang;
use crate::url::History;
use leptos::prelude::*;
use planner_core::plan::Plan;

/// How a field is read from a plan.
pub trait Reads<T>: Fn(&Plan) -> T + Copy + Send + Sync + 'static {}
impl<T, F: Fn(&Plan) -> T + Copy + Send + Sync + 'static> Reads<T> for F {}

/// How a field is written into a plan.
pub trait Writes<T>: Fn(&mut Plan, T) + Copy + Send + Sync + 'static {}
impl<T, F: Fn(&mut Plan, T) + Copy + Send + Sync + 'static> Writes<T> for F {}

/// The callback of a number box: parse, and apply when it is a value.
fn on_text<T: 'static>(codec: Codec<T>, set: impl Writes<T>) -> Callback<String, bool> {
    let lens = use_plan();
    Callback::new(move |s: String| match (codec.parse)(&s) {
        Some(v) => {
            lens.set(History::Replace, |p| set(p, v));
            true
        }
        None => false,
    })
}

/// A labelled number box.
pub fn number<T: 'static>(
    label: K,
    testid: &str,
    codec: Codec<T>,
    get: impl Reads<T>,
    set: impl Writes<T>,
) -> impl IntoView {
    number_with_hint(label, testid, codec, get, set, None)
}

/// A labelled number box whose empty state means something (`hint`).
pub fn number_with_hint<T: 'static>(
    label: K,
    testid: &str,
    codec: Codec<T>,
    get: impl Reads<T>,
    set: impl Writes<T>,
    hint: Option<K>,
) -> impl IntoView {
    let lens = use_plan();
    let name = Signal::derive(move || t(lens.lang(), label).to_string());
    let placeholder = Signal::derive(move || hint.map(|h| t(lens.lang(), h).to_string()));
    view! {
        <label class="field">
            <span class="field-label">{move || name.get()}</span>
            <NumberBox
                testid={testid.to_string()}
                value={Signal::derive(move || lens.get(|p| (codec.show)(&get(p))))}
                on_text={on_text(codec, set)}
                label={name}
                placeholder={placeholder}
            />
        </label>
    }
}

/// A slider over counts in powers of two, with an exact number box.
pub fn count_slider(
    label: K,
    testid: &str,
    scale: Scale,
    get: impl Reads<u32>,
    set: impl Writes<u32>,
) -> impl IntoView {
    let lens = use_plan();
    view! {
        <Slider
            label={label}
            testid={testid.to_string()}
            scale={scale}
            value={Signal::derive(move || lens.get(|p| f64::from(get(p))))}
            text={Signal::derive(move || lens.get(|p| get(p).to_string()))}
            on_slide={Callback::new(move |v: f64| lens.set(History::Replace, |p| set(p, to_count(v))))}
            on_text={on_text(COUNT, set)}
        />
    }
}

/// A slider over a fraction from 0 to 1, with an exact number box.
pub fn fraction_slider(
    label: K,
    testid: &str,
    get: impl Reads<f64>,
    set: impl Writes<f64>,
) -> impl IntoView {
    let lens = use_plan();
    view! {
        <Slider
            label={label}
            testid={testid.to_string()}
            scale={Scale::Linear { min: 0.0, max: 1.0, step: 0.05 }}
            value={Signal::derive(move || lens.get(get))}
            text={Signal::derive(move || lens.get(|p| (NUMBER.show)(&get(p))))}
            on_slide={Callback::new(move |v: f64| lens.set(History::Replace, |p| set(p, v)))}
            on_text={on_text(NUMBER, set)}
        />
    }
}

/// A drop-down over any list of options (catalog entries, say).
pub fn choice(
    label: K,
    testid: &str,
    options: impl Fn(Lang) -> Vec<(String, String)> + Copy + Send + Sync + 'static,
    get: impl Reads<String>,
    set: impl Fn(&mut Plan, &str) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let lens = use_plan();
    view! {
        <Select
            label={label}
            testid={testid.to_string()}
            options={Signal::derive(move || options(lens.lang()))}
            value={Signal::derive(move || lens.get(get))}
            on_pick={Callback::new(move |key: String| lens.set(History::Push, |p| set(p, &key)))}
        />
    }
}

/// The options of a [`Pick`] in a language.
pub fn pick_options<P: Pick>(lang: Lang) -> Vec<(String, String)> {
    P::OPTIONS
        .iter()
        .map(|(key, label)| (key.to_string(), t(lang, *label).to_string()))
        .collect()
}

/// A drop-down over one of the core's enums.
pub fn pick<P: Pick + 'static>(
    label: K,
    testid: &str,
    get: impl Reads<P>,
    set: impl Writes<P>,
) -> impl IntoView {
    choice(
        label,
        testid,
        pick_options::<P>,
        move |p| get(p).key().to_string(),
        move |p, key| {
            if let Some(v) = P::pick(key, &get(p)) {
                set(p, v);
            }
        },
    )
}

/// A checkbox.
pub fn toggle(
    label: K,
    testid: &str,
    get: impl Reads<bool>,
    set: impl Writes<bool>,
) -> impl IntoView {
    let lens = use_plan();
    view! {
        <Toggle
            label={label}
            testid={testid.to_string()}
            checked={Signal::derive(move || lens.get(get))}
            on_toggle={Callback::new(move |on: bool| lens.set(History::Push, |p| set(p, on)))}
        />
    }
}
