//! Sizing: what each job is given. A job is evaluated on a MIG slice, under
//! a memory cap or on whole GPUs, smallest first, and takes the first that
//! works; a serving job's batch is the largest that fits and meets its
//! latency targets (see the module documentation of
//! [`tenants`](super)).

use super::packing::Demand;
use super::result::Share;
use super::schema::{Job, LatencySlo, Pool, ShareMode};
use crate::catalog::{self, GpuId, MigProfile};
use crate::diagnostics::{Diagnostic, DiagnosticKind, Severity};
use crate::evaluate::evaluate;
use crate::hardware::{CustomGpu, GpuChoice, GpuSpec};
use crate::plan::{Inference, Plan, Workload};
use crate::report::{Report, TimeReport, Verdict};
use crate::units::Seconds;

/// The pool's GPU: its spec, name and catalog id.
pub(super) fn pool_gpu(choice: &GpuChoice) -> (GpuSpec, String, Option<GpuId>) {
    match choice {
        GpuChoice::Preset(id) => {
            let e = catalog::gpu(*id);
            let mut spec = e.spec;
            spec.matmul_ceiling = catalog::matmul_ceiling(*id);
            (spec, e.name.to_string(), Some(*id))
        }
        GpuChoice::Custom(g) => (g.spec, g.name.clone(), None),
    }
}

/// The GPU a MIG instance looks like to a job (see the module documentation).
fn slice_spec(base: &GpuSpec, p: &MigProfile) -> GpuSpec {
    let c = p.compute_fraction();
    let m = p.memory_fraction();
    GpuSpec {
        capacity: p.memory(base.device_memory()),
        usable: None,
        memory_bandwidth: base.memory_bandwidth * m,
        bf16: base.bf16 * c,
        fp16: base.fp16 * c,
        fp8: base.fp8.map(|r| r * c),
        fp4: base.fp4.map(|r| r * c),
        tdp: base.tdp * c,
        scale_up: None,
        mig_slices: 0,
        ..*base
    }
}

/// One way to run a job: what it is given and its plan there.
pub(super) struct Candidate {
    /// What the job is given on each of its GPUs.
    pub(super) share: Share,
    /// What the packer places.
    pub(super) demand: Demand,
    /// The job's plan on that share.
    plan: Plan,
}

/// How a job runs on one candidate.
pub(super) struct Trial {
    /// The report of the plan as written on the candidate.
    pub(super) report: Report,
    /// Serving: (memory batch, batch, report at that batch).
    pub(super) serving: Option<(u32, u32, Report)>,
}

impl Trial {
    /// The report at the batch the job runs (serving) or the plan's.
    pub(super) fn running(&self) -> &Report {
        self.serving.as_ref().map_or(&self.report, |s| &s.2)
    }
}

/// The plan with its serving batch set to `batch` (training plans as they
/// are).
pub(super) fn with_batch(plan: &Plan, batch: u32) -> Plan {
    let mut p = plan.clone();
    if let Workload::Inference(i) = &mut p.workload {
        i.batch = batch;
    }
    p
}

/// Time to first token and time per output token (a training plan's step
/// time twice).
pub(super) fn latencies(r: &Report) -> (Seconds, Seconds) {
    match &r.time {
        TimeReport::Inference(t) => (t.ttft, t.tpot),
        TimeReport::Training(t) => (t.step, t.step),
    }
}

/// Whether a report fits and meets the latency targets.
fn meets(r: &Report, slo: &LatencySlo) -> bool {
    let (ttft, tpot) = latencies(r);
    r.verdict == Verdict::Fits && slo.met(ttft, tpot)
}

/// Evaluates a job on one candidate; a serving job's batch is the largest
/// up to its plan's that fits and meets its targets (0 if none).
pub(super) fn trial(plan: &Plan, slo: &LatencySlo) -> Trial {
    let report = evaluate(plan);
    let Workload::Inference(inf) = &plan.workload else {
        return Trial {
            report,
            serving: None,
        };
    };
    let serving = Some(serving_batch(plan, inf, slo, &report));
    Trial { report, serving }
}

/// A serving plan's (memory batch, batch, report at that batch): the
/// largest batch up to the plan's that fits its memory and meets its
/// targets, or batch 0 with the plan's own report.
fn serving_batch(
    plan: &Plan,
    inf: &Inference,
    slo: &LatencySlo,
    report: &Report,
) -> (u32, u32, Report) {
    let requested = inf.batch.max(1);
    let memory_batch = report.inference.map_or(0, |l| l.max_batch).min(requested);
    let best = if memory_batch == 0 {
        None
    } else {
        let at_memory_batch = if memory_batch == requested {
            report.clone()
        } else {
            evaluate(&with_batch(plan, memory_batch))
        };
        if meets(&at_memory_batch, slo) {
            Some((memory_batch, at_memory_batch))
        } else {
            largest_meeting(plan, slo, memory_batch)
        }
    };
    match best {
        Some((b, r)) => (memory_batch, b, r),
        None => (memory_batch, 0, report.clone()),
    }
}

/// Latency grows with the batch: bisects below `above` (which misses the
/// targets) for the largest batch that meets them, with its report.
fn largest_meeting(plan: &Plan, slo: &LatencySlo, above: u32) -> Option<(u32, Report)> {
    let mut best = None;
    let (mut lo, mut hi) = (0u32, above);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let r = evaluate(&with_batch(plan, mid));
        if meets(&r, slo) {
            lo = mid;
            best = Some((mid, r));
        } else {
            hi = mid;
        }
    }
    best
}

/// Whether a trial does the job: a training plan fits; a serving plan runs
/// at least `target` sequences.
pub(super) fn works(t: &Trial, target: u32) -> bool {
    match &t.serving {
        Some((_, b, _)) => *b >= target.max(1),
        None => t.report.verdict == Verdict::Fits,
    }
}

/// The job's plan on the pool: its GPU kind and node size replaced, its
/// memory cap set to `cap`.
fn plan_on(job: &Plan, gpu: GpuChoice, per_node: u32, cap: Option<f64>) -> Plan {
    let mut p = job.clone();
    p.hardware.gpu = gpu;
    p.hardware.gpus_per_node = per_node;
    p.levers.memory_cap = cap;
    p
}

/// The smallest batch a serving job accepts: its `min_batch`, else the
/// plan's batch, within 1..=the plan's batch.
pub(super) fn target_batch(min_batch: Option<u32>, batch: u32) -> u32 {
    min_batch.unwrap_or(batch).clamp(1, batch.max(1))
}

/// A job's MIG candidates on the pool's GPU, smallest first (none for a
/// multi-GPU job or a GPU without MIG).
fn mig_candidates(pool: &Pool, job: &Job, per_node: u32) -> Vec<Candidate> {
    let (spec, name, id) = pool_gpu(&pool.gpu);
    if job.plan.hardware.gpus.max(1) != 1 {
        return Vec::new();
    }
    let Some(entry) = id.and_then(catalog::mig_profiles) else {
        return Vec::new();
    };
    entry
        .profiles
        .iter()
        .map(|p| {
            let gpu = GpuChoice::Custom(CustomGpu {
                name: format!("{name} MIG {}", p.name),
                spec: slice_spec(&spec, p),
            });
            Candidate {
                share: Share::Mig {
                    profile: p.name.to_string(),
                    compute_slices: p.compute_slices,
                    memory_slices: p.memory_slices,
                },
                demand: Demand::Mig {
                    compute: p.compute_slices,
                    memory: p.memory_slices,
                },
                plan: plan_on(&job.plan, gpu, per_node, None),
            }
        })
        .collect()
}

/// A job on whole GPUs of the pool, with memory cap `cap`.
fn whole_candidate(pool: &Pool, job: &Job, per_node: u32, cap: Option<f64>) -> Candidate {
    Candidate {
        share: Share::Whole,
        demand: Demand::Whole {
            gpus: job.plan.hardware.gpus.max(1),
        },
        plan: plan_on(&job.plan, pool.gpu.clone(), per_node, cap),
    }
}

/// The candidates of a job, smallest first (memory caps are bisected
/// separately): its MIG slices, then whole GPUs.
fn candidates(pool: &Pool, mode: ShareMode, job: &Job, per_node: u32) -> Vec<Candidate> {
    let mut out = match mode {
        ShareMode::Mig => mig_candidates(pool, job, per_node),
        _ => Vec::new(),
    };
    let whole_cap = match mode {
        ShareMode::Mig => None,
        _ => job.plan.levers.memory_cap,
    };
    out.push(whole_candidate(pool, job, per_node, whole_cap));
    out
}

/// A job under a memory cap of `percent` of each of its GPUs.
fn cap_candidate(pool: &Pool, job: &Job, per_node: u32, percent: u32) -> Candidate {
    let gpus = job.plan.hardware.gpus.max(1);
    let fraction = f64::from(percent) / 100.0;
    Candidate {
        share: Share::Cap { fraction },
        demand: Demand::Cap { percent, gpus },
        plan: plan_on(&job.plan, pool.gpu.clone(), per_node, Some(fraction)),
    }
}

/// A candidate and how the job runs on it.
type Tried = (Candidate, Trial);

/// A sized job: the candidate it takes and how it runs there, or why none.
pub(super) struct Sized {
    /// The candidate taken, if any.
    pub(super) chosen: Option<Tried>,
    /// The job alone on whole GPUs.
    pub(super) reference: Trial,
    /// Why it fits nowhere, and notes.
    pub(super) diagnostics: Vec<Diagnostic>,
}

/// What a search over candidates found: the first that works, else the
/// largest tried.
struct Found {
    chosen: Option<Tried>,
    largest: Option<Tried>,
}

/// The error messages of a report, joined.
fn errors_of(r: &Report) -> String {
    r.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The plan's own diagnostics that explain a failure (capacity, invalid
/// inputs), without the price notes a MIG slice's custom GPU raises.
fn explaining(r: &Report) -> impl Iterator<Item = Diagnostic> + '_ {
    r.diagnostics
        .iter()
        .filter(|d| {
            d.severity == Severity::Error && !matches!(d.detail, DiagnosticKind::NoGpuPrice { .. })
        })
        .cloned()
}

/// Sizes one job: the smallest candidate that works, or the largest where a
/// serving job still runs at a smaller batch, or why none.
pub(super) fn size(pool: &Pool, mode: ShareMode, job: &Job, gpu_name: &str) -> Sized {
    let per_node = pool.gpus_per_node.max(1);
    let mut diagnostics = Vec::new();
    let target = match &job.plan.workload {
        Workload::Inference(i) => target_batch(job.min_batch, i.batch),
        Workload::Training(_) => 1,
    };
    let reference = trial(&whole_candidate(pool, job, per_node, None).plan, &job.slo);
    if reference.report.verdict == Verdict::Invalid {
        diagnostics.push(Diagnostic::error(DiagnosticKind::JobInvalid {
            job: job.name.clone(),
            errors: errors_of(&reference.report),
        }));
        return Sized {
            chosen: None,
            reference,
            diagnostics,
        };
    }
    note_ignored_cap(mode, job, &mut diagnostics);
    let found = match mode {
        ShareMode::MemoryCap => search_caps(pool, job, per_node, target),
        _ => search_candidates(pool, mode, job, per_node, target),
    };
    let chosen = found
        .chosen
        .or_else(|| fall_back(job, gpu_name, found.largest, &mut diagnostics));
    note_bounded_batch(job, chosen.as_ref(), &mut diagnostics);
    Sized {
        chosen,
        reference,
        diagnostics,
    }
}

/// Under MIG a job's own memory cap is ignored: its slice bounds its memory.
fn note_ignored_cap(mode: ShareMode, job: &Job, diagnostics: &mut Vec<Diagnostic>) {
    if mode == ShareMode::Mig && job.plan.levers.memory_cap.is_some() {
        diagnostics.push(Diagnostic::info(DiagnosticKind::MigCapIgnored {
            job: job.name.clone(),
        }));
    }
}

/// Tries the candidates smallest first and takes the first that works.
fn search_candidates(pool: &Pool, mode: ShareMode, job: &Job, per_node: u32, target: u32) -> Found {
    let mut largest = None;
    for o in candidates(pool, mode, job, per_node) {
        let t = trial(&o.plan, &job.slo);
        if works(&t, target) {
            return Found {
                chosen: Some((o, t)),
                largest,
            };
        }
        largest = Some((o, t));
    }
    Found {
        chosen: None,
        largest,
    }
}

/// Memory caps: the plan's own cap when it sets one, else the smallest
/// whole per cent that works.
fn search_caps(pool: &Pool, job: &Job, per_node: u32, target: u32) -> Found {
    let percent = match job.plan.levers.memory_cap {
        Some(f) => (f * 100.0).ceil().clamp(1.0, 100.0) as u32,
        None => 100,
    };
    let o = cap_candidate(pool, job, per_node, percent);
    let t = trial(&o.plan, &job.slo);
    if !works(&t, target) {
        return Found {
            chosen: None,
            largest: Some((o, t)),
        };
    }
    let chosen = match job.plan.levers.memory_cap {
        Some(_) => (o, t),
        None => bisect_cap(pool, job, per_node, target, (o, t)),
    };
    Found {
        chosen: Some(chosen),
        largest: None,
    }
}

/// Memory is monotone in the cap: bisects below 100 % (which works, `top`)
/// for the smallest whole per cent that works.
fn bisect_cap(pool: &Pool, job: &Job, per_node: u32, target: u32, top: Tried) -> Tried {
    let (mut lo, mut hi) = (0u32, 100u32);
    let mut best = top;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let o = cap_candidate(pool, job, per_node, mid);
        let t = trial(&o.plan, &job.slo);
        if works(&t, target) {
            hi = mid;
            best = (o, t);
        } else {
            lo = mid;
        }
    }
    best
}

/// Nothing meets the target: a serving job may still run at a smaller
/// batch on the largest candidate; otherwise says why not.
fn fall_back(
    job: &Job,
    gpu_name: &str,
    largest: Option<Tried>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Tried> {
    let (o, t) = largest?;
    if matches!(t.serving, Some((_, b, _)) if b >= 1) {
        return Some((o, t));
    }
    if t.running().verdict != Verdict::Fits || matches!(t.serving, Some((0, _, _))) {
        diagnostics.push(Diagnostic::error(DiagnosticKind::JobDoesNotFit {
            job: job.name.clone(),
            gpu: gpu_name.to_string(),
        }));
        diagnostics.extend(explaining(&t.report));
    } else {
        let (ttft, tpot) = latencies(&evaluate(&with_batch(&o.plan, 1)));
        diagnostics.push(Diagnostic::error(DiagnosticKind::JobSloNotMet {
            job: job.name.clone(),
            gpu: gpu_name.to_string(),
            ttft,
            tpot,
        }));
    }
    None
}

/// Warns when a serving job runs below the batch its plan asks for.
fn note_bounded_batch(job: &Job, chosen: Option<&Tried>, diagnostics: &mut Vec<Diagnostic>) {
    let Some((_, t)) = chosen else { return };
    if let (Some((_, b, _)), Workload::Inference(i)) = (&t.serving, &job.plan.workload) {
        if *b < i.batch {
            diagnostics.push(Diagnostic::warning(DiagnosticKind::BatchBounded {
                job: job.name.clone(),
                batch: *b,
                requested: i.batch,
            }));
        }
    }
}
