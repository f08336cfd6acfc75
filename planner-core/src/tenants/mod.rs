//! Multi-tenant sharing: pack a set of jobs (training, fine-tuning or
//! serving plans) onto a pool of GPUs, each job in a MIG slice, under a
//! per-process memory cap, or on whole GPUs, so that no job's peak exceeds
//! what it is given.
//!
//! Two steps, both pure:
//!
//! 1. **Sizing.** Each job is evaluated with [`evaluate`](crate::evaluate()) on what it could
//!    be given, smallest first, and takes the first that works:
//!    - a MIG slice is a [`GpuSpec`](crate::hardware::GpuSpec) scaled to the profile: memory as the
//!      profile names it (capped at its eighths of the device), compute and
//!      board power × compute slices / 7, bandwidth × memory slices / 8, no
//!      NVLink (NVIDIA's MIG user guide: instances have no GPU-to-GPU P2P);
//!      a job on more than one GPU gets whole GPUs;
//!    - a memory cap is `levers.memory_cap` (PyTorch
//!      `torch.cuda.set_per_process_memory_fraction`: "allowed memory equals
//!      total_memory * fraction"; vLLM `gpu_memory_utilization`), in whole
//!      per cent, found by bisection (memory is monotone in the cap), or the
//!      plan's own cap when it sets one;
//!    - a whole GPU is the plan as written on the pool's GPU.
//!
//!    A training job works where its verdict is `fits`. A serving job works
//!    where dynamic batching can run it at its target batch: the batch a
//!    server runs is the largest, up to what the plan asks for, that fits
//!    the memory (the report's `max_batch`) and meets the job's latency
//!    targets (the report's TTFT and TPOT, which grow with the batch, so the
//!    largest is found by bisection). The target is the job's `min_batch`,
//!    or the plan's batch. Where nothing meets the target, the job takes the
//!    largest option and runs at the batch it allows, with a warning; the
//!    throughput it keeps is reported against the job alone on a whole GPU.
//!
//! 2. **Packing** ([`pack`]): first-fit decreasing, deterministic. Jobs are
//!    taken largest first (GPUs × share of a GPU; ties keep input order) and
//!    each goes to the lowest-numbered GPU where it fits: a MIG instance at
//!    the first free start its profile allows with compute slices to spare,
//!    a cap where the caps on the GPU stay within 100 %, whole GPUs on free
//!    GPUs, in one node where one has room. First-fit decreasing is not
//!    optimal (bin packing is NP-hard) but never over-commits a slice or a
//!    GPU, which a property test checks.
//!
//! The input types are in `schema`, sizing in `sizing`, the packer in
//! `packing`, the output types in `result` and their assembly in
//! `assemble`; all are re-exported here.

mod assemble;
mod contention;
mod example;
mod packing;
mod result;
mod schema;
mod sizing;
#[cfg(test)]
mod tests;

pub use example::example_sharing;
pub use packing::{pack, Demand, GpuState, Slot};
pub use result::{
    GpuUse, JobKind, JobPlacement, Packing, ServingOutcome, Share, SharingResult, TrainingOutcome,
};
pub use schema::{Job, LatencySlo, Pool, ShareMode, Sharing};

use crate::catalog::{self, GpuId};
use crate::diagnostics::{Diagnostic, DiagnosticKind};
use assemble::Layout;
use sizing::{pool_gpu, size, Sized};

/// Largest pool `share` lays out (GPU by GPU); larger ones are cut to it
/// with an error diagnostic.
pub const MAX_POOL_GPUS: u32 = 65_536;

/// Packs the jobs of `sharing` onto its pool (see the module
/// documentation). Pure and total: bad jobs come back unplaced with the
/// reason in their diagnostics.
pub fn share(sharing: &Sharing) -> SharingResult {
    let mut diagnostics = sharing.problems();
    let bounded = bound_pool(&sharing.pool, &mut diagnostics);
    let pool = bounded.as_ref().unwrap_or(&sharing.pool);
    let (spec, gpu_name, id) = pool_gpu(&pool.gpu);
    let layout = Layout {
        mode: effective_mode(pool.mode, id, &gpu_name, &mut diagnostics),
        per_node: pool.gpus_per_node.max(1),
        gpus: pool.gpus,
    };
    let sized: Vec<Sized> = sharing
        .jobs
        .iter()
        .map(|j| size(pool, layout.mode, j, &gpu_name))
        .collect();
    let (slots, states) = pack(pool.gpus, layout.per_node, &demands(&sized));
    let (mut jobs, usage) = assemble::job_placements(&sharing.jobs, &sized, &slots, layout);
    if layout.mode == ShareMode::MemoryCap {
        contention::apply(&mut jobs, &sharing.jobs, pool.gpus);
    }
    let device = spec.device_memory();
    let gpus = assemble::gpu_uses(states, &sharing.jobs, device, layout.per_node, &usage);
    assemble::summarise(layout.mode, gpu_name, pool.gpus, (jobs, gpus), diagnostics)
}

/// A pool is laid out GPU by GPU; an absurd size would exhaust memory, so
/// it is cut to the largest pool this planner lays out, with an error.
/// `None` where the pool is within bounds.
fn bound_pool(pool: &Pool, diagnostics: &mut Vec<Diagnostic>) -> Option<Pool> {
    (pool.gpus > MAX_POOL_GPUS).then(|| {
        diagnostics.push(Diagnostic::error(DiagnosticKind::InvalidValue {
            field: "pool.gpus".into(),
            problem: format!(
                "{} GPUs is more than the {MAX_POOL_GPUS} a pool is laid out on; using {MAX_POOL_GPUS}",
                pool.gpus
            ),
        }));
        let mut p = pool.clone();
        p.gpus = MAX_POOL_GPUS;
        p
    })
}

/// The sharing mode used: MIG falls back to whole GPUs on a GPU without
/// it (with a warning); memory caps come with a note that compute is
/// shared.
fn effective_mode(
    mode: ShareMode,
    id: Option<GpuId>,
    gpu_name: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> ShareMode {
    let mut mode = mode;
    if mode == ShareMode::Mig && id.and_then(catalog::mig_profiles).is_none() {
        diagnostics.push(Diagnostic::warning(DiagnosticKind::MigUnsupported {
            gpu: gpu_name.to_string(),
        }));
        mode = ShareMode::Exclusive;
    }
    if mode == ShareMode::MemoryCap {
        diagnostics.push(Diagnostic::info(DiagnosticKind::CapsShareCompute));
    }
    mode
}

/// What each sized job asks the packer for (`None` where it fits nowhere).
fn demands(sized: &[Sized]) -> Vec<Option<Demand>> {
    sized
        .iter()
        .map(|s| s.chosen.as_ref().map(|(o, _)| o.demand))
        .collect()
}
