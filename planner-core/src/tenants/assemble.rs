//! Assembly: the result of [`share`](super::share) from the sized jobs and
//! the packing: where each job went, how it runs there against whole GPUs,
//! and how each GPU is used.

use super::packing::{GpuState, Slot};
use super::result::{
    job_kind, GpuUse, JobPlacement, Packing, ServingOutcome, SharingResult, TrainingOutcome,
};
use super::schema::{Job, ShareMode};
use super::sizing::{latencies, target_batch, Candidate, Sized, Trial};
use crate::diagnostics::{Diagnostic, DiagnosticKind, Severity};
use crate::plan::Workload;
use crate::report::{Report, TimeReport};
use crate::units::Bytes;

/// HBM capacity and HBM in use on the report's most loaded device.
fn hbm_figures(r: &Report) -> (Bytes, Bytes) {
    r.binding_device().map_or((Bytes::ZERO, Bytes::ZERO), |d| {
        let cap = d.hbm().map_or(Bytes::ZERO, |t| t.capacity);
        (cap, d.hbm_used())
    })
}

/// Tokens per second: output tokens for serving, trained tokens for
/// training.
fn throughput(r: &Report) -> f64 {
    match &r.time {
        TimeReport::Inference(t) => t.total_output_tokens_per_second,
        TimeReport::Training(t) => t.tokens_per_second,
    }
}

/// A serving job's figures where it runs, against the job alone on whole
/// GPUs.
fn serving_outcome(
    job: &Job,
    requested: u32,
    (memory_batch, batch, r): (u32, u32, &Report),
    reference: &Trial,
) -> ServingOutcome {
    let (ttft, tpot) = latencies(r);
    let tps = if batch > 0 { throughput(r) } else { 0.0 };
    let (ref_batch, ref_tps) = match &reference.serving {
        Some((_, b, rr)) if *b > 0 => (*b, throughput(rr)),
        _ => (0, 0.0),
    };
    ServingOutcome {
        requested_batch: requested,
        target_batch: target_batch(job.min_batch, requested),
        memory_batch,
        batch,
        ttft,
        tpot,
        slo_met: batch > 0 && job.slo.met(ttft, tpot),
        tokens_per_second: tps,
        reference_batch: ref_batch,
        reference_tokens_per_second: ref_tps,
        throughput_kept: if ref_tps > 0.0 {
            (tps / ref_tps).min(1.0)
        } else {
            1.0
        },
        tokens_per_second_lost: (ref_tps - tps).max(0.0),
    }
}

/// A training job's step time where it runs, against whole GPUs.
fn training_outcome(t: &Trial, reference: &Trial) -> TrainingOutcome {
    let step = latencies(&t.report).0;
    let reference_step = latencies(&reference.report).0;
    TrainingOutcome {
        step,
        reference_step,
        slowdown: if reference_step.base() > 0.0 {
            step / reference_step
        } else {
            1.0
        },
    }
}

/// The serving or training figures of a job where it runs.
fn outcomes(
    job: &Job,
    t: &Trial,
    reference: &Trial,
) -> (Option<ServingOutcome>, Option<TrainingOutcome>) {
    match (&job.plan.workload, &t.serving) {
        (Workload::Inference(i), Some((memory_batch, batch, r))) => (
            Some(serving_outcome(
                job,
                i.batch,
                (*memory_batch, *batch, r),
                reference,
            )),
            None,
        ),
        (Workload::Training(_), _) => (None, Some(training_outcome(t, reference))),
        _ => (None, None),
    }
}

/// How the pool is laid out and shared.
#[derive(Clone, Copy)]
pub(super) struct Layout {
    /// How jobs share a GPU (after the fallback from MIG).
    pub(super) mode: ShareMode,
    /// GPUs per node (≥ 1).
    pub(super) per_node: u32,
    /// GPUs in the pool.
    pub(super) gpus: u32,
}

/// Memory given to and used by the placed jobs, per GPU.
pub(super) struct Usage {
    /// The placed jobs' peaks added up.
    peaks: Vec<Bytes>,
    /// Memory given to the placed jobs.
    allotted: Vec<Bytes>,
}

/// One placement per job, in input order, and the memory they take on each
/// GPU.
pub(super) fn job_placements(
    jobs: &[Job],
    sized: &[Sized],
    slots: &[Option<Slot>],
    layout: Layout,
) -> (Vec<JobPlacement>, Usage) {
    let mut usage = Usage {
        peaks: vec![Bytes::ZERO; layout.gpus as usize],
        allotted: vec![Bytes::ZERO; layout.gpus as usize],
    };
    let placements = jobs
        .iter()
        .zip(sized)
        .zip(slots)
        .map(|((job, s), slot)| match &s.chosen {
            None => unsized_placement(job, s),
            Some(chosen) => sized_placement(job, s, chosen, slot.as_ref(), layout, &mut usage),
        })
        .collect();
    (placements, usage)
}

/// A job that fits nowhere: its figures on whole GPUs and why.
fn unsized_placement(job: &Job, s: &Sized) -> JobPlacement {
    let (capacity, peak) = hbm_figures(&s.reference.report);
    JobPlacement {
        sharers: 1,
        job: job.name.clone(),
        kind: job_kind(&job.plan),
        share: None,
        gpus_needed: job.plan.hardware.gpus.max(1),
        placed: false,
        gpus: Vec::new(),
        mig_start: None,
        capacity,
        peak,
        headroom: capacity - peak,
        verdict: s.reference.report.verdict,
        serving: None,
        training: None,
        diagnostics: s.diagnostics.clone(),
    }
}

/// A sized job, placed where its slot is (or left out where the pool is
/// full); its memory is added to the GPUs it takes.
fn sized_placement(
    job: &Job,
    s: &Sized,
    (o, t): &(Candidate, Trial),
    slot: Option<&Slot>,
    layout: Layout,
    usage: &mut Usage,
) -> JobPlacement {
    let mut diags = s.diagnostics.clone();
    let gpus_needed = job.plan.hardware.gpus.max(1);
    let running = t.running();
    let (capacity, peak) = hbm_figures(running);
    let (serving, training) = outcomes(job, t, &s.reference);
    if layout.mode == ShareMode::Mig && gpus_needed > 1 {
        diags.push(Diagnostic::info(DiagnosticKind::WholeGpusForMultiGpuJob {
            job: job.name.clone(),
            gpus: gpus_needed,
        }));
    }
    match slot {
        None => diags.push(Diagnostic::error(DiagnosticKind::PoolFull {
            job: job.name.clone(),
            share: o.share.label(gpus_needed),
        })),
        Some(slot) => {
            note_spanned_nodes(job, slot, layout.per_node, &mut diags);
            for &g in &slot.gpus {
                usage.peaks[g as usize] += peak;
                usage.allotted[g as usize] += capacity;
            }
        }
    }
    JobPlacement {
        sharers: 1,
        job: job.name.clone(),
        kind: job_kind(&job.plan),
        share: Some(o.share.clone()),
        gpus_needed,
        placed: slot.is_some(),
        gpus: slot.map_or_else(Vec::new, |s| s.gpus.clone()),
        mig_start: slot.and_then(|s| s.mig_start),
        capacity,
        peak,
        headroom: capacity - peak,
        verdict: running.verdict,
        serving,
        training,
        diagnostics: diags,
    }
}

/// Warns when a job's GPUs lie in more than one node.
fn note_spanned_nodes(job: &Job, slot: &Slot, per_node: u32, diags: &mut Vec<Diagnostic>) {
    let nodes = {
        let mut n: Vec<u32> = slot.gpus.iter().map(|g| g / per_node).collect();
        n.dedup();
        n.len() as u32
    };
    if nodes > 1 {
        diags.push(Diagnostic::warning(DiagnosticKind::JobSpansNodes {
            job: job.name.clone(),
            nodes,
        }));
    }
}

/// Indices of the jobs on a GPU, in slice or cap order.
fn jobs_on(state: &GpuState) -> Vec<usize> {
    let mut on: Vec<usize> = match state {
        GpuState::Free => Vec::new(),
        GpuState::Whole { job } => vec![*job],
        GpuState::Mig { memory, .. } => memory.iter().flatten().copied().collect(),
        GpuState::Capped { caps } => caps.iter().map(|c| c.0).collect(),
    };
    on.dedup();
    on
}

/// How each GPU of the pool is used.
pub(super) fn gpu_uses(
    states: Vec<GpuState>,
    jobs: &[Job],
    device: Bytes,
    per_node: u32,
    usage: &Usage,
) -> Vec<GpuUse> {
    states
        .into_iter()
        .enumerate()
        .map(|(i, state)| GpuUse {
            index: i as u32,
            node: i as u32 / per_node,
            jobs: jobs_on(&state)
                .iter()
                .map(|&j| jobs[j].name.clone())
                .collect(),
            state,
            capacity: device,
            allotted: usage.allotted[i],
            peak: usage.peaks[i],
        })
        .collect()
}

/// The result: the placements and GPUs with their totals, and the pool-wide
/// diagnostics followed by each job's (its notes only where it was placed).
pub(super) fn summarise(
    mode: ShareMode,
    gpu: String,
    pool_gpus: u32,
    (jobs, gpus): (Vec<JobPlacement>, Vec<GpuUse>),
    mut diagnostics: Vec<Diagnostic>,
) -> SharingResult {
    let gpus_used = gpus.iter().filter(|g| g.state != GpuState::Free).count() as u32;
    let placed: Vec<&JobPlacement> = jobs.iter().filter(|j| j.placed).collect();
    let gpus_without_sharing = placed.iter().map(|j| j.gpus_needed).sum();
    let placed = placed.len() as u32;
    for j in &jobs {
        diagnostics.extend(
            j.diagnostics
                .iter()
                .filter(|d| d.severity != Severity::Info || j.placed)
                .cloned(),
        );
    }
    SharingResult {
        mode,
        gpu,
        pool_gpus,
        packing: Packing::FirstFitDecreasing,
        placed,
        jobs,
        gpus,
        gpus_used,
        gpus_without_sharing,
        diagnostics,
    }
}
