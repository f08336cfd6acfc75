//! Property tests of running a plan: sharing a pool never over-commits a
//! slice or a GPU; checkpoint intervals shorten as failures rise; bigger
//! checkpoints never raise goodput.

use planner_core::catalog::{self, GpuId, ModelId, COMPUTE_SLICES, MEMORY_SLICES};
use planner_core::checkpoint::{
    checkpoint, goodput, optimal_interval, CheckpointSettings, SaveMode,
};
use planner_core::example_plan;
use planner_core::hardware::GpuChoice;
use planner_core::plan::{ModelChoice, Workload};
use planner_core::tenants::{example_sharing, pack, share, Demand, GpuState, ShareMode, Slot};
use planner_core::units::{ByteRate, Frequency, Seconds};
use proptest::prelude::*;

fn demand() -> impl Strategy<Value = Option<Demand>> {
    let mig = prop::sample::select(vec![(1u32, 1u32), (1, 2), (2, 2), (3, 4), (4, 4), (7, 8)])
        .prop_map(|(compute, memory)| Some(Demand::Mig { compute, memory }));
    let cap =
        (1u32..=100, 1u32..=4).prop_map(|(percent, gpus)| Some(Demand::Cap { percent, gpus }));
    let whole = (1u32..=9).prop_map(|gpus| Some(Demand::Whole { gpus }));
    prop_oneof![4 => mig, 3 => cap, 2 => whole, 1 => Just(None)]
}

/// Checks every invariant of a packing; returns a message on failure.
fn check(gpus: u32, demands: &[Option<Demand>], slots: &[Option<Slot>], state: &[GpuState]) {
    assert_eq!(state.len(), gpus as usize);
    for (i, (d, s)) in demands.iter().zip(slots).enumerate() {
        let (Some(d), Some(s)) = (d, s) else {
            assert!(d.is_some() || s.is_none(), "a missing demand was placed");
            continue;
        };
        // Distinct GPUs, as many as the demand spans, each holding the job.
        let mut g = s.gpus.clone();
        g.dedup();
        assert_eq!(g.len() as u32, d.gpus(), "job {i}");
        assert!(s.gpus.windows(2).all(|w| w[0] < w[1]));
        for &gpu in &s.gpus {
            let holds = match &state[gpu as usize] {
                GpuState::Free => false,
                GpuState::Whole { job } => *job == i,
                GpuState::Mig { memory, .. } => memory.contains(&Some(i)),
                GpuState::Capped { caps } => caps.iter().any(|c| c.0 == i),
            };
            assert!(holds, "job {i} not on GPU {gpu}");
        }
        if let Demand::Mig { compute, memory } = *d {
            let start = s.mig_start.unwrap_or(u32::MAX);
            assert!(catalog::placements(compute, memory).contains(&start));
            if let GpuState::Mig { memory: m, .. } = &state[s.gpus[0] as usize] {
                let mine: Vec<usize> = (0..MEMORY_SLICES as usize)
                    .filter(|&k| m[k] == Some(i))
                    .collect();
                let want: Vec<usize> = (start as usize..(start + memory) as usize).collect();
                assert_eq!(mine, want, "job {i} slices");
            }
        }
    }
    for (g, st) in state.iter().enumerate() {
        match st {
            GpuState::Mig {
                memory,
                compute_used,
            } => {
                assert!(*compute_used <= COMPUTE_SLICES, "GPU {g}");
                let mut jobs: Vec<usize> = memory.iter().flatten().copied().collect();
                jobs.dedup();
                let compute: u32 = jobs
                    .iter()
                    .map(|&j| match demands[j] {
                        Some(Demand::Mig { compute, .. }) => compute,
                        _ => 99,
                    })
                    .sum();
                assert_eq!(compute, *compute_used, "GPU {g}");
            }
            GpuState::Capped { caps } => {
                assert!(caps.iter().map(|c| c.1).sum::<u32>() <= 100, "GPU {g}");
            }
            GpuState::Whole { job } => {
                assert!(matches!(demands[*job], Some(Demand::Whole { .. })));
            }
            GpuState::Free => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// First-fit decreasing never over-commits: MIG instances sit at allowed
    /// starts on disjoint memory slices within 7 compute slices, caps add up
    /// to at most 100 %, whole GPUs hold one job, multi-GPU jobs get distinct
    /// GPUs.
    #[test]
    fn packing_never_over_commits(
        gpus in 0u32..12,
        per_node in 1u32..9,
        demands in prop::collection::vec(demand(), 0..24),
    ) {
        let (slots, state) = pack(gpus, per_node, &demands);
        check(gpus, &demands, &slots, &state);
    }

    /// A demand alone on an empty pool big enough for it is always placed.
    #[test]
    fn a_lone_demand_is_placed(d in demand(), extra in 0u32..4) {
        if let Some(d) = d {
            let gpus = d.gpus() + extra;
            let (slots, _) = pack(gpus, 8, &[Some(d)]);
            prop_assert!(slots[0].is_some());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The whole pipeline keeps every placed job within what it was given
    /// and every GPU within its memory.
    #[test]
    fn shared_pools_stay_within_memory(
        pick in prop::collection::vec(0usize..6, 1..7),
        gpus in 1u32..5,
        mode in prop::sample::select(vec![ShareMode::Mig, ShareMode::MemoryCap, ShareMode::Exclusive]),
        gpu in prop::sample::select(vec![GpuId::H100Sxm, GpuId::A100Sxm40, GpuId::H200Sxm]),
    ) {
        let ex = example_sharing();
        let mut s = ex.clone();
        s.pool.gpus = gpus;
        s.pool.mode = mode;
        s.pool.gpu = GpuChoice::Preset(gpu);
        s.jobs = pick.iter().enumerate().map(|(k, &i)| {
            let mut j = ex.jobs[i].clone();
            j.name = format!("{}#{k}", j.name);
            j
        }).collect();
        let r = share(&s);
        for j in r.jobs.iter().filter(|j| j.placed) {
            prop_assert!(j.peak.base() <= j.capacity.base(), "{}", j.job);
            prop_assert_eq!(j.gpus.len() as u32, j.gpus_needed);
        }
        for g in &r.gpus {
            prop_assert!(g.allotted.base() <= g.capacity.base() * (1.0 + 1e-12), "GPU {}", g.index);
            prop_assert!(g.peak.base() <= g.allotted.base() * (1.0 + 1e-12), "GPU {}", g.index);
        }
        prop_assert!(r.gpus_used <= gpus);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A higher failure rate (a shorter MTBI) never lengthens the optimal
    /// interval.
    #[test]
    fn more_failures_never_lengthen_the_interval(
        stall in 0.1f64..20_000.0,
        mtbi in 60.0f64..1e8,
        shrink in 0.01f64..1.0,
    ) {
        let (d, m) = (Seconds::from_secs(stall), Seconds::from_secs(mtbi));
        let longer = optimal_interval(d, m).as_secs();
        let shorter = optimal_interval(d, m * shrink).as_secs();
        prop_assert!(shorter <= longer * (1.0 + 1e-9), "{shorter} > {longer}");
    }

    /// A bigger checkpoint (longer stall and restore) never raises goodput at
    /// its own optimal interval.
    #[test]
    fn bigger_checkpoints_never_raise_goodput(
        stall in 0.1f64..20_000.0,
        restore in 0.0f64..20_000.0,
        mtbi in 60.0f64..1e8,
        grow in 1.0f64..10.0,
    ) {
        let m = Seconds::from_secs(mtbi);
        let at = |s: f64, r: f64| {
            let d = Seconds::from_secs(s);
            goodput(optimal_interval(d, m), d, Seconds::from_secs(r), m)
        };
        let small = at(stall, restore);
        let big = at(stall * grow, restore * grow);
        prop_assert!(big <= small + 1e-12, "{big} > {small}");
        prop_assert!((0.0..=1.0).contains(&small));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The same end to end: a plan's interval under more failures, and a
    /// bigger model's goodput on the same storage.
    #[test]
    fn checkpoint_reports_are_monotone(
        rate in 0.01f64..50.0,
        factor in 1.0f64..20.0,
        storage in 0.5f64..500.0,
        asynchronous in any::<bool>(),
    ) {
        let p = example_plan();
        let s = CheckpointSettings {
            failure_rate: Some(Frequency::per_year(rate)),
            storage_bandwidth: Some(ByteRate::from_gb_per_s(storage)),
            mode: if asynchronous { SaveMode::Async } else { SaveMode::Blocking },
            ..CheckpointSettings::default()
        };
        let worse = CheckpointSettings {
            failure_rate: Some(Frequency::per_year(rate * factor)),
            ..s
        };
        let a = checkpoint(&p, &s);
        let b = checkpoint(&p, &worse);
        prop_assert!(b.interval.as_secs() <= a.interval.as_secs() * (1.0 + 1e-9));

        let mut big = p.clone();
        big.model = ModelChoice::Preset(ModelId::Llama2_13b);
        prop_assert!(matches!(big.workload, Workload::Training(_)));
        let c = checkpoint(&big, &s);
        prop_assert!(c.size.total.base() > a.size.total.base());
        prop_assert!(c.goodput <= a.goodput + 1e-12);
    }
}

/// A goodput of 0 reported the failure-free time to train. A run whose
/// interruptions come faster than a checkpoint and a restart makes no
/// progress: it says so, and gives no time to train. (3e7 a year is just
/// under one a second per GPU, the fastest rate taken.)
#[test]
fn a_run_that_cannot_progress_says_so() {
    let plan = example_plan();
    let c = checkpoint(
        &plan,
        &CheckpointSettings {
            failure_rate: Some(Frequency::per_year(3e7)),
            ..CheckpointSettings::default()
        },
    );
    assert_eq!(c.goodput, 0.0);
    assert_eq!(c.time_to_train_with_failures, None);
    assert!(c
        .diagnostics
        .iter()
        .any(|d| d.detail == planner_core::DiagnosticKind::NoProgress));
}
