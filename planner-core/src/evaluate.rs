//! `evaluate(&Plan) -> Report`: the one entry point of the memory model.

use crate::cost::{self, CostNames};
use crate::diagnostics::{Diagnostic, DiagnosticKind, Severity};
use crate::efficiency::Efficiency;
use crate::memory;
use crate::memory::breakdown::Breakdown;
use crate::plan::{LogitsScope, Placement, Plan, Tier, TrainingKind, SCHEMA_VERSION};
use crate::report::{ContextLimit, InferenceTime, Interval, TimeReport, TrainingTime};
use crate::report::{
    DeviceMemory, InferenceLimits, ItemKind, ParamSummary, Report, TrainingLimits, Verdict,
};
use crate::resolve::{resolve, resolve_economics, Resolved, Work};
use crate::time;
use crate::uncertainty::ValidationBasis;
use crate::units::{Bytes, Flops, Seconds};

/// Evaluates a plan. Pure and total: any plan, however wrong, yields a
/// report, with what is wrong listed in `diagnostics`.
pub fn evaluate(plan: &Plan) -> Report {
    let (r, names, mut diagnostics) = resolve(plan);
    let (r, placement) = match r.levers.placement {
        Placement::ByHeat => crate::placement::by_heat(&r),
        Placement::Manual => (r, Vec::new()),
    };
    let (econ, econ_diagnostics) = resolve_economics(plan);
    diagnostics.extend(econ_diagnostics);
    let devices = memory::devices(&r);
    // A stream with problems (listed by `resolve`) is not simulated.
    let stream = match &plan.workload {
        crate::plan::Workload::Inference(i) => i.stream.as_ref(),
        crate::plan::Workload::Training(_) => None,
    }
    .filter(|s| s.problems().is_empty());
    // A serving engine holds its whole KV pool: the memory table and the
    // verdict show it; the time model and the inverse answers read the
    // plan's own batch.
    let held = crate::serving::engine_devices(&r, &devices, stream);
    let shown = held.as_deref().unwrap_or(&devices);
    let binding = binding_device(shown);
    capacity_diagnostics(shown, held.is_some(), &mut diagnostics);
    let verdict = verdict(shown, &diagnostics);
    let hbm_margin = shown
        .get(binding)
        .map_or(Bytes::ZERO, |d| r.capacity(Tier::Hbm) - d.hbm_used());
    let (inference, training) = limits(&r, &devices, binding);
    let time = time_report(&r, &devices);
    if verdict != Verdict::Invalid {
        one_sided_kind(&time, r.dp, &mut diagnostics);
    }
    let cost = cost::report(
        plan,
        &r,
        &econ,
        &time,
        CostNames {
            model: &names.model,
            gpu: &names.gpu,
            teacher: names.teacher.as_deref(),
        },
        &mut diagnostics,
    );

    let (serving, stream_time) = crate::serving::report(
        &r,
        &devices,
        &tables(&r, &devices),
        stream,
        (&time, cost.usd_per_hour),
    )
    .map_or((None, None), |(s, t)| (Some(s), t));

    if let (Some(s), Some(stream)) = (&serving, stream) {
        front_end_slo(s.profile.front_end, &stream.slo, &mut diagnostics);
    }
    let disaggregated = crate::serving::disagg::report(plan, cost.usd_per_hour);
    // A disaggregated stream's time is its pools' (the report's section).
    let stream_time = stream_time.filter(|_| disaggregated.is_none());

    Report {
        version: SCHEMA_VERSION,
        plan: plan.name.clone(),
        model: names.model,
        distilled_from: names.teacher,
        gpu: names.gpu,
        params: param_summary(&r),
        devices: held.unwrap_or(devices),
        binding,
        verdict,
        hbm_margin,
        inference,
        training,
        time,
        placement,
        cost: Some(cost),
        diagnostics,
        serving,
        disaggregated,
        stream_time,
    }
}

/// An error for every tier over capacity (naming its largest item) and a
/// warning for HBM within 3 % of full, unless a serving engine `filled`
/// it with its KV pool on purpose.
fn capacity_diagnostics(devices: &[DeviceMemory], filled: bool, diagnostics: &mut Vec<Diagnostic>) {
    for d in devices {
        for t in &d.tiers {
            if !t.fits() {
                let top = d.largest_in(t.tier);
                let name = |lang| {
                    top.map(|i| format!("{} {}", crate::lang::Named::name(i.kind, lang), i.bytes))
                        .unwrap_or_default()
                };
                diagnostics.push(Diagnostic::error(DiagnosticKind::OverCapacity {
                    role: d.role,
                    tier: t.tier,
                    over: t.used - t.capacity,
                    capacity: t.capacity,
                    largest: name(crate::lang::Lang::En),
                    largest_zh: name(crate::lang::Lang::Zh),
                }));
            } else if t.tier == Tier::Hbm && !filled && t.margin().base() < 0.03 * t.capacity.base()
            {
                diagnostics.push(Diagnostic::warning(DiagnosticKind::TightFit {
                    role: d.role,
                    margin: t.margin(),
                }));
            }
        }
    }
}

/// Invalid when an error other than over-capacity stands; else whether
/// every tier of every device fits.
fn verdict(devices: &[DeviceMemory], diagnostics: &[Diagnostic]) -> Verdict {
    let invalid = diagnostics.iter().any(|d| {
        d.severity == Severity::Error && !matches!(d.detail, DiagnosticKind::OverCapacity { .. })
    });
    let all_fit = devices.iter().all(|d| d.tiers.iter().all(|t| t.fits()));
    if invalid {
        Verdict::Invalid
    } else if all_fit {
        Verdict::Fits
    } else {
        Verdict::DoesNotFit
    }
}

/// The largest batch and context (serving) or micro-batch and sequence
/// (training) that still fit.
fn limits(
    r: &Resolved,
    devices: &[DeviceMemory],
    binding: usize,
) -> (Option<InferenceLimits>, Option<TrainingLimits>) {
    match r.work {
        Work::Infer {
            prompt,
            output,
            batch,
            logits,
        } => (
            Some(inference_limits(
                r,
                devices,
                binding,
                (prompt, output, batch, logits),
            )),
            None,
        ),
        Work::Train {
            kind,
            seq,
            micro_batches,
        } => (None, Some(training_limits(r, kind, seq, micro_batches))),
    }
}

/// Breakdown tables of the devices, in report order.
fn tables(r: &Resolved, devices: &[DeviceMemory]) -> Vec<Breakdown> {
    let stages = r.split.stages;
    devices
        .iter()
        .zip(stages.iter())
        .map(|(d, st)| Breakdown::from_device(d, st.rank))
        .collect()
}

/// A warning where a stream's TTFT target is below its server's front
/// end: the simulator would miss it on every plan, and the search would
/// find nothing, without saying why.
fn front_end_slo(front_end: Seconds, slo: &crate::request::Slo, diagnostics: &mut Vec<Diagnostic>) {
    let target = [slo.ttft_p50, slo.ttft_p99]
        .into_iter()
        .flatten()
        .min_by(|a, b| a.as_secs().total_cmp(&b.as_secs()));
    if let Some(target) = target.filter(|t| t.as_secs() < front_end.as_secs()) {
        diagnostics.push(Diagnostic::warning(DiagnosticKind::TtftBelowFrontEnd {
            target,
            front_end,
        }));
    }
}

/// A warning where every published run of the plan's kind was slower
/// than predicted (the band has no slow side): the times are lower
/// bounds.
fn one_sided_kind(time: &TimeReport, dp: u32, diagnostics: &mut Vec<Diagnostic>) {
    let basis = match time {
        TimeReport::Training(t) => t.range_basis,
        TimeReport::Inference(t) => t.range_basis,
    };
    let band = basis.band(dp);
    if band.slow <= 0.0 {
        diagnostics.push(Diagnostic::warning(DiagnosticKind::PredictionsFast {
            basis,
            worst: band.fast,
        }));
    }
}

/// The measured runs most like the plan ([`ValidationBasis`]).
fn validation_basis(r: &Resolved) -> ValidationBasis {
    let moe = r.spec.moe.is_some();
    match r.work {
        Work::Train { .. } => {
            use crate::capability::moved;
            let o = &r.levers.offload;
            let offload = [o.optimizer, o.parameters, o.gradients]
                .into_iter()
                .any(|t| moved(t).is_some());
            ValidationBasis::training(
                r.levers.training_stack,
                r.levers.sharding,
                r.dp,
                moe,
                offload,
            )
        }
        Work::Infer { .. } => ValidationBasis::serving(
            moe && r.ep > 1,
            r.gpu.fp4.is_some()
                && matches!(
                    r.levers.precision.compute,
                    crate::precision::Precision::Mxfp4 | crate::precision::Precision::Nvfp4
                ),
            low_power(r),
        ),
    }
}

/// A card the PCIe slot powers: GDDR memory and a board power of 75 W or
/// less (`uncertainty::SLOT_POWER_W`), as the T4 and the L4 the low-power
/// serving band was measured on; a GDDR card held there by a power limit
/// counts too. A MIG slice of an HBM part does not.
fn low_power(r: &Resolved) -> bool {
    use crate::hardware::MemoryTech;
    let tdp = r.gpu.tdp.as_watts();
    matches!(r.gpu.memory, MemoryTech::Gddr6 | MemoryTech::Gddr7)
        && tdp > 0.0
        && tdp <= crate::uncertainty::SLOT_POWER_W
}

/// The time model at the plan's efficiencies and at both ends of their
/// range.
fn time_report(r: &Resolved, devices: &[DeviceMemory]) -> TimeReport {
    let t = tables(r, devices);
    let at = |eff: Efficiency| {
        let mut x = *r;
        x.eff = eff;
        x
    };
    let (lo, hi) = (at(r.eff.optimistic()), at(r.eff.pessimistic()));
    let basis = validation_basis(r);
    let band = basis.band(r.dp);
    // The efficiency spread, widened to where measured runs of this kind
    // fell (`uncertainty.rs`).
    let widen = |mid: f64, low: f64, high: f64| Interval {
        low: Seconds::from_secs(low.min(mid / (1.0 + band.slow))),
        high: Seconds::from_secs(high.max(mid / (1.0 - band.fast))),
    };
    match r.work {
        Work::Train {
            kind,
            seq,
            micro_batches,
        } => {
            let s = time::training::step(r, &t, kind, seq, micro_batches);
            let step = s.parts.total();
            let low = time::training::step(&lo, &t, kind, seq, micro_batches)
                .parts
                .total();
            let high = time::training::step(&hi, &t, kind, seq, micro_batches)
                .parts
                .total();
            // Against the rated peak, as MFU is quoted, under a power
            // limit too.
            let peak = time::work::rated_peak(r) / r.power_clock * f64::from(r.net.gpus);
            let util = |f: f64| {
                if step > 0.0 && peak > 0.0 {
                    f / (step * peak)
                } else {
                    0.0
                }
            };
            let steps = (r.tokens > 0.0 && s.tokens > 0.0).then(|| r.tokens / s.tokens);
            TimeReport::Training(TrainingTime {
                step: Seconds::from_secs(step),
                step_range: widen(step, low, high),
                range_basis: basis,
                parts: s.parts.listed(),
                tokens_per_step: s.tokens,
                tokens_per_second: if step > 0.0 { s.tokens / step } else { 0.0 },
                model_flops: Flops::new(s.model_flops),
                hardware_flops: Flops::new(s.hardware_flops),
                mfu: util(s.model_flops),
                hfu: util(s.hardware_flops),
                steps,
                time_to_train: steps.map(|n| Seconds::from_secs(n * step)),
            })
        }
        Work::Infer {
            prompt,
            output,
            batch,
            logits,
        } => {
            let s = time::serve(r, &t, prompt, output, batch, logits);
            let l = time::serve(&lo, &t, prompt, output, batch, logits);
            let h = time::serve(&hi, &t, prompt, output, batch, logits);
            let latency = s.latency();
            let per_replica = if latency > 0.0 {
                f64::from(batch) * f64::from(output) / latency
            } else {
                0.0
            };
            TimeReport::Inference(InferenceTime {
                ttft: Seconds::from_secs(s.ttft()),
                ttft_range: widen(s.ttft(), l.ttft(), h.ttft()),
                tpot: Seconds::from_secs(s.tpot()),
                tpot_range: widen(s.tpot(), l.tpot(), h.tpot()),
                range_basis: basis,
                prefill: s.prefill.listed(),
                decode: s.decode.listed(),
                request_latency: Seconds::from_secs(latency),
                output_tokens_per_second: per_replica,
                total_output_tokens_per_second: per_replica * f64::from(r.dp),
            })
        }
    }
}

/// The device with the least HBM margin (ties: the first).
fn binding_device(devices: &[DeviceMemory]) -> usize {
    let mut best = 0;
    let mut worst_margin = f64::INFINITY;
    for (i, d) in devices.iter().enumerate() {
        let m = d.hbm().map_or(0.0, |t| t.margin().base());
        if m < worst_margin {
            worst_margin = m;
            best = i;
        }
    }
    best
}

fn param_summary(r: &Resolved) -> ParamSummary {
    let p = &r.params;
    let total = p.total();
    let trainable = match r.work {
        Work::Train {
            kind: TrainingKind::Lora(_) | TrainingKind::Qlora(_),
            ..
        } => r.split.adapters,
        Work::Train { .. } => total,
        Work::Infer { .. } => 0.0,
    };
    ParamSummary {
        total,
        active: p.active_non_embedding(&r.spec),
        trainable,
    }
}

/// Whether a variant of the plan fits: the allocation-free tally, which
/// agrees with the report's tiers to the bit (see `memory::Tally`).
fn fits(r: &Resolved) -> bool {
    memory::fits(r)
}

/// Largest `x` in `1..=limit` with `ok(x)`, assuming `ok` is monotone
/// (true up to some point, false after); 0 if even 1 fails.
fn largest(limit: u32, ok: impl Fn(u32) -> bool) -> u32 {
    if !ok(1) {
        return 0;
    }
    let mut lo = 1u32;
    let mut hi = 2u32;
    while hi <= limit && ok(hi) {
        lo = hi;
        hi = hi.saturating_mul(2);
    }
    let mut hi = hi.min(limit.saturating_add(1));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

const MAX_BATCH: u32 = 1 << 20;
const MAX_TOKENS: u32 = 1 << 24;

fn inference_limits(
    r: &Resolved,
    devices: &[DeviceMemory],
    binding: usize,
    (prompt, output, batch, logits): (u32, u32, u32, LogitsScope),
) -> InferenceLimits {
    let with = |prompt: u32, batch: u32| {
        let mut x = *r;
        x.work = Work::Infer {
            prompt,
            output,
            batch,
            logits,
        };
        x
    };
    let kv_budget = devices.get(binding).map_or(Bytes::ZERO, |d| {
        let kv_hbm: Bytes = d
            .items
            .iter()
            .filter(|i| {
                i.tier == Tier::Hbm && matches!(i.kind, ItemKind::KvCache | ItemKind::KvCacheWaste)
            })
            .map(|i| i.bytes)
            .sum();
        (r.capacity(Tier::Hbm) - (d.hbm_used() - kv_hbm)).max(Bytes::ZERO)
    });
    let max_batch = largest(MAX_BATCH, |b| fits(&with(prompt, b)));
    // The output length stays fixed; the prompt grows, up to the model's
    // trained context.
    let (max_prompt, context_limit) = bounded(r.spec.max_context.saturating_sub(output), |p| {
        fits(&with(p, batch))
    });
    let max_context = if max_prompt == 0 {
        0
    } else {
        max_prompt.saturating_add(output)
    };
    InferenceLimits {
        kv_bytes_per_token: Bytes::new(memory::kv_bytes_per_token(r)),
        kv_budget,
        max_batch,
        max_context,
        context_limit,
    }
}

fn training_limits(
    r: &Resolved,
    kind: TrainingKind,
    seq: u32,
    micro_batches: u32,
) -> TrainingLimits {
    let with = |seq: u32, mb: u32| {
        let mut x = *r;
        x.levers.parallel.micro_batch = mb;
        x.work = Work::Train {
            kind,
            seq,
            micro_batches,
        };
        x
    };
    let mb = r.levers.parallel.micro_batch;
    let cp = r.cp.max(1);
    // Sequence lengths stay multiples of CP, up to the trained context.
    let (chunks, seq_limit) = bounded(r.spec.max_context / cp, |s| fits(&with(s * cp, mb)));
    TrainingLimits {
        micro_batches,
        in_flight: memory::training_in_flight(r, 0, micro_batches),
        max_micro_batch: largest(1 << 16, |b| fits(&with(seq, b))),
        max_seq_len: chunks * cp,
        seq_limit,
    }
}

/// The largest `x ≤ MAX_TOKENS` that fits, no larger than `trained` (the
/// model's trained context in the units searched), and which bound held
/// it: the trained context when one more would still fit.
fn bounded(trained: u32, fits: impl Fn(u32) -> bool) -> (u32, ContextLimit) {
    let cap = trained.min(MAX_TOKENS);
    if cap == 0 {
        return (0, ContextLimit::TrainedContext);
    }
    let x = largest(cap, &fits);
    if x == cap && cap < MAX_TOKENS && fits(cap.saturating_add(1)) {
        (x, ContextLimit::TrainedContext)
    } else {
        (x, ContextLimit::Memory)
    }
}
