//! The Web Workers of one run (a search, a sizing): each worker with the
//! handlers its messages need, started, posted to and stopped together.
//! `crate::search_run` and `crate::size_run` hold one each; what a worker
//! says is theirs to act on.

use search_worker::FromWorker;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{ErrorEvent, MessageEvent, Worker};

/// The worker's loader script (trunk's loader shim for the
/// `search-worker` asset of index.html), relative to the page.
const WORKER_URL: &str = "./search-worker_loader.js";

/// Started workers and their handlers, which must outlive their messages.
#[derive(Default)]
pub struct Workers {
    workers: Vec<Worker>,
    on_message: Vec<Closure<dyn FnMut(MessageEvent)>>,
    on_error: Vec<Closure<dyn FnMut(ErrorEvent)>>,
}

impl Workers {
    /// Starts one more worker: `reply` gets each message it sends, `fail`
    /// is called when it errs or sends something unreadable.
    pub fn spawn(
        &mut self,
        reply: impl Fn(FromWorker) + 'static,
        fail: impl Fn() + Clone + 'static,
    ) -> Result<(), JsValue> {
        let worker = Worker::new(WORKER_URL)?;
        let unreadable = fail.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
            let Some(text) = ev.data().as_string() else {
                return;
            };
            match FromWorker::from_json(&text) {
                Ok(msg) => reply(msg),
                Err(_) => unreadable(),
            }
        });
        let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |_: ErrorEvent| fail());
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        self.workers.push(worker);
        self.on_message.push(on_message);
        self.on_error.push(on_error);
        Ok(())
    }

    /// Posts a JSON message to worker `i`.
    pub fn post(&self, i: usize, msg: &str) {
        if let Some(w) = self.workers.get(i) {
            let _ = w.post_message(&JsValue::from_str(msg));
        }
    }

    /// Stops the workers and unhooks their handlers: a message a worker
    /// posted before it was stopped may still be queued on the page, and
    /// its event finds no handler instead of a dropped closure
    /// ("closure invoked recursively or after being dropped").
    pub fn terminate(&self) {
        for w in &self.workers {
            w.terminate();
            w.set_onmessage(None);
            w.set_onerror(None);
        }
    }
}
