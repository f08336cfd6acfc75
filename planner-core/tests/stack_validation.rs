//! Validation of the time model against measured training runs on stacks
//! other than Megatron-Core (whose runs are in `time_validation.rs`), one
//! table per stack, with each stack's one profile (`stack::TrainingStack`)
//! and no per-row tuning. Run with `--nocapture` to see the tables:
//! `cargo test -p planner-core --test stack_validation -- --nocapture`.
//!
//! Each row states the configuration as its source publishes it; where the
//! source is silent the assumption is written beside the row.

#[path = "common/qwen3_moe.rs"]
mod qwen3_moe;
#[path = "common/recompute.rs"]
mod recompute;
use qwen3_moe::{qwen3_235b, qwen3_30b};
#[path = "common/stats.rs"]
mod stats;
use planner_core::catalog::{GpuId, LinkId, ModelId};
use planner_core::evaluate;
use planner_core::hardware::{CustomGpu, GpuChoice, Hardware, MemoryTech};
use planner_core::moe::{DispatchOverlap, MoeLevers};
use planner_core::plan::{
    AttentionKernel, Checkpointing, CommOverlap, Levers, ModelChoice, Offload, OffloadTarget,
    Overheads, Overlap, Parallelism, PipelineSchedule, Plan, Precisions, SequenceParallel,
    Sharding, Tier, Training, TrainingKind, Workload,
};
use planner_core::precision::Precision;
use planner_core::report::{TimeReport, Verdict};
use planner_core::software::{ExpandableSegments, LossKernel, MemorySoftware};
use planner_core::stack::TrainingStack;
use planner_core::units::{ByteRate, Bytes, Watts};
use planner_core::zero::Zero3Fetch;
use planner_core::Named;
use stats::assert_band_holds;

/// A training run as published.
#[derive(Clone)]
struct Run {
    name: String,
    stack: TrainingStack,
    model: ModelId,
    gpu: GpuId,
    scale_out: Option<LinkId>,
    seq: u32,
    /// Sequences per data-parallel rank and step (no accumulation: the
    /// micro-batch).
    micro_batch: u32,
    tp: u32,
    dp: u32,
    cp: u32,
    ckpt: Checkpointing,
    sharding: Sharding,
    /// TP communication overlapped (async TP).
    tp_overlap: bool,
    fp8: bool,
    /// Published tokens per second per GPU.
    tokens_per_gpu_s: f64,
    /// Pipeline stages and interleaved chunks per stage.
    pp: u32,
    chunks: u32,
    ep: u32,
    /// The MoE levers the run used (`levers.moe`).
    moe: MoeLevers,
    kernel: AttentionKernel,
    /// An NVL72 rack: 4 GPUs per tray, 72 in one NVLink domain.
    nvl72: bool,
    /// Scale-out ports per node (0: one per GPU).
    nics: u32,
    /// 2021–22 Megatron (Megatron-DeepSpeed): no sequence parallelism,
    /// and the gradient reduction waits for the pipeline to drain.
    legacy_megatron: bool,
    /// DeepSpeed ZeRO-3 fetch knobs, where the run's config sets them.
    zero3: Option<Zero3Fetch>,
    /// FP16 mixed precision (FP16 weights, gradients and activations,
    /// FP32 master weights and Adam moments) instead of BF16.
    fp16: bool,
    /// Optimizer states and checkpointed activations in host memory
    /// (DeepSpeed `offload_optimizer` with its CPU Adam, and
    /// `cpu_checkpointing`).
    offload_host: bool,
    /// A model not in the catalog (replaces `model`).
    custom: Option<ModelChoice>,
    /// A part not in the catalog (replaces `gpu`).
    custom_gpu: Option<CustomGpu>,
    /// The board power limit the run's GPUs ran under (`None`: the TDP).
    power_limit: Option<Watts>,
    /// The loss kernel, where the run names one.
    loss: LossKernel,
    /// Micro-batches per step (gradient accumulation).
    accumulation: u32,
    /// The source does not say how activations fit: use the least
    /// recompute that fits our memory model (none, the first k layers of
    /// each stage, every layer).
    infer_recompute: bool,
}

impl Default for Run {
    fn default() -> Self {
        Run {
            name: String::new(),
            stack: TrainingStack::MegatronCore,
            model: ModelId::Llama31_8b,
            gpu: GpuId::H100Sxm,
            scale_out: None,
            seq: 8192,
            micro_batch: 1,
            tp: 1,
            dp: 1,
            cp: 1,
            ckpt: Checkpointing::None,
            sharding: Sharding::Zero1,
            tp_overlap: false,
            fp8: false,
            tokens_per_gpu_s: 1.0,
            pp: 1,
            chunks: 1,
            ep: 1,
            moe: MoeLevers::default(),
            kernel: AttentionKernel::Flash,
            nvl72: false,
            nics: 0,
            legacy_megatron: false,
            zero3: None,
            fp16: false,
            offload_host: false,
            custom: None,
            custom_gpu: None,
            power_limit: None,
            loss: LossKernel::StackDefault,
            accumulation: 1,
            infer_recompute: false,
        }
    }
}

impl Run {
    fn plan(&self) -> Plan {
        let gpus = self.tp * self.pp * self.dp * self.cp;
        Plan {
            version: 1,
            name: self.name.clone(),
            model: self
                .custom
                .clone()
                .unwrap_or(ModelChoice::Preset(self.model)),
            workload: Workload::Training(Training {
                kind: TrainingKind::PreTraining,
                seq_len: self.seq,
                global_batch: self.micro_batch * self.dp * self.accumulation,
                tokens: 0.0,
            }),
            levers: Levers {
                checkpointing: self.ckpt,
                attention: self.kernel,
                sharding: self.sharding,
                overlap: CommOverlap {
                    data_parallel: if self.legacy_megatron {
                        Overlap::Off
                    } else {
                        Overlap::On
                    },
                    tensor_parallel: if self.tp_overlap {
                        Overlap::On
                    } else {
                        Overlap::Off
                    },
                    offload: Overlap::On,
                },
                precision: self.precisions(),
                zero3: self.zero3.unwrap_or_default(),
                offload: if self.offload_host {
                    let host = Some(OffloadTarget {
                        tier: Tier::HostDram,
                        fraction: 1.0,
                    });
                    Offload {
                        optimizer: host,
                        activations: host,
                        ..Offload::default()
                    }
                } else {
                    Offload::default()
                },
                parallel: Parallelism {
                    tp: self.tp,
                    pp: self.pp,
                    dp: self.dp,
                    ep: self.ep,
                    cp: self.cp,
                    micro_batch: self.micro_batch,
                    microbatch_group: 0,
                    sequence_parallel: if self.tp > 1 && !self.legacy_megatron {
                        SequenceParallel::On
                    } else {
                        SequenceParallel::Off
                    },
                    schedule: if self.chunks > 1 {
                        PipelineSchedule::Interleaved {
                            chunks: self.chunks,
                        }
                    } else {
                        PipelineSchedule::OneFOneB
                    },
                },
                training_stack: Some(self.stack),
                moe: self.moe,
                memory: MemorySoftware {
                    loss: self.loss,
                    ..MemorySoftware::default()
                },
                ..Levers::default()
            },
            hardware: Hardware {
                scale_out: self.scale_out,
                gpus_per_node: if self.nvl72 { 4 } else { 8 },
                scale_up_domain: if self.nvl72 { 72 } else { 0 },
                nics_per_node: self.nics,
                power_limit: self.power_limit,
                ..Hardware::new(
                    self.custom_gpu
                        .clone()
                        .map_or(GpuChoice::Preset(self.gpu), GpuChoice::Custom),
                    gpus,
                )
            },
            overheads: Overheads {
                // torchtitan's launcher, run_train.sh, sets
                // PYTORCH_ALLOC_CONF="expandable_segments:True".
                expandable_segments: match self.stack {
                    TrainingStack::Torchtitan | TrainingStack::TorchtitanCompiled => {
                        ExpandableSegments::On
                    }
                    _ => ExpandableSegments::Off,
                },
                ..Overheads::default()
            },
            efficiency: Default::default(),
            economics: Default::default(),
            distillation: None,
        }
    }

    /// The run's number formats.
    fn precisions(&self) -> Precisions {
        let half = if self.fp16 {
            Precision::Fp16
        } else {
            Precision::Bf16
        };
        Precisions {
            compute: if self.fp8 { Precision::Fp8 } else { half },
            weights: half,
            activations: half,
            gradients: if self.fp16 {
                Precision::Fp16
            } else {
                Precisions::default().gradients
            },
            ..Precisions::default()
        }
    }

    /// Published seconds per step: the step's tokens over the GPUs' rate.
    fn published(&self) -> f64 {
        let gpus = f64::from(self.tp * self.pp * self.dp * self.cp);
        f64::from(self.micro_batch * self.accumulation * self.dp * self.seq)
            / gpus
            / self.tokens_per_gpu_s
    }

    /// The plan, with the least recompute that fits when the source does
    /// not say (`infer_recompute`).
    fn fitted_plan(&self) -> Plan {
        let plan = self.plan();
        if !self.infer_recompute {
            return plan;
        }
        recompute::least_that_fits(plan, self.pp)
    }
}

// torchtitan's per-op selective AC (its default) saves every second
// matmul's output and recomputes the rest of the forward; the time model
// charges it under `Checkpointing::Selective` with the torchtitan stack
// (`time/work.rs` `op_sac_gemms`), the memory model keeps what it saves.
const OP_SAC_8B: Checkpointing = Checkpointing::Selective;
const OP_SAC_13B: Checkpointing = Checkpointing::Selective;
const OP_SAC_70B: Checkpointing = Checkpointing::Selective;

/// torchtitan on 64 A100-80GB, FSDP2 (1D), eager, BF16 mixed precision
/// with FP32 reduction, SDPA attention, `foreach` AdamW
/// (pytorch/torchtitan `docs/performance.md` at 3faaa1a, 2024-08; configs
/// `train_configs/*.toml` at the same commit: `compile = false`). Local
/// batch = micro-batch, global batch = local × 64. "Selective layer" AC
/// checkpoints every second layer; "selective op" is torchtitan's op-level
/// selective recompute (`Checkpointing::Selective` on the torchtitan stack).
/// Assumed: InfiniBand HDR between nodes (the page does not say).
fn torchtitan_a100() -> Vec<Run> {
    use Checkpointing::{Block, Full, None as NoAc};

    let rows = [
        (
            "Llama 3 8B sel. layer",
            ModelId::Llama31_8b,
            8192,
            1,
            Block { layers: 16 },
            2904.0,
        ),
        (
            "Llama 3 8B sel. op",
            ModelId::Llama31_8b,
            8192,
            1,
            OP_SAC_8B,
            2973.0,
        ),
        (
            "Llama 3 70B full AC",
            ModelId::Llama31_70b,
            8192,
            1,
            Full,
            331.0,
        ),
        (
            "Llama 2 13B no AC",
            ModelId::Llama2_13b,
            4096,
            2,
            NoAc,
            2162.0,
        ),
        (
            "Llama 2 13B sel. layer",
            ModelId::Llama2_13b,
            4096,
            2,
            Block { layers: 20 },
            1914.0,
        ),
        (
            "Llama 2 13B sel. op",
            ModelId::Llama2_13b,
            4096,
            2,
            OP_SAC_13B,
            1904.0,
        ),
        (
            "Llama 2 70B sel. op",
            ModelId::Llama2_70b,
            4096,
            1,
            OP_SAC_70B,
            355.0,
        ),
        (
            "Llama 2 70B full AC",
            ModelId::Llama2_70b,
            4096,
            2,
            Full,
            353.0,
        ),
    ];
    rows.iter()
        .map(|&(name, model, seq, mb, ckpt, tps)| Run {
            name: format!("torchtitan A100×64 {name}"),
            stack: TrainingStack::Torchtitan,
            model,
            gpu: GpuId::A100Sxm80,
            scale_out: None,
            seq,
            micro_batch: mb,
            tp: 1,
            dp: 64,
            cp: 1,
            ckpt,
            sharding: Sharding::FsdpFullShard,
            tp_overlap: false,
            fp8: false,
            tokens_per_gpu_s: tps,
            ..Run::default()
        })
        .collect()
}

/// The H100s of torchtitan's H100 pages (Meta's Grand Teton hosts), as
/// the pages state them: "96GB HBM2e with 2.4 TB/sec peak memory
/// bandwidth" at "the default 500W power limit"
/// (`benchmarks/llama3_h100_202412_torchtitan.md` and
/// `asyncTP_llama3_h100_2025-06_torchtitan.md`, "Hardware"). Their tensor
/// peak "is between SXM and NVL, and we don't know its exact value"
/// (footnote 2). The part keeps the SXM's 700 W rating, peak and measured
/// matmul ceiling, and the runs set the 500 W limit
/// ([`GRAND_TETON_LIMIT`]): the tensor rates keep the clock an H100
/// sustains there (`catalog::clock_fraction`, 0.879: 869 TFLOPS BF16,
/// between the SXM's 989 and the 400 W NVL's 835, as the footnote says).
const GRAND_TETON_LIMIT: Watts = Watts::new(500.0);

fn grand_teton_h100() -> CustomGpu {
    let mut spec = GpuChoice::Preset(GpuId::H100Sxm).spec();
    spec.memory = MemoryTech::Hbm2e;
    spec.capacity = Bytes::from_gb(96.0);
    spec.usable = None;
    spec.memory_bandwidth = ByteRate::from_tb_per_s(2.4);
    CustomGpu {
        name: "H100 SXM 96GB HBM2e, 500 W (Grand Teton)".into(),
        spec,
    }
}

/// torchtitan on H100 (pytorch/torchtitan
/// `benchmarks/llama3_h100_202412_torchtitan.md`, torch 2024-12-23
/// nightly): Grand Teton hosts, 8 GPUs on NVLink, 400 Gb/s RDMA per GPU.
/// Tables 1 and 3: Llama 3.1 8B, FSDP, local batch 2, selective AC. The
/// page's H100s are 96 GB HBM2e parts at a 500 W power limit
/// ([`grand_teton_h100`]), with the SXM peak as an upper bound, which
/// keeps every row optimistic by the clock the cap takes (see
/// docs/validation.md).
fn torchtitan_h100() -> Vec<Run> {
    let mut out = Vec::new();
    for (gpus, eager, compiled, fp8) in [(8, 5762.0, 6667.0, 8532.0), (128, 5605.0, 6514.0, 8380.0)]
    {
        for (label, stack, fp8_on, tps) in [
            ("FSDP", TrainingStack::Torchtitan, false, eager),
            (
                "FSDP+compile",
                TrainingStack::TorchtitanCompiled,
                false,
                compiled,
            ),
            (
                "FSDP+compile+Float8",
                TrainingStack::TorchtitanCompiled,
                true,
                fp8,
            ),
        ] {
            out.push(Run {
                name: format!("torchtitan H100×{gpus} 8B {label}"),
                stack,
                model: ModelId::Llama31_8b,
                gpu: GpuId::H100Sxm,
                custom_gpu: Some(grand_teton_h100()),
                power_limit: Some(GRAND_TETON_LIMIT),
                scale_out: Some(LinkId::Roce400),
                seq: 8192,
                micro_batch: 2,
                tp: 1,
                dp: gpus,
                cp: 1,
                ckpt: OP_SAC_8B,
                sharding: Sharding::FsdpFullShard,
                tp_overlap: false,
                fp8: fp8_on,
                tokens_per_gpu_s: tps,
                // torchtitan 9dec370 (2024-12) left the loss eager under
                // compile (#755); the memory rows say the same.
                loss: LossKernel::Unfused,
                ..Run::default()
            });
        }
    }
    out
}

/// torchtitan's Table 4 (same page and hosts as [`torchtitan_h100`]):
/// Llama 3.1 70B on 256 GPUs, FSDP 32 × TP 8, local batch 16, full AC,
/// compile + Float8, without and with async TP.
fn torchtitan_h100_2d() -> Vec<Run> {
    let mut out = Vec::new();
    for (label, async_tp, tps) in [("2D", false, 829.0), ("2D+AsyncTP", true, 876.0)] {
        out.push(Run {
            name: format!("torchtitan H100×256 70B {label} Float8"),
            stack: TrainingStack::TorchtitanCompiled,
            model: ModelId::Llama31_70b,
            gpu: GpuId::H100Sxm,
            custom_gpu: Some(grand_teton_h100()),
            power_limit: Some(GRAND_TETON_LIMIT),
            scale_out: Some(LinkId::Roce400),
            seq: 8192,
            micro_batch: 16,
            tp: 8,
            dp: 32,
            cp: 1,
            ckpt: Checkpointing::Full,
            sharding: Sharding::FsdpFullShard,
            tp_overlap: async_tp,
            fp8: true,
            tokens_per_gpu_s: tps,
            // torchtitan 9dec370 (2024-12) left the loss eager under
            // compile (#755); the memory rows say the same.
            loss: LossKernel::Unfused,
            ..Run::default()
        });
    }
    out
}

/// torchtitan async-TP study on the same H100 hosts
/// (pytorch/torchtitan `benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md`,
/// torch 2025-06-14): torch.compile, BF16 and Float8 tensorwise, vanilla
/// and async TP. Llama 3 70B on 256 GPUs (FSDP 32, TP 8, full AC, local
/// batch 16); Llama 3 8B on 64 GPUs (FSDP 8, TP 8, per-op SAC, local batch
/// 12). The row-wise Float8 rows are left out: the page flags their
/// baseline as a known regression (torchtitan#1207).
fn torchtitan_async_tp() -> Vec<Run> {
    let rows = [
        (
            ModelId::Llama31_70b,
            32,
            16,
            Checkpointing::Full,
            false,
            597.3,
            652.4,
        ),
        (
            ModelId::Llama31_70b,
            32,
            16,
            Checkpointing::Full,
            true,
            809.8,
            942.4,
        ),
        (ModelId::Llama31_8b, 8, 12, OP_SAC_8B, false, 4378.0, 4809.4),
        (ModelId::Llama31_8b, 8, 12, OP_SAC_8B, true, 5078.1, 5570.1),
    ];
    let mut out = Vec::new();
    for (model, dp, mb, ckpt, fp8, vanilla, async_tp) in rows {
        for (label, on, tps) in [("TP", false, vanilla), ("AsyncTP", true, async_tp)] {
            out.push(Run {
                name: format!(
                    "torchtitan H100×{} {model:?} {label}{}",
                    dp * 8,
                    if fp8 { " Float8" } else { "" }
                ),
                stack: TrainingStack::TorchtitanCompiled,
                model,
                gpu: GpuId::H100Sxm,
                custom_gpu: Some(grand_teton_h100()),
                power_limit: Some(GRAND_TETON_LIMIT),
                scale_out: Some(LinkId::Roce400),
                seq: 8192,
                micro_batch: mb,
                tp: 8,
                dp,
                cp: 1,
                ckpt,
                sharding: Sharding::FsdpFullShard,
                tp_overlap: on,
                fp8,
                tokens_per_gpu_s: tps,
                ..Run::default()
            });
        }
    }
    out
}

/// torchtitan on H200 (pytorch/torchtitan
/// `benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md`): Llama 3.1 8B,
/// FSDP over 4 and 8 nodes of 8 H200, 400 Gb/s per GPU, local batch 2,
/// compile + Float8 (default `llama3_8b.toml`: selective AC).
fn torchtitan_h200() -> Vec<Run> {
    [(32, 10938.0), (64, 10753.0)]
        .iter()
        .map(|&(gpus, tps)| Run {
            name: format!("torchtitan H200×{gpus} 8B compile+Float8"),
            stack: TrainingStack::TorchtitanCompiled,
            model: ModelId::Llama31_8b,
            gpu: GpuId::H200Sxm,
            scale_out: Some(LinkId::InfinibandNdr),
            seq: 8192,
            micro_batch: 2,
            tp: 1,
            dp: gpus,
            cp: 1,
            ckpt: OP_SAC_8B,
            sharding: Sharding::FsdpFullShard,
            tp_overlap: false,
            fp8: true,
            tokens_per_gpu_s: tps,
            ..Run::default()
        })
        .collect()
}

/// Megatron's FLOPs per token (Narayanan et al. 2021, Eq. 3, with full
/// recompute), the count DeepSpeed's Azure post reports TFLOP/s in.
fn megatron_flops_per_token(layers: u32, hidden: u32, seq: u32) -> f64 {
    megatron_flops_per_token_v(layers, hidden, seq, 51200)
}

/// [`megatron_flops_per_token`] with the vocabulary given.
fn megatron_flops_per_token_v(layers: u32, hidden: u32, seq: u32, vocab: u32) -> f64 {
    let (l, h, s, v) = (
        f64::from(layers),
        f64::from(hidden),
        f64::from(seq),
        f64::from(vocab),
    );
    96.0 * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h))
}

/// DeepSpeed ZeRO-3 at large data-parallel degree on Azure NDm A100 v4
/// (8 × A100-80GB and 8 × 200 Gb/s InfiniBand HDR per node), Megatron-
/// DeepSpeed with DeepSpeed 0.6.2, pure data parallelism (no TP, no PP),
/// TFLOP/s per GPU in Megatron's count (deepspeedai/DeepSpeed
/// `docs/_posts/2022-07-26-deepspeed-azure.md`, "Performance Evaluation"):
/// GPT-3 175B at 204.49 on 256 GPUs (micro-batch 32, sequence 512), 1T at
/// 165.36 on 1,024 GPUs (micro-batch 8, sequence 1,024), 2T at 157 on
/// 1,024 GPUs (micro-batch 8, sequence 1,024). The 530B peak (171.37) is
/// left out: the post does not say its micro-batch. Megatron-DeepSpeed
/// runs Megatron-LM's fused kernels (fused softmax without Flash
/// attention, apex norms, fused Adam): the rows run on the
/// Megatron-DeepSpeed profile with ZeRO-3 as the sharding, FP16 and the
/// recipes' ZeRO-3 knobs ([`AZURE_ZERO3`]). "The DeepSpeed library
/// exploits offload capabilities where the activation and optimizer
/// states are allocated in the main memory" (the post's hardware
/// section): optimizer states (CPU Adam) and checkpointed activations are
/// placed in host memory. Assumed: full recompute (the count above
/// assumes it; the recipes pass `--checkpoint-activations`), no gradient
/// accumulation (the recipes set `gradient_accumulation_steps` 1).
/// The ZeRO-3 section of the post's Azure recipes (deepspeedai/
/// Megatron-DeepSpeed `examples_deepspeed/azure/run-1t.sh` and
/// `run-benchmark-model.sh`): max-live 3·10⁹, prefetch bucket 5·10⁷,
/// persistence threshold 10⁵, reduce bucket 9·10⁷.
const AZURE_ZERO3: Zero3Fetch = Zero3Fetch {
    prefetch_bucket: 50_000_000,
    max_live: 3_000_000_000,
    persistence_threshold: 100_000,
    reduce_bucket: 90_000_000,
};

fn deepspeed_azure() -> Vec<Run> {
    let two_t = ModelChoice::Custom(planner_core::plan::CustomModel {
        shipped: None,
        name: "GPT 2T (DeepSpeed Azure)".into(),
        spec: planner_core::model::ModelSpec {
            layers: 160,
            hidden: 32768,
            heads: 128,
            kv_heads: 128,
            head_dim: 256,
            ffn: 4 * 32768,
            ..planner_core::catalog::model(ModelId::Megatron1t).spec
        },
    });
    let rows = [
        (
            "GPT-3 175B",
            ModelId::Gpt3_175b,
            None,
            96,
            12288,
            256,
            32,
            512,
            204.49,
        ),
        (
            "1T",
            ModelId::Megatron1t,
            None,
            128,
            25600,
            1024,
            8,
            1024,
            165.36,
        ),
        (
            "2T",
            ModelId::Megatron1t,
            Some(two_t),
            160,
            32768,
            1024,
            8,
            1024,
            157.0,
        ),
    ];
    rows.into_iter()
        .map(|(label, model, custom, l, h, gpus, mb, seq, tflops)| Run {
            name: format!("DeepSpeed ZeRO-3 A100×{gpus} {label}"),
            stack: TrainingStack::MegatronDeepSpeed,
            model,
            custom,
            gpu: GpuId::A100Sxm80,
            seq,
            micro_batch: mb,
            dp: gpus,
            ckpt: Checkpointing::Full,
            kernel: AttentionKernel::Eager,
            sharding: Sharding::Zero3,
            zero3: Some(AZURE_ZERO3),
            fp16: true,
            offload_host: true,
            tokens_per_gpu_s: tflops * 1e12 / megatron_flops_per_token(l, h, seq),
            ..Run::default()
        })
        .collect()
}

/// DeepSpeed ZeRO-3 without model parallelism, NVIDIA's baseline in
/// Narayanan et al. 2021 ("Efficient Large-Scale Language Model Training
/// on GPU Clusters Using Megatron-LM", arXiv:2104.04473, §5.2, Table 2):
/// GPT-3 175B (96 layers, hidden 12,288) at global batch 1,536 on 384,
/// 768 and 1,536 GPUs (micro-batch 4, 2, 1: 144, 88 and 44 TFLOP/s per
/// GPU) and the 530B model (105 layers, hidden 20,480) at batch 2,560 on
/// 640 GPUs (micro-batch 4, 138) and 2,240 on 1,120 and 2,240 GPUs
/// (micro-batch 2 and 1, 98 and 48). The figures as tabulated by
/// cli99/llm-analysis `examples/megatron-lm/run_train_zero.sh` (its
/// efficiencies × 312 TFLOP/s give the same six values). Batch = GPUs ×
/// micro-batch: no gradient accumulation. Sequence 2,048 and Selene's
/// DGX A100 (8 × A100-80GB, 8 HDR InfiniBand NICs per node) as in the
/// paper's §5; TFLOP/s in the paper's count (Eq. 3, with recompute), so
/// full recompute. Assumed: FP16 mixed precision (the paper's runs),
/// DeepSpeed's default ZeRO-3 knobs, no offload (a 175B model's states
/// sharded 384 ways take 7 GB per GPU), Megatron-LM's fused kernels
/// without Flash attention (2021).
fn zero3_narayanan() -> Vec<Run> {
    let rows = [
        ("GPT-3 175B", ModelId::Gpt3_175b, 96, 12288, 384, 4, 144.0),
        ("GPT-3 175B", ModelId::Gpt3_175b, 96, 12288, 768, 2, 88.0),
        ("GPT-3 175B", ModelId::Gpt3_175b, 96, 12288, 1536, 1, 44.0),
        ("530B", ModelId::Megatron530b, 105, 20480, 640, 4, 138.0),
        ("530B", ModelId::Megatron530b, 105, 20480, 1120, 2, 98.0),
        ("530B", ModelId::Megatron530b, 105, 20480, 2240, 1, 48.0),
    ];
    rows.into_iter()
        .map(|(label, model, l, h, gpus, mb, tflops)| Run {
            name: format!("DeepSpeed ZeRO-3 A100×{gpus} {label} (Selene)"),
            stack: TrainingStack::MegatronDeepSpeed,
            model,
            gpu: GpuId::A100Sxm80,
            scale_out: Some(LinkId::InfinibandHdr),
            seq: 2048,
            micro_batch: mb,
            dp: gpus,
            ckpt: Checkpointing::Full,
            kernel: AttentionKernel::Eager,
            sharding: Sharding::Zero3,
            fp16: true,
            tokens_per_gpu_s: tflops * 1e12 / megatron_flops_per_token(l, h, 2048),
            ..Run::default()
        })
        .collect()
}

/// Megatron-DeepSpeed 3D parallelism with DeepSpeed's ZeRO-1 data
/// parallelism (Megatron-LM's fused kernels, no Flash attention, DeepSpeed
/// pipeline engine's 1F1B).
///
/// - BLOOM 176B (bigscience-workshop/bigscience
///   `train/tr11-176B-ml/tr11-176B-ml.slurm`: TP 4, PP 12, micro-batch 2,
///   global batch 2,048, sequence 2,048, 70 layers, hidden 14,336, 112
///   heads, vocabulary padded to 250,880, ALiBi, full activation
///   checkpointing, BF16 with DeepSpeed's ZeRO-1-equivalent BF16
///   optimizer) on 48 Jean Zay nodes of 8 A100-80GB with 4 × 100 Gb/s
///   Omni-Path per node (modelled as 100 Gb/s InfiniBand ports); "training
///   throughput: about 150 TFLOPs" (BigScience 176B model page,
///   bigscience.notion.site, in Megatron's count with recompute).
/// - MT-NLG 530B (Smith et al. 2022, arXiv:2201.11990 §2.4, as quoted by
///   cli99/llm-analysis `examples/megatron-turing-nlg`): global batch 1,920
///   at sequence 2,048 on 280, 350 and 420 DGX A100 nodes of Selene (HDR
///   InfiniBand, 8 NICs per node), 60.1, 50.2 and 44.4 s per iteration.
///   8-way TP and 35-way PP (one model replica per 35 nodes, so DP 8, 10,
///   12). Assumed: micro-batch 1, full recompute.
fn megatron_deepspeed() -> Vec<Run> {
    let bloom = ModelChoice::Custom(planner_core::plan::CustomModel {
        shipped: None,
        name: "BLOOM 176B".into(),
        spec: planner_core::model::ModelSpec {
            positions: planner_core::model::Positions::Alibi,
            ..planner_core::model::ModelSpec::gpt(70, 14336, 112, 250880, 2048)
        },
    });
    let mut out = vec![Run {
        name: "Megatron-DeepSpeed A100×384 BLOOM 176B".into(),
        stack: TrainingStack::MegatronDeepSpeed,
        custom: Some(bloom),
        gpu: GpuId::A100Sxm80,
        scale_out: Some(LinkId::InfinibandEdr),
        nics: 4,
        seq: 2048,
        micro_batch: 2,
        tp: 4,
        pp: 12,
        dp: 8,
        accumulation: 2048 / (2 * 8),
        ckpt: Checkpointing::Full,
        kernel: AttentionKernel::Eager,
        sharding: Sharding::Zero1,
        legacy_megatron: true,
        tokens_per_gpu_s: 150e12 / megatron_flops_per_token_v(70, 14336, 2048, 250880),
        ..Run::default()
    }];
    for (nodes, seconds) in [(280, 60.1), (350, 50.2), (420, 44.4)] {
        let gpus: u32 = nodes * 8;
        let dp = gpus / (8 * 35);
        out.push(Run {
            name: format!("Megatron-DeepSpeed A100×{gpus} MT-NLG 530B"),
            stack: TrainingStack::MegatronDeepSpeed,
            model: ModelId::Megatron530b,
            gpu: GpuId::A100Sxm80,
            scale_out: Some(LinkId::InfinibandHdr),
            seq: 2048,
            micro_batch: 1,
            tp: 8,
            pp: 35,
            dp,
            accumulation: 1920 / dp,
            ckpt: Checkpointing::Full,
            kernel: AttentionKernel::Eager,
            sharding: Sharding::Zero1,
            legacy_megatron: true,
            tokens_per_gpu_s: 1920.0 * 2048.0 / f64::from(gpus) / seconds,
            ..Run::default()
        });
    }
    out
}

/// MoE pre-training. NeMo 25.11 container, DeepSeek-V3 without MTP on
/// GB300 and GB200 NVL72 racks, BF16 and MXFP8, sequence 4,096, GBS 4,096,
/// micro-batch 1, TP 1, distributed optimizer (NVIDIA-NeMo/Megatron-Bridge
/// `docs/performance-summary-archive.md`, "25.11 NeMo Container"; the
/// benchmarks force-balance tokens across experts). Assumed, as for the
/// dense NeMo rows: the least recompute that fits. And DeepSeek-V3's own
/// run (DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", §1 and §3.2):
/// 2,048 H800s, 180K GPU-hours per trillion tokens (1,543 tokens/s/GPU),
/// PP 16, EP 64 across 8 nodes, ZeRO-1 data parallelism, FP8 GEMMs,
/// sequence 4,096, batch 15,360 sequences at the end of its ramp.
/// Stated there, as the report describes the run: dispatch and combine
/// overlapped with the other micro-batch's compute (DualPipe, §3.2.1) and
/// node-limited routing, at most 4 nodes per token (§2.1.2, §3.2.2).
/// Assumed: micro-batch 1, the 1F1B bubble in place of DualPipe's smaller
/// one, the MTP module left out (the preset has none).
fn moe() -> Vec<Run> {
    // (system, gpu, fp8, pp, vp, ep, tokens/s/GPU)
    let rows = [
        ("GB300", GpuId::B300, false, 2, 4, 32, 3848.0),
        ("GB300", GpuId::B300, true, 2, 4, 32, 4357.0),
        ("GB200", GpuId::Gb200, false, 4, 4, 64, 3139.0),
        ("GB200", GpuId::Gb200, true, 8, 4, 32, 4018.0),
    ];
    let mut out: Vec<Run> = rows
        .into_iter()
        .map(|(system, gpu, fp8, pp, vp, ep, tps)| {
            let dp = 256 / pp;
            Run {
                name: format!(
                    "NeMo 25.11 {system}×256 DeepSeek-V3 {}",
                    if fp8 { "MXFP8" } else { "BF16" }
                ),
                model: ModelId::DeepseekV3,
                gpu,
                seq: 4096,
                dp,
                pp,
                chunks: vp,
                ep,
                accumulation: 4096 / dp,
                fp8,
                nvl72: true,
                tp_overlap: true,
                infer_recompute: true,
                tokens_per_gpu_s: tps,
                ..Run::default()
            }
        })
        .collect();
    out.push(Run {
        name: "DeepSeek-V3 report H800×2048".into(),
        model: ModelId::DeepseekV3,
        gpu: GpuId::H800Sxm,
        seq: 4096,
        dp: 128,
        pp: 16,
        ep: 64,
        accumulation: 120,
        fp8: true,
        infer_recompute: true,
        moe: MoeLevers {
            dispatch_overlap: DispatchOverlap::OtherMicroBatch,
            node_limit: Some(4),
            ..MoeLevers::default()
        },
        tokens_per_gpu_s: 1e12 / (180e3 * 3600.0),
        ..Run::default()
    });
    out
}

/// More MoE pre-training from the same NeMo 25.11 tables
/// (NVIDIA-NeMo/Megatron-Bridge `docs/performance-summary-archive.md`,
/// "25.11 NeMo Container", systems DGX-GB300, DGX-GB200, DGX-B200 and
/// DGX-H100): Qwen3-30B-A3B and Qwen3-235B-A22B, sequence 4,096, TP, PP,
/// VP and EP as published, distributed optimizer, token-dropless with
/// forced balance (the tables' footnote). FP8-MX is MXFP8, FP8-CS
/// per-tensor current-scaling FP8 (both FP8 compute here). Left out: the
/// GB300 Qwen3-235B row, whose GA (32) does not match its GBS, MBS and
/// degrees (64 would), and the H100 Qwen3-235B row (TP 2 with EP 32 over
/// 16 data-parallel ranks: its experts run with expert TP 1, MoE parallel
/// folding, which the training model does not describe; `levers.moe.
/// expert_tp` is serving-only). And the 26.02 container's DeepSeek-V3 on DGX-B200
/// (MXFP8, 256 GPUs, GBS 4,096, MBS 1, PP 16, EP 8 inside each
/// 8-GPU node: 2,689 tokens/s/GPU; same page, "26.02 NeMo Container").
/// Assumed, as for the other NeMo rows: the least recompute that fits.
fn moe_more() -> Vec<Run> {
    // (label, model, system, gpu, nvl72, fp8, gpus, gbs, mbs, tp, pp, vp, ep, tokens/s/GPU)
    let rows = [
        (
            "Qwen3-30B-A3B MXFP8",
            qwen3_30b(),
            "GB300",
            GpuId::B300,
            true,
            true,
            8,
            512,
            4,
            1,
            1,
            1,
            8,
            28934.0,
        ),
        (
            "Qwen3-30B-A3B MXFP8",
            qwen3_30b(),
            "GB200",
            GpuId::Gb200,
            true,
            true,
            8,
            512,
            4,
            1,
            1,
            1,
            8,
            23766.0,
        ),
        (
            "Qwen3-30B-A3B MXFP8",
            qwen3_30b(),
            "B200",
            GpuId::B200,
            false,
            true,
            8,
            512,
            1,
            1,
            1,
            1,
            8,
            9299.0,
        ),
        (
            "Qwen3-30B-A3B FP8",
            qwen3_30b(),
            "H100",
            GpuId::H100Sxm,
            false,
            true,
            16,
            512,
            2,
            1,
            2,
            24,
            8,
            5275.0,
        ),
        (
            "Qwen3-235B-A22B BF16",
            qwen3_235b(),
            "GB200",
            GpuId::Gb200,
            true,
            false,
            256,
            8192,
            1,
            1,
            8,
            3,
            32,
            4916.0,
        ),
        (
            "Qwen3-235B-A22B MXFP8",
            qwen3_235b(),
            "B200",
            GpuId::B200,
            false,
            true,
            64,
            1024,
            1,
            1,
            8,
            2,
            8,
            3269.0,
        ),
    ];
    let mut out: Vec<Run> = rows
        .into_iter()
        .map(
            |(label, model, system, gpu, nvl72, fp8, gpus, gbs, mbs, tp, pp, vp, ep, tps)| {
                let dp = gpus / (tp * pp);
                Run {
                    name: format!("NeMo 25.11 {system}×{gpus} {label}"),
                    custom: Some(model),
                    gpu,
                    seq: 4096,
                    micro_batch: mbs,
                    tp,
                    dp,
                    pp,
                    chunks: vp,
                    ep,
                    accumulation: gbs / (mbs * dp),
                    fp8,
                    nvl72,
                    tp_overlap: tp > 1 || nvl72,
                    infer_recompute: true,
                    tokens_per_gpu_s: tps,
                    ..Run::default()
                }
            },
        )
        .collect();
    out.push(Run {
        name: "NeMo 26.02 B200×256 DeepSeek-V3 MXFP8".into(),
        model: ModelId::DeepseekV3,
        gpu: GpuId::B200,
        seq: 4096,
        dp: 16,
        pp: 16,
        ep: 8,
        accumulation: 4096 / 16,
        fp8: true,
        infer_recompute: true,
        tokens_per_gpu_s: 2689.0,
        ..Run::default()
    });
    out
}

/// GPT-OSS 120B pre-training, NeMo 25.11 container, BF16, TP 1, PP 1,
/// EP 64 on DGX-GB300 and DGX-GB200 (sequence 8,192) and EP 8 on DGX-B200
/// (sequence 4,096), 64 GPUs each (NVIDIA-NeMo/Megatron-Bridge
/// `docs/performance-summary.md` at 00b7660, "25.11 NeMo Container"). Added
/// after `Efficiency::moe_expert_host` was fitted, as a check on a model
/// the fit never saw: 2 experts per rank on the racks, 16 on the B200s. The
/// config is `openai/gpt-oss-120b`'s `config.json` on the Hugging Face Hub
/// (without its `layer_types` list, so the import applies gpt-oss's own
/// default: a 128-token window in every other layer, 18 of 36). Left out: the
/// DGX-H100 row (PP 4 over 64 GPUs leaves 16 data-parallel ranks, so its
/// GA of 2 does not match GBS 512 at micro-batch 4).
fn gpt_oss() -> Vec<Run> {
    let json = r#"{"architectures": ["GptOssForCausalLM"], "attention_bias": true,
        "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2880,
        "intermediate_size": 2880, "max_position_embeddings": 131072, "model_type": "gpt_oss",
        "num_attention_heads": 64, "num_experts_per_tok": 4, "num_hidden_layers": 36,
        "num_key_value_heads": 8, "num_local_experts": 128, "sliding_window": 128,
        "tie_word_embeddings": false, "vocab_size": 201088}"#;
    let m = planner_core::hf::import_hf_config(json).expect("GPT-OSS's config imports");
    let model = ModelChoice::Custom(planner_core::plan::CustomModel {
        shipped: None,
        name: "GPT-OSS 120B".into(),
        spec: m.spec,
    });
    // (system, gpu, nvl72, gbs, mbs, seq, ep, tokens/s/GPU)
    let rows = [
        ("GB300", GpuId::B300, true, 1280, 2, 8192, 64, 18347.0),
        ("GB200", GpuId::Gb200, true, 1280, 1, 8192, 64, 15876.0),
        ("B200", GpuId::B200, false, 512, 4, 4096, 8, 8213.0),
    ];
    rows.into_iter()
        .map(|(system, gpu, nvl72, gbs, mbs, seq, ep, tps)| Run {
            name: format!("NeMo 25.11 {system}×64 GPT-OSS 120B BF16 (EP {ep})"),
            custom: Some(model.clone()),
            gpu,
            seq,
            micro_batch: mbs,
            dp: 64,
            ep,
            accumulation: gbs / (mbs * 64),
            nvl72,
            tp_overlap: nvl72,
            infer_recompute: true,
            tokens_per_gpu_s: tps,
            ..Run::default()
        })
        .collect()
}

/// One table: prints every row and returns the signed errors
/// ((predicted − published) / published).
fn table(title: &str, runs: &[Run]) -> (Vec<f64>, Vec<String>) {
    let mut unfit = Vec::new();
    println!("\n{title}");
    println!(
        "{:<52} {:>9} {:>9} {:>8} {:>6}",
        "run", "published", "predicted", "error", "MFU"
    );
    let mut errs = Vec::new();
    for run in runs {
        let r = evaluate(&run.fitted_plan());
        let TimeReport::Training(t) = r.time else {
            unreachable!("{}: not a training report", run.name)
        };
        // The runs happened, so each must fit, except where a test below
        // names the memory model's miss.
        if r.verdict != Verdict::Fits {
            println!("    does not fit in our memory model: {:?}", r.diagnostics);
            unfit.push(run.name.clone());
        }
        let (pub_s, pred) = (run.published(), t.step.as_secs());
        let e = (pred - pub_s) / pub_s;
        errs.push(e);
        println!(
            "{:<52} {:>9.3} {:>9.3} {:>+7.1}% {:>5.1}%  [{}]",
            run.name,
            pub_s,
            pred,
            e * 100.0,
            t.mfu * 100.0,
            run.stack.en()
        );
        let parts: Vec<String> = t
            .parts
            .iter()
            .map(|p| {
                format!(
                    "{}={:.2}/{:.2}",
                    p.kind.label(),
                    p.exposed.as_secs(),
                    p.busy.as_secs()
                )
            })
            .collect();
        println!("    {}", parts.join(", "));
    }
    let (median, worst) = stats(&errs);
    println!(
        "{} runs: median |error| {:.1}%, worst {:.1}%",
        errs.len(),
        median * 100.0,
        worst * 100.0
    );
    (errs, unfit)
}

/// Median and worst |error|.
fn stats(errs: &[f64]) -> (f64, f64) {
    let mut a: Vec<f64> = errs.iter().map(|e| e.abs()).collect();
    a.sort_by(f64::total_cmp);
    (a[a.len() / 2], a[a.len() - 1])
}

/// The PyTorch-native table (docs/validation.md). The bounds pin what the
/// model reaches today, table by table, so a regression fails here:
/// - torchtitan eager on A100, the runs the PyTorch GEMM fraction was
///   fitted on, and torchtitan compiled + Float8 on H200 meet the issue's
///   targets (median ≤ 5 %, worst ≤ 12 %);
/// - torchtitan on Meta's 500 W H100s is predicted faster than measured on
///   every row, by 4–9 % now that the rows run at their 500 W power limit
///   ([`grand_teton_h100`]; 13–19 % at the SXM's full clock);
/// - the async-TP rows are 2–24 % fast: each TP collective now hides only
///   behind the GEMM it is fused with, in TP-degree chunks (it was 90 % of
///   all TP traffic behind all compute, up to 34 % fast); the model still
///   gives async TP 1.19–1.25× where torchtitan measured 1.09–1.16×, as it
///   does not charge the smaller chunked GEMMs' lower efficiency or the
///   copy engines' contention for HBM.
#[test]
fn pytorch_native_table() {
    let mut all = Vec::new();

    let (e, unfit) = table("torchtitan eager, 64 × A100", &torchtitan_a100());
    assert!(unfit.is_empty(), "{unfit:?}");
    let (median, worst) = stats(&e);
    // Worst 6.9 % before the bucketed collective model (issue 11, networks)
    // and 9.4 % with it: Llama 2 70B with op-level selective checkpointing
    // now hides its FSDP gathers behind all but one layer's compute and
    // comes out 9 % fast (docs/validation.md, "Training stacks"). 12.1 %
    // since the "sel. op" rows run `Checkpointing::Selective` on the
    // torchtitan stack instead of a half-the-layers stand-in: op-level SAC
    // recomputes every second matmul (K, output projection, W3: 36 % of a
    // Llama block's linear FLOPs) and the element-wise ops, less than half
    // a forward, so the three op rows moved 1-3 % faster.
    assert!(median <= 0.05 && worst <= 0.125, "A100: {median} {worst}");
    all.extend(e);

    let (e, unfit) = table("torchtitan compiled + Float8, H200", &torchtitan_h200());
    assert!(unfit.is_empty(), "{unfit:?}");
    // 4.6 % with the half-the-layers stand-in for op-level SAC, 9.4 % with
    // its own recompute (every second matmul and the element-wise ops;
    // under torch.compile the latter fuse, so this is an upper bound).
    assert!(stats(&e).1 <= 0.10, "H200: {:?}", stats(&e));
    all.extend(e);

    let (e, unfit) = table("torchtitan 1D FSDP, 500 W H100", &torchtitan_h100());
    // Every row fits on the 96 GB parts they ran on (on an 80 GB H100 the
    // two eager 8B runs did not: torchtitan's saved tensors and its FP32
    // loss put them 1.6 GiB over).
    assert!(unfit.is_empty(), "{unfit:?}");
    // All fast: 21-25 % on the 80 GB HBM3 part's 3.35 TB/s, 13-19 % on
    // the pages' own 2.4 TB/s at the SXM's full clock, 4-9 % at the 500 W
    // limit the pages state (`GRAND_TETON_LIMIT`, 0.879 of the clock).
    for x in &e {
        assert!(*x < 0.0 && *x > -0.10, "500 W H100 row {x}");
    }
    all.extend(e);

    let mut tp = torchtitan_h100_2d();
    tp.extend(torchtitan_async_tp());
    let (e, unfit) = table("torchtitan FSDP + TP, H100", &tp);
    assert!(unfit.is_empty(), "{unfit:?}");

    // 23.6 % once async TP hides each collective behind its own GEMM only;
    // 29.3 % once op-level SAC is charged as its own recompute (every
    // second matmul, the element-wise ops and the SP all-gathers, which
    // `_op_sac_save_list` does not keep) instead of a half-the-layers
    // stand-in: the op-SAC rows moved faster.
    // 27.2 % on the pages' 2.4 TB/s HBM2e parts (`grand_teton_h100`),
    // 22.8 % with overlapped collectives charged their contention, 17.1 %
    // at the 500 W limit (the 8B async-TP rows 16 % fast, the 70B Float8
    // rows 14-17 % slow), 17.8 % once torchtitan's Float8 TP all-gathers
    // carry FP8 (the 70B Float8 rows 0-8 % slow, the 8B ones 15-18 %
    // fast, as its BF16 TP rows are 11-16 % fast); 20.6 % (median 5.4 %)
    // once torchtitan's backward no longer gathers again the SP inputs its
    // DTensor linears kept (the memory model's `gathers_saved`): the 70B
    // rows within -2.4..+5.4 %, the 8B ones 15-21 % fast; 22.1 % once
    // the op-SAC recompute's SP gathers carry FP8 as the forward's do
    // (`Comms::tp_gather_f`): the 8B Float8 rows 1.4 points faster.
    // Median 5.4 -> 9.9 % once a fully recomputed forward's TP collectives
    // are charged once, not twice: the 70B full-AC rows 5-8 points faster
    // (-2.4..-9.9 %), the worst unchanged. 7.4 %, 19.9 % once torchtitan's
    // async TP leaves the backward's reduce-scatters of summed input
    // gradients unfused (Inductor's micro-pipeline pass fuses a
    // reduce-scatter only after one matmul): every async-TP row 2.6-3.6
    // points slower; the worst is the 8B Float8 row without async TP.
    // 5.2 %, 16.3 % once the June 2025 rows compile their loss as
    // torchtitan did then (`TrainingStack::default_loss`): the 8B rows
    // 2-2.4 points faster, away from their measurements.
    assert!(stats(&e).1 <= 0.20, "TP: {:?}", stats(&e));
    all.extend(e);

    let (median, worst) = stats(&all);
    println!(
        "\nPyTorch-native, {} runs: median |error| {:.1}%, worst {:.1}%",
        all.len(),
        median * 100.0,
        worst * 100.0
    );
    assert!(all.len() >= 15);

    // 10.7 % since the bucketed collective model, 8.9 % since async TP
    // hides each collective behind its own GEMM only, 9.4 % (worst 29.3 %)
    // since op-level SAC is charged as its own recompute (every second
    // matmul and the element-wise ops, less than the half forward the
    // stand-in charged): every op-SAC row moved 1-7 % faster
    // (docs/validation.md). Worst 27.2 % since the H100 rows run on the
    // 2.4 TB/s HBM2e parts their pages name; median 6.6 %, worst 17.1 %
    // since they run at their 500 W power limit; 5.6 %, 17.8 % with
    // torchtitan's Float8 TP all-gathers in FP8; 5.4 %, 20.6 % once its
    // backward keeps the gathered SP inputs instead of gathering again;
    // 5.4 %, 22.1 % once its op-SAC recompute gathers in FP8 too; 5.6 %,
    // 22.1 % once a recomputed forward's TP collectives are charged once;
    // 5.6 %, 19.9 % once async TP's backward reduce-scatters are exposed.
    assert!(median <= 0.06 && worst <= 0.20, "{median} {worst}");
}

/// The DeepSpeed tables (docs/validation.md, "DeepSpeed"): ZeRO-3 with
/// CPU offload at 256–1,024 A100, ZeRO-3 without model parallelism at
/// 384–2,240 A100 (Narayanan et al. 2021's baseline) and
/// Megatron-DeepSpeed's 3D parallelism with ZeRO-1 (BLOOM, MT-NLG), all on
/// the one Megatron-DeepSpeed profile whose GEMM fraction was fitted on
/// the seven offload and ZeRO-1 rows (least squares; the six later rows
/// were not used to fit it).
/// The bounds pin today's errors so a regression fails here.
#[test]
fn deepspeed_table() {
    let (e, unfit) = table(
        "DeepSpeed ZeRO-3 + CPU offload (Megatron-DeepSpeed), A100",
        &deepspeed_azure(),
    );
    assert!(unfit.is_empty(), "{unfit:?}");
    let (median, worst) = stats(&e);
    // GPT-3 175B (204 TFLOP/s, 65 % of the A100's peak in Megatron's
    // count) is 16 % slow, the 1T and 2T rows 6-7 % fast: one GEMM
    // fraction cannot hold both (docs/validation.md). (Before overlapped
    // collectives were charged their contention, +15 % and 9 % fast.)
    assert!(median <= 0.07 && worst <= 0.165, "{median} {worst}");
    let mut all = e;

    let (e, unfit) = table(
        "DeepSpeed ZeRO-3 without model parallelism (Narayanan 2021), Selene A100",
        &zero3_narayanan(),
    );
    assert!(unfit.is_empty(), "{unfit:?}");
    // A named miss (docs/validation.md, "DeepSpeed"): every row is fast,
    // and more so the more GPUs share the fixed batch. Measured, GPT-3
    // 175B takes the same 66.7 s a step on 768 and on 1,536 GPUs (the
    // 530B model 180 and 184 s on 1,120 and 2,240): a cost that does not
    // shrink as the GPUs are added, which the model (collectives at
    // NCCL's bus bandwidth over all of a node's NICs) does not have.
    // DeepSpeed before v0.5.5 gathered each parameter separately, after a
    // `torch.cuda.synchronize()`, into one chunk per rank copied out one by
    // one (microsoft/DeepSpeed#1188): host work per rank per collective,
    // of a cost no source measures. The bounds pin today's errors so a
    // change shows here.
    for x in &e {
        assert!(*x < -0.10 && *x > -0.80, "Narayanan ZeRO-3 row {x}");
    }
    for (fewer, more) in [(0, 1), (1, 2), (3, 4), (4, 5)] {
        assert!(e[more] < e[fewer], "more GPUs, larger miss: {e:?}");
    }
    all.extend(e);

    let (e, unfit) = table(
        "Megatron-DeepSpeed 3D parallelism, ZeRO-1, A100",
        &megatron_deepspeed(),
    );
    assert!(unfit.is_empty(), "{unfit:?}");
    let (median, worst) = stats(&e);
    assert!(median <= 0.07 && worst <= 0.08, "{median} {worst}");
    all.extend(e);
    let (median, worst) = stats(&all);
    println!(
        "\nDeepSpeed, {} runs: median |error| {:.1}%, worst {:.1}%",
        all.len(),
        median * 100.0,
        worst * 100.0
    );
    // 7 rows: median 7.2 %, worst 14.8 %; 13 rows with the six ZeRO-3
    // baselines of Narayanan et al. 2021 (fast by 15-74 %, see above).
    assert!(all.len() >= 13);
    assert!(median <= 0.15 && worst <= 0.75, "{median} {worst}");
}

/// The MoE table (docs/validation.md, "MoE training"). The bounds pin
/// today's figures so a regression fails here.
/// - DeepSeek-V3's own run is predicted with the mechanisms it used:
///   dispatch and combine hidden behind the other micro-batch (DualPipe)
///   and node-limited routing (at most 4 nodes per token, one fabric copy
///   per node); it was 66 % slow with neither.
/// - Megatron-Core's MoE layer is host-bound at these sizes: its launches
///   grow with the experts per rank (`Efficiency::moe_expert_host`, fitted
///   on the NeMo 25.11 rows, `moe_expert_host_is_the_fit_over_the_nemo_rows`). Without it every NeMo row was
///   12–74 % fast. The rows outside the fit (26.02 DeepSeek-V3 on B200,
///   DeepSeek's own run, GPT-OSS 120B) are held to the same bounds.
/// - GPT-OSS 120B (outside the fit) is 33–51 % fast on all three rows; see
///   `gpt_oss`.
/// - Two rows miss by more than 12 %, named here: Qwen3-30B-A3B on GB300
///   (slow: measured 18 % faster than the same recipe on GB200, which the
///   model, host-bound there, does not reproduce) and on 16 H100s (fast: 24
///   virtual stages of one layer each).
#[test]
fn moe_table() {
    let (e, unfit) = table("MoE pre-training (Megatron-Core; DeepSeek-V3)", &moe());
    assert!(unfit.is_empty(), "{unfit:?}");
    let (median, worst) = stats(&e);
    assert!(median <= 0.05 && worst <= 0.08, "{median} {worst}");
    // +5.8 % since the loss is charged kernel by kernel (Megatron's fused
    // cross-entropy, 40 B a logit where 36 B were); +5.3 % before, since
    // the H800 takes the H100's measured FP8 ceiling (0.709;
    // the 0.80 default before: +2.9 %).
    let v3 = e[e.len() - 1];
    assert!(v3.abs() <= 0.06, "DeepSeek-V3 report row {v3}");

    let runs = moe_more();
    let (more, unfit) = table(
        "MoE pre-training (NeMo: Qwen3-MoE; DeepSeek-V3 on DGX-B200)",
        &runs,
    );
    assert!(unfit.is_empty(), "{unfit:?}");
    for (run, x) in runs.iter().zip(&more) {
        let named = run.name.contains("GB300×8 Qwen3-30B") || run.name.contains("H100×16");
        assert!(named || x.abs() <= 0.12, "{}: {x}", run.name);
    }
    let (oss, unfit) = table(
        "MoE pre-training (NeMo: GPT-OSS 120B, outside the fit)",
        &gpt_oss(),
    );
    assert!(unfit.is_empty(), "{unfit:?}");
    // GPT-OSS is fast on every row, for a reason outside the host term (it
    // is 0.3–0.7 s of these steps): the measured runs reach 10–23 % MFU.
    for x in &oss {
        assert!(*x < -0.25 && *x > -0.55, "GPT-OSS row {x}");
    }
    let mut all = e;
    all.extend(more);
    all.extend(oss);
    let (median, worst) = stats(&all);
    println!(
        "\nMoE, {} runs: median |error| {:.1}%, worst {:.1}%",
        all.len(),
        median * 100.0,
        worst * 100.0
    );
    assert!(all.len() >= 15);
    assert!(median <= 0.06 && worst <= 0.55, "{median} {worst}");
}

/// `Efficiency::moe_expert_host` is the least-squares fit of
/// log(predicted / published) over the NeMo 25.11 MoE rows (every MoE row
/// but the 26.02 DeepSeek-V3 one and DeepSeek's own run, which stay out as
/// checks, and the GPT-OSS rows, added after the fit), at 1 µs
/// resolution: the default's error is below its neighbours' 1 µs either
/// side (it was found on a 0–400 µs grid in 1 µs steps; the error has one
/// minimum there) and far below no host term at all. A fixed part per MoE
/// layer, fitted beside it, came out at zero and was dropped.
#[test]
fn moe_expert_host_is_the_fit_over_the_nemo_rows() {
    use planner_core::units::Seconds;
    let mut rows = moe();
    rows.pop(); // DeepSeek's own run
    rows.extend(moe_more().into_iter().filter(|r| r.name.contains("25.11")));
    assert_eq!(rows.len(), 10);
    let plans: Vec<(Plan, f64)> = rows
        .iter()
        .map(|r| (r.fitted_plan(), r.published()))
        .collect();
    let sse = |micros: f64| -> f64 {
        plans
            .iter()
            .map(|(p, published)| {
                let mut p = p.clone();
                p.efficiency.moe_expert_host = Some(Seconds::from_micros(micros));
                let TimeReport::Training(t) = evaluate(&p).time else {
                    return f64::INFINITY;
                };
                (t.step.as_secs() / published).ln().powi(2)
            })
            .sum()
    };
    let fitted = planner_core::efficiency::Efficiency::default()
        .moe_expert_host
        .as_secs()
        * 1e6;
    let at = sse(fitted);
    let rms = |e: f64| (e / plans.len() as f64).sqrt();
    println!(
        "moe_expert_host {fitted} µs: rms log error {:.3} over {} rows (at zero {:.3})",
        rms(at),
        plans.len(),
        rms(sse(0.0))
    );
    assert!(
        at < sse(fitted - 1.0) && at < sse(fitted + 1.0),
        "not the minimum"
    );
    assert!(rms(at) < 0.5 * rms(sse(0.0)));
}

/// MosaicML llm-foundry's MPT training throughput tables
/// (mosaicml/llm-foundry `scripts/train/benchmarking/README.md`): the
/// A100 80GB rows of b2a43a1 (#543, merged 2023-10-19: llm-foundry v0.3.0,
/// Composer 0.16, torch 2.1.0, CUDA 12.1), the H100 80GB BF16 rows of the
/// same commit and the large-scale H100 rows of 5e85bd6 (#838, 2024-01-06:
/// Composer 0.17.2, torch 2.1.0, flash-attn 2.4.2). Every row: MPT (GELU
/// FFN of 4h, learned positions, LayerNorm, no biases, no dropout, tied
/// 50,368-token vocabulary; `scripts/train/yamls/pretrain/mpt-*.yaml`;
/// the table's NumParams include the position table), FSDP1 with
/// `amp_bf16` and DEFAULT mixed precision (FP32 gradient reduction),
/// decoupled AdamW, full per-block checkpointing where the table says so,
/// throughput the mean of the last 10 of 30 steps.
///
/// Held out: nothing was fitted to these rows. They run on the HF Trainer
/// profile (eager modules under FSDP, as Accelerate wraps them; Composer
/// wraps llm-foundry's eager MPT modules the same way). Attention is
/// llm-foundry's Triton FlashAttention kernel (`attn_impl: triton`,
/// compiled with a pre-MLIR Triton; `AttentionKernel::FlashTriton`) except
/// where the table's 2024 rows switched to flash-attn 2.4.2 (`Flash`).
/// Assumed: the A100
/// nodes' "1600 Gbps node-node interconnect (RoCE)" as eight 200 Gb/s
/// ports, the H100 nodes' (unstated) as one 400 Gb/s InfiniBand NDR port
/// per GPU.
fn llm_foundry() -> Vec<Run> {
    MPT_ROWS
        .iter()
        .map(
            |&(gpu, size, seq, gpus, mb, accumulation, ac, grad_op, flash2, tps)| {
                let model = mpt(size, seq);
                let kernel_note = if flash2 { "" } else { " triton" };
                Run {
                    name: format!(
                        "MPT {size} {}×{gpus} s{seq} mb{mb}×{accumulation}{}{kernel_note}",
                        if gpu == GpuId::A100Sxm80 {
                            "A100"
                        } else {
                            "H100"
                        },
                        if ac { " AC" } else { "" },
                    ),
                    stack: TrainingStack::HfTrainer,
                    custom: Some(model),
                    gpu,
                    scale_out: Some(if gpu == GpuId::A100Sxm80 {
                        LinkId::InfinibandHdr
                    } else {
                        LinkId::InfinibandNdr
                    }),
                    seq,
                    micro_batch: mb,
                    dp: gpus,
                    accumulation,
                    ckpt: if ac {
                        Checkpointing::Full
                    } else {
                        Checkpointing::None
                    },
                    sharding: if grad_op {
                        Sharding::FsdpShardGradOp
                    } else {
                        Sharding::FsdpFullShard
                    },
                    // flash-attn's fused cross-entropy (`loss_fn:
                    // fused_crossentropy`, the MPT default): the 16-bit
                    // logits and their gradient, no FP32 copy, which is
                    // what `Compiled` holds.
                    loss: LossKernel::Compiled,
                    kernel: if flash2 {
                        AttentionKernel::Flash
                    } else {
                        AttentionKernel::FlashTriton
                    },
                    tokens_per_gpu_s: tps,
                    ..Run::default()
                }
            },
        )
        .collect()
}

/// An MPT model of llm-foundry's yamls at `seq` tokens.
fn mpt(size: &str, seq: u32) -> ModelChoice {
    let (hidden, heads, layers) = match size {
        "125m" => (768, 12, 12),
        "350m" => (1024, 16, 24),
        "760m" => (1536, 12, 24),
        "1b" => (2048, 16, 24),
        "3b" => (2560, 20, 32),
        "7b" => (4096, 32, 32),
        "13b" => (5120, 40, 40),
        "30b" => (7168, 56, 48),
        "70b" => (8192, 64, 80),
        _ => unreachable!("no MPT {size} in the tables"),
    };
    ModelChoice::Custom(planner_core::plan::CustomModel {
        shipped: None,
        name: format!("MPT {size}"),
        spec: planner_core::model::ModelSpec {
            // The benchmark configs keep MPT's learned position table
            // (`learned_pos_emb`, on by default): the table's parameter
            // counts grow by the sequence × d_model.
            bias: planner_core::model::Bias::None,
            dropout: planner_core::model::Dropout::Off,
            ..planner_core::model::ModelSpec::gpt(layers, hidden, heads, 50368, seq)
        },
    })
}

/// (GPU, model, sequence, GPUs, micro-batch, accumulation, full AC,
/// SHARD_GRAD_OP, flash-attn 2 (else the Triton kernel), tokens/s/GPU).
type MptRow = (
    GpuId,
    &'static str,
    u32,
    u32,
    u32,
    u32,
    bool,
    bool,
    bool,
    f64,
);
#[rustfmt::skip]
const MPT_ROWS: &[MptRow] = &[
    (GpuId::H100Sxm, "70b", 2048, 512, 8, 1, true, false, true, 1007.0),
    (GpuId::H100Sxm, "70b", 2048, 256, 8, 1, true, false, true, 1035.0),
    (GpuId::H100Sxm, "70b", 2048, 128, 8, 1, true, false, true, 1058.0),
    (GpuId::H100Sxm, "30b", 2048, 512, 8, 1, true, false, false, 2115.0),
    (GpuId::H100Sxm, "30b", 2048, 256, 8, 1, true, false, false, 2148.0),
    (GpuId::H100Sxm, "30b", 2048, 128, 8, 1, true, false, false, 2199.0),
    (GpuId::H100Sxm, "13b", 2048, 512, 16, 1, true, false, false, 4952.0),
    (GpuId::H100Sxm, "13b", 2048, 256, 16, 1, true, false, false, 4989.0),
    (GpuId::H100Sxm, "13b", 2048, 128, 16, 1, true, false, false, 5080.0),
    (GpuId::H100Sxm, "7b", 2048, 512, 6, 1, false, false, true, 9670.0),
    (GpuId::H100Sxm, "7b", 2048, 256, 6, 1, false, false, true, 10119.0),
    (GpuId::H100Sxm, "7b", 2048, 128, 6, 1, false, false, true, 10475.0),
    (GpuId::H100Sxm, "3b", 2048, 512, 8, 1, false, true, true, 21664.0),
    (GpuId::H100Sxm, "3b", 2048, 256, 8, 1, false, true, true, 22772.0),
    (GpuId::H100Sxm, "3b", 2048, 128, 8, 1, false, true, true, 23422.0),
    (GpuId::H100Sxm, "1b", 2048, 512, 12, 1, false, true, true, 39837.0),
    (GpuId::H100Sxm, "1b", 2048, 256, 12, 1, false, true, true, 42555.0),
    (GpuId::H100Sxm, "1b", 2048, 128, 12, 1, false, true, true, 44123.0),
    (GpuId::H100Sxm, "70b", 2048, 64, 8, 4, true, false, false, 1039.0),
    (GpuId::H100Sxm, "70b", 2048, 32, 2, 16, true, false, false, 882.0),
    (GpuId::H100Sxm, "30b", 8192, 8, 1, 21, true, false, false, 1384.0),
    (GpuId::H100Sxm, "30b", 4096, 8, 1, 21, true, false, false, 1802.0),
    (GpuId::H100Sxm, "30b", 2048, 32, 14, 3, true, false, false, 2308.0),
    (GpuId::H100Sxm, "30b", 2048, 16, 10, 3, true, false, false, 2263.0),
    (GpuId::H100Sxm, "30b", 2048, 8, 3, 21, true, false, false, 2002.0),
    (GpuId::H100Sxm, "30b", 1024, 8, 6, 21, true, false, false, 2084.0),
    (GpuId::H100Sxm, "13b", 32768, 8, 1, 3, true, false, false, 1976.0),
    (GpuId::H100Sxm, "13b", 16384, 8, 3, 3, true, false, false, 2985.0),
    (GpuId::H100Sxm, "13b", 4096, 8, 10, 3, true, false, false, 4717.0),
    (GpuId::H100Sxm, "13b", 2048, 64, 2, 1, false, false, false, 4800.0),
    (GpuId::H100Sxm, "13b", 2048, 32, 2, 1, false, false, false, 4811.0),
    (GpuId::H100Sxm, "13b", 2048, 16, 2, 1, false, false, false, 4767.0),
    (GpuId::H100Sxm, "13b", 2048, 8, 2, 1, false, false, false, 4792.0),
    (GpuId::H100Sxm, "13b", 1024, 8, 40, 3, true, false, false, 5502.0),
    (GpuId::H100Sxm, "7b", 65536, 8, 1, 2, true, false, false, 1956.0),
    (GpuId::H100Sxm, "7b", 32768, 8, 2, 2, true, false, false, 3318.0),
    (GpuId::H100Sxm, "7b", 8192, 8, 8, 2, true, false, false, 6935.0),
    (GpuId::H100Sxm, "7b", 4096, 8, 16, 2, true, false, false, 8611.0),
    (GpuId::H100Sxm, "7b", 2048, 8, 6, 1, false, false, false, 10643.0),
    (GpuId::H100Sxm, "7b", 1024, 8, 64, 2, true, false, false, 10203.0),
    (GpuId::H100Sxm, "3b", 65536, 8, 1, 2, true, false, false, 3262.0),
    (GpuId::H100Sxm, "3b", 32768, 8, 3, 6, true, false, false, 5873.0),
    (GpuId::H100Sxm, "3b", 16384, 8, 1, 6, false, false, false, 11152.0),
    (GpuId::H100Sxm, "3b", 8192, 8, 3, 6, false, false, false, 16578.0),
    (GpuId::H100Sxm, "3b", 4096, 8, 5, 6, false, false, false, 20964.0),
    (GpuId::H100Sxm, "3b", 2048, 64, 6, 3, false, false, false, 22525.0),
    (GpuId::H100Sxm, "3b", 2048, 32, 6, 3, false, false, false, 23021.0),
    (GpuId::H100Sxm, "3b", 2048, 16, 10, 3, false, false, false, 24142.0),
    (GpuId::H100Sxm, "3b", 1024, 8, 20, 6, false, false, false, 27046.0),
    (GpuId::H100Sxm, "3b", 512, 8, 40, 6, false, false, false, 27965.0),
    (GpuId::H100Sxm, "1b", 65536, 8, 1, 2, true, false, false, 5506.0),
    (GpuId::H100Sxm, "1b", 32768, 8, 1, 4, false, false, false, 12025.0),
    (GpuId::H100Sxm, "1b", 16384, 8, 2, 4, false, false, false, 19649.0),
    (GpuId::H100Sxm, "1b", 8192, 8, 3, 4, false, false, false, 29157.0),
    (GpuId::H100Sxm, "1b", 4096, 8, 7, 4, false, false, false, 38535.0),
    (GpuId::H100Sxm, "1b", 2048, 64, 20, 1, false, false, false, 44402.0),
    (GpuId::H100Sxm, "1b", 2048, 32, 20, 1, false, false, false, 45130.0),
    (GpuId::H100Sxm, "1b", 2048, 16, 20, 1, false, false, false, 46037.0),
    (GpuId::H100Sxm, "1b", 2048, 8, 14, 1, false, false, false, 45455.0),
    (GpuId::H100Sxm, "1b", 1024, 8, 18, 4, false, false, false, 48910.0),
    (GpuId::H100Sxm, "1b", 512, 8, 56, 4, false, false, false, 52275.0),
    (GpuId::H100Sxm, "760m", 32768, 8, 1, 2, false, false, false, 16291.0),
    (GpuId::H100Sxm, "760m", 16384, 8, 3, 2, false, false, false, 27815.0),
    (GpuId::H100Sxm, "760m", 8192, 8, 6, 2, false, false, false, 41825.0),
    (GpuId::H100Sxm, "760m", 4096, 8, 12, 2, false, false, false, 55459.0),
    (GpuId::H100Sxm, "760m", 2048, 32, 24, 1, false, false, false, 67971.0),
    (GpuId::H100Sxm, "760m", 2048, 16, 24, 1, false, false, false, 68551.0),
    (GpuId::H100Sxm, "760m", 2048, 8, 24, 2, false, false, false, 63147.0),
    (GpuId::H100Sxm, "760m", 1024, 8, 48, 2, false, false, false, 78581.0),
    (GpuId::H100Sxm, "760m", 512, 8, 96, 2, false, false, false, 83749.0),
    (GpuId::A100Sxm80, "30b", 8192, 8, 1, 21, true, false, false, 574.0),
    (GpuId::A100Sxm80, "30b", 4096, 8, 1, 21, true, false, false, 814.0),
    (GpuId::A100Sxm80, "30b", 2048, 8, 3, 21, true, false, false, 916.0),
    (GpuId::A100Sxm80, "30b", 1024, 8, 6, 21, true, false, false, 946.0),
    (GpuId::A100Sxm80, "30b", 512, 8, 12, 21, true, false, false, 967.0),
    (GpuId::A100Sxm80, "13b", 32768, 8, 1, 3, true, false, false, 1016.0),
    (GpuId::A100Sxm80, "13b", 16384, 8, 3, 3, true, false, false, 1431.0),
    (GpuId::A100Sxm80, "13b", 8192, 8, 5, 3, true, false, false, 1795.0),
    (GpuId::A100Sxm80, "13b", 4096, 8, 10, 3, true, false, false, 2060.0),
    (GpuId::A100Sxm80, "13b", 2048, 8, 2, 3, false, false, false, 2262.0),
    (GpuId::A100Sxm80, "13b", 1024, 8, 40, 3, true, false, false, 2330.0),
    (GpuId::A100Sxm80, "7b", 65536, 8, 1, 2, true, false, false, 1013.0),
    (GpuId::A100Sxm80, "7b", 32768, 8, 2, 2, true, false, false, 1672.0),
    (GpuId::A100Sxm80, "7b", 16384, 8, 4, 2, true, false, false, 2453.0),
    (GpuId::A100Sxm80, "7b", 8192, 8, 8, 2, true, false, false, 3206.0),
    (GpuId::A100Sxm80, "7b", 4096, 8, 16, 2, true, false, false, 3684.0),
    (GpuId::A100Sxm80, "7b", 2048, 8, 6, 2, false, false, false, 4641.0),
    (GpuId::A100Sxm80, "7b", 1024, 8, 64, 2, true, false, false, 4357.0),
    (GpuId::A100Sxm80, "3b", 65536, 8, 1, 2, true, false, false, 1767.0),
    (GpuId::A100Sxm80, "3b", 32768, 8, 3, 6, true, false, false, 3029.0),
    (GpuId::A100Sxm80, "3b", 16384, 8, 1, 6, false, false, false, 5529.0),
    (GpuId::A100Sxm80, "3b", 8192, 8, 3, 6, false, false, false, 7695.0),
    (GpuId::A100Sxm80, "3b", 4096, 8, 5, 6, false, false, false, 9457.0),
    (GpuId::A100Sxm80, "3b", 2048, 8, 10, 2, false, false, false, 10811.0),
    (GpuId::A100Sxm80, "3b", 1024, 8, 20, 6, false, false, false, 11580.0),
    (GpuId::A100Sxm80, "3b", 512, 8, 40, 6, false, false, false, 12127.0),
    (GpuId::A100Sxm80, "1b", 65536, 8, 1, 2, true, false, false, 3044.0),
    (GpuId::A100Sxm80, "1b", 32768, 8, 1, 4, false, false, false, 6275.0),
    (GpuId::A100Sxm80, "1b", 16384, 8, 2, 4, false, false, false, 9956.0),
    (GpuId::A100Sxm80, "1b", 8192, 8, 3, 4, false, false, false, 13814.0),
    (GpuId::A100Sxm80, "1b", 4096, 8, 7, 4, false, false, false, 17807.0),
    (GpuId::A100Sxm80, "1b", 2048, 8, 14, 4, false, false, false, 20513.0),
    (GpuId::A100Sxm80, "1b", 1024, 8, 18, 4, false, false, false, 22112.0),
    (GpuId::A100Sxm80, "1b", 512, 8, 56, 4, false, false, false, 23148.0),
    (GpuId::A100Sxm80, "760m", 65536, 8, 1, 2, true, false, false, 4143.0),
    (GpuId::A100Sxm80, "760m", 32768, 8, 1, 2, false, false, false, 8802.0),
    (GpuId::A100Sxm80, "760m", 16384, 8, 3, 2, false, false, false, 14274.0),
    (GpuId::A100Sxm80, "760m", 8192, 8, 6, 2, false, false, false, 20933.0),
    (GpuId::A100Sxm80, "760m", 4096, 8, 12, 2, false, false, false, 27351.0),
    (GpuId::A100Sxm80, "760m", 2048, 8, 24, 2, false, false, false, 32434.0),
    (GpuId::A100Sxm80, "760m", 1024, 8, 48, 2, false, false, false, 29765.0),
    (GpuId::A100Sxm80, "760m", 512, 8, 96, 2, false, false, false, 29446.0),
    (GpuId::A100Sxm80, "350m", 65536, 8, 1, 2, false, false, false, 7524.0),
    (GpuId::A100Sxm80, "350m", 32768, 8, 2, 2, false, false, false, 13652.0),
    (GpuId::A100Sxm80, "350m", 16384, 8, 4, 2, false, false, false, 23559.0),
    (GpuId::A100Sxm80, "350m", 8192, 8, 8, 2, false, false, false, 36569.0),
    (GpuId::A100Sxm80, "350m", 4096, 8, 16, 2, false, false, false, 49555.0),
    (GpuId::A100Sxm80, "350m", 2048, 8, 32, 2, false, false, false, 58782.0),
    (GpuId::A100Sxm80, "350m", 1024, 8, 64, 2, false, false, false, 64813.0),
    (GpuId::A100Sxm80, "350m", 512, 8, 128, 2, false, false, false, 69330.0),
    (GpuId::A100Sxm80, "125m", 65536, 8, 1, 2, false, false, false, 20368.0),
    (GpuId::A100Sxm80, "125m", 32768, 8, 2, 2, false, false, false, 36407.0),
    (GpuId::A100Sxm80, "125m", 16384, 8, 4, 2, false, false, false, 60040.0),
    (GpuId::A100Sxm80, "125m", 8192, 8, 8, 2, false, false, false, 90392.0),
    (GpuId::A100Sxm80, "125m", 4096, 8, 16, 2, false, false, false, 118396.0),
    (GpuId::A100Sxm80, "125m", 2048, 8, 40, 2, false, false, false, 142830.0),
    (GpuId::A100Sxm80, "125m", 2048, 8, 32, 2, false, false, false, 141737.0),
    (GpuId::A100Sxm80, "125m", 1024, 8, 64, 2, false, false, false, 156468.0),
    (GpuId::A100Sxm80, "125m", 512, 8, 128, 2, false, false, false, 165681.0),
];

/// llm-foundry's MPT tables, held out (docs/validation.md, "llm-foundry").
/// The bounds pin today's errors so a change shows here.
#[test]
fn llm_foundry_table() {
    let runs = llm_foundry();
    let (a100, h100): (Vec<Run>, Vec<Run>) =
        runs.into_iter().partition(|r| r.gpu == GpuId::A100Sxm80);
    let (ea, unfit_a) = table("llm-foundry MPT, A100 80GB (held out)", &a100);
    let (eh, unfit_h) = table("llm-foundry MPT, H100 80GB BF16 (held out)", &h100);
    println!("unfit: {unfit_a:?} {unfit_h:?}");
    let mut all = ea.clone();
    all.extend(eh.iter().copied());
    let (median, worst) = stats(&all);
    println!(
        "\nllm-foundry, {} runs: median |error| {:.1}%, worst {:.1}%",
        all.len(),
        median * 100.0,
        worst * 100.0
    );
    assert_eq!(all.len(), 129);
    // One named memory miss (docs/validation.md, "llm-foundry"): the 3B at
    // 8,192 tokens, 3 sequences, no checkpointing, 0.8-0.9 GiB over (its
    // activations are 68 GiB). The 30B rows on 8 GPUs fit since PyTorch
    // FSDP keeps no 16-bit shard beside the FP32 one.
    for name in unfit_a.iter().chain(&unfit_h) {
        assert!(
            name.starts_with("MPT 3b") && name.contains("s8192 mb3×6"),
            "{name}"
        );
    }
    // Held out, pinned (2026-12-07, the loss charged kernel by kernel,
    // `time::work::loss_bytes_per_logit`: flash-attn's fused cross-entropy
    // reads the 16-bit logits and writes their gradient, 6-8 B a logit
    // where a flat 36 B was charged before, so the small MPTs came out
    // faster): A100 median 4.0 %, worst 20.1 %; H100 6.6 %, 20.5 % (the 1B
    // on 512 GPUs, fast); all 5.3 %. Before (2026-12-07, with FSDP2's copies charged and the
    // PyTorch GEMM fraction refitted to 0.83 on torchtitan's A100 rows):
    // A100 median 4.0 %, worst 20.3 %; H100 6.9 %, 19.0 % (the 30B at
    // 8,192 tokens, fast); all 5.2 %. Before (2026-12-05), with overlapped collectives charged
    // their contention (`time::training::OVERLAP_CONTENTION`), A100
    // median 5.6 %, worst 24.3 %; H100 7.7 %, 17.1 %; all 6.4 %. With the
    // 2023 rows' Triton attention kernel named but no contention: 5.1 %
    // / 23.9 %, 7.6 % / 20.5 %, 6.7 %. Before the Triton kernel, when
    // it ran as FlashAttention-2, the long-sequence rows were 30-42 %
    // fast: 13.3 % / 42.4 %, 11.2 % / 30.3 %, 11.5 %.
    let (ma, wa) = stats(&ea);
    let (mh, wh) = stats(&eh);
    assert!(ma <= 0.057 && wa <= 0.245, "A100 {ma} {wa}");
    assert!(mh <= 0.07 && wh <= 0.21, "H100 {mh} {wh}");
    assert!(median <= 0.065, "{median}");
}

/// The report's step range is honest about these tables: the range each
/// plan gets (its `range_basis`, `uncertainty.rs`) holds the measured step
/// of at least three runs in four of every kind, as a 10th-to-90th
/// percentile band should (about four in five).
#[test]
fn ranges_hold_the_measured_steps() {
    use planner_core::uncertainty::ValidationBasis;
    use std::collections::BTreeMap;
    let mut runs = Vec::new();
    for set in [
        torchtitan_a100(),
        torchtitan_h100(),
        torchtitan_h100_2d(),
        torchtitan_async_tp(),
        torchtitan_h200(),
        llm_foundry(),
        deepspeed_azure(),
        zero3_narayanan(),
        megatron_deepspeed(),
        moe(),
        moe_more(),
        gpt_oss(),
        dgxc_bf16(),
    ] {
        runs.extend(set);
    }
    let mut held: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let mut errors: std::collections::HashMap<ValidationBasis, Vec<f64>> =
        std::collections::HashMap::new();
    for run in &runs {
        let r = evaluate(&run.fitted_plan());
        let TimeReport::Training(t) = r.time else {
            unreachable!("{}: not a training report", run.name)
        };
        let measured = run.published();
        let inside =
            t.step_range.low.as_secs() <= measured && measured <= t.step_range.high.as_secs();
        // The kinds every published run of which ran slower than
        // predicted say so in the report.
        let warned = r.diagnostics.iter().any(|d| {
            matches!(
                d.detail,
                planner_core::diagnostics::DiagnosticKind::PredictionsFast { .. }
            )
        });
        assert_eq!(
            warned,
            t.range_basis == ValidationBasis::Zero3AtScale,
            "{}",
            run.name
        );
        if matches!(
            t.range_basis,
            ValidationBasis::PytorchTraining | ValidationBasis::MoeTraining
        ) {
            errors
                .entry(t.range_basis)
                .or_default()
                .push((t.step.as_secs() - measured) / measured);
        }
        let e = held.entry(format!("{:?}", t.range_basis)).or_default();
        e.0 += u32::from(inside);
        e.1 += 1;
        if !inside {
            println!(
                "{:<60} {:?}: measured {:.3} s outside {:.3}-{:.3} s",
                run.name,
                t.range_basis,
                measured,
                t.step_range.low.as_secs(),
                t.step_range.high.as_secs()
            );
        }
    }
    for (basis, (inside, n)) in &held {
        println!("{basis}: {inside} of {n} measured steps inside the range");
        assert!(
            f64::from(*inside) >= 0.75 * f64::from(*n),
            "{basis}: {inside}/{n}"
        );
    }
    // The bands are these tables' 10th and 90th percentiles, rounded
    // outwards: never narrower than the rows show, at most two points
    // wider. A model change that moves the rows moves the percentiles and
    // fails here until `uncertainty.rs` follows.
    for (basis, errs) in &errors {
        let b = basis.band(8);
        assert_band_holds(&format!("{basis:?}"), b, errs, (0.02, 0.02));
        assert_eq!(b.rows as usize, errs.len(), "{basis:?}");
    }
    assert!(held.contains_key(&format!("{:?}", ValidationBasis::PytorchTraining)));
    assert!(held.contains_key(&format!("{:?}", ValidationBasis::Zero3AtScale)));
    assert!(held.contains_key(&format!("{:?}", ValidationBasis::MoeTraining)));
}

/// NVIDIA's DGX Cloud benchmarking recipes in BF16 on DGX H100
/// (NVIDIA/dgxc-benchmarking; releases v24.11.1 at 35a9aec with NeMo
/// 24.09 (GPT-3 175B on NeMo 24.05), v25.02 at 8f5cbb3 with NeMo 24.12,
/// v25.04 at 741c886 with NeMo 25.02.01, v25.05 at 68eaf7e with NeMo
/// 25.04.00; the READMEs' result tables and each release's yaml or config
/// table). Every recipe: Megatron-Core through NeMo, Transformer Engine's
/// fused attention, the distributed optimizer with overlapped gradient and
/// parameter syncs, sequence parallelism and Userbuffers TP overlap where
/// TP > 1, MBS as listed, the published step the last of a 50-step run
/// (v25.05: the mean of iterations 11-44). Tokens per second = GBS × seq
/// / step. Held out: nothing was fitted to these rows.
///
/// Recomputation: the 8B, 70B and 405B yamls of v24.11.1 set
/// `activations_checkpoint_granularity: null` (none); the other recipes do
/// not say, so those rows take the least recompute that fits. Left out:
/// the 405B proxies with fewer layers ("not realistic", the README says)
/// and Nemotron-4 340B after v25.02, whose config table gives no
/// interleaving for 12 layers per stage, which its step time contradicts.
fn dgxc_bf16() -> Vec<Run> {
    use ModelId::{Gpt3_175b as G175, Llama31_405b as L405, Llama31_70b as L70, Llama31_8b as L8};
    struct Recipe {
        release: &'static str,
        model: Option<ModelId>,
        seq: u32,
        tp: u32,
        pp: u32,
        cp: u32,
        vp: u32,
        mbs: u32,
        /// Sequences per step per `per` GPUs.
        gbs: u32,
        per: u32,
        /// The yaml says no recompute.
        no_recompute: bool,
        /// (GPUs, published seconds per step).
        steps: Vec<(u32, f64)>,
    }
    let r = |release, model, seq, (tp, pp, cp, vp), mbs, (gbs, per), no_recompute, steps| Recipe {
        release,
        model,
        seq,
        tp,
        pp,
        cp,
        vp,
        mbs,
        gbs,
        per,
        no_recompute,
        steps,
    };
    // Llama 3.1 8B: README_8b.md (v24.11.1, v25.02) and README.md
    // (v25.04), TP 1 PP 1 CP 2, 32 micro-batches per step.
    let l8 = [
        (8, 12.91),
        (16, 13.00),
        (32, 13.05),
        (64, 13.08),
        (128, 13.10),
    ];
    let l8b = [
        (8, 12.78),
        (16, 12.99),
        (32, 13.00),
        (64, 13.00),
        (128, 13.16),
    ];
    let l8c = [
        (8, 12.27),
        (16, 12.30),
        (32, 12.32),
        (64, 12.33),
        (128, 12.33),
    ];
    // Llama 3.1 70B: TP 4 PP 4 CP 2 VP 5, GBS 128 per 64 GPUs.
    let l70 = [
        (64, 14.72),
        (128, 14.73),
        (256, 14.80),
        (512, 14.89),
        (1024, 14.92),
        (2048, 14.98),
    ];
    let l70b = [
        (64, 14.61),
        (128, 14.70),
        (256, 14.72),
        (512, 14.80),
        (1024, 14.86),
        (2048, 14.84),
    ];
    let l70c = [
        (64, 14.66),
        (128, 14.67),
        (256, 14.68),
        (512, 14.67),
        (1024, 14.65),
        (2048, 14.66),
    ];
    // Llama 3.1 405B (synthetic data): TP 8 PP 9 CP 2 VP 7 and GA 63 in
    // v24.11.1 and v25.02, TP 8 PP 8 CP 2 VP 8 and GA 64 from v25.04.
    let l405 = [(576, 17.20), (1152, 17.52), (2304, 17.62)];
    let l405b = [(576, 17.50), (1152, 17.60), (2304, 17.70)];
    let l405c = [(512, 19.78), (1024, 19.84), (2048, 19.87)];
    // GPT-3 175B, sequence 2,048, TP 4 PP 8: VP 12 on NeMo 24.05; the
    // v25.04 config table gives VP 6 for the NeMo 24.12 rows (its header
    // says 12).
    let g175 = [(128, 8.91), (2048, 9.02)];
    let g175b = [
        (128, 8.309),
        (256, 8.408),
        (512, 8.42),
        (1024, 8.453),
        (2048, 8.49),
    ];
    // Nemotron-4 15B, sequence 4,096: TP 4 MBS 4, then TP 2 MBS 2 from
    // v25.04; four micro-batches per step.
    let n15 = [(16, 2.83), (64, 2.86), (2048, 2.96)];
    let n15b = [(16, 2.812), (64, 2.845)];
    let n15c = [(16, 2.66), (64, 2.67), (2048, 2.78)];
    let n15d = [(16, 2.746)];
    // Nemotron-4 340B, sequence 4,096: TP 8 PP 8 VP 12, 16 micro-batches.
    let n340 = [(128, 4.61), (2048, 4.84)];
    let recipes = [
        r(
            "NeMo 24.09",
            Some(L8),
            8192,
            (1, 1, 2, 1),
            1,
            (128, 8),
            true,
            l8.to_vec(),
        ),
        r(
            "NeMo 24.12",
            Some(L8),
            8192,
            (1, 1, 2, 1),
            1,
            (128, 8),
            true,
            l8b.to_vec(),
        ),
        r(
            "NeMo 25.02.01",
            Some(L8),
            8192,
            (1, 1, 2, 1),
            1,
            (128, 8),
            false,
            l8c.to_vec(),
        ),
        r(
            "NeMo 24.09",
            Some(L70),
            8192,
            (4, 4, 2, 5),
            1,
            (128, 64),
            true,
            l70.to_vec(),
        ),
        r(
            "NeMo 24.12",
            Some(L70),
            8192,
            (4, 4, 2, 5),
            1,
            (128, 64),
            false,
            l70b.to_vec(),
        ),
        r(
            "NeMo 25.02.01",
            Some(L70),
            8192,
            (4, 4, 2, 5),
            1,
            (128, 64),
            false,
            l70c.to_vec(),
        ),
        r(
            "NeMo 24.09",
            Some(L405),
            8192,
            (8, 9, 2, 7),
            1,
            (252, 576),
            true,
            l405.to_vec(),
        ),
        r(
            "NeMo 24.12",
            Some(L405),
            8192,
            (8, 9, 2, 7),
            1,
            (252, 576),
            false,
            l405b.to_vec(),
        ),
        r(
            "NeMo 25.02.01",
            Some(L405),
            8192,
            (8, 8, 2, 8),
            1,
            (256, 512),
            false,
            l405c.to_vec(),
        ),
        r(
            "NeMo 24.05",
            Some(G175),
            2048,
            (4, 8, 1, 12),
            1,
            (256, 128),
            false,
            g175.to_vec(),
        ),
        r(
            "NeMo 24.12",
            Some(G175),
            2048,
            (4, 8, 1, 6),
            1,
            (256, 128),
            false,
            g175b.to_vec(),
        ),
        r(
            "NeMo 24.09",
            None,
            4096,
            (4, 1, 1, 1),
            4,
            (64, 16),
            false,
            n15.to_vec(),
        ),
        r(
            "NeMo 24.12",
            None,
            4096,
            (4, 1, 1, 1),
            4,
            (64, 16),
            false,
            n15b.to_vec(),
        ),
        r(
            "NeMo 25.02.01",
            None,
            4096,
            (2, 1, 1, 1),
            2,
            (64, 16),
            false,
            n15c.to_vec(),
        ),
        r(
            "NeMo 25.04.00",
            None,
            4096,
            (2, 1, 1, 1),
            2,
            (64, 16),
            false,
            n15d.to_vec(),
        ),
        r(
            "NeMo 24.09",
            None,
            4096,
            (8, 8, 1, 12),
            1,
            (32, 128),
            false,
            n340.to_vec(),
        ),
        r(
            "NeMo 24.12",
            None,
            4096,
            (8, 8, 1, 12),
            1,
            (32, 128),
            false,
            n340[..1].to_vec(),
        ),
    ];
    let mut runs = Vec::new();
    for rc in &recipes {
        let (custom, label) = match rc.model {
            Some(m) => (None, format!("{m:?}")),
            None if rc.tp * rc.pp > 8 => (
                Some(nemotron4(96, 18432, 96, 73728)),
                "Nemotron-4 340B".into(),
            ),
            None => (
                Some(nemotron4(32, 6144, 48, 24576)),
                "Nemotron-4 15B".into(),
            ),
        };
        for &(gpus, step) in &rc.steps {
            let dp = gpus / (rc.tp * rc.pp * rc.cp);
            let gbs = rc.gbs * gpus / rc.per;
            let accumulation = gbs / (dp * rc.mbs);
            let tokens = f64::from(gbs * rc.seq);
            runs.push(Run {
                name: format!("dgxc {} H100×{gpus} {label} BF16", rc.release),
                stack: TrainingStack::MegatronCore,
                model: rc.model.unwrap_or(L8),
                custom: custom.clone(),
                gpu: GpuId::H100Sxm,
                scale_out: Some(LinkId::InfinibandNdr),
                seq: rc.seq,
                micro_batch: rc.mbs,
                tp: rc.tp,
                pp: rc.pp,
                chunks: rc.vp,
                dp,
                cp: rc.cp,
                tp_overlap: rc.tp > 1,
                accumulation,
                ckpt: Checkpointing::None,
                infer_recompute: !rc.no_recompute,
                sharding: Sharding::Zero1,
                tokens_per_gpu_s: tokens / f64::from(gpus) / step,
                ..Run::default()
            });
        }
    }
    runs
}

/// Nemotron-4 (Parmar et al. 2024, arXiv:2402.16819, Table 1, 15B;
/// NVIDIA 2024, arXiv:2406.11704, §2.1, 340B): squared-ReLU FFN of 4h (two
/// matrices), 8 KV heads, rotary positions, LayerNorm, no biases, untied
/// 256,000-token vocabulary.
fn nemotron4(layers: u32, hidden: u32, heads: u32, ffn: u32) -> ModelChoice {
    use planner_core::model::{Bias, FfnActivation, ModelSpec, Norm};
    use planner_core::plan::CustomModel;
    ModelChoice::Custom(CustomModel {
        shipped: None,
        name: format!("Nemotron-4 {layers} layers"),
        spec: ModelSpec {
            activation: FfnActivation::Relu,
            norm: Norm::LayerNorm,
            bias: Bias::None,
            ..ModelSpec::llama(layers, hidden, heads, 8, ffn, 256_000, 4096)
        },
    })
}

/// The dgxc rows, held out (docs/validation.md, "NVIDIA's BF16 recipes").
/// The bounds pin today's errors so a change shows here.
#[test]
fn dgxc_bf16_table() {
    let runs = dgxc_bf16();
    let (e, unfit) = table("NVIDIA dgxc-benchmarking, BF16, DGX H100 (held out)", &runs);
    println!("unfit: {unfit:?}");
    let mut by: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    for (run, x) in runs.iter().zip(&e) {
        let model = run.name.split(' ').skip(4).collect::<Vec<_>>().join(" ");
        by.entry(model).or_default().push(*x);
    }
    for (model, xs) in &by {
        let (m, w) = stats(xs);
        let signed = xs.iter().sum::<f64>() / xs.len() as f64;
        println!(
            "{model:<28} {} rows: median |error| {:.1} %, worst {:.1} %, mean signed {:+.1} %",
            xs.len(),
            m * 100.0,
            w * 100.0,
            signed * 100.0
        );
    }
    let (median, worst) = stats(&e);
    println!(
        "median {:.1} %, worst {:.1} %",
        median * 100.0,
        worst * 100.0
    );
    assert_eq!(e.len(), 61);
    // One named memory miss: the 405B on 576 GPUs (DP 4) without
    // recompute, 341 MiB over on the first stage; with DP 8 it fits.
    assert_eq!(unfit, ["dgxc NeMo 24.09 H100×576 Llama31_405b BF16"]);
    // A named miss (docs/validation.md, "NVIDIA's BF16 recipes"): every
    // model, shape and scale fast, by up to 14 % (median 10 %), but the
    // Nemotron-4 340B rows (within 11 % either way) and one Nemotron-4
    // 15B row of NeMo 25.02 (+1.5 %). The Megatron-Core profile, whose
    // GEMM rate was fitted on A100 Megatron-LM rows, runs BF16 GEMMs on
    // H100 faster than these recipes measured. (Before overlapped
    // collectives were charged their contention: median 13 %, every row
    // but the 340B fast by 1-17 %.)
    for (run, x) in runs.iter().zip(&e) {
        if run.name.contains("340B") {
            assert!(x.abs() < 0.11, "{} {x}", run.name);
        } else {
            assert!(*x < 0.02 && *x > -0.15, "{} {x}", run.name);
        }
    }
    assert!(median > 0.08 && median < 0.11, "{median}");
}

/// Megatron-LM's README weak-scaling table (NVIDIA/Megatron-LM `README.md`
/// and `images/model_table.png`, read at d98e8a6; the table since 2024,
/// Megatron-Core r0.8.0 by the strong-scaling figure beside it): GPT
/// models of 1.7B to 462B parameters on 48 to 6,144 H100 GPUs, sequence
/// 4,096, vocabulary 131,072, TP × PP × DP 48, four sequences per
/// data-parallel rank and pipeline stage a step, "per-GPU teraFLOP/s" in
/// Megatron's count (`num_floating_point_operations`: 72 l h² + 12 l h s +
/// 6 h V per token, no recompute, full attention), with DP, TP and PP
/// communication overlapped. The README's model: GPT, so GeLU FFN of 4h,
/// LayerNorm, biases, untied embeddings, learned positions, multi-head
/// attention (the parameter counts check: 24 × 12 × 2,048² + 2 × 131,072
/// × 2,048 = 1.74B). Assumed, as the README does not say: BF16, micro-batch 1,
/// sequence parallelism with TP, the distributed optimizer, 1F1B without
/// interleaving, the least recompute that fits, DGX H100 with NDR
/// InfiniBand. Held out: nothing fitted.
fn megatron_readme_weak_scaling() -> Vec<Run> {
    use planner_core::model::{Bias, FfnActivation, ModelSpec, Norm, Positions};
    use planner_core::plan::CustomModel;
    #[rustfmt::skip]
    let rows = [
        // (label, heads, hidden, layers, TP, PP, GPUs, batch, TFLOP/s)
        ("1.7B", 16, 2048, 24, 1, 1, 48, 192, 408.8),
        ("7.1B", 32, 4096, 30, 2, 1, 96, 192, 465.9),
        ("16B", 48, 6144, 32, 4, 1, 192, 192, 489.1),
        ("32B", 56, 7168, 48, 8, 1, 384, 192, 459.6),
        ("70B", 64, 8192, 84, 8, 2, 768, 384, 419.7),
        ("119B", 80, 10240, 92, 8, 4, 1536, 768, 420.5),
        ("177B", 96, 12288, 96, 8, 6, 2304, 1152, 432.8),
        ("314B", 128, 16384, 96, 8, 8, 3072, 1536, 474.4),
        ("462B", 144, 18432, 112, 8, 16, 6144, 3072, 459.9),
    ];
    rows.into_iter()
        .map(|(label, heads, h, l, tp, pp, gpus, batch, tflops)| {
            let (lf, hf, s, v) = (f64::from(l), f64::from(h), 4096.0, 131_072.0);
            let flops_per_token = 72.0 * lf * hf * hf + 12.0 * lf * hf * s + 6.0 * hf * v;
            let dp = gpus / (tp * pp);
            let spec = ModelSpec {
                activation: FfnActivation::Gelu,
                norm: Norm::LayerNorm,
                bias: Bias::All,
                // Megatron's GPT default, `learned_absolute`.
                positions: Positions::Learned {
                    max_positions: 4096,
                },
                ..ModelSpec::llama(l, h, heads, heads, 4 * h, 131_072, 4096)
            };
            Run {
                name: format!("Megatron-LM README H100×{gpus} GPT {label}"),
                custom: Some(ModelChoice::Custom(CustomModel {
                    shipped: None,
                    name: format!("GPT {label}"),
                    spec,
                })),
                gpu: GpuId::H100Sxm,
                scale_out: Some(LinkId::InfinibandNdr),
                seq: 4096,
                micro_batch: 1,
                tp,
                pp,
                dp,
                tp_overlap: tp > 1,
                accumulation: batch / dp,
                ckpt: Checkpointing::None,
                infer_recompute: true,
                sharding: Sharding::Zero1,
                tokens_per_gpu_s: tflops * 1e12 / flops_per_token,
                ..Run::default()
            }
        })
        .collect()
}

/// The Megatron-LM README rows, held out (docs/validation.md, "Megatron-LM's
/// README"). The bounds pin today's errors so a change shows here.
#[test]
fn megatron_readme_weak_scaling_table() {
    let runs = megatron_readme_weak_scaling();
    let (e, unfit) = table(
        "Megatron-LM README weak scaling, H100 (Megatron-Core r0.8.0; held out)",
        &runs,
    );
    assert!(unfit.is_empty(), "{unfit:?}");
    let (median, worst) = stats(&e);
    println!(
        "median {:.1} %, worst {:.1} %",
        median * 100.0,
        worst * 100.0
    );
    assert_eq!(e.len(), 9);
    // The five pipelined rows (70B to 462B, 1F1B assumed) within 6 %; the
    // unpipelined ones are named misses (docs/validation.md): the two
    // smallest fast by 15-30 % (measured MFU 41 and 47 %, predicted 57-58
    // %), the 16B close, the 32B slow by 25-35 % (its FP32 gradient
    // reduce-scatter over 48 nodes, 0.38 s, hides behind one micro-batch's
    // backward in the model; the run hid more).
    for (run, x) in runs.iter().zip(&e) {
        let bound = match run.pp {
            1 if run.name.ends_with("1.7B") || run.name.ends_with("7.1B") => -0.30..-0.15,
            1 if run.name.ends_with("32B") => 0.25..0.35,
            _ => -0.06..0.06,
        };
        assert!(bound.contains(x), "{} {x}", run.name);
    }
    assert!(median < 0.06, "{median}");
}

/// Megatron-Core on Ampere at 8B and 8K, held out: FlagPerf's Llama 3 8B
/// case (FlagOpen/FlagPerf `training/nvidia/llama3_8B-megatron/README.md`
/// at 0e0fc76; its script `training/benchmarks/llama3_8B/megatron/
/// pretrain_llama3.sh` at 8f45ae0), megatron-core `core_v0.6.0` on one
/// node of eight A800-SXM4-80GB (the README's row is labelled A100; its
/// hardware list names the A800, an A100 with NVLink capped at 400 GB/s):
/// sequence 8,192, micro-batch 1, global batch 512, PP 2 × DP 4, TP 1,
/// BF16, FlashAttention through Transformer Engine, the distributed
/// optimizer; 3,698.7 tokens per second per GPU. The script sets no
/// recompute flag (the README lists recompute among its optimisations),
/// so the least recompute that fits is taken: no recompute is needed.
///
/// Left out (docs/validation.md): FlagPerf's Llama 2 7B on Megatron-DeepSpeed
/// (its launcher comments out part of its own command line, so which
/// arguments ran is not known) and InternEvo's InternLM-7B rows (a stack
/// memwall has no profile for).
fn flagperf_a800() -> Vec<Run> {
    vec![Run {
        name: "FlagPerf Megatron-Core 0.6 A800×8 Llama 3 8B s8192".into(),
        gpu: GpuId::A800Sxm80,
        seq: 8192,
        micro_batch: 1,
        pp: 2,
        dp: 4,
        accumulation: 512 / 4,
        infer_recompute: true,
        tokens_per_gpu_s: 3698.7,
        ..Run::default()
    }]
}

#[test]
fn flagperf_megatron_core_on_ampere() {
    let runs = flagperf_a800();
    let (e, unfit) = table("FlagPerf, Megatron-Core on eight A800 (held out)", &runs);
    assert!(unfit.is_empty(), "{unfit:?}");
    // −3.0 % in time today (the model a little fast), inside the
    // Megatron dense band (−13 … +5 %).
    assert!(e.iter().all(|x| (-0.06..0.06).contains(x)), "{e:?}");
}
