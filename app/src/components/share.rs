//! Copying a link or a snippet: through the Clipboard API where the page
//! may use it, otherwise (a plain-http host is an insecure context, where
//! `navigator.clipboard` is undefined, or the browser refused) a dialog
//! holding the text, selected, to copy by hand.

use crate::i18n::common::{t, K};
use crate::state::{use_state, AppState};
use leptos::html::Textarea;
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// Copies `text`; shows `done` as a notice once the browser confirms, or
/// the copy-by-hand dialog when it cannot.
pub fn copy(state: AppState, text: String, done: K) {
    let Some(clipboard) = clipboard() else {
        state.share.set(Some(text));
        return;
    };
    let lang = state.lang();
    let pending = clipboard.write_text(&text);
    let copied = Closure::once(move |_: JsValue| state.notice.set(Some(t(lang, done))));
    let failed = Closure::once(move |_: JsValue| state.share.set(Some(text)));
    let _ = pending.then(&copied).catch(&failed);
    // Each runs at most once, when the browser answers.
    copied.forget();
    failed.forget();
}

/// `navigator.clipboard`, when the page may use it (a secure context).
fn clipboard() -> Option<web_sys::Clipboard> {
    let nav = web_sys::window()?.navigator();
    let c = js_sys::Reflect::get(&nav, &JsValue::from_str("clipboard")).ok()?;
    if c.is_undefined() || c.is_null() {
        return None;
    }
    c.dyn_into::<web_sys::Clipboard>().ok()
}

/// The copy-by-hand dialog: the text in a read-only box, selected, with
/// how to copy it and a button that closes the dialog.
#[component]
pub fn ShareDialog() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let area = NodeRef::<Textarea>::new();
    // Select once the text is in the box: the frame after it mounts.
    Effect::new(move |_| {
        if state.share.with(Option::is_some) {
            if let Some(el) = area.get() {
                request_animation_frame(move || {
                    let _ = el.focus();
                    el.select();
                });
            }
        }
    });
    let close = move |_| state.share.set(None);
    move || {
        state.share.get().map(|text| {
            view! {
                <div class="share-backdrop">
                    <div class="share-dialog" role="dialog" aria-modal="true" aria-labelledby="share-title" data-testid="share-dialog">
                        <h2 id="share-title">{move || t(lang(), K::CopyByHandTitle)}</h2>
                        <p class="note">{move || t(lang(), K::CopyByHand)}</p>
                        <textarea node_ref=area readonly rows="4" data-testid="share-text" on:focus=move |_| { if let Some(el) = area.get_untracked() { el.select(); } }>{text}</textarea>
                        <button data-testid="share-close" on:click=close>{move || t(lang(), K::Close)}</button>
                    </div>
                </div>
            }
        })
    }
}
