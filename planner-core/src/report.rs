//! The output: one serializable [`Report`] per plan.

use crate::catalog::Provenance;
pub use crate::diagnostics::DeviceRole;
use crate::diagnostics::Diagnostic;
use crate::effort::{LeverEffort, MigrationClass};
use crate::plan::Tier;
use crate::units::{ByteRate, Bytes, Flops, GpuHours, Seconds, Usd, Watts};
use serde::{Deserialize, Serialize};

/// What a memory item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// Working weights (what the GEMMs read).
    Weights,
    /// FP8 quantized weight copies (Transformer Engine).
    Fp8WeightCopies,
    /// 16-bit casts of FP32 weights that autocast caches through the
    /// forward pass (freed when the autocast region exits).
    AutocastCache,
    /// Master weights the optimizer updates.
    MasterWeights,
    /// Gradients.
    Gradients,
    /// Optimizer moments.
    OptimizerStates,
    /// Full-size temporaries of the optimizer step (multi-tensor Adam's
    /// √v list) beyond the activation memory the step reuses.
    OptimizerTemporaries,
    /// LoRA adapters: weights, gradients and optimizer states.
    Adapters,
    /// Activations saved for backward (or layer checkpoints).
    Activations,
    /// Token ids and the embedding-dropout mask of the in-flight
    /// micro-batches (first stage; Korthikanti et al. §4.3).
    EmbeddingActivations,
    /// How far backward rises above the kept activations while a
    /// recomputed (or selectively recomputed) segment runs.
    RecomputeWorkingSet,
    /// Gradient tensors in flight while the largest layer runs its
    /// backward, beyond the loss peak that precedes it.
    BackwardWorkingSet,
    /// Output-layer input and the loss peak over the vocabulary (logits,
    /// FP32 upcast, softmax and its gradient, as the loss kernel keeps them).
    Logits,
    /// ZeRO-3/FSDP gathered parameters and unsharded gradients of the
    /// current and prefetched layer; parameter-offload staging buffers.
    GatherBuffers,
    /// KV cache holding tokens.
    KvCache,
    /// KV cache allocated but holding no token (block or reservation slack).
    KvCacheWaste,
    /// Prefill working set (one layer's transient tensors and logits).
    PrefillActivations,
    /// CUDA context and loaded kernels.
    CudaContext,
    /// cuBLAS/cuBLASLt and Transformer Engine workspaces.
    Workspace,
    /// NCCL communicator buffers.
    NcclBuffers,
    /// A flat allocator slack (`overheads.fragmentation`), when a plan
    /// sets one instead of the allocator model.
    Fragmentation,
    /// What PyTorch's caching allocator reserves beyond the tensors:
    /// 512 B rounding, 2 and 20 MiB segments and their tails.
    AllocatorRounding,
    /// Segments the caching allocator cannot give back at a training
    /// step's peak because a state created inside the first step pinned
    /// them: a share of those states
    /// (`memory::allocator::CACHE_PER_LAZY_STATE`).
    AllocatorCache,
}

/// Whether PyTorch counts an item in `memory_allocated`, only in
/// `memory_reserved`, or only in what the driver sees as used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Accounting {
    /// A tensor: counted by `torch.cuda.max_memory_allocated`.
    Tensor,
    /// Reserved by the caching allocator but not allocated.
    Allocator,
    /// Outside the allocator (the CUDA context, NCCL's buffers).
    Runtime,
}

impl ItemKind {
    /// Every kind, in declaration order (`ALL[k.index()] == k`).
    pub const ALL: [ItemKind; 23] = [
        ItemKind::Weights,
        ItemKind::Fp8WeightCopies,
        ItemKind::AutocastCache,
        ItemKind::MasterWeights,
        ItemKind::Gradients,
        ItemKind::OptimizerStates,
        ItemKind::OptimizerTemporaries,
        ItemKind::Adapters,
        ItemKind::Activations,
        ItemKind::EmbeddingActivations,
        ItemKind::RecomputeWorkingSet,
        ItemKind::BackwardWorkingSet,
        ItemKind::Logits,
        ItemKind::GatherBuffers,
        ItemKind::KvCache,
        ItemKind::KvCacheWaste,
        ItemKind::PrefillActivations,
        ItemKind::CudaContext,
        ItemKind::Workspace,
        ItemKind::NcclBuffers,
        ItemKind::Fragmentation,
        ItemKind::AllocatorRounding,
        ItemKind::AllocatorCache,
    ];

    /// Position in [`ItemKind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// How PyTorch's counters see the item.
    pub fn accounting(self) -> Accounting {
        match self {
            ItemKind::Fragmentation | ItemKind::AllocatorRounding | ItemKind::AllocatorCache => {
                Accounting::Allocator
            }
            // PyTorch takes its cuBLAS/cuBLASLt workspaces from the caching
            // allocator (`CublasHandlePool.cpp` `getNewWorkspace`), so
            // `max_memory_allocated` counts them.
            ItemKind::CudaContext | ItemKind::NcclBuffers => Accounting::Runtime,
            _ => Accounting::Tensor,
        }
    }

    /// Multipliers bounding what a real run shows for an item of this kind,
    /// as (low, high):
    /// - model states and KV cache follow from counts and byte widths; our
    ///   parameter counts sit within 0.5 % of published ones and ZeRO's
    ///   Table 1 is reproduced exactly, so ±1 %;
    /// - activations, logits and other transient tensors reproduce
    ///   Korthikanti et al.'s formulas, which real runs exceed by small
    ///   temporaries (Megatron-LM adds 5 %; LLMem reports 1.6–3 % error), so
    ///   −5 % / +10 %;
    /// - the CUDA context measured 287 MB with lazy loading and over 1 GB
    ///   without it (PyTorch PR #86509; pytorch#107667), so 0.6× / 2×;
    /// - workspaces 0.5× / 2×; NCCL buffers range from tens of MiB to a few
    ///   GiB with channel count and NCCL_BUFFSIZE, so 0.25× / 4×;
    /// - a flat fragmentation from 3 % of transient memory with expandable
    ///   segments to 30 % in ZeRO's worst cases, so 0.3× / 3× of the
    ///   fraction set;
    /// - the allocator's rounding is exact, but a run reserves more by the
    ///   cache of earlier phases (a quarter of the activations in the HF
    ///   BERT runs of validation.md), so 1× / 3×;
    /// - optimizer temporaries, backward gradients and autocast's cast
    ///   cache are transient tensors like activations;
    /// - the segments pinned by states created in the first step: on the
    ///   H200 fixtures (1.1 B and 8 B models) 0.55× to 2.15× of the fitted
    ///   share, and the allocator frees every unpinned cached block before
    ///   it reports an out-of-memory error, so 0× / 2.5×.
    pub fn relative_range(self) -> (f64, f64) {
        match self {
            ItemKind::Weights
            | ItemKind::Fp8WeightCopies
            | ItemKind::MasterWeights
            | ItemKind::Gradients
            | ItemKind::OptimizerStates
            | ItemKind::Adapters
            | ItemKind::KvCache
            | ItemKind::KvCacheWaste => (0.99, 1.01),
            ItemKind::Activations
            | ItemKind::EmbeddingActivations
            | ItemKind::RecomputeWorkingSet
            | ItemKind::BackwardWorkingSet
            | ItemKind::AutocastCache
            | ItemKind::OptimizerTemporaries
            | ItemKind::Logits
            | ItemKind::GatherBuffers
            | ItemKind::PrefillActivations => (0.95, 1.10),
            ItemKind::CudaContext => (0.6, 2.0),
            ItemKind::Workspace => (0.5, 2.0),
            ItemKind::NcclBuffers => (0.25, 4.0),
            ItemKind::Fragmentation => (0.3, 3.0),
            // The rounding itself is exact; what a run reserves beyond it
            // is the cache of earlier phases (see memory/allocator.rs).
            ItemKind::AllocatorRounding => (1.0, 3.0),
            ItemKind::AllocatorCache => (0.0, 2.5),
        }
    }

    /// The English name ([`crate::lang::Named`]).
    pub fn label(self) -> &'static str {
        crate::lang::Named::en(self)
    }
}

/// One line of a memory breakdown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MemoryItem {
    /// What it is.
    pub kind: ItemKind,
    /// Where it lives.
    pub tier: Tier,
    /// How much.
    pub bytes: Bytes,
    /// How it was computed, in one line.
    pub basis: String,
}

/// Use and capacity of one tier on one device.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TierUse {
    /// The tier.
    pub tier: Tier,
    /// Bytes placed there (per GPU).
    pub used: Bytes,
    /// Capacity per GPU (host, CXL and NVMe are the node's share per GPU).
    pub capacity: Bytes,
    /// Where `used` is expected to fall in a real run (see
    /// [`ItemKind::relative_range`]).
    pub range: Interval<Bytes>,
}

impl TierUse {
    /// Capacity minus use; negative when over.
    pub fn margin(&self) -> Bytes {
        self.capacity - self.used
    }

    /// Whether the use fits the capacity.
    pub fn fits(&self) -> bool {
        self.used.base() <= self.capacity.base()
    }
}

/// The breakdown of one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeviceMemory {
    /// Which device.
    pub role: DeviceRole,
    /// Transformer layers it holds.
    pub layers: u32,
    /// Every item.
    pub items: Vec<MemoryItem>,
    /// Use per tier.
    pub tiers: Vec<TierUse>,
}

impl DeviceMemory {
    /// The use of one tier, when the device reports it (HBM always is).
    pub fn tier(&self, tier: Tier) -> Option<&TierUse> {
        self.tiers.iter().find(|t| t.tier == tier)
    }

    /// The use of HBM.
    pub fn hbm(&self) -> Option<&TierUse> {
        self.tier(Tier::Hbm)
    }

    /// The largest item in one tier (what an over-capacity message and
    /// the checklist's out-of-memory item name).
    pub fn largest_in(&self, tier: Tier) -> Option<&MemoryItem> {
        self.items
            .iter()
            .filter(|i| i.tier == tier)
            .max_by(|a, b| a.bytes.base().total_cmp(&b.bytes.base()))
    }

    /// Bytes in one tier.
    pub fn in_tier(&self, tier: Tier) -> Bytes {
        self.items
            .iter()
            .filter(|i| i.tier == tier)
            .map(|i| i.bytes)
            .sum()
    }

    /// Bytes of one kind, all tiers.
    pub fn of_kind(&self, kind: ItemKind) -> Bytes {
        self.items
            .iter()
            .filter(|i| i.kind == kind)
            .map(|i| i.bytes)
            .sum()
    }

    /// HBM bytes PyTorch would report as peak allocated
    /// (`torch.cuda.max_memory_allocated`): tensors only.
    pub fn hbm_allocated(&self) -> Bytes {
        self.hbm_where(|a| a == Accounting::Tensor)
    }

    /// HBM bytes the caching allocator holds for those tensors
    /// (`torch.cuda.memory_reserved` at the peak): allocated plus rounding
    /// and segment tails, plus the segments that states created in the
    /// first step keep pinned (without `expandable_segments`); not the
    /// cache the allocator would release before failing.
    pub fn hbm_reserved(&self) -> Bytes {
        self.hbm_where(|a| a != Accounting::Runtime)
    }

    /// HBM bytes the driver sees as used (`nvidia-smi`): reserved plus the
    /// CUDA context and NCCL buffers. The fit verdict
    /// holds this against the driver-reported total: an allocation fails
    /// when reserved + runtime would pass it.
    pub fn hbm_used(&self) -> Bytes {
        self.in_tier(Tier::Hbm)
    }

    fn hbm_where(&self, keep: impl Fn(Accounting) -> bool) -> Bytes {
        self.items
            .iter()
            .filter(|i| i.tier == Tier::Hbm && keep(i.kind.accounting()))
            .map(|i| i.bytes)
            .sum()
    }
}

/// The verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every tier of every device fits.
    Fits,
    /// Valid plan, but some tier is over capacity.
    DoesNotFit,
    /// The plan cannot run as specified (see diagnostics); the numbers are
    /// computed anyway where possible.
    Invalid,
}

/// Parameter counts of the model as planned (after pruning).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParamSummary {
    /// All parameters.
    pub total: f64,
    /// Parameters a token passes through (excluding the embedding lookup).
    pub active: f64,
    /// Parameters that receive gradients.
    pub trainable: f64,
}

/// Inverse answers for serving.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InferenceLimits {
    /// KV cache per token per replica (all layers, all TP ranks).
    pub kv_bytes_per_token: Bytes,
    /// HBM left for KV cache on the binding device at this plan's other
    /// settings.
    pub kv_budget: Bytes,
    /// Largest number of concurrent sequences of this prompt+output length
    /// that fit.
    pub max_batch: u32,
    /// Longest context (prompt+output) per sequence at this batch: what
    /// fits, and never past the model's trained context.
    pub max_context: u32,
    /// Which bound sets `max_context`.
    #[serde(default)]
    pub context_limit: ContextLimit,
}

/// What bounds a longest-context or longest-sequence answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ContextLimit {
    /// Memory: one token more does not fit.
    #[default]
    Memory,
    /// The model's trained context (`max_position_embeddings`, RoPE
    /// scaling included): more would fit, but the model was not trained
    /// for it.
    TrainedContext,
}

crate::lang::named!(ContextLimit {
    ContextLimit::Memory => "memory", "memory", "显存";
    ContextLimit::TrainedContext => "trained_context", "the model's trained context", "模型训练时的上下文长度";
});

/// Inverse answers for training.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrainingLimits {
    /// Micro-batches per step per data-parallel rank.
    pub micro_batches: u32,
    /// Micro-batches in flight on the binding device.
    pub in_flight: f64,
    /// Largest micro-batch that fits.
    pub max_micro_batch: u32,
    /// Longest sequence at this micro-batch: what fits, and never past the
    /// model's trained context.
    pub max_seq_len: u32,
    /// Which bound sets `max_seq_len`.
    #[serde(default)]
    pub seq_limit: ContextLimit,
}

/// A range a figure is expected to fall in: the spread of the efficiency
/// and overhead defaults, widened by the validation error (see
/// `uncertainty.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Interval<T> {
    /// Optimistic end.
    pub low: T,
    /// Pessimistic end.
    pub high: T,
}

/// What a slice of step or token time is spent on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TimeKind {
    /// Matrix multiplications of the model (forward and backward).
    Gemm,
    /// Attention core (scores, softmax, weighted sum).
    Attention,
    /// Memory-bound element-wise work: norms, activations, residuals,
    /// dropout, softmax outside fused kernels.
    Elementwise,
    /// Forward work repeated in backward by activation checkpointing.
    Recompute,
    /// The optimizer step.
    Optimizer,
    /// Reading weights from HBM (decode).
    WeightRead,
    /// Reading the KV cache (decode).
    KvRead,
    /// Tensor/sequence-parallel collectives.
    TensorParallel,
    /// Context-parallel KV exchange.
    ContextParallel,
    /// Expert-parallel all-to-all.
    ExpertParallel,
    /// Pipeline point-to-point sends.
    PipelineP2p,
    /// Pipeline fill and drain (the bubble).
    PipelineBubble,
    /// Data-parallel gradient reduction (all-reduce or reduce-scatter).
    DataParallel,
    /// ZeRO-3/FSDP parameter all-gathers.
    ParameterGather,
    /// Copies between HBM and CXL memory.
    TransferCxl,
    /// Copies between HBM and host DRAM.
    TransferHost,
    /// Copies between HBM and NVMe.
    TransferNvme,
    /// Fixed per-layer costs (launches, small kernels).
    LayerOverhead,
    /// The GPU waiting for the host to issue the next kernels (eager
    /// PyTorch on small passes, `time::host`).
    HostBound,
    /// A streamed request's way through the server outside the engine
    /// (`Engine::front_end`).
    FrontEnd,
    /// A streamed request's time behind other requests: queued for
    /// admission, and in iterations it shares with their prompts.
    Waiting,
}

impl TimeKind {
    /// Every kind, in display order.
    pub const ALL: [TimeKind; 21] = [
        TimeKind::Gemm,
        TimeKind::Attention,
        TimeKind::Elementwise,
        TimeKind::Recompute,
        TimeKind::Optimizer,
        TimeKind::WeightRead,
        TimeKind::KvRead,
        TimeKind::TensorParallel,
        TimeKind::ContextParallel,
        TimeKind::ExpertParallel,
        TimeKind::PipelineP2p,
        TimeKind::PipelineBubble,
        TimeKind::DataParallel,
        TimeKind::ParameterGather,
        TimeKind::TransferCxl,
        TimeKind::TransferHost,
        TimeKind::TransferNvme,
        TimeKind::LayerOverhead,
        TimeKind::HostBound,
        TimeKind::FrontEnd,
        TimeKind::Waiting,
    ];

    /// The English name ([`crate::lang::Named`]).
    pub fn label(self) -> &'static str {
        crate::lang::Named::en(self)
    }
}

/// One slice of a step or token time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TimePart {
    /// What it is.
    pub kind: TimeKind,
    /// How long the activity takes on the critical device.
    pub busy: Seconds,
    /// How much of it the step waits for (the rest overlaps compute).
    pub exposed: Seconds,
}

/// Training time of one optimizer step and of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrainingTime {
    /// Wall time of one optimizer step.
    pub step: Seconds,
    /// Its expected range.
    pub step_range: Interval<Seconds>,
    /// The measured runs whose errors widen `step_range`.
    #[serde(default)]
    pub range_basis: crate::uncertainty::ValidationBasis,
    /// Where the time goes; the exposed parts add up to `step`.
    pub parts: Vec<TimePart>,
    /// Tokens per optimizer step (global batch × sequence length).
    pub tokens_per_step: f64,
    /// Tokens per second, whole job.
    pub tokens_per_second: f64,
    /// Model FLOPs per step (no recompute; PaLM App. B convention).
    pub model_flops: Flops,
    /// Hardware FLOPs per step (with recompute).
    pub hardware_flops: Flops,
    /// Model FLOPs utilisation of the peak of the compute format.
    pub mfu: f64,
    /// Hardware FLOPs utilisation.
    pub hfu: f64,
    /// Steps to train `workload.training.tokens`, if given.
    pub steps: Option<f64>,
    /// Wall time to train them.
    pub time_to_train: Option<Seconds>,
}

/// Serving latency and throughput of one model replica.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InferenceTime {
    /// Time to first token: prefill of one batch of prompts.
    pub ttft: Seconds,
    /// Its expected range.
    pub ttft_range: Interval<Seconds>,
    /// Time per output token, averaged over the generation.
    pub tpot: Seconds,
    /// Its expected range.
    pub tpot_range: Interval<Seconds>,
    /// The measured runs whose errors widen `ttft_range` and `tpot_range`.
    #[serde(default = "dense_serving")]
    pub range_basis: crate::uncertainty::ValidationBasis,
    /// Prefill breakdown.
    pub prefill: Vec<TimePart>,
    /// Decode breakdown of an average step.
    pub decode: Vec<TimePart>,
    /// Time to serve one batch end to end (prefill + all decode steps).
    pub request_latency: Seconds,
    /// Output tokens per second of one replica at this batch.
    pub output_tokens_per_second: f64,
    /// Output tokens per second of all replicas (`dp` of them).
    pub total_output_tokens_per_second: f64,
}

fn dense_serving() -> crate::uncertainty::ValidationBasis {
    crate::uncertainty::ValidationBasis::DenseServing
}

/// Time figures of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TimeReport {
    /// A training plan.
    Training(TrainingTime),
    /// A serving plan.
    Inference(InferenceTime),
}

/// How the price of a GPU-hour was arrived at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PriceBasis {
    /// A cloud rental price.
    Rental,
    /// A purchase price amortised over the horizon's utilised hours.
    AmortisedCapex,
}

/// Where a price came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PriceSource {
    /// The source in words (the catalog entry's, or the plan field).
    pub source: String,
    /// When the price was seen (empty when the plan set it).
    pub date: String,
    /// How it was checked; `None` when the plan set it.
    pub provenance: Option<Provenance>,
    /// The market whose clouds charge it (`None` when the plan set it).
    #[serde(default)]
    pub market: Option<crate::catalog::Market>,
}

/// The price of one GPU-hour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GpuHourPrice {
    /// Dollars per GPU-hour: the rental price, or the purchase price over
    /// `horizon_years × 8766 h × utilisation`.
    pub usd_per_gpu_hour: Usd,
    /// Rental or amortised capex.
    pub basis: PriceBasis,
    /// The purchase price per GPU (capex only).
    pub purchase: Option<Usd>,
    /// Where the price came from.
    pub source: PriceSource,
}

/// Whether the energy cost is part of the hourly cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum EnergyBilling {
    /// Already in the rental price; shown for information only.
    IncludedInRental,
    /// Added to the hourly cost.
    Charged,
}

/// Power and energy cost of the job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EnergyCost {
    /// Average facility power of the job: GPUs × TDP × (1 + node overhead)
    /// × average power fraction × PUE. TDP bounds a GPU's average draw from
    /// above; the fraction brings it down to a measured average.
    pub power: Watts,
    /// Price of a kWh (`None` if neither the plan nor the catalog has one).
    pub usd_per_kwh: Option<Usd>,
    /// Where the kWh price came from.
    pub source: Option<PriceSource>,
    /// Dollars per hour of the job (`None` without a kWh price).
    pub usd_per_hour: Option<Usd>,
    /// Whether it is added to the hourly cost.
    pub billing: EnergyBilling,
}

/// Memory the plan adds, bought and amortised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MemoryCost {
    /// CXL expanders in the job's nodes (written as `cxl_gb`, in GB).
    #[serde(rename = "cxl_gb", with = "crate::units::in_gb")]
    #[cfg_attr(feature = "schema", schemars(with = "f64"))]
    pub cxl: Bytes,
    /// Pooled memory: the job's GPUs' share of the pool (`pool_gb`, GB).
    #[serde(rename = "pool_gb", with = "crate::units::in_gb")]
    #[cfg_attr(feature = "schema", schemars(with = "f64"))]
    pub pool: Bytes,
    /// Host DRAM beyond the 2 TB of a reference node (`host_dram_gb`, GB).
    #[serde(rename = "host_dram_gb", with = "crate::units::in_gb")]
    #[cfg_attr(feature = "schema", schemars(with = "f64"))]
    pub host_dram: Bytes,
    /// Purchase price of it all (`None` without a price per GB).
    pub capex: Option<Usd>,
    /// Its amortised share per hour of the job.
    pub usd_per_hour: Option<Usd>,
}

/// The one-time cost of distilling the student the plan runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DistillationCost {
    /// The teacher (the plan's `model`).
    pub teacher: String,
    /// The student (the model the plan runs).
    pub student: String,
    /// Tokens distilled on.
    pub tokens: f64,
    /// Teacher forward (2·N per token) plus student training (6·N per
    /// token), N the active parameters including the output layer.
    pub flops: Flops,
    /// Fraction of the plan's peak assumed for it: the MFU of a training
    /// plan, else the GEMM efficiency × 0.5.
    pub utilisation: f64,
    /// GPU-hours it takes.
    pub gpu_hours: GpuHours,
    /// Wall time on the plan's GPUs.
    pub wall: Seconds,
    /// Its price at the plan's all-in GPU-hour price (`None` without a
    /// GPU price).
    pub usd: Option<Usd>,
}

/// What a plan costs: by the hour, per step, per run, per million tokens,
/// and once to adopt it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CostReport {
    /// The GPU-hour price used (`None` when no price is known: no cost is
    /// made up, and the dollar figures below that need it are `None`).
    pub gpu_price: Option<GpuHourPrice>,
    /// Power and energy.
    pub energy: EnergyCost,
    /// Memory the plan adds (CXL, pool, host DRAM).
    pub memory: MemoryCost,
    /// Dollars per hour of the whole job: GPUs + energy where charged +
    /// memory.
    pub usd_per_hour: Option<Usd>,
    /// Dollars per optimizer step (training).
    pub usd_per_step: Option<Usd>,
    /// GPU-hours to train the plan's tokens (training, when given).
    pub gpu_hours_per_run: Option<GpuHours>,
    /// Dollars to train the plan's tokens (training, when given).
    pub usd_per_run: Option<Usd>,
    /// Dollars per million tokens: trained tokens (training) or output
    /// tokens (serving).
    pub usd_per_million_tokens: Option<Usd>,
    /// The one-time cost of distillation, if the plan distils.
    pub distillation: Option<DistillationCost>,
    /// What adopting the plan takes, lever by lever, against a plain
    /// baseline on the same GPUs.
    pub effort: Vec<LeverEffort>,
    /// The most disruptive change among them.
    pub migration: MigrationClass,
    /// Sum of the person-weeks.
    pub person_weeks: f64,
    /// Price of a person-week (`None` if neither the plan nor the catalog has one).
    pub usd_per_person_week: Option<Usd>,
    /// Where the person-week price came from.
    pub engineering_source: Option<PriceSource>,
    /// Engineering cost: person-weeks × price.
    pub engineering_usd: Option<Usd>,
    /// All one-time costs: engineering plus distillation (`None` if either
    /// is unpriced).
    pub one_time_usd: Option<Usd>,
}

/// The result of evaluating a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Report {
    /// Schema version of the plan it answers.
    pub version: u32,
    /// Plan name.
    pub plan: String,
    /// Name of the model that runs (the student when distilling).
    pub model: String,
    /// The teacher it was distilled from, if any.
    #[serde(default)]
    pub distilled_from: Option<String>,
    /// GPU name.
    pub gpu: String,
    /// Parameter counts.
    pub params: ParamSummary,
    /// Breakdown of each distinct device (one, or first and last stage).
    pub devices: Vec<DeviceMemory>,
    /// Index into `devices` of the most loaded one (least HBM margin).
    pub binding: usize,
    /// Fits, does not fit, or invalid.
    pub verdict: Verdict,
    /// HBM capacity minus use on the binding device; negative when over.
    pub hbm_margin: Bytes,
    /// Serving limits, for inference plans.
    pub inference: Option<InferenceLimits>,
    /// Training limits, for training plans.
    pub training: Option<TrainingLimits>,
    /// Step time or token latency.
    pub time: TimeReport,
    /// What placement by heat moved, coldest first (empty unless
    /// `levers.placement` is `by_heat` and HBM overflowed).
    pub placement: Vec<Placed>,
    /// What it costs (absent in reports written before costs existed).
    #[serde(default)]
    pub cost: Option<CostReport>,
    /// Problems and warnings in plain language.
    pub diagnostics: Vec<Diagnostic>,
    /// Serving as the engine runs it: KV pool, capacity, and (with a
    /// request stream) simulated and analytic latency and throughput.
    /// Absent for training plans and in reports written before it existed.
    #[serde(default)]
    pub serving: Option<ServingReport>,
    /// Disaggregated prefill and decode pools, when the plan sets
    /// `levers.disaggregation`: each pool, the KV transfer between them,
    /// the stream's latency and throughput through both, and their cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disaggregated: Option<DisaggReport>,
    /// Where a streamed request's median time goes, for a plan with a
    /// request stream served in one pool (not disaggregated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_time: Option<StreamTime>,
}

impl Report {
    /// Every tier over capacity on some device, in `Tier::ALL` order
    /// (fastest first), with its largest excess over the devices: what a
    /// `DoesNotFit` verdict is about, named when it is not HBM.
    pub fn over_tiers(&self) -> Vec<(Tier, Bytes)> {
        let mut out: Vec<(Tier, Bytes)> = Vec::new();
        for tier in Tier::ALL {
            let worst = self
                .devices
                .iter()
                .filter_map(|d| d.tier(tier))
                .filter(|t| !t.fits())
                .map(|t| t.used - t.capacity)
                .max_by(|a, b| a.base().total_cmp(&b.base()));
            if let Some(w) = worst {
                out.push((tier, w));
            }
        }
        out
    }

    /// How a fitting plan serves its request stream, beside the memory
    /// verdict: whether the engine keeps up with the arrivals (the steady
    /// state exists) and, where the stream sets targets, whether the
    /// simulated percentiles meet them. Through both pools for a
    /// disaggregated plan. `None` without a stream, or when the plan does
    /// not fit (then it serves nothing).
    pub fn stream_verdict(&self) -> Option<StreamVerdict> {
        if self.verdict != Verdict::Fits {
            return None;
        }
        let stable = match (&self.disaggregated, &self.serving) {
            (Some(d), _) => d.analytic.stable,
            (None, Some(s)) => s.analytic.as_ref()?.stable,
            (None, None) => return None,
        };
        let targets = self.largest_rates()?.1.is_some();
        let sim = self.simulated_stream()?;
        Some(if !stable || sim.completed == 0 {
            StreamVerdict::Unsustainable
        } else if !targets {
            StreamVerdict::KeepsUp
        } else if sim.meets_slo {
            StreamVerdict::MeetsSlo
        } else {
            StreamVerdict::MissesSlo
        })
    }

    /// Dollars per million output tokens, as the cost views read them:
    /// over a stream's simulated tokens where the plan has one
    /// ([`StreamTime`]), else over its static batch's.
    pub fn usd_per_million_tokens(&self) -> Option<Usd> {
        match &self.stream_time {
            Some(s) => s.usd_per_million_output,
            None => self.cost.as_ref().and_then(|c| c.usd_per_million_tokens),
        }
    }

    /// The simulated stream: through both pools for a disaggregated plan;
    /// `None` without a stream.
    pub fn simulated_stream(&self) -> Option<&SimulatedServing> {
        match (&self.disaggregated, &self.serving) {
            (Some(d), _) => Some(&d.simulated),
            (None, Some(s)) => s.simulated.as_ref(),
            (None, None) => None,
        }
    }

    /// The stream's largest sustainable rate and largest rate within its
    /// targets (requests/s over every replica; the second `None` without
    /// targets), steady state, through both pools for a disaggregated
    /// plan; `None` without a stream.
    pub fn largest_rates(&self) -> Option<(f64, Option<f64>)> {
        match (&self.disaggregated, &self.serving) {
            (Some(d), _) => Some((d.analytic.max_rate, d.analytic.max_rate_under_slo)),
            (None, Some(s)) => s.analytic.map(|a| (a.max_rate, a.max_rate_under_slo)),
            (None, None) => None,
        }
    }
}

/// How a plan that fits serves its request stream ([`Report::stream_verdict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StreamVerdict {
    /// The engine keeps up with the arrivals; the stream sets no targets.
    KeepsUp,
    /// It keeps up and the simulated percentiles meet every target.
    MeetsSlo,
    /// It keeps up, but some simulated percentile misses its target.
    MissesSlo,
    /// Requests arrive faster than the engine finishes them: the queue,
    /// and with it TTFT, grows without bound.
    Unsustainable,
}

impl StreamVerdict {
    /// Whether the stream is served: the engine keeps up and meets every
    /// target set.
    pub fn serves(self) -> bool {
        matches!(self, StreamVerdict::KeepsUp | StreamVerdict::MeetsSlo)
    }
}

crate::lang::named!(StreamVerdict {
    StreamVerdict::KeepsUp => "keeps_up", "Keeps up with the stream", "跟得上请求流";
    StreamVerdict::MeetsSlo => "meets_slo", "Meets its SLOs", "满足 SLO";
    StreamVerdict::MissesSlo => "misses_slo", "Misses its SLOs", "未满足 SLO";
    StreamVerdict::Unsustainable => "unsustainable", "Cannot keep up: the queue grows", "跟不上：排队无限增长";
});

/// The median, 99th percentile and mean of a latency over requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Percentiles {
    /// Median.
    pub p50: Seconds,
    /// 99th percentile.
    pub p99: Seconds,
    /// Mean.
    pub mean: Seconds,
}

/// What the iteration-level simulator measured on one replica's share of
/// the stream.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SimulatedServing {
    /// Requests simulated (on one replica, or over the `ranks` replicas
    /// simulated together).
    pub requests: u32,
    /// Replicas simulated together: the attention data-parallel ranks of
    /// one expert group, which step together (`serving::sim`); 1 for one.
    #[serde(default = "one_rank")]
    pub ranks: u32,
    /// Requests that finished within the iteration bound.
    pub completed: u32,
    /// Iterations run.
    pub iterations: u32,
    /// Preemptions (recomputations) when KV blocks ran out.
    pub preemptions: u32,
    /// Simulated seconds from the first arrival to the last completion.
    pub simulated: Seconds,
    /// Time to first token, queueing included.
    pub ttft: Percentiles,
    /// Time per output token after the first.
    pub tpot: Percentiles,
    /// Arrival to last token.
    pub latency: Percentiles,
    /// Inter-token latency as a streaming client sees it: the gap between
    /// successive chunks of a response after the first token, every chunk
    /// a sample (`bench_serving`'s ITL). One decode step per token, or a
    /// whole multi-step window when the engine hands tokens over per
    /// window (vLLM V0 `--num-scheduler-steps`).
    #[serde(default)]
    pub itl: Percentiles,
    /// Mean running sequences per iteration.
    pub mean_running: f64,
    /// Output tokens per second over all replicas.
    pub output_tokens_per_second: f64,
    /// Prompt tokens per second over all replicas.
    pub input_tokens_per_second: f64,
    /// Completed requests per second over all replicas.
    pub requests_per_second: f64,
    /// Requests per second, over all replicas, that met every per-request
    /// SLO (TTFT ≤ `ttft_p99`, TPOT ≤ `tpot_p99`); equals
    /// `requests_per_second` when no SLO is set.
    pub goodput: f64,
    /// Whether the percentiles meet every SLO set.
    pub meets_slo: bool,
}

/// The steady-state approximation (cheap enough for the search).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AnalyticServing {
    /// Whether the stream's rate is sustainable (a steady state exists and
    /// its KV demand fits the pool).
    pub stable: bool,
    /// Iteration time at the steady state's mean batch.
    pub iteration: Seconds,
    /// Mean running sequences per replica (Little's law).
    pub running: f64,
    /// Time to first token (M/D/1 queueing before the prompt's prefill).
    pub ttft: Percentiles,
    /// Time per output token.
    pub tpot: Seconds,
    /// Output tokens per second over all replicas.
    pub output_tokens_per_second: f64,
    /// Largest sustainable request rate over all replicas, requests/s.
    pub max_rate: f64,
    /// Largest rate that also meets the SLOs (`None` when none is set).
    pub max_rate_under_slo: Option<f64>,
    /// Share of GPU time spent on prefill (the rest on decode), for the
    /// split of cost between input and output tokens.
    pub prefill_share: f64,
    /// Under attention DP, the share of each output token's time spent
    /// waiting for other ranks' prefills (against the same ranks with
    /// their prefills lined up, `serving::analytic`); `None` without
    /// attention DP or when the ranks already prefill together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_stall: Option<f64>,
    /// Where the stream is a closed loop of one prompt length and one
    /// output length, its clients arrive in waves (`serving::analytic`,
    /// `Shape::closed_waves`): the prefill groups a wave takes, one after
    /// another. The figures are then those after the first wave (every
    /// client at once, which waits longer and sets a short run's 99th
    /// percentile: the simulator's figures are the ones to read there).
    /// `None` where arrivals are taken as independent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waves: Option<u32>,
}

/// Serving as an engine runs it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ServingReport {
    /// The engine and its defaults as applied.
    pub profile: crate::engine::EngineProfile,
    /// KV pool of the binding device.
    pub kv_pool: Bytes,
    /// KV bytes per token on one device (its layers; an MLA latent is
    /// counted once per device, not summed over TP replicas).
    pub kv_bytes_per_token_device: Bytes,
    /// Tokens the KV pool of one replica holds.
    pub kv_capacity_tokens: f64,
    /// Requests of the plan's prompt+output length the pool holds at once
    /// (vLLM's "maximum concurrency" log line: blocks × block size ÷
    /// tokens per request, rounded up to whole blocks).
    pub max_concurrency: f64,
    /// The simulated stream, when the plan has one.
    pub simulated: Option<SimulatedServing>,
    /// The steady-state approximation, when the plan has a stream.
    pub analytic: Option<AnalyticServing>,
    /// Dollars per million prompt tokens (GPU time of prefill).
    pub usd_per_million_input: Option<Usd>,
    /// Dollars per million output tokens (GPU time of decode).
    pub usd_per_million_output: Option<Usd>,
    /// Dollars per request.
    pub usd_per_request: Option<Usd>,
    /// Speculative decoding as applied (`None` when off or k = 0).
    #[serde(default)]
    pub speculative: Option<crate::engine::Speculation>,
    /// Expected tokens a decoding sequence emits per iteration
    /// ((1 − α^(k+1))/(1 − α); 1 without speculation).
    #[serde(default = "one")]
    pub tokens_per_step: f64,
    /// Reused contexts and the KV store below HBM, when the stream reuses
    /// contexts or the plan sets `levers.kv_tier`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_tier: Option<KvTierReport>,
}

/// Where a streamed request's median time goes: the bars the page draws
/// for a plan with a request stream, in place of its static batch's.
/// TTFT is the simulated median: the server's front end, the prompt's own
/// prefill as if alone on the engine, and the rest behind other requests
/// (queued, or in iterations shared with their prompts). TPOT is the
/// simulated median: a decode iteration at the simulated mean batch, per
/// token it emits, and the rest behind other requests (their prompt
/// chunks in the same iterations, preemptions). Where the simulated
/// median is shorter than those parts, they are scaled to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StreamTime {
    /// Simulated median time to first token.
    pub ttft: Seconds,
    /// Its expected range (the static figures' relative range).
    pub ttft_range: Interval<Seconds>,
    /// Its parts.
    pub ttft_parts: Vec<TimePart>,
    /// Simulated median time per output token.
    pub tpot: Seconds,
    /// Its expected range.
    pub tpot_range: Interval<Seconds>,
    /// Its parts.
    pub tpot_parts: Vec<TimePart>,
    /// Output tokens per second over every replica, simulated.
    pub output_tokens_per_second: f64,
    /// The plan's price over those tokens (all of its GPU time, prefill
    /// included), when the price is known.
    pub usd_per_million_output: Option<Usd>,
}

/// Where a stream's reused KV is found, and what fetching it costs
/// (`serving::kv_tiers`). Hit rates are shares of the context tokens
/// requests look up; the steady state's are probabilities at its
/// operating point, the simulator's are counted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KvTierReport {
    /// The store's tier; `None` is HBM's prefix cache alone.
    pub tier: Option<Tier>,
    /// Tokens the store holds for one replica.
    pub store_tokens: f64,
    /// Tokens of all the stream's contexts.
    pub working_set_tokens: f64,
    /// Steady state: share of context tokens found in HBM.
    pub hit_rate_hbm: f64,
    /// Steady state: share found in the store (fetched).
    pub hit_rate_store: f64,
    /// Steady state: mean seconds a request fetches.
    pub fetch_per_request: Seconds,
    /// Simulated share found in HBM.
    pub simulated_hit_rate_hbm: Option<f64>,
    /// Simulated share found in the store.
    pub simulated_hit_rate_store: Option<f64>,
    /// Simulated seconds of fetches (contexts and swaps) per completed
    /// request.
    pub simulated_fetch_per_request: Option<Seconds>,
    /// Simulated preemptions swapped to the store.
    pub swaps: u32,
    /// Median TTFT the store saves against the same replica without it
    /// (steady state; negative when the copies cost more than they save).
    pub ttft_gain: Option<Seconds>,
}

/// A figure of a serving report, or a setting of its request stream, by
/// name: the rows and fields the views list ([`ServingReport`],
/// [`crate::request::RequestStream`]), named once in both languages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ServingFigure {
    /// [`ServingReport::kv_capacity_tokens`].
    KvPoolTokens,
    /// [`ServingReport::max_concurrency`].
    MaxConcurrency,
    /// Median time to first token at the stream's rate.
    TtftP50,
    /// 99th-percentile time to first token at the stream's rate.
    TtftP99,
    /// Median time per output token at the stream's rate.
    TpotP50,
    /// 99th-percentile time per output token at the stream's rate.
    TpotP99,
    /// [`SimulatedServing::itl`] median.
    ItlP50,
    /// [`SimulatedServing::goodput`].
    Goodput,
    /// [`AnalyticServing::max_rate`].
    MaxRate,
    /// [`AnalyticServing::max_rate_under_slo`].
    MaxRateUnderSlo,
    /// [`ServingReport::usd_per_million_input`].
    UsdPerMInput,
    /// [`ServingReport::usd_per_million_output`].
    UsdPerMOutput,
    /// [`AnalyticServing::dp_stall`].
    DpStall,
    /// [`AnalyticServing::waves`].
    WaveGroups,
    /// The stream's Poisson arrival rate (setting).
    ArrivalRate,
    /// Prompt tokens of each request (setting).
    PromptTokens,
    /// Output tokens of each request (setting).
    OutputTokens,
    /// [`crate::request::Slo::ttft_p99`] (setting).
    SloTtftP99,
    /// [`crate::request::Slo::tpot_p99`] (setting).
    SloTpotP99,
}

impl ServingFigure {
    /// The report's figures, in the order the views list them.
    pub const FIGURES: [ServingFigure; 14] = [
        ServingFigure::KvPoolTokens,
        ServingFigure::MaxConcurrency,
        ServingFigure::TtftP50,
        ServingFigure::TtftP99,
        ServingFigure::TpotP50,
        ServingFigure::TpotP99,
        ServingFigure::ItlP50,
        ServingFigure::Goodput,
        ServingFigure::MaxRate,
        ServingFigure::MaxRateUnderSlo,
        ServingFigure::UsdPerMInput,
        ServingFigure::UsdPerMOutput,
        ServingFigure::DpStall,
        ServingFigure::WaveGroups,
    ];
}

crate::lang::named!(ServingFigure {
    ServingFigure::KvPoolTokens => "kv_pool_tokens", "KV pool (tokens)", "KV 缓存池（token）";
    ServingFigure::MaxConcurrency => "max_concurrency", "max concurrency (requests)", "最大并发（请求）";
    ServingFigure::TtftP50 => "ttft_p50", "TTFT p50", "首 token 时间 p50";
    ServingFigure::TtftP99 => "ttft_p99", "TTFT p99", "首 token 时间 p99";
    ServingFigure::TpotP50 => "tpot_p50", "TPOT p50", "每输出 token 时间 p50";
    ServingFigure::TpotP99 => "tpot_p99", "TPOT p99", "每输出 token 时间 p99";
    ServingFigure::ItlP50 => "itl_p50", "ITL p50 (gap between streamed chunks)", "流式输出间隔（ITL）p50";
    ServingFigure::Goodput => "goodput", "goodput under the SLOs (requests/s)", "满足 SLO 的有效吞吐（请求/秒）";
    ServingFigure::MaxRate => "max_rate", "largest sustainable rate (requests/s)", "最大可持续请求速率（请求/秒）";
    ServingFigure::MaxRateUnderSlo => "max_rate_under_slo", "largest rate within the SLOs (requests/s)", "满足 SLO 的最大速率（请求/秒）";
    ServingFigure::UsdPerMInput => "usd_per_m_input", "$ per M input tokens", "每百万输入 token 美元";
    ServingFigure::UsdPerMOutput => "usd_per_m_output", "$ per M output tokens", "每百万输出 token 美元";
    ServingFigure::DpStall => "dp_stall", "time lost to attention-DP stalls (share of TPOT)", "注意力 DP 互等损失（占每输出 token 时间）";
    ServingFigure::WaveGroups => "wave_groups", "closed loop of fixed lengths: prompt groups a wave prefills in", "定长闭环：每波提示词分几组预填充";
    ServingFigure::ArrivalRate => "arrival_rate", "arrival rate (requests/s, Poisson)", "到达速率（请求/秒，泊松）";
    ServingFigure::PromptTokens => "prompt_tokens", "prompt tokens per request", "每请求提示词 token";
    ServingFigure::OutputTokens => "output_tokens", "output tokens per request", "每请求输出 token";
    ServingFigure::SloTtftP99 => "slo_ttft_p99", "SLO: TTFT p99 (ms)", "SLO：首 token 时间 p99（毫秒）";
    ServingFigure::SloTpotP99 => "slo_tpot_p99", "SLO: TPOT p99 (ms)", "SLO：每输出 token 时间 p99（毫秒）";
});

impl Report {
    /// The most loaded device.
    pub fn binding_device(&self) -> Option<&DeviceMemory> {
        self.devices.get(self.binding)
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// A state the placement may move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MovableState {
    /// Optimizer moments and master weights.
    Optimizer,
    /// Gradients.
    Gradients,
    /// Working weights.
    Parameters,
    /// Saved activations.
    Activations,
    /// KV cache.
    KvCache,
    /// An MoE model's routed experts, apart from the dense weights
    /// (`levers.offload.experts`; serving).
    Experts,
}

/// One placement decision.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Placed {
    /// The state.
    pub state: MovableState,
    /// Accesses per step per byte.
    pub heat: f64,
    /// Where the moved part went.
    pub tier: Tier,
    /// Fraction moved.
    pub fraction: f64,
}

crate::lang::named!(ItemKind {
    ItemKind::Weights => "weights", "weights", "权重";
    ItemKind::Fp8WeightCopies => "fp8_weight_copies", "FP8 weight copies", "FP8 权重副本";
    ItemKind::AutocastCache => "autocast_cache", "autocast weight casts", "autocast 权重转换缓存";
    ItemKind::MasterWeights => "master_weights", "master weights", "主权重";
    ItemKind::Gradients => "gradients", "gradients", "梯度";
    ItemKind::OptimizerStates => "optimizer_states", "optimizer states", "优化器状态";
    ItemKind::OptimizerTemporaries => "optimizer_temporaries", "optimizer-step temporaries", "优化器更新临时张量";
    ItemKind::Adapters => "adapters", "LoRA adapters", "LoRA 适配器";
    ItemKind::Activations => "activations", "activations", "激活值";
    ItemKind::EmbeddingActivations => "embedding_activations", "embedding activations", "嵌入层激活";
    ItemKind::RecomputeWorkingSet => "recompute_working_set", "recompute working set", "重计算工作集";
    ItemKind::BackwardWorkingSet => "backward_working_set", "backward gradients in flight", "反向传播中的梯度张量";
    ItemKind::Logits => "logits", "logits", "logits";
    ItemKind::GatherBuffers => "gather_buffers", "gather buffers", "聚合缓冲区";
    ItemKind::KvCache => "kv_cache", "KV cache", "KV 缓存";
    ItemKind::KvCacheWaste => "kv_cache_waste", "KV cache waste", "KV 缓存浪费";
    ItemKind::PrefillActivations => "prefill_activations", "prefill activations", "预填充激活";
    ItemKind::CudaContext => "cuda_context", "CUDA context", "CUDA 上下文";
    ItemKind::Workspace => "workspace", "workspaces", "工作区";
    ItemKind::NcclBuffers => "nccl_buffers", "NCCL buffers", "NCCL 缓冲区";
    ItemKind::Fragmentation => "fragmentation", "flat allocator slack", "固定比例的分配器余量";
    ItemKind::AllocatorRounding => "allocator_rounding", "allocator rounding", "分配器取整与段尾";
    ItemKind::AllocatorCache => "allocator_cache", "allocator cache", "分配器缓存";
});

crate::lang::named!(TimeKind {
    TimeKind::Gemm => "gemm", "GEMMs", "矩阵乘";
    TimeKind::Attention => "attention", "attention", "注意力";
    TimeKind::Elementwise => "elementwise", "element-wise", "逐元素运算";
    TimeKind::Recompute => "recompute", "recompute", "重计算";
    TimeKind::Optimizer => "optimizer", "optimizer step", "优化器更新";
    TimeKind::WeightRead => "weight_read", "weight reads", "读取权重";
    TimeKind::KvRead => "kv_read", "KV-cache reads", "读取 KV 缓存";
    TimeKind::TensorParallel => "tensor_parallel", "TP/SP collectives", "TP/SP 集合通信";
    TimeKind::ContextParallel => "context_parallel", "CP exchange", "CP 交换";
    TimeKind::ExpertParallel => "expert_parallel", "EP all-to-all", "EP all-to-all";
    TimeKind::PipelineP2p => "pipeline_p2p", "pipeline sends", "流水线点对点";
    TimeKind::PipelineBubble => "pipeline_bubble", "pipeline bubble", "流水线气泡";
    TimeKind::DataParallel => "data_parallel", "gradient reduction", "梯度归约";
    TimeKind::ParameterGather => "parameter_gather", "parameter gathers", "参数聚合";
    TimeKind::TransferCxl => "transfer_cxl", "CXL transfers", "CXL 传输";
    TimeKind::TransferHost => "transfer_host", "host transfers", "主机传输";
    TimeKind::TransferNvme => "transfer_nvme", "NVMe transfers", "NVMe 传输";
    TimeKind::LayerOverhead => "layer_overhead", "per-layer overhead", "逐层固定开销";
    TimeKind::HostBound => "host_bound", "waiting on the host", "等待主机下发";
    TimeKind::FrontEnd => "front_end", "server front end", "服务前端";
    TimeKind::Waiting => "waiting", "behind other requests", "等待其他请求";
});

crate::lang::named!(Verdict {
    Verdict::Fits => "fits", "Fits", "放得下";
    Verdict::DoesNotFit => "does_not_fit", "Does not fit", "放不下";
    Verdict::Invalid => "invalid", "Invalid plan", "方案无效";
});

fn one() -> f64 {
    1.0
}

// ---- Disaggregated prefill and decode (levers.disaggregation) ----

/// One pool as the report shows it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PoolReport {
    /// Which pool.
    pub role: crate::disagg::PoolRole,
    /// Tensor parallelism of a replica.
    pub tp: u32,
    /// Replicas.
    pub replicas: u32,
    /// Tokens the KV pool of one replica holds.
    pub kv_capacity_tokens: f64,
    /// KV bytes per token on one device of this pool.
    pub kv_bytes_per_token_device: Bytes,
    /// Whether every device holds its weights and the engine's KV pool.
    pub fits: bool,
    /// The largest request rate the whole pool sustains (steady state).
    pub max_rate: f64,
    /// Iteration time: the decode pool's at the stream's rate (steady
    /// state), the prefill pool's one mean prompt alone.
    pub iteration: Seconds,
    /// Running requests per replica at the stream's rate (steady state).
    pub running: f64,
}

/// The steady-state figures of the disaggregated stream.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AnalyticDisagg {
    /// Whether both pools hold the stream's rate.
    pub stable: bool,
    /// Time to first token: prefill queue and prefill, the KV transfer,
    /// and the decode pool's first step.
    pub ttft: Percentiles,
    /// Time per output token in the decode pool.
    pub tpot: Seconds,
    /// Output tokens per second over both pools.
    pub output_tokens_per_second: f64,
    /// The largest sustainable rate: the lesser of the pools'.
    pub max_rate: f64,
    /// The largest rate that also meets the stream's SLOs, when it has any.
    pub max_rate_under_slo: Option<f64>,
    /// The pool that bounds the rate.
    pub bottleneck: crate::disagg::PoolRole,
}

/// The disaggregated serving section of a report.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DisaggReport {
    /// The prefill pool.
    pub prefill: PoolReport,
    /// The decode pool.
    pub decode: PoolReport,
    /// The link that carries the KV cache.
    pub link: crate::catalog::LinkId,
    /// Its bandwidth per GPU and direction as reached (peak × efficiency).
    pub link_bandwidth: ByteRate,
    /// Its fixed cost per transfer.
    pub link_latency: Seconds,
    /// KV bytes one GPU sends or receives for a mean prompt (the larger of
    /// a prefill device's and a decode device's share).
    pub kv_bytes_per_request: Bytes,
    /// The part of a mean prompt's KV transfer that follows its prefill
    /// (all of it unless the plan sends it layer by layer), latency
    /// included.
    pub transfer: Seconds,
    /// The steady-state approximation.
    pub analytic: AnalyticDisagg,
    /// The simulated stream through both pools.
    pub simulated: SimulatedServing,
    /// Price of both pools per hour, when known.
    pub usd_per_hour: Option<Usd>,
    /// Dollars per million prompt tokens (the prefill pool's time).
    pub usd_per_million_input: Option<Usd>,
    /// Dollars per million output tokens (the decode pool's time).
    pub usd_per_million_output: Option<Usd>,
    /// Dollars per request (both pools).
    pub usd_per_request: Option<Usd>,
}

fn one_rank() -> u32 {
    1
}
