//! A board power limit below the TDP (`hardware.power_limit`): the tensor
//! rates keep the clock the part sustains there (`catalog::clock_fraction`),
//! memory keeps its bandwidth, the energy follows the limit, and a limit
//! the driver would refuse is named.

#[path = "common/refused.rs"]
mod refused;
use refused::assert_refused_by_name;

use planner_core::catalog::{self, GpuId, ModelId};
use planner_core::diagnostics::{DiagnosticKind, Severity};
use planner_core::hardware::{CustomGpu, GpuChoice, Hardware, MemoryTech};
use planner_core::plan::{
    Checkpointing, ModelChoice, Plan, Sharding, Training, TrainingKind, Workload,
};
use planner_core::report::{Report, TimeReport};
use planner_core::stack::TrainingStack;
use planner_core::units::{ByteRate, Bytes, Watts};
use planner_core::{evaluate, example_plan, Verdict};

fn step(r: &Report) -> f64 {
    match &r.time {
        TimeReport::Training(t) => t.step.as_secs(),
        _ => unreachable!("a training plan"),
    }
}

/// The H100s of the held-out run: "H100 SXM 94 GB" (HBM2e, 2.4 TB/s) on
/// the Helma cluster of NHR@FAU, as Mayr et al. and Ujeniya et al. state
/// them; the SXM's 700 W rating, peak and matmul ceiling.
fn helma_h100() -> GpuChoice {
    let mut spec = GpuChoice::Preset(GpuId::H100Sxm).spec();
    spec.memory = MemoryTech::Hbm2e;
    spec.capacity = Bytes::from_gb(94.0);
    spec.usable = None;
    spec.memory_bandwidth = ByteRate::from_tb_per_s(2.4);
    GpuChoice::Custom(CustomGpu {
        name: "H100 SXM 94GB HBM2e (Helma)".into(),
        spec,
    })
}

/// Llama 3 8B (Llama 3.1 8B's shape) pre-training on one node of four such H100s in eager
/// PyTorch with FSDP (LitGPT's `pretrain` over Lightning Fabric), at the
/// given micro-batch and sequence length (the paper runs "the highest
/// batch size that remains stable" and does not state it, so several are
/// tried).
fn litgpt_pretraining(micro_batch: u32, seq: u32, limit: Option<f64>) -> Plan {
    let mut p = example_plan();
    p.model = ModelChoice::Preset(ModelId::Llama31_8b);
    p.workload = Workload::Training(Training {
        kind: TrainingKind::PreTraining,
        seq_len: seq,
        global_batch: 4 * micro_batch,
        tokens: 0.0,
    });
    p.levers.sharding = Sharding::FsdpFullShard;
    p.levers.checkpointing = Checkpointing::None;
    p.levers.parallel.dp = 4;
    p.levers.parallel.micro_batch = micro_batch;
    p.levers.training_stack = Some(TrainingStack::HfTrainer);
    p.hardware = Hardware {
        power_limit: limit.map(Watts::new),
        ..Hardware::new(helma_h100(), 4)
    };
    p
}

/// Held out: Mayr et al. (arXiv 2603.16164, Table 4, "Pre-training /
/// H100"; read through a transcription of the table) measured 27,705.3
/// tokens/s a GPU at a 500 W cap against 30,271.0 at 700 W, a step 1.093×
/// as long, each run at "the highest batch size that remains stable",
/// which the paper does not state: here the largest micro-batch that fits
/// at 2,048 and at 4,096 tokens. The model charges the lower clock to the
/// GEMMs and attention only, so the step grows by less than the clock
/// falls (1 / 0.879 = 1.138); it comes within 3 % of the measured ratio
/// (1.078 and 1.075 on 2026-12-06, short of it as a BF16 GEMM, denser
/// than the curve's workload, loses a little more clock).
#[test]
fn a_500_w_limit_slows_8b_pretraining_as_measured() {
    let measured = 30_271.0 / 27_705.3;
    for seq in [2048, 4096] {
        let mb = (1..=8)
            .take_while(|&mb| evaluate(&litgpt_pretraining(mb, seq, None)).verdict == Verdict::Fits)
            .last()
            .expect("one sequence fits");
        let full = evaluate(&litgpt_pretraining(mb, seq, None));
        let capped = evaluate(&litgpt_pretraining(mb, seq, Some(500.0)));
        assert_eq!(capped.verdict, Verdict::Fits);
        let ratio = step(&capped) / step(&full);
        println!("mb {mb} × {seq}: step ratio {ratio:.3} (measured {measured:.3})");
        assert!(
            (ratio / measured - 1.0).abs() < 0.03,
            "mb {mb} seq {seq}: {ratio} against {measured}"
        );
        assert!(ratio < 1.0 / catalog::clock_fraction(500.0 / 700.0));
    }
}

/// The limit reaches the rates and the energy, and is named; at or above
/// the TDP nothing changes (above it with a warning); below the lowest
/// measured cap it is refused, naming the field.
#[test]
fn the_limit_scales_compute_and_power_and_bad_limits_are_named() {
    let base = example_plan();
    let full = evaluate(&base);
    let with = |w: f64| {
        let mut p = base.clone();
        p.hardware.power_limit = Some(Watts::new(w));
        evaluate(&p)
    };
    let capped = with(500.0);
    assert!(step(&capped) > step(&full));
    assert!(capped.diagnostics.iter().any(|d| matches!(
        d.detail,
        DiagnosticKind::PowerLimited { clock, .. } if (clock - 0.8791).abs() < 1e-3
    )));
    // The job draws at most the limit.
    let power = |r: &Report| r.cost.as_ref().expect("a cost").energy.power.as_watts();
    let ratio = power(&capped) / power(&full);
    assert!((ratio - 500.0 / 700.0).abs() < 1e-9, "{ratio}");

    let at_tdp = with(700.0);
    assert_eq!(step(&at_tdp), step(&full));
    let above = with(900.0);
    assert_eq!(step(&above), step(&full));
    assert!(above
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Warning
            && matches!(d.detail, DiagnosticKind::PowerLimitAboveTdp { .. })));

    for bad in [100.0, -5.0, f64::NAN] {
        assert_refused_by_name(&with(bad), "hardware.power_limit");
    }
}

/// The physics floor reads the limit too: a capped plan's floor rises by
/// the clock it loses, and the capped step stays above it.
#[test]
fn the_floor_follows_the_limit() {
    let full = example_plan();
    let mut capped = full.clone();
    capped.hardware.power_limit = Some(Watts::new(500.0));
    let f = |p: &Plan| {
        planner_core::floor::floor(p)
            .expect("a floor")
            .time
            .as_secs()
    };
    let clock = catalog::clock_fraction(500.0 / 700.0);
    assert!((f(&full) / f(&capped) - clock).abs() < 1e-9);
    assert!(step(&evaluate(&capped)) >= f(&capped));
}
