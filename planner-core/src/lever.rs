//! The levers a plan can pull over the memory wall, software or hardware.
//!
//! A vocabulary of its own, below the plan and its economics (which price
//! each lever's engineering effort), so neither imports the other.

use serde::{Deserialize, Serialize};

/// A lever, software or hardware, that a plan can pull over the memory
/// wall (or the throughput wall).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Lever {
    /// ZeRO / FSDP sharding of model states (and hybrid shard groups).
    Sharding,
    /// Activation checkpointing (any granularity).
    ActivationCheckpointing,
    /// Tensor parallelism.
    TensorParallel,
    /// Megatron-style sequence parallelism alongside TP.
    SequenceParallel,
    /// Pipeline parallelism (any schedule).
    PipelineParallel,
    /// Context parallelism.
    ContextParallel,
    /// Expert parallelism.
    ExpertParallel,
    /// FP8 (or FP4) GEMMs.
    LowPrecisionCompute,
    /// INT8/INT4/NF4/FP8/MXFP4 weights.
    WeightQuantization,
    /// A KV cache narrower than 16 bits.
    KvCacheQuantization,
    /// Other number formats: FP16, no master copy, narrower gradients,
    /// optimizer states or activations.
    NumberFormats,
    /// An optimizer other than AdamW.
    Optimizer,
    /// Offload of states to slower tiers.
    Offload,
    /// Placement by heat (a tiering engine).
    TieredPlacement,
    /// Chunked prefill.
    ChunkedPrefill,
    /// Overlap of TP collectives with compute.
    TpCommOverlap,
    /// Structured (2:4) or shape pruning.
    Pruning,
    /// Serving or training a distilled student.
    Distillation,
    /// Training adapters (LoRA, QLoRA) instead of every weight.
    TrainingMethod,
    /// A fused attention kernel (FlashAttention-2) in place of eager
    /// attention or FlashAttention's Triton kernel.
    FusedAttention,
    /// Another training framework (`levers.training_stack`): Megatron-Core,
    /// torchtitan, DeepSpeed, the Hugging Face Trainer.
    TrainingStack,
    /// A different kind of GPU.
    GpuKind,
    /// More GPUs.
    GpuCount,
    /// CXL memory expanders.
    CxlExpansion,
    /// A CXL memory pool.
    MemoryPool,
    /// A larger scale-up (NVLink) domain, such as NVL72.
    ScaleUpDomain,
    /// More host DRAM per node.
    HostMemory,
    /// More NVMe per node.
    Nvme,
    /// A different scale-out fabric or more NICs.
    ScaleOutFabric,
}

impl Lever {
    /// Every lever, in declaration order.
    pub const ALL: [Lever; 29] = [
        Lever::Sharding,
        Lever::ActivationCheckpointing,
        Lever::TensorParallel,
        Lever::SequenceParallel,
        Lever::PipelineParallel,
        Lever::ContextParallel,
        Lever::ExpertParallel,
        Lever::LowPrecisionCompute,
        Lever::WeightQuantization,
        Lever::KvCacheQuantization,
        Lever::NumberFormats,
        Lever::Optimizer,
        Lever::Offload,
        Lever::TieredPlacement,
        Lever::ChunkedPrefill,
        Lever::TpCommOverlap,
        Lever::Pruning,
        Lever::Distillation,
        Lever::TrainingMethod,
        Lever::FusedAttention,
        Lever::TrainingStack,
        Lever::GpuKind,
        Lever::GpuCount,
        Lever::CxlExpansion,
        Lever::MemoryPool,
        Lever::ScaleUpDomain,
        Lever::HostMemory,
        Lever::Nvme,
        Lever::ScaleOutFabric,
    ];

    /// The English name ([`crate::lang::Named`]).
    pub fn label(self) -> &'static str {
        crate::lang::Named::en(self)
    }
}

crate::lang::named!(Lever {
    Lever::Sharding => "sharding", "ZeRO/FSDP sharding", "ZeRO/FSDP 分片";
    Lever::ActivationCheckpointing => "activation_checkpointing", "activation checkpointing", "激活检查点";
    Lever::TensorParallel => "tensor_parallel", "tensor parallelism", "张量并行";
    Lever::SequenceParallel => "sequence_parallel", "sequence parallelism", "序列并行";
    Lever::PipelineParallel => "pipeline_parallel", "pipeline parallelism", "流水线并行";
    Lever::ContextParallel => "context_parallel", "context parallelism", "上下文并行";
    Lever::ExpertParallel => "expert_parallel", "expert parallelism", "专家并行";
    Lever::LowPrecisionCompute => "low_precision_compute", "FP8/FP4 compute", "FP8/FP4 计算";
    Lever::WeightQuantization => "weight_quantization", "weight quantization", "权重量化";
    Lever::KvCacheQuantization => "kv_cache_quantization", "KV-cache quantization", "KV 缓存量化";
    Lever::NumberFormats => "number_formats", "number formats", "数值格式";
    Lever::Optimizer => "optimizer", "optimizer", "优化器";
    Lever::Offload => "offload", "offload", "卸载";
    Lever::TieredPlacement => "tiered_placement", "placement by heat", "按热度分层放置";
    Lever::ChunkedPrefill => "chunked_prefill", "chunked prefill", "分块预填充";
    Lever::TpCommOverlap => "tp_comm_overlap", "TP communication overlap", "TP 通信重叠";
    Lever::FusedAttention => "fused_attention", "FlashAttention-2 kernel", "FlashAttention-2 内核";
    Lever::Pruning => "pruning", "pruning", "剪枝";
    Lever::Distillation => "distillation", "distillation", "蒸馏";
    Lever::TrainingMethod => "training_method", "adapter training (LoRA/QLoRA)", "适配器训练（LoRA/QLoRA）";
    Lever::TrainingStack => "training_stack", "training framework", "训练框架";
    Lever::GpuKind => "gpu_kind", "GPU kind", "GPU 型号";
    Lever::GpuCount => "gpu_count", "GPU count", "GPU 数量";
    Lever::CxlExpansion => "cxl_expansion", "CXL expanders", "CXL 扩展卡";
    Lever::MemoryPool => "memory_pool", "memory pool", "内存池";
    Lever::ScaleUpDomain => "scale_up_domain", "scale-up domain", "纵向扩展域";
    Lever::HostMemory => "host_memory", "host memory", "主机内存";
    Lever::Nvme => "nvme", "NVMe", "NVMe";
    Lever::ScaleOutFabric => "scale_out_fabric", "scale-out fabric", "横向扩展网络";
});
