//! Sizing replicas to a plan's request stream, in Web Workers so the
//! page's thread never blocks.
//!
//! The core's serving search (`planner_core::search::search_serving`)
//! tries the tensor-parallel degrees and engine knobs of one replica,
//! sets the replicas the stream's rate needs under its SLOs and checks
//! the best answers in the iteration-level simulator. One search is one
//! message to a worker. On the plan's own GPU kind and formats the page
//! runs one and lists its answers, fewest GPUs first; asked for other
//! ways (`planner_core::search::serving_ways`: narrower number formats,
//! other priced GPU kinds, both) it hands the ways out to
//! N = min(hardwareConcurrency, ways) workers, one at a time, and lists
//! each way's best answer, cheapest first, ties marked
//! (`search_worker::rank_ways`).
//! Cancel terminates the workers. The app holds no formulas here: it
//! moves messages.

use crate::workers::Workers;
use leptos::prelude::*;
use planner_core::plan::Plan;
use planner_core::search::ServingWay;
use search_worker::{rank_ways, FromWorker, SizedPlan, ToWorker};
use std::cell::RefCell;
use std::rc::Rc;

/// The id of the results column's sizing section, scrolled into view
/// when sizing starts.
pub const SIZE_SECTION_ID: &str = "sized-results";

/// Where sizing stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizePhase {
    /// Not running.
    Idle,
    /// Ways sized of all.
    Running {
        /// Ways whose search is back.
        done: usize,
        /// Ways in all.
        total: usize,
    },
    /// A worker could not start or failed.
    Failed,
}

/// A finished sizing.
#[derive(Debug, Clone, PartialEq)]
pub struct SizedOutcome {
    /// The plan sized.
    pub base: Plan,
    /// The GPU budget it was sized within.
    pub budget: u32,
    /// Whether several ways were sized (else the plan's own GPU kind and
    /// formats alone).
    pub across_ways: bool,
    /// The answers: the plan's own way's, fewest GPUs first; or each
    /// way's best, cheapest first.
    pub plans: Vec<SizedPlan>,
    /// Candidates evaluated over every way.
    pub evaluated: u32,
    /// Why the plan's own search could not run, in English, when it
    /// could not.
    pub problem: Option<String>,
}

/// What one way's search sent back.
struct WayBack {
    plans: Vec<SizedPlan>,
    evaluated: u32,
    problem: Option<String>,
}

/// The workers of one sizing, the ways not yet handed out and what came
/// back.
struct Job {
    id: u64,
    workers: Workers,
    /// (way index, message) not yet handed out; the next is the last.
    queue: Vec<(usize, String)>,
    /// The way each worker searches.
    busy: Vec<Option<usize>>,
    /// Each way's answers and candidates, once back.
    back: Vec<Option<WayBack>>,
}

impl Job {
    /// Hands worker `i` the next way, if one is left.
    fn hand_out(&mut self, i: usize) {
        if let Some((way, msg)) = self.queue.pop() {
            self.busy[i] = Some(way);
            self.workers.post(i, &msg);
        }
    }

    fn done(&self) -> usize {
        self.back.iter().filter(|b| b.is_some()).count()
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
            j.borrow().workers.terminate();
            // The handlers are dropped later, never from inside one.
            set_timeout(move || drop(j), std::time::Duration::ZERO);
        }
    }

    fn fail(self) {
        self.drop_job();
        self.phase.set(SizePhase::Failed);
    }

    fn current(self, id: u64) -> Option<Rc<RefCell<Job>>> {
        self.job
            .with_value(|j| j.as_ref().filter(|j| j.borrow().id == id).cloned())
    }

    /// Sizes each of `ways` (the plan's own first) in workers, stopping
    /// any running sizing; with more than one, each way's best answer is
    /// listed.
    pub fn start(self, ways: Vec<ServingWay>) {
        self.drop_job();
        self.outcome.set(None);
        let Some(first) = ways.first() else { return };
        let (base, budget) = (first.scenario.base.clone(), first.scenario.max_gpus);
        let total = ways.len();
        let across_ways = total > 1;
        // Every way's answers list their changes against the plan sized.
        let from = Some(Box::new(base.clone()));
        let mut queue: Vec<(usize, String)> = ways
            .into_iter()
            .enumerate()
            .map(|(k, w)| {
                let msg = ToWorker::Size {
                    scenario: Box::new(w.scenario),
                    family: w.family,
                    from: from.clone(),
                };
                (k, msg.to_json())
            })
            .collect();
        // The plan's own way is handed out first.
        queue.reverse();
        let cores = web_sys::window()
            .map(|w| w.navigator().hardware_concurrency())
            .unwrap_or(1.0);
        let n = (cores as usize).min(total).max(1);
        let id = self.next_id.get_value() + 1;
        self.next_id.set_value(id);
        let job = Rc::new(RefCell::new(Job {
            id,
            workers: Workers::default(),
            queue,
            busy: vec![None; n],
            back: (0..total).map(|_| None).collect(),
        }));
        self.job.set_value(Some(job.clone()));
        self.phase.set(SizePhase::Running { done: 0, total });
        let ends = Rc::new((base, budget, across_ways));
        for i in 0..n {
            if self.spawn(&job, i, ends.clone()).is_err() {
                self.fail();
                return;
            }
        }
    }

    /// Starts worker `i` of the job.
    fn spawn(
        self,
        job: &Rc<RefCell<Job>>,
        i: usize,
        ends: Rc<(Plan, u32, bool)>,
    ) -> Result<(), wasm_bindgen::JsValue> {
        let id = job.borrow().id;
        let reply = move |msg| self.on_reply(id, i, msg, &ends);
        let fail = move || {
            if self.current(id).is_some() {
                self.fail();
            }
        };
        job.borrow_mut().workers.spawn(reply, fail)
    }

    /// What worker `i` of sizing `id` sent.
    fn on_reply(self, id: u64, i: usize, msg: FromWorker, ends: &(Plan, u32, bool)) {
        let Some(job) = self.current(id) else {
            return;
        };
        let mut j = job.borrow_mut();
        match msg {
            FromWorker::Ready => j.hand_out(i),
            FromWorker::Sized {
                plans,
                evaluated,
                problem,
                ..
            } => {
                if let Some(way) = j.busy[i].take() {
                    j.back[way] = Some(WayBack {
                        plans,
                        evaluated,
                        problem,
                    });
                }
                let (done, total) = (j.done(), j.back.len());
                if done < total {
                    self.phase.set(SizePhase::Running { done, total });
                    j.hand_out(i);
                    return;
                }
                let back: Vec<WayBack> = j.back.iter_mut().filter_map(Option::take).collect();
                drop(j);
                self.finish(back, ends);
            }
            _ => {
                drop(j);
                self.fail();
            }
        }
    }

    /// Every way is back: the outcome, and idle.
    fn finish(self, back: Vec<WayBack>, ends: &(Plan, u32, bool)) {
        let (base, budget, across_ways) = ends.clone();
        let evaluated = back.iter().map(|b| b.evaluated).sum();
        let problem = back.first().and_then(|b| b.problem.clone());
        let per_way: Vec<Vec<SizedPlan>> = back.into_iter().map(|b| b.plans).collect();
        let plans = if across_ways {
            rank_ways(&per_way)
        } else {
            per_way.into_iter().next().unwrap_or_default()
        };
        self.outcome.set(Some(SizedOutcome {
            base,
            budget,
            across_ways,
            plans,
            evaluated,
            problem,
        }));
        self.drop_job();
        self.phase.set(SizePhase::Idle);
    }
}

impl Default for SizeRun {
    fn default() -> Self {
        SizeRun::new()
    }
}
