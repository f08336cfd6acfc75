//! Property tests of the memory model's invariants.

use planner_core::catalog::{GpuId, ModelId};
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::model::{
    AttentionKind, Bias, Dropout, Embeddings, FfnActivation, ModelSpec, MoeSpec, Norm, Positions,
};
use planner_core::plan::{
    AttentionKernel, Checkpointing, CustomModel, Inference, KvCacheLayout, Levers, LogitsScope,
    ModelChoice, OffloadTarget, Overheads, Parallelism, PipelineSchedule, Plan, Precisions,
    SequenceParallel, Sharding, Tier, Training, TrainingKind, Workload,
};
use planner_core::precision::{DoubleQuant, Precision};
use planner_core::report::{ItemKind, Report};
use planner_core::units::Bytes;
use planner_core::{evaluate, Verdict};
use proptest::prelude::*;

fn model_id() -> impl Strategy<Value = ModelId> {
    prop::sample::select(vec![
        ModelId::Gpt2Xl,
        ModelId::Llama2_7b,
        ModelId::Llama2_70b,
        ModelId::Llama31_8b,
        ModelId::Mixtral8x7b,
        ModelId::Qwen25_7b,
        ModelId::DeepseekV3,
        ModelId::Gpt3_175b,
        ModelId::BertLarge,
        ModelId::GptOss20b,
        ModelId::GptOss120b,
    ])
}

fn precision() -> impl Strategy<Value = Precision> {
    prop::sample::select(vec![
        Precision::Fp32,
        Precision::Bf16,
        Precision::Fp16,
        Precision::Fp8,
        Precision::Int8,
        Precision::Int4 { group_size: 128 },
        Precision::Nf4 {
            double_quant: DoubleQuant::On,
        },
        Precision::Mxfp4,
    ])
}

fn checkpointing() -> impl Strategy<Value = Checkpointing> {
    prop_oneof![
        Just(Checkpointing::None),
        Just(Checkpointing::Selective),
        Just(Checkpointing::Full),
        (1u32..8).prop_map(|group| Checkpointing::Uniform { group }),
        (0u32..8).prop_map(|layers| Checkpointing::Block { layers }),
    ]
}

fn sharding() -> impl Strategy<Value = Sharding> {
    prop::sample::select(vec![
        Sharding::None,
        Sharding::Zero1,
        Sharding::Zero2,
        Sharding::Zero3,
        Sharding::FsdpFullShard,
        Sharding::FsdpShardGradOp,
    ])
}

fn hardware(gpus: u32) -> Hardware {
    Hardware {
        nvme_per_node: Bytes::from_tb(8.0),
        ..Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), gpus)
    }
}

#[allow(clippy::too_many_arguments)]
fn training(
    model: ModelId,
    tp: u32,
    pp: u32,
    dp: u32,
    mb: u32,
    seq: u32,
    ckpt: Checkpointing,
    sharding: Sharding,
) -> Plan {
    Plan {
        version: 1,
        name: String::new(),
        model: ModelChoice::Preset(model),
        workload: Workload::Training(Training {
            kind: TrainingKind::PreTraining,
            seq_len: seq,
            global_batch: mb * dp * 8,
            tokens: 0.0,
        }),
        levers: Levers {
            checkpointing: ckpt,
            sharding,
            parallel: Parallelism {
                tp,
                pp,
                dp,
                micro_batch: mb,
                ..Parallelism::default()
            },
            ..Levers::default()
        },
        hardware: hardware(tp * pp * dp),
        overheads: Overheads::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

fn first(r: &Report, kinds: &[ItemKind]) -> f64 {
    kinds
        .iter()
        .map(|k| r.devices[0].of_kind(*k).as_bytes())
        .sum()
}

const STATES: [ItemKind; 4] = [
    ItemKind::Weights,
    ItemKind::Gradients,
    ItemKind::MasterWeights,
    ItemKind::OptimizerStates,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// More data-parallel ranks under ZeRO-3 never raise per-device model states.
    #[test]
    fn zero3_more_dp_never_raises_states(model in model_id(), dp in 1u32..64, extra in 1u32..64) {
        let a = evaluate(&training(model, 1, 1, dp, 1, 2048, Checkpointing::Full, Sharding::Zero3));
        let b = evaluate(&training(model, 1, 1, dp + extra, 1, 2048, Checkpointing::Full, Sharding::Zero3));
        prop_assert!(first(&b, &STATES) <= first(&a, &STATES) * (1.0 + 1e-12));
    }

    /// Any checkpointing keeps no more activation memory than none, and
    /// selective never more than none; full never more than selective when
    /// the stage has two or more layers.
    #[test]
    fn checkpointing_never_raises_activations(
        model in model_id(), ckpt in checkpointing(), mb in 1u32..8, seq in 1u32..9,
        kernel in prop::sample::select(vec![AttentionKernel::Flash, AttentionKernel::Eager, AttentionKernel::FlashTriton]),
    ) {
        let acts = [ItemKind::Activations, ItemKind::RecomputeWorkingSet];
        let mut base = training(model, 1, 1, 8, mb, seq * 512, Checkpointing::None, Sharding::Zero1);
        base.levers.attention = kernel;
        let mut with = base.clone();
        with.levers.checkpointing = ckpt;
        let none = first(&evaluate(&base), &acts);
        let some = first(&evaluate(&with), &acts);
        prop_assert!(some <= none * (1.0 + 1e-12), "{ckpt:?}: {some} > {none}");
        let mut sel = base.clone();
        sel.levers.checkpointing = Checkpointing::Selective;
        let mut full = base.clone();
        full.levers.checkpointing = Checkpointing::Full;
        let (s, f) = (first(&evaluate(&sel), &acts), first(&evaluate(&full), &acts));
        prop_assert!(s <= none * (1.0 + 1e-12));
        prop_assert!(f <= s * (1.0 + 1e-12), "full {f} > selective {s}");
    }

    /// A narrower weight format never raises weight memory, in training or serving.
    #[test]
    fn lower_precision_never_raises_weights(model in model_id(), a in precision(), b in precision(), serve in any::<bool>()) {
        let (wide, narrow) = if a.bytes_per_element() >= b.bytes_per_element() { (a, b) } else { (b, a) };
        let mut plan = training(model, 1, 1, 1, 1, 2048, Checkpointing::Full, Sharding::None);
        if serve {
            plan.workload = Workload::Inference(Inference {
                prompt_tokens: 512, output_tokens: 128, batch: 4, logits: LogitsScope::LastToken,
                stream: None,
            });
        }
        let mut p_wide = plan.clone();
        p_wide.levers.precision.weights = wide;
        let mut p_narrow = plan;
        p_narrow.levers.precision.weights = narrow;
        let w = |p: &Plan| first(&evaluate(p), &[ItemKind::Weights]);
        prop_assert!(w(&p_narrow) <= w(&p_wide) * (1.0 + 1e-12));
    }

    /// Adding host, CXL or HBM capacity never turns a fitting plan into one
    /// that does not fit.
    #[test]
    fn more_capacity_never_breaks_a_fit(model in model_id(), dp in 1u32..16, ckpt in checkpointing(), s in sharding(), cap in 0.3f64..1.0) {
        let mut plan = training(model, 1, 1, dp, 1, 2048, ckpt, s);
        plan.levers.offload.optimizer = Some(OffloadTarget { tier: Tier::HostDram, fraction: 1.0 });
        plan.levers.memory_cap = Some(cap);
        let before = evaluate(&plan).verdict;
        let mut bigger = plan.clone();
        bigger.levers.memory_cap = Some((cap + 0.2).min(1.0));
        bigger.hardware.host_dram_per_node = Bytes::from_tb(4.0);
        let after = evaluate(&bigger).verdict;
        if before == Verdict::Fits {
            prop_assert_eq!(after, Verdict::Fits);
        }
    }

    /// Longer contexts and bigger batches never shrink the KV cache.
    #[test]
    fn kv_cache_monotone(model in model_id(), prompt in 1u32..4096, batch in 1u32..64, more in 1u32..512) {
        let serve = |prompt: u32, batch: u32| Plan {
            version: 1,
            name: String::new(),
            model: ModelChoice::Preset(model),
            workload: Workload::Inference(Inference { prompt_tokens: prompt, output_tokens: 64, batch, logits: LogitsScope::LastToken, stream: None }),
            levers: Levers::default(),
            hardware: hardware(1),
            overheads: Overheads::default(),
            efficiency: Default::default(),
            economics: Default::default(),
            distillation: None,
        };
        let kv = |p: &Plan| first(&evaluate(p), &[ItemKind::KvCache, ItemKind::KvCacheWaste]);
        let base = kv(&serve(prompt, batch));
        prop_assert!(kv(&serve(prompt + more, batch)) >= base);
        prop_assert!(kv(&serve(prompt, batch + 1)) >= base);
    }
}

fn arbitrary_spec() -> impl Strategy<Value = ModelSpec> {
    (
        (0u32..200, 0u32..40_000, 0u32..200, 0u32..200, 0u32..300),
        (0u32..100_000, 0u32..300_000, 0u32..300_000),
        any::<bool>(),
        prop::option::of((0u32..300, 0u32..20, 0u32..5000, 0u32..5000, 0u32..5)),
        prop::option::of(0u32..10_000),
        prop::option::of((0u32..2000, 0u32..1000, 0u32..200, 0u32..100)),
    )
        .prop_map(|(dims, sizes, gated, moe, window, mla)| {
            let (layers, hidden, heads, kv_heads, head_dim) = dims;
            let (ffn, vocab, max_context) = sizes;
            ModelSpec {
                layers,
                hidden,
                heads,
                kv_heads,
                head_dim,
                ffn,
                activation: if gated {
                    FfnActivation::SwiGlu
                } else {
                    FfnActivation::Gelu
                },
                vocab,
                embeddings: if gated {
                    Embeddings::Untied
                } else {
                    Embeddings::Tied
                },
                positions: if gated {
                    Positions::Rotary
                } else {
                    Positions::Learned {
                        max_positions: max_context,
                    }
                },
                norm: if gated {
                    Norm::RmsNorm
                } else {
                    Norm::LayerNorm
                },
                bias: if gated { Bias::None } else { Bias::All },
                dropout: if gated { Dropout::Off } else { Dropout::On },
                attention: match mla {
                    Some((q, kv, nope, rope)) => AttentionKind::Mla(planner_core::model::MlaSpec {
                        q_lora_rank: q,
                        kv_lora_rank: kv,
                        qk_nope_head_dim: nope,
                        qk_rope_head_dim: rope,
                        v_head_dim: nope,
                    }),
                    None => AttentionKind::Standard,
                },
                sliding_window: window,
                windowed_layers: None,
                moe: moe.map(
                    |(experts, top_k, expert_ffn, shared_ffn, dense_layers)| MoeSpec {
                        experts,
                        top_k,
                        expert_ffn,
                        shared_ffn,
                        dense_layers,
                    },
                ),
                token_types: 0,
                max_context,
            }
        })
}

fn arbitrary_plan() -> impl Strategy<Value = Plan> {
    (
        arbitrary_spec(),
        (0u32..17, 0u32..17, 0u32..17, 0u32..5, 0u32..5, 0u32..9),
        (
            checkpointing(),
            sharding(),
            precision(),
            precision(),
            any::<bool>(),
        ),
        (0u32..20_000, 0u32..5000, 0u32..2000, any::<bool>()),
        (
            0u32..70,
            0u32..9,
            -1.0f64..2.0,
            prop::option::of(-0.5f64..1.5),
            0u32..4,
        ),
    )
        .prop_map(|(spec, deg, lev, work, hw)| {
            let (tp, pp, dp, cp, ep, mb) = deg;
            let (ckpt, sharding, weights, kv, interleave) = lev;
            let (seq, batch, out, serve) = work;
            let (gpus, per_node, frac, cap, chunks) = hw;
            Plan {
                version: 1,
                name: "arbitrary".into(),
                model: ModelChoice::Custom(CustomModel {
                    shipped: None,
                    name: String::new(),
                    spec,
                }),
                workload: if serve {
                    Workload::Inference(Inference {
                        prompt_tokens: seq,
                        output_tokens: out,
                        batch,
                        logits: LogitsScope::AllTokens,
                        stream: None,
                    })
                } else {
                    Workload::Training(Training {
                        kind: if interleave {
                            TrainingKind::PreTraining
                        } else {
                            TrainingKind::Qlora(planner_core::plan::LoraSpec {
                                rank: mb,
                                targets: planner_core::plan::LoraTargets::AllLinear,
                                adapter_precision: Precision::Fp32,
                            })
                        },
                        seq_len: seq,
                        global_batch: batch,
                        tokens: f64::from(out),
                    })
                },
                levers: Levers {
                    precision: Precisions {
                        weights,
                        kv_cache: kv,
                        ..Precisions::default()
                    },
                    checkpointing: ckpt,
                    attention: if interleave {
                        AttentionKernel::Eager
                    } else {
                        AttentionKernel::Flash
                    },
                    sharding,
                    shard_group: if mb % 3 == 0 { Some(mb) } else { None },
                    parallel: Parallelism {
                        tp,
                        pp,
                        dp,
                        cp,
                        ep,
                        micro_batch: mb,
                        microbatch_group: 0,
                        sequence_parallel: if interleave {
                            SequenceParallel::On
                        } else {
                            SequenceParallel::Off
                        },
                        schedule: if interleave {
                            PipelineSchedule::Interleaved { chunks }
                        } else {
                            PipelineSchedule::Gpipe
                        },
                    },
                    offload: planner_core::plan::Offload {
                        optimizer: Some(OffloadTarget {
                            tier: Tier::Cxl,
                            fraction: frac,
                        }),
                        kv_cache: Some(OffloadTarget {
                            tier: Tier::HostDram,
                            fraction: frac,
                        }),
                        ..Default::default()
                    },
                    kv_cache: if interleave {
                        KvCacheLayout::Paged {
                            block_tokens: chunks,
                        }
                    } else {
                        KvCacheLayout::Contiguous {
                            reserve_tokens: out,
                        }
                    },
                    prefill_chunk: cap.map(|_| mb),
                    memory_cap: cap,
                    ..Levers::default()
                },
                hardware: Hardware {
                    gpus,
                    gpus_per_node: per_node,
                    ..hardware(1)
                },
                // The allocator model with and without expandable
                // segments, and a flat fraction (in range or not).
                overheads: Overheads {
                    fragmentation: (chunks % 3 == 2).then_some(frac),
                    expandable_segments: if chunks % 3 == 1 {
                        planner_core::software::ExpandableSegments::On
                    } else {
                        planner_core::software::ExpandableSegments::Off
                    },
                    ..Overheads::default()
                },
                efficiency: Default::default(),
                economics: Default::default(),
                distillation: None,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// No input makes `evaluate` panic, and every number in the report is finite.
    #[test]
    fn evaluate_is_total(plan in arbitrary_plan()) {
        let r = evaluate(&plan);
        for d in &r.devices {
            for i in &d.items {
                prop_assert!(i.bytes.is_finite(), "{:?} is {:?}", i.kind, i.bytes);
                prop_assert!(i.bytes.base() >= 0.0, "{:?} is negative", i.kind);
            }
        }
        prop_assert!(r.hbm_margin.is_finite());
        // Zeros and out-of-range values are reported, not silently used.
        if plan.hardware.gpus == 0 || plan.levers.parallel.tp == 0 {
            prop_assert_eq!(r.verdict, Verdict::Invalid);
        }
    }

    /// A plan survives a trip through JSON unchanged.
    #[test]
    fn plan_json_round_trip(plan in arbitrary_plan()) {
        let json = plan.to_json();
        let back = Plan::from_json(&json);
        let err = back.as_ref().err().map(ToString::to_string);
        prop_assert_eq!(back.ok(), Some(plan), "{:?}", err);
    }
}

#[test]
fn example_round_trips_and_fits() {
    let plan = planner_core::example_plan();
    assert_eq!(Plan::from_json(&plan.to_json()).ok(), Some(plan.clone()));
    assert_eq!(evaluate(&plan).verdict, Verdict::Fits);
}

/// A plan `resolve` accepts: degrees that divide what they must, a batch
/// that splits, offload only to tiers that exist.
fn valid_plan() -> impl Strategy<Value = Plan> {
    (
        (model_id(), 0usize..4, 1u32..5, 0u32..4, 0u32..3, 1u32..5),
        (
            checkpointing(),
            sharding(),
            precision(),
            any::<bool>(),
            0u32..4,
        ),
        (0u32..6, 0u32..3, any::<bool>(), 64u32..4096, 1u32..9),
        (
            0u32..4,
            0.0f64..=1.0,
            prop::option::of(0.5f64..=1.0),
            prop::option::of(precision()),
        ),
    )
        .prop_map(|(deg, lev, work, hw)| {
            let (model, tp_i, pp, dp_log, cp_log, mb) = deg;
            let (ckpt, sharding, weights, sp, chunks) = lev;
            let (offload, compute, serve, seq, k) = work;
            let (gpu_i, frac, cap, experts) = hw;
            let spec = planner_core::catalog::model(model).spec;
            let ok_tp = |t: u32| {
                spec.heads % t == 0
                    && spec.ffn % t == 0
                    && (spec.kv_heads % t == 0 || t % spec.kv_heads == 0)
            };
            let tp = [1u32, 2, 4, 8][..=tp_i]
                .iter()
                .copied()
                .filter(|t| ok_tp(*t))
                .max()
                .unwrap_or(1);
            let pp = pp.min(spec.layers);
            let dp = 1u32 << dp_log;
            let cp = 1u32 << cp_log;
            let ep = match spec.moe {
                Some(m) if m.experts % 2 == 0 && (dp * cp) % 2 == 0 => 2,
                _ => 1,
            };
            // Micro-batches per step: a multiple of pp so interleaving is allowed.
            let m = pp * k;
            // DualPipeV: two chunks a rank, at least two micro-batches each.
            let v_shape = chunks == 0 && pp > 1 && k >= 2;
            let chunks = if chunks > 1 && pp > 1 && spec.layers % (pp * chunks) == 0 {
                chunks
            } else {
                1
            };
            let tier = [Tier::HostDram, Tier::Nvme, Tier::Cxl][offload as usize % 3];
            let target = Some(OffloadTarget {
                tier,
                fraction: frac,
            });
            let mut levers = Levers {
                checkpointing: ckpt,
                sharding,
                parallel: Parallelism {
                    tp,
                    pp,
                    dp,
                    cp,
                    ep,
                    micro_batch: mb,
                    microbatch_group: 0,
                    sequence_parallel: if sp {
                        SequenceParallel::On
                    } else {
                        SequenceParallel::Off
                    },
                    schedule: if chunks > 1 {
                        PipelineSchedule::Interleaved { chunks }
                    } else if v_shape {
                        PipelineSchedule::DualPipeV
                    } else {
                        PipelineSchedule::OneFOneB
                    },
                },
                memory_cap: cap,
                ..Levers::default()
            };
            levers.precision.weights = weights;
            levers.precision.experts = experts;
            levers.precision.compute = match compute {
                0 => Precision::Bf16,
                1 => Precision::Fp8,
                _ => Precision::Fp16,
            };
            match offload {
                0 | 1 => levers.offload.optimizer = target,
                2 => {
                    levers.offload.optimizer = target;
                    levers.offload.parameters = target;
                }
                3 => levers.offload.activations = target,
                4 if serve => levers.offload.kv_cache = target,
                // Placement by heat chooses the offload itself.
                5 => levers.placement = planner_core::plan::Placement::ByHeat,
                _ => {}
            }
            // A valid training plan is one some stack runs (`capability`):
            // else ZeRO-1, which Megatron-Core runs with pipelines, and
            // then no offload.
            let runnable = |l: &Levers| {
                !planner_core::capability::stacks_that_run(&planner_core::capability::Layout::of(l))
                    .is_empty()
            };
            if !serve && !runnable(&levers) {
                levers.sharding = Sharding::Zero1;
            }
            if !serve && !runnable(&levers) {
                levers.offload = Default::default();
            }
            if !serve && !runnable(&levers) {
                levers.parallel.schedule = PipelineSchedule::OneFOneB;
            }
            let workload = if serve {
                Workload::Inference(Inference {
                    prompt_tokens: seq,
                    output_tokens: seq / 4,
                    batch: mb * k,
                    logits: LogitsScope::LastToken,
                    stream: None,
                })
            } else {
                Workload::Training(Training {
                    kind: TrainingKind::PreTraining,
                    seq_len: seq * cp,
                    global_batch: mb * dp * m,
                    tokens: 1e9,
                })
            };
            let gpu =
                [GpuId::H100Sxm, GpuId::A100Sxm80, GpuId::B200, GpuId::Mi300x][gpu_i as usize];
            Plan {
                version: 1,
                name: String::new(),
                model: ModelChoice::Preset(model),
                workload,
                levers,
                hardware: Hardware {
                    nvme_per_node: Bytes::from_tb(8.0),
                    cxl: Some(planner_core::hardware::CxlExpansion {
                        devices_per_node: 4,
                        device: planner_core::hardware::CxlChoice::Preset(
                            planner_core::catalog::CxlId::MicronCz120_256,
                        ),
                    }),
                    ..Hardware::new(GpuChoice::Preset(gpu), tp * pp * dp * cp)
                },
                overheads: Overheads::default(),
                efficiency: Default::default(),
                economics: Default::default(),
                distillation: None,
            }
        })
}

/// Same float, bit for bit (NaN equals NaN).
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

/// The fast path's tables, verdict, margin and times against the report's.
fn fast_agrees(plan: &Plan) -> Result<(), TestCaseError> {
    use planner_core::quick::{Breakdown, Prepared, QuickTime};
    use planner_core::report::TimeReport;
    let report = evaluate(plan);
    let prepared = Prepared::new(plan);
    let tables = prepared.tables();
    prop_assert_eq!(tables.len(), report.devices.len());
    for (fast, full) in tables.iter().zip(&report.devices) {
        let slow = Breakdown::from_device(full, fast.rank);
        prop_assert_eq!(fast.role, slow.role);
        prop_assert_eq!(fast.layers, slow.layers);
        for (a, b) in fast.bytes.iter().flatten().zip(slow.bytes.iter().flatten()) {
            prop_assert!(same(*a, *b), "{} vs {}", a, b);
        }
    }
    let q = prepared.quick();
    prop_assert_eq!(q.verdict, report.verdict);
    prop_assert_eq!(q.binding, report.binding);
    prop_assert!(same(q.hbm_margin.base(), report.hbm_margin.base()));
    match (q.time, &report.time) {
        (
            QuickTime::Training {
                step,
                tokens_per_step,
            },
            TimeReport::Training(t),
        ) => {
            prop_assert!(same(step.base(), t.step.base()));
            prop_assert!(same(tokens_per_step, t.tokens_per_step));
        }
        (
            QuickTime::Inference {
                ttft,
                tpot,
                request_latency,
                output_tokens_per_second,
            },
            TimeReport::Inference(t),
        ) => {
            prop_assert!(same(ttft.base(), t.ttft.base()));
            prop_assert!(same(tpot.base(), t.tpot.base()));
            prop_assert!(same(request_latency.base(), t.request_latency.base()));
            prop_assert!(same(
                output_tokens_per_second,
                t.total_output_tokens_per_second
            ));
        }
        _ => prop_assert!(false, "workload kinds differ"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The allocation-free fast path equals the report, to the bit, on
    /// plans `resolve` accepts.
    #[test]
    fn fast_path_equals_report(plan in valid_plan()) {
        prop_assert_ne!(evaluate(&plan).verdict, Verdict::Invalid, "{:?}", evaluate(&plan).diagnostics);
        fast_agrees(&plan)?;
    }

    /// And on anything at all (invalid plans included).
    #[test]
    fn fast_path_equals_report_on_arbitrary_plans(plan in arbitrary_plan()) {
        fast_agrees(&plan)?;
    }
}

/// Every time the model predicts is at or above the independent physics
/// floor (`planner_core::floor`), and every MFU at or below its ceiling.
fn above_the_floor(plan: &Plan) -> Result<(), TestCaseError> {
    let report = evaluate(plan);
    let Some(f) = planner_core::floor::floor(plan) else {
        return Ok(());
    };
    if report.verdict == Verdict::Invalid {
        return Ok(());
    }
    // Relative slack for rounding only: the floor is not an estimate.
    let tol = 1.0 - 1e-9;
    match &report.time {
        planner_core::report::TimeReport::Training(t) => {
            prop_assert!(
                t.step.as_secs() >= f.time.as_secs() * tol,
                "step {} s below the floor {} s",
                t.step.as_secs(),
                f.time.as_secs()
            );
            prop_assert!(
                t.mfu <= f.mfu_ceiling / tol,
                "MFU {} above the ceiling {}",
                t.mfu,
                f.mfu_ceiling
            );
        }
        planner_core::report::TimeReport::Inference(t) => {
            prop_assert!(
                t.tpot.as_secs() >= f.time.as_secs() * tol,
                "TPOT {} s below the floor {} s",
                t.tpot.as_secs(),
                f.time.as_secs()
            );
            prop_assert!(
                t.ttft.as_secs() >= f.ttft.as_secs() * tol,
                "TTFT {} s below the floor {} s",
                t.ttft.as_secs(),
                f.ttft.as_secs()
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// On plans `resolve` accepts.
    #[test]
    fn times_are_at_or_above_the_physics_floor(plan in valid_plan()) {
        above_the_floor(&plan)?;
    }

    /// And on anything at all that is not invalid.
    #[test]
    fn times_are_at_or_above_the_floor_on_arbitrary_plans(plan in arbitrary_plan()) {
        above_the_floor(&plan)?;
    }
}
