//! Sizing replicas to a plan's request stream, in a Web Worker so the
//! page's thread never blocks.
//!
//! The core's serving search (`planner_core::search::search_serving`)
//! tries the tensor-parallel degrees and engine knobs of one replica,
//! sets the replicas the stream's rate needs under its SLOs and checks
//! the best answers in the iteration-level simulator. It is one call, so
//! one worker runs it: the page starts the worker, waits for its
//! `Ready`, sends the scenario, and parses the answers
//! (`search_worker::SizedPlan`). Cancel terminates the worker. The app
//! holds no formulas here: it moves messages.

use crate::search_run::WORKER_URL;
use leptos::prelude::*;
use planner_core::plan::Plan;
use planner_core::search::ServingScenario;
use search_worker::{FromWorker, SizedPlan, ToWorker};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{ErrorEvent, MessageEvent, Worker};

/// The id of the results column's sizing section, scrolled into view
/// when sizing starts.
pub const SIZE_SECTION_ID: &str = "sized-results";

/// Where sizing stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizePhase {
    /// Not running.
    Idle,
    /// The worker searches.
    Running,
    /// The worker could not start or failed.
    Failed,
}

/// A finished sizing.
#[derive(Debug, Clone, PartialEq)]
pub struct SizedOutcome {
    /// The plan sized.
    pub base: Plan,
    /// The GPU budget it was sized within.
    pub budget: u32,
    /// Its answers, fewest GPUs first.
    pub plans: Vec<SizedPlan>,
    /// Candidates evaluated.
    pub evaluated: u32,
    /// Those that carry the rate within the SLOs and the budget.
    pub feasible: u32,
    /// Why the search could not run, in English, when it could not.
    pub problem: Option<String>,
}

/// The worker of one sizing and its handlers, which must outlive its
/// messages.
struct Job {
    id: u64,
    worker: Worker,
    /// Held only so the handler lives as long as the worker.
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    /// Held only so the handler lives as long as the worker.
    _on_error: Closure<dyn FnMut(ErrorEvent)>,
}

impl Job {
    /// Stops the worker and unhooks its handlers (a message it posted
    /// before it stopped then finds no handler, not a dropped closure).
    fn terminate(&self) {
        self.worker.terminate();
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
    }
}

/// The page's sizing: its phase and its last answer.
#[derive(Clone, Copy)]
pub struct SizeRun {
    /// Where it stands.
    pub phase: RwSignal<SizePhase>,
    /// The last finished sizing.
    pub outcome: RwSignal<Option<SizedOutcome>>,
    job: StoredValue<Option<Rc<RefCell<Job>>>, LocalStorage>,
    next_id: StoredValue<u64>,
}

/// The page's sizing (provided at the root).
pub fn use_size() -> SizeRun {
    expect_context::<SizeRun>()
}

impl SizeRun {
    /// Idle, with no answer.
    pub fn new() -> SizeRun {
        SizeRun {
            phase: RwSignal::new(SizePhase::Idle),
            outcome: RwSignal::new(None),
            job: StoredValue::new_local(None),
            next_id: StoredValue::new(0),
        }
    }

    /// Stops the running sizing, if any, and returns to idle.
    pub fn cancel(self) {
        self.drop_job();
        self.phase.set(SizePhase::Idle);
    }

    fn drop_job(self) {
        if let Some(j) = self.job.try_update_value(Option::take).flatten() {
            j.borrow().terminate();
            // The handlers are dropped later, never from inside one.
            set_timeout(move || drop(j), std::time::Duration::ZERO);
        }
    }

    fn fail(self) {
        self.drop_job();
        self.phase.set(SizePhase::Failed);
    }

    fn is_current(self, id: u64) -> bool {
        self.job
            .with_value(|j| j.as_ref().is_some_and(|j| j.borrow().id == id))
    }

    /// Sizes `s` in a worker (stopping any running sizing).
    pub fn start(self, s: ServingScenario) {
        self.drop_job();
        self.outcome.set(None);
        let id = self.next_id.get_value() + 1;
        self.next_id.set_value(id);
        let base = s.base.clone();
        let budget = s.max_gpus;
        let message = ToWorker::Size {
            scenario: Box::new(s),
        }
        .to_json();
        match self.spawn(id, message, base, budget) {
            Ok(job) => {
                self.job.set_value(Some(Rc::new(RefCell::new(job))));
                self.phase.set(SizePhase::Running);
            }
            Err(_) => self.fail(),
        }
    }

    /// Starts the worker of sizing `id`, which is sent `message` once it
    /// is ready.
    fn spawn(self, id: u64, message: String, base: Plan, budget: u32) -> Result<Job, JsValue> {
        let worker = Worker::new(WORKER_URL)?;
        let to = worker.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
            if !self.is_current(id) {
                return;
            }
            let Some(text) = ev.data().as_string() else {
                return;
            };
            match FromWorker::from_json(&text) {
                Ok(FromWorker::Ready) => {
                    if to.post_message(&JsValue::from_str(&message)).is_err() {
                        self.fail();
                    }
                }
                Ok(FromWorker::Sized {
                    plans,
                    evaluated,
                    feasible,
                    problem,
                }) => {
                    self.outcome.set(Some(SizedOutcome {
                        base: base.clone(),
                        budget,
                        plans,
                        evaluated,
                        feasible,
                        problem,
                    }));
                    self.drop_job();
                    self.phase.set(SizePhase::Idle);
                }
                Ok(_) | Err(_) => self.fail(),
            }
        });
        let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |_: ErrorEvent| {
            if self.is_current(id) {
                self.fail();
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Job {
            id,
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    }
}

impl Default for SizeRun {
    fn default() -> Self {
        SizeRun::new()
    }
}
