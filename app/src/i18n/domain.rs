//! Names of the core's enums (memory items, time parts, tiers, verdicts,
//! severities) in both languages, so reports read in either.

use super::{tr, Lang};
use planner_core::effort::{MigrationClass, PlanFamily};
use planner_core::plan::Tier;
use planner_core::report::{DeviceRole, ItemKind, TimeKind, Verdict};
use planner_core::Severity;

/// A memory item's name.
pub fn item(lang: Lang, k: ItemKind) -> &'static str {
    match k {
        ItemKind::Weights => tr(lang, "weights", "权重"),
        ItemKind::Fp8WeightCopies => tr(lang, "FP8 weight copies", "FP8 权重副本"),
        ItemKind::MasterWeights => tr(lang, "master weights", "主权重"),
        ItemKind::Gradients => tr(lang, "gradients", "梯度"),
        ItemKind::OptimizerStates => tr(lang, "optimizer states", "优化器状态"),
        ItemKind::Adapters => tr(lang, "LoRA adapters", "LoRA 适配器"),
        ItemKind::Activations => tr(lang, "activations", "激活值"),
        ItemKind::EmbeddingActivations => tr(lang, "embedding activations", "嵌入层激活"),
        ItemKind::RecomputeWorkingSet => tr(lang, "recompute working set", "重计算工作集"),
        ItemKind::Logits => tr(lang, "logits", "logits"),
        ItemKind::GatherBuffers => tr(lang, "gather buffers", "聚合缓冲区"),
        ItemKind::KvCache => tr(lang, "KV cache", "KV 缓存"),
        ItemKind::KvCacheWaste => tr(lang, "KV cache waste", "KV 缓存浪费"),
        ItemKind::PrefillActivations => tr(lang, "prefill activations", "预填充激活"),
        ItemKind::CudaContext => tr(lang, "CUDA context", "CUDA 上下文"),
        ItemKind::Workspace => tr(lang, "workspaces", "工作区"),
        ItemKind::NcclBuffers => tr(lang, "NCCL buffers", "NCCL 缓冲区"),
        ItemKind::Fragmentation => tr(lang, "fragmentation", "碎片"),
    }
}

/// A time part's name.
pub fn time(lang: Lang, k: TimeKind) -> &'static str {
    match k {
        TimeKind::Gemm => tr(lang, "GEMMs", "矩阵乘"),
        TimeKind::Attention => tr(lang, "attention", "注意力"),
        TimeKind::Elementwise => tr(lang, "element-wise", "逐元素运算"),
        TimeKind::Recompute => tr(lang, "recompute", "重计算"),
        TimeKind::Optimizer => tr(lang, "optimizer step", "优化器更新"),
        TimeKind::WeightRead => tr(lang, "weight reads", "读取权重"),
        TimeKind::KvRead => tr(lang, "KV-cache reads", "读取 KV 缓存"),
        TimeKind::TensorParallel => tr(lang, "TP/SP collectives", "TP/SP 集合通信"),
        TimeKind::ContextParallel => tr(lang, "CP exchange", "CP 交换"),
        TimeKind::ExpertParallel => tr(lang, "EP all-to-all", "EP all-to-all"),
        TimeKind::PipelineP2p => tr(lang, "pipeline sends", "流水线点对点"),
        TimeKind::PipelineBubble => tr(lang, "pipeline bubble", "流水线气泡"),
        TimeKind::DataParallel => tr(lang, "gradient reduction", "梯度归约"),
        TimeKind::ParameterGather => tr(lang, "parameter gathers", "参数聚合"),
        TimeKind::TransferCxl => tr(lang, "CXL transfers", "CXL 传输"),
        TimeKind::TransferHost => tr(lang, "host transfers", "主机传输"),
        TimeKind::TransferNvme => tr(lang, "NVMe transfers", "NVMe 传输"),
        TimeKind::LayerOverhead => tr(lang, "per-layer overhead", "逐层固定开销"),
    }
}

/// A tier's name.
pub fn tier(lang: Lang, t: Tier) -> &'static str {
    match t {
        Tier::Hbm => tr(lang, "HBM", "HBM"),
        Tier::Cxl => tr(lang, "CXL memory", "CXL 内存"),
        Tier::HostDram => tr(lang, "host DRAM", "主机内存"),
        Tier::Nvme => tr(lang, "NVMe", "NVMe"),
    }
}

/// A verdict.
pub fn verdict(lang: Lang, v: Verdict) -> &'static str {
    match v {
        Verdict::Fits => tr(lang, "Fits", "放得下"),
        Verdict::DoesNotFit => tr(lang, "Does not fit", "放不下"),
        Verdict::Invalid => tr(lang, "Invalid plan", "方案无效"),
    }
}

/// A severity.
pub fn severity(lang: Lang, s: Severity) -> &'static str {
    match s {
        Severity::Info => tr(lang, "note", "提示"),
        Severity::Warning => tr(lang, "warning", "警告"),
        Severity::Error => tr(lang, "error", "错误"),
    }
}

/// A migration class (what kind of change adopting a plan is).
pub fn migration(lang: Lang, m: MigrationClass) -> &'static str {
    match m {
        MigrationClass::None => tr(lang, "no change", "无需改动"),
        MigrationClass::Configuration => tr(lang, "configuration", "改配置"),
        MigrationClass::FrameworkChange => tr(lang, "framework change", "换框架"),
        MigrationClass::ModelCodeChange => tr(lang, "model-code change", "改模型代码"),
        MigrationClass::InfrastructureChange => tr(lang, "infrastructure change", "换基础设施"),
    }
}

/// A plan family (where a plan stands against the baseline).
pub fn family(lang: Lang, f: PlanFamily) -> &'static str {
    match f {
        PlanFamily::Baseline => tr(lang, "baseline", "基线"),
        PlanFamily::Algorithmic => tr(lang, "software", "软件手段"),
        PlanFamily::Hardware => tr(lang, "hardware", "硬件方案"),
        PlanFamily::Hybrid => tr(lang, "hybrid", "软硬结合"),
    }
}

/// Which device of a plan a breakdown is for.
pub fn role(lang: Lang, r: DeviceRole) -> &'static str {
    match r {
        DeviceRole::OnlyStage => tr(lang, "every GPU", "每个 GPU"),
        DeviceRole::FirstStage => tr(lang, "first pipeline stage", "流水线第一段"),
        DeviceRole::LastStage => tr(lang, "last pipeline stage", "流水线最后一段"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name exists in both languages and the Chinese one differs
    /// from the English one unless it is a technical acronym.
    #[test]
    fn every_domain_name_is_translated() {
        for k in ItemKind::ALL {
            assert!(!item(Lang::Zh, k).is_empty());
        }
        for k in TimeKind::ALL {
            assert!(!time(Lang::Zh, k).is_empty());
        }
        for t in Tier::ALL {
            assert!(!tier(Lang::Zh, t).is_empty());
        }
        assert_ne!(
            verdict(Lang::Zh, Verdict::Fits),
            verdict(Lang::En, Verdict::Fits)
        );
        assert_ne!(
            family(Lang::Zh, PlanFamily::Hybrid),
            family(Lang::En, PlanFamily::Hybrid)
        );
        assert_ne!(
            migration(Lang::Zh, MigrationClass::Configuration),
            migration(Lang::En, MigrationClass::Configuration)
        );
        assert_ne!(
            role(Lang::Zh, DeviceRole::LastStage),
            role(Lang::En, DeviceRole::LastStage)
        );
    }
}
