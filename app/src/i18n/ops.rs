//! Strings of the operations views (tenants, reliability, the wall over
//! time) and of the migration checklist, in English and Simplified Chinese,
//! and the names of the core's enums those views show.

use super::{tr, Lang};
use planner_core::checkpoint::{StorageBound, WriteStep};
use planner_core::tenants::{JobKind, ShareMode};

strings! {
    // Tenants: the pool and the jobs.
    TenantsTitle => "The workspace's plans as tenants of one pool of GPUs", "将工作区中的方案作为租户，共享一个 GPU 池";
    Pool => "Pool", "GPU 池";
    PoolGpu => "GPU kind", "GPU 型号";
    PoolSize => "GPUs in the pool", "池中 GPU 数";
    ShareModeLabel => "Sharing", "共享方式";
    ModeMig => "MIG slices", "MIG 切片";
    ModeCap => "Memory caps, compute time-shared", "显存上限，计算分时共享";
    ModeExclusive => "Whole GPUs (no sharing)", "整卡独占（不共享）";
    HasMig => "MIG", "支持 MIG";
    Jobs => "Jobs: plans that run on the pool", "作业：在池中运行的方案";
    RunsOnPool => "runs on the pool", "在池中运行";
    MaxTtft => "Max TTFT (s)", "TTFT 上限（秒）";
    MaxTpot => "Max TPOT (ms)", "TPOT 上限（毫秒）";
    MinBatch => "Smallest batch", "最小批大小";
    NoTarget => "none", "不限";
    PlansBatch => "the plan's", "方案自身的";
    NoJobs => "No plan runs on the pool: tick at least one.", "没有方案在池中运行：请至少勾选一个。";
    GpuGrid => "GPUs of the pool and what each holds", "池中各 GPU 及其承载的作业";
    Free => "free", "空闲";
    Node => "node", "节点";
    Job => "Job", "作业";
    Kind => "Kind", "类型";
    Given => "Given per GPU", "每 GPU 分配";
    GpusCol => "On GPU no.", "GPU 编号";
    Capacity => "Memory (GiB)", "可用显存 (GiB)";
    Peak => "Peak (GiB)", "峰值 (GiB)";
    Headroom => "Headroom (GiB)", "余量 (GiB)";
    Fits => "Fits", "能否放下";
    BatchKept => "Batch kept", "保留批大小";
    ThroughputKept => "Throughput kept", "保留吞吐";
    TokensLost => "Tokens/s lost", "损失 token/s";
    Slowdown => "step time ×", "单步时间 ×";
    Placed => "Placed", "已放置";
    Yes => "yes", "是";
    No => "no", "否";
    KindTraining => "pre-training", "预训练";
    KindFineTuning => "fine-tuning", "微调";
    KindServing => "serving", "推理服务";
    CapOf => "cap", "上限";
    WholeGpu => "whole GPU", "整卡";
    Nowhere => "fits nowhere", "无处可放";
    JobsPlaced => "Jobs placed", "已放置作业";
    GpusUsed => "GPUs used", "已用 GPU";
    WithoutSharing => "GPUs the placed jobs take without sharing", "已放置作业不共享时所需 GPU";
    ModeUsed => "Sharing used", "实际共享方式";
    WhyNot => "What did not fit, and why", "未能放下的作业及原因";
    NothingWrong => "Every job is placed.", "所有作业均已放置。";
    NoNotes => "No problems found.", "未发现问题。";
    // Reliability.
    ReliabilityTitle => "Checkpoints and failures of the active plan", "当前方案的检查点与故障";
    TrainingOnly => "Checkpoints apply to training. The active plan is a serving plan: pick a training plan to see its checkpoint size, interval and goodput.", "检查点只适用于训练。当前方案是推理服务：请选择训练方案，查看其检查点大小、间隔与有效时间占比。";
    StorageSettings => "Storage and failures", "存储与故障";
    Storage => "Storage bandwidth, aggregate (GB/s)", "存储总带宽 (GB/s)";
    NodeBandwidth => "Storage bandwidth per node (GB/s)", "单节点存储带宽 (GB/s)";
    FailureRate => "Interruptions per GPU-year", "每 GPU 每年中断次数";
    RestartMinutes => "Relaunch before reading (min)", "重启耗时（分钟）";
    AsyncSave => "Asynchronous saves (stall for staging only)", "异步保存（只在暂存时停顿）";
    OwnShards => "Each rank writes all it holds (replicas too)", "每个 rank 写出其持有的全部状态（含副本）";
    Default => "default", "默认";
    CkptSize => "Checkpoint size (each state once)", "检查点大小（每种状态一份）";
    RestoreBytes => "Read on restore", "恢复时读取";
    HeldPerRank => "Held by the most loaded rank", "负载最重的 rank 持有";
    WrittenPerRank => "Written by the slowest rank", "最慢 rank 写出";
    WrittenPerNode => "Written by the busiest node", "最忙节点写出";
    ByTier => "Where the rank's share is, and how it is written", "该 rank 份额所在层级及写出方式";
    StorageUsed => "Storage bandwidth used", "所用存储带宽";
    Aggregate => "aggregate", "总计";
    PerNode => "per node", "每节点";
    BoundBy => "persist limited by", "持久化受限于";
    BoundAggregate => "the storage's aggregate bandwidth", "存储总带宽";
    BoundPerNode => "each node's link to storage", "各节点到存储的链路";
    Stage => "Staging (HBM to host, NVMe reads)", "暂存（HBM 到主机、读 NVMe）";
    Persist => "Persisting to storage", "持久化到存储";
    Stall => "Training stalls per save (δ)", "每次保存训练停顿 (δ)";
    Restore => "Restore after an interruption (R)", "中断后恢复 (R)";
    Mtbi => "Mean time between interruptions (M)", "平均中断间隔 (M)";
    PerDay => "Interruptions per day", "每天中断次数";
    Interval => "Checkpoint interval (optimum of Daly's model)", "检查点间隔（Daly 模型的最优解）";
    Young => "Young's interval √(2δM)", "Young 间隔 √(2δM)";
    Daly => "Daly's estimate", "Daly 估计";
    StepsPerInterval => "Steps between checkpoints", "两次检查点之间的步数";
    Goodput => "Goodput (useful share of wall time)", "有效时间占比";
    LostHours => "GPU-hours lost per day", "每天损失的 GPU 小时";
    TimeToTrain => "Time to train, without failures", "训练时长（无故障）";
    WithFailures => "Time to train, with failures and checkpoints", "训练时长（含故障与检查点）";
    StagedThroughHost => "staged through host memory", "经主机内存中转";
    WrittenDirectly => "written as it is", "直接写出";
    ReadFromNvme => "read from NVMe first", "先从 NVMe 读出";
    Held => "held", "持有";
    Writes => "writes", "写出";
    ReliabilityChart => "Goodput and checkpoint interval against the failure rate", "有效时间占比与检查点间隔随故障率的变化";
    RateAxis => "interruptions per GPU-year", "每 GPU 每年中断次数";
    GoodputAxis => "goodput (%)", "有效时间占比 (%)";
    IntervalAxis => "interval (hours)", "间隔（小时）";
    ThisRate => "this plan's rate", "当前故障率";
    // Checklist.
    Checklist => "Migration checklist of the active plan", "当前方案的迁移清单";
    Baseline => "Against", "对照";
    PlainBaseline => "plain data parallelism on the same GPUs", "同一 GPU 上的朴素数据并行";
    MostDisruptive => "Most disruptive change", "最大改动类型";
    PersonWeeks => "Assumed person-weeks", "假设工作量（人周）";
    Why => "Why:", "原因：";
    NothingToDo => "Nothing to change or verify.", "无需修改或核实。";
    FixErrorsFirst => "The plan has errors (listed above); its checklist follows once they are fixed.", "方案有错误（见上方列表）；修正后才会给出迁移清单。";
    // The wall over time.
    WallTitle => "Memory a model needs under the active plan, against GPU memory, by year", "按当前方案所需的模型显存与 GPU 显存的逐年对比";
    Year => "year", "年份";
    GbAxis => "GB (10⁹ bytes), log scale", "GB（10⁹ 字节），对数刻度";
    GpuMemory => "GPU memory as announced: the wall", "GPU 发布时的显存：墙";
    ModelNeed => "A model on one GPU under this plan: the climb", "按当前方案单 GPU 所需：要翻越的高度";
    FewestGpus => "Fewest GPUs", "最少 GPU 数";
    PerGpu => "per GPU", "每 GPU";
    Parameters => "parameters", "参数量";
    Source => "source", "来源";
    BeyondSearch => "fits at no GPU count tried", "在尝试的任何 GPU 数量下都放不下";
    WallNote => "Each model is evaluated with the active plan's workload and levers (its context clamped to the model's). The fewest GPUs are of the active plan's GPU kind, training states sharded by FSDP over data-parallel ranks and serving split into pipeline stages; activations do not shrink with more data-parallel ranks, so a training plan without full recomputation may fit at no count.", "每个模型都按当前方案的工作负载与手段计算（上下文长度不超过模型本身的上限）。最少 GPU 数按当前方案的 GPU 型号计算：训练时用 FSDP 在数据并行的各 rank 间切分模型状态，推理时按流水线阶段切分；激活值不会随数据并行 rank 增多而减小，因此未开启完全重算的训练方案可能在任何数量下都放不下。";
    Model => "Model", "模型";
    Published => "Published", "发布时间";
    ParamsCol => "Parameters", "参数量";
    OneGpu => "On one GPU (GB)", "单 GPU 所需 (GB)";
}

/// A sharing mode's name.
pub fn mode(lang: Lang, m: ShareMode) -> &'static str {
    match m {
        ShareMode::Mig => t(lang, K::ModeMig),
        ShareMode::MemoryCap => t(lang, K::ModeCap),
        ShareMode::Exclusive => t(lang, K::ModeExclusive),
    }
}

/// A job kind's name.
pub fn kind(lang: Lang, k: JobKind) -> &'static str {
    match k {
        JobKind::Training => t(lang, K::KindTraining),
        JobKind::FineTuning => t(lang, K::KindFineTuning),
        JobKind::Serving => t(lang, K::KindServing),
    }
}

/// How a tier's bytes reach storage.
pub fn step(lang: Lang, s: WriteStep) -> &'static str {
    match s {
        WriteStep::StageThroughHost => t(lang, K::StagedThroughHost),
        WriteStep::Direct => t(lang, K::WrittenDirectly),
        WriteStep::ReadFromNvme => t(lang, K::ReadFromNvme),
    }
}

/// Which limit sets the persist time.
pub fn bound(lang: Lang, b: StorageBound) -> &'static str {
    match b {
        StorageBound::Aggregate => t(lang, K::BoundAggregate),
        StorageBound::PerNode => t(lang, K::BoundPerNode),
    }
}

/// Yes or no.
pub fn yes_no(lang: Lang, v: bool) -> &'static str {
    t(lang, if v { K::Yes } else { K::No })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has_cjk(s: &str) -> bool {
        s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    }

    #[test]
    fn every_key_is_translated() {
        for k in K::ALL {
            let (en, zh) = (t(Lang::En, *k), t(Lang::Zh, *k));
            assert!(!en.trim().is_empty(), "{k:?}");
            assert_ne!(en, zh, "{k:?} is not translated");
            assert!(has_cjk(zh), "{k:?}: {zh}");
        }
    }

    #[test]
    fn keys_are_listed_once() {
        let set: std::collections::HashSet<K> = K::ALL.iter().copied().collect();
        assert_eq!(set.len(), K::ALL.len());
    }

    #[test]
    fn enum_names_differ_by_language() {
        for m in [ShareMode::Mig, ShareMode::MemoryCap, ShareMode::Exclusive] {
            assert!(has_cjk(mode(Lang::Zh, m)));
        }
        for k in [JobKind::Training, JobKind::FineTuning, JobKind::Serving] {
            assert_ne!(kind(Lang::En, k), kind(Lang::Zh, k));
        }
        for s in [
            WriteStep::StageThroughHost,
            WriteStep::Direct,
            WriteStep::ReadFromNvme,
        ] {
            assert!(has_cjk(step(Lang::Zh, s)));
        }
        assert!(has_cjk(bound(Lang::Zh, StorageBound::PerNode)));
    }
}
