//! Property tests of the sharding modes and training offload (issue 11,
//! "One definition per sharding mode" and "Training offload"): ZeRO-3
//! saves at most the sharded parameters over ZeRO-2, more room under
//! `stage3_max_live_parameters` never slows a step, and moving optimizer
//! states or parameters off the GPU never speeds one up.

use planner_core::catalog::{GpuId, ModelId};
use planner_core::evaluate;
use planner_core::example_plan;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{
    Checkpointing, ModelChoice, OffloadTarget, Plan, Sharding, Tier, Training, TrainingKind,
    Workload,
};
use planner_core::report::{ItemKind, Report, TimeReport};
use planner_core::zero::Zero3Fetch;
use proptest::prelude::*;

/// A data-parallel training plan of `model` on `gpus` H100s.
fn plan(model: ModelId, gpus: u32, mb: u32, ckpt: Checkpointing, sharding: Sharding) -> Plan {
    let mut p = example_plan();
    p.model = ModelChoice::Preset(model);
    p.workload = Workload::Training(Training {
        kind: TrainingKind::PreTraining,
        seq_len: 4096,
        global_batch: gpus * mb * 2,
        tokens: 0.0,
    });
    p.levers.checkpointing = ckpt;
    p.levers.sharding = sharding;
    p.levers.parallel.dp = gpus;
    p.levers.parallel.micro_batch = mb;
    p.hardware = Hardware {
        ..Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), gpus)
    };
    p
}

fn step(r: &Report) -> f64 {
    match &r.time {
        TimeReport::Training(t) => t.step.as_secs(),
        _ => unreachable!("training plan"),
    }
}

fn hbm(r: &Report) -> f64 {
    r.devices[0].in_tier(Tier::Hbm).as_bytes()
}

fn model() -> impl Strategy<Value = ModelId> {
    prop::sample::select(vec![
        ModelId::Llama2_7b,
        ModelId::Llama31_8b,
        ModelId::Llama2_13b,
        ModelId::Llama31_70b,
        ModelId::Gpt3_175b,
    ])
}

fn ckpt() -> impl Strategy<Value = Checkpointing> {
    prop::sample::select(vec![
        Checkpointing::None,
        Checkpointing::Selective,
        Checkpointing::Full,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// ZeRO-3 divides the parameters over the group and adds gather
    /// buffers; it can never save more than the parameters it shards.
    #[test]
    fn zero3_saves_at_most_the_sharded_parameters(
        m in model(),
        gpus in prop::sample::select(vec![8u32, 16, 64, 256]),
        mb in 1u32..3,
        c in ckpt(),
    ) {
        let z2 = evaluate(&plan(m, gpus, mb, c, Sharding::Zero2));
        let z3 = evaluate(&plan(m, gpus, mb, c, Sharding::Zero3));
        let whole = z2.devices[0].of_kind(ItemKind::Weights).as_bytes();
        let sharded = whole * (1.0 - 1.0 / f64::from(gpus));
        prop_assert!(
            hbm(&z3) >= hbm(&z2) - sharded - 1.0,
            "ZeRO-3 {} < ZeRO-2 {} − sharded {}",
            hbm(&z3),
            hbm(&z2),
            sharded
        );
    }

    /// More room under `stage3_max_live_parameters` lets DeepSpeed prefetch
    /// further: a step is never slower for it.
    #[test]
    fn more_max_live_never_slows_a_step(
        m in model(),
        gpus in prop::sample::select(vec![8u32, 64, 256]),
        c in ckpt(),
        lo in 0u64..2_000_000_000,
        extra in 0u64..4_000_000_000,
    ) {
        let at = |max_live| {
            let mut p = plan(m, gpus, 1, c, Sharding::Zero3);
            p.levers.zero3 = Zero3Fetch { max_live, ..Zero3Fetch::default() };
            step(&evaluate(&p))
        };
        let (few, many) = (at(lo), at(lo + extra));
        prop_assert!(many <= few * (1.0 + 1e-12), "{many} > {few}");
    }

    /// Offloading optimizer states (ZeRO-Offload) or parameters
    /// (ZeRO-Infinity) to host memory or NVMe never makes a step faster
    /// than the same plan with everything in HBM.
    #[test]
    fn offload_never_speeds_a_step(
        m in model(),
        gpus in prop::sample::select(vec![1u32, 8, 64]),
        c in ckpt(),
        sharding in prop::sample::select(vec![Sharding::Zero2, Sharding::Zero3]),
        tier in prop::sample::select(vec![Tier::HostDram, Tier::Nvme]),
        fraction in 0.1f64..=1.0,
        what in 0usize..3,
    ) {
        let base = plan(m, gpus, 1, c, sharding);
        let mut off = base.clone();
        let target = Some(OffloadTarget { tier, fraction });
        match what {
            0 => off.levers.offload.optimizer = target,
            1 => off.levers.offload.parameters = target,
            _ => {
                off.levers.offload.optimizer = target;
                off.levers.offload.parameters = target;
            }
        }
        let (b, o) = (step(&evaluate(&base)), step(&evaluate(&off)));
        prop_assert!(o >= b * (1.0 - 1e-12), "offloaded {o} < in HBM {b}");
    }
}

/// The default knobs are DeepSpeed's, and a plan that leaves them alone
/// writes none of them into its JSON (old links stay as they were).
#[test]
fn zero3_knobs_default_to_deepspeed_and_stay_out_of_links() {
    let d = Zero3Fetch::default();
    assert_eq!(
        (
            d.prefetch_bucket,
            d.max_live,
            d.persistence_threshold,
            d.reduce_bucket
        ),
        (50_000_000, 1_000_000_000, 100_000, 500_000_000)
    );
    let json = serde_json::to_string(&example_plan()).expect("plan serializes");
    assert!(!json.contains("zero3"), "{json}");
    let mut p = example_plan();
    p.levers.zero3.max_live = 2_000_000_000;
    let json = serde_json::to_string(&p).expect("plan serializes");
    assert!(json.contains("\"max_live\":2000000000"), "{json}");
    let back: Plan = serde_json::from_str(&json).expect("plan parses");
    assert_eq!(back.levers.zero3, p.levers.zero3);
    let hostile = json.replace("\"max_live\"", "\"max_alive\"");
    assert!(serde_json::from_str::<Plan>(&hostile).is_err());
}

/// Each knob past its bound, and a zero reduce bucket, is named in a
/// diagnostic.
#[test]
fn zero3_knobs_out_of_bounds_are_named() {
    let mut p = example_plan();
    p.levers.sharding = Sharding::Zero3;
    p.levers.zero3.prefetch_bucket = Zero3Fetch::MAX + 1;
    p.levers.zero3.reduce_bucket = 0;
    let r = evaluate(&p);
    let text = format!("{:?}", r.diagnostics);
    assert!(text.contains("levers.zero3.prefetch_bucket"), "{text}");
    assert!(text.contains("levers.zero3.reduce_bucket"), "{text}");
}

/// A 1T-class block (7.9 B parameters, 2.6 B-parameter FFN matrices) is
/// past DeepSpeed's default max-live: ZeRO-3 then holds one gathered
/// matrix, not whole layers, and every fetch waits in full, so raising
/// max-live buys speed with memory.
#[test]
fn a_block_past_max_live_is_gathered_matrix_by_matrix() {
    let mut p = plan(
        ModelId::Megatron1t,
        1024,
        1,
        Checkpointing::Full,
        Sharding::Zero3,
    );
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::A100Sxm80), 1024);
    let tight = evaluate(&p);
    p.levers.zero3.max_live = 10_000_000_000;
    let roomy = evaluate(&p);
    let gathered = |r: &Report| r.devices[0].of_kind(ItemKind::GatherBuffers).as_bytes();
    assert!(gathered(&roomy) > gathered(&tight));
    assert!(step(&roomy) < step(&tight));
    // The running matrix (25,600 × 102,400 in BF16) and its FP32 gradient,
    // the reduce bucket and the persistent norms: far below two 7.9 B
    // layers.
    assert!(gathered(&tight) < 2.0 * 7.86e9 * 2.0);
}
