//! Drop-downs bound through a lens: a pick pushes a history entry.

use super::{text, Reads, Writes};
use crate::components::editor::lens::Lens;
use crate::components::editor::pick::Pick;
use crate::components::editor::select::Select;
use crate::i18n::editor::t;
use crate::i18n::{Label, Lang};
use crate::url::History;
use leptos::prelude::*;

/// A drop-down over any list of (key, label) options (catalog entries, say).
pub fn choice<L: Lens>(
    lens: L,
    label: impl Label,
    testid: impl Into<String>,
    options: impl Fn(Lang) -> Vec<(String, String)> + Copy + Send + Sync + 'static,
    get: impl Reads<L::Target, String>,
    set: impl Fn(&mut L::Target, &str) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <Select
            label={text(lens, label)}
            testid={testid.into()}
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
pub fn pick<L: Lens, P: Pick + 'static>(
    lens: L,
    label: impl Label,
    testid: impl Into<String>,
    get: impl Reads<L::Target, P>,
    set: impl Writes<L::Target, P>,
) -> impl IntoView {
    choice(
        lens,
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
