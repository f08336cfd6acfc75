//! Compute contention under memory caps: jobs capped to a share of one
//! GPU's memory still share all of its SMs and its HBM bandwidth.
//!
//! A memory cap (`levers.memory_cap`, PyTorch's
//! `set_per_process_memory_fraction`, vLLM's `gpu_memory_utilization`)
//! splits memory only. Processes on one GPU run either time-sliced (the
//! default: NVIDIA's CUDA time-slicing gives each context the whole GPU in
//! turn, so k busy contexts each get about 1/k of the time; the GPU
//! Operator's time-slicing guide says replicas share compute with no
//! isolation) or under MPS, whose concurrent kernels share the SMs and the
//! memory bandwidth (NVIDIA Multi-Process Service documentation, §2). In
//! either case k busy tenants together get one GPU: each runs at most 1/k
//! of its time alone. The figures here assume every tenant of a GPU is
//! busy, the saturated case a capacity plan must hold under; an idle
//! neighbour gives its share back.

use super::result::{JobPlacement, ServingOutcome, TrainingOutcome};
use super::schema::Job;
use crate::units::Seconds;

/// Tenants of each GPU, from the placements.
fn tenants_per_gpu(placements: &[JobPlacement], gpus: u32) -> Vec<u32> {
    let mut count = vec![0u32; gpus as usize];
    for p in placements.iter().filter(|p| p.placed) {
        for &g in &p.gpus {
            if let Some(c) = count.get_mut(g as usize) {
                *c += 1;
            }
        }
    }
    count
}

/// Slows every placed job by the number of tenants on its busiest GPU and
/// records that number; the job's SLO and throughput kept follow.
pub(super) fn apply(placements: &mut [JobPlacement], jobs: &[Job], gpus: u32) {
    let count = tenants_per_gpu(placements, gpus);
    for (p, job) in placements.iter_mut().zip(jobs) {
        let k = p
            .gpus
            .iter()
            .filter_map(|&g| count.get(g as usize).copied())
            .max()
            .unwrap_or(1)
            .max(1);
        p.sharers = k;
        if k > 1 {
            let k = f64::from(k);
            if let Some(s) = p.serving.as_mut() {
                slow_serving(s, job, k);
            }
            if let Some(t) = p.training.as_mut() {
                slow_training(t, k);
            }
        }
    }
}

fn slow_serving(s: &mut ServingOutcome, job: &Job, k: f64) {
    s.ttft = s.ttft * k;
    s.tpot = s.tpot * k;
    s.tokens_per_second /= k;
    s.slo_met = s.slo_met && job.slo.met(s.ttft, s.tpot);
    s.throughput_kept = if s.reference_tokens_per_second > 0.0 {
        (s.tokens_per_second / s.reference_tokens_per_second).min(1.0)
    } else {
        1.0 / k
    };
    s.tokens_per_second_lost = (s.reference_tokens_per_second - s.tokens_per_second).max(0.0);
}

fn slow_training(t: &mut TrainingOutcome, k: f64) {
    t.step = t.step * k;
    t.slowdown = if t.reference_step > Seconds::ZERO {
        t.step / t.reference_step
    } else {
        k
    };
}
