//! Names of the plan's choices as the checklist words them, in English
//! and Simplified Chinese.

use crate::hardware::GpuChoice;
use crate::plan::{Checkpointing, Optimizer, PipelineSchedule, Plan, Sharding, Tier};

/// The sharding in words, in English and Chinese.
pub(super) fn sharding_names(s: Sharding) -> (&'static str, &'static str) {
    match s {
        Sharding::None => ("no sharding", "不分片"),
        Sharding::Zero1 => (
            "ZeRO-1 (DeepSpeed zero_optimization.stage = 1, or Megatron's distributed optimizer)",
            "ZeRO-1（DeepSpeed zero_optimization.stage = 1，或 Megatron 分布式优化器）",
        ),
        Sharding::Zero2 => (
            "ZeRO-2 (DeepSpeed zero_optimization.stage = 2)",
            "ZeRO-2（DeepSpeed zero_optimization.stage = 2）",
        ),
        Sharding::Zero3 => (
            "ZeRO-3 (DeepSpeed zero_optimization.stage = 3)",
            "ZeRO-3（DeepSpeed zero_optimization.stage = 3）",
        ),
        Sharding::FsdpFullShard => (
            "PyTorch FSDP ShardingStrategy.FULL_SHARD",
            "PyTorch FSDP ShardingStrategy.FULL_SHARD",
        ),
        Sharding::FsdpShardGradOp => (
            "PyTorch FSDP ShardingStrategy.SHARD_GRAD_OP",
            "PyTorch FSDP ShardingStrategy.SHARD_GRAD_OP",
        ),
        Sharding::FsdpShardGradOpNoSync => (
            "PyTorch FSDP ShardingStrategy.SHARD_GRAD_OP, accumulating under no_sync()",
            "PyTorch FSDP ShardingStrategy.SHARD_GRAD_OP，梯度累积时使用 no_sync()",
        ),
    }
}

/// What is recomputed, in English and Chinese.
pub(super) fn recompute_names(c: Checkpointing) -> (String, String) {
    match c {
        Checkpointing::None => ("none".into(), "不重算".into()),
        Checkpointing::Selective => (
            "selective: the attention core".into(),
            "选择性重算：注意力核心".into(),
        ),
        Checkpointing::Full => (
            "full: every layer from its input".into(),
            "完全重算：每层从其输入重算".into(),
        ),
        Checkpointing::Uniform { group } => (
            format!("every group of {group} layers"),
            format!("每 {group} 层为一组重算"),
        ),
        Checkpointing::Block { layers } => (
            format!("the first {layers} layers of each stage"),
            format!("每个阶段的前 {layers} 层"),
        ),
    }
}

/// The pipeline schedule in words, in English and Chinese.
pub(super) fn schedule_names(s: PipelineSchedule) -> (String, String) {
    match s {
        PipelineSchedule::OneFOneB => ("1F1B".into(), "1F1B".into()),
        PipelineSchedule::Interleaved { chunks } => (
            format!("interleaved 1F1B, {chunks} chunks per GPU"),
            format!("交错式 1F1B，每块 GPU {chunks} 个模型块"),
        ),
        PipelineSchedule::Gpipe => ("GPipe".into(), "GPipe".into()),
    }
}

/// The optimizer's name.
pub(super) fn optimizer_name(o: Optimizer) -> &'static str {
    match o {
        Optimizer::AdamW => "AdamW",
        Optimizer::Adam8bit => "8-bit Adam",
        Optimizer::Adafactor { .. } => "Adafactor",
        Optimizer::Sgd { .. } => "SGD",
    }
}

/// A memory tier in words, in English and Chinese.
pub(super) fn tier_names(tier: Tier) -> (&'static str, &'static str) {
    match tier {
        Tier::Hbm => ("HBM", "HBM"),
        Tier::Cxl => ("CXL memory", "CXL 内存"),
        Tier::HostDram => ("host DRAM", "主机内存"),
        Tier::Nvme => ("NVMe", "NVMe"),
    }
}

/// Tiers the plan offloads to.
pub(super) fn offload_tiers(plan: &Plan) -> Vec<Tier> {
    let o = &plan.levers.offload;
    let mut tiers: Vec<Tier> = o.targets().iter().flatten().map(|t| t.tier).collect();
    tiers.sort();
    tiers.dedup();
    tiers
}

/// The plan's GPU by name.
pub(super) fn gpu_name(plan: &Plan) -> String {
    match &plan.hardware.gpu {
        GpuChoice::Preset(id) => crate::catalog::gpu(*id).name.to_string(),
        GpuChoice::Custom(g) => g.name.clone(),
    }
}

/// How the plan's GPU reaches host memory.
pub(super) fn host_link(plan: &Plan) -> crate::catalog::LinkId {
    match &plan.hardware.gpu {
        GpuChoice::Preset(id) => crate::catalog::gpu(*id).spec.host_link,
        GpuChoice::Custom(g) => g.spec.host_link,
    }
}
