//! Names of the plan's choices as the checklist words them, in English
//! and Simplified Chinese.

use crate::hardware::GpuChoice;
use crate::plan::{Checkpointing, Optimizer, PipelineSchedule, Plan, Sharding, Tier};

/// The sharding in words, in English and Chinese, with the switch of the
/// training stack in force where it has its own (`capability.rs` for what
/// each stack runs; the flags from Megatron-LM core_v0.15.0
/// `megatron/training/arguments.py` and torchtitan v0.2.1
/// `config/job_config.py`).
pub(super) fn sharding_names(
    s: Sharding,
    stack: Option<crate::stack::TrainingStack>,
) -> (&'static str, &'static str) {
    use crate::stack::TrainingStack as T;
    match (stack, s) {
        (Some(T::MegatronCore), Sharding::Zero1) => (
            "ZeRO-1 as Megatron-Core's distributed optimizer (--use-distributed-optimizer)",
            "ZeRO-1，即 Megatron-Core 分布式优化器（--use-distributed-optimizer）",
        ),
        (Some(T::MegatronCore), Sharding::Zero2) => (
            "ZeRO-2 as Megatron-FSDP, sharding optimizer states and gradients (--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads)",
            "ZeRO-2，即 Megatron-FSDP 切分优化器状态与梯度（--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads）",
        ),
        (Some(T::MegatronCore), Sharding::Zero3 | Sharding::FsdpFullShard) => (
            "ZeRO-3 (FSDP full shard) as Megatron-FSDP, sharding parameters too (--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params)",
            "ZeRO-3（FSDP 全分片），即 Megatron-FSDP 同时切分参数（--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params）",
        ),
        (Some(T::Torchtitan | T::TorchtitanCompiled), Sharding::FsdpFullShard) => (
            "FSDP2 fully_shard, resharding after forward (torchtitan parallelism.fsdp_reshard_after_forward = \"always\")",
            "FSDP2 fully_shard，前向后重新分片（torchtitan parallelism.fsdp_reshard_after_forward = \"always\"）",
        ),
        (Some(T::Torchtitan | T::TorchtitanCompiled), Sharding::FsdpShardGradOp) => (
            "FSDP2 fully_shard keeping parameters from forward to backward (torchtitan parallelism.fsdp_reshard_after_forward = \"never\")",
            "FSDP2 fully_shard，参数从前向保留到反向（torchtitan parallelism.fsdp_reshard_after_forward = \"never\"）",
        ),
        _ => generic_sharding_names(s),
    }
}

/// The sharding in words when the stack has no switch of its own here.
fn generic_sharding_names(s: Sharding) -> (&'static str, &'static str) {
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
        PipelineSchedule::DualPipeV => (
            "DualPipeV (two chunks per GPU in a V)".into(),
            "DualPipeV（每块 GPU 两个模型块，V 形排布）".into(),
        ),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::TrainingStack as T;

    /// A stack with its own switch is told that switch; DeepSpeed keeps
    /// its stage.
    #[test]
    fn sharding_is_worded_by_the_stack_in_force() {
        let (en, zh) = sharding_names(Sharding::Zero3, Some(T::MegatronCore));
        assert!(en.contains("optim_grads_params") && zh.contains("optim_grads_params"));
        assert!(en.starts_with("ZeRO-3") && zh.starts_with("ZeRO-3"));
        let (en, _) = sharding_names(Sharding::FsdpShardGradOp, Some(T::Torchtitan));
        assert!(
            en.contains("fsdp_reshard_after_forward = \"never\""),
            "{en}"
        );
        let (en, _) = sharding_names(Sharding::Zero3, Some(T::DeepSpeed));
        assert!(en.contains("zero_optimization.stage = 3"), "{en}");
    }
}
