//! Fields bound through a [`Lens`]: each function takes the lens, a label
//! (a key of any string table, or a text signal), a test id, how to read
//! the field from the lens's target and how to write it, and returns the
//! input. The editor binds to the active plan ([`super::lens::PlanLens`]),
//! the operations views to the workspace's settings
//! ([`super::lens::WorkspaceLens`]). Typing and dragging replace the
//! history entry; picking from a list or ticking a box pushes one.

mod choice;
mod sliders;

pub use choice::{choice, pick, pick_options};
pub use sliders::{count_slider, fraction_slider};

use super::lens::Lens;
use super::number_box::NumberBox;
use super::parse::Codec;
use super::toggle::Toggle;
use crate::i18n::{Label, Lang};
use crate::url::History;
use leptos::prelude::*;

/// How a field is read from `S` (a plan, the workspace).
pub trait Reads<S, T>: Fn(&S) -> T + Copy + Send + Sync + 'static {}
impl<S, T, F: Fn(&S) -> T + Copy + Send + Sync + 'static> Reads<S, T> for F {}

/// How a field is written into `S`.
pub trait Writes<S, T>: Fn(&mut S, T) + Copy + Send + Sync + 'static {}
impl<S, T, F: Fn(&mut S, T) + Copy + Send + Sync + 'static> Writes<S, T> for F {}

/// A text signal is a label already in the workspace's language.
impl Label for Signal<String> {
    fn in_lang(self, _: Lang) -> String {
        self.get()
    }
}

/// A label as a signal that follows the lens's language.
pub fn text<L: Lens>(lens: L, label: impl Label) -> Signal<String> {
    Signal::derive(move || label.in_lang(lens.lang()))
}

/// What an empty number box means, as its placeholder.
pub fn hint<L: Lens>(lens: L, label: impl Label) -> Signal<Option<String>> {
    Signal::derive(move || Some(label.in_lang(lens.lang())))
}

/// The callback of a number box: parse, and apply when it is a value.
fn on_text<L: Lens, T: 'static>(
    lens: L,
    codec: Codec<T>,
    set: impl Writes<L::Target, T>,
) -> Callback<String, bool> {
    Callback::new(move |s: String| match (codec.parse)(&s) {
        Some(v) => {
            lens.set(History::Replace, |p| set(p, v));
            true
        }
        None => false,
    })
}

/// A labelled number box.
pub fn number<L: Lens, T: 'static>(
    lens: L,
    label: impl Label,
    testid: impl Into<String>,
    codec: Codec<T>,
    get: impl Reads<L::Target, T>,
    set: impl Writes<L::Target, T>,
) -> impl IntoView {
    number_with_hint(
        lens,
        label,
        testid,
        codec,
        get,
        set,
        Signal::derive(|| None),
    )
}

/// A labelled number box whose empty state means something (`hint`, see
/// [`hint`]).
pub fn number_with_hint<L: Lens, T: 'static>(
    lens: L,
    label: impl Label,
    testid: impl Into<String>,
    codec: Codec<T>,
    get: impl Reads<L::Target, T>,
    set: impl Writes<L::Target, T>,
    hint: Signal<Option<String>>,
) -> impl IntoView {
    let name = text(lens, label);
    view! {
        <label class="field">
            <span class="field-label">{move || name.get()}</span>
            <NumberBox
                testid={testid.into()}
                value={Signal::derive(move || lens.get(|p| (codec.show)(&get(p))))}
                on_text={on_text(lens, codec, set)}
                label={name}
                placeholder={hint}
            />
        </label>
    }
}

/// A labelled checkbox.
pub fn toggle<L: Lens>(
    lens: L,
    label: impl Label,
    testid: impl Into<String>,
    get: impl Reads<L::Target, bool>,
    set: impl Writes<L::Target, bool>,
) -> impl IntoView {
    view! {
        <Toggle
            label={text(lens, label)}
            testid={testid.into()}
            checked={Signal::derive(move || lens.get(get))}
            on_toggle={Callback::new(move |on: bool| lens.set(History::Push, |p| set(p, on)))}
        />
    }
}
