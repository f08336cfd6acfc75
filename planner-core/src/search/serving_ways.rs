//! The ways to carry a request stream, side by side: the plan's own GPU
//! and number formats with its engine tuned and its replicas sized
//! (the baseline), narrower number formats on the same GPU (software),
//! another GPU kind at the same formats (hardware), and another kind in
//! FP8 (both). Each way is one serving search ([`super::search_serving`]),
//! so the page can run them in parallel workers.
//!
//! The ways' answers are ranked by what they cost an hour, and two
//! answers whose cost ranges overlap are marked as a tie: at a fixed price
//! per hour, the GPUs a stream needs scale with the time per output token,
//! so an answer's cost range is its price scaled by `evaluate`'s TPOT
//! range (the efficiency spread widened by the validation error on
//! measured runs of the same kind, `uncertainty.rs`), as the batch search's
//! ties are ([`super::ties`]). A tie for the lead goes to the answer that
//! changes no number format when its price lies within the cheapest's
//! range: its quality is the published model's, where a quantized one's
//! must be evaluated ([`rank_ways`]).

use super::scenario::Permission;
use super::serving_space::{ServingFound, ServingScenario};
use super::tie::{overlap, scaled};
use crate::diff::{Change, Impact};
use crate::effort::PlanFamily;
use crate::hardware::GpuChoice;
use crate::plan::{Plan, Precisions, Workload};
use crate::precision::Precision;
use crate::report::{Interval, TimeReport};
use crate::units::{Seconds, Usd};
use serde::{Deserialize, Serialize};

/// One way to carry the stream: its family and the serving search that
/// sizes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServingWay {
    /// Baseline (the plan's GPU and formats), software (formats),
    /// hardware (GPU kind) or hybrid (both).
    pub family: PlanFamily,
    /// The search of this way.
    pub scenario: ServingScenario,
}

/// The ways to size a stream: the base first, then, where `formats` is
/// allowed, each narrower format set on the plan's GPU
/// ([`software_formats`]); then, where `kinds` is allowed, each other
/// priced GPU kind at the plan's formats and, with formats allowed too,
/// in FP8 ([`fp8`]).
pub fn serving_ways(
    s: &ServingScenario,
    formats: Permission,
    kinds: Permission,
) -> Vec<ServingWay> {
    let way = |family, scenario| ServingWay { family, scenario };
    let mut out = vec![way(PlanFamily::Baseline, s.clone())];
    let formats = formats == Permission::Allowed;
    if formats {
        for p in software_formats(&s.base) {
            out.push(way(PlanFamily::Algorithmic, with_formats(s, p)));
        }
    }
    if kinds == Permission::Allowed {
        for other in on_each_gpu_kind(s).into_iter().skip(1) {
            // A part with no BF16 units serves in FP16 (vLLM's `--dtype
            // half`, as its diagnostic asks): the move changes the formats
            // too, so it is a hybrid, and its FP8 way keeps FP16 beside.
            let half = no_bf16_units(&other.base);
            let fit = |p: Precisions| if half { p.in_fp16() } else { p };
            let both = formats
                .then(|| fp8(&other.base))
                .flatten()
                .map(|p| with_formats(&other, fit(p)));
            let moved = fit(other.base.levers.precision);
            if moved == other.base.levers.precision {
                out.push(way(PlanFamily::Hardware, other));
            } else {
                out.push(way(PlanFamily::Hybrid, with_formats(&other, moved)));
            }
            out.extend(both.map(|b| way(PlanFamily::Hybrid, b)));
        }
    }
    out
}

/// Whether the plan's GPU has no BF16 tensor cores (Volta, Turing).
fn no_bf16_units(plan: &Plan) -> bool {
    let arch = match &plan.hardware.gpu {
        GpuChoice::Preset(id) => crate::catalog::gpu(*id).spec.arch,
        GpuChoice::Custom(c) => c.spec.arch,
    };
    !arch.has_bf16_units()
}

/// One scenario per GPU kind: the base plan's own first, then every
/// catalog GPU priced in its pricing basis (rental or purchase) on its
/// market (`cost::market_of`).
pub fn on_each_gpu_kind(s: &ServingScenario) -> Vec<ServingScenario> {
    let own = match &s.base.hardware.gpu {
        GpuChoice::Preset(id) => Some(*id),
        GpuChoice::Custom(_) => None,
    };
    let mut out = vec![s.clone()];
    let market = crate::cost::market_of(&s.base);
    for id in super::space::priced_gpu_kinds(&s.base) {
        if Some(id) != own {
            let mut other = s.clone();
            other.base.hardware.gpu = GpuChoice::Preset(id);
            // Priced on the base plan's market, not the kind's first one
            // (stated only where they differ, so a plan stays as it was).
            if crate::cost::market_of(&other.base) != market {
                other.base.economics.market = Some(market);
            }
            out.push(other);
        }
    }
    out
}

/// The order of the ways' answers: cheaper per hour first, an answer
/// without a price after every priced one, then fewer GPUs.
fn cheaper(
    (a_usd, a_gpus): (Option<Usd>, u32),
    (b_usd, b_gpus): (Option<Usd>, u32),
) -> std::cmp::Ordering {
    let cost = |u: Option<Usd>| u.map_or(f64::INFINITY, |u| u.base());
    cost(a_usd)
        .total_cmp(&cost(b_usd))
        .then(a_gpus.cmp(&b_gpus))
}

fn with_formats(s: &ServingScenario, p: Precisions) -> ServingScenario {
    let mut out = s.clone();
    out.base.levers.precision = p;
    out
}

fn resolved(plan: &Plan) -> crate::resolve::Resolved {
    crate::resolve::resolve(plan).0
}

/// The narrower number formats a serving engine offers, each a way of its
/// own, those equal to the plan's left out:
/// - an FP8 KV cache alone (vLLM `--kv-cache-dtype fp8`, TensorRT-LLM's
///   FP8 KV cache);
/// - FP8 weights with an FP8 KV cache ([`fp8`]);
/// - INT4 weights in groups of 128 (AWQ / GPTQ, weight-only: the GEMMs
///   dequantize to 16 bits) with an FP8 KV cache;
/// - on parts with FP4 units, NVFP4 weights and compute (TensorRT Model
///   Optimizer's W4A4 checkpoints) with an FP8 KV cache;
/// - for an MoE, INT4 routed experts beside the plan's other weights (as
///   gpt-oss ships 4-bit experts and NVIDIA's FP4 DeepSeek-R1 quantizes
///   only the experts) with an FP8 KV cache.
pub fn software_formats(plan: &Plan) -> Vec<Precisions> {
    let base = plan.levers.precision;
    let r = resolved(plan);
    let kv8 = Precisions {
        kv_cache: Precision::Fp8,
        ..base
    };
    let mut out = vec![kv8];
    out.extend(fp8(plan));
    // Weight-only INT4 dequantizes to the 16-bit format the part has.
    let half = if r.gpu.arch.has_bf16_units() {
        Precision::Bf16
    } else {
        Precision::Fp16
    };
    out.push(Precisions {
        weights: Precision::Int4 { group_size: 128 },
        compute: half,
        ..kv8
    });
    if r.gpu.fp4.is_some() {
        out.push(Precisions {
            weights: Precision::Nvfp4,
            compute: Precision::Nvfp4,
            ..kv8
        });
    }
    if r.spec.moe.is_some() {
        out.push(Precisions {
            experts: Some(Precision::Int4 { group_size: 128 }),
            ..kv8
        });
    }
    let mut unique: Vec<Precisions> = Vec::new();
    for p in out {
        if p != base && !unique.contains(&p) {
            unique.push(p);
        }
    }
    unique
}

/// FP8 weights with an FP8 KV cache, as serving engines run an FP8
/// checkpoint: W8A8 on parts with FP8 units (the GEMMs in FP8, vLLM's
/// `fp8` quantization on Hopper, Ada and Blackwell), weight-only
/// elsewhere (vLLM's FP8 Marlin kernel on Ampere dequantizes to 16 bits).
/// `None` when the plan's weights are already 8 bits or narrower.
pub fn fp8(plan: &Plan) -> Option<Precisions> {
    let base = plan.levers.precision;
    if base.weights.bytes_per_element() <= 1.0 {
        return None;
    }
    Some(Precisions {
        weights: Precision::Fp8,
        compute: super::space::fp8_serving_compute(&resolved(plan).gpu, base.compute),
        kv_cache: Precision::Fp8,
        ..base
    })
}

/// What ranks one way's answer: its price per hour and GPUs, its cost
/// range ([`cost_range`]) and whether it changes the model's numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WayKey {
    /// Price per hour; `None` when unpriced.
    pub usd_per_hour: Option<Usd>,
    /// GPUs over all replicas.
    pub gpus: u32,
    /// The price the stream may need, from the optimistic to the
    /// pessimistic end of the TPOT range; `None` when unpriced.
    pub range: Option<Interval<f64>>,
    /// Whether a change affects the model's quality (a number format).
    pub changes_quality: bool,
    /// Time per output token ([`listed_tpot`]): the order among answers
    /// of one price and GPU count.
    pub tpot: Seconds,
}

impl WayKey {
    /// The key of an answer: its price and GPUs, its cost range, its
    /// changes against the plan sized and its listed TPOT.
    pub fn new(
        usd_per_hour: Option<Usd>,
        gpus: u32,
        range: Option<Interval<f64>>,
        changes: &[Change],
        tpot: Seconds,
    ) -> WayKey {
        WayKey {
            usd_per_hour,
            gpus,
            range,
            changes_quality: changes.iter().any(|c| c.impact == Impact::Quality),
            tpot,
        }
    }
}

/// The TPOT an answer is listed with: the simulator's p99 where it checked
/// the answer, else the steady state's mean.
pub fn listed_tpot(f: &ServingFound) -> Seconds {
    f.simulated.as_ref().map_or(f.analytic.tpot, |m| m.tpot.p99)
}

/// The price per hour a stream may need on this plan's answer: `usd`
/// scaled by `evaluate`'s TPOT range over its TPOT (the replicas scale
/// with the time per token). Evaluated without the stream, whose ranges
/// are the static figures' relative range (`StreamTime::tpot_range`).
pub fn cost_range(plan: &Plan, usd: Usd) -> Option<Interval<f64>> {
    let mut stat = plan.clone();
    if let Workload::Inference(i) = &mut stat.workload {
        i.stream = None;
    }
    let TimeReport::Inference(t) = crate::evaluate::evaluate(&stat).time else {
        return None;
    };
    let time = Interval {
        low: t.tpot_range.low.as_secs(),
        high: t.tpot_range.high.as_secs(),
    };
    scaled(usd.base(), time, t.tpot.as_secs())
}

fn tied(a: &WayKey, b: &WayKey) -> bool {
    matches!((&a.range, &b.range), (Some(x), Some(y)) if overlap(x, y))
}

/// The ways' answers in the order they are listed, each with the first
/// earlier answer it ties with: cheapest per hour first ([`cheaper`];
/// then the lower TPOT),
/// but where the cheapest changes a number format and an answer that
/// keeps them costs no more than the cheapest's pessimistic price (the
/// model cannot say the quantized one is cheaper), the cheapest such
/// answer leads: the tie goes to the configuration whose quality is the
/// published model's. The rest keep their price order. Two answers whose
/// ranges merely touch are marked as tied but change no place. Returns
/// indices into `keys`.
pub fn rank_ways(keys: &[WayKey]) -> Vec<(usize, Option<usize>)> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| {
        cheaper(
            (keys[a].usd_per_hour, keys[a].gpus),
            (keys[b].usd_per_hour, keys[b].gpus),
        )
        .then(keys[a].tpot.as_secs().total_cmp(&keys[b].tpot.as_secs()))
    });
    if let Some(&first) = order.first() {
        let within = |i: usize| match (keys[i].usd_per_hour, keys[first].range) {
            (Some(u), Some(r)) => u.base() <= r.high,
            _ => false,
        };
        let kept = order
            .iter()
            .position(|&i| !keys[i].changes_quality && within(i));
        if let (true, Some(k)) = (keys[first].changes_quality, kept) {
            let lead = order.remove(k);
            order.insert(0, lead);
        }
    }
    let ties = (0..order.len()).map(|i| (0..i).find(|&j| tied(&keys[order[j]], &keys[order[i]])));
    order.iter().copied().zip(ties).collect()
}

/// One way's answer as listed: its family, the first earlier answer it
/// ties with, its cost range, and the answer, its changes against the plan
/// sized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankedWay {
    /// The way's family.
    pub family: PlanFamily,
    /// The position of the first earlier answer it ties with.
    pub tie: Option<usize>,
    /// The price per hour the stream may need ([`cost_range`]).
    pub cost_range: Option<Interval<f64>>,
    /// The answer.
    #[serde(flatten)]
    pub answer: ServingFound,
}

/// The ways' best answers, ranked ([`rank_ways`]), each answer's changes
/// (and whether users of the service see one) against `sized`, the plan
/// the stream was sized from.
pub fn rank_answers(sized: &Plan, answers: Vec<(PlanFamily, ServingFound)>) -> Vec<RankedWay> {
    let rows: Vec<RankedWay> = answers
        .into_iter()
        .map(|(family, answer)| {
            let answer = answer.against(sized);
            RankedWay {
                family,
                tie: None,
                cost_range: answer
                    .usd_per_hour
                    .and_then(|u| cost_range(&answer.plan, u)),
                answer,
            }
        })
        .collect();
    let keys: Vec<WayKey> = rows
        .iter()
        .map(|r| {
            let a = &r.answer;
            WayKey::new(
                a.usd_per_hour,
                a.gpus,
                r.cost_range,
                &a.changes,
                listed_tpot(a),
            )
        })
        .collect();
    let mut slots: Vec<Option<RankedWay>> = rows.into_iter().map(Some).collect();
    rank_ways(&keys)
        .into_iter()
        .filter_map(|(i, tie)| {
            let mut r = slots[i].take()?;
            r.tie = tie;
            Some(r)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{example_serving_scenario, search_serving};

    fn key(usd: f64, spread: f64, quality: bool) -> WayKey {
        WayKey {
            usd_per_hour: Some(Usd::new(usd)),
            gpus: 1,
            range: Some(Interval {
                low: usd * (1.0 - spread),
                high: usd * (1.0 + spread),
            }),
            changes_quality: quality,
            tpot: Seconds::ZERO,
        }
    }

    /// The base kind comes first and no kind twice; every other scenario
    /// differs from the base in its GPU kind alone.
    #[test]
    fn each_priced_kind_once_the_base_first() {
        let s = example_serving_scenario();
        let all = on_each_gpu_kind(&s);
        assert!(all.len() > 3, "{} kinds", all.len());
        assert_eq!(all[0], s);
        let kinds: Vec<String> = all
            .iter()
            .map(|o| o.base.hardware.gpu.name().to_string())
            .collect();
        let unique: std::collections::HashSet<&String> = kinds.iter().collect();
        assert_eq!(unique.len(), kinds.len(), "{kinds:?}");
        for o in &all[1..] {
            let mut back = o.clone();
            back.base.hardware.gpu = s.base.hardware.gpu.clone();
            assert_eq!(back, s);
        }
        // On China's clouds, a kind whose first price is another market's
        // states the market it is priced on.
        let mut cn = s.clone();
        cn.base.hardware.gpu = GpuChoice::Preset(crate::catalog::GpuId::H20);
        let rtx = on_each_gpu_kind(&cn)
            .into_iter()
            .find(|o| o.base.hardware.gpu == GpuChoice::Preset(crate::catalog::GpuId::Rtx4090));
        assert_eq!(
            rtx.and_then(|o| o.base.economics.market),
            Some(crate::catalog::Market::China)
        );
    }

    /// The base first; each software way on the plan's GPU changes its
    /// formats alone; each hardware way its GPU alone; each hybrid both.
    #[test]
    fn each_way_changes_what_its_family_says() {
        let s = example_serving_scenario();
        let ways = serving_ways(&s, Permission::Allowed, Permission::Allowed);
        assert_eq!(ways[0].family, PlanFamily::Baseline);
        assert_eq!(ways[0].scenario, s);
        let fam = |f| ways.iter().filter(|w| w.family == f).count();
        assert!(fam(PlanFamily::Algorithmic) >= 3, "{ways:?}");
        assert!(fam(PlanFamily::Hardware) >= 3);
        // Each kind's FP8 way is a hybrid, and so is a move onto a part
        // with no BF16 units, which serves in FP16 there.
        assert!(fam(PlanFamily::Hybrid) > fam(PlanFamily::Hardware));
        for w in &ways[1..] {
            let b = &w.scenario.base;
            let gpu = b.hardware.gpu != s.base.hardware.gpu;
            let formats = b.levers.precision != s.base.levers.precision;
            let mut back = w.scenario.clone();
            back.base.hardware.gpu = s.base.hardware.gpu.clone();
            back.base.levers.precision = s.base.levers.precision;
            assert_eq!(back, s, "{:?} changed more than it says", w.family);
            let expected = match (formats, gpu) {
                (true, false) => PlanFamily::Algorithmic,
                (false, true) => PlanFamily::Hardware,
                (true, true) => PlanFamily::Hybrid,
                (false, false) => PlanFamily::Baseline,
            };
            assert_eq!(w.family, expected);
        }
        let only = serving_ways(&s, Permission::Forbidden, Permission::Forbidden);
        assert_eq!(only.len(), 1);
        let soft = serving_ways(&s, Permission::Allowed, Permission::Forbidden);
        assert!(soft[1..]
            .iter()
            .all(|w| w.family == PlanFamily::Algorithmic));
    }

    /// FP8 runs its GEMMs in FP8 where the part has FP8 units and is
    /// weight-only on an A100; a plan already in FP8 has no FP8 way.
    #[test]
    fn fp8_is_w8a8_where_the_part_computes_it() {
        use crate::catalog::GpuId;
        use crate::hardware::GpuChoice;
        let mut plan = example_serving_scenario().base;
        let h100 = fp8(&plan).map(|p| p.compute);
        assert_eq!(h100, Some(Precision::Fp8));
        plan.hardware.gpu = GpuChoice::Preset(GpuId::A100Sxm80);
        assert_eq!(fp8(&plan).map(|p| p.compute), Some(Precision::Bf16));
        plan.levers.precision.weights = Precision::Fp8;
        assert_eq!(fp8(&plan), None);
        assert!(software_formats(&plan)
            .iter()
            .all(|p| *p != plan.levers.precision));
    }

    /// A BF16 plan moved onto a part with no BF16 units serves in FP16
    /// there (vLLM refuses BF16 on it), and its INT4 way dequantizes to
    /// FP16: every way on a T4 is a plan vLLM runs.
    #[test]
    fn ways_on_a_part_without_bf16_serve_in_fp16() {
        use crate::catalog::GpuId;
        let s = example_serving_scenario();
        let on_t4: Vec<ServingWay> = serving_ways(&s, Permission::Allowed, Permission::Allowed)
            .into_iter()
            .filter(|w| w.scenario.base.hardware.gpu == GpuChoice::Preset(GpuId::T4))
            .collect();
        assert_eq!(on_t4.len(), 2, "in FP16, and in FP8 weights beside FP16");
        for w in &on_t4 {
            assert_eq!(w.family, PlanFamily::Hybrid);
            let p = w.scenario.base.levers.precision;
            assert_ne!(p.compute, Precision::Bf16, "{p:?}");
            assert_ne!(p.activations, Precision::Bf16, "{p:?}");
            let r = crate::evaluate::evaluate(&w.scenario.base);
            assert_ne!(r.verdict, crate::report::Verdict::Invalid, "{p:?}");
        }
        let t4 = &on_t4[0].scenario.base;
        let p = t4.levers.precision;
        assert_eq!(
            (p.weights, p.compute, p.activations, p.kv_cache),
            (
                Precision::Fp16,
                Precision::Fp16,
                Precision::Fp16,
                Precision::Fp16
            )
        );
        for f in software_formats(t4) {
            assert_ne!(f.compute, Precision::Bf16, "{f:?}");
        }
    }

    #[test]
    fn a_tie_goes_to_the_answer_that_keeps_the_formats() {
        // 10.0 quantized, 10.5 kept: tied (±15 %), the kept one leads;
        // 20 is apart; 11 quantized keeps its place by price.
        let keys = [
            key(20.0, 0.15, false),
            key(10.0, 0.15, true),
            key(10.5, 0.15, false),
            key(11.0, 0.15, true),
        ];
        let ranked = rank_ways(&keys);
        assert_eq!(
            ranked,
            vec![(2, None), (1, Some(0)), (3, Some(0)), (0, None)]
        );
        // A kept answer whose range only touches the cheapest's: marked
        // as tied, but the cheapest keeps the lead (13 > 11.5).
        let keys = [key(13.0, 0.15, false), key(10.0, 0.15, true)];
        assert_eq!(rank_ways(&keys), vec![(1, None), (0, Some(0))]);
        // Without the quality change the cheaper one leads.
        let keys = [key(10.0, 0.15, false), key(10.5, 0.15, false)];
        assert_eq!(rank_ways(&keys), vec![(0, None), (1, Some(0))]);
        // Far apart: no tie, cheapest first, whatever its formats.
        let keys = [key(30.0, 0.1, false), key(10.0, 0.1, true)];
        assert_eq!(rank_ways(&keys), vec![(1, None), (0, None)]);
    }

    #[test]
    fn an_unpriced_answer_ties_with_nothing_and_comes_last() {
        let none = WayKey {
            usd_per_hour: None,
            gpus: 1,
            range: None,
            changes_quality: false,
            tpot: Seconds::ZERO,
        };
        let ranked = rank_ways(&[none, key(5.0, 0.5, true)]);
        assert_eq!(ranked, vec![(1, None), (0, None)]);
    }

    /// On the example stream the FP8 way answers, and its cost range
    /// holds its price.
    #[test]
    fn the_fp8_way_sizes_the_stream() {
        let s = example_serving_scenario();
        let p = fp8(&s.base);
        assert!(p.is_some(), "the example is in BF16");
        let Some(p) = p else { return };
        let r = search_serving(&with_formats(&s, p));
        assert!(r.best.is_some(), "no FP8 answer: {:?}", r.problem);
        let Some(best) = r.best else { return };
        let usd = best.usd_per_hour.unwrap_or(Usd::new(0.0));
        let range = cost_range(&best.plan, usd);
        assert!(
            range.is_some_and(|r| r.low <= usd.base() && usd.base() <= r.high && r.low < r.high),
            "{range:?} against {usd:?}"
        );
    }
}
