//! Training peak memory against published measured runs (issue 12,
//! docs/validation.md "Training peak memory").
//!
//! Every row is a run someone measured and published, with the figure it
//! measured: `max_memory_allocated`, `max_memory_reserved` or what
//! `nvidia-smi` / NVML showed as used. The plan describes the run as its
//! source does; nothing here is tuned to a row. The test holds the median
//! and the worst error to the figures docs/validation.md states, so a
//! change that moves them shows up here and in the doc together.
//!
//! `cargo test -p planner-core --test training_memory -- --nocapture`
//! prints the table the doc carries.

#[path = "common/refused.rs"]
mod refused;
use refused::assert_refused_by_name;

use planner_core::catalog::{GpuId, ModelId};
use planner_core::diagnostics::DeviceRole;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::model::{Embeddings, ModelSpec};
use planner_core::plan::Tier;
use planner_core::plan::{
    AttentionKernel, Checkpointing, CustomModel, Levers, LoraSpec, LoraTargets, ModelChoice,
    Momentum, Offload, OffloadTarget, Optimizer, Overheads, Parallelism, PipelineSchedule, Plan,
    Precisions, SequenceParallel, Sharding, Training, TrainingKind, Workload,
};
use planner_core::precision::Precision;
use planner_core::report::{DeviceMemory, Report};
use planner_core::software::{
    Bitsandbytes, CudaVersion, Head, LoraDropout, LossKernel, MemorySoftware, MemoryStack,
    ModuleLoading, OptimizerImpl,
};
use planner_core::stack::TrainingStack;
use planner_core::units::Bytes;
use planner_core::{evaluate, Verdict};

/// Which figure a row measured.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Metric {
    /// `torch.cuda.max_memory_allocated`.
    Allocated,
    /// `torch.cuda.max_memory_reserved`.
    Reserved,
    /// Device memory used as `nvidia-smi` / NVML reports it.
    NvidiaSmi,
}

/// Mixed precision as the run set it.
#[derive(Debug, Clone, Copy)]
enum Mp {
    /// Everything FP32.
    Fp32,
    /// `torch.cuda.amp` FP16 autocast over FP32 parameters (HF `fp16=True`).
    AutocastFp16,
    /// Megatron `--bf16`: BF16 weights, FP32 main gradients, FP32 master
    /// weights and Adam moments.
    MegatronBf16,
    /// FSDP2 `MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32)`:
    /// FP32 sharded parameters, gradients and moments; BF16 compute.
    Fsdp2Bf16,
    /// The same with torchao Float8 linears (FP8 GEMMs).
    Fsdp2Float8,
    /// Lightning `bf16-true`: every tensor, adapters and their Adam moments
    /// included, in BF16.
    Bf16True,
    /// DeepSpeed `bf16.enabled`: BF16 weights and gradient partitions, FP32
    /// master weights and Adam moments.
    DeepSpeedBf16,
    /// DeepSpeed `bf16_master_weights_and_grads` + `bf16_optimizer_states`
    /// under `torch.autocast`: every state in BF16.
    DeepSpeedPureBf16,
}

/// The optimizer as the run set it.
#[derive(Debug, Clone, Copy)]
enum Opt {
    /// transformers' own `AdamW` (`adamw_hf`): a loop over parameters.
    AdamWHf,
    /// transformers' `Adafactor` with its defaults (no first moment).
    Adafactor,
    /// bitsandbytes `Adam8bit`.
    Adam8bit,
    /// `torch.optim.AdamW` with its CUDA default, `foreach`.
    AdamForeach,
    /// A fused Adam kernel (Megatron's TE/apex FusedAdam).
    AdamFused,
    /// bitsandbytes `PagedAdamW`.
    PagedAdamW,
}

/// What the run trains.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tuning {
    /// Every weight (pre-training or full fine-tuning).
    Full,
    /// LoRA adapters of this rank on the query and value projections over
    /// 16-bit base weights.
    LoraQv(u32),
    /// The same over NF4 (double-quantized) base weights.
    QloraQv(u32),
    /// LoRA adapters of this rank on every linear layer of the blocks.
    LoraAll(u32),
    /// The same over NF4 (double-quantized) base weights.
    QloraAll(u32),
}

/// Which device of the run the figure was read on.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Dev {
    /// The most loaded one (single-stage runs, and figures taken as the
    /// maximum over ranks).
    Binding,
    /// The last pipeline stage (Megatron writes its TensorBoard scalars on
    /// the last rank, `global_vars._set_tensorboard_writer`).
    Last,
}

/// The model of a run.
#[derive(Debug, Clone, Copy)]
enum Model {
    Preset(ModelId),
    Spec(ModelSpec),
}

/// The software family a row belongs to, for the per-stack summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Family {
    HfTrainer,
    LitGpt,
    DeepSpeed,
    Megatron,
    Torchtitan,
    FsdpQlora,
}

/// One published run, as its source configured it.
#[derive(Debug, Clone, Copy)]
struct Row {
    id: &'static str,
    source: &'static str,
    family: Family,
    metric: Metric,
    /// The published figure, MiB.
    measured_mib: f64,
    device: Dev,
    model: Model,
    gpu: GpuId,
    gpus: u32,
    tp: u32,
    pp: u32,
    cp: u32,
    /// Model chunks per pipeline rank (interleaved schedule when > 1).
    chunks: u32,
    /// Micro-batches per chunk group (interleaved; 0 = PP).
    microbatch_group: u32,
    sequence_parallel: bool,
    sharding: Sharding,
    /// Parameters, gradients and optimizer states kept in host memory
    /// (FSDP `CPUOffload(offload_params=True)`).
    offload: bool,
    seq: u32,
    micro_batch: u32,
    /// Micro-batches per step on each data-parallel rank.
    accumulation: u32,
    /// Full training, or LoRA / QLoRA adapters (rank, targets).
    tuning: Tuning,
    checkpointing: Checkpointing,
    mp: Mp,
    opt: Opt,
    stack: MemoryStack,
    training_stack: TrainingStack,
    head: Head,
    loss: LossKernel,
    attention: AttentionKernel,
    cuda: CudaVersion,
    loading: ModuleLoading,
}

const HF_ANATOMY: &str = "Hugging Face Transformers docs, 'Methods and tools for efficient \
    training on a single GPU' (perf_train_gpu_one, v4.21-v4.35): bert-large-uncased sequence \
    classification, 512 random sequences of 512 tokens, Trainer, V100-SXM2 16GB, driver \
    460.91.03; 'GPU memory occupied' = NVML used // 1024**2 after trainer.train()";

/// The HF single-GPU guide's BERT-large runs.
const HF_BERT: Row = Row {
    id: "",
    source: HF_ANATOMY,
    family: Family::HfTrainer,
    metric: Metric::NvidiaSmi,
    measured_mib: 0.0,
    device: Dev::Binding,
    model: Model::Preset(ModelId::BertLarge),
    gpu: GpuId::V100Sxm2_16,
    gpus: 1,
    tp: 1,
    pp: 1,
    cp: 1,
    chunks: 1,
    microbatch_group: 0,
    sequence_parallel: false,
    sharding: Sharding::None,
    offload: false,
    seq: 512,
    micro_batch: 4,
    accumulation: 1,
    tuning: Tuning::Full,
    checkpointing: Checkpointing::None,
    mp: Mp::Fp32,
    opt: Opt::AdamWHf,
    stack: MemoryStack::HfEager,
    training_stack: TrainingStack::HfTrainer,
    head: Head::Classifier { labels: 2 },
    loss: LossKernel::StackDefault,
    attention: AttentionKernel::Eager,
    cuda: CudaVersion::Cuda11Early,
    loading: ModuleLoading::Eager,
};

/// A BERT-large row of the HF single-GPU guide.
const fn hf_bert(
    id: &'static str,
    measured_mib: f64,
    micro_batch: u32,
    accumulation: u32,
    checkpointing: bool,
    mp: Mp,
    opt: Opt,
) -> Row {
    Row {
        id,
        measured_mib,
        micro_batch,
        accumulation,
        checkpointing: if checkpointing {
            Checkpointing::Full
        } else {
            Checkpointing::None
        },
        mp,
        opt,
        ..HF_BERT
    }
}

const MEGATRON_CI: &str = "NVIDIA/Megatron-LM tests/functional_tests/test_cases/gpt/<id>/: \
    model_config.yaml (the run's arguments) and golden_values_dev_dgx_{h100,a100}.json \
    'mem-max-allocated-bytes' (torch.cuda.memory_stats allocated_bytes.all.peak, written by \
    the last rank; the largest value over the logged steps), one DGX node of 8 GPUs \
    (tests/test_utils/recipes/h100/gpt.yaml: nodes 1, gpus 8); snapshot d98e8a6 (2026-08). \
    Every model_config.yaml sets CUBLAS_WORKSPACE_CONFIG=:4096:8 (32 MiB a cuBLAS handle on \
    every GPU, not only Hopper's default)";

/// Megatron-Core's 7B memory test model: 32 layers, h 4096, 32 heads in 8
/// query groups, GeLU FFN 4h, learned positions, LayerNorm, biases,
/// dropout 0.1, untied output layer; vocabulary 131,073 padded to a
/// multiple of 128 × TP (`--make-vocab-size-divisible-by` 128).
const fn megatron_7b(vocab: u32) -> ModelSpec {
    ModelSpec {
        kv_heads: 8,
        embeddings: Embeddings::Untied,
        ..ModelSpec::gpt(32, 4096, 32, vocab, 8192)
    }
}

/// Megatron-Core's small functional-test GPT: 12 layers, h 512, 8 heads,
/// 1024 tokens, GPT-2 BPE vocabulary (50,257 padded to a multiple of
/// 128 × TP), tied embeddings.
const fn megatron_small(vocab: u32) -> ModelSpec {
    ModelSpec::gpt(12, 512, 8, vocab, 1024)
}

/// Megatron-Core with Transformer Engine, BF16, on one DGX H100.
const MEGATRON: Row = Row {
    id: "",
    source: MEGATRON_CI,
    family: Family::Megatron,
    metric: Metric::Allocated,
    measured_mib: 0.0,
    device: Dev::Last,
    model: Model::Spec(megatron_small(50304)),
    gpu: GpuId::H100Sxm,
    gpus: 8,
    tp: 1,
    pp: 1,
    cp: 1,
    chunks: 1,
    microbatch_group: 0,
    sequence_parallel: false,
    sharding: Sharding::None,
    offload: false,
    seq: 1024,
    micro_batch: 4,
    accumulation: 1,
    tuning: Tuning::Full,
    checkpointing: Checkpointing::None,
    mp: Mp::MegatronBf16,
    opt: Opt::AdamFused,
    stack: MemoryStack::Megatron,
    training_stack: TrainingStack::MegatronCore,
    head: Head::LanguageModel,
    loss: LossKernel::StackDefault,
    attention: AttentionKernel::Eager,
    cuda: CudaVersion::Cuda12,
    loading: ModuleLoading::Lazy,
};

const TITAN_2412: &str = "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md \
    (torch 1963fc8, torchtitan 9dec370, 2024-12): Llama 3.1 on Grand Teton H100 96GB HBM2e, \
    seq 8192 (train_configs), 'Memory(GiB)' = max_reserved_gib (train.py), the maximum over \
    GPUs; FSDP2 bf16 params / fp32 reduce, torch.optim.AdamW without --optimizer.fused \
    (foreach), loss = cross_entropy(logits.float())";

/// torchtitan at commit 9dec370 on H100s.
const TITAN: Row = Row {
    id: "",
    source: TITAN_2412,
    family: Family::Torchtitan,
    metric: Metric::Reserved,
    measured_mib: 0.0,
    device: Dev::Binding,
    model: Model::Preset(ModelId::Llama31_8b),
    gpu: GpuId::H100Sxm,
    gpus: 8,
    tp: 1,
    pp: 1,
    cp: 1,
    chunks: 1,
    microbatch_group: 0,
    sequence_parallel: false,
    sharding: Sharding::FsdpFullShard,
    offload: false,
    seq: 8192,
    micro_batch: 2,
    accumulation: 1,
    tuning: Tuning::Full,
    checkpointing: Checkpointing::Selective,
    mp: Mp::Fsdp2Bf16,
    opt: Opt::AdamForeach,
    stack: MemoryStack::Torchtitan,
    training_stack: TrainingStack::Torchtitan,
    head: Head::LanguageModel,
    // At 9dec370 the loss stays eager even under `training.compile`
    // (`train.py`: the compile call commented out by #755, 2024-12-18).
    loss: LossKernel::Unfused,
    attention: AttentionKernel::Flash,
    cuda: CudaVersion::Cuda12,
    loading: ModuleLoading::Lazy,
};

const GIB: f64 = 1024.0;

const LITGPT: &str = "Lightning-AI/litgpt tutorials/resource-tables.md ('Finetuning with LoRA \
    on 1 GPU', lit-gpt 8641822, 2023-10-20; PyTorch 2.1.0+cu121, bitsandbytes 0.41.1): one \
    A100-SXM4-40GB, --precision bf16-true, Alpaca whose longest sample is 1,304 Llama 2 \
    tokens (the first micro-batch is padded to it, finetune/lora.py get_batch(longest_seq_ix)), \
    LoRA r 8 on query and value (lora_dropout 0.05), torch AdamW (bnb PagedAdamW when \
    quantized); 'Max GPU RAM' = torch.cuda.max_memory_allocated() / 1e9 (finetune/lora.py)";

/// LitGPT LoRA fine-tuning of a Llama 2 on one A100 40 GB.
const LIT: Row = Row {
    id: "",
    source: LITGPT,
    family: Family::LitGpt,
    metric: Metric::Allocated,
    measured_mib: 0.0,
    device: Dev::Binding,
    model: Model::Preset(ModelId::Llama2_7b),
    gpu: GpuId::A100Sxm40,
    gpus: 1,
    tp: 1,
    pp: 1,
    cp: 1,
    chunks: 1,
    microbatch_group: 0,
    sequence_parallel: false,
    sharding: Sharding::None,
    offload: false,
    seq: 1304,
    micro_batch: 1,
    accumulation: 1,
    tuning: Tuning::LoraQv(8),
    checkpointing: Checkpointing::None,
    mp: Mp::Bf16True,
    opt: Opt::AdamForeach,
    // LitGPT's RMSNorm (lit_gpt/rmsnorm.py) keeps its 16-bit input, no
    // FP32 copy: the torchtitan row of the saved-tensor table.
    stack: MemoryStack::Torchtitan,
    training_stack: TrainingStack::HfTrainer,
    head: Head::LanguageModel,
    loss: LossKernel::Unfused,
    attention: AttentionKernel::Flash,
    cuda: CudaVersion::Cuda12,
    loading: ModuleLoading::Lazy,
};

/// LitGPT reports decimal gigabytes.
const GB: f64 = 1e9 / 1_048_576.0;

const DS_BF16_MASTER: &str = "deepspeedai/DeepSpeedExamples training/bf16_master_weight \
    (README and train.py, a43031e, 2026-03; DeepSpeed blog core_api_update): a 6.86B-parameter \
    post-LN transformer (32 layers, h 4096, 32 heads, nn.MultiheadAttention, GeLU 4h, learned \
    positions, untied output, GPT-2 vocabulary 50,257), wikitext padded to 512 tokens, batch 1, \
    activation checkpointing per block, ZeRO-3 (stage3_param_persistence_threshold 0) on \
    4x H100, DeepSpeed AdamW; 'Peak Memory' = torch.cuda.max_memory_allocated / 1024**3";

/// The DeepSpeedExamples model: `SimpleTransformerModel` with
/// `nn.MultiheadAttention` (biases, no dropout).
const fn ds_example() -> ModelSpec {
    ModelSpec {
        embeddings: Embeddings::Untied,
        dropout: planner_core::model::Dropout::Off,
        ..ModelSpec::gpt(32, 4096, 32, 50_257, 512)
    }
}

/// DeepSpeed ZeRO-3 over the example model.
const DEEPSPEED: Row = Row {
    id: "",
    source: DS_BF16_MASTER,
    family: Family::DeepSpeed,
    metric: Metric::Allocated,
    measured_mib: 0.0,
    device: Dev::Binding,
    model: Model::Spec(ds_example()),
    gpu: GpuId::H100Sxm,
    gpus: 4,
    tp: 1,
    pp: 1,
    cp: 1,
    chunks: 1,
    microbatch_group: 0,
    sequence_parallel: false,
    sharding: Sharding::Zero3,
    offload: false,
    seq: 512,
    micro_batch: 1,
    accumulation: 1,
    tuning: Tuning::Full,
    checkpointing: Checkpointing::Full,
    mp: Mp::DeepSpeedBf16,
    opt: Opt::AdamFused,
    stack: MemoryStack::HfEager,
    training_stack: TrainingStack::DeepSpeed,
    head: Head::LanguageModel,
    loss: LossKernel::StackDefault,
    attention: AttentionKernel::Eager,
    cuda: CudaVersion::Cuda12,
    loading: ModuleLoading::Lazy,
};
const FSDP_QLORA: &str = "AnswerDotAI/fsdp_qlora benchmarks_03_2024.md ('Benchmarking \
    QLoRA+FSDP', runs of February-March 2024; the 'Dual 4090 Budget Workstation': two RTX 4090 \
    without NVLink on PCIe 4.0 x16, 128 GB host memory): train.py as of 50efa1e (2024-03-26, \
    the first to log reserved memory, which the post quotes), dummy data of the stated context \
    length, bf16 (every tensor, adapters and AdamW moments included, in BF16), LoRA r 64 alpha \
    16 dropout 0.1 on q, k, v, gate, up and down projections (PEFT; QLoRA over bitsandbytes \
    0.43.0 Linear4bit NF4 with double quantization), torch.optim.AdamW, HF transformers Llama \
    with SDPA (FlashAttention-2), FSDP1 FULL_SHARD (NO_SHARD where 'DDP'), CPUOffload( \
    offload_params=True) where 'CPU Offload', layer-wise reentrant checkpointing; 'Peak Memory \
    (GiB)' = torch.cuda.max_memory_reserved() / 2**30 on rank 0 over the first epoch";

/// fsdp_qlora on two RTX 4090s: Llama 2 7B QLoRA, FSDP, 2,048 tokens.
const FQ: Row = Row {
    id: "",
    source: FSDP_QLORA,
    family: Family::FsdpQlora,
    metric: Metric::Reserved,
    measured_mib: 0.0,
    device: Dev::Binding,
    model: Model::Preset(ModelId::Llama2_7b),
    gpu: GpuId::Rtx4090,
    gpus: 2,
    tp: 1,
    pp: 1,
    cp: 1,
    chunks: 1,
    microbatch_group: 0,
    sequence_parallel: false,
    sharding: Sharding::FsdpFullShard,
    offload: false,
    seq: 2048,
    micro_batch: 1,
    accumulation: 1,
    tuning: Tuning::QloraAll(64),
    checkpointing: Checkpointing::Full,
    mp: Mp::Bf16True,
    opt: Opt::AdamForeach,
    stack: MemoryStack::HfEager,
    training_stack: TrainingStack::HfTrainer,
    head: Head::LanguageModel,
    loss: LossKernel::StackDefault,
    attention: AttentionKernel::Flash,
    cuda: CudaVersion::Cuda12,
    loading: ModuleLoading::Lazy,
};

/// One fsdp_qlora row: train type, sharding, offload, batch, peak GiB.
const fn fq(
    id: &'static str,
    tuning: Tuning,
    ddp: bool,
    offload: bool,
    micro_batch: u32,
    gib: f64,
) -> Row {
    Row {
        id,
        tuning,
        sharding: if ddp {
            Sharding::None
        } else {
            Sharding::FsdpFullShard
        },
        offload,
        micro_batch,
        measured_mib: gib * GIB,
        ..FQ
    }
}

const FSDP_QLORA_3090: &str = "AnswerDotAI/fsdp_qlora benchmarks_03_2024.md, the 'Dual \
    3090 Basement Rig' (two RTX 3090 without NVLink, power-limited to 280 W, 128 GB host \
    memory): the template command (--batch_size 1 --context_length 512 --train_type qlora \
    --use_gradient_checkpointing True --reentrant_checkpointing True --use_cpu_offload False, \
    dummy data) with the stated changes; train.py as for the 4090 rows (FSDP1 FULL_SHARD, pure \
    bf16, LoRA r 64 on q, k, v, gate, up, down); 'Peak Memory (GiB)' = max_memory_reserved / \
    2**30 on rank 0, and for two LoRA rows the post's 'peak allocated memory' \
    (max_memory_allocated)";

/// The same runs on the dual-3090 machine: Llama 2 7B, FSDP, batch 1, 512
/// tokens.
const FQ3090: Row = Row {
    source: FSDP_QLORA_3090,
    gpu: GpuId::Rtx3090,
    seq: 512,
    ..FQ
};

/// One dual-3090 row: train type, batch, tokens, metric, GiB.
const fn fq3090(
    id: &'static str,
    tuning: Tuning,
    micro_batch: u32,
    seq: u32,
    metric: Metric,
    gib: f64,
) -> Row {
    Row {
        id,
        tuning,
        micro_batch,
        seq,
        metric,
        measured_mib: gib * GIB,
        ..FQ3090
    }
}

/// Yi-34B (01-ai/Yi-34B config.json: 60 layers, hidden 7168, 56 heads, 8
/// KV heads, intermediate 20480, vocabulary 64000, 4,096 positions).
const YI_34B: ModelSpec = ModelSpec::llama(60, 7168, 56, 8, 20480, 64000, 4096);

/// Mistral 7B v0.2 base (32K context, no sliding window: mistral-community
/// Mistral-7B-v0.2 config.json, rope theta 1e6).
const MISTRAL_7B_V02: ModelSpec = ModelSpec::llama(32, 4096, 32, 8, 14336, 32000, 32768);

const TITAN_TRAINY: &str =
    "pytorch/torchtitan benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md \
    (torch 2.8.0a0+5228986c39, torchtitan e7c0cae, 2025-06): Llama 3.1 8B on 8-GPU H200 nodes, \
    llama3_8b.toml (seq 8192, selective op AC, fused AdamW) with --training.local_batch_size=2 \
    --training.compile and Float8 linears with FSDP float8 all-gather; 'Memory(GiB)' = \
    max_reserved_gib at the 100th iteration";

/// The published rows.
const ROWS: &[Row] = &[
    // ── Hugging Face Trainer, BERT-large on a V100 (nvidia-smi) ──
    hf_bert("hf-bert-bs4", 14949.0, 4, 1, false, Mp::Fp32, Opt::AdamWHf),
    hf_bert(
        "hf-bert-bs1-ga4",
        8681.0,
        1,
        4,
        false,
        Mp::Fp32,
        Opt::AdamWHf,
    ),
    hf_bert(
        "hf-bert-bs1-ga4-gc",
        6775.0,
        1,
        4,
        true,
        Mp::Fp32,
        Opt::AdamWHf,
    ),
    hf_bert(
        "hf-bert-bs4-fp16",
        13939.0,
        4,
        1,
        false,
        Mp::AutocastFp16,
        Opt::AdamWHf,
    ),
    hf_bert(
        "hf-bert-bs1-ga4-gc-fp16",
        7275.0,
        1,
        4,
        true,
        Mp::AutocastFp16,
        Opt::AdamWHf,
    ),
    hf_bert(
        "hf-bert-bs4-adafactor",
        12295.0,
        4,
        1,
        false,
        Mp::Fp32,
        Opt::Adafactor,
    ),
    hf_bert(
        "hf-bert-bs1-ga4-gc-fp16-adafactor",
        4847.0,
        1,
        4,
        true,
        Mp::AutocastFp16,
        Opt::Adafactor,
    ),
    hf_bert(
        "hf-bert-bs4-adam8bit",
        13085.0,
        4,
        1,
        false,
        Mp::Fp32,
        Opt::Adam8bit,
    ),
    hf_bert(
        "hf-bert-bs1-ga4-gc-fp16-adam8bit",
        5363.0,
        1,
        4,
        true,
        Mp::AutocastFp16,
        Opt::Adam8bit,
    ),
    // ── LitGPT / Lightning Fabric (max_memory_allocated) ──
    Row {
        id: "litgpt lora llama2-7b mbs 1",
        measured_mib: 21.30 * GB,
        ..LIT
    },
    Row {
        id: "litgpt lora llama2-7b mbs 2",
        measured_mib: 29.07 * GB,
        micro_batch: 2,
        ..LIT
    },
    Row {
        id: "litgpt lora llama2-13b mbs 1",
        measured_mib: 38.12 * GB,
        model: Model::Preset(ModelId::Llama2_13b),
        ..LIT
    },
    Row {
        id: "litgpt qlora (bnb.nf4-dq) llama2-7b mbs 1",
        measured_mib: 13.84 * GB,
        tuning: Tuning::QloraQv(8),
        opt: Opt::PagedAdamW,
        ..LIT
    },
    Row {
        id: "litgpt qlora (bnb.nf4-dq) llama2-13b mbs 1",
        measured_mib: 22.55 * GB,
        model: Model::Preset(ModelId::Llama2_13b),
        tuning: Tuning::QloraQv(8),
        opt: Opt::PagedAdamW,
        ..LIT
    },
    // ── fsdp_qlora on two RTX 4090s (max_memory_reserved) ──
    fq("fsdp_qlora lora 7b ddp bs4", Tuning::LoraAll(64), true, false, 4, 22.04),
    fq("fsdp_qlora lora 7b fsdp bs6", Tuning::LoraAll(64), false, false, 6, 21.35),
    fq("fsdp_qlora lora 7b offload bs10", Tuning::LoraAll(64), false, true, 10, 22.69),
    fq("fsdp_qlora qlora 7b ddp bs8", Tuning::QloraAll(64), true, false, 8, 20.94),
    fq("fsdp_qlora qlora 7b fsdp bs10", Tuning::QloraAll(64), false, false, 10, 20.97),
    fq("fsdp_qlora qlora 7b offload bs12", Tuning::QloraAll(64), false, true, 12, 22.38),
    Row {
        model: Model::Spec(YI_34B),
        ..fq("fsdp_qlora qlora yi-34b fsdp bs2", Tuning::QloraAll(64), false, false, 2, 23.05)
    },
    Row {
        model: Model::Spec(YI_34B),
        ..fq("fsdp_qlora qlora yi-34b offload bs4", Tuning::QloraAll(64), false, true, 4, 22.98)
    },
    Row {
        model: Model::Preset(ModelId::Llama2_70b),
        ..fq("fsdp_qlora qlora 70b offload bs2", Tuning::QloraAll(64), false, true, 2, 14.92)
    },
    Row {
        model: Model::Spec(MISTRAL_7B_V02),
        ..fq("fsdp_qlora qlora mistral-7b offload bs12", Tuning::QloraAll(64), false, true, 12, 22.54)
    },
    Row {
        model: Model::Spec(MISTRAL_7B_V02),
        seq: 24576,
        ..fq("fsdp_qlora qlora mistral-7b offload 24k", Tuning::QloraAll(64), false, true, 1, 22.54)
    },
    // ── fsdp_qlora on two RTX 3090s ──
    fq3090("fsdp_qlora 3090 qlora 7b bs1 512", Tuning::QloraAll(64), 1, 512, Metric::Reserved, 4.98),
    fq3090("fsdp_qlora 3090 qlora 7b bs1 2048", Tuning::QloraAll(64), 1, 2048, Metric::Reserved, 5.21),
    fq3090("fsdp_qlora 3090 lora 7b bs1 512", Tuning::LoraAll(64), 1, 512, Metric::Reserved, 10.24),
    fq3090("fsdp_qlora 3090 lora 7b bs1 2048", Tuning::LoraAll(64), 1, 2048, Metric::Reserved, 10.22),
    fq3090("fsdp_qlora 3090 lora 7b bs1 512, allocated", Tuning::LoraAll(64), 1, 512, Metric::Allocated, 8.28),
    fq3090("fsdp_qlora 3090 lora 7b bs1 2048, allocated", Tuning::LoraAll(64), 1, 2048, Metric::Allocated, 9.16),
    fq3090("fsdp_qlora 3090 qlora 7b bs4 2048", Tuning::QloraAll(64), 4, 2048, Metric::Reserved, 11.22),
    fq3090("fsdp_qlora 3090 lora 7b bs4 2048", Tuning::LoraAll(64), 4, 2048, Metric::Reserved, 16.14),
    // ── DeepSpeed ZeRO-3 (max_memory_allocated) ──
    Row {
        id: "deepspeed zero3 bf16, fp32 master (baseline.json)",
        measured_mib: 31.38 * GIB,
        ..DEEPSPEED
    },
    Row {
        id: "deepspeed zero3 bf16 master + states, autocast (bf16_full.json)",
        measured_mib: 18.93 * GIB,
        mp: Mp::DeepSpeedPureBf16,
        ..DEEPSPEED
    },
    // ── Megatron-Core CI (max_memory_allocated, last rank) ──
    // gpt3_7b_tp1_pp4_memory_speed: PP 4 with one layer per virtual stage
    // (8 chunks), DP 2, mbs 1, gbs 8, seq 8192, distributed optimizer.
    Row {
        id: "gpt3_7b_tp1_pp4_memory_speed (H100)",
        measured_mib: 60_720_852_992.0 / 1_048_576.0,
        model: Model::Spec(megatron_7b(131_200)),
        pp: 4,
        chunks: 8,
        sharding: Sharding::Zero1,
        seq: 8192,
        micro_batch: 1,
        accumulation: 4,
        attention: AttentionKernel::Flash,
        ..MEGATRON
    },
    Row {
        id: "gpt3_7b_tp1_pp4_memory_speed (A100)",
        measured_mib: 60_489_064_448.0 / 1_048_576.0,
        model: Model::Spec(megatron_7b(131_200)),
        gpu: GpuId::A100Sxm80,
        pp: 4,
        chunks: 8,
        sharding: Sharding::Zero1,
        seq: 8192,
        micro_batch: 1,
        accumulation: 4,
        attention: AttentionKernel::Flash,
        ..MEGATRON
    },
    // gpt3_7b_tp4_pp1_memory_speed: TP 4 (no sequence parallelism), DP 2,
    // mbs 2, gbs 8.
    Row {
        id: "gpt3_7b_tp4_pp1_memory_speed (H100)",
        measured_mib: 57_143_791_616.0 / 1_048_576.0,
        model: Model::Spec(megatron_7b(131_584)),
        tp: 4,
        sharding: Sharding::Zero1,
        seq: 8192,
        micro_batch: 2,
        accumulation: 2,
        attention: AttentionKernel::Flash,
        ..MEGATRON
    },
    Row {
        id: "gpt3_7b_tp4_pp1_memory_speed (A100)",
        measured_mib: 58_188_115_968.0 / 1_048_576.0,
        model: Model::Spec(megatron_7b(131_584)),
        gpu: GpuId::A100Sxm80,
        tp: 4,
        sharding: Sharding::Zero1,
        seq: 8192,
        micro_batch: 2,
        accumulation: 2,
        attention: AttentionKernel::Flash,
        ..MEGATRON
    },
    // The small test GPT, unfused attention (`--attention-backend unfused`).
    Row {
        id: "gpt3_mcore_te_tp1_pp1_dist_optimizer_no_mmap_bin_files",
        measured_mib: 4484.6,
        sharding: Sharding::Zero1,
        ..MEGATRON
    },
    Row {
        id: "gpt3_mcore_te_tp1_pp4_vp1",
        measured_mib: 3968.4,
        pp: 4,
        chunks: 3,
        accumulation: 4,
        ..MEGATRON
    },
    // 5 micro-batches under an interleaved schedule with groups of 5
    // (`--microbatch-group-size-per-virtual-pipeline-stage 5`): Megatron
    // accepts a count PP does not divide when the last group is whole.
    Row {
        id: "gpt3_mcore_te_tp1_pp4_vp1_tunable_overlap",
        measured_mib: 4_622_615_552.0 / 1_048_576.0,
        pp: 4,
        chunks: 3,
        accumulation: 5,
        microbatch_group: 5,
        ..MEGATRON
    },
    Row {
        id: "gpt3_mcore_te_tp1_pp4_vp1_dist_optimizer_overlap_grad_reduce_param_gather_overlap_optimizer",
        measured_mib: 3_942_493_696.0 / 1_048_576.0,
        pp: 4,
        chunks: 3,
        accumulation: 4,
        sharding: Sharding::Zero1,
        ..MEGATRON
    },
    Row {
        id: "gpt3_mcore_te_tp4_pp1_dist_optimizer_overlap_grad_reduce_param_gather",
        measured_mib: 1471.9,
        model: Model::Spec(megatron_small(50_688)),
        tp: 4,
        sharding: Sharding::Zero1,
        accumulation: 4,
        ..MEGATRON
    },
    // The local (non-TE) implementation: Megatron's own fused softmax.
    Row {
        id: "gpt3_mcore_tp1_pp2",
        measured_mib: 3464.9,
        pp: 2,
        accumulation: 2,
        ..MEGATRON
    },
    Row {
        id: "gpt3_mcore_tp1_pp4",
        measured_mib: 2619.3,
        pp: 4,
        accumulation: 4,
        ..MEGATRON
    },
    // TE flash attention with CP 2 and sequence parallelism.
    Row {
        id: "gpt3_mcore_te_tp2_pp2_cp2",
        measured_mib: 891.9,
        model: Model::Spec(megatron_small(50_432)),
        tp: 2,
        pp: 2,
        cp: 2,
        sequence_parallel: true,
        accumulation: 8,
        attention: AttentionKernel::Flash,
        ..MEGATRON
    },
    // The same configurations measured on DGX A100 and DGX GB200
    // (golden_values_dev_dgx_a100.json, golden_values_dev_dgx_gb200.json).
    Row {
        id: "gpt3_7b_tp1_pp4_memory_speed (GB200)",
        measured_mib: 60_519_342_080.0 / 1_048_576.0,
        model: Model::Spec(megatron_7b(131_200)),
        gpu: GpuId::Gb200,
        pp: 4,
        chunks: 8,
        sharding: Sharding::Zero1,
        seq: 8192,
        micro_batch: 1,
        accumulation: 4,
        attention: AttentionKernel::Flash,
        ..MEGATRON
    },
    Row {
        id: "gpt3_7b_tp4_pp1_memory_speed (GB200)",
        measured_mib: 58_217_476_096.0 / 1_048_576.0,
        model: Model::Spec(megatron_7b(131_584)),
        gpu: GpuId::Gb200,
        tp: 4,
        sharding: Sharding::Zero1,
        seq: 8192,
        micro_batch: 2,
        accumulation: 2,
        attention: AttentionKernel::Flash,
        ..MEGATRON
    },
    Row {
        id: "gpt3_mcore_te_tp1_pp1_dist_optimizer_no_mmap_bin_files (A100)",
        measured_mib: 4_673_069_568.0 / 1_048_576.0,
        gpu: GpuId::A100Sxm80,
        sharding: Sharding::Zero1,
        ..MEGATRON
    },
    Row {
        id: "gpt3_mcore_te_tp1_pp4_vp1 (A100)",
        measured_mib: 4_122_704_384.0 / 1_048_576.0,
        gpu: GpuId::A100Sxm80,
        pp: 4,
        chunks: 3,
        accumulation: 4,
        ..MEGATRON
    },
    Row {
        id: "gpt3_mcore_te_tp1_pp4_vp1_tunable_overlap (A100)",
        measured_mib: 4_596_793_344.0 / 1_048_576.0,
        gpu: GpuId::A100Sxm80,
        pp: 4,
        chunks: 3,
        accumulation: 5,
        microbatch_group: 5,
        ..MEGATRON
    },
    Row {
        id: "gpt3_mcore_te_tp4_pp1_dist_optimizer_overlap_grad_reduce_param_gather (A100)",
        measured_mib: 1_513_530_880.0 / 1_048_576.0,
        model: Model::Spec(megatron_small(50_688)),
        gpu: GpuId::A100Sxm80,
        tp: 4,
        sharding: Sharding::Zero1,
        accumulation: 4,
        ..MEGATRON
    },
    Row {
        id: "gpt3_mcore_tp1_pp2 (A100)",
        measured_mib: 3_632_653_312.0 / 1_048_576.0,
        gpu: GpuId::A100Sxm80,
        pp: 2,
        accumulation: 2,
        ..MEGATRON
    },
    Row {
        id: "gpt3_mcore_tp1_pp4 (A100)",
        measured_mib: 2_748_673_024.0 / 1_048_576.0,
        gpu: GpuId::A100Sxm80,
        pp: 4,
        accumulation: 4,
        ..MEGATRON
    },
    Row {
        id: "gpt3_mcore_te_tp2_pp2_cp2 (A100)",
        measured_mib: 857_134_592.0 / 1_048_576.0,
        model: Model::Spec(megatron_small(50_432)),
        gpu: GpuId::A100Sxm80,
        tp: 2,
        pp: 2,
        cp: 2,
        sequence_parallel: true,
        accumulation: 8,
        attention: AttentionKernel::Flash,
        ..MEGATRON
    },
    // ── torchtitan (max_memory_reserved, maximum over GPUs) ──
    // Table 1 / Table 3: Llama 3.1 8B, FSDP, local batch 2, selective
    // (op) activation checkpointing, eager.
    Row {
        id: "titan Table 1: 8B FSDP 8 GPUs",
        measured_mib: 82.4 * GIB,
        ..TITAN
    },
    Row {
        id: "titan Table 3: 8B FSDP 128 GPUs",
        measured_mib: 67.0 * GIB,
        gpus: 128,
        ..TITAN
    },
    Row {
        id: "titan Table 1: 8B FSDP + compile, 8 GPUs",
        measured_mib: 77.0 * GIB,
        training_stack: TrainingStack::TorchtitanCompiled,
        ..TITAN
    },
    Row {
        id: "titan Table 1: 8B FSDP + compile + Float8, 8 GPUs",
        measured_mib: 76.8 * GIB,
        mp: Mp::Fsdp2Float8,
        training_stack: TrainingStack::TorchtitanCompiled,
        ..TITAN
    },
    Row {
        id: "titan Table 3: 8B FSDP + compile, 128 GPUs",
        measured_mib: 62.0 * GIB,
        gpus: 128,
        training_stack: TrainingStack::TorchtitanCompiled,
        ..TITAN
    },
    Row {
        id: "titan Table 3: 8B FSDP + compile + Float8, 128 GPUs",
        measured_mib: 61.8 * GIB,
        gpus: 128,
        mp: Mp::Fsdp2Float8,
        training_stack: TrainingStack::TorchtitanCompiled,
        ..TITAN
    },
    // Table 2: FSDP + CP + torch.compile + Float8, local batch 1, full AC.
    Row {
        id: "titan Table 2: 8B FSDP 8 CP 1, 32K",
        measured_mib: 83.9 * GIB,
        seq: 32_768,
        micro_batch: 1,
        checkpointing: Checkpointing::Full,
        mp: Mp::Fsdp2Float8,
        training_stack: TrainingStack::TorchtitanCompiled,
        ..TITAN
    },
    Row {
        id: "titan Table 2: 8B FSDP 4 CP 2, 64K",
        measured_mib: 84.2 * GIB,
        cp: 2,
        seq: 65_536,
        micro_batch: 1,
        checkpointing: Checkpointing::Full,
        mp: Mp::Fsdp2Float8,
        training_stack: TrainingStack::TorchtitanCompiled,
        ..TITAN
    },
    Row {
        id: "titan Table 2: 8B FSDP 2 CP 4, 128K",
        measured_mib: 84.0 * GIB,
        cp: 4,
        seq: 131_072,
        micro_batch: 1,
        checkpointing: Checkpointing::Full,
        mp: Mp::Fsdp2Float8,
        training_stack: TrainingStack::TorchtitanCompiled,
        ..TITAN
    },
    Row {
        id: "titan Table 2: 8B FSDP 1 CP 8, 256K",
        measured_mib: 84.5 * GIB,
        cp: 8,
        seq: 262_144,
        micro_batch: 1,
        checkpointing: Checkpointing::Full,
        mp: Mp::Fsdp2Float8,
        training_stack: TrainingStack::TorchtitanCompiled,
        ..TITAN
    },
    // Table 4: Llama 3.1 70B, FSDP 32 × TP 8 (sequence parallel, loss
    // parallel), local batch 16, full AC, compile + Float8.
    Row {
        id: "titan Table 4: 70B FSDP 32 TP 8",
        measured_mib: 71.9 * GIB,
        model: Model::Preset(ModelId::Llama31_70b),
        gpus: 256,
        tp: 8,
        sequence_parallel: true,
        micro_batch: 16,
        checkpointing: Checkpointing::Full,
        mp: Mp::Fsdp2Float8,
        training_stack: TrainingStack::TorchtitanCompiled,
        ..TITAN
    },
    // Trainy on WhiteFiber: 4 and 8 nodes of 8 H200.
    Row {
        id: "titan H200: 8B FSDP 32, compile + Float8",
        source: TITAN_TRAINY,
        measured_mib: 47.96 * GIB,
        gpu: GpuId::H200Sxm,
        gpus: 32,
        mp: Mp::Fsdp2Float8,
        opt: Opt::AdamFused,
        loss: LossKernel::Compiled,
        training_stack: TrainingStack::TorchtitanCompiled,
        ..TITAN
    },
    Row {
        id: "titan H200: 8B FSDP 64, compile + Float8",
        source: TITAN_TRAINY,
        measured_mib: 46.97 * GIB,
        gpu: GpuId::H200Sxm,
        gpus: 64,
        mp: Mp::Fsdp2Float8,
        opt: Opt::AdamFused,
        loss: LossKernel::Compiled,
        training_stack: TrainingStack::TorchtitanCompiled,
        ..TITAN
    },
];

fn precisions(mp: Mp) -> Precisions {
    let (fp32, bf16, fp16) = (Precision::Fp32, Precision::Bf16, Precision::Fp16);
    let p = |weights, master, gradients, act, compute| Precisions {
        weights,
        master,
        gradients,
        optimizer: fp32,
        activations: act,
        kv_cache: act,
        compute,
        experts: None,
    };
    match mp {
        Mp::Fp32 => p(fp32, None, fp32, fp32, fp32),
        Mp::AutocastFp16 => p(fp32, None, fp32, fp16, fp16),
        Mp::MegatronBf16 => p(bf16, Some(fp32), fp32, bf16, bf16),
        Mp::Fsdp2Bf16 => p(fp32, None, fp32, bf16, bf16),
        Mp::Fsdp2Float8 => p(fp32, None, fp32, bf16, Precision::Fp8),
        Mp::DeepSpeedBf16 => p(bf16, Some(fp32), bf16, bf16, bf16),
        Mp::Bf16True => Precisions {
            optimizer: bf16,
            ..p(bf16, None, bf16, bf16, bf16)
        },
        Mp::DeepSpeedPureBf16 => Precisions {
            optimizer: bf16,
            ..p(bf16, Some(bf16), bf16, bf16, bf16)
        },
    }
}

/// LoRA on every linear layer of the blocks, adapters in BF16.
fn lora_all(rank: u32) -> LoraSpec {
    LoraSpec {
        rank,
        targets: LoraTargets::AllLinear,
        adapter_precision: Precision::Bf16,
    }
}

/// LoRA on the query and value projections, adapters in BF16.
fn lora_qv(rank: u32) -> LoraSpec {
    LoraSpec {
        rank,
        targets: LoraTargets::QueryValue,
        adapter_precision: Precision::Bf16,
    }
}

fn plan(row: &Row) -> Plan {
    let (optimizer, optimizer_impl) = match row.opt {
        Opt::AdamWHf => (Optimizer::AdamW, OptimizerImpl::ForLoop),
        Opt::Adafactor => (
            Optimizer::Adafactor {
                momentum: Momentum::Off,
            },
            OptimizerImpl::ForLoop,
        ),
        Opt::Adam8bit => (Optimizer::Adam8bit, OptimizerImpl::Fused),
        Opt::AdamForeach => (Optimizer::AdamW, OptimizerImpl::Foreach),
        Opt::AdamFused => (Optimizer::AdamW, OptimizerImpl::Fused),
        Opt::PagedAdamW => (Optimizer::AdamW, OptimizerImpl::Paged),
    };
    let dp = row.gpus / (row.tp * row.pp * row.cp);
    let adapters = matches!(row.family, Family::LitGpt | Family::FsdpQlora);
    let model = match row.model {
        Model::Preset(id) => ModelChoice::Preset(id),
        Model::Spec(spec) => ModelChoice::Custom(CustomModel {
            shipped: None,
            name: row.id.into(),
            spec,
        }),
    };
    Plan {
        version: 1,
        name: row.id.into(),
        model,
        workload: Workload::Training(Training {
            kind: match row.tuning {
                Tuning::Full => TrainingKind::PreTraining,
                Tuning::LoraQv(rank) => TrainingKind::Lora(lora_qv(rank)),
                Tuning::QloraQv(rank) => TrainingKind::Qlora(lora_qv(rank)),
                Tuning::LoraAll(rank) => TrainingKind::Lora(lora_all(rank)),
                Tuning::QloraAll(rank) => TrainingKind::Qlora(lora_all(rank)),
            },
            seq_len: row.seq,
            global_batch: row.micro_batch * row.accumulation * dp,
            tokens: 0.0,
        }),
        levers: Levers {
            precision: precisions(row.mp),
            optimizer,
            checkpointing: row.checkpointing,
            attention: row.attention,
            sharding: row.sharding,
            parallel: Parallelism {
                tp: row.tp,
                pp: row.pp,
                dp,
                cp: row.cp,
                ep: 1,
                sequence_parallel: if row.sequence_parallel {
                    SequenceParallel::On
                } else {
                    SequenceParallel::Off
                },
                schedule: if row.chunks > 1 {
                    PipelineSchedule::Interleaved { chunks: row.chunks }
                } else {
                    PipelineSchedule::OneFOneB
                },
                micro_batch: row.micro_batch,
                microbatch_group: row.microbatch_group,
            },
            memory: MemorySoftware {
                stack: Some(row.stack),
                optimizer_impl,
                head: row.head,
                loss: row.loss,
                // LitGPT's finetune/lora.py sets lora_dropout = 0.05 and
                // fsdp_qlora's train.py 0.1; the LitGPT table ran
                // bitsandbytes 0.41.1 (`LITGPT`), fsdp_qlora 0.43.0, the
                // first with FSDP support (`FSDP_QLORA`); no other row
                // trains adapters.
                lora_dropout: if adapters {
                    LoraDropout::On
                } else {
                    LoraDropout::Off
                },
                bitsandbytes: if adapters {
                    Bitsandbytes::Before0_43_2
                } else {
                    Bitsandbytes::default()
                },
            },
            training_stack: Some(row.training_stack),
            offload: if row.offload {
                let host = Some(OffloadTarget {
                    tier: Tier::HostDram,
                    fraction: 1.0,
                });
                Offload {
                    parameters: host,
                    gradients: host,
                    optimizer: host,
                    ..Offload::default()
                }
            } else {
                Offload::default()
            },
            ..Levers::default()
        },
        hardware: Hardware {
            // fsdp_qlora's machines: two GPUs and 128 GB of host memory.
            gpus_per_node: if row.family == Family::FsdpQlora {
                2
            } else {
                Hardware::new(GpuChoice::Preset(row.gpu), row.gpus).gpus_per_node
            },
            host_dram_per_node: if row.family == Family::FsdpQlora {
                Bytes::from_gb(128.0)
            } else {
                Bytes::ZERO
            },
            ..Hardware::new(GpuChoice::Preset(row.gpu), row.gpus)
        },
        overheads: Overheads {
            cuda: row.cuda,
            module_loading: row.loading,
            // Megatron's CI runs with CUBLAS_WORKSPACE_CONFIG=:4096:8.
            cublas_workspace: (row.family == Family::Megatron).then(|| Bytes::from_mib(32.0)),
            // torchtitan's launcher, run_train.sh, sets
            // PYTORCH_ALLOC_CONF="expandable_segments:True".
            expandable_segments: if row.family == Family::Torchtitan {
                ExpandableSegments::On
            } else {
                ExpandableSegments::Off
            },
            ..Overheads::default()
        },
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// The device whose figure the row reports.
fn device(row: &Row, r: &Report) -> DeviceMemory {
    let last = r
        .devices
        .iter()
        .find(|d| matches!(d.role, DeviceRole::LastStage | DeviceRole::OnlyStage));
    match (row.device, last) {
        (Dev::Last, Some(d)) => d.clone(),
        _ => r
            .binding_device()
            .expect("a training report has devices")
            .clone(),
    }
}

/// The predicted figure of a metric, MiB.
fn figure_mib(metric: Metric, d: &DeviceMemory) -> f64 {
    let b = match metric {
        Metric::Allocated => d.hbm_allocated(),
        Metric::Reserved => d.hbm_reserved(),
        Metric::NvidiaSmi => d.hbm_used(),
    };
    b.as_mib()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Signed relative error of every row, in table order.
fn errors() -> Vec<(Row, f64, f64)> {
    ROWS.iter()
        .map(|row| {
            let r = evaluate(&plan(row));
            assert_ne!(
                r.verdict,
                Verdict::Invalid,
                "{}: {:?}",
                row.id,
                r.diagnostics
            );
            let d = device(row, &r);
            // The three figures nest: tensors ≤ the allocator's reserve ≤
            // what the driver sees.
            let (a, res, used) = (
                figure_mib(Metric::Allocated, &d),
                figure_mib(Metric::Reserved, &d),
                figure_mib(Metric::NvidiaSmi, &d),
            );
            assert!(a <= res && res < used, "{}: {a} {res} {used}", row.id);
            let p = figure_mib(row.metric, &d);
            (*row, p, p / row.measured_mib - 1.0)
        })
        .collect()
}

#[test]
fn published_training_peaks() {
    let rows = errors();
    println!("| run | stack | metric | measured MiB | predicted MiB | error |");
    println!("|---|---|---|---:|---:|---:|");
    for (row, p, e) in &rows {
        assert!(row.source.len() > 40, "{}: a source to check", row.id);
        println!(
            "| {} | {:?} | {:?} | {:.0} | {:.0} | {:+.1} % |",
            row.id,
            row.family,
            row.metric,
            row.measured_mib,
            p,
            e * 100.0
        );
    }
    let abs = |f: Option<Family>| -> Vec<f64> {
        rows.iter()
            .filter(|(r, _, _)| f.is_none_or(|f| r.family == f))
            .map(|(_, _, e)| e.abs())
            .collect()
    };
    for f in [
        None,
        Some(Family::HfTrainer),
        Some(Family::LitGpt),
        Some(Family::DeepSpeed),
        Some(Family::Megatron),
        Some(Family::Torchtitan),
        Some(Family::FsdpQlora),
    ] {
        let v = abs(f);
        let worst = v.iter().copied().fold(0.0, f64::max);
        println!(
            "{:?}: {} rows, median |error| {:.1} %, worst {:.1} %",
            f,
            v.len(),
            median(v.clone()) * 100.0,
            worst * 100.0
        );
    }
    // The figures docs/validation.md states. Issue 12's targets are 3 %
    // and 8 %; the rows past 8 % are named below and discussed in the doc
    // (the allocator's cache of earlier phases; the rest of the 70B TP run
    // and LitGPT's common gap are unexplained), so a new
    // miss fails here by name.
    // The fsdp_qlora rows are held out in a table of their own (below,
    // `fsdp_qlora_rows_fit_and_are_held_out`): the target table is the
    // other fifty.
    let all: Vec<f64> = rows
        .iter()
        .filter(|(r, _, _)| r.family != Family::FsdpQlora)
        .map(|(_, _, e)| e.abs())
        .collect();
    let (med, worst) = (median(all.clone()), all.iter().copied().fold(0.0, f64::max));
    assert!(all.len() >= 50, "{} rows", all.len());
    assert!(med <= 0.021, "median {med}");
    assert!(worst <= 0.16, "worst {worst}");
    const DOCUMENTED: &[&str] = &[
        "hf-bert-bs4",
        "hf-bert-bs4-adafactor",
        "hf-bert-bs4-adam8bit",
        "titan Table 4: 70B FSDP 32 TP 8",
        "litgpt lora llama2-7b mbs 1",
        "litgpt lora llama2-7b mbs 2",
        "litgpt lora llama2-13b mbs 1",
        "litgpt qlora (bnb.nf4-dq) llama2-7b mbs 1",
        "litgpt qlora (bnb.nf4-dq) llama2-13b mbs 1",
    ];
    for (row, _, e) in rows
        .iter()
        .filter(|(r, _, _)| r.family != Family::FsdpQlora)
    {
        assert!(
            e.abs() <= 0.08 || DOCUMENTED.contains(&row.id),
            "{}: {:+.1} % is a miss the doc does not discuss",
            row.id,
            e * 100.0
        );
        // Over-predictions stay small: a large one would mean a mechanism
        // counted twice.
        assert!(*e <= 0.05, "{}: over by {:+.1} %", row.id, e * 100.0);
    }
}

/// Answer.AI's FSDP + QLoRA benchmarks on two RTX 4090s (`FSDP_QLORA`)
/// and two RTX 3090s (`FSDP_QLORA_3090`), held out: every configuration
/// ran, so every verdict must be "fits",
/// and the reserved peaks are pinned as they stand (docs/validation.md,
/// "Training peak memory", the fsdp_qlora table). They are short where
/// FSDP1 offloads to the host or the batch fills the card: FSDP1's
/// caching-allocator reserve beyond the live tensors is not modelled.
#[test]
fn fsdp_qlora_rows_fit_and_are_held_out() {
    let rows: Vec<_> = errors()
        .into_iter()
        .filter(|(r, _, _)| r.family == Family::FsdpQlora)
        .collect();
    assert_eq!(rows.len(), 19);
    for (row, _, e) in &rows {
        let r = evaluate(&plan(row));
        assert_eq!(r.verdict, Verdict::Fits, "{} ran on 24 GB", row.id);
        assert!(*e <= 0.05, "{}: over by {:+.1} %", row.id, e * 100.0);
        // Where the post gives the allocated peak, the tensors are right:
        // what the reserved rows miss is the allocator's reserve.
        if row.metric == Metric::Allocated {
            assert!(e.abs() <= 0.03, "{}: {:+.1} %", row.id, e * 100.0);
        }
    }
    let abs: Vec<f64> = rows.iter().map(|(_, _, e)| e.abs()).collect();
    let (med, worst) = (median(abs.clone()), abs.iter().copied().fold(0.0, f64::max));
    // As it stands (2026-12-06): median 8.8 %, worst 34.5 % (the dual
    // 3090's QLoRA 7B at batch 1 and 512 tokens, 1.7 GiB short of 5.0).
    assert!(med <= 0.09, "median {med}");
    assert!(worst <= 0.35, "worst {worst}");
}

/// LoRA adapters are states like any other: FSDP's full sharding
/// divides their weights, gradients and moments over the ranks, and its
/// CPU offload keeps them in host memory (fsdp_qlora's `train.py` wraps
/// them in FSDP units of their own); unsharded, they stay whole in HBM.
#[test]
fn adapters_shard_and_offload_with_the_states() {
    let adapters = |sharding: Sharding, offload: bool, tier: Tier| {
        let row = Row {
            model: Model::Preset(ModelId::Llama2_70b),
            sharding,
            offload,
            ..FQ
        };
        let r = evaluate(&plan(&row));
        let d = r.binding_device().expect("a device").clone();
        d.items
            .iter()
            .filter(|i| i.tier == tier)
            .filter(|i| {
                i.kind == ItemKind::Adapters
                    || (i.kind == ItemKind::OptimizerStates && i.basis.contains("adapter"))
            })
            .map(|i| i.bytes.as_mib())
            .sum::<f64>()
    };
    let whole = adapters(Sharding::None, false, Tier::Hbm);
    let sharded = adapters(Sharding::FsdpFullShard, false, Tier::Hbm);
    assert!((sharded * 2.0 - whole).abs() < 1.0, "{whole} {sharded}");
    assert_eq!(adapters(Sharding::FsdpFullShard, true, Tier::Hbm), 0.0);
    let host = adapters(Sharding::FsdpFullShard, true, Tier::HostDram);
    assert!((host - sharded).abs() < 1.0, "{host} {sharded}");
    // 70B, rank 64 on every linear: 0.83 B adapter parameters at 2 + 2 +
    // 4 bytes (pure BF16 AdamW), about 6.2 GiB whole.
    assert!((whole / 1024.0 - 6.17).abs() < 0.05, "{whole}");
}

/// The same runs' training times, held out: `Time (s)` is the CUDA-event
/// time of the whole epoch of 1,024 samples (`dataset_samples`; the
/// post's cost column is for 1,024 samples), so the steps are 1,024 over
/// the batch and the two GPUs. Published on the same page
/// (`FSDP_QLORA`). The RTX 4090's matmul ceiling is the crowd-sourced
/// torch figure (`catalog::mamf`); before it (the 0.80 default) every row
/// was 8–28 % slow. As it stands (2026-12-07, the PyTorch GEMM fraction
/// refitted 0.80 → 0.83 on torchtitan's A100 rows once FSDP2's copies
/// were charged): median |error| 6.4 %, worst +14.0 % (Mistral at 24,576
/// tokens, where attention is a third of the step: FlashAttention-2 on Ada
/// is taken at Ampere's ceiling); 4.6 % and +15.4 % at 0.80. Every
/// measured time but that one lies inside the report's step range.
#[test]
fn fsdp_qlora_epoch_times_are_held_out() {
    const SECONDS: [(&str, f64); 11] = [
        ("fsdp_qlora lora 7b ddp bs4", 437.0),
        ("fsdp_qlora lora 7b fsdp bs6", 481.0),
        ("fsdp_qlora lora 7b offload bs10", 482.0),
        ("fsdp_qlora qlora 7b ddp bs8", 450.0),
        ("fsdp_qlora qlora 7b fsdp bs10", 466.0),
        ("fsdp_qlora qlora 7b offload bs12", 464.0),
        ("fsdp_qlora qlora yi-34b fsdp bs2", 2072.0),
        ("fsdp_qlora qlora yi-34b offload bs4", 2061.0),
        ("fsdp_qlora qlora 70b offload bs2", 4399.0),
        ("fsdp_qlora qlora mistral-7b offload bs12", 483.0),
        ("fsdp_qlora qlora mistral-7b offload 24k", 7809.0),
    ];
    let mut errors = Vec::new();
    for (id, measured) in SECONDS {
        let row = ROWS
            .iter()
            .find(|r| r.id == id)
            .expect("a row of the table");
        let r = evaluate(&plan(row));
        let planner_core::report::TimeReport::Training(t) = &r.time else {
            continue;
        };
        let steps = 1024.0 / f64::from(row.micro_batch * row.gpus);
        let predicted = t.step.as_secs() * steps;
        let e = predicted / measured - 1.0;
        println!(
            "{id:45} measured {measured:6.0} s, predicted {predicted:6.0} s ({:+.1} %)",
            e * 100.0
        );
        // The one named miss lies 0.4 % under its range's low end.
        let (low, high) = (
            t.step_range.low.as_secs() * steps,
            t.step_range.high.as_secs() * steps,
        );
        let named = id.ends_with("24k");
        assert!(
            named || (low <= measured && measured <= high),
            "{id}: {measured} outside {low:.0}–{high:.0}"
        );
        errors.push(e.abs());
    }
    assert_eq!(errors.len(), 11);
    let (med, worst) = (
        median(errors.clone()),
        errors.iter().copied().fold(0.0, f64::max),
    );
    println!(
        "median |error| {:.1} %, worst {:.1} %",
        med * 100.0,
        worst * 100.0
    );
    assert!(med <= 0.065 && worst <= 0.16, "{med} {worst}");
}

/// A published claim that a configuration fits a GPU.
struct FitClaim {
    id: &'static str,
    source: &'static str,
    spec: ModelSpec,
    gpu: GpuId,
    seq: u32,
    micro_batch: u32,
    accumulation: u32,
}

const QLORA: &str = "Dettmers et al., 'QLoRA: Efficient Finetuning of Quantized LLMs' \
    (arXiv:2305.14314), abstract: 'finetune a 65B parameter model on a single 48GB GPU' and \
    Guanaco 33B 'trainable ... on a single consumer GPU' (24 GB); configuration from \
    artidoro/qlora scripts/finetune_guanaco_{65b,33b}.sh: NF4 + double quantization, BF16, \
    LoRA r 64 on all linear layers, gradient checkpointing, per-device batch 4, \
    source_max_len 16 + target_max_len 512, paged_adamw_32bit (qlora.py default)";

/// The published fit claims (the QLoRA 'fits in 48/24 GB' rows).
fn fit_claims() -> [FitClaim; 2] {
    [
        FitClaim {
            id: "qlora-llama-65b-48gb",
            source: QLORA,
            // LLaMA 65B (Touvron et al. 2023, Table 2): 80 layers, d 8192,
            // 64 heads, SwiGLU 22016, vocabulary 32000, context 2048.
            spec: ModelSpec::llama(80, 8192, 64, 64, 22016, 32000, 2048),
            gpu: GpuId::L40s,
            seq: 528,
            micro_batch: 4,
            accumulation: 4,
        },
        FitClaim {
            id: "qlora-llama-33b-24gb",
            source: QLORA,
            // LLaMA 33B: 60 layers, d 6656, 52 heads, SwiGLU 17920.
            spec: ModelSpec::llama(60, 6656, 52, 52, 17920, 32000, 2048),
            gpu: GpuId::Rtx4090,
            seq: 528,
            micro_batch: 4,
            accumulation: 4,
        },
    ]
}

fn qlora_plan(c: &FitClaim) -> Plan {
    let bf16 = Precision::Bf16;
    Plan {
        version: 1,
        name: c.id.into(),
        model: ModelChoice::Custom(CustomModel {
            shipped: None,
            name: c.id.into(),
            spec: c.spec,
        }),
        workload: Workload::Training(Training {
            kind: TrainingKind::Qlora(LoraSpec {
                rank: 64,
                targets: LoraTargets::AllLinear,
                adapter_precision: bf16,
            }),
            seq_len: c.seq,
            global_batch: c.micro_batch * c.accumulation,
            tokens: 0.0,
        }),
        levers: Levers {
            precision: Precisions {
                weights: bf16,
                master: None,
                gradients: bf16,
                optimizer: Precision::Fp32,
                activations: bf16,
                kv_cache: bf16,
                compute: bf16,
                experts: None,
            },
            checkpointing: Checkpointing::Full,
            attention: AttentionKernel::Eager,
            parallel: Parallelism {
                micro_batch: c.micro_batch,
                ..Parallelism::default()
            },
            // `--lora_dropout 0.05` in both scripts; requirements.txt pins
            // bitsandbytes==0.39.0 (4-bit layers keep their inputs).
            memory: MemorySoftware {
                stack: Some(MemoryStack::HfEager),
                optimizer_impl: OptimizerImpl::Paged,
                lora_dropout: LoraDropout::On,
                bitsandbytes: Bitsandbytes::Before0_43_2,
                ..MemorySoftware::default()
            },
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(c.gpu), 1),
        overheads: Overheads::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

#[test]
fn published_fit_claims_fit() {
    for c in fit_claims() {
        assert!(c.source.len() > 40);
        let r = evaluate(&qlora_plan(&c));
        let d = r.binding_device().expect("a device");
        let hbm = d.hbm().expect("HBM");
        println!(
            "| {} | fits | {:.0} MiB used of {:.0} MiB | {:?} |",
            c.id,
            hbm.used.as_mib(),
            hbm.capacity.as_mib(),
            r.verdict
        );
        assert_eq!(r.verdict, Verdict::Fits, "{}: {:?}", c.id, r.diagnostics);
    }
}

// ── Each issue-12 finding held by a plan ─────────────────────────────────

use planner_core::example_plan;
use planner_core::report::{Accounting, ItemKind};
use planner_core::software::ExpandableSegments;

fn mib(r: &Report, kind: ItemKind) -> f64 {
    r.binding_device().map_or(0.0, |d| d.of_kind(kind).as_mib())
}

/// Llama 2 7B fine-tuning on one H100 as HF runs it: BF16 autocast over
/// FP32 weights, no checkpointing, SDPA.
fn hf_llama() -> Plan {
    let mut p = example_plan();
    p.model = ModelChoice::Preset(ModelId::Llama2_7b);
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1);
    p.workload = Workload::Training(Training {
        kind: TrainingKind::FullFineTune,
        seq_len: 2048,
        global_batch: 1,
        tokens: 0.0,
    });
    p.levers = Levers {
        parallel: Parallelism {
            micro_batch: 1,
            ..Parallelism::default()
        },
        memory: MemorySoftware {
            stack: Some(MemoryStack::HfEager),
            ..MemorySoftware::default()
        },
        ..Levers::default()
    };
    p
}

#[test]
fn the_cuda_context_follows_version_and_loading_and_can_be_set() {
    let mut p = hf_llama();
    let lazy = mib(&evaluate(&p), ItemKind::CudaContext);
    p.overheads.module_loading = ModuleLoading::Eager;
    let eager = mib(&evaluate(&p), ItemKind::CudaContext);
    p.overheads.cuda = CudaVersion::Cuda11Early;
    let old = mib(&evaluate(&p), ItemKind::CudaContext);
    assert!(
        lazy < 512.0 && eager > lazy && old > 1300.0,
        "{lazy} {eager} {old}"
    );
    p.overheads.cuda_context = Some(Bytes::from_mib(777.0));
    assert_eq!(mib(&evaluate(&p), ItemKind::CudaContext), 777.0);
    let r = evaluate(&p);
    let basis = &r.binding_device().expect("a device").items;
    assert!(basis
        .iter()
        .any(|i| i.kind == ItemKind::CudaContext && i.basis.contains("as set")));
}

#[test]
fn the_loss_peak_depends_on_the_kernel_and_chunking_shrinks_it() {
    let mut p = hf_llama();
    let unfused = mib(&evaluate(&p), ItemKind::Logits);
    p.levers.memory.loss = LossKernel::FusedVocabParallel;
    let fused = mib(&evaluate(&p), ItemKind::Logits);
    p.levers.memory.loss = LossKernel::Chunked;
    let chunked = mib(&evaluate(&p), ItemKind::Logits);
    // 2048 tokens × 32000 entries: 12 B (unfused) against 6 B (fused),
    // both beside the 16-bit inputs of the final norm and output layer.
    let per_logit = 2048.0 * 32000.0 / 1_048_576.0;
    let inputs = 2.0 * 2.0 * 2048.0 * 4096.0 / 1_048_576.0;
    assert!(
        (unfused - inputs - 12.0 * per_logit).abs() < 1e-6,
        "{unfused}"
    );
    assert!((fused - inputs - 6.0 * per_logit).abs() < 1e-6, "{fused}");
    assert!(chunked < fused / 4.0, "{chunked} vs {fused}");
    // Liger (v0.5.3 on): one chunk of next_power_of_2(2048 / ⌈32000 /
    // 4096⌉) = 256 tokens' 16-bit logits, the gradient written over them,
    // and the 16-bit hidden-state gradient.
    let chunk = 2.0 * 256.0 * 32000.0 / 1_048_576.0;
    let hidden_grad = 2.0 * 2048.0 * 4096.0 / 1_048_576.0;
    assert!(
        (chunked - inputs - chunk - hidden_grad).abs() < 1e-6,
        "{chunked}"
    );
}

#[test]
fn optimizer_temporaries_follow_the_implementation() {
    let mut p = hf_llama();
    // Foreach (HF's default): a moment-sized list, less the activations
    // the step reuses.
    let foreach = mib(&evaluate(&p), ItemKind::OptimizerTemporaries);
    p.levers.memory.optimizer_impl = OptimizerImpl::Fused;
    let fused = mib(&evaluate(&p), ItemKind::OptimizerTemporaries);
    p.levers.memory.optimizer_impl = OptimizerImpl::ForLoop;
    let one = mib(&evaluate(&p), ItemKind::OptimizerTemporaries);
    assert!(
        foreach > 10_000.0 && fused == 0.0 && one < foreach,
        "{foreach} {one}"
    );
    // Longer sequences free more activations for the step to reuse.
    p.levers.memory.optimizer_impl = OptimizerImpl::Foreach;
    if let Workload::Training(t) = &mut p.workload {
        t.seq_len = 4096;
    }
    assert!(mib(&evaluate(&p), ItemKind::OptimizerTemporaries) < foreach);
}

#[test]
fn backward_holds_gradients_in_flight_without_recomputation() {
    let p = hf_llama();
    assert_eq!(p.levers.checkpointing, Checkpointing::None);
    let mut q = p.clone();
    q.levers.memory.head = Head::Classifier { labels: 2 };
    // With the LM head the loss peak comes first and is larger; with a
    // classifier the largest layer's backward is the transient.
    assert!(mib(&evaluate(&q), ItemKind::BackwardWorkingSet) > 100.0);
    assert!(mib(&evaluate(&q), ItemKind::Logits) < 1.0);
    assert!(mib(&evaluate(&p), ItemKind::Logits) > 700.0);
}

#[test]
fn autocast_over_fp32_weights_caches_16_bit_casts() {
    let mut p = hf_llama();
    p.levers.precision = Precisions {
        weights: Precision::Fp32,
        master: None,
        gradients: Precision::Fp32,
        optimizer: Precision::Fp32,
        activations: Precision::Bf16,
        kv_cache: Precision::Bf16,
        compute: Precision::Bf16,
        experts: None,
    };
    let cache = mib(&evaluate(&p), ItemKind::AutocastCache);
    // Llama 2 7B: 6.48e9 linear weights (the embedding stays FP32) × 2 B.
    assert!((cache / 1024.0 - 12.1).abs() < 0.2, "{cache}");
    p.levers.precision.weights = Precision::Bf16;
    assert_eq!(mib(&evaluate(&p), ItemKind::AutocastCache), 0.0);
}

#[test]
fn hf_eager_keeps_more_than_megatron() {
    let hf = hf_llama();
    let mut mg = hf.clone();
    mg.levers.memory.stack = Some(MemoryStack::Megatron);
    let (a, b) = (
        mib(&evaluate(&hf), ItemKind::Activations),
        mib(&evaluate(&mg), ItemKind::Activations),
    );
    // Two RMSNorms per layer keep an FP32 copy beside the 16-bit output:
    // 4 B more per element each, 32 layers of 2048 × 4096; and the eager
    // `silu(gate) * up` keeps silu's 16-bit output, which Megatron's fused
    // SwiGLU recomputes: 2 B × 11,008 per token and layer.
    let extra = 32.0 * (2.0 * 4.0 * 4096.0 + 2.0 * 11008.0) * 2048.0 / 1_048_576.0;
    assert!((a - b - extra).abs() < 1e-6, "{a} {b}");
}

#[test]
fn the_allocator_reserve_is_named_and_expandable_segments_shrink_it() {
    let mut p = hf_llama();
    let r = evaluate(&p);
    let d = r.binding_device().expect("a device");
    assert!(d.hbm_reserved() > d.hbm_allocated());
    assert!(d.hbm_used() > d.hbm_reserved());
    let off = mib(&r, ItemKind::AllocatorRounding);
    p.overheads.expandable_segments = ExpandableSegments::On;
    let on = mib(&evaluate(&p), ItemKind::AllocatorRounding);
    assert!(on <= off + 20.0, "{on} {off}");
    // A flat fraction replaces the model.
    p.overheads.fragmentation = Some(0.1);
    let r = evaluate(&p);
    assert_eq!(mib(&r, ItemKind::AllocatorRounding), 0.0);
    assert!(mib(&r, ItemKind::Fragmentation) > 0.0);
}

/// The segments pinned by states created inside the first step: the
/// fitted share of gradients and optimizer states for an eager stack, of
/// optimizer states alone for Megatron-Core (its DDP gradient buffer comes
/// first), nothing for DeepSpeed (its partitions come first), nothing with
/// expandable segments or a flat fragmentation, and the plan's own share
/// when it states one.
#[test]
fn states_created_in_the_first_step_pin_a_share_of_reserve() {
    use planner_core::CACHE_PER_LAZY_STATE as SHARE;
    let cache = |p: &Plan| mib(&evaluate(p), ItemKind::AllocatorCache);
    let states = |p: &Plan, kinds: &[ItemKind]| -> f64 {
        let r = evaluate(p);
        kinds.iter().map(|k| mib(&r, *k)).sum()
    };
    let both = [ItemKind::Gradients, ItemKind::OptimizerStates];
    let mut p = hf_llama();
    p.levers.training_stack = Some(TrainingStack::HfTrainer);
    let eager = cache(&p);
    assert!((eager - SHARE * states(&p, &both)).abs() < 1e-6, "{eager}");
    assert!(eager > 0.0);
    // Counted in reserved, not in allocated.
    assert_eq!(ItemKind::AllocatorCache.accounting(), Accounting::Allocator);

    p.levers.training_stack = Some(TrainingStack::MegatronCore);
    let megatron = cache(&p);
    let expected = SHARE * states(&p, &[ItemKind::OptimizerStates]);
    assert!((megatron - expected).abs() < 1e-6, "{megatron} {expected}");

    p.levers.training_stack = Some(TrainingStack::DeepSpeed);
    assert_eq!(cache(&p), 0.0);

    p.levers.training_stack = Some(TrainingStack::HfTrainer);
    p.overheads.expandable_segments = ExpandableSegments::On;
    assert_eq!(cache(&p), 0.0);
    p.overheads.expandable_segments = ExpandableSegments::Off;

    p.overheads.allocator_cache = Some(0.0);
    assert_eq!(cache(&p), 0.0);
    p.overheads.allocator_cache = Some(2.0 * SHARE);
    assert!((cache(&p) - 2.0 * eager).abs() < 1e-6);

    p.overheads.allocator_cache = None;
    p.overheads.fragmentation = Some(0.1);
    assert_eq!(cache(&p), 0.0);
    p.overheads.fragmentation = None;

    // An absurd share is refused by name.
    p.overheads.allocator_cache = Some(-0.5);
    assert_refused_by_name(&evaluate(&p), "overheads.allocator_cache");
}

#[test]
fn the_verdict_holds_reserved_plus_runtime_against_the_driver_total() {
    // A sequence length whose tensors fit what CUDA can allocate on the
    // RTX 4090 (24,207 MiB of nvidia-smi's 24,564) but whose reserve plus
    // context does not.
    let mut p = hf_llama();
    p.model = ModelChoice::Preset(ModelId::Llama31_8b);
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::Rtx4090), 1);
    p.levers.checkpointing = Checkpointing::Full;
    let cap = 24_207.0;
    let mut found = false;
    for seq in (8..512).map(|k| k * 128) {
        p.workload = Workload::Training(Training {
            kind: TrainingKind::Qlora(LoraSpec {
                rank: 16,
                targets: LoraTargets::AllLinear,
                adapter_precision: Precision::Bf16,
            }),
            seq_len: seq,
            global_batch: 1,
            tokens: 0.0,
        });
        let r = evaluate(&p);
        let d = r.binding_device().expect("a device");
        let (alloc, used) = (d.hbm_allocated().as_mib(), d.hbm_used().as_mib());
        assert_eq!(r.verdict == Verdict::Fits, used <= cap, "seq {seq}");
        if alloc <= cap && used > cap {
            found = true;
            break;
        }
    }
    assert!(found, "no length between the allocated and the used limit");
}

#[test]
fn paged_optimizers_keep_their_states_in_host_memory() {
    let claims = fit_claims();
    let mut p = qlora_plan(&claims[0]);
    let r = evaluate(&p);
    let d = r.binding_device().expect("a device");
    let host: f64 = d
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::OptimizerStates && i.tier == Tier::HostDram)
        .map(|i| i.bytes.as_mib())
        .sum();
    assert!(host > 5000.0, "{host}");
    // Without paging the 65B claim would not fit 48 GB.
    p.levers.memory.optimizer_impl = OptimizerImpl::Fused;
    assert_eq!(evaluate(&p).verdict, Verdict::DoesNotFit);
}

#[test]
fn nccl_buffers_follow_each_communicator_and_can_be_set() {
    // Megatron's 7B memory test: PP 4 (send/receive) × DP 2 (collective).
    let row = ROWS
        .iter()
        .find(|r| r.id == "gpt3_7b_tp1_pp4_memory_speed (H100)")
        .expect("the row");
    let mut p = plan(row);
    let r = evaluate(&p);
    let d = device(row, &r);
    let nccl: Vec<_> = d
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::NcclBuffers)
        .collect();
    assert_eq!(nccl.len(), 2, "one communicator per process group");
    assert!(nccl.iter().all(|i| i.basis.contains("nccl#964")));
    // NCCL's buffers are outside the caching allocator: used, not reserved.
    let total: f64 = nccl.iter().map(|i| i.bytes.as_mib()).sum();
    assert!((total - 2.0 * 544.0).abs() < 1e-6, "{total}");
    assert!(d.hbm_used().as_mib() - d.hbm_reserved().as_mib() > total);
    // A wider TP group adds a collective communicator of more than 2 ranks.
    p.levers.parallel.tp = 4;
    p.levers.parallel.pp = 1;
    p.hardware.gpus = 8;
    assert!((mib(&evaluate(&p), ItemKind::NcclBuffers) - (688.0 + 544.0)).abs() < 1e-6);
    // Expert parallelism's all-to-all connects every peer: it grows with EP.
    let mut moe = hf_llama();
    moe.model = ModelChoice::Preset(ModelId::Mixtral8x7b);
    moe.hardware = Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 8);
    moe.levers.parallel.dp = 8;
    moe.levers.sharding = Sharding::Zero3;
    moe.levers.parallel.ep = 2;
    let ep2 = mib(&evaluate(&moe), ItemKind::NcclBuffers);
    moe.levers.parallel.ep = 8;
    let ep8 = mib(&evaluate(&moe), ItemKind::NcclBuffers);
    assert!(ep8 > ep2 + 2000.0, "{ep2} {ep8}");
    // A figure in the plan replaces the table, one per group.
    p.overheads.nccl_per_group = Some(Bytes::from_mib(100.0));
    assert_eq!(mib(&evaluate(&p), ItemKind::NcclBuffers), 200.0);
    // Plans written before the table keep their flat figure.
    let old: Plan = serde_json::from_str(
        &serde_json::to_string(&p)
            .expect("serialises")
            .replace("104857600.0", "268435456.0"),
    )
    .expect("parses");
    assert_eq!(old.overheads.nccl_per_group, Some(Bytes::from_mib(256.0)));
}

/// One LitGPT-like LoRA/QLoRA plan: Llama 2 7B, 1,304 tokens, batch 1,
/// LoRA r 8 on query and value, no checkpointing, SDPA.
fn lora_plan(kind: TrainingKind, dropout: LoraDropout, bnb: Bitsandbytes) -> Plan {
    let mut p = hf_llama();
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::A100Sxm40), 1);
    p.workload = Workload::Training(Training {
        kind,
        seq_len: 1304,
        global_batch: 1,
        tokens: 0.0,
    });
    p.levers.memory.stack = Some(MemoryStack::Torchtitan);
    p.levers.memory.lora_dropout = dropout;
    p.levers.memory.bitsandbytes = bnb;
    p
}

fn activation_mib(p: &Plan) -> f64 {
    mib(&evaluate(p), ItemKind::Activations)
}

/// A frozen base linear keeps no input; bitsandbytes 4-bit layers before
/// 0.43.2 kept every input (`MatMul4Bit`, `ctx.tensors = (A, B)`), later
/// ones keep none (PR #1270); LoRA's dropout keeps a 16-bit copy and a
/// mask of the adapted input. Each difference is the exact byte count.
#[test]
fn lora_and_4_bit_layers_keep_what_their_autograd_functions_save() {
    let lora = TrainingKind::Lora(lora_qv(8));
    let qlora = TrainingKind::Qlora(lora_qv(8));
    let (off, on) = (LoraDropout::Off, LoraDropout::On);
    let (old, new) = (Bitsandbytes::Before0_43_2, Bitsandbytes::Since0_43_2);
    let full = activation_mib(&lora_plan(TrainingKind::FullFineTune, off, new));
    let base = activation_mib(&lora_plan(lora, off, new));
    // Per token and hidden unit per layer, Llama 2 7B (h 4096, f 11008).
    let mib_per_byte = 1304.0 * 4096.0 * 32.0 / 1_048_576.0;
    let f = 11008.0 / 4096.0;
    // Full training keeps the QKV and FFN inputs and the FFN product
    // (the attention output is kept either way; LoRA's adapter keeps the
    // QKV input itself).
    let skipped = (2.0 + 2.0 * f) * mib_per_byte;
    assert!(
        ((full - base) / skipped - 1.0).abs() < 1e-9,
        "{full} {base}"
    );
    // Dropout: one 16-bit copy and a 1-byte mask of the fused QKV input
    // in place of the input itself (2 B), which nothing else keeps.
    let dropped = activation_mib(&lora_plan(lora, on, new));
    assert!(((dropped - base) / mib_per_byte - 1.0).abs() < 1e-9);
    // The bitsandbytes release does not touch 16-bit LoRA, and a current
    // one keeps nothing for its 4-bit layers either.
    assert_eq!(activation_mib(&lora_plan(lora, on, old)), dropped);
    assert_eq!(activation_mib(&lora_plan(qlora, on, new)), dropped);
    // Before 0.43.2: the QKV input (2), the projection's reshaped input
    // (2), the FFN input (2) and product (2 f).
    let kept = activation_mib(&lora_plan(qlora, on, old)) - dropped;
    let inputs = (6.0 + 2.0 * f) * mib_per_byte;
    assert!((kept / inputs - 1.0).abs() < 1e-9, "{kept} vs {inputs}");
}

/// PyTorch's cuBLAS workspaces come from its caching allocator: they are
/// allocated memory, 32 MiB + 1 MiB on Hopper and 8.125 + 1 MiB on
/// Ampere by default for each thread that runs GEMMs (two in training),
/// with Transformer Engine's beside them under Megatron-Core;
/// `CUBLAS_WORKSPACE_CONFIG` sets the per-handle figure and a set total
/// replaces them all.
#[test]
fn blas_workspaces_are_allocated_and_follow_the_architecture() {
    let mut p = hf_llama();
    p.levers.training_stack = Some(TrainingStack::HfTrainer);
    let hopper = evaluate(&p);
    // Training: one cuBLAS handle for the forward's thread and one for the
    // autograd engine's, 32 MiB + 1 MiB of cuBLASLt each on Hopper.
    assert_eq!(mib(&hopper, ItemKind::Workspace), 66.0);
    let d = hopper.binding_device().expect("a device");
    let tensors: f64 = d
        .items
        .iter()
        .filter(|i| i.tier == Tier::Hbm && i.kind.accounting() == Accounting::Tensor)
        .map(|i| i.bytes.as_mib())
        .sum();
    assert!((d.hbm_allocated().as_mib() - tensors).abs() < 1e-6);
    assert!(d.hbm_allocated().as_mib() >= 66.0);
    // Megatron-Core's Transformer Engine linears add their own 32 MiB +
    // 1 KiB (compute capability 9 and up).
    p.levers.training_stack = Some(TrainingStack::MegatronCore);
    let te = mib(&evaluate(&p), ItemKind::Workspace);
    assert!((te - (66.0 + 32.0 + 1.0 / 1024.0)).abs() < 1e-9, "{te}");
    p.levers.training_stack = Some(TrainingStack::HfTrainer);
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::A100Sxm80), 1);
    assert_eq!(mib(&evaluate(&p), ItemKind::Workspace), 2.0 * 9.125);
    p.levers.training_stack = Some(TrainingStack::MegatronCore);
    assert_eq!(mib(&evaluate(&p), ItemKind::Workspace), 2.0 * 9.125 + 4.0);
    // CUBLAS_WORKSPACE_CONFIG=:4096:8 sets each handle's cuBLAS workspace;
    // cuBLASLt's stays beside it.
    p.overheads.cublas_workspace = Some(Bytes::from_mib(32.0));
    assert_eq!(mib(&evaluate(&p), ItemKind::Workspace), 2.0 * 33.0 + 4.0);
    // The field is left out of the JSON until set, so links written
    // before it read the same; set, it round-trips.
    let json = serde_json::to_value(&p).expect("plan JSON");
    assert_eq!(
        json["overheads"]["cublas_workspace"],
        serde_json::json!(33_554_432.0)
    );
    let back: Plan = serde_json::from_value(json).expect("reads back");
    assert_eq!(back.overheads, p.overheads);
    let unset = serde_json::to_value(hf_llama()).expect("plan JSON");
    assert!(unset["overheads"].get("cublas_workspace").is_none());
    // On CUDA cuBLASLt's workspace is capped at the cuBLAS one
    // (`:16:8`, 128 KiB, the usual setting for determinism).
    p.overheads.cublas_workspace = Some(Bytes::from_mib(0.125));
    assert_eq!(mib(&evaluate(&p), ItemKind::Workspace), 2.0 * 0.25 + 4.0);
    // A negative one is refused by name.
    p.overheads.cublas_workspace = Some(Bytes::from_mib(-1.0));
    assert_refused_by_name(&evaluate(&p), "overheads.cublas_workspace");
    p.overheads.cublas_workspace = Some(Bytes::from_mib(32.0));
    // A set total replaces them all.
    p.overheads.workspace = Some(Bytes::from_mib(64.0));
    assert_eq!(mib(&evaluate(&p), ItemKind::Workspace), 64.0);
    // An MoE model's grouped expert GEMMs take four more of TE's.
    let mut moe = hf_llama();
    moe.model = ModelChoice::Preset(ModelId::Mixtral8x7b);
    moe.hardware = Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 8);
    moe.levers.parallel.ep = 8;
    moe.levers.training_stack = Some(TrainingStack::MegatronCore);
    let grouped = mib(&evaluate(&moe), ItemKind::Workspace);
    assert!(
        (grouped - (66.0 + 5.0 * (32.0 + 1.0 / 1024.0))).abs() < 1e-9,
        "{grouped}"
    );
    // Serving runs its GEMMs on one thread, without Transformer Engine.
    let mut serve = hf_llama();
    serve.workload = Workload::Inference(planner_core::plan::Inference {
        prompt_tokens: 1024,
        output_tokens: 128,
        batch: 1,
        logits: planner_core::plan::LogitsScope::LastToken,
        stream: None,
    });
    serve.levers = Levers::default();
    assert_eq!(mib(&evaluate(&serve), ItemKind::Workspace), 33.0);
}

fn host_capacity_gb(p: &Plan) -> f64 {
    let r = evaluate(p);
    let d = r.binding_device().expect("a device");
    d.tiers
        .iter()
        .find(|t| t.tier == Tier::HostDram)
        .map_or(0.0, |t| t.capacity.as_gb())
}

/// Host DRAM defaults to the GPU's typical node: a GH200 node's 480 GB,
/// a desktop's 64 GB beside an RTX 4090, a DGX H100's 2 TB over 8 GPUs;
/// a set figure wins. An offload that a DGX-sized default would have
/// taken no longer fits a 4090 desktop.
#[test]
fn host_dram_follows_the_gpus_typical_node() {
    let mut p = hf_llama();
    assert!((host_capacity_gb(&p) - 250.0).abs() < 1e-9);
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::Gh200_144), 1);
    p.hardware.gpus_per_node = 1;
    assert!((host_capacity_gb(&p) - 480.0).abs() < 1e-9);
    // Llama 2 7B full fine-tuning on a 4090 with the optimizer states and
    // master weights in host memory: 7 B × 12 B ≈ 81 GB does not fit 64 GB.
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::Rtx4090), 1);
    p.levers.checkpointing = Checkpointing::Full;
    p.levers.offload.optimizer = Some(planner_core::plan::OffloadTarget {
        tier: Tier::HostDram,
        fraction: 1.0,
    });
    assert!((host_capacity_gb(&p) - 64.0).abs() < 1e-9);
    let r = evaluate(&p);
    let over = |r: &Report| r.over_tiers().iter().any(|(t, _)| *t == Tier::HostDram);
    assert!(over(&r), "{:?}", r.over_tiers());
    p.hardware.host_dram_per_node = Bytes::from_gb(256.0);
    assert!((host_capacity_gb(&p) - 256.0).abs() < 1e-9);
    assert!(!over(&evaluate(&p)));
}

/// Megatron-Core's interleaved schedule runs micro-batches in groups of N
/// (PP by default) with PP ≤ N ≤ M and a last group that is whole or at
/// least PP (`schedules.py`); `resolve` refuses exactly the rest. A group
/// of 5 over 5 micro-batches (the CI's `tunable_overlap` test) is
/// accepted and holds two more chunk-forwards in flight on the last stage
/// than groups of 4.
#[test]
fn interleaved_micro_batch_groups_follow_megatron() {
    let refused = |accumulation: u32, microbatch_group: u32| {
        let row = Row {
            id: "interleaved",
            pp: 4,
            chunks: 3,
            accumulation,
            microbatch_group,
            ..MEGATRON
        };
        evaluate(&plan(&row)).diagnostics.iter().any(|d| {
            matches!(
                d.detail,
                planner_core::DiagnosticKind::InterleaveMicroBatches { .. }
            )
        })
    };
    assert!(!refused(4, 0));
    assert!(refused(5, 0));
    assert!(!refused(5, 5));
    assert!(refused(5, 3)); // a group below PP
    assert!(refused(5, 6)); // a group above M
    assert!(!refused(9, 5)); // last group of 4 = PP
    assert!(refused(7, 5)); // last group of 2 < PP
    assert!(!refused(8, 4));
    // A group means nothing without interleaving: refused by name.
    let plain = Row {
        id: "1f1b",
        pp: 4,
        accumulation: 5,
        microbatch_group: 5,
        ..MEGATRON
    };
    assert!(evaluate(&plan(&plain)).diagnostics.iter().any(|d| matches!(
        &d.detail,
        planner_core::DiagnosticKind::InvalidValue { field, .. }
            if field == "levers.parallel.microbatch_group"
    )));
    let acts = |accumulation: u32, microbatch_group: u32| {
        let row = Row {
            id: "interleaved",
            pp: 4,
            chunks: 3,
            accumulation,
            microbatch_group,
            ..MEGATRON
        };
        let r = evaluate(&plan(&row));
        device(&row, &r).of_kind(ItemKind::Activations).as_mib()
    };
    // Last stage: 2·(v − 1)·N + 1 chunk-forwards of v = 3 per stage:
    // N = 4 → 9/3, N = 5 → 11/3 stage micro-batches.
    let (four, five) = (acts(8, 4), acts(5, 5));
    assert!(((five / four) - 11.0 / 9.0).abs() < 1e-9, "{four} {five}");
}

/// The plan's JSON spells the bitsandbytes release as the name table and
/// README do (`since_0_43_2`), not as serde would derive it from the
/// variant (`since0_43_2`), so a plan written from the README reads.
#[test]
fn bitsandbytes_json_keys_are_the_documented_ones() {
    use planner_core::lang::Named;
    for b in planner_core::software::Bitsandbytes::ALL {
        let json = serde_json::to_string(&b).expect("serialises");
        assert_eq!(json, format!("\"{}\"", b.key()));
        let back: planner_core::software::Bitsandbytes =
            serde_json::from_str(&json).expect("reads back");
        assert_eq!(back, b);
    }
}

/// PyTorch FSDP under FULL_SHARD keeps each rank's shard in FP32, the
/// master copy, and casts to 16 bits only into the all-gather: no 16-bit
/// shard beside it (`stack.rs` `ShardedWeights`, applied in `memory/training.rs` `casts_at_gather`). Stated
/// as BF16 weights with FP32 masters, a torchtitan plan holds what the
/// same plan stated as FP32 weights without masters holds, and its
/// gathers stay 16-bit. DeepSpeed's ZeRO-3 and Megatron-FSDP keep the
/// 16-bit partition too.
#[test]
fn pytorch_fsdp_keeps_no_16_bit_shard_beside_the_fp32_one() {
    let mut p = example_plan();
    p.model = ModelChoice::Preset(ModelId::Llama31_8b);
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 8);
    p.levers.parallel.tp = 1;
    p.levers.parallel.pp = 1;
    p.levers.parallel.dp = 8;
    p.levers.parallel.micro_batch = 1;
    p.levers.sharding = Sharding::FsdpFullShard;
    p.levers.precision.weights = Precision::Bf16;
    p.levers.precision.master = Some(Precision::Fp32);
    p.levers.training_stack = Some(TrainingStack::Torchtitan);
    let mixed = evaluate(&p);
    assert_eq!(mib(&mixed, ItemKind::Weights), 0.0);
    let master = mib(&mixed, ItemKind::MasterWeights);
    assert!(master > 0.0);
    let gathers = mib(&mixed, ItemKind::GatherBuffers);

    // The same states written as FP32 parameters without masters.
    let mut fp32 = p.clone();
    fp32.levers.precision.weights = Precision::Fp32;
    fp32.levers.precision.master = None;
    let plain = evaluate(&fp32);
    assert_eq!(mib(&plain, ItemKind::Weights), master);
    assert_eq!(mib(&plain, ItemKind::MasterWeights), 0.0);
    assert!(gathers > 0.0);

    // Stacks that keep a 16-bit partition beside the FP32 one.
    for (stack, sharding) in [
        (TrainingStack::MegatronCore, Sharding::FsdpFullShard),
        (TrainingStack::DeepSpeed, Sharding::Zero3),
    ] {
        let mut q = p.clone();
        q.levers.training_stack = Some(stack);
        q.levers.sharding = sharding;
        let r = evaluate(&q);
        assert!(
            (mib(&r, ItemKind::Weights) - master / 2.0).abs() < 1e-6,
            "{stack:?}"
        );
    }
}
