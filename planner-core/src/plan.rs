//! The input: one serializable [`Plan`] = model + workload + levers +
//! hardware + overheads. Every field that may be left out has a documented
//! default, so old and hand-written plans keep parsing.

use crate::catalog::ModelId;
use crate::economics::Economics;
use crate::efficiency::EfficiencyOverrides;
use crate::hardware::Hardware;
pub use crate::hardware::Tier;
pub use crate::lever::Lever;
use crate::model::ModelSpec;
use crate::precision::Precision;
use crate::software::{CudaVersion, ExpandableSegments, MemorySoftware, ModuleLoading};
use crate::stack::TrainingStack;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// Version of the plan schema; bump when a field changes meaning.
pub const SCHEMA_VERSION: u32 = 1;

fn schema_version() -> u32 {
    SCHEMA_VERSION
}

/// A complete scenario: what runs, how, on what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Schema version the plan was written for.
    #[serde(default = "schema_version")]
    pub version: u32,
    /// Free-text name shown in reports.
    #[serde(default)]
    pub name: String,
    /// The model.
    pub model: ModelChoice,
    /// What is run: training or inference.
    pub workload: Workload,
    /// The software levers.
    #[serde(default)]
    pub levers: Levers,
    /// The hardware.
    pub hardware: Hardware,
    /// Runtime overheads (CUDA context, NCCL, allocator).
    #[serde(default)]
    pub overheads: Overheads,
    /// Calibration knobs of the time model that the plan states; the
    /// others come from its software stack.
    #[serde(default)]
    pub efficiency: EfficiencyOverrides,
    /// Prices, energy and engineering rates for the cost report (default:
    /// cloud rental at the catalog's dated prices).
    #[serde(default)]
    pub economics: Economics,
    /// Distil `model` into a smaller student and run the student instead
    /// (default: none, `model` runs itself).
    #[serde(default)]
    pub distillation: Option<Distillation>,
}

/// Distillation as a plan: `model` is the teacher; the plan serves (or
/// trains) the student, so memory and time are the student's. The report
/// adds the one-time cost of distilling: a teacher forward pass (2·N FLOPs
/// per token) and a student training pass (6·N FLOPs per token) over
/// `tokens`, on the plan's GPUs at a stated utilisation; whether the
/// teacher fits on them is not checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Distillation {
    /// The student model.
    pub student: ModelChoice,
    /// Tokens distilled on, > 0. Default 94·10^9, the budget of NVIDIA's
    /// Minitron 8B and 4B (Muralidharan et al. 2024, "Compact Language
    /// Models via Pruning and Knowledge Distillation", arXiv:2407.14679).
    #[serde(default = "default_distillation_tokens")]
    pub tokens: f64,
}

/// Default distillation budget (see [`Distillation::tokens`]).
pub fn default_distillation_tokens() -> f64 {
    94.0e9
}

/// A model given by catalog id or described in full.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum ModelChoice {
    /// A catalog entry.
    Preset(ModelId),
    /// A user-defined architecture.
    Custom(CustomModel),
}

impl Plan {
    /// Stores the weights as a checkpoint ships them, on a serving plan,
    /// and says whether it did: a training plan keeps its own formats
    /// (frameworks dequantize a shipped checkpoint to train it).
    pub fn serve_as_shipped(&mut self, s: crate::precision::ShippedWeights) -> bool {
        if !matches!(self.workload, Workload::Inference(_)) {
            return false;
        }
        let p = &mut self.levers.precision;
        p.weights = s.weights;
        p.experts = s.experts;
        true
    }

    /// Puts a catalog model in the plan: a serving plan stores it as its
    /// checkpoint ships (gpt-oss's MXFP4 experts), and an experts' format
    /// goes with a model that has no experts.
    pub fn set_preset_model(&mut self, id: ModelId) {
        self.model = ModelChoice::Preset(id);
        match self.model.shipped() {
            Some(s) => {
                self.serve_as_shipped(s);
            }
            None if self.model.spec().moe.is_none() => self.levers.precision.experts = None,
            None => {}
        }
    }
}

impl ModelChoice {
    /// The formats the model's checkpoint ships in: a catalog entry's,
    /// or what a described model's import read.
    pub fn shipped(&self) -> Option<crate::precision::ShippedWeights> {
        match self {
            ModelChoice::Preset(id) => crate::catalog::model(*id).shipped,
            ModelChoice::Custom(c) => c.shipped,
        }
    }

    /// The architecture: a catalog entry's, or the one described.
    pub fn spec(&self) -> ModelSpec {
        match self {
            ModelChoice::Preset(id) => crate::catalog::model(*id).spec,
            ModelChoice::Custom(c) => c.spec,
        }
    }
}

/// A user-defined model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CustomModel {
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// The architecture.
    pub spec: ModelSpec,
    /// The formats its checkpoint ships in, when it ships quantized (a
    /// config.json's `quantization_config`, as the import reads it): a
    /// serving plan that stores them quantizes nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shipped: Option<crate::precision::ShippedWeights>,
}

/// Training or inference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Workload {
    /// A training or fine-tuning run.
    Training(Training),
    /// Serving: prefill and decode.
    Inference(Inference),
}

/// What kind of training.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum TrainingKind {
    /// Pre-training from scratch: every weight trains.
    PreTraining,
    /// Full fine-tuning: every weight trains.
    FullFineTune,
    /// LoRA: the base is frozen, low-rank adapters train.
    Lora(LoraSpec),
    /// QLoRA: LoRA over a base whose linear layers are stored in NF4 with
    /// double quantization (Dettmers et al. 2023).
    Qlora(LoraSpec),
}

/// Which linear layers get adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum LoraTargets {
    /// Query and value projections (the LoRA paper's choice).
    QueryValue,
    /// All four attention projections.
    Attention,
    /// Every linear layer in the blocks (QLoRA's choice).
    AllLinear,
}

/// A LoRA configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LoraSpec {
    /// Adapter rank r.
    pub rank: u32,
    /// Adapted layers.
    pub targets: LoraTargets,
    /// Storage of adapter weights and their gradients (PEFT keeps them in
    /// FP32 by default).
    #[serde(default = "fp32")]
    pub adapter_precision: Precision,
}

fn fp32() -> Precision {
    Precision::Fp32
}

/// A training workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Training {
    /// Pre-training, fine-tuning, LoRA, QLoRA.
    pub kind: TrainingKind,
    /// Sequence length in tokens.
    pub seq_len: u32,
    /// Global batch in sequences per optimizer step.
    pub global_batch: u32,
    /// Tokens to train on (for time and cost; 0 if not given).
    #[serde(default)]
    pub tokens: f64,
}

/// Which positions produce logits during prefill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum LogitsScope {
    /// Only the last position of each sequence (vLLM, TensorRT-LLM).
    #[default]
    LastToken,
    /// Every position (a plain `model(input_ids)` forward).
    AllTokens,
}

/// A serving workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Inference {
    /// Prompt length in tokens.
    pub prompt_tokens: u32,
    /// Generated tokens per request.
    pub output_tokens: u32,
    /// Concurrent sequences per model replica.
    pub batch: u32,
    /// Logits scope at prefill.
    #[serde(default)]
    pub logits: LogitsScope,
    /// A stream of requests to serve (arrivals, length distributions,
    /// SLOs); `None` serves one static batch of `batch` sequences. With a
    /// stream, the report's `serving` section simulates it under
    /// `levers.engine`.
    #[serde(default)]
    pub stream: Option<crate::request::RequestStream>,
}

/// Activation checkpointing (recomputation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Checkpointing {
    /// Store every activation.
    #[default]
    None,
    /// Recompute the attention core (Korthikanti et al. 2022 §4.2.2).
    Selective,
    /// Store only each layer's input; recompute the layer in backward.
    Full,
    /// Store the input of every group of `group` layers, recompute the
    /// group (Megatron `--recompute-method uniform`).
    Uniform {
        /// Layers per group.
        group: u32,
    },
    /// Recompute the first `layers` layers of each stage, store the rest
    /// (Megatron `--recompute-method block`).
    Block {
        /// Recomputed layers per stage.
        layers: u32,
    },
}

/// The attention kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum AttentionKernel {
    /// FlashAttention / memory-efficient SDPA: no s×s score matrix is kept.
    #[default]
    Flash,
    /// Materialised scores and softmax (the Korthikanti et al. baseline).
    Eager,
    /// FlashAttention written in Triton (flash-attn 1.x's
    /// `flash_attn_triton.py`, the kernel llm-foundry runs as `attn_impl:
    /// triton`): the same memory as [`AttentionKernel::Flash`], slower
    /// (`catalog::TRITON_FLASH_SLOWDOWN`).
    FlashTriton,
}

impl AttentionKernel {
    /// Whether the kernel keeps the s×s score matrix (eager attention);
    /// every fused kernel recomputes it instead.
    pub fn keeps_scores(self) -> bool {
        self == AttentionKernel::Eager
    }

    /// Every kernel, in display order.
    pub const ALL: [AttentionKernel; 3] = [
        AttentionKernel::Flash,
        AttentionKernel::Eager,
        AttentionKernel::FlashTriton,
    ];

    /// A fused kernel's forward and backward time against
    /// FlashAttention-2's: (1, 1) for FlashAttention itself,
    /// `catalog::TRITON_FLASH_SLOWDOWN` for the Triton kernel. Eager
    /// attention is not a fused kernel and is timed as GEMMs and score
    /// passes instead; it reads (1, 1) here.
    pub fn flash_slowdown(self) -> (f64, f64) {
        match self {
            AttentionKernel::FlashTriton => crate::catalog::TRITON_FLASH_SLOWDOWN,
            AttentionKernel::Flash | AttentionKernel::Eager => (1.0, 1.0),
        }
    }
}

crate::lang::named!(AttentionKernel {
    AttentionKernel::Flash => "flash", "FlashAttention", "FlashAttention";
    AttentionKernel::Eager => "eager", "Eager (scores kept)", "朴素实现（保留分数矩阵）";
    AttentionKernel::FlashTriton => "flash_triton", "FlashAttention (Triton)", "FlashAttention（Triton 版）";
});

/// Data-parallel sharding of model states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Sharding {
    /// Plain data parallelism: every rank holds everything.
    #[default]
    None,
    /// ZeRO-1: optimizer states and master weights sharded (also Megatron's
    /// distributed optimizer).
    Zero1,
    /// ZeRO-2: plus gradients.
    Zero2,
    /// ZeRO-3: plus parameters, gathered layer by layer.
    Zero3,
    /// PyTorch FSDP FULL_SHARD (same states as ZeRO-3).
    FsdpFullShard,
    /// PyTorch FSDP SHARD_GRAD_OP: parameters stay gathered from forward to
    /// backward; gradients are reduce-scattered in every micro-batch's
    /// backward and kept as shards.
    FsdpShardGradOp,
    /// FSDP SHARD_GRAD_OP with gradient accumulation under `no_sync`:
    /// whole gradients accumulate locally, parameters stay gathered across
    /// the step's micro-batches, one reduce-scatter a step (the choice that
    /// matches the Llama 3 405B run's measured step time).
    FsdpShardGradOpNoSync,
}

/// Pipeline schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum PipelineSchedule {
    /// 1F1B (PipeDream-Flush): at most p micro-batches in flight.
    #[default]
    OneFOneB,
    /// Interleaved 1F1B with `chunks` model chunks per device.
    Interleaved {
        /// Model chunks (virtual stages) per device.
        chunks: u32,
    },
    /// GPipe: all micro-batches in flight.
    Gpipe,
    /// DualPipeV: DeepSeek's bidirectional DualPipe (DeepSeek-V3 technical
    /// report, arXiv:2412.19437 §3.2.1) cut in half by Sea AI Lab, as
    /// deepseek-ai/DualPipe (`dualpipe/dualpipev.py`, README of 2025-03-06)
    /// and PyTorch's `ScheduleDualPipeV` (`torch.distributed.pipelining`,
    /// after 2.8) run it: each rank holds two model chunks in a V (rank 0
    /// the first and the last), backward split into input and weight
    /// gradients, the weight gradients filling the bubble; at least two
    /// micro-batches per rank.
    DualPipeV,
}

impl PipelineSchedule {
    /// Model chunks each pipeline rank holds: the interleaving's, two in a
    /// V, else one (always one without pipeline stages).
    pub fn chunks_per_rank(self, pp: u32) -> u32 {
        match self {
            _ if pp <= 1 => 1,
            PipelineSchedule::Interleaved { chunks } => chunks,
            PipelineSchedule::DualPipeV => 2,
            PipelineSchedule::OneFOneB | PipelineSchedule::Gpipe => 1,
        }
    }

    /// Whether the first pipeline rank holds both ends of the model (the
    /// embedding and the output head): a V-shaped schedule's first rank
    /// runs the first chunk and the last.
    pub fn ends_on_first_rank(self) -> bool {
        matches!(self, PipelineSchedule::DualPipeV)
    }
}

/// Megatron-style sequence parallelism alongside TP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum SequenceParallel {
    /// LayerNorm/dropout activations replicated across TP ranks.
    #[default]
    Off,
    /// LayerNorm/dropout activations split along the sequence (Korthikanti §4.2.2).
    On,
}

/// Parallel degrees and batch split.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Parallelism {
    /// Tensor-parallel degree.
    #[serde(default = "one")]
    pub tp: u32,
    /// Pipeline-parallel degree.
    #[serde(default = "one")]
    pub pp: u32,
    /// Data-parallel degree (for inference: model replicas).
    #[serde(default = "one")]
    pub dp: u32,
    /// Context-parallel degree (sequence split across ranks).
    #[serde(default = "one")]
    pub cp: u32,
    /// Expert-parallel degree (MoE experts split across data-parallel ranks).
    #[serde(default = "one")]
    pub ep: u32,
    /// Sequence parallelism within the TP group.
    #[serde(default)]
    pub sequence_parallel: SequenceParallel,
    /// Pipeline schedule.
    #[serde(default)]
    pub schedule: PipelineSchedule,
    /// Sequences per micro-batch (training).
    #[serde(default = "one")]
    pub micro_batch: u32,
    /// Under the interleaved schedule, micro-batches each model chunk runs
    /// back to back (Megatron-Core `--microbatch-group-size-per-virtual-
    /// pipeline-stage`); 0 (the default) is PP, Megatron's default. With
    /// a group other than PP the micro-batch count need not divide by PP
    /// (`resolve` checks Megatron's rule).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub microbatch_group: u32,
}

fn one() -> u32 {
    1
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl Default for Parallelism {
    fn default() -> Self {
        Self {
            tp: 1,
            pp: 1,
            dp: 1,
            cp: 1,
            ep: 1,
            sequence_parallel: SequenceParallel::Off,
            schedule: PipelineSchedule::OneFOneB,
            micro_batch: 1,
            microbatch_group: 0,
        }
    }
}

/// Number formats of each kind of tensor.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Precisions {
    /// Working weights (what the GEMMs read). Quantized formats apply to the
    /// linear layers of the blocks; embeddings and norms stay in 16 bits.
    #[serde(default = "bf16")]
    pub weights: Precision,
    /// Master copy the optimizer updates; `None` updates the weights in place.
    #[serde(default = "some_fp32")]
    pub master: Option<Precision>,
    /// Gradients as accumulated (Megatron keeps FP32 main grads).
    #[serde(default = "fp32")]
    pub gradients: Precision,
    /// Optimizer moments.
    #[serde(default = "fp32")]
    pub optimizer: Precision,
    /// Activations saved for backward.
    #[serde(default = "bf16")]
    pub activations: Precision,
    /// KV cache.
    #[serde(default = "bf16")]
    pub kv_cache: Precision,
    /// GEMM compute format; FP8 adds quantized weight copies (Transformer Engine).
    #[serde(default = "bf16")]
    pub compute: Precision,
    /// Routed experts' weights when they are stored apart from the other
    /// linear layers: gpt-oss ships its MoE weights in MXFP4 and the rest
    /// in BF16 (OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card",
    /// arXiv:2508.10925, §2: "we quantize the MoE weights to MXFP4"), and
    /// NVIDIA's FP4 DeepSeek-R1 quantizes only the experts' linear
    /// layers. `None`: the experts are stored as `weights`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experts: Option<Precision>,
}

impl Precisions {
    /// The routed experts' stored format: their own if set, else the
    /// weights'.
    #[inline]
    pub fn expert_weights(&self) -> Precision {
        self.experts.unwrap_or(self.weights)
    }

    /// The same formats with every BF16 one in FP16, as a team runs them
    /// on a part with no BF16 units (vLLM's `--dtype half` casts the
    /// weights, activations and KV cache alike).
    pub fn in_fp16(self) -> Self {
        let half = |p: Precision| match p {
            Precision::Bf16 => Precision::Fp16,
            other => other,
        };
        Self {
            weights: half(self.weights),
            master: self.master.map(half),
            gradients: half(self.gradients),
            optimizer: half(self.optimizer),
            activations: half(self.activations),
            kv_cache: half(self.kv_cache),
            compute: half(self.compute),
            experts: self.experts.map(half),
        }
    }
}

fn bf16() -> Precision {
    Precision::Bf16
}

fn some_fp32() -> Option<Precision> {
    Some(Precision::Fp32)
}

impl Default for Precisions {
    /// Megatron-LM mixed precision: BF16 weights and activations, FP32 main
    /// gradients, FP32 master weights and Adam moments (18 bytes/parameter,
    /// `theoretical_memory_usage.py`).
    fn default() -> Self {
        Self {
            weights: Precision::Bf16,
            master: Some(Precision::Fp32),
            gradients: Precision::Fp32,
            optimizer: Precision::Fp32,
            activations: Precision::Bf16,
            kv_cache: Precision::Bf16,
            compute: Precision::Bf16,
            experts: None,
        }
    }
}

/// Optimizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Optimizer {
    /// Adam/AdamW: two moments per parameter.
    #[default]
    AdamW,
    /// bitsandbytes 8-bit Adam: two INT8 moments in blocks of 2048.
    Adam8bit,
    /// Adafactor: factored second moment (rows + columns per matrix).
    Adafactor {
        /// Whether a first moment is kept (β1 > 0).
        momentum: Momentum,
    },
    /// SGD.
    Sgd {
        /// Whether a momentum buffer is kept.
        momentum: Momentum,
    },
}

/// Whether an optimizer keeps a first-moment buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Momentum {
    /// A momentum buffer per parameter.
    On,
    /// None.
    Off,
}

/// Where one kind of state lives, and how much of it moves there.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OffloadTarget {
    /// The tier the state moves to.
    pub tier: Tier,
    /// Fraction moved, 0..=1 (the rest stays in HBM).
    #[serde(default = "full_fraction")]
    pub fraction: f64,
}

fn full_fraction() -> f64 {
    1.0
}

/// Offload levers; `None` keeps a state in HBM.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Offload {
    /// Optimizer moments and master weights (ZeRO-Offload).
    #[serde(default)]
    pub optimizer: Option<OffloadTarget>,
    /// Working weights (ZeRO-Infinity parameter offload); a two-layer
    /// staging buffer stays in HBM.
    #[serde(default)]
    pub parameters: Option<OffloadTarget>,
    /// Gradients.
    #[serde(default)]
    pub gradients: Option<OffloadTarget>,
    /// Saved activations / checkpoints.
    #[serde(default)]
    pub activations: Option<OffloadTarget>,
    /// KV cache.
    #[serde(default)]
    pub kv_cache: Option<OffloadTarget>,
    /// Routed expert weights of an MoE model while serving, apart from the
    /// dense weights (`parameters`): the experts a decode step touches are
    /// copied to HBM for it, the dense layers stay put (on-demand expert
    /// loading: Eliseev & Mazur, arXiv 2312.17238; Madan et al., arXiv
    /// 2603.19289). Engines that run the experts on the CPU instead
    /// (llama.cpp `--n-cpu-moe`, KTransformers) are not modelled, nor an
    /// LRU cache of experts kept in HBM across steps.
    /// `None` lets the experts follow `parameters`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experts: Option<OffloadTarget>,
}

impl Offload {
    /// Every state's target, in field order.
    pub fn targets(&self) -> [Option<OffloadTarget>; 6] {
        [
            self.optimizer,
            self.parameters,
            self.gradients,
            self.activations,
            self.kv_cache,
            self.experts,
        ]
    }
}

/// How the KV cache is allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum KvCacheLayout {
    /// PagedAttention blocks of `block_tokens` tokens; waste under one block
    /// per sequence (Kwon et al. 2023).
    Paged {
        /// Tokens per block (vLLM default 16).
        block_tokens: u32,
    },
    /// One contiguous buffer per sequence reserved for `reserve_tokens`
    /// (0 = prompt + output).
    Contiguous {
        /// Tokens reserved per sequence.
        reserve_tokens: u32,
    },
}

impl Default for KvCacheLayout {
    fn default() -> Self {
        KvCacheLayout::Paged { block_tokens: 16 }
    }
}

/// Pruning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Pruning {
    /// Dense.
    #[default]
    None,
    /// 2:4 structured sparsity of the linear layers, stored compressed:
    /// half the values plus 2 bits of index per kept value.
    Sparse24,
    /// A smaller pruned shape (Minitron-style width/depth pruning); unset
    /// fields keep the original value.
    Shape(PrunedShape),
}

/// Dimensions a pruned model keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PrunedShape {
    /// Layers kept.
    #[serde(default)]
    pub layers: Option<u32>,
    /// Hidden width kept.
    #[serde(default)]
    pub hidden: Option<u32>,
    /// Attention heads kept.
    #[serde(default)]
    pub heads: Option<u32>,
    /// KV heads kept.
    #[serde(default)]
    pub kv_heads: Option<u32>,
    /// FFN width kept.
    #[serde(default)]
    pub ffn: Option<u32>,
}

/// Whether a kind of communication runs concurrently with compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Overlap {
    /// Issued on a side stream while compute proceeds.
    On,
    /// Compute waits for it.
    Off,
}

/// Communication overlap settings.
///
/// Defaults follow current frameworks: DDP, FSDP and DeepSpeed bucket the
/// gradient reduction behind backward and prefetch parameter gathers
/// (Megatron-LM `--overlap-grad-reduce`/`--overlap-param-gather`); TP
/// collectives sit on the critical path unless Transformer Engine's
/// userbuffers overlap is on (Megatron-LM `--tp-comm-overlap`); offload
/// copies are prefetched (ZeRO-Offload, ZeRO-Infinity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CommOverlap {
    /// Data-parallel gradient reduction and ZeRO-3/FSDP parameter gathers.
    #[serde(default = "overlap_on")]
    pub data_parallel: Overlap,
    /// Tensor/sequence-parallel collectives.
    #[serde(default = "overlap_off")]
    pub tensor_parallel: Overlap,
    /// Copies to and from slower tiers.
    #[serde(default = "overlap_on")]
    pub offload: Overlap,
}

fn overlap_on() -> Overlap {
    Overlap::On
}
fn overlap_off() -> Overlap {
    Overlap::Off
}

impl Default for CommOverlap {
    fn default() -> Self {
        Self {
            data_parallel: Overlap::On,
            tensor_parallel: Overlap::Off,
            offload: Overlap::On,
        }
    }
}

/// How bytes are assigned to memory tiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Placement {
    /// As the offload levers say.
    #[default]
    Manual,
    /// By heat: when HBM overflows, the bytes touched least per step per
    /// byte move to the next tier with room, and the report shows the
    /// transfers this costs (a model of a tiering engine's access tracking
    /// → heat → migration loop). Offload levers are ignored.
    ByHeat,
}

/// All software levers of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Levers {
    /// Number formats.
    #[serde(default)]
    pub precision: Precisions,
    /// Optimizer.
    #[serde(default)]
    pub optimizer: Optimizer,
    /// Activation checkpointing.
    #[serde(default)]
    pub checkpointing: Checkpointing,
    /// Attention kernel.
    #[serde(default)]
    pub attention: AttentionKernel,
    /// ZeRO / FSDP sharding.
    #[serde(default)]
    pub sharding: Sharding,
    /// Size of the sharding group, if smaller than the data-parallel group
    /// (hybrid sharding, HSDP / ZeRO++ hpZ); must divide it.
    #[serde(default)]
    pub shard_group: Option<u32>,
    /// DeepSpeed ZeRO-3's fetch and reduction knobs (prefetch bucket, max
    /// live parameters, persistence threshold, reduce bucket); read with
    /// `Sharding::Zero3` only. Left out of links while at DeepSpeed's
    /// defaults.
    #[serde(default, skip_serializing_if = "Zero3Fetch::is_default")]
    pub zero3: Zero3Fetch,
    /// Parallel degrees and micro-batch.
    #[serde(default)]
    pub parallel: Parallelism,
    /// Mixture-of-experts levers: expert load balance, all-to-all overlap,
    /// the experts' own TP degree.
    #[serde(default, skip_serializing_if = "crate::moe::MoeLevers::is_default")]
    pub moe: crate::moe::MoeLevers,
    /// Offload to slower tiers.
    #[serde(default)]
    pub offload: Offload,
    /// KV cache allocation.
    #[serde(default)]
    pub kv_cache: KvCacheLayout,
    /// Largest number of tokens in one prefill pass (chunked prefill; vLLM
    /// `max_num_batched_tokens`); `None` prefills the whole batch at once.
    #[serde(default)]
    pub prefill_chunk: Option<u32>,
    /// Pruning.
    #[serde(default)]
    pub pruning: Pruning,
    /// Which communication the framework overlaps with compute.
    #[serde(default)]
    pub overlap: CommOverlap,
    /// How bytes are placed in tiers: as the offload levers say, or by heat.
    #[serde(default)]
    pub placement: Placement,
    /// Per-process cap on device memory as a fraction of it, 0..=1
    /// (`torch.cuda.set_per_process_memory_fraction`, vLLM
    /// `gpu_memory_utilization`).
    #[serde(default)]
    pub memory_cap: Option<f64>,
    /// The serving engine: static batches (the default) or an engine's
    /// continuous batching with its defaults (token budget, KV pool rule,
    /// block size).
    #[serde(default)]
    pub engine: crate::engine::Engine,
    /// Speculative decoding (a draft model or EAGLE/MTP heads, draft
    /// tokens per step, acceptance rate); `None` decodes one token per
    /// step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speculative: Option<crate::engine::Speculation>,
    /// Engine settings over the engine's defaults: running-request limit,
    /// prefix caching.
    #[serde(
        default,
        skip_serializing_if = "crate::engine::EngineKnobs::is_default"
    )]
    pub engine_knobs: crate::engine::EngineKnobs,
    /// Disaggregated prefill and decode: separate GPU pools, each with its
    /// own parallelism, and the link that carries the KV cache between
    /// them; `None` serves both phases on the same GPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disaggregation: Option<crate::disagg::Disaggregation>,
    /// A KV store below HBM that keeps computed blocks for reuse
    /// (LMCache-style); `None` keeps the prefix cache in HBM alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_tier: Option<crate::engine::KvTier>,
    /// The framework, loss kernel and optimizer implementation, as memory
    /// sees them (issue 12).
    #[serde(default)]
    pub memory: MemorySoftware,
    /// The training framework; `None` takes the mainstream one for the
    /// workload ([`TrainingKind::mainstream_stack`]). Ignored for serving.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_stack: Option<TrainingStack>,
}

/// Runtime overheads outside the model's tensors, each overridable.
///
/// Defaults and where they come from:
/// - `cuda_context`: by default the measured context of the CUDA version
///   and module loading below (`catalog::cuda_context`: 400 MiB with lazy
///   loading on CUDA 11.7–12, 769 MiB on CUDA 13 once a run's kernels are
///   loaded (426 MiB bare), 636 MiB eager, >1000 MB
///   before 11.7); a number replaces the table (plans written before issue
///   12 carry 0.5 GiB here and keep it).
/// - `workspace`: by default the library workspaces of `memory::
///   workspaces`: PyTorch's cuBLAS and cuBLASLt workspaces of the GPU's
///   architecture (`catalog::blas_workspace`: 9.125 MiB, 33 MiB on Hopper)
///   for each thread that runs GEMMs (training's backward runs on the
///   autograd engine's device thread, a second cuBLAS handle), and
///   Transformer Engine's own under Megatron-Core (`catalog::
///   te_workspace`); all come from the caching allocator, so they count as
///   allocated memory. A number replaces them all (plans written before
///   carry the earlier 64 MiB guess and keep it).
/// - `cublas_workspace`: what `CUBLAS_WORKSPACE_CONFIG` gives each cuBLAS
///   handle (`:4096:8` is 32 MiB), in place of PyTorch's default for the
///   architecture; the cuBLASLt workspace stays beside it.
/// - `nccl_per_group`: by default the measured NCCL buffers of each process
///   group of size > 1 by what it runs (`catalog::nccl_memory`: 544 MB for
///   a 2-rank collective group, 688 MB beyond, all-to-all per peer); a
///   number replaces the table with one figure per group (plans written
///   before issue 12 carry 256 MiB here and keep it).
/// - `fragmentation`: by default none; the caching-allocator model
///   (`memory/allocator.rs`: 512 B rounding, 2 and 20 MiB segments,
///   splitting, `expandable_segments`) gives the reserve. A fraction here,
///   0..=1, replaces that model with a flat share of transient allocations
///   (the pre-issue-12 model, whose default was 0.10).
/// - `allocator_cache`: by default `memory::allocator::CACHE_PER_LAZY_STATE`,
///   the share of the states a training stack creates inside the first
///   step (gradients, optimizer states) that PyTorch's caching allocator
///   still holds beyond the tensors at the peak, without
///   `expandable_segments` (fitted on the H200 fixtures); a fraction here,
///   0..=1, replaces it (0: none). Unused when `fragmentation` is set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Overheads {
    /// CUDA context and loaded kernels; `None` takes the measured figure of
    /// `cuda` and `module_loading`.
    #[serde(default)]
    pub cuda_context: Option<Bytes>,
    /// Library workspaces in total (cuBLAS, cuBLASLt, Transformer
    /// Engine's); `None` takes `memory::workspaces`: PyTorch's per cuBLAS
    /// handle ([`Overheads::blas_buffers`]) for each thread that runs
    /// GEMMs, and Transformer Engine's under Megatron-Core; a size
    /// replaces them all. Left out of the JSON when
    /// `None`: a version-2 link cannot write a `null` over the 64 MiB its
    /// frozen reference holds, and a missing key reads as `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<Bytes>,
    /// `CUBLAS_WORKSPACE_CONFIG`'s workspace per cuBLAS handle; `None`
    /// takes PyTorch's default for the GPU's architecture. Left out of the
    /// JSON when `None`, so links written before it read the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cublas_workspace: Option<Bytes>,
    /// NCCL buffers per process group of size > 1; `None` takes the
    /// measured figure of each group's pattern and size.
    #[serde(default)]
    pub nccl_per_group: Option<Bytes>,
    /// A flat allocator slack as a fraction of transient allocations,
    /// 0..=1, instead of the caching-allocator model; `None` (the default)
    /// uses the model.
    #[serde(default)]
    pub fragmentation: Option<f64>,
    /// The allocator's reserve at a training step's peak, as a share of
    /// the states created inside the first step, 0..=1; `None` takes the
    /// fitted default. Left out of the JSON when `None`, so links written before
    /// it read the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocator_cache: Option<f64>,
    /// The CUDA version (default 11.7–12.x).
    #[serde(default)]
    pub cuda: CudaVersion,
    /// `CUDA_MODULE_LOADING` (default lazy).
    #[serde(default)]
    pub module_loading: ModuleLoading,
    /// `PYTORCH_CUDA_ALLOC_CONF` `expandable_segments` (default off).
    #[serde(default)]
    pub expandable_segments: ExpandableSegments,
}

impl Overheads {
    /// PyTorch's cuBLAS and cuBLASLt workspaces for one cuBLAS handle on a
    /// GPU of `arch`, two tensors allocated apart: `cublas_workspace` with
    /// the cuBLASLt one beside it (on CUDA no larger than the cuBLAS one:
    /// `getCUDABlasLtWorkspaceSize` caps it there), else the
    /// architecture's defaults (`catalog::cublas_default`,
    /// `catalog::blaslt_workspace`).
    pub fn blas_buffers(&self, arch: crate::hardware::GpuArch) -> (Bytes, Bytes) {
        use crate::hardware::GpuArch;
        let lt = crate::catalog::blaslt_workspace(arch);
        match self.cublas_workspace {
            Some(b) => {
                let hip = matches!(arch, GpuArch::Cdna2 | GpuArch::Cdna3 | GpuArch::Cdna4);
                (b, if hip { lt } else { lt.min(b) })
            }
            None => (crate::catalog::cublas_default(arch), lt),
        }
    }

    /// The CUDA context in force: the override, else the table's row.
    pub fn context(&self) -> Bytes {
        self.cuda_context
            .unwrap_or_else(|| crate::catalog::cuda_context(self.cuda, self.module_loading).bytes)
    }
}

/// Parses any input document from JSON; the error names the field that
/// failed, as [`Plan::from_json`] does.
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, PlanParseError> {
    let de = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        PlanParseError {
            path: if path == "." { String::new() } else { path },
            message: with_suggestion(&inner.to_string()),
        }
    })
}

/// Adds "did you mean `levers`?" to serde's unknown-field message
/// (`unknown field `levrs`, expected one of `name`, `levers`, …`) when one
/// known key is close to the misspelt one: Jaro–Winkler similarity ≥ 0.8,
/// the measure `clap` uses for its own suggestions. Other messages pass
/// through unchanged.
pub(crate) fn with_suggestion(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_string();
    };
    let Some((unknown, rest)) = rest.split_once('`') else {
        return message.to_string();
    };
    let known = rest.split('`').skip(1).step_by(2);
    let best = known
        .map(|k| (strsim::jaro_winkler(unknown, k), k))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((_, k)) => format!("{message}; did you mean `{k}`?"),
        None => message.to_string(),
    }
}

/// Refuses an input made by a newer memwall: its fields may mean things
/// this one does not know.
pub(crate) fn check_version(version: u32) -> Result<(), PlanParseError> {
    if version > SCHEMA_VERSION {
        return Err(PlanParseError {
            path: "version".into(),
            message: format!(
                "made by a newer memwall (schema version {version}; this one reads up to {SCHEMA_VERSION})"
            ),
        });
    }
    Ok(())
}

impl Plan {
    /// Parses a plan from JSON; the error names the field that failed
    /// (`levers.parallel.tp: invalid type: …`), or says the plan was made
    /// by a newer memwall.
    pub fn from_json(json: &str) -> Result<Plan, PlanParseError> {
        let plan: Plan = parse_json(json)?;
        check_version(plan.version)?;
        Ok(plan)
    }

    /// The plan as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Sets the data-parallel degree so that TP × PP × DP × CP uses every
    /// GPU of `hardware.gpus`, when the other degrees divide it; otherwise
    /// leaves it, and `evaluate` names the product that does not match.
    /// A disaggregated plan sizes its pools itself and is left as it is.
    /// Returns whether DP changed. (The editor calls it after a change of
    /// TP, PP, CP or the GPU count, so DP follows them.)
    pub fn refit_data_parallel(&mut self) -> bool {
        if self.levers.disaggregation.is_some() {
            return false;
        }
        let p = &mut self.levers.parallel;
        let model = p.tp.saturating_mul(p.pp).saturating_mul(p.cp);
        let gpus = self.hardware.gpus;
        if model == 0 || gpus == 0 || gpus % model != 0 || p.dp == gpus / model {
            return false;
        }
        p.dp = gpus / model;
        true
    }
}

impl TrainingKind {
    /// The stacks a plan of this kind that names none may be evaluated on,
    /// in order of preference (`capability::TrainingKind::stack_for` takes
    /// the first that runs the plan's levers). First the mainstream one,
    /// the framework most runs of this kind use: pre-training and full
    /// fine-tuning across many nodes run mostly on Megatron-Core and what
    /// is built on it (NeMo, Megatron-Bridge, Megatron-DeepSpeed); adapter
    /// fine-tuning runs mostly on the Hugging Face Trainer with PEFT (the
    /// LoRA and QLoRA papers' code, TRL). Then the stack whose defaults are
    /// closest for a layout the mainstream one cannot run (torchtitan's
    /// compiled variant is never chosen for the user). docs/decisions.md
    /// gives the reasons.
    pub fn stacks_by_preference(&self) -> [TrainingStack; 5] {
        match self {
            TrainingKind::PreTraining | TrainingKind::FullFineTune => [
                TrainingStack::MegatronCore,
                TrainingStack::Torchtitan,
                TrainingStack::MegatronDeepSpeed,
                TrainingStack::DeepSpeed,
                TrainingStack::HfTrainer,
            ],
            TrainingKind::Lora(_) | TrainingKind::Qlora(_) => [
                TrainingStack::HfTrainer,
                TrainingStack::DeepSpeed,
                TrainingStack::Torchtitan,
                TrainingStack::MegatronCore,
                TrainingStack::MegatronDeepSpeed,
            ],
        }
    }

    /// The framework most runs of this kind use: the first by preference
    /// ([`TrainingKind::stacks_by_preference`]).
    pub fn mainstream_stack(&self) -> TrainingStack {
        self.stacks_by_preference()[0]
    }
}

/// A plan that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanParseError {
    /// Dotted path of the failing field (empty at the top level).
    pub path: String,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for PlanParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for PlanParseError {}

/// DeepSpeed ZeRO-3's fetch and reduction knobs (`zero_optimization` in
/// the DeepSpeed config). Defaults are DeepSpeed's own
/// (`DeepSpeedZeroConfig`, deepspeed/runtime/zero/config.py). Counts are
/// parameter elements. PyTorch FSDP ignores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Zero3Fetch {
    /// `stage3_prefetch_bucket_size`: elements fetched ahead of use
    /// (default 5·10⁷; 0 turns prefetching off).
    #[serde(default = "Zero3Fetch::default_prefetch")]
    pub prefetch_bucket: u64,
    /// `stage3_max_live_parameters`: elements resident before prefetching
    /// stops (default 10⁹).
    #[serde(default = "Zero3Fetch::default_max_live")]
    pub max_live: u64,
    /// `stage3_param_persistence_threshold`: tensors with fewer elements
    /// stay whole on every rank and are never gathered (default 10⁵).
    #[serde(default = "Zero3Fetch::default_persistence")]
    pub persistence_threshold: u64,
    /// `reduce_bucket_size`: elements per gradient reduce-scatter; the
    /// contiguous bucket is allocated at this size in the 16-bit parameter
    /// dtype (`__ipg_bucket_flat_buffer`, deepspeed/runtime/zero/stage3.py;
    /// default 5·10⁸).
    #[serde(default = "Zero3Fetch::default_reduce_bucket")]
    pub reduce_bucket: u64,
}

impl Zero3Fetch {
    /// The largest value any knob takes (10¹³ elements, far past any
    /// model): keeps the arithmetic finite.
    pub const MAX: u64 = 10_000_000_000_000;

    fn default_prefetch() -> u64 {
        50_000_000
    }
    fn default_max_live() -> u64 {
        1_000_000_000
    }
    fn default_persistence() -> u64 {
        100_000
    }
    fn default_reduce_bucket() -> u64 {
        500_000_000
    }

    /// True when every knob is DeepSpeed's default (links leave it out).
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// Each knob with its field name, for validation.
    pub fn fields(&self) -> [(&'static str, u64); 4] {
        [
            ("levers.zero3.prefetch_bucket", self.prefetch_bucket),
            ("levers.zero3.max_live", self.max_live),
            (
                "levers.zero3.persistence_threshold",
                self.persistence_threshold,
            ),
            ("levers.zero3.reduce_bucket", self.reduce_bucket),
        ]
    }
}

impl Default for Zero3Fetch {
    fn default() -> Self {
        Self {
            prefetch_bucket: Self::default_prefetch(),
            max_live: Self::default_max_live(),
            persistence_threshold: Self::default_persistence(),
            reduce_bucket: Self::default_reduce_bucket(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::examples::{example_disagg_plan, example_plan};

    #[test]
    fn data_parallel_follows_the_other_degrees_and_the_gpu_count() {
        let mut p = example_plan();
        p.hardware.gpus = 64;
        p.levers.parallel.tp = 4;
        p.levers.parallel.pp = 2;
        p.levers.parallel.cp = 1;
        p.levers.parallel.dp = 1;
        assert!(p.refit_data_parallel());
        assert_eq!(p.levers.parallel.dp, 8);
        assert!(!p.refit_data_parallel(), "already right");
        // TP 3 does not divide 64 GPUs: DP stays, evaluate names the product.
        p.levers.parallel.tp = 3;
        assert!(!p.refit_data_parallel());
        assert_eq!(p.levers.parallel.dp, 8);
        p.levers.parallel.tp = 4;
        p.hardware.gpus = 128;
        assert!(p.refit_data_parallel());
        assert_eq!(p.levers.parallel.dp, 16);
        p.levers.parallel.tp = 0;
        assert!(
            !p.refit_data_parallel(),
            "a zero degree is left to evaluate"
        );

        let mut d = example_disagg_plan();
        let before = d.levers.parallel;
        d.hardware.gpus *= 2;
        assert!(!d.refit_data_parallel());
        assert_eq!(d.levers.parallel, before);
    }
}
