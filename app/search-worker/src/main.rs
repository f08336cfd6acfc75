//! The search worker: a Web Worker that walks the slices of a search the
//! page sends it (`search_worker::answer`), so the page's thread never
//! runs the search. Trunk builds it as a worker asset with a loader shim
//! (index.html); the page starts it as `search-worker_loader.js`.

use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let held = RefCell::new(None);
    let reply_to = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let Some(text) = ev.data().as_string() else {
            return;
        };
        if let Some(reply) = search_worker::answer(&mut held.borrow_mut(), &text) {
            let _ = reply_to.post_message(&JsValue::from_str(&reply.to_json()));
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    let ready = search_worker::FromWorker::Ready.to_json();
    let _ = scope.post_message(&JsValue::from_str(&ready));
}
