//! The search, run in Web Workers so the page's thread never blocks.
//!
//! The core cuts the scenario's space into slices (one hardware option at
//! one GPU count, `planner_core::search::slices`); the page starts
//! N = min(`navigator.hardwareConcurrency`, slices) workers
//! (app/search-worker), hands each the scenario and then one slice at a
//! time — the largest GPU counts first, so no worker is left with a long
//! slice at the end — and counts the slices done. When every slice is
//! back, the worker that sent the last one merges the partials with the
//! core's `merge` (the same result `search` gives, bit for bit) and marks
//! the ties; the page only parses the answer. Cancel terminates the
//! workers. The app holds no formulas here: it moves messages.

use crate::workers::Workers;
use leptos::prelude::*;
use planner_core::plan::Plan;
use planner_core::search::{merge, slices, Found, Partial, Scenario, Slice};
use search_worker::{listed_plans, FromWorker, Listed, ListedPlan, ToWorker};
use std::cell::RefCell;
use std::rc::Rc;

/// The id of the results column's search section, scrolled into view when
/// a search starts (on a phone it sits above the editor).
pub const SEARCH_SECTION_ID: &str = "search-results";

/// Where a search stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// No search running.
    Idle,
    /// Slices walked of all.
    Running {
        /// Slices whose partial is back.
        done: usize,
        /// Slices in all.
        total: usize,
    },
    /// Every slice is back; one worker merges them.
    Merging {
        /// Slices in all.
        total: usize,
    },
    /// A worker could not start or failed.
    Failed,
}

impl Phase {
    /// Whether workers are busy.
    pub fn busy(self) -> bool {
        matches!(self, Phase::Running { .. } | Phase::Merging { .. })
    }
}

/// One listed plan of a finished search.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Why it is listed.
    pub listed: Listed,
    /// The plan and its figures, as the core found them.
    pub found: Found,
    /// The first earlier row it ties with within the model's uncertainty.
    pub tie: Option<usize>,
    /// How it serves its request stream, where it has one.
    pub served: Option<planner_core::report::StreamVerdict>,
}

/// A finished search.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The plan searched from.
    pub base: Plan,
    /// The plans listed.
    pub rows: Vec<Row>,
    /// Plans evaluated.
    pub evaluated: u64,
    /// Plans left out because the training stack cannot run them.
    pub unsupported: u64,
    /// GPU kinds tried that have no price.
    pub unpriced: Vec<String>,
}

/// How many plans a search evaluated and how many it left out.
#[derive(Debug, Clone, Copy)]
struct Tally {
    /// Plans evaluated.
    evaluated: u64,
    /// Plans left out because the training stack cannot run them.
    unsupported: u64,
}

impl Outcome {
    fn new(base: Plan, plans: Vec<ListedPlan>, tally: Tally, unpriced: Vec<String>) -> Outcome {
        let Tally {
            evaluated,
            unsupported,
        } = tally;
        let rows = plans
            .into_iter()
            .enumerate()
            .map(|(i, p)| Row {
                listed: p.listed,
                found: p.found,
                tie: p.tie.filter(|&j| j < i),
                served: p.served,
            })
            .collect();
        Outcome {
            base,
            rows,
            evaluated,
            unsupported,
            unpriced,
        }
    }
}

/// The workers of one search and what they sent back.
struct Pool {
    id: u64,
    workers: Workers,
    /// Slices not yet handed out; the next is the last.
    queue: Vec<Slice>,
    parts: Vec<Partial>,
    total: usize,
    scenario: String,
}

/// A search the page runs in workers: its phase and its last outcome.
#[derive(Clone, Copy)]
pub struct SearchRun {
    /// Where it stands.
    pub phase: RwSignal<Phase>,
    /// The last finished search.
    pub outcome: RwSignal<Option<Outcome>>,
    pool: StoredValue<Option<Rc<RefCell<Pool>>>, LocalStorage>,
    next_id: StoredValue<u64>,
}

/// The page's search (provided at the root).
pub fn use_search() -> SearchRun {
    expect_context::<SearchRun>()
}

impl SearchRun {
    /// An idle search with no outcome.
    pub fn new() -> SearchRun {
        SearchRun {
            phase: RwSignal::new(Phase::Idle),
            outcome: RwSignal::new(None),
            pool: StoredValue::new_local(None),
            next_id: StoredValue::new(0),
        }
    }

    /// Stops the running search, if any, and returns to idle.
    pub fn cancel(self) {
        self.drop_pool();
        self.phase.set(Phase::Idle);
    }

    fn drop_pool(self) {
        if let Some(p) = self.pool.try_update_value(Option::take).flatten() {
            p.borrow().workers.terminate();
            // The handlers are dropped later, never from inside one.
            set_timeout(move || drop(p), std::time::Duration::ZERO);
        }
    }

    fn current(self, id: u64) -> Option<Rc<RefCell<Pool>>> {
        self.pool
            .with_value(|p| p.as_ref().filter(|p| p.borrow().id == id).cloned())
    }

    /// Starts a search of `s` in workers (stopping any running one).
    pub fn start(self, s: Scenario) {
        self.drop_pool();
        self.outcome.set(None);
        let mut queue = slices(&s);
        if queue.is_empty() {
            // The scenario stops before any walk: its diagnostics only.
            let result = merge(&s, &[]);
            let plans = listed_plans(&result);
            let tally = Tally {
                evaluated: result.counts.evaluated,
                unsupported: result.counts.unsupported,
            };
            self.outcome
                .set(Some(Outcome::new(s.base, plans, tally, result.unpriced)));
            self.phase.set(Phase::Idle);
            return;
        }
        // Largest GPU counts last in the list, so they are handed out first.
        queue.sort_by_key(|sl| (sl.first, std::cmp::Reverse(sl.hardware)));
        let total = queue.len();
        let cores = web_sys::window()
            .map(|w| w.navigator().hardware_concurrency())
            .unwrap_or(1.0);
        let n = (cores as usize).min(total).max(1);
        let id = self.next_id.get_value() + 1;
        self.next_id.set_value(id);
        let pool = Rc::new(RefCell::new(Pool {
            id,
            workers: Workers::default(),
            queue,
            parts: Vec::new(),
            total,
            scenario: ToWorker::Scenario {
                scenario: Box::new(s.clone()),
            }
            .to_json(),
        }));
        self.pool.set_value(Some(pool.clone()));
        self.phase.set(Phase::Running { done: 0, total });
        let base = Rc::new(s.base);
        for i in 0..n {
            if self.spawn(&pool, i, base.clone()).is_err() {
                self.fail();
                return;
            }
        }
    }

    fn fail(self) {
        self.drop_pool();
        self.phase.set(Phase::Failed);
    }

    /// Starts worker `i` of the pool.
    fn spawn(
        self,
        pool: &Rc<RefCell<Pool>>,
        i: usize,
        base: Rc<Plan>,
    ) -> Result<(), wasm_bindgen::JsValue> {
        let id = pool.borrow().id;
        let reply = move |msg| self.on_reply(id, i, msg, &base);
        let fail = move || {
            if self.current(id).is_some() {
                self.fail();
            }
        };
        pool.borrow_mut().workers.spawn(reply, fail)
    }

    /// Hands worker `i` the next slice, if any is left.
    fn hand_out(pool: &mut Pool, i: usize) {
        if let Some(slice) = pool.queue.pop() {
            pool.workers.post(i, &ToWorker::Slice { slice }.to_json());
        }
    }

    /// What worker `i` of search `id` sent.
    fn on_reply(self, id: u64, i: usize, msg: FromWorker, base: &Plan) {
        let Some(pool) = self.current(id) else {
            return;
        };
        match msg {
            FromWorker::Ready => {
                let mut p = pool.borrow_mut();
                p.workers.post(i, &p.scenario);
                Self::hand_out(&mut p, i);
            }
            FromWorker::Done { partial } => {
                let mut p = pool.borrow_mut();
                p.parts.push(*partial);
                let (done, total) = (p.parts.len(), p.total);
                if done < total {
                    self.phase.set(Phase::Running { done, total });
                    Self::hand_out(&mut p, i);
                } else {
                    self.phase.set(Phase::Merging { total });
                    let parts = std::mem::take(&mut p.parts);
                    p.workers.post(i, &ToWorker::Merge { parts }.to_json());
                }
            }
            FromWorker::Merged {
                plans,
                evaluated,
                unsupported,
                unpriced,
            } => {
                let tally = Tally {
                    evaluated,
                    unsupported,
                };
                self.outcome
                    .set(Some(Outcome::new(base.clone(), plans, tally, unpriced)));
                self.drop_pool();
                self.phase.set(Phase::Idle);
            }
            // A search worker never sizes; anything else is a failure.
            FromWorker::Failed { .. } | FromWorker::Sized { .. } => self.fail(),
        }
    }
}

impl Default for SearchRun {
    fn default() -> Self {
        SearchRun::new()
    }
}
