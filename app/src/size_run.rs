//! Sizing replicas to a plan's request stream, in Web Workers so the
//! page's thread never blocks.
//!
//! The core's serving search (`planner_core::search::search_serving`)
//! tries the tensor-parallel degrees and engine knobs of one replica,
//! sets the replicas the stream's rate needs under its SLOs and checks
//! the best answers in the iteration-level simulator. One search is one
//! message to a worker. On the plan's own GPU kind the page runs one and
//! lists its answers, fewest GPUs first; on every priced kind
//! (`planner_core::search::on_each_gpu_kind`) it hands the kinds out to
//! N = min(hardwareConcurrency, kinds) workers, one at a time, and lists
//! each kind's best answer, cheapest first (`search_worker::rank_kinds`).
//! Cancel terminates the workers. The app holds no formulas here: it
//! moves messages.

use crate::workers::Workers;
use leptos::prelude::*;
use planner_core::plan::Plan;
use planner_core::search::ServingScenario;
use search_worker::{rank_kinds, FromWorker, SizedPlan, ToWorker};
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
    /// Kinds sized of all.
    Running {
        /// GPU kinds whose search is back.
        done: usize,
        /// GPU kinds in all.
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
    /// Whether every priced GPU kind was sized (else the plan's own).
    pub across_kinds: bool,
    /// The answers: the own kind's, fewest GPUs first; or each kind's
    /// best, cheapest first.
    pub plans: Vec<SizedPlan>,
    /// Candidates evaluated over every kind.
    pub evaluated: u32,
    /// Why the own kind's search could not run, in English, when it
    /// could not.
    pub problem: Option<String>,
}

/// What one GPU kind's search sent back.
struct KindBack {
    plans: Vec<SizedPlan>,
    evaluated: u32,
    problem: Option<String>,
}

/// The workers of one sizing, the kinds not yet handed out and what came
/// back.
struct Job {
    id: u64,
    workers: Workers,
    /// (kind index, message) not yet handed out; the next is the last.
    queue: Vec<(usize, String)>,
    /// The kind each worker searches.
    busy: Vec<Option<usize>>,
    /// Each kind's answers and candidates, once back.
    back: Vec<Option<KindBack>>,
}

impl Job {
    /// Hands worker `i` the next kind, if one is left.
    fn hand_out(&mut self, i: usize) {
        if let Some((kind, msg)) = self.queue.pop() {
            self.busy[i] = Some(kind);
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

    /// Sizes each of `kinds` (the own kind first) in workers, stopping
    /// any running sizing; `across_kinds` lists each kind's best answer.
    pub fn start(self, kinds: Vec<ServingScenario>, across_kinds: bool) {
        self.drop_job();
        self.outcome.set(None);
        let Some(first) = kinds.first() else { return };
        let (base, budget) = (first.base.clone(), first.max_gpus);
        let total = kinds.len();
        // Every kind's answers list their changes against the plan sized.
        let from = Some(Box::new(base.clone()));
        let mut queue: Vec<(usize, String)> = kinds
            .into_iter()
            .enumerate()
            .map(|(k, s)| {
                let msg = ToWorker::Size {
                    scenario: Box::new(s),
                    from: from.clone(),
                };
                (k, msg.to_json())
            })
            .collect();
        // The own kind is handed out first.
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
        let ends = Rc::new((base, budget, across_kinds));
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
                if let Some(kind) = j.busy[i].take() {
                    j.back[kind] = Some(KindBack {
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
                let back: Vec<KindBack> = j.back.iter_mut().filter_map(Option::take).collect();
                drop(j);
                self.finish(back, ends);
            }
            _ => {
                drop(j);
                self.fail();
            }
        }
    }

    /// Every kind is back: the outcome, and idle.
    fn finish(self, back: Vec<KindBack>, ends: &(Plan, u32, bool)) {
        let (base, budget, across_kinds) = ends.clone();
        let evaluated = back.iter().map(|b| b.evaluated).sum();
        let problem = back.first().and_then(|b| b.problem.clone());
        let per_kind: Vec<Vec<SizedPlan>> = back.into_iter().map(|b| b.plans).collect();
        let plans = if across_kinds {
            rank_kinds(&per_kind)
        } else {
            per_kind.into_iter().next().unwrap_or_default()
        };
        self.outcome.set(Some(SizedOutcome {
            base,
            budget,
            across_kinds,
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
