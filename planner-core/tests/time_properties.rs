//! Property tests of the time model's invariants: more bandwidth or a
//! better efficiency never slows a step, a bigger pipeline bubble never
//! speeds it, adding capacity never breaks a fit.

use planner_core::catalog::{self, GpuId, LinkId, ModelId};
use planner_core::efficiency::{Efficiency, EfficiencyOverrides};
use planner_core::hardware::{CustomGpu, GpuChoice, Hardware};
use planner_core::plan::{
    Checkpointing, Inference, Levers, LogitsScope, ModelChoice, OffloadTarget, Parallelism,
    PipelineSchedule, Plan, Sharding, Tier, Training, TrainingKind, Workload,
};
use planner_core::report::{Report, TimeReport};
use planner_core::units::{ByteRate, Bytes};
use planner_core::{evaluate, Verdict};
use proptest::prelude::*;

fn model_id() -> impl Strategy<Value = ModelId> {
    prop::sample::select(vec![
        ModelId::Gpt2Xl,
        ModelId::Llama2_7b,
        ModelId::Llama31_8b,
        ModelId::Mixtral8x7b,
        ModelId::Gpt3_175b,
    ])
}

fn gpu_id() -> impl Strategy<Value = GpuId> {
    prop::sample::select(vec![
        GpuId::A100Sxm80,
        GpuId::H100Sxm,
        GpuId::B200,
        GpuId::Mi300x,
    ])
}

fn custom(gpu: GpuId) -> CustomGpu {
    let e = catalog::gpu(gpu);
    CustomGpu {
        name: e.name.to_string(),
        spec: e.spec,
    }
}

#[allow(clippy::too_many_arguments)]
fn train(
    model: ModelId,
    gpu: GpuChoice,
    tp: u32,
    pp: u32,
    dp: u32,
    m: u32,
    ckpt: Checkpointing,
    sharding: Sharding,
    schedule: PipelineSchedule,
) -> Plan {
    Plan {
        version: 1,
        name: String::new(),
        model: ModelChoice::Preset(model),
        workload: Workload::Training(Training {
            kind: TrainingKind::PreTraining,
            seq_len: 2048,
            global_batch: dp * m * pp,
            tokens: 1e9,
        }),
        levers: Levers {
            checkpointing: ckpt,
            sharding,
            offload: planner_core::plan::Offload {
                optimizer: Some(OffloadTarget {
                    tier: Tier::HostDram,
                    fraction: 0.5,
                }),
                ..Default::default()
            },
            parallel: Parallelism {
                tp,
                pp,
                dp,
                schedule,
                ..Parallelism::default()
            },
            ..Levers::default()
        },
        hardware: Hardware::new(gpu, tp * pp * dp),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

fn serve(model: ModelId, gpu: GpuChoice, tp: u32, prompt: u32, batch: u32) -> Plan {
    Plan {
        version: 1,
        name: String::new(),
        model: ModelChoice::Preset(model),
        workload: Workload::Inference(Inference {
            prompt_tokens: prompt,
            output_tokens: 256,
            batch,
            logits: LogitsScope::LastToken,
            stream: None,
        }),
        levers: Levers {
            parallel: Parallelism {
                tp,
                ..Parallelism::default()
            },
            offload: planner_core::plan::Offload {
                kv_cache: Some(OffloadTarget {
                    tier: Tier::HostDram,
                    fraction: 0.3,
                }),
                ..Default::default()
            },
            ..Levers::default()
        },
        hardware: Hardware::new(gpu, tp),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// Step time, or TTFT + TPOT for serving.
fn time(r: &Report) -> f64 {
    match &r.time {
        TimeReport::Training(t) => t.step.as_secs(),
        TimeReport::Inference(t) => t.ttft.as_secs() + t.tpot.as_secs(),
    }
}

fn plans() -> impl Strategy<Value = (Plan, GpuId)> {
    let tp = prop::sample::select(vec![1u32, 2, 4, 8]);
    let pp = prop::sample::select(vec![1u32, 2, 4]);
    let ckpt = prop::sample::select(vec![
        Checkpointing::None,
        Checkpointing::Selective,
        Checkpointing::Full,
    ]);
    let sharding = prop::sample::select(vec![
        Sharding::None,
        Sharding::Zero1,
        Sharding::Zero2,
        Sharding::Zero3,
        Sharding::FsdpShardGradOp,
    ]);
    prop_oneof![
        (
            model_id(),
            gpu_id(),
            tp.clone(),
            pp,
            1u32..32,
            1u32..16,
            ckpt,
            sharding
        )
            .prop_map(|(model, gpu, tp, pp, dp, m, ckpt, s)| {
                (
                    train(
                        model,
                        GpuChoice::Custom(custom(gpu)),
                        tp,
                        pp,
                        dp,
                        m,
                        ckpt,
                        s,
                        PipelineSchedule::OneFOneB,
                    ),
                    gpu,
                )
            }),
        (model_id(), gpu_id(), tp, 1u32..8192, 1u32..64).prop_map(
            |(model, gpu, tp, prompt, batch)| {
                (
                    serve(model, GpuChoice::Custom(custom(gpu)), tp, prompt, batch),
                    gpu,
                )
            }
        ),
    ]
}

fn with_gpu(plan: &Plan, f: impl Fn(&mut CustomGpu)) -> Plan {
    let mut p = plan.clone();
    if let GpuChoice::Custom(g) = &mut p.hardware.gpu {
        f(g);
    }
    p
}

const TOL: f64 = 1.0 + 1e-9;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// More HBM bandwidth, more compute, faster links: never slower.
    #[test]
    fn more_bandwidth_never_slows((plan, _gpu) in plans(), k in 1.0f64..4.0) {
        let base = time(&evaluate(&plan));
        let hbm = with_gpu(&plan, |g| g.spec.memory_bandwidth = g.spec.memory_bandwidth * k);
        prop_assert!(time(&evaluate(&hbm)) <= base * TOL);
        let flops = with_gpu(&plan, |g| {
            g.spec.bf16 = g.spec.bf16 * k;
            g.spec.fp16 = g.spec.fp16 * k;
        });
        prop_assert!(time(&evaluate(&flops)) <= base * TOL);
        let mut net = plan.clone();
        net.hardware.scale_out = Some(LinkId::InfinibandXdr);
        let mut slow_net = plan.clone();
        slow_net.hardware.scale_out = Some(LinkId::InfinibandEdr);
        prop_assert!(time(&evaluate(&net)) <= time(&evaluate(&slow_net)) * TOL);
        let mut host = plan.clone();
        host.hardware.host_memory_bandwidth = Some(ByteRate::from_gb_per_s(400.0 * k));
        let mut host_slow = plan.clone();
        host_slow.hardware.host_memory_bandwidth = Some(ByteRate::from_gb_per_s(400.0));
        prop_assert!(time(&evaluate(&host)) <= time(&evaluate(&host_slow)) * TOL);
    }

    /// Higher efficiencies never slow a step.
    #[test]
    fn better_efficiency_never_slows((plan, _gpu) in plans(), k in 1.0f64..1.5) {
        let base = time(&evaluate(&plan));
        let e = plan.efficiency_in_force();
        let mut better = plan.clone();
        better.efficiency = EfficiencyOverrides::all(Efficiency {
            gemm: (e.gemm * k).min(1.0),
            attention: (e.attention * k).min(1.0),
            hbm: (e.hbm * k).min(1.0),
            scale_up: (e.scale_up * k).min(1.0),
            scale_out: (e.scale_out * k).min(1.0),
            host_link: (e.host_link * k).min(1.0),
            overlap: (e.overlap * k).min(1.0),
            layer_overhead: e.layer_overhead / k,
            moe_expert_host: e.moe_expert_host / k,
            ..e
        });
        prop_assert!(time(&evaluate(&better)) <= base * TOL);
    }

    /// Interleaving shrinks the bubble; removing it (a bigger bubble)
    /// never makes a step faster, and neither do more stages of the same
    /// per-stage work.
    #[test]
    fn bigger_bubble_never_speeds(model in model_id(), m in 1u32..8) {
        let gpu = GpuChoice::Preset(GpuId::H100Sxm);
        // 4 stages, m·4 micro-batches (so interleaving is valid).
        let inter = train(model, gpu.clone(), 1, 4, 1, m * 4, Checkpointing::Full, Sharding::None,
            PipelineSchedule::Interleaved { chunks: 2 });
        let plain = train(model, gpu, 1, 4, 1, m * 4, Checkpointing::Full, Sharding::None,
            PipelineSchedule::OneFOneB);
        let (a, b) = (evaluate(&inter), evaluate(&plain));
        prop_assume!(a.verdict != Verdict::Invalid && b.verdict != Verdict::Invalid);
        let bubble = |r: &Report| match &r.time {
            TimeReport::Training(t) => t.parts.iter()
                .filter(|p| p.kind == planner_core::report::TimeKind::PipelineBubble)
                .map(|p| p.exposed.as_secs()).sum::<f64>(),
            _ => 0.0,
        };
        prop_assert!(bubble(&b) >= bubble(&a));
        // The bubble only ever adds: whatever 1F1B gains over interleaving
        // comes from its fewer pipeline sends, never from the bubble.
        let sends = |r: &Report| match &r.time {
            TimeReport::Training(t) => t.parts.iter()
                .filter(|p| p.kind == planner_core::report::TimeKind::PipelineP2p)
                .map(|p| p.exposed.as_secs()).sum::<f64>(),
            _ => 0.0,
        };
        prop_assert!(time(&b) + 1e-9 >= time(&a) - (sends(&a) - sends(&b)));
        // Exposed parts add up to the step.
        for r in [&a, &b] {
            if let TimeReport::Training(t) = &r.time {
                let sum: f64 = t.parts.iter().map(|p| p.exposed.as_secs()).sum();
                prop_assert!((sum - t.step.as_secs()).abs() <= 1e-9 * t.step.as_secs().max(1.0));
            }
        }
    }

    /// A plan that fits keeps fitting with more capacity anywhere.
    #[test]
    fn adding_capacity_never_breaks_a_fit((plan, _gpu) in plans(), k in 1.0f64..3.0) {
        let r = evaluate(&plan);
        prop_assume!(r.verdict == Verdict::Fits);
        let hbm = with_gpu(&plan, |g| {
            g.spec.capacity = g.spec.capacity * k;
            g.spec.usable = g.spec.usable.map(|u| u * k);
        });
        prop_assert_eq!(evaluate(&hbm).verdict, Verdict::Fits);
        let mut host = plan.clone();
        host.hardware.host_dram_per_node = host.hardware.host_dram_per_node * k;
        host.hardware.nvme_per_node += Bytes::from_tb(k);
        prop_assert_eq!(evaluate(&host).verdict, Verdict::Fits);
        let mut cxl = plan.clone();
        cxl.hardware.cxl = Some(planner_core::hardware::CxlExpansion {
            devices_per_node: 2,
            device: planner_core::hardware::CxlChoice::Preset(catalog::CXL_DEVICES[0].id),
        });
        prop_assert_eq!(evaluate(&cxl).verdict, Verdict::Fits);
    }
}

/// The Triton FlashAttention kernel runs attention at FlashAttention-2's
/// published slowdowns (1.4× forward, 2× backward,
/// `catalog::TRITON_FLASH_SLOWDOWN`), and nothing else about the step
/// moves: at 16,384 tokens the attention core is compute-bound, so its
/// forward + backward time grows by (1.4 + 2.5 × 2) / (1 + 2.5).
#[test]
fn the_triton_flash_kernel_runs_at_its_published_slowdown() {
    use planner_core::plan::{AttentionKernel, Checkpointing, Workload};
    use planner_core::report::TimeKind;
    let mut p = planner_core::example_plan();
    p.levers.checkpointing = Checkpointing::Full;
    if let Workload::Training(t) = &mut p.workload {
        t.seq_len = 16_384;
        t.global_batch = 64;
    }
    let part = |p: &planner_core::plan::Plan, kind: TimeKind| training_part(p, kind, |x| x.busy);
    let mut triton = p.clone();
    triton.levers.attention = AttentionKernel::FlashTriton;
    let (f, b) = planner_core::catalog::TRITON_FLASH_SLOWDOWN;
    let ratio = part(&triton, TimeKind::Attention) / part(&p, TimeKind::Attention);
    assert!((ratio - (f + 2.5 * b) / 3.5).abs() < 1e-9, "{ratio}");
    // The recomputed forward runs the Triton forward again.
    let recompute = part(&triton, TimeKind::Recompute) - part(&p, TimeKind::Recompute);
    assert!(recompute > 0.0);
    for kind in [TimeKind::Gemm, TimeKind::Elementwise] {
        assert_eq!(part(&triton, kind), part(&p, kind), "{kind:?}");
    }
    // Memory is FlashAttention's.
    assert_eq!(evaluate(&triton).devices, evaluate(&p).devices);
}

/// A fully recomputed forward runs its TP collectives once more, and they
/// are charged once: with the TP collectives, not again in the recompute.
/// So the recompute's seconds do not move with the scale-up link's
/// efficiency, and without overlap the TP collectives of a step are three
/// forward volumes under full recompute against two without it.
#[test]
fn a_recomputed_forward_charges_its_tp_collectives_once() {
    use planner_core::plan::{CommOverlap, Overlap, SequenceParallel};
    use planner_core::report::TimeKind;
    let plan = |checkpointing, scale_up| {
        let mut p = planner_core::example_plan();
        p.levers.parallel.tp = 8;
        p.levers.parallel.dp = 1;
        p.levers.parallel.pp = 1;
        p.levers.parallel.sequence_parallel = SequenceParallel::Off;
        p.levers.overlap = CommOverlap {
            tensor_parallel: Overlap::Off,
            ..p.levers.overlap
        };
        p.levers.checkpointing = checkpointing;
        p.efficiency.scale_up = Some(scale_up);
        p
    };
    let part = |p: &Plan, kind: TimeKind| training_part(p, kind, |x| x.exposed);
    let (fast, slow) = (
        plan(Checkpointing::Full, 0.9),
        plan(Checkpointing::Full, 0.3),
    );
    assert!(part(&slow, TimeKind::TensorParallel) > 2.0 * part(&fast, TimeKind::TensorParallel));
    assert_eq!(
        part(&slow, TimeKind::Recompute),
        part(&fast, TimeKind::Recompute)
    );
    let none = plan(Checkpointing::None, 0.9);
    let ratio = part(&fast, TimeKind::TensorParallel) / part(&none, TimeKind::TensorParallel);
    assert!((ratio - 1.5).abs() < 1e-9, "{ratio}");
}

/// Seconds of the training step's parts of `kind` (`pick`: busy or
/// exposed); NaN for a serving plan.
fn training_part(
    p: &Plan,
    kind: planner_core::report::TimeKind,
    pick: fn(&planner_core::report::TimePart) -> planner_core::units::Seconds,
) -> f64 {
    match evaluate(p).time {
        TimeReport::Training(t) => t
            .parts
            .iter()
            .filter(|x| x.kind == kind)
            .map(|x| pick(x).as_secs())
            .sum(),
        TimeReport::Inference(_) => f64::NAN,
    }
}

/// FSDP2 copies the gathered buffer into each parameter and the gradients
/// into the reduce-scatter input on the compute stream, once per gather
/// and reduce-scatter; with full sharding both run every micro-batch. So
/// torchtitan's element-wise time over plain data parallelism grows by the
/// same amount with each micro-batch, and a stack whose gathers land in
/// flat buffers (Megatron's distributed optimizer) pays nothing.
#[test]
fn fsdp2_copies_run_on_the_compute_stream_every_micro_batch() {
    use planner_core::report::TimeKind;
    use planner_core::stack::TrainingStack;
    let plan = |stack, sharding, micro_batches: u32| {
        let mut p = planner_core::example_plan();
        p.levers.training_stack = Some(stack);
        p.levers.sharding = sharding;
        p.levers.parallel.micro_batch = 1;
        if let Workload::Training(t) = &mut p.workload {
            t.global_batch = p.levers.parallel.dp * micro_batches;
        }
        p
    };
    let ew = |p: &Plan| training_part(p, TimeKind::Elementwise, |x| x.busy);
    let extra = |m| {
        ew(&plan(TrainingStack::Torchtitan, Sharding::FsdpFullShard, m))
            - ew(&plan(TrainingStack::Torchtitan, Sharding::None, m))
    };
    let (one, four) = (extra(1), extra(4));
    assert!(one > 0.0, "{one}");
    assert!((four / one - 4.0).abs() < 1e-6, "{one} {four}");
    let megatron = |s| ew(&plan(TrainingStack::MegatronCore, s, 4));
    assert_eq!(megatron(Sharding::Zero1), megatron(Sharding::None));
}
