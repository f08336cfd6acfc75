//! The messages between the page and its search workers, and what a worker
//! does with each: pure, so it is tested natively (the worker's `main`
//! only moves strings between this and the browser).
//!
//! The page starts a worker, waits for [`FromWorker::Ready`], sends the
//! scenario once ([`ToWorker::Scenario`]), then one slice at a time
//! ([`ToWorker::Slice`]); the worker answers each slice with its
//! [`Partial`] ([`FromWorker::Done`]). The page hands the next slice to
//! whichever worker answered, so the slices spread over the workers as
//! they finish, and merges the partials with the core's
//! [`planner_core::search::merge`]. Sizing replicas to a plan's request
//! stream ([`ToWorker::Size`]) is one message per way to carry it (the
//! core's `serving_ways`), each to one worker: the core's serving search,
//! answered with the plans it found ([`FromWorker::Sized`]); the page
//! ranks the ways' answers with [`rank_ways`].
//! Every message is JSON text, its
//! enums externally tagged (`{"slice": {…}}`): an internally tagged enum
//! buffers its content and so instantiates a second copy of the plan's
//! whole `Deserialize` in the page's module.

use planner_core::diff::Change;
use planner_core::effort::PlanFamily;
use planner_core::report::{Interval, StreamVerdict};
use planner_core::search::{
    merge, search_serving, search_slice, ties, Found, Partial, Scenario, SearchResult,
    ServingScenario, ServingSearch, Slice, WayKey,
};
use planner_core::units::{Seconds, Usd};
use serde::{Deserialize, Serialize};

/// A message from the page to a worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ToWorker {
    /// The scenario the following slices belong to.
    Scenario {
        /// The whole scenario.
        scenario: Box<Scenario>,
    },
    /// Walk this slice of the scenario's space.
    Slice {
        /// The slice.
        slice: Slice,
    },
    /// Merge these partials of the scenario into its result.
    Merge {
        /// Every slice's partial.
        parts: Vec<Partial>,
    },
    /// Size replicas and engine knobs to the base plan's request stream
    /// (the core's serving search).
    Size {
        /// The serving scenario.
        scenario: Box<ServingScenario>,
        /// The way it sizes: the plan's own GPU and formats, other
        /// formats, another GPU kind or both.
        family: PlanFamily,
        /// The plan the answers' changes are listed against, when it is
        /// not the scenario's base (sizing on another GPU kind lists the
        /// kind's change too).
        #[serde(default)]
        from: Option<Box<planner_core::Plan>>,
    },
}

/// A message from a worker to the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum FromWorker {
    /// The worker's module has started and listens.
    Ready,
    /// A slice is walked.
    Done {
        /// What its walk kept and counted.
        partial: Box<Partial>,
    },
    /// The merged result, as much of it as the page shows: the plans
    /// [`listed`] lists, each with its tie. (The whole `SearchResult`
    /// would make the page's module carry the `Deserialize` of every
    /// diagnostic, about 150 KB gzip.)
    Merged {
        /// The listed plans, in order.
        plans: Vec<ListedPlan>,
        /// Plans evaluated.
        evaluated: u64,
        /// Plans left out: levers the training stack cannot run.
        #[serde(default)]
        unsupported: u64,
        /// GPU kinds tried that have no price.
        unpriced: Vec<String>,
    },
    /// The serving search's answers.
    Sized {
        /// Its answers, fewest GPUs first ([`sized_plans`]).
        plans: Vec<SizedPlan>,
        /// Candidates evaluated.
        evaluated: u32,
        /// Those that carry the rate within the SLOs and the budget.
        feasible: u32,
        /// Why the search could not run, in English, when it could not.
        problem: Option<String>,
    },
    /// A message could not be acted on.
    Failed {
        /// Why, in English (a programming error, not a user's).
        message: String,
    },
}

impl ToWorker {
    /// The message as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl FromWorker {
    /// The message as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A message from the JSON text a worker posted.
    pub fn from_json(json: &str) -> Result<FromWorker, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }
}

/// Why a plan is listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Listed {
    /// On the cost–latency frontier.
    Frontier,
    /// The cheapest plan of its family.
    Best(PlanFamily),
}

/// One plan the page lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListedPlan {
    /// Why it is listed.
    pub listed: Listed,
    /// The plan and its figures, as the core found them.
    pub found: Found,
    /// The first earlier listed plan it ties with within the model's
    /// uncertainty (`planner_core::search::ties`).
    pub tie: Option<usize>,
    /// How the plan serves its request stream, where it has one: the
    /// search ranks a serving plan by its batch's figures, and this is
    /// the stream's answer (`Report::stream_verdict`, the simulator run
    /// here, in the worker, for the few plans listed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served: Option<StreamVerdict>,
}

/// One answer of the serving search, as much as the page lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizedPlan {
    /// The plan, its replicas as data-parallel copies.
    pub plan: planner_core::Plan,
    /// Its GPU's name.
    pub gpu: String,
    /// What changed against the base plan.
    pub changes: Vec<Change>,
    /// GPUs over all replicas.
    pub gpus: u32,
    /// Replicas.
    pub replicas: u32,
    /// Time to first token, p99: the simulator's where it checked the
    /// answer, else the steady state's.
    pub ttft_p99: Seconds,
    /// Time per output token: the simulator's p99 where it checked the
    /// answer, else the steady state's mean.
    pub tpot: Seconds,
    /// Whether the simulator checked the answer against the SLOs.
    pub simulated: bool,
    /// The hardware's price per hour (`None` without a price).
    pub usd_per_hour: Option<Usd>,
    /// Dollars per million output tokens at the stream's rate.
    pub usd_per_million_output: Option<Usd>,
    /// The way it was sized.
    pub family: PlanFamily,
    /// The price per hour the stream may need
    /// (`planner_core::search::cost_range`).
    pub cost_range: Option<Interval<f64>>,
    /// The first earlier answer it ties with, once the ways' answers are
    /// ranked ([`rank_ways`]).
    pub tie: Option<usize>,
}

/// The serving search's answers the page lists: its frontier of GPUs
/// against TPOT, fewest GPUs first (the first is its best answer), each
/// of way `family` with its cost range.
pub fn sized_plans(r: &ServingSearch, family: PlanFamily) -> Vec<SizedPlan> {
    r.frontier
        .iter()
        .map(|f| {
            let ttft_p99 = f
                .simulated
                .as_ref()
                .map_or(f.analytic.ttft.p99, |m| m.ttft.p99);
            let tpot = planner_core::search::listed_tpot(f);
            SizedPlan {
                gpu: f.plan.hardware.gpu.name().to_string(),
                plan: f.plan.clone(),
                changes: f.changes.clone(),
                gpus: f.gpus,
                replicas: f.replicas,
                ttft_p99,
                tpot,
                simulated: f.simulated.is_some(),
                usd_per_hour: f.usd_per_hour,
                usd_per_million_output: f.usd_per_million_output(),
                family,
                cost_range: f
                    .usd_per_hour
                    .and_then(|u| planner_core::search::cost_range(&f.plan, u)),
                tie: None,
            }
        })
        .collect()
}

/// Sizing several ways: each way's best answer (the first of its
/// [`sized_plans`]), in the core's order
/// ([`planner_core::search::rank_ways`]: cheapest per hour first, a tie
/// for the lead to the answer that keeps the number formats), each with
/// its tie.
pub fn rank_ways(per_way: &[Vec<SizedPlan>]) -> Vec<SizedPlan> {
    let best: Vec<&SizedPlan> = per_way.iter().filter_map(|k| k.first()).collect();
    let keys: Vec<WayKey> = best
        .iter()
        .map(|p| WayKey::new(p.usd_per_hour, p.gpus, p.cost_range, &p.changes, p.tpot))
        .collect();
    planner_core::search::rank_ways(&keys)
        .into_iter()
        .map(|(i, tie)| SizedPlan {
            tie,
            ..best[i].clone()
        })
        .collect()
}

/// The listed plans of a result, each with its tie.
pub fn listed_plans(result: &SearchResult) -> Vec<ListedPlan> {
    let rows = listed(result);
    let found: Vec<&Found> = rows.iter().map(|(_, f)| *f).collect();
    let ties = ties(&found);
    rows.into_iter()
        .zip(ties)
        .map(|((listed, found), tie)| ListedPlan {
            listed,
            found: found.clone(),
            tie,
            served: streamed(&found.plan),
        })
        .collect()
}

/// The stream verdict of a plan with a request stream.
fn streamed(plan: &planner_core::Plan) -> Option<StreamVerdict> {
    match &plan.workload {
        planner_core::plan::Workload::Inference(i) if i.stream.is_some() => {
            planner_core::evaluate(plan).stream_verdict()
        }
        _ => None,
    }
}

/// Frontier plans listed, at most.
pub const FRONTIER_SHOWN: usize = 5;

/// The plans the page lists, in order: the first frontier plans (cheapest
/// first), then the cheapest plan of each family that is not already
/// listed.
pub fn listed(r: &SearchResult) -> Vec<(Listed, &Found)> {
    let mut v: Vec<(Listed, &Found)> = r
        .frontier
        .iter()
        .take(FRONTIER_SHOWN)
        .map(|f| (Listed::Frontier, f))
        .collect();
    for (fam, f) in [
        (PlanFamily::Algorithmic, &r.best.algorithmic),
        (PlanFamily::Hardware, &r.best.hardware),
        (PlanFamily::Hybrid, &r.best.hybrid),
    ] {
        if let Some(f) = f {
            if !v.iter().any(|(_, g)| g.plan == f.plan) {
                v.push((Listed::Best(fam), f));
            }
        }
    }
    v
}

/// What a worker answers to one message; `held` is the scenario it was
/// last sent. A scenario is kept without an answer.
pub fn answer(held: &mut Option<Scenario>, message: &str) -> Option<FromWorker> {
    let failed = |message: String| Some(FromWorker::Failed { message });
    match serde_json::from_str::<ToWorker>(message) {
        Err(e) => failed(format!("unreadable message: {e}")),
        Ok(ToWorker::Scenario { scenario }) => {
            *held = Some(*scenario);
            None
        }
        Ok(ToWorker::Slice { slice }) => match held {
            Some(s) => Some(FromWorker::Done {
                partial: Box::new(search_slice(s, slice)),
            }),
            None => failed("a slice before its scenario".into()),
        },
        Ok(ToWorker::Merge { parts }) => match held {
            Some(s) => {
                let result = merge(s, &parts);
                Some(FromWorker::Merged {
                    plans: listed_plans(&result),
                    evaluated: result.counts.evaluated,
                    unsupported: result.counts.unsupported,
                    unpriced: result.unpriced,
                })
            }
            None => failed("a merge before its scenario".into()),
        },
        Ok(ToWorker::Size {
            scenario,
            family,
            from,
        }) => {
            let r = search_serving(&scenario);
            let mut plans = sized_plans(&r, family);
            if let Some(from) = from {
                for p in &mut plans {
                    p.changes = planner_core::diff::changes(&from, &p.plan);
                    p.plan.name = planner_core::diff::name(&from, &p.plan, &p.changes);
                }
            }
            Some(FromWorker::Sized {
                plans,
                evaluated: r.evaluated,
                feasible: r.feasible,
                problem: r.problem,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::search::{search, slices};

    fn small() -> Scenario {
        let mut s = planner_core::search::example_scenario();
        s.base = planner_core::example_plan();
        s.max_gpus = 8;
        s.constraints.gpu_kinds = None;
        s
    }

    #[test]
    fn a_worker_walks_the_slices_it_is_sent() {
        let s = small();
        let mut held = None;
        let sent = ToWorker::Scenario {
            scenario: Box::new(s.clone()),
        };
        assert_eq!(answer(&mut held, &sent.to_json()), None);
        let mut parts = Vec::new();
        for slice in slices(&s) {
            let reply = answer(&mut held, &ToWorker::Slice { slice }.to_json());
            let json = reply.map(|r| r.to_json()).unwrap_or_default();
            let partial = match FromWorker::from_json(&json) {
                Ok(FromWorker::Done { partial }) => Some(*partial),
                _ => None,
            };
            assert!(partial.is_some(), "expected a partial, got {json}");
            parts.extend(partial);
        }
        let whole = search(&s);
        let reply = answer(&mut held, &ToWorker::Merge { parts }.to_json());
        let json = reply.map(|r| r.to_json()).unwrap_or_default();
        let merged = FromWorker::from_json(&json);
        assert!(
            matches!(merged, Ok(FromWorker::Merged { .. })),
            "expected the merged result, got {json}"
        );
        if let Ok(FromWorker::Merged {
            plans,
            evaluated,
            unsupported,
            unpriced,
        }) = merged
        {
            assert_eq!(plans, listed_plans(&whole));
            assert_eq!(plans.len(), listed(&whole).len());
            assert_eq!(evaluated, whole.counts.evaluated);
            assert_eq!(unsupported, whole.counts.unsupported);
            assert_eq!(unpriced, whole.unpriced);
            assert!(plans
                .iter()
                .enumerate()
                .all(|(i, p)| p.tie.is_none_or(|j| j < i)));
        }
    }

    #[test]
    fn listed_plans_are_the_frontier_then_unlisted_family_bests() {
        let s = small();
        let r = search(&s);
        let rows = listed(&r);
        assert!(!rows.is_empty());
        let frontier = rows.iter().filter(|(k, _)| *k == Listed::Frontier).count();
        assert_eq!(frontier, r.frontier.len().min(FRONTIER_SHOWN));
        for (i, (_, f)) in rows.iter().enumerate() {
            assert!(f.plan.hardware.gpus <= s.max_gpus);
            assert!(rows[..i].iter().all(|(_, g)| g.plan != f.plan));
        }
    }

    #[test]
    fn a_slice_before_the_scenario_or_noise_fails_by_name() {
        let mut held = None;
        let slice = slices(&small())[0];
        let r = answer(&mut held, &ToWorker::Slice { slice }.to_json());
        assert!(matches!(r, Some(FromWorker::Failed { message }) if message.contains("scenario")));
        let r = answer(&mut held, "{\"kind\":\"reboot\"}");
        assert!(
            matches!(r, Some(FromWorker::Failed { message }) if message.contains("unreadable"))
        );
    }

    /// tests/e2e/bench.mjs times the GPT-3 example search in the browser
    /// from this plan: it must stay the example scenario's base plan.
    #[test]
    fn the_browser_benchs_gpt3_plan_is_the_example_scenarios() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/e2e/gpt3-plan.json"
        );
        let base = planner_core::search::example_scenario().base;
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let plan = planner_core::Plan::from_json(&text).ok();
        assert_eq!(
            plan.as_ref(),
            Some(&base),
            "{path} should hold:\n{}",
            base.to_json()
        );
    }

    /// A worker sizes a serving plan to its stream as the core's serving
    /// search does, its answers fewest GPUs first, each within the
    /// budget, meeting the stream's SLOs where the simulator checked it,
    /// and a plan `evaluate` accepts; a plan it cannot size says why.
    #[test]
    fn a_worker_sizes_replicas_to_the_stream() {
        let s = planner_core::search::example_serving_scenario();
        let whole = search_serving(&s);
        let mut held = None;
        let msg = ToWorker::Size {
            scenario: Box::new(s.clone()),
            family: PlanFamily::Baseline,
            from: None,
        };
        let reply = answer(&mut held, &msg.to_json()).map(|r| r.to_json());
        let sized = reply.as_deref().map(FromWorker::from_json);
        let (plans, evaluated, feasible, problem) = match sized {
            Some(Ok(FromWorker::Sized {
                plans,
                evaluated,
                feasible,
                problem,
            })) => (plans, evaluated, feasible, problem),
            _ => (
                Vec::new(),
                0,
                0,
                Some(format!("not the sized plans: {reply:?}")),
            ),
        };
        assert_eq!(problem, None);
        assert_eq!((evaluated, feasible), (whole.evaluated, whole.feasible));
        assert_eq!(plans, sized_plans(&whole, PlanFamily::Baseline));
        assert!(!plans.is_empty());
        assert_eq!(
            plans.first().map(|p| &p.plan),
            whole.best.as_ref().map(|b| &b.plan)
        );
        for (i, p) in plans.iter().enumerate() {
            assert!(p.gpus <= s.max_gpus);
            assert_eq!(p.gpus, p.plan.hardware.gpus);
            assert!(i == 0 || p.gpus >= plans[i - 1].gpus);
            assert!(i == 0 || p.tpot < plans[i - 1].tpot);
            let report = planner_core::evaluate(&p.plan);
            assert_ne!(report.verdict, planner_core::Verdict::Invalid);
            assert!(p.usd_per_million_output.is_some_and(|u| u.base() > 0.0));
        }
        let mut bad = s.clone();
        bad.base = planner_core::example_plan();
        let msg = ToWorker::Size {
            scenario: Box::new(bad),
            family: PlanFamily::Baseline,
            from: None,
        };
        let r = answer(&mut held, &msg.to_json());
        assert!(
            matches!(&r, Some(FromWorker::Sized { plans, problem: Some(p), .. }) if plans.is_empty() && p.contains("serving")),
            "{r:?}"
        );
    }

    /// Sized on another GPU kind against the user's plan, an answer lists
    /// the kind among its changes.
    #[test]
    fn another_kinds_answers_list_the_kind() {
        let s = planner_core::search::example_serving_scenario();
        let kinds = planner_core::search::on_each_gpu_kind(&s);
        let other = kinds
            .iter()
            .find(|k| search_serving(k).best.is_some() && k.base != s.base);
        assert!(other.is_some(), "no other kind sized");
        let Some(other) = other else { return };
        let msg = ToWorker::Size {
            scenario: Box::new(other.clone()),
            family: PlanFamily::Hardware,
            from: Some(Box::new(s.base.clone())),
        };
        let plans = match answer(&mut None, &msg.to_json()) {
            Some(FromWorker::Sized { plans, .. }) => plans,
            _ => Vec::new(),
        };
        assert!(!plans.is_empty());
        for p in &plans {
            assert!(
                p.changes
                    .iter()
                    .any(|c| c.setting == planner_core::diff::Setting::GpuKind),
                "{:?}",
                p.changes
            );
        }
    }

    /// The page's ranking of the ways' answers is the core's, ties and
    /// all, and each answer keeps its way's family.
    #[test]
    fn ways_rank_as_the_core_ranks_them() {
        use planner_core::search::{rank_answers, serving_ways, Permission};
        let s = planner_core::search::example_serving_scenario();
        let ways: Vec<_> = serving_ways(&s, Permission::Allowed, Permission::Allowed)
            .into_iter()
            .take(7)
            .collect();
        let results: Vec<ServingSearch> =
            ways.iter().map(|w| search_serving(&w.scenario)).collect();
        let per_way: Vec<Vec<SizedPlan>> = ways
            .iter()
            .zip(&results)
            .map(|(w, r)| {
                let mut plans = sized_plans(r, w.family);
                for p in &mut plans {
                    p.changes = planner_core::diff::changes(&s.base, &p.plan);
                    p.plan.name = planner_core::diff::name(&s.base, &p.plan, &p.changes);
                }
                plans
            })
            .collect();
        let ranked: Vec<(planner_core::Plan, PlanFamily, Option<usize>)> = rank_ways(&per_way)
            .into_iter()
            .map(|p| (p.plan, p.family, p.tie))
            .collect();
        let answers = ways
            .iter()
            .zip(&results)
            .filter_map(|(w, r)| r.best.clone().map(|b| (w.family, b)))
            .collect();
        let core: Vec<(planner_core::Plan, PlanFamily, Option<usize>)> =
            rank_answers(&s.base, answers)
                .into_iter()
                .map(|r| (r.answer.plan, r.family, r.tie))
                .collect();
        assert!(ranked.len() > 3);
        assert_eq!(ranked, core);
        assert!(ranked.iter().any(|r| r.1 == PlanFamily::Algorithmic));
    }

    /// A search from a plan with a request stream lists each plan with
    /// the stream's answer (the search itself ranks its batch's figures);
    /// a plan without one has none.
    #[test]
    fn listed_serving_plans_say_how_they_serve_their_stream() {
        let mut s = small();
        s.base = planner_core::example_serving_plan();
        let plans = listed_plans(&search(&s));
        assert!(!plans.is_empty());
        for p in &plans {
            let want = planner_core::evaluate(&p.found.plan).stream_verdict();
            assert_eq!(p.served, want);
        }
        assert!(plans.iter().any(|p| p.served.is_some()));
        assert!(listed_plans(&search(&small()))
            .iter()
            .all(|p| p.served.is_none()));
    }
}
