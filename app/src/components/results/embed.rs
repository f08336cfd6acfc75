//! The embed view: the workspace's view for every plan of the link (the
//! cost-against-latency chart with the family summary for a comparison),
//! without the editor, sized for an iframe in a docs page. Its height is
//! reported to the host page by `postMessage` whenever it changes, for the
//! listener of the embed snippet ([`crate::components::snippets`]).

use super::body::ResultBody;
use super::family_summary::FamilySummary;
use super::scope::Scope;
use crate::components::snippets::HEIGHT_MESSAGE;
use crate::components::verdict::VerdictLine;
use crate::i18n::common::{t, K};
use crate::state::use_state;
use crate::url;
use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// The whole comparison, without the editor.
#[component]
pub fn EmbedView() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let many = move || state.ws.with(|w| w.plans.len() > 1);
    // One plan: its name and verdict. Several: how many are compared; the
    // baseline's verdict is in the summary, beside the ways over the wall.
    let head = move || {
        state.ws.with(|w| match w.plans.as_slice() {
            [one] => one.name.clone(),
            all => format!("{} {}", all.len(), t(w.lang, K::EmbedCaption)),
        })
    };
    let full = move || format!("{}{}", url::base(), state.ws.with(|w| url::hash(w, false)));
    let root = NodeRef::<Div>::new();
    Effect::new(move |_| {
        if let Some(el) = root.get() {
            report_height(&el);
        }
    });
    view! {
        <div class="embed-result" data-testid="embed-result" node_ref=root>
            <div class="embed-head">
                <span class="embed-plan" data-testid="embed-plan">{head}</span>
                <Show when=move || !many()>
                    <VerdictLine />
                </Show>
                <a class="open-full" data-testid="open-full" href=full target="_blank" rel="noopener">
                    {move || t(lang(), K::OpenFull)}
                </a>
            </div>
            <ResultBody scope=Scope::All />
            <Show when=many>
                <FamilySummary />
            </Show>
        </div>
    }
}

/// The height the host's iframe needs: the bottom of the embed's content
/// in the page (its padding included), in whole CSS pixels.
fn content_height(el: &web_sys::Element) -> u32 {
    let Some(w) = web_sys::window() else { return 0 };
    let scroll = w.scroll_y().unwrap_or(0.0);
    let bottom = el
        .parent_element()
        .map_or_else(
            || el.get_bounding_client_rect(),
            |p| p.get_bounding_client_rect(),
        )
        .bottom();
    (bottom + scroll).ceil().max(0.0) as u32
}

/// Posts the height to the parent page now and whenever the content's
/// size changes (a `ResizeObserver`, reached through `js_sys` so the
/// build needs no further `web-sys` feature). Not in an iframe, nothing
/// is posted.
fn report_height(el: &web_sys::HtmlDivElement) {
    let Some(w) = web_sys::window() else { return };
    let Ok(Some(parent)) = w.parent() else { return };
    if js_sys::Object::is(&parent, &w) {
        return;
    }
    let el: web_sys::Element = el.clone().into();
    let last = std::cell::Cell::new(0u32);
    let post = move || {
        let h = content_height(&el);
        if h == 0 || h == last.get() {
            return;
        }
        last.set(h);
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"memwall".into(), &HEIGHT_MESSAGE.into());
        let _ = js_sys::Reflect::set(&msg, &"height".into(), &JsValue::from(h));
        let _ = parent.post_message(&msg, "*");
    };
    post_on_resize(post);
}

/// Runs `post` once now and on every resize of the document's body.
fn post_on_resize(post: impl Fn() + 'static) {
    let Some(w) = web_sys::window() else { return };
    post();
    let observed = w.document().and_then(|d| d.body());
    let ctor = js_sys::Reflect::get(&w, &"ResizeObserver".into())
        .ok()
        .and_then(|c| c.dyn_into::<js_sys::Function>().ok());
    let (Some(body), Some(ctor)) = (observed, ctor) else {
        return;
    };
    let callback = Closure::<dyn Fn()>::new(post);
    let Ok(observer) = js_sys::Reflect::construct(&ctor, &js_sys::Array::of1(callback.as_ref()))
    else {
        return;
    };
    if let Some(observe) = js_sys::Reflect::get(&observer, &"observe".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    {
        let _ = observe.call1(&observer, &body);
    }
    // The observer lives as long as the page.
    callback.forget();
}
