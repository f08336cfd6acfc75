//! Tests of [`share`] as a whole: sizing, packing and the result together.

use super::sizing::{latencies, trial, with_batch, works};
use super::*;
use crate::catalog::GpuId;
use crate::diagnostics::DiagnosticKind;
use crate::evaluate::evaluate;
use crate::hardware::GpuChoice;
use crate::plan::{ModelChoice, Workload};
use crate::report::Verdict;
use crate::units::Seconds;

#[test]
fn absurd_pools_are_cut_with_a_diagnostic() {
    let mut s = crate::tenants::example_sharing();
    s.pool.gpus = u32::MAX;
    let r = share(&s);
    assert_eq!(r.pool_gpus, MAX_POOL_GPUS);
    assert!(r
        .diagnostics
        .iter()
        .any(|d| matches!(d.detail, DiagnosticKind::InvalidValue { .. })));
}

#[test]
fn example_places_every_job_within_its_share() {
    let r = share(&example_sharing());
    assert_eq!(r.mode, ShareMode::Mig);
    for j in &r.jobs {
        assert!(j.placed, "{} not placed: {:?}", j.job, j.diagnostics);
        assert!(j.headroom.base() >= 0.0, "{}", j.job);
        assert_eq!(j.verdict, Verdict::Fits, "{}", j.job);
    }
    // The 70B job takes two whole GPUs; the rest share MIG slices.
    let big = r.jobs.iter().find(|j| j.job.contains("70b"));
    assert_eq!(big.map(|j| j.share.clone()), Some(Some(Share::Whole)));
    assert!(r.gpus_used <= 4);
    assert!(r.gpus_without_sharing > r.gpus_used);
    for g in &r.gpus {
        assert!(
            g.allotted.base() <= g.capacity.base() + 1.0,
            "GPU {}",
            g.index
        );
        assert!(g.peak.base() <= g.allotted.base() + 1.0, "GPU {}", g.index);
    }
}

#[test]
fn a_job_too_big_for_the_pool_says_why() {
    let mut s = example_sharing();
    s.jobs.truncate(1);
    s.jobs[0].plan.model = ModelChoice::Preset(crate::catalog::ModelId::Llama31_405b);
    let r = share(&s);
    assert!(!r.jobs[0].placed);
    assert!(r.jobs[0]
        .diagnostics
        .iter()
        .any(|d| matches!(d.detail, DiagnosticKind::JobDoesNotFit { .. })));
    assert!(r.jobs[0]
        .diagnostics
        .iter()
        .any(|d| matches!(d.detail, DiagnosticKind::OverCapacity { .. })));
}

#[test]
fn a_full_pool_reports_the_jobs_left_out() {
    let mut s = example_sharing();
    s.pool.gpus = 1;
    let r = share(&s);
    assert!(r.jobs.iter().any(|j| !j.placed));
    assert!(r
        .diagnostics
        .iter()
        .any(|d| matches!(d.detail, DiagnosticKind::PoolFull { .. })));
}

#[test]
fn caps_are_the_smallest_that_work() {
    let mut s = example_sharing();
    s.pool.mode = ShareMode::MemoryCap;
    s.jobs.truncate(3);
    let r = share(&s);
    for j in &r.jobs {
        let fraction = match j.share {
            Some(Share::Cap { fraction }) => fraction,
            _ => -1.0,
        };
        assert!(fraction > 0.0 && fraction <= 1.0);
        // One per cent less would not do.
        let mut job = s.jobs.iter().find(|x| x.name == j.job).cloned();
        if let Some(job) = job.as_mut() {
            job.plan.levers.memory_cap = Some(fraction - 0.01);
            job.plan.hardware.gpu = s.pool.gpu.clone();
            if fraction > 0.01 {
                let t = trial(&job.plan, &job.slo);
                let target = match &job.plan.workload {
                    Workload::Inference(i) => i.batch,
                    Workload::Training(_) => 1,
                };
                assert!(!works(&t, target), "{}", j.job);
            }
        }
    }
}

#[test]
fn a_tight_slo_bounds_the_batch_and_costs_throughput() {
    let mut s = example_sharing();
    s.jobs.truncate(1);
    s.pool.mode = ShareMode::Exclusive;
    // A TPOT target between the batch-1 and batch-16 latencies.
    let b1 = evaluate(&with_batch(&s.jobs[0].plan, 1));
    let b16 = evaluate(&s.jobs[0].plan);
    let mid = (latencies(&b1).1.base() + latencies(&b16).1.base()) / 2.0;
    s.jobs[0].slo.max_tpot = Some(Seconds::from_secs(mid));
    let r = share(&s);
    let sv = r.jobs[0].serving.as_ref().map(|x| (x.batch, x.slo_met));
    let (batch, met) = sv.unwrap_or((0, false));
    assert!((1..16).contains(&batch), "batch {batch}");
    assert!(met);
    assert!(r.jobs[0]
        .diagnostics
        .iter()
        .any(|d| matches!(d.detail, DiagnosticKind::BatchBounded { .. })));
}

#[test]
fn a_gpu_without_mig_falls_back_to_whole_gpus() {
    let mut s = example_sharing();
    s.pool.gpu = GpuChoice::Preset(GpuId::Mi300x);
    let r = share(&s);
    assert_eq!(r.mode, ShareMode::Exclusive);
    assert!(r
        .diagnostics
        .iter()
        .any(|d| matches!(d.detail, DiagnosticKind::MigUnsupported { .. })));
}
