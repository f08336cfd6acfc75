//! Inputs bound to workspace settings (the pool, the jobs' targets, the
//! storage and failure figures) rather than to the active plan: each reads
//! the workspace and writes it through [`AppState::update`], so every
//! setting lives in the address. Typing replaces the history entry; picking
//! or ticking pushes one.

use crate::components::editor::number_box::NumberBox;
use crate::components::editor::parse::Codec;
use crate::i18n::ops::{t, K};
use crate::i18n::Lang;
use crate::state::{use_state, AppState};
use crate::url::History;
use leptos::prelude::*;
use planner_core::workspace::Workspace;

/// How a setting is read from the workspace.
pub trait ReadsWs<T>: Fn(&Workspace) -> T + Copy + Send + Sync + 'static {}
impl<T, F: Fn(&Workspace) -> T + Copy + Send + Sync + 'static> ReadsWs<T> for F {}

/// How a setting is written into the workspace.
pub trait WritesWs<T>: Fn(&mut Workspace, T) + Copy + Send + Sync + 'static {}
impl<T, F: Fn(&mut Workspace, T) + Copy + Send + Sync + 'static> WritesWs<T> for F {}

fn apply<T: 'static>(
    state: AppState,
    codec: Codec<T>,
    set: impl WritesWs<T>,
) -> Callback<String, bool> {
    Callback::new(move |s: String| match (codec.parse)(&s) {
        Some(v) => {
            state.update(History::Replace, |w| set(w, v));
            true
        }
        None => false,
    })
}

/// A labelled number box; `hint` says what an empty box means.
pub fn number<T: 'static>(
    label: K,
    testid: String,
    codec: Codec<T>,
    get: impl ReadsWs<T>,
    set: impl WritesWs<T>,
    hint: Signal<Option<String>>,
) -> impl IntoView {
    let state = use_state();
    let name = Signal::derive(move || t(state.lang(), label).to_string());
    view! {
        <label class="field">
            <span class="field-label">{move || name.get()}</span>
            <NumberBox
                testid={testid}
                value={Signal::derive(move || state.ws.with(|w| (codec.show)(&get(w))))}
                on_text={apply(state, codec, set)}
                label={name}
                placeholder={hint}
            />
        </label>
    }
}

/// A labelled drop-down over (key, label) options.
pub fn select(
    label: K,
    testid: &'static str,
    options: impl Fn(Lang) -> Vec<(String, String)> + Copy + Send + Sync + 'static,
    get: impl ReadsWs<String>,
    set: impl Fn(&mut Workspace, &str) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let state = use_state();
    // Memos, so typing elsewhere in the workspace does not rebuild the list.
    let options = Memo::new(move |_| options(state.lang()));
    let value = Memo::new(move |_| state.ws.with(get));
    view! {
        <label class="field">
            <span class="field-label">{move || t(state.lang(), label)}</span>
            <select
                data-testid={testid}
                on:change={move |ev| {
                    let key = event_target_value(&ev);
                    state.update(History::Push, |w| set(w, &key));
                }}
            >
                {move || {
                    let current = value.get();
                    options
                        .get()
                        .into_iter()
                        .map(|(key, text)| {
                            let selected = key == current;
                            view! { <option value={key} prop:selected={selected}>{text}</option> }
                        })
                        .collect_view()
                }}
            </select>
        </label>
    }
}

/// A checkbox with its label.
pub fn toggle(
    label: K,
    testid: String,
    get: impl ReadsWs<bool>,
    set: impl WritesWs<bool>,
) -> impl IntoView {
    let state = use_state();
    view! {
        <label class="toggle">
            <input
                type="checkbox"
                data-testid={testid}
                prop:checked={move || state.ws.with(get)}
                on:change={move |ev| {
                    let on = event_target_checked(&ev);
                    state.update(History::Push, |w| set(w, on));
                }}
            />
            <span>{move || t(state.lang(), label)}</span>
        </label>
    }
}
