//! Tests of the search that need its insides: pruning against an
//! exhaustive walk, and generated candidates against `evaluate`.

use super::*;
use crate::catalog::{GpuId, ModelId};
use crate::diagnostics::DiagnosticKind;
use crate::effort::PlanFamily;
use crate::evaluate::evaluate;
use crate::examples::example_plan;
use crate::hardware::{GpuChoice, Hardware};
use crate::plan::{
    Inference, Levers, LogitsScope, ModelChoice, Overheads, Parallelism, Training, TrainingKind,
};
use crate::report::{TimeReport, Verdict};
use crate::units::{Bytes, Seconds};

/// Llama 2 7B pre-training from 8×H100, up to 16 GPUs of two kinds, with
/// NVMe, the default CXL option, CP and interleaving bounded small.
fn small_training() -> Scenario {
    let mut base = example_plan();
    if let Workload::Training(t) = &mut base.workload {
        t.global_batch = 16;
    }
    base.hardware.nvme_per_node = Bytes::from_tb(4.0);
    Scenario {
        version: 1,
        name: "small training".into(),
        base,
        max_gpus: 16,
        gpu_counts: GpuCounts::PowersOfTwo,
        constraints: Constraints {
            gpu_kinds: Some(vec![GpuId::H100Sxm, GpuId::A100Sxm40]),
            ..Constraints::default()
        },
        space: Space {
            max_context_parallel: 2,
            max_micro_batch: 4,
            interleaving: Interleaving::UpTo { chunks: 2 },
            ..Space::default()
        },
        prices: Vec::new(),
    }
}

/// Llama 3.1 8B serving on up to 8 H100s.
fn small_serving() -> Scenario {
    let base = Plan {
        version: 1,
        name: "serve".into(),
        model: ModelChoice::Preset(ModelId::Llama31_8b),
        workload: Workload::Inference(Inference {
            prompt_tokens: 2000,
            output_tokens: 500,
            batch: 32,
            logits: LogitsScope::LastToken,
            stream: None,
        }),
        levers: Levers::default(),
        hardware: Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1),
        overheads: Overheads::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    };
    Scenario {
        version: 1,
        name: "small serving".into(),
        base,
        max_gpus: 8,
        gpu_counts: GpuCounts::PowersOfTwo,
        constraints: Constraints {
            gpu_kinds: Some(vec![GpuId::H100Sxm, GpuId::A100Sxm80]),
            ..Constraints::default()
        },
        space: Space {
            // Batch 128 fits one H100 since the allocator model replaced
            // the flat 10 % on prefill activations; 512 keeps a size past
            // the first that does not fit, so pruning rule 1 is exercised.
            max_batch: 512,
            ..Space::default()
        },
        prices: Vec::new(),
    }
}

/// Mixtral 8×7B fine-tuning on up to 16 H100s: expert parallelism.
fn small_moe() -> Scenario {
    let base = Plan {
        version: 1,
        name: "moe".into(),
        model: ModelChoice::Preset(ModelId::Mixtral8x7b),
        workload: Workload::Training(Training {
            kind: TrainingKind::FullFineTune,
            seq_len: 4096,
            global_batch: 16,
            tokens: 1e9,
        }),
        levers: Levers {
            parallel: Parallelism {
                tp: 2,
                pp: 2,
                dp: 2,
                ep: 2,
                ..Parallelism::default()
            },
            sharding: crate::plan::Sharding::Zero1,
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 8),
        overheads: Overheads::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    };
    Scenario {
        version: 1,
        name: "small moe".into(),
        base,
        max_gpus: 16,
        gpu_counts: GpuCounts::PowersOfTwo,
        constraints: Constraints {
            gpu_kinds: Some(vec![GpuId::H100Sxm]),
            ..Constraints::default()
        },
        space: Space {
            max_context_parallel: 1,
            max_micro_batch: 4,
            interleaving: Interleaving::Off,
            ..Space::default()
        },
        prices: Vec::new(),
    }
}

/// The small training scenario with two other frameworks to move to.
fn small_frameworks() -> Scenario {
    use crate::stack::TrainingStack;
    let mut s = small_training();
    s.name = "small training on the HF Trainer, three frameworks".into();
    s.base.levers.training_stack = Some(TrainingStack::HfTrainer);
    s.space.training_stacks = vec![TrainingStack::MegatronCore, TrainingStack::Torchtitan];
    s
}

/// The small training scenario on the HF Trainer with eager attention:
/// the search also tries FlashAttention-2 (`Space::flash_attention`).
fn small_eager() -> Scenario {
    use crate::stack::TrainingStack;
    let mut s = small_training();
    s.name = "small training on the HF Trainer, eager attention".into();
    s.base.levers.training_stack = Some(TrainingStack::HfTrainer);
    s.base.levers.attention = crate::plan::AttentionKernel::Eager;
    s
}

fn scenarios() -> [Scenario; 5] {
    [
        small_training(),
        small_serving(),
        small_moe(),
        small_frameworks(),
        small_eager(),
    ]
}

/// Serving under placement by heat, on a small space.
fn small_by_heat() -> Scenario {
    let mut s = small_serving();
    s.name = "small serving by heat".into();
    s.base.levers.placement = crate::plan::Placement::ByHeat;
    s.base.workload = Workload::Inference(Inference {
        prompt_tokens: 8000,
        output_tokens: 2000,
        batch: 64,
        logits: LogitsScope::LastToken,
        stream: None,
    });
    s.max_gpus = 2;
    s.constraints.gpu_kinds = Some(vec![GpuId::H100Sxm]);
    s
}

/// Every evaluated candidate: its plan, and whether and how fast it ran.
#[derive(Default)]
struct Seen {
    every: usize,
    count: usize,
    sampled: Vec<(Plan, Option<QuickTime>)>,
    fitting_gpus: Vec<u32>,
    families: Vec<PlanFamily>,
}

impl Observe for Seen {
    fn seen(&mut self, ctx: &Ctx, hw: usize, n: u32, c: &Choice, time: Option<QuickTime>) {
        if time.is_some() {
            self.fitting_gpus.push(n);
        }
        let family = ctx.family(hw, n, c);
        if !self.families.contains(&family) {
            self.families.push(family);
        }
        if self.count % self.every.max(1) == 0 {
            self.sampled.push((ctx.plan(hw, n, c), time));
        }
        self.count += 1;
    }
}

/// Checks every candidate's memory against a fresh fill without memos.
#[derive(Default)]
struct Fresh {
    checked: usize,
    /// The time of the candidate last filled, from a fresh fill and no
    /// memo.
    expected: Option<QuickTime>,
    /// Candidates whose walked time was compared with it.
    timed: usize,
}

impl Observe for Fresh {
    const WHOLE_TABLES: bool = true;

    fn seen(&mut self, _: &Ctx, _: usize, _: u32, c: &Choice, time: Option<QuickTime>) {
        // The paced-stage memo (`time::training::StageMemo`) changes no
        // time: the walk's equals a fresh evaluation's to the bit.
        if let (Some(walked), Some(fresh)) = (time, self.expected.take()) {
            let bits = |t: QuickTime| match t {
                QuickTime::Training {
                    step,
                    tokens_per_step,
                } => [step.base().to_bits(), tokens_per_step.to_bits(), 0, 0],
                QuickTime::Inference {
                    ttft,
                    tpot,
                    request_latency,
                    output_tokens_per_second,
                } => [
                    ttft.base().to_bits(),
                    tpot.base().to_bits(),
                    request_latency.base().to_bits(),
                    output_tokens_per_second.to_bits(),
                ],
            };
            assert_eq!(bits(walked), bits(fresh), "{c:?}");
            self.timed += 1;
        }
    }

    fn filled(&mut self, r: &Resolved, walked: &crate::memory::Tables) {
        // The split the walk kept (it repartitions only when the degrees or
        // the weights change) is the one the plan would get.
        let split = crate::partition::Split::of(r);
        assert_eq!(format!("{:?}", r.split), format!("{split:?}"));
        let mut fresh = crate::memory::Tables::default();
        fresh.fill(r);
        let (a, b) = (walked.tables(), fresh.tables());
        assert_eq!(a.len(), b.len());
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert_eq!((x.role, x.rank, x.layers), (y.role, y.rank, y.layers));
            let bits = |t: &crate::quick::Breakdown| t.bytes.map(|row| row.map(f64::to_bits));
            assert_eq!(bits(x), bits(y), "device {i} of {:?}", r.levers);
            assert_eq!(walked.fits(r, i), fresh.fits(r, i));
            let margin = |t: &crate::memory::Tables| t.hbm_margin(r, i).to_bits();
            assert_eq!(margin(walked), margin(&fresh));
        }
        self.expected = Some(crate::quick::time_of(r, &fresh));
        self.checked += 1;
    }
}

/// The search's memos (activation walks, allocator mixes, paced stages)
/// and the splits it keeps from one candidate to the next change no
/// number: every candidate, filled in walk order through the search's
/// tables, has the tables of a fresh fill to the bit, and every fitting
/// one the step time or latencies of a fresh evaluation. Also on bases whose per-parameter
/// states (torchtitan, HF eager) go through the allocator memo.
#[test]
fn memos_and_kept_splits_change_no_number() {
    use crate::software::MemoryStack;
    let mut torchtitan = small_training();
    torchtitan.base.levers.memory.stack = Some(MemoryStack::Torchtitan);
    let mut hf = small_moe();
    hf.base.levers.memory.stack = Some(MemoryStack::HfEager);
    let mut all = scenarios().to_vec();
    all.extend([torchtitan, hf, small_by_heat()]);
    for s in all {
        let mut fresh = Fresh::default();
        let r = run(&s, Mode::Pruned, &mut fresh);
        assert_eq!(fresh.checked as u64, r.counts.evaluated, "{}", s.name);
        assert!(fresh.checked >= 100, "{}: {}", s.name, fresh.checked);
        assert_eq!(fresh.timed as u64, r.counts.fitting, "{}", s.name);
    }
}

/// An observer that asks for whole tables and looks at nothing.
struct Whole;

impl Observe for Whole {
    const WHOLE_TABLES: bool = true;
    fn seen(&mut self, _: &Ctx, _: usize, _: u32, _: &Choice, _: Option<QuickTime>) {}
}

/// Stopping a candidate's memory once a tier is past its capacity
/// (`Tables::verdict_only`, what the search does unobserved) changes no
/// answer and no count: the same frontier, inverse answers and counters as
/// a walk that fills every table whole.
#[test]
fn stopping_at_capacity_changes_no_answer() {
    let mut all = scenarios().to_vec();
    all.push(small_by_heat());
    for s in all {
        let quick = run(&s, Mode::Pruned, &mut ());
        let whole = run(&s, Mode::Pruned, &mut Whole);
        assert_eq!(quick, whole, "{}", s.name);
        assert!(
            quick.counts.fitting < quick.counts.evaluated,
            "{}: every candidate fit",
            s.name
        );
    }
}

#[test]
fn pruning_keeps_the_frontier_and_the_inverse_answers() {
    for s in scenarios() {
        let pruned = run(&s, Mode::Pruned, &mut ());
        let all = run(&s, Mode::Exhaustive, &mut ());
        assert!(!pruned.frontier.is_empty(), "{}", s.name);
        assert_eq!(pruned.frontier, all.frontier, "{}", s.name);
        assert_eq!(pruned.fewest_gpus, all.fewest_gpus, "{}", s.name);
        assert_eq!(pruned.largest_batch, all.largest_batch, "{}", s.name);
        assert_eq!(pruned.by_gpu_kind, all.by_gpu_kind, "{}", s.name);
        let (p, a) = (&pruned.counts, &all.counts);
        assert_eq!(p.combinations, a.combinations);
        assert_eq!(a.evaluated, a.combinations);
        assert_eq!(
            p.evaluated + p.pruned_after_non_fit + p.pruned_idle_cxl,
            p.combinations
        );
        assert!(p.pruned_after_non_fit > 0, "{}: rule 1 never fired", s.name);
        // Pruning only skips plans that do not fit, or that fit the same as
        // a cheaper one.
        assert!(p.fitting <= a.fitting);
    }
}

#[test]
fn generated_candidates_are_plans_evaluate_accepts_and_agrees_with() {
    // Every 97th candidate of the larger spaces (a few hundred, spread over
    // them), every one under placement by heat.
    let mut all: Vec<(Scenario, usize)> = scenarios().into_iter().map(|s| (s, 97)).collect();
    all.push((small_by_heat(), 1));
    // A base Megatron-Core cannot run (FSDP SHARD_GRAD_OP) is searched on
    // torchtitan; its candidates that Megatron-Core could run must name
    // torchtitan, or `evaluate` would price them on another stack.
    let mut titan = small_training();
    titan.base.levers.sharding = crate::plan::Sharding::FsdpShardGradOp;
    assert_eq!(
        titan.base.training_stack(),
        Some(crate::stack::TrainingStack::Torchtitan)
    );
    all.push((titan, 97));
    for (s, every) in all {
        let mut seen = Seen {
            every,
            ..Seen::default()
        };
        run(&s, Mode::Exhaustive, &mut seen);
        assert!(
            seen.sampled.len() >= 100,
            "{}: {}",
            s.name,
            seen.sampled.len()
        );
        for (plan, time) in &seen.sampled {
            let report = evaluate(plan);
            let errors: Vec<_> = report
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .filter(|d| !matches!(d.detail, DiagnosticKind::OverCapacity { .. }))
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", s.name);
            assert_eq!(report.verdict == Verdict::Fits, time.is_some());
            let bits = |x: Seconds| x.base().to_bits();
            let agree = match (time, &report.time) {
                (Some(QuickTime::Training { step, .. }), TimeReport::Training(t)) => {
                    bits(*step) == bits(t.step)
                }
                (Some(QuickTime::Inference { ttft, tpot, .. }), TimeReport::Inference(t)) => {
                    bits(*ttft) == bits(t.ttft) && bits(*tpot) == bits(t.tpot)
                }
                (None, _) => true,
                (Some(_), _) => false,
            };
            assert!(agree, "{}: {time:?} vs {:?}", s.name, report.time);
        }
    }
}

#[test]
fn the_baseline_and_every_family_are_in_the_space() {
    for s in scenarios() {
        let mut seen = Seen {
            every: usize::MAX,
            ..Seen::default()
        };
        let r = run(&s, Mode::Exhaustive, &mut seen);
        for f in [
            PlanFamily::Baseline,
            PlanFamily::Algorithmic,
            PlanFamily::Hardware,
            PlanFamily::Hybrid,
        ] {
            assert!(seen.families.contains(&f), "{}: no {f:?}", s.name);
        }
        assert!(r.baseline.is_some());
    }
}

#[test]
fn fewest_gpus_is_the_fewest_that_fit() {
    for s in scenarios() {
        let mut seen = Seen {
            every: usize::MAX,
            ..Seen::default()
        };
        let r = run(&s, Mode::Exhaustive, &mut seen);
        let least = seen.fitting_gpus.iter().min().copied();
        assert_eq!(r.fewest_gpus.map(|f| f.plan.hardware.gpus), least);
    }
}

#[test]
fn frontier_is_sorted_and_undominated() {
    for s in scenarios() {
        let r = search(&s);
        let pts: Vec<(f64, f64)> = r
            .frontier
            .iter()
            .map(|f| {
                (
                    f.figures
                        .usd_per_million_tokens
                        .map_or(f64::INFINITY, |u| u.as_usd()),
                    f.figures.speed.latency().base(),
                )
            })
            .collect();
        for w in pts.windows(2) {
            assert!(w[0].0 <= w[1].0 && w[0].1 > w[1].1, "{}: {pts:?}", s.name);
        }
        for f in &r.frontier {
            assert_eq!(f.figures.verdict, Verdict::Fits);
        }
    }
}

/// Every plan a result returns: the frontier, the best of each family,
/// the fewest GPUs, the largest batch, the cheapest per GPU kind and the
/// baseline.
fn answers(r: &SearchResult) -> impl Iterator<Item = &Found> {
    r.frontier
        .iter()
        .chain(r.best.algorithmic.iter())
        .chain(r.best.hardware.iter())
        .chain(r.best.hybrid.iter())
        .chain(r.fewest_gpus.iter())
        .chain(r.largest_batch.iter())
        .chain(r.by_gpu_kind.iter())
        .chain(r.baseline.iter())
}

#[test]
fn families_are_those_effort_gives() {
    for s in scenarios() {
        let r = search(&s);
        for f in answers(&r) {
            assert_eq!(
                crate::effort::family(&f.plan, &s.base),
                f.family,
                "{}",
                s.name
            );
        }
    }
}

#[test]
fn placement_by_heat_is_searched_without_pruning() {
    let s = small_by_heat();
    let r = search(&s);
    assert!(!r.frontier.is_empty());
    assert_eq!(r.counts.evaluated, r.counts.combinations);
    assert!(r.counts.fitting < r.counts.evaluated);
}

#[test]
fn the_same_scenario_gives_the_same_result() {
    let s = small_training();
    assert_eq!(search(&s), search(&s));
}

#[test]
fn constraints_bind_every_answer() {
    let mut s = small_training();
    let base_step = search(&s)
        .baseline
        .map(|f| f.figures.speed.latency().base())
        .unwrap_or(0.0);
    // Plans at least as fast as the base plan.
    let cap = Seconds::from_secs(base_step);
    s.constraints.max_step_time = Some(cap);
    s.constraints.families = vec![PlanFamily::Algorithmic];
    s.constraints.offload = Permission::Forbidden;
    s.constraints.quantization = Permission::Forbidden;
    let r = search(&s);
    assert!(r.counts.feasible > 0 && r.counts.feasible < r.counts.fitting);
    let answers = r
        .frontier
        .iter()
        .chain(r.best.algorithmic.iter())
        .chain(r.fewest_gpus.iter())
        .chain(r.largest_batch.iter())
        .chain(r.by_gpu_kind.iter());
    for f in answers {
        assert!(f.figures.speed.latency().base() <= cap.base());
        assert_eq!(f.plan.hardware, s.base.hardware);
        assert_eq!(f.plan.levers.offload, s.base.levers.offload);
        assert_eq!(f.plan.levers.precision, s.base.levers.precision);
        assert!(matches!(
            f.family,
            PlanFamily::Algorithmic | PlanFamily::Baseline
        ));
    }
    assert!(r.best.hardware.is_none() && r.best.hybrid.is_none());
}

#[test]
fn the_hardware_family_keeps_the_base_levers() {
    let s = small_training();
    let r = search(&s);
    let h = r.best.hardware.expect("a hardware answer");
    let mut levers = h.plan.levers;
    levers.parallel.dp = s.base.levers.parallel.dp;
    assert_eq!(levers, s.base.levers);
    assert_ne!(h.plan.hardware, s.base.hardware);
}

/// NVL72 racks are GB200 and GB300: a plain B200 (an 8-GPU HGX board) or
/// an H100 is never put in a 72-GPU domain, and a budget that fits in the
/// node's own domain gets no NVL72 option (it would change nothing).
#[test]
fn nvl72_is_offered_to_the_rack_parts_only_and_only_where_it_matters() {
    let mut s = small_training();
    s.constraints.gpu_kinds = Some(vec![GpuId::Gb200, GpuId::B300, GpuId::B200, GpuId::H100Sxm]);
    s.max_gpus = s.max_gpus.max(16);
    let domains = |s: &Scenario, id: GpuId| {
        space::hardware_options(s, Permission::Allowed)
            .iter()
            .filter(|h| h.gpu == Some(id))
            .map(|h| h.hardware.scale_up_gpus())
            .collect::<Vec<_>>()
    };
    assert!(domains(&s, GpuId::Gb200).contains(&space::NVL72));
    assert!(domains(&s, GpuId::B300).contains(&space::NVL72));
    assert!(!domains(&s, GpuId::B200).contains(&space::NVL72));
    assert!(!domains(&s, GpuId::H100Sxm).contains(&space::NVL72));
    let mut within = s.clone();
    within.max_gpus = 8;
    within.base.hardware.gpus_per_node = 8;
    assert!(!domains(&within, GpuId::B300).contains(&space::NVL72));
}

#[test]
fn a_broken_base_plan_stops_the_search_with_its_diagnostics() {
    let mut s = small_training();
    if let ModelChoice::Preset(_) = s.base.model {
        let mut spec = crate::catalog::model(ModelId::Llama2_7b).spec;
        spec.hidden = 0;
        s.base.model = ModelChoice::Custom(crate::plan::CustomModel {
            shipped: None,
            name: "broken".into(),
            spec,
        });
    }
    let r = search(&s);
    assert!(r.frontier.is_empty() && r.counts.evaluated == 0);
    assert!(!r.diagnostics.is_empty());
}

#[test]
fn a_base_with_bad_degrees_is_still_searched() {
    let mut s = small_training();
    s.base.levers.parallel.tp = 3;
    let r = search(&s);
    assert!(r.baseline.is_none());
    assert!(!r.frontier.is_empty());
}

#[test]
fn example_scenario_round_trips() {
    let s = example_scenario();
    assert_eq!(Scenario::from_json(&s.to_json()), Ok(s));
}

/// The scenario searched in slices, each partial through JSON as a Web
/// Worker hands it back, merged in the order given.
fn sliced(s: &Scenario, reverse: bool) -> SearchResult {
    let mut parts: Vec<Partial> = slices(s)
        .into_iter()
        .map(|sl| Partial::from_json(&search_slice(s, sl).to_json()).expect("a partial"))
        .collect();
    if reverse {
        parts.reverse();
    }
    merge(s, &parts)
}

#[test]
fn slices_merged_are_the_whole_search_bit_for_bit() {
    let mut wide = small_serving();
    wide.name = "small serving on every priced GPU kind".into();
    wide.constraints.gpu_kinds = None;
    wide.max_gpus = 4;
    let mut cases = scenarios().to_vec();
    cases.push(small_by_heat());
    cases.push(wide);
    for s in &cases {
        let whole = search(s);
        assert!(slices(s).len() > 1, "{}", s.name);
        assert!(!whole.frontier.is_empty(), "{}", s.name);
        for reverse in [false, true] {
            let merged = sliced(s, reverse);
            assert_eq!(merged, whole, "{}", s.name);
            assert_eq!(merged.to_json(), whole.to_json(), "{}", s.name);
        }
    }
}

#[test]
fn a_repeated_or_foreign_slice_changes_nothing() {
    let s = small_training();
    let whole = search(&s);
    let mut parts: Vec<Partial> = slices(&s)
        .into_iter()
        .map(|sl| search_slice(&s, sl))
        .collect();
    parts.extend(parts.clone());
    parts.push(search_slice(
        &s,
        Slice {
            hardware: 99,
            first: 0,
            end: 1,
        },
    ));
    assert_eq!(merge(&s, &parts), whole);
    // Without one slice the counts drop: the merge does not invent it.
    let fewer = merge(&s, &parts[1..slices(&s).len()]);
    assert!(fewer.counts.combinations < whole.counts.combinations);
}

#[test]
fn a_stopped_search_has_no_slices_and_merges_to_its_diagnostics() {
    let mut s = small_training();
    s.max_gpus = 0;
    assert!(slices(&s).is_empty());
    assert_eq!(merge(&s, &[]), search(&s));
    assert!(!merge(&s, &[]).diagnostics.is_empty());
}

/// A scenario that lists other frameworks walks each as its own option: a
/// plan found on another names it, lists the move among its changes and
/// pays for it as a framework change; without the list no plan moves.
#[test]
fn a_search_moves_a_plan_to_another_framework_and_prices_the_move() {
    use crate::effort::{Lever, MigrationClass};
    let s = small_frameworks();
    let base_stack = s.base.training_stack();
    assert_eq!(base_stack, Some(crate::stack::TrainingStack::HfTrainer));
    let r = search(&s);
    assert_eq!(slices(&s).len(), 3 * slices(&small_training()).len());
    let moved: Vec<&Found> = answers(&r)
        .filter(|f| f.plan.training_stack() != base_stack)
        .collect();
    assert!(!moved.is_empty(), "no answer on another framework");
    for f in &moved {
        assert!(f.plan.levers.training_stack.is_some(), "{}", f.plan.name);
        assert_ne!(f.family, PlanFamily::Baseline);
        let efforts = crate::effort::efforts(&f.plan, &s.base, &f.plan.economics.engineering);
        let e = efforts
            .iter()
            .find(|e| e.lever == Lever::TrainingStack)
            .expect("the move is priced");
        assert_eq!(e.class, MigrationClass::FrameworkChange);
        assert!(
            crate::diff::changes(&s.base, &f.plan)
                .iter()
                .any(|c| c.setting == crate::diff::Setting::TrainingStack),
            "{}",
            f.plan.name
        );
    }
    // Megatron-Core's fused kernels make the fastest plan a move to it.
    let fastest = r.frontier.last().expect("a frontier");
    assert_eq!(
        fastest.plan.training_stack(),
        Some(crate::stack::TrainingStack::MegatronCore)
    );
    // Without the list, nothing moves.
    let mut stay = s.clone();
    stay.space.training_stacks.clear();
    let plain = search(&stay);
    for f in answers(&plain) {
        let efforts = crate::effort::efforts(&f.plan, &s.base, &f.plan.economics.engineering);
        assert!(
            efforts.iter().all(|e| e.lever != Lever::TrainingStack),
            "{}",
            f.plan.name
        );
    }
}

#[test]
fn a_search_moves_eager_attention_to_flash_attention_and_prices_it() {
    use crate::effort::{Lever, MigrationClass};
    use crate::plan::AttentionKernel;
    let s = small_eager();
    let r = search(&s);
    // Both GPU kinds (Hopper, Ampere) run FlashAttention-2: every hardware
    // option is walked twice.
    assert_eq!(slices(&s).len(), 2 * slices(&small_training()).len());
    let moved: Vec<&Found> = answers(&r)
        .filter(|f| f.plan.levers.attention == AttentionKernel::Flash)
        .collect();
    assert!(!moved.is_empty(), "no answer on FlashAttention-2");
    for f in &moved {
        assert_ne!(f.family, PlanFamily::Baseline);
        let efforts = crate::effort::efforts(&f.plan, &s.base, &f.plan.economics.engineering);
        let e = efforts
            .iter()
            .find(|e| e.lever == Lever::FusedAttention)
            .expect("the kernel switch is priced");
        assert_eq!(e.class, MigrationClass::Configuration);
        let change = f
            .changes
            .iter()
            .find(|c| c.setting == crate::diff::Setting::AttentionKernel)
            .expect("the kernel is listed as a change");
        assert_eq!(
            (change.from.as_str(), change.to.as_str()),
            ("eager", "flash")
        );
        assert_eq!(change.impact, crate::diff::Impact::None);
    }
    // FlashAttention-2 is faster and smaller than eager attention on the
    // same levers, so the fastest plan runs it.
    let fastest = r.frontier.last().expect("a frontier");
    assert_eq!(fastest.plan.levers.attention, AttentionKernel::Flash);
    // Forbidden, or on a GPU that does not run it, nothing moves.
    let mut stay = s.clone();
    stay.space.flash_attention = Permission::Forbidden;
    let mut volta = s.clone();
    volta.base.hardware = Hardware::new(GpuChoice::Preset(GpuId::V100Sxm2_32), 8);
    volta.constraints.gpu_kinds = Some(vec![GpuId::V100Sxm2_32]);
    for other in [stay, volta] {
        assert_eq!(
            slices(&other).len(),
            slices(&{
                let mut plain = other.clone();
                plain.base.levers.attention = AttentionKernel::Flash;
                plain
            })
            .len()
        );
        for f in answers(&search(&other)) {
            assert_eq!(
                f.plan.levers.attention,
                AttentionKernel::Eager,
                "{}",
                f.plan.name
            );
        }
    }
}

/// Serving formats: NVFP4 weights and compute only on parts with FP4
/// units, INT4 routed experts beside the base's attention only for an MoE.
#[test]
fn serving_formats_offer_nvfp4_on_fp4_parts_and_experts_alone_on_an_moe() {
    use crate::precision::Precision;
    let mut p = small_moe().base;
    p.workload = Workload::Inference(Inference {
        prompt_tokens: 1000,
        output_tokens: 200,
        batch: 8,
        logits: LogitsScope::LastToken,
        stream: None,
    });
    for (model, moe) in [(ModelId::Mixtral8x7b, true), (ModelId::Llama31_8b, false)] {
        p.model = ModelChoice::Preset(model);
        for (gpu, fp4) in [(GpuId::H100Sxm, false), (GpuId::B200, true)] {
            p.hardware = Hardware::new(GpuChoice::Preset(gpu), 8);
            let (r, _, _) = crate::resolve::resolve(&p);
            let formats = space::precisions(&r, p.levers.precision, Permission::Allowed);
            let nvfp4 = formats
                .iter()
                .any(|f| f.weights == Precision::Nvfp4 && f.compute == Precision::Nvfp4);
            assert_eq!(nvfp4, fp4, "{model:?} on {gpu:?}");
            let experts_alone = formats.iter().any(|f| {
                f.weights == Precision::Bf16
                    && f.experts == Some(Precision::Int4 { group_size: 128 })
            });
            assert_eq!(experts_alone, moe, "{model:?} on {gpu:?}");
            let forbidden = space::precisions(&r, p.levers.precision, Permission::Forbidden);
            assert_eq!(forbidden, vec![p.levers.precision]);
        }
    }
}

/// The search tries DualPipeV where the stack in force runs it (a base on
/// torchtitan), with at least two micro-batches per pipeline rank, and
/// never on Megatron-Core; every such candidate `evaluate` accepts and
/// prices as the search did.
#[test]
fn dual_pipe_v_is_searched_where_the_stack_runs_it() {
    use crate::plan::PipelineSchedule;
    let dual = |s: &Scenario| {
        let mut seen = Seen {
            every: 1,
            ..Seen::default()
        };
        run(s, Mode::Exhaustive, &mut seen);
        seen.sampled
            .into_iter()
            .filter(|(p, _)| p.levers.parallel.schedule == PipelineSchedule::DualPipeV)
            .collect::<Vec<_>>()
    };
    assert!(dual(&small_training()).is_empty());
    let mut titan = small_training();
    titan.base.levers.training_stack = Some(crate::stack::TrainingStack::Torchtitan);
    titan.base.levers.sharding = crate::plan::Sharding::FsdpFullShard;
    let found = dual(&titan);
    assert!(found.len() > 10, "{}", found.len());
    for (plan, time) in found.iter().step_by(7) {
        let p = &plan.levers.parallel;
        let m = crate::partition::micro_batch_count(16, p.micro_batch, p.dp);
        assert!(p.pp > 1 && m >= 2 * p.pp, "{p:?}");
        let report = evaluate(plan);
        assert_eq!(report.verdict == Verdict::Fits, time.is_some());
        if let (Some(QuickTime::Training { step, .. }), TimeReport::Training(t)) =
            (time, &report.time)
        {
            assert_eq!(step.base().to_bits(), t.step.base().to_bits());
        }
    }
}

/// A part without BF16 units (Volta, Turing) computes a BF16 plan in
/// emulation at a few per cent of its FP16 rate, and vLLM refuses it: the
/// search moves such a plan there in FP16, as users of those parts run it
/// (loss scaling in training, `--dtype half` in vLLM), listed and flagged
/// as a change of number format. Before, a plan moved to a V100 or a T4
/// kept BF16 at 11 % or 5 % of the FP16 rate, and a vLLM serving plan
/// could not be placed on a T4 at all.
#[test]
fn a_part_without_bf16_units_is_searched_in_fp16() {
    use crate::diff::Impact;
    use crate::precision::Precision;
    let mut vllm = small_serving();
    vllm.base.levers.engine = crate::engine::Engine::Vllm;
    let cases = [
        (small_training(), GpuId::V100Sxm2_32),
        (small_serving(), GpuId::T4),
        (vllm, GpuId::T4),
    ];
    for (mut s, old) in cases {
        let own = s.constraints.gpu_kinds.as_ref().map(|k| k[0]);
        s.constraints.gpu_kinds = own.map(|k| vec![k, old]);
        let out = search(&s);
        let on_old: Vec<&Found> = out
            .by_gpu_kind
            .iter()
            .chain(&out.frontier)
            .filter(|f| f.plan.hardware.gpu == GpuChoice::Preset(old))
            .collect();
        assert!(!on_old.is_empty(), "{old:?}: no plan placed");
        for f in on_old {
            let p = f.plan.levers.precision;
            assert_eq!(p.compute, Precision::Fp16, "{old:?}: {p:?}");
            assert_ne!(p.activations, Precision::Bf16, "{old:?}: {p:?}");
            assert_ne!(p.weights, Precision::Bf16, "{old:?}: {p:?}");
            assert_eq!(f.family, PlanFamily::Hybrid, "{old:?}");
            assert!(
                f.changes
                    .iter()
                    .any(|c| c.setting == crate::diff::Setting::Compute
                        && c.from == "bf16"
                        && c.to == "fp16"
                        && c.impact == Impact::Quality),
                "{old:?}: the format change is not listed and flagged: {:?}",
                f.changes
            );
            // A training plan holds no KV cache: its format is not listed.
            let training = matches!(f.plan.workload, Workload::Training(_));
            assert!(
                !(training
                    && f.changes
                        .iter()
                        .any(|c| c.setting == crate::diff::Setting::KvCache)),
                "{old:?}: {:?}",
                f.changes
            );
            let r = evaluate(&f.plan);
            assert!(
                !r.diagnostics
                    .iter()
                    .any(|d| matches!(d.detail, DiagnosticKind::EmulatedBf16 { .. })),
                "{old:?}: {:?}",
                r.diagnostics
            );
        }
    }
}
