//! Plain-language problems with a plan. A diagnostic is data: a structured
//! kind (so the app can translate it) plus an English message.

use crate::capability::Unsupported;
use crate::lang::{Lang, Named};
use crate::plan::Tier;
use crate::stack::TrainingStack;
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Runs, but slowly, wastefully or riskily.
    Warning,
    /// Cannot run as specified.
    Error,
}

/// Which device of the plan a breakdown is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DeviceRole {
    /// The only pipeline stage (PP = 1).
    OnlyStage,
    /// First pipeline stage: most in-flight micro-batches, the embedding.
    FirstStage,
    /// Last pipeline stage: the output layer and logits.
    LastStage,
}

impl DeviceRole {
    /// Every role.
    pub const ALL: [DeviceRole; 3] = [
        DeviceRole::OnlyStage,
        DeviceRole::FirstStage,
        DeviceRole::LastStage,
    ];
}

crate::lang::named!(DeviceRole {
    DeviceRole::OnlyStage => "only_stage", "every GPU", "每个 GPU";
    DeviceRole::FirstStage => "first_stage", "first pipeline stage", "流水线第一段";
    DeviceRole::LastStage => "last_stage", "last pipeline stage", "流水线最后一段";
});

crate::lang::named!(Severity {
    Severity::Info => "info", "note", "提示";
    Severity::Warning => "warning", "warning", "警告";
    Severity::Error => "error", "error", "错误";
});

/// A lever a plan sets where it does not apply, named in both languages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum IgnoredLever {
    /// `levers.offload.kv_cache` on training.
    KvCacheOffload,
    /// `levers.offload.experts` on training.
    ExpertOffload,
    /// `levers.offload.experts` on a model without routed experts.
    ExpertOffloadDense,
    /// `levers.precision.experts` on a model without routed experts.
    ExpertFormatDense,
    /// `levers.engine` (a continuous-batching engine) on training.
    ServingEngine,
    /// `levers.engine_knobs.scheduler_steps` on an engine other than vLLM V0.
    SchedulerSteps,
    /// `levers.engine_knobs.attention_dp_balance` on an engine other than
    /// TensorRT-LLM.
    DpBalance,
    /// `levers.engine_knobs.moe_backend` where TensorRT-LLM does not serve
    /// an MoE model, or TRTLLM off Blackwell.
    MoeBackend,
    /// `levers.engine_knobs.batching` on an engine that has one way only
    /// (vLLM V1 and TensorRT-LLM always mix; static batches do not
    /// schedule by iteration).
    Batching,
    /// `levers.engine_knobs.sampler` on an engine other than vLLM V1.
    Sampler,
    /// `levers.engine_knobs.graph_max_batch` on an engine other than
    /// SGLang.
    GraphMaxBatch,
    /// `levers.offload.optimizer` on serving.
    OptimizerOffload,
    /// `levers.offload.gradients` on serving.
    GradientOffload,
    /// `levers.offload.activations` on serving.
    ActivationOffload,
    /// `levers.sharding` on serving.
    Sharding,
    /// `levers.checkpointing` on serving.
    Checkpointing,
    /// `levers.training_stack` on serving.
    TrainingStack,
}

impl IgnoredLever {
    /// Every ignored lever, in declaration order.
    pub const ALL: [IgnoredLever; 17] = [
        IgnoredLever::KvCacheOffload,
        IgnoredLever::ExpertOffload,
        IgnoredLever::ExpertOffloadDense,
        IgnoredLever::ExpertFormatDense,
        IgnoredLever::ServingEngine,
        IgnoredLever::SchedulerSteps,
        IgnoredLever::DpBalance,
        IgnoredLever::MoeBackend,
        IgnoredLever::Batching,
        IgnoredLever::Sampler,
        IgnoredLever::GraphMaxBatch,
        IgnoredLever::OptimizerOffload,
        IgnoredLever::GradientOffload,
        IgnoredLever::ActivationOffload,
        IgnoredLever::Sharding,
        IgnoredLever::Checkpointing,
        IgnoredLever::TrainingStack,
    ];
}

crate::lang::named!(IgnoredLever {
    IgnoredLever::KvCacheOffload => "kv_cache_offload", "KV-cache offload", "KV 缓存卸载";
    IgnoredLever::ExpertOffload => "expert_offload", "expert offload", "专家卸载";
    IgnoredLever::ExpertOffloadDense => "expert_offload_dense", "expert offload (the model has no routed experts)", "专家卸载（该模型没有路由专家）";
    IgnoredLever::ExpertFormatDense => "expert_format_dense", "levers.precision.experts (the model has no routed experts)", "levers.precision.experts（该模型没有路由专家）";
    IgnoredLever::ServingEngine => "serving_engine", "serving engine", "推理服务引擎";
    IgnoredLever::SchedulerSteps => "scheduler_steps", "levers.engine_knobs.scheduler_steps (multi-step scheduling is vLLM V0's only)", "levers.engine_knobs.scheduler_steps（多步调度仅 vLLM V0 支持）";
    IgnoredLever::DpBalance => "dp_balance", "levers.engine_knobs.attention_dp_balance (TensorRT-LLM's only)", "levers.engine_knobs.attention_dp_balance（仅 TensorRT-LLM 支持）";
    IgnoredLever::MoeBackend => "moe_backend", "levers.engine_knobs.moe_backend (TensorRT-LLM serving an MoE model only; TRTLLM on Blackwell only)", "levers.engine_knobs.moe_backend（仅 TensorRT-LLM 服务 MoE 模型时有效；TRTLLM 仅限 Blackwell）";
    IgnoredLever::Batching => "batching", "levers.engine_knobs.batching (only SGLang and vLLM V0 choose how prompts meet decoding)", "levers.engine_knobs.batching（仅 SGLang 与 vLLM V0 可选择提示与解码的组合方式）";
    IgnoredLever::Sampler => "sampler", "levers.engine_knobs.sampler (only vLLM V1 profiles its sampler)", "levers.engine_knobs.sampler（仅 vLLM V1 预先测量其采样器）";
    IgnoredLever::GraphMaxBatch => "graph_max_batch", "levers.engine_knobs.graph_max_batch (only SGLang caps its CUDA graphs' batch)", "levers.engine_knobs.graph_max_batch（仅 SGLang 限定其 CUDA graph 的批大小）";
    IgnoredLever::OptimizerOffload => "optimizer_offload", "optimizer offload", "优化器卸载";
    IgnoredLever::GradientOffload => "gradient_offload", "gradient offload", "梯度卸载";
    IgnoredLever::ActivationOffload => "activation_offload", "activation offload", "激活卸载";
    IgnoredLever::Sharding => "sharding", "ZeRO/FSDP sharding", "ZeRO/FSDP 分片";
    IgnoredLever::Checkpointing => "checkpointing", "activation checkpointing", "激活检查点";
    IgnoredLever::TrainingStack => "training_stack", "training stack", "训练软件栈";
});

/// The stacks that run a plan's levers, as the end of a sentence.
fn stack_list(
    runs: &[TrainingStack],
    others: &[(TrainingStack, Unsupported)],
    lang: Lang,
) -> String {
    let names: Vec<&str> = runs.iter().map(|s| s.name(lang)).collect();
    let refused: Vec<String> = others
        .iter()
        .map(|(s, why)| match lang {
            Lang::En => format!("{} lacks {}", s.name(lang), why.name(lang)),
            Lang::Zh => format!("{}不支持{}", s.name(lang), why.name(lang)),
        })
        .collect();
    match (lang, names.is_empty(), refused.is_empty()) {
        (Lang::En, true, true) => "no stack in the catalog runs these levers together".into(),
        (Lang::En, true, false) => format!(
            "no stack in the catalog runs these levers together: {}",
            refused.join("; ")
        ),
        (Lang::En, false, _) => format!("stacks that run them: {}", names.join(", ")),
        (Lang::Zh, true, true) => "目录中没有框架能同时运行这些设置".into(),
        (Lang::Zh, true, false) => {
            format!("目录中没有框架能同时运行这些设置：{}", refused.join("；"))
        }
        (Lang::Zh, false, _) => format!("支持这些设置的框架：{}", names.join("、")),
    }
}

/// What the problem is, with the numbers that make it one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DiagnosticKind {
    /// A numeric input is zero, negative, NaN or out of range.
    InvalidValue {
        /// Dotted path of the field.
        field: String,
        /// What is wrong with it.
        problem: String,
    },
    /// TP does not divide the attention heads.
    TpHeads {
        /// TP degree.
        tp: u32,
        /// Heads.
        heads: u32,
    },
    /// TP and the KV heads neither divide each other.
    TpKvHeads {
        /// TP degree.
        tp: u32,
        /// KV heads.
        kv_heads: u32,
    },
    /// KV heads fewer than TP ranks are replicated.
    KvHeadsReplicated {
        /// TP degree.
        tp: u32,
        /// KV heads.
        kv_heads: u32,
    },
    /// TP does not divide the FFN width.
    TpFfn {
        /// TP degree.
        tp: u32,
        /// FFN width.
        ffn: u32,
    },
    /// PP does not divide the layers; stages are uneven.
    PpLayers {
        /// PP degree.
        pp: u32,
        /// Layers.
        layers: u32,
    },
    /// More stages than layers.
    PpTooDeep {
        /// PP degree.
        pp: u32,
        /// Layers.
        layers: u32,
    },
    /// Interleaving needs layers divisible by pp × chunks.
    InterleaveLayers {
        /// PP degree.
        pp: u32,
        /// Chunks per device.
        chunks: u32,
        /// Layers.
        layers: u32,
    },
    /// Interleaving runs micro-batches in groups of N, PP ≤ N ≤ M, whose
    /// last one is whole or at least PP (Megatron-Core); N = PP by default,
    /// so M must divide by PP.
    InterleaveMicroBatches {
        /// PP degree.
        pp: u32,
        /// Micro-batches per step.
        micro_batches: u32,
        /// Micro-batches per group (`levers.parallel.microbatch_group`).
        group: u32,
    },
    /// DualPipeV runs at least two micro-batches per pipeline rank
    /// (deepseek-ai/DualPipe `dualpipev.py` asserts it).
    DualPipeMicroBatches {
        /// PP degree.
        pp: u32,
        /// Micro-batches per step.
        micro_batches: u32,
    },
    /// Fewer micro-batches than stages: the pipeline never fills.
    PipelineUnderfilled {
        /// PP degree.
        pp: u32,
        /// Micro-batches per step.
        micro_batches: u32,
    },
    /// tp·pp·cp·dp differs from the GPU count.
    DegreesProduct {
        /// tp·pp·cp·dp.
        product: u32,
        /// GPUs in the hardware.
        gpus: u32,
    },
    /// Global batch not divisible by micro-batch × DP.
    BatchSplit {
        /// Global batch.
        global_batch: u32,
        /// Micro-batch.
        micro_batch: u32,
        /// DP degree.
        dp: u32,
    },
    /// CP does not divide the sequence.
    CpSequence {
        /// CP degree.
        cp: u32,
        /// Sequence length.
        seq_len: u32,
    },
    /// EP set on a model without experts.
    EpWithoutMoe {
        /// EP degree.
        ep: u32,
    },
    /// EP does not divide the experts.
    EpExperts {
        /// EP degree.
        ep: u32,
        /// Experts.
        experts: u32,
    },
    /// EP does not divide the data-parallel × context-parallel ranks.
    EpRanks {
        /// EP degree.
        ep: u32,
        /// dp·cp.
        ranks: u32,
    },
    /// The shard group does not divide the data-parallel group.
    ShardGroup {
        /// Shard group size.
        group: u32,
        /// dp·cp.
        ranks: u32,
    },
    /// TP spans more GPUs than one scale-up domain.
    TpBeyondScaleUp {
        /// TP degree.
        tp: u32,
        /// GPUs per scale-up domain.
        domain: u32,
    },
    /// Sequence parallelism asked for without TP.
    SequenceParallelWithoutTp,
    /// A sharding level with one data-parallel rank does nothing.
    ShardingWithoutDp,
    /// GPUs not a multiple of GPUs per node.
    PartialNode {
        /// GPUs.
        gpus: u32,
        /// GPUs per node.
        per_node: u32,
    },
    /// The GPU has no native format for a compute precision.
    UnsupportedCompute {
        /// The format.
        precision: String,
        /// The GPU.
        gpu: String,
    },
    /// BF16 compute on a part with no BF16 tensor cores (Volta, Turing):
    /// PyTorch emulates its matmuls on the CUDA cores, and they are priced
    /// so (`catalog::emulated_bf16`).
    EmulatedBf16 {
        /// The GPU.
        gpu: String,
        /// The emulated matmul rate, % of the part's FP16 tensor rate.
        percent: f64,
    },
    /// FlashAttention-2 named on an NVIDIA part it does not run on (Volta,
    /// Turing: it needs Ampere or later); frameworks fall back to a
    /// memory-efficient fused kernel there, which holds no score matrix
    /// either.
    FlashUnavailable {
        /// The GPU.
        gpu: String,
    },
    /// vLLM refuses to start in BF16 on a part below compute capability
    /// 8.0 and asks for FP16 (`_check_if_gpu_supports_dtype` in its GPU
    /// worker).
    Bf16Refused {
        /// The GPU.
        gpu: String,
    },
    /// The GPUs run under a board power limit below their TDP: the tensor
    /// rates keep the clock fraction the part sustains there.
    PowerLimited {
        /// The limit, W.
        limit_w: f64,
        /// The part's rated TDP, W.
        tdp_w: f64,
        /// The fraction of the TDP clock compute-bound kernels keep.
        clock: f64,
    },
    /// A power limit above the part's rated TDP, which the driver does
    /// not allow: ignored.
    PowerLimitAboveTdp {
        /// The limit asked for, W.
        limit_w: f64,
        /// The part's rated TDP, W.
        tdp_w: f64,
        /// The GPU.
        gpu: String,
    },
    /// The serving engine runs the routed experts with a kernel priced
    /// apart from the general model (`engine::MoeKernel`): TensorRT-LLM's
    /// default CUTLASS MoE backend with NVFP4 experts on Blackwell.
    CutlassFp4Experts,
    /// Context longer than the model was trained for.
    ContextBeyondModel {
        /// Requested tokens.
        tokens: u32,
        /// Model maximum.
        max_context: u32,
    },
    /// Offload to a tier the hardware lacks.
    MissingTier {
        /// The tier.
        tier: Tier,
    },
    /// A tier is over capacity on a device.
    OverCapacity {
        /// The device.
        role: DeviceRole,
        /// The tier.
        tier: Tier,
        /// How much over.
        over: Bytes,
        /// Capacity.
        capacity: Bytes,
        /// The largest item there, in English.
        largest: String,
        /// The same in Chinese (empty in reports written before it).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        largest_zh: String,
    },
    /// HBM almost full.
    TightFit {
        /// The device.
        role: DeviceRole,
        /// Margin left.
        margin: Bytes,
    },
    /// Levers that only apply to training, set on inference (or vice
    /// versa), or to another model or engine.
    LeverIgnored {
        /// Which lever.
        lever: IgnoredLever,
    },
    /// The training stack in force cannot run the plan's levers
    /// (`capability`): the plan names it, or no stack runs them.
    StackCannotRun {
        /// The stack in force.
        stack: TrainingStack,
        /// What it cannot run.
        reason: Unsupported,
        /// The stacks that do run the levers (none when empty).
        runs: Vec<TrainingStack>,
        /// When none does, what each other stack cannot run, so a user
        /// sees which lever to change for which stack.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        others: Vec<(TrainingStack, Unsupported)>,
    },
    /// The plan names no stack and the mainstream one for its workload
    /// cannot run its levers, so it is evaluated on the first that can.
    StackForLevers {
        /// The stack it is evaluated on.
        stack: TrainingStack,
        /// The mainstream stack for the workload.
        mainstream: TrainingStack,
        /// What the mainstream stack cannot run.
        reason: Unsupported,
    },
    /// Every published run of the plan's kind ran slower than the model
    /// predicts (`uncertainty.rs`): its times are lower bounds, its
    /// throughput an upper bound, by up to `worst` (a fraction of the
    /// measured time).
    PredictionsFast {
        /// The kind of run.
        basis: crate::uncertainty::ValidationBasis,
        /// The largest shortfall measured on that kind.
        worst: f64,
    },
    /// A stream's TTFT target is shorter than its server's front end
    /// (`Engine::front_end`): no plan on that server can meet it.
    TtftBelowFrontEnd {
        /// The tightest TTFT target the stream sets.
        target: Seconds,
        /// The server's front end.
        front_end: Seconds,
    },
    /// Under MIG a job's own memory cap is ignored: its slice bounds its
    /// memory.
    MigCapIgnored {
        /// The job.
        job: String,
    },
    /// No price is known for the GPU, so costs are left out.
    NoGpuPrice {
        /// The GPU.
        gpu: String,
        /// The plan field that would supply the price.
        field: String,
        /// The market the plan set (`economics.market`), when the catalog
        /// prices the GPU elsewhere only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        market: Option<crate::catalog::Market>,
    },
    /// A distillation student with more parameters than its teacher.
    StudentLargerThanTeacher {
        /// Student parameters.
        student: f64,
        /// Teacher parameters.
        teacher: f64,
    },
    /// Memory added to a rented plan is priced as bought and amortised.
    RentalMemoryAmortised {
        /// GB of memory added.
        gb: f64,
    },
    /// A job of a shared pool is not a valid plan.
    JobInvalid {
        /// The job.
        job: String,
        /// Its plan's errors, joined.
        errors: String,
    },
    /// A job does not fit even on a whole GPU of the pool.
    JobDoesNotFit {
        /// The job.
        job: String,
        /// The pool's GPU.
        gpu: String,
    },
    /// A serving job misses its latency target even at batch 1 on a whole GPU.
    JobSloNotMet {
        /// The job.
        job: String,
        /// The pool's GPU.
        gpu: String,
        /// Time to first token at batch 1.
        ttft: Seconds,
        /// Time per output token at batch 1.
        tpot: Seconds,
    },
    /// The pool has no room left for a job that fits on its own.
    PoolFull {
        /// The job.
        job: String,
        /// What it needs (a MIG profile, a cap, whole GPUs).
        share: String,
    },
    /// A serving job runs at a smaller batch than it asks for.
    BatchBounded {
        /// The job.
        job: String,
        /// The batch it gets.
        batch: u32,
        /// The batch it asks for.
        requested: u32,
    },
    /// The pool's GPU has no MIG; jobs get whole GPUs.
    MigUnsupported {
        /// The GPU.
        gpu: String,
    },
    /// Per-process memory caps do not split compute.
    CapsShareCompute,
    /// A multi-GPU job gets whole GPUs in a MIG pool.
    WholeGpusForMultiGpuJob {
        /// The job.
        job: String,
        /// GPUs it takes.
        gpus: u32,
    },
    /// A multi-GPU job's GPUs are spread over several nodes.
    JobSpansNodes {
        /// The job.
        job: String,
        /// Nodes it spans.
        nodes: u32,
    },
    /// Checkpoint figures asked of a serving plan.
    NotATrainingPlan,
    /// An asynchronous checkpoint takes longer to persist than the
    /// interval between checkpoints.
    PersistOutlastsInterval {
        /// Time to write one checkpoint to storage.
        persist: Seconds,
        /// The checkpoint interval.
        interval: Seconds,
    },
    /// Checkpoints and restarts take a large share of the run.
    LowGoodput {
        /// Expected fraction of time spent on useful work, 0..=1.
        goodput: f64,
    },
    /// Interruptions come faster than a checkpoint interval and a restart
    /// can complete: the run makes no progress.
    NoProgress,
}

/// One problem with a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Diagnostic {
    /// How bad.
    pub severity: Severity,
    /// What, structured.
    pub detail: DiagnosticKind,
    /// What, in English.
    pub message: String,
}

fn role_name(r: DeviceRole) -> &'static str {
    match r {
        DeviceRole::OnlyStage => "the device",
        DeviceRole::FirstStage => "stage 0",
        DeviceRole::LastStage => "the last stage",
    }
}

fn tier_name(t: Tier) -> &'static str {
    match t {
        Tier::Hbm => "HBM",
        Tier::Cxl => "CXL memory",
        Tier::HostDram => "host DRAM",
        Tier::Nvme => "NVMe",
    }
}

impl Diagnostic {
    /// Builds a diagnostic and writes its English message.
    pub fn new(severity: Severity, detail: DiagnosticKind) -> Self {
        let message = message(&detail);
        Self {
            severity,
            detail,
            message,
        }
    }

    /// An error.
    pub fn error(detail: DiagnosticKind) -> Self {
        Self::new(Severity::Error, detail)
    }

    /// A warning.
    pub fn warning(detail: DiagnosticKind) -> Self {
        Self::new(Severity::Warning, detail)
    }

    /// An informational note.
    pub fn info(detail: DiagnosticKind) -> Self {
        Self::new(Severity::Info, detail)
    }
}

fn message(d: &DiagnosticKind) -> String {
    use DiagnosticKind as K;
    match d {
        K::InvalidValue { field, problem } => format!("{field}: {problem}"),
        K::TpHeads { tp, heads } => format!("TP={tp} does not divide {heads} attention heads"),
        K::TpKvHeads { tp, kv_heads } => {
            format!("TP={tp} and {kv_heads} KV heads do not divide each other")
        }
        K::KvHeadsReplicated { tp, kv_heads } => format!(
            "{kv_heads} KV heads over TP={tp}: each rank keeps a replica of a KV head, so the KV cache shrinks less than 1/TP"
        ),
        K::TpFfn { tp, ffn } => format!("TP={tp} does not divide the FFN width {ffn}"),
        K::PpLayers { pp, layers } => format!(
            "PP={pp} does not divide {layers} layers; stage 0 takes {} layers",
            layers.div_ceil((*pp).max(1))
        ),
        K::PpTooDeep { pp, layers } => format!("PP={pp} is more stages than {layers} layers"),
        K::InterleaveLayers { pp, chunks, layers } => format!(
            "{layers} layers do not split evenly into PP={pp} stages × {chunks} chunks: Megatron-LM refuses this for interleaving, and every chunk needs at least one layer"
        ),
        K::InterleaveMicroBatches {
            pp,
            micro_batches,
            group,
        } => format!(
            "the interleaved schedule runs micro-batches in groups of {group} (levers.parallel.microbatch_group, PP={pp} by default): Megatron-Core needs PP ≤ group ≤ {micro_batches} micro-batches and a last group that is whole or at least PP"
        ),
        K::DualPipeMicroBatches { pp, micro_batches } => format!(
            "DualPipeV runs at least two micro-batches per pipeline rank: {micro_batches} for PP={pp}, where it needs {}",
            2 * u64::from(*pp)
        ),
        K::PipelineUnderfilled { pp, micro_batches } => format!(
            "{micro_batches} micro-batches for PP={pp}: the pipeline never fills and the bubble dominates"
        ),
        K::DegreesProduct { product, gpus } => format!(
            "TP×PP×CP×DP = {product} but the hardware has {gpus} GPUs"
        ),
        K::BatchSplit {
            global_batch,
            micro_batch,
            dp,
        } => format!(
            "global batch {global_batch} is not a multiple of micro-batch {micro_batch} × DP {dp}"
        ),
        K::CpSequence { cp, seq_len } => {
            format!("CP={cp} does not divide the sequence length {seq_len}")
        }
        K::EpWithoutMoe { ep } => format!("EP={ep} set on a model without experts"),
        K::EpExperts { ep, experts } => format!("EP={ep} does not divide {experts} experts"),
        K::EpRanks { ep, ranks } => {
            format!("EP={ep} does not divide the {ranks} ranks the experts can spread over (data-parallel × context-parallel, × TP ÷ expert TP)")
        }
        K::ShardGroup { group, ranks } => format!(
            "shard group {group} does not divide the {ranks} data-parallel × context-parallel ranks"
        ),
        K::TpBeyondScaleUp { tp, domain } => format!(
            "TP={tp} spans more than one {domain}-GPU scale-up domain: its all-reduces cross the slower scale-out network"
        ),
        K::SequenceParallelWithoutTp => {
            "sequence parallelism needs TP > 1; it has no effect here".to_string()
        }
        K::ShardingWithoutDp => {
            "ZeRO/FSDP sharding with one data-parallel rank shards nothing".to_string()
        }
        K::PartialNode { gpus, per_node } => {
            format!("{gpus} GPUs is not a whole number of {per_node}-GPU nodes")
        }
        K::UnsupportedCompute { precision, gpu } => {
            format!("{gpu} has no {precision} tensor cores: its GEMMs are priced at the 16-bit rate")
        }
        K::EmulatedBf16 { gpu, percent } => format!(
            "the {gpu} has no BF16 tensor cores: PyTorch emulates BF16 matmuls at about {percent:.0} % of its FP16 rate (crowd-sourced torch.mm runs), priced so; FP16 (levers.precision.compute and activations: fp16) runs at the full rate"
        ),
        K::FlashUnavailable { gpu } => format!(
            "FlashAttention-2 does not run on the {gpu} (it needs an Ampere or later GPU): frameworks fall back to a memory-efficient fused kernel (PyTorch SDPA's, xformers', vLLM's Triton one), which keeps no score matrix either; its speed there is unmeasured and priced at the 60 % ceiling assumed for parts without a measured attention kernel"
        ),
        K::Bf16Refused { gpu } => format!(
            "vLLM refuses BF16 on the {gpu} (compute capability below 8.0) and asks for --dtype half: set levers.precision.compute and activations to fp16"
        ),
        K::PowerLimited { limit_w, tdp_w, clock } => format!(
            "power limit {limit_w:.0} W of the {tdp_w:.0} W TDP: compute-bound kernels run at about {:.0} % of their clock (measured H100 caps, arXiv 2604.11391), memory-bound ones at full speed; a denser GEMM may lose a few points more",
            clock * 100.0
        ),
        K::PowerLimitAboveTdp { limit_w, tdp_w, gpu } => format!(
            "a power limit of {limit_w:.0} W is above the {tdp_w:.0} W TDP of the {gpu}, which the driver does not allow: the TDP is used"
        ),
        K::CutlassFp4Experts => "TensorRT-LLM's default MoE backend (CUTLASS) streams NVFP4 experts at about 40 % of the HBM peak on Blackwell and adds about 70 µs a MoE layer (its tech blog 24): priced so; its TRTLLM backend (levers.engine_knobs.moe_backend: trtllm) reaches about 70 %".to_string(),
        K::ContextBeyondModel {
            tokens,
            max_context,
        } => format!(
            "{tokens} tokens per sequence exceeds the model's trained context of {max_context}"
        ),
        K::MissingTier { tier } => format!(
            "offload to {} but the hardware has none",
            tier_name(*tier)
        ),
        K::OverCapacity {
            role,
            tier,
            over,
            capacity,
            largest,
            ..
        } => format!(
            "{} over by {over} on {} (capacity {capacity}; largest item: {largest})",
            tier_name(*tier),
            role_name(*role)
        ),
        K::TightFit { role, margin } => format!(
            "only {margin} of HBM left on {}: allocator spikes may still OOM",
            role_name(*role)
        ),
        K::LeverIgnored { lever } => {
            format!("{} does not apply to this workload; ignored", lever.en())
        }
        K::StackCannotRun {
            stack,
            reason,
            runs,
            others,
        } => format!(
            "{}: {} cannot run {}; {}",
            reason.field(),
            stack.en(),
            reason.en(),
            stack_list(runs, others, Lang::En)
        ),
        K::StackForLevers {
            stack,
            mainstream,
            reason,
        } => format!(
            "evaluated on {}: {}, the mainstream stack for this workload, cannot run {} ({}); set levers.training_stack to choose",
            stack.en(),
            mainstream.en(),
            reason.en(),
            reason.field()
        ),
        K::PredictionsFast { basis, worst } => format!(
            "on {} the model predicted every published run faster than measured, by up to {:.0} % of the measured time: read times as lower bounds and throughput as an upper bound (docs/validation.md)",
            basis.en(),
            worst * 100.0
        ),
        K::TtftBelowFrontEnd { target, front_end } => format!(
            "the TTFT target of {:.0} ms is shorter than the server's front end ({:.0} ms of every streamed request: HTTP, template, tokenisation), so no plan on this server meets it; state a faster front end in levers.engine_knobs.front_end_ms if yours is",
            target.as_millis(),
            front_end.as_millis()
        ),
        K::MigCapIgnored { job } => {
            format!("levers.memory_cap of job {job:?} is ignored: its MIG slice bounds its memory")
        }
        K::NoGpuPrice { gpu, field, market } => {
            let on = market.map_or(String::new(), |m| {
                format!(" on {}", crate::lang::Named::name(m, crate::lang::Lang::En))
            });
            format!("no price is known for {gpu}{on}: costs are left out; set {field} to get them")
        }
        K::StudentLargerThanTeacher { student, teacher } => format!(
            "the distillation student has {:.2} B parameters, more than the teacher's {:.2} B",
            student / 1e9,
            teacher / 1e9
        ),
        K::RentalMemoryAmortised { gb } => format!(
            "no cloud rents CXL or extra host memory: its {gb:.0} GB are priced as bought and amortised over the default horizon"
        ),
        K::JobInvalid { job, errors } => format!("job {job:?} is not a valid plan: {errors}"),
        K::JobDoesNotFit { job, gpu } => {
            format!("job {job:?} does not fit even on a whole {gpu}; its plan's own diagnostics say where it overflows")
        }
        K::JobSloNotMet {
            job,
            gpu,
            ttft,
            tpot,
        } => format!(
            "job {job:?} misses its latency target even at batch 1 on a whole {gpu} (TTFT {:.0} ms, TPOT {:.1} ms)",
            ttft.as_millis(),
            tpot.as_millis()
        ),
        K::PoolFull { job, share } => {
            format!("no room left in the pool for job {job:?}, which needs {share}")
        }
        K::BatchBounded {
            job,
            batch,
            requested,
        } => format!(
            "job {job:?} serves {batch} sequences at a time of the {requested} it asks for: memory or its latency target bounds the batch"
        ),
        K::MigUnsupported { gpu } => {
            format!("{gpu} has no MIG; every job gets whole GPUs")
        }
        K::CapsShareCompute => "memory caps split memory, not compute: jobs on one GPU time-share its SMs and HBM, so each job's latency and throughput are shown with every tenant of its GPU busy (k tenants: k times slower)".to_string(),
        K::WholeGpusForMultiGpuJob { job, gpus } => format!(
            "job {job:?} runs on {gpus} GPUs: MIG instances cannot talk to each other over NVLink, so it gets whole GPUs"
        ),
        K::JobSpansNodes { job, nodes } => format!(
            "job {job:?} is spread over {nodes} nodes: its collectives cross the scale-out network"
        ),
        K::NotATrainingPlan => {
            "checkpoints are a training concern; this plan serves".to_string()
        }
        K::PersistOutlastsInterval { persist, interval } => format!(
            "writing a checkpoint takes {:.0} s, longer than the {:.0} s between checkpoints: asynchronous saves would pile up",
            persist.as_secs(),
            interval.as_secs()
        ),
        K::LowGoodput { goodput } => format!(
            "only {:.0} % of the time is useful work: checkpoints, lost work and restarts take the rest",
            goodput * 100.0
        ),
        K::NoProgress => "interruptions come faster than a checkpoint and a restart can complete: the run cannot make progress".to_string(),
    }
}

fn role_name_zh(r: DeviceRole) -> &'static str {
    match r {
        DeviceRole::OnlyStage => "该设备",
        DeviceRole::FirstStage => "第 0 级流水线",
        DeviceRole::LastStage => "最后一级流水线",
    }
}

/// The space Chinese typesetting puts between a Latin word and a Chinese
/// character: one beside a Latin letter or digit ("HBM 在…", "为 NVMe"),
/// none beside a Chinese one ("主机内存在…").
pub(crate) fn latin_gap(beside: Option<char>) -> &'static str {
    if beside.is_some_and(|c| c.is_ascii_alphanumeric()) {
        " "
    } else {
        ""
    }
}

fn tier_name_zh(t: Tier) -> &'static str {
    match t {
        Tier::Hbm => "HBM",
        Tier::Cxl => "CXL 内存",
        Tier::HostDram => "主机内存",
        Tier::Nvme => "NVMe",
    }
}

/// The message in Simplified Chinese. Free-text parts that come from the
/// input checks (`InvalidValue::problem`) stay in English.
fn message_zh(d: &DiagnosticKind) -> String {
    use DiagnosticKind as K;
    match d {
        K::InvalidValue { field, problem } => format!("{field}：{problem}"),
        K::TpHeads { tp, heads } => format!("TP={tp} 不能整除 {heads} 个注意力头"),
        K::TpKvHeads { tp, kv_heads } => format!("TP={tp} 与 {kv_heads} 个 KV 头互不整除"),
        K::KvHeadsReplicated { tp, kv_heads } => format!(
            "{kv_heads} 个 KV 头分布在 TP={tp} 上：每个 rank 保留一份 KV 头副本，KV 缓存的缩减小于 1/TP"
        ),
        K::TpFfn { tp, ffn } => format!("TP={tp} 不能整除 FFN 宽度 {ffn}"),
        K::PpLayers { pp, layers } => format!(
            "PP={pp} 不能整除 {layers} 层；第 0 级承担 {} 层",
            layers.div_ceil((*pp).max(1))
        ),
        K::PpTooDeep { pp, layers } => format!("PP={pp} 的级数多于 {layers} 层"),
        K::InterleaveLayers { pp, chunks, layers } => format!(
            "{layers} 层无法均匀切分为 PP={pp} 级 × {chunks} 个块：Megatron-LM 的交错调度不接受这种切分，且每个块至少需要一层"
        ),
        K::InterleaveMicroBatches {
            pp,
            micro_batches,
            group,
        } => format!(
            "交错调度按每组 {group} 个微批次运行（levers.parallel.microbatch_group，默认等于 PP={pp}）：Megatron-Core 要求 PP ≤ 组大小 ≤ 微批次数 {micro_batches}，且最后一组完整或不少于 PP"
        ),
        K::DualPipeMicroBatches { pp, micro_batches } => format!(
            "DualPipeV 每个流水线级至少需要两个微批次：PP={pp} 需要 {} 个，当前只有 {micro_batches} 个",
            2 * u64::from(*pp)
        ),
        K::PipelineUnderfilled { pp, micro_batches } => format!(
            "PP={pp} 只有 {micro_batches} 个微批次：流水线无法填满，气泡占主导"
        ),
        K::DegreesProduct { product, gpus } => {
            format!("TP×PP×CP×DP = {product}，但硬件只有 {gpus} 块 GPU")
        }
        K::BatchSplit {
            global_batch,
            micro_batch,
            dp,
        } => format!("全局批大小 {global_batch} 不是微批大小 {micro_batch} × DP {dp} 的整数倍"),
        K::CpSequence { cp, seq_len } => format!("CP={cp} 不能整除序列长度 {seq_len}"),
        K::EpWithoutMoe { ep } => format!("模型没有专家，却设置了 EP={ep}"),
        K::EpExperts { ep, experts } => format!("EP={ep} 不能整除 {experts} 个专家"),
        K::EpRanks { ep, ranks } => format!("EP={ep} 不能整除专家可分布的 {ranks} 个 rank（数据并行 × 上下文并行，× TP ÷ 专家 TP）"),
        K::ShardGroup { group, ranks } => {
            format!("分片组大小 {group} 不能整除 {ranks} 个数据并行 × 上下文并行 rank")
        }
        K::TpBeyondScaleUp { tp, domain } => format!(
            "TP={tp} 跨越了多个 {domain} 卡的纵向扩展域：其 all-reduce 要经过更慢的横向网络"
        ),
        K::SequenceParallelWithoutTp => "序列并行需要 TP > 1，此处不起作用".to_string(),
        K::ShardingWithoutDp => "只有一个数据并行 rank 时，ZeRO/FSDP 分片不会切分任何状态".to_string(),
        K::PartialNode { gpus, per_node } => {
            format!("{gpus} 块 GPU 不是每节点 {per_node} 卡的整数倍")
        }
        K::UnsupportedCompute { precision, gpu } => {
            format!("{gpu} 没有 {precision} 张量核心：矩阵乘按 16 位速率计算")
        }
        K::EmulatedBf16 { gpu, percent } => format!(
            "{gpu} 没有 BF16 张量核心：PyTorch 在 CUDA 核心上模拟 BF16 矩阵乘，约为其 FP16 速率的 {percent:.0} %（众包 torch.mm 实测），按此速率计算；改用 FP16（levers.precision.compute 与 activations 设为 fp16）可达全速"
        ),
        K::FlashUnavailable { gpu } => format!(
            "FlashAttention-2 不支持 {gpu}（需要 Ampere 或更新的 GPU）：框架会改用节省显存的融合内核（PyTorch SDPA、xformers 或 vLLM 的 Triton 内核），同样不保存注意力分数矩阵；该内核在此卡上的速度没有实测，按未实测注意力内核的显卡假定的 60 % 上限计算"
        ),
        K::Bf16Refused { gpu } => format!(
            "vLLM 不支持在 {gpu} 上以 BF16 运行（计算能力低于 8.0），提示改用 --dtype half：请把 levers.precision.compute 与 activations 设为 fp16"
        ),
        K::PowerLimited { limit_w, tdp_w, clock } => format!(
            "功耗上限 {limit_w:.0} W（TDP {tdp_w:.0} W）：计算受限的内核约以 {:.0} % 的频率运行（H100 限功耗实测，arXiv 2604.11391），访存受限的内核不受影响；更密集的矩阵乘可能再低几个百分点",
            clock * 100.0
        ),
        K::PowerLimitAboveTdp { limit_w, tdp_w, gpu } => format!(
            "功耗上限 {limit_w:.0} W 高于 {gpu} 的 TDP {tdp_w:.0} W，驱动不允许：按 TDP 计算"
        ),
        K::CutlassFp4Experts => "TensorRT-LLM 默认的 MoE 后端（CUTLASS）在 Blackwell 上读取 NVFP4 专家权重约为 HBM 峰值带宽的 40 %，每个 MoE 层另加约 70 µs（其技术博客 24），按此计价；其 TRTLLM 后端（levers.engine_knobs.moe_backend: trtllm）约为 70 %".to_string(),
        K::ContextBeyondModel {
            tokens,
            max_context,
        } => format!("每条序列 {tokens} 个 token，超过模型训练时的上下文长度 {max_context}"),
        K::MissingTier { tier } => {
            let name = tier_name_zh(*tier);
            let gap = latin_gap(name.chars().next());
            format!("卸载目标为{gap}{name}，但硬件中没有")
        }
        K::OverCapacity {
            role,
            tier,
            over,
            capacity,
            largest,
            largest_zh,
        } => format!(
            "{}{}在{}上超出 {over}（容量 {capacity}；最大的一项：{}）",
            tier_name_zh(*tier),
            latin_gap(tier_name_zh(*tier).chars().last()),
            role_name_zh(*role),
            if largest_zh.is_empty() {
                largest
            } else {
                largest_zh
            }
        ),
        K::TightFit { role, margin } => format!(
            "{}只剩 {margin} HBM：分配器的瞬时峰值仍可能导致 OOM",
            role_name_zh(*role)
        ),
        K::LeverIgnored { lever } => {
            format!("{} 不适用于该负载，已忽略", lever.name(crate::lang::Lang::Zh))
        }
        K::StackCannotRun {
            stack,
            reason,
            runs,
            others,
        } => format!(
            "{}：{} 不支持{}；{}",
            reason.field(),
            stack.name(Lang::Zh),
            reason.name(Lang::Zh),
            stack_list(runs, others, Lang::Zh)
        ),
        K::StackForLevers {
            stack,
            mainstream,
            reason,
        } => format!(
            "按 {} 评估：该负载的主流框架 {} 不支持{}（{}）；可用 levers.training_stack 指定",
            stack.name(Lang::Zh),
            mainstream.name(Lang::Zh),
            reason.name(Lang::Zh),
            reason.field()
        ),
        K::PredictionsFast { basis, worst } => format!(
            "对于{}{}，模型的预测比每一次公开实测都快，最多比实测时间短 {:.0}%：时间应视为下限，吞吐量应视为上限（docs/validation.md）",
            latin_gap(basis.name(Lang::Zh).chars().next()),
            basis.name(Lang::Zh),
            worst * 100.0
        ),
        K::TtftBelowFrontEnd { target, front_end } => format!(
            "首 token 延迟目标 {:.0} ms 短于服务端前端耗时（每个流式请求 {:.0} ms：HTTP、模板、分词），该服务端上没有方案能达到；若你的前端更快，请在 levers.engine_knobs.front_end_ms 中给出",
            target.as_millis(),
            front_end.as_millis()
        ),
        K::MigCapIgnored { job } => {
            format!("作业 {job:?} 的 levers.memory_cap 已忽略：其 MIG 切片决定其显存")
        }
        K::NoGpuPrice { gpu, field, market } => {
            let on = market.map_or(String::new(), |m| {
                format!("在{}", crate::lang::Named::name(m, crate::lang::Lang::Zh))
            });
            format!("没有 {gpu} {on}的价格：成本未计算；设置 {field} 即可得到成本")
        }
        K::StudentLargerThanTeacher { student, teacher } => format!(
            "蒸馏学生模型有 {:.2} B 参数，多于教师模型的 {:.2} B",
            student / 1e9,
            teacher / 1e9
        ),
        K::RentalMemoryAmortised { gb } => format!(
            "没有云厂商出租 CXL 或额外主机内存：这 {gb:.0} GB 按购买价在默认年限内摊销计价"
        ),
        K::JobInvalid { job, errors } => format!("作业 {job:?} 不是有效的方案：{errors}"),
        K::JobDoesNotFit { job, gpu } => {
            format!("作业 {job:?} 即使独占一整块 {gpu} 也放不下；其方案自身的诊断指出了溢出之处")
        }
        K::JobSloNotMet {
            job,
            gpu,
            ttft,
            tpot,
        } => format!(
            "作业 {job:?} 即使在整块 {gpu} 上以批大小 1 运行也达不到延迟目标（首 token 延迟 {:.0} ms，每 token 延迟 {:.1} ms）",
            ttft.as_millis(),
            tpot.as_millis()
        ),
        K::PoolFull { job, share } => format!("资源池已无空间容纳作业 {job:?}，它需要 {share}"),
        K::BatchBounded {
            job,
            batch,
            requested,
        } => format!(
            "作业 {job:?} 每次只能服务 {batch} 条序列（请求 {requested} 条）：显存或延迟目标限制了批大小"
        ),
        K::MigUnsupported { gpu } => format!("{gpu} 不支持 MIG；每个作业都分配整块 GPU"),
        K::CapsShareCompute => "显存上限只划分显存、不划分算力：同一 GPU 上的作业分时共享 SM 和显存带宽，因此按该 GPU 上所有作业同时繁忙计算延迟和吞吐（k 个作业即慢 k 倍）".to_string(),
        K::WholeGpusForMultiGpuJob { job, gpus } => format!(
            "作业 {job:?} 需要 {gpus} 块 GPU：MIG 实例之间无法通过 NVLink 通信，因此分配整块 GPU"
        ),
        K::JobSpansNodes { job, nodes } => {
            format!("作业 {job:?} 分布在 {nodes} 个节点上：其集合通信要经过横向扩展网络")
        }
        K::NotATrainingPlan => "检查点只适用于训练；该方案是推理服务".to_string(),
        K::PersistOutlastsInterval { persist, interval } => format!(
            "写一次检查点需要 {:.0} 秒，长于检查点间隔 {:.0} 秒：异步保存会不断积压",
            persist.as_secs(),
            interval.as_secs()
        ),
        K::LowGoodput { goodput } => format!(
            "只有 {:.0}% 的时间在做有效计算：检查点、丢失的工作和重启占去了其余时间",
            goodput * 100.0
        ),
        K::NoProgress => "中断来得比一次检查点加一次重启还快：训练无法推进".to_string(),
    }
}

impl Diagnostic {
    /// The message in a language.
    pub fn message_in(&self, lang: crate::lang::Lang) -> String {
        match lang {
            crate::lang::Lang::En => self.message.clone(),
            crate::lang::Lang::Zh => message_zh(&self.detail),
        }
    }
}

/// Most values [`DiagnosticKind::fix`] offers.
pub const MAX_SUGGESTED: usize = 12;

impl DiagnosticKind {
    /// For a diagnostic that says a degree does not divide a count (TP and
    /// the heads, CP and the sequence, EP and the experts…): the plan field
    /// at fault, as a dotted path, and the values of it that divide that
    /// count, smallest first (at most [`MAX_SUGGESTED`]). `None` for every
    /// other diagnostic. The values clear this diagnostic only; another
    /// (the GPU count) may still rule some out.
    pub fn fix(&self) -> Option<(&'static str, Vec<u32>)> {
        use DiagnosticKind as K;
        let (field, count) = match *self {
            K::TpHeads { heads, .. } => ("levers.parallel.tp", heads),
            K::TpFfn { ffn, .. } => ("levers.parallel.tp", ffn),
            K::TpKvHeads { kv_heads, .. } => ("levers.parallel.tp", kv_heads),
            K::PpLayers { layers, .. } | K::PpTooDeep { layers, .. } => {
                ("levers.parallel.pp", layers)
            }
            K::CpSequence { seq_len, .. } => ("levers.parallel.cp", seq_len),
            K::EpExperts { experts, .. } => ("levers.parallel.ep", experts),
            K::EpRanks { ranks, .. } => ("levers.parallel.ep", ranks),
            K::ShardGroup { ranks, .. } => ("levers.shard_group", ranks),
            _ => return None,
        };
        // Pairs up to the square root: at most 65,536 steps for any u32.
        let mut divisors: Vec<u32> = (1..=count)
            .take_while(|d| u64::from(*d) * u64::from(*d) <= u64::from(count))
            .filter(|d| count % d == 0)
            .flat_map(|d| [d, count / d])
            .collect();
        divisors.sort_unstable();
        divisors.dedup();
        divisors.truncate(MAX_SUGGESTED);
        Some((field, divisors))
    }
}

#[cfg(test)]
mod fix_tests {
    use super::*;

    #[test]
    fn tp_over_32_heads_offers_the_divisors_of_32() {
        let k = DiagnosticKind::TpHeads { tp: 3, heads: 32 };
        assert_eq!(
            k.fix(),
            Some(("levers.parallel.tp", vec![1, 2, 4, 8, 16, 32]))
        );
        let cp = DiagnosticKind::CpSequence {
            cp: 3,
            seq_len: 1 << 20,
        };
        let (_, v) = cp.fix().expect("CP over the sequence has a fix");
        assert_eq!(v.len(), MAX_SUGGESTED);
        assert!(v.iter().all(|d| (1u32 << 20) % d == 0));
        assert_eq!(DiagnosticKind::EpWithoutMoe { ep: 2 }.fix(), None);
        // A large prime count is answered at once: itself and 1.
        let big = DiagnosticKind::CpSequence {
            cp: 3,
            seq_len: 4_294_967_291,
        };
        assert_eq!(big.fix().expect("a fix").1, vec![1, 4_294_967_291]);
    }
}

#[cfg(test)]
mod zh_tests {
    use super::*;

    /// Chinese text puts a space between a Latin word and a Chinese
    /// character, and none between two Chinese words.
    #[test]
    fn latin_tier_names_are_spaced_from_chinese() {
        let over = |tier| {
            message_zh(&DiagnosticKind::OverCapacity {
                role: DeviceRole::OnlyStage,
                tier,
                over: Bytes::from_gib(1.0),
                capacity: Bytes::from_gib(80.0),
                largest: "KV cache 1.00 GiB".into(),
                largest_zh: "KV 缓存 1.00 GiB".into(),
            })
        };
        assert!(
            over(Tier::Hbm).starts_with("HBM 在该设备上超出"),
            "{}",
            over(Tier::Hbm)
        );
        assert!(over(Tier::HostDram).starts_with("主机内存在该设备上超出"));
        // The largest item is named in Chinese too.
        assert!(over(Tier::Hbm).ends_with("最大的一项：KV 缓存 1.00 GiB）"));
        let missing = message_zh(&DiagnosticKind::MissingTier { tier: Tier::Nvme });
        assert_eq!(missing, "卸载目标为 NVMe，但硬件中没有");
        let missing = message_zh(&DiagnosticKind::MissingTier {
            tier: Tier::HostDram,
        });
        assert_eq!(missing, "卸载目标为主机内存，但硬件中没有");
    }
}
