//! Migration checklists: what a team must change or verify to adopt a plan,
//! item by item, generated from the levers and hardware the plan uses
//! beyond a baseline ([`effort::efforts`]) and from the plan's own figures
//! (its memory margin, its largest item, its checkpoint interval).
//!
//! Every item carries its category, its text and the reason it follows from
//! the plan, each in English and Simplified Chinese, so the app can show
//! either language without re-deriving anything. Items are data; their
//! order is the order of the levers in [`Lever`], then the plan-wide items.

use crate::checkpoint::{self, CheckpointSettings};
use crate::effort::{self, Lever, MigrationClass};
use crate::evaluate::evaluate;
use crate::hardware::GpuChoice;
use crate::lang::Lang;
use crate::plan::{
    Checkpointing, KvCacheLayout, Optimizer, PipelineSchedule, Plan, Sharding, Tier, TrainingKind,
    Workload,
};
use crate::report::{Report, Verdict};
use serde::{Deserialize, Serialize};

/// What kind of work an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// The framework must support a feature (a ZeRO stage, paged KV, FP8).
    FrameworkSupport,
    /// The model or training code changes.
    CodeChange,
    /// Machines, memory devices or network to provision or re-check.
    Infrastructure,
    /// Isolation and access control of shared or pooled memory.
    Isolation,
    /// Alerts, post-mortems and state persistence to set up.
    Monitoring,
}

impl Category {
    /// Every category, in display order.
    pub const ALL: [Category; 5] = [
        Category::FrameworkSupport,
        Category::CodeChange,
        Category::Infrastructure,
        Category::Isolation,
        Category::Monitoring,
    ];

    /// The category's name in a language.
    pub fn label(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Category::FrameworkSupport, Lang::En) => "Framework support",
            (Category::FrameworkSupport, Lang::Zh) => "框架支持",
            (Category::CodeChange, Lang::En) => "Code changes",
            (Category::CodeChange, Lang::Zh) => "代码修改",
            (Category::Infrastructure, Lang::En) => "Infrastructure",
            (Category::Infrastructure, Lang::Zh) => "基础设施",
            (Category::Isolation, Lang::En) => "Isolation and access control",
            (Category::Isolation, Lang::Zh) => "隔离与访问控制",
            (Category::Monitoring, Lang::En) => "Monitoring",
            (Category::Monitoring, Lang::Zh) => "监控",
        }
    }
}

/// A text in both languages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Text {
    /// English.
    pub en: String,
    /// Simplified Chinese.
    pub zh: String,
}

impl Text {
    /// The text in a language.
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
}

/// One thing to change or verify.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChecklistItem {
    /// A stable key (`sharding.framework`), for tests and links.
    pub id: String,
    /// What kind of work.
    pub category: Category,
    /// The lever it follows from (`None` for plan-wide items).
    pub lever: Option<Lever>,
    /// The kind of change (from [`effort`]).
    pub class: MigrationClass,
    /// What to do.
    pub text: Text,
    /// Why the plan needs it.
    pub reason: Text,
}

/// A plan's checklist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Checklist {
    /// The plan's name.
    pub plan: String,
    /// The baseline's name.
    pub baseline: String,
    /// Whether the baseline is the plain one ([`effort::plain_baseline`]).
    pub plain_baseline: bool,
    /// The most disruptive change.
    pub migration: MigrationClass,
    /// Assumed person-weeks, from [`effort`].
    pub person_weeks: f64,
    /// The items.
    pub items: Vec<ChecklistItem>,
}

impl Checklist {
    /// The checklist as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Items of one category.
    pub fn of(&self, category: Category) -> impl Iterator<Item = &ChecklistItem> {
        self.items.iter().filter(move |i| i.category == category)
    }
}

fn t(en: impl Into<String>, zh: impl Into<String>) -> Text {
    Text {
        en: en.into(),
        zh: zh.into(),
    }
}

struct Items(Vec<ChecklistItem>);

impl Items {
    fn add(
        &mut self,
        id: &str,
        category: Category,
        lever: Option<Lever>,
        class: MigrationClass,
        text: Text,
        reason: Text,
    ) {
        self.0.push(ChecklistItem {
            id: id.into(),
            category,
            lever,
            class,
            text,
            reason,
        });
    }
}

fn sharding_names(s: Sharding) -> (&'static str, &'static str) {
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
    }
}

fn recompute_names(c: Checkpointing) -> (String, String) {
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

fn schedule_names(s: PipelineSchedule) -> (String, String) {
    match s {
        PipelineSchedule::OneFOneB => ("1F1B".into(), "1F1B".into()),
        PipelineSchedule::Interleaved { chunks } => (
            format!("interleaved 1F1B, {chunks} chunks per GPU"),
            format!("交错式 1F1B，每块 GPU {chunks} 个模型块"),
        ),
        PipelineSchedule::Gpipe => ("GPipe".into(), "GPipe".into()),
    }
}

fn optimizer_name(o: Optimizer) -> &'static str {
    match o {
        Optimizer::AdamW => "AdamW",
        Optimizer::Adam8bit => "8-bit Adam",
        Optimizer::Adafactor { .. } => "Adafactor",
        Optimizer::Sgd { .. } => "SGD",
    }
}

fn tier_names(tier: Tier) -> (&'static str, &'static str) {
    match tier {
        Tier::Hbm => ("HBM", "HBM"),
        Tier::Cxl => ("CXL memory", "CXL 内存"),
        Tier::HostDram => ("host DRAM", "主机内存"),
        Tier::Nvme => ("NVMe", "NVMe"),
    }
}

/// Tiers the plan offloads to.
fn offload_tiers(plan: &Plan) -> Vec<Tier> {
    let o = &plan.levers.offload;
    let mut tiers: Vec<Tier> = [
        o.optimizer,
        o.parameters,
        o.gradients,
        o.activations,
        o.kv_cache,
    ]
    .iter()
    .flatten()
    .map(|t| t.tier)
    .collect();
    tiers.sort();
    tiers.dedup();
    tiers
}

fn gpu_name(plan: &Plan) -> String {
    match &plan.hardware.gpu {
        GpuChoice::Preset(id) => crate::catalog::gpu(*id).name.to_string(),
        GpuChoice::Custom(g) => g.name.clone(),
    }
}

fn host_link(plan: &Plan) -> crate::catalog::LinkId {
    match &plan.hardware.gpu {
        GpuChoice::Preset(id) => crate::catalog::gpu(*id).spec.host_link,
        GpuChoice::Custom(g) => g.spec.host_link,
    }
}

/// Items for one lever the plan adds over its baseline.
fn lever_items(out: &mut Items, plan: &Plan, lever: Lever, class: MigrationClass) {
    use Category as C;
    let l = &plan.levers;
    let par = &l.parallel;
    let gpus = plan.hardware.gpus;
    let lv = Some(lever);
    match lever {
        Lever::Sharding => {
            let (en, zh) = sharding_names(l.sharding);
            let group = l.shard_group.unwrap_or(par.dp.saturating_mul(par.cp));
            out.add(
                "sharding.framework",
                C::FrameworkSupport,
                lv,
                class,
                t(
                    format!("Turn on {en} and check that the framework version supports it with the plan's other levers."),
                    format!("启用 {zh}，并确认所用框架版本在与方案其他杠杆组合时支持它。"),
                ),
                t(
                    format!("The plan shards model states over {group} ranks."),
                    format!("方案把模型状态切分到 {group} 个 rank 上。"),
                ),
            );
            out.add(
                "sharding.checkpoints",
                C::CodeChange,
                lv,
                class,
                t(
                    "Save and load sharded checkpoints (DeepSpeed, FSDP state-dict types or torch.distributed.checkpoint) and test a resume, also at a different GPU count.",
                    "改用分片检查点（DeepSpeed、FSDP 的 state-dict 类型或 torch.distributed.checkpoint）的保存与加载，并测试恢复训练，包括在不同 GPU 数量下恢复。",
                ),
                t(
                    "Sharded optimizer states exist only as per-rank shards; a single-file checkpoint no longer holds them.",
                    "分片后的优化器状态只以各 rank 的分片形式存在，单文件检查点已无法容纳它们。",
                ),
            );
        }
        Lever::ActivationCheckpointing => out.add(
            "recompute.wrap",
            C::CodeChange,
            lv,
            class,
            t(
                "Wrap the transformer blocks in activation checkpointing (torch.utils.checkpoint, FSDP's checkpoint wrapper, or Megatron --recompute-granularity/--recompute-method) and re-measure the step time.",
                "用激活检查点包装 Transformer 块（torch.utils.checkpoint、FSDP 的 checkpoint wrapper，或 Megatron 的 --recompute-granularity/--recompute-method），并重新测量步时。",
            ),
            {
                let (en, zh) = recompute_names(l.checkpointing);
                t(
                    format!("The plan recomputes activations ({en})."),
                    format!("方案在反向传播中重算激活（{zh}）。"),
                )
            },
        ),
        Lever::TensorParallel => {
            out.add(
                "tp.model",
                C::CodeChange,
                lv,
                class,
                t(
                    "Port the model to tensor-parallel layers (Megatron-style column- and row-parallel linears, vocabulary-parallel embedding and loss), or move to a framework that provides them.",
                    "把模型改写为张量并行层（Megatron 式的列并行与行并行线性层、词表并行的嵌入和损失），或迁移到提供这些层的框架。",
                ),
                t(
                    format!("The plan splits every layer over TP = {} GPUs.", par.tp),
                    format!("方案把每一层切分到 TP = {} 块 GPU 上。", par.tp),
                ),
            );
            out.add(
                "tp.network",
                C::Infrastructure,
                lv,
                class,
                t(
                    "Keep every TP group inside one NVLink/NVSwitch domain and measure its all-reduce bandwidth (nccl-tests) before the run.",
                    "确保每个 TP 组都位于同一个 NVLink/NVSwitch 域内，并在运行前用 nccl-tests 测量其 all-reduce 带宽。",
                ),
                t(
                    "TP all-reduces sit on the critical path of every layer.",
                    "TP 的 all-reduce 位于每一层的关键路径上。",
                ),
            );
        }
        Lever::SequenceParallel => out.add(
            "sp.model",
            C::CodeChange,
            lv,
            class,
            t(
                "Split norms and dropout along the sequence around the TP layers (Megatron --sequence-parallel) and check the loss matches the unsplit run.",
                "在 TP 层两侧沿序列维度切分归一化和 dropout（Megatron --sequence-parallel），并确认损失与不切分时一致。",
            ),
            t(
                "The plan uses sequence parallelism with TP.",
                "方案在 TP 之上使用序列并行。",
            ),
        ),
        Lever::PipelineParallel => {
            out.add(
                "pp.model",
                C::CodeChange,
                lv,
                class,
                t(
                    "Split the model into pipeline stages with balanced layers, choose the schedule, and keep at least as many micro-batches per step as stages.",
                    "把模型拆分为层数均衡的流水线阶段，选定调度方式，并保证每步的微批次数不少于阶段数。",
                ),
                {
                    let (en, zh) = schedule_names(par.schedule);
                    t(
                        format!("The plan runs PP = {} stages ({en}).", par.pp),
                        format!("方案使用 PP = {} 级流水线（{zh}）。", par.pp),
                    )
                },
            );
            out.add(
                "pp.network",
                C::Infrastructure,
                lv,
                class,
                t(
                    "Check the point-to-point bandwidth between consecutive stages, across nodes where stages span them.",
                    "检查相邻流水线阶段之间的点对点带宽，阶段跨节点时尤其要检查。",
                ),
                t(
                    "Activations cross stage boundaries every micro-batch.",
                    "每个微批次的激活都要跨越阶段边界传输。",
                ),
            );
        }
        Lever::ContextParallel => out.add(
            "cp.framework",
            C::FrameworkSupport,
            lv,
            class,
            t(
                "Adopt a context-parallel attention (Megatron-Core context parallelism or ring attention) and check the sequence length divides by CP.",
                "采用上下文并行注意力（Megatron-Core 上下文并行或 ring attention），并确认序列长度能被 CP 整除。",
            ),
            t(
                format!("The plan splits each sequence over CP = {} GPUs.", par.cp),
                format!("方案把每条序列切分到 CP = {} 块 GPU 上。", par.cp),
            ),
        ),
        Lever::ExpertParallel => {
            out.add(
                "ep.framework",
                C::FrameworkSupport,
                lv,
                class,
                t(
                    "Adopt an expert-parallel MoE layer with all-to-all token dispatch (Megatron-Core MoE, DeepSpeed-MoE) and a load-balancing loss.",
                    "采用带 all-to-all 令牌分发的专家并行 MoE 层（Megatron-Core MoE、DeepSpeed-MoE）以及负载均衡损失。",
                ),
                t(
                    format!("The plan spreads experts over EP = {} ranks.", par.ep),
                    format!("方案把专家分布到 EP = {} 个 rank 上。", par.ep),
                ),
            );
            out.add(
                "ep.network",
                C::Infrastructure,
                lv,
                class,
                t(
                    "Measure all-to-all bandwidth over the EP group's span (nccl-tests alltoall_perf).",
                    "在 EP 组所跨的范围内测量 all-to-all 带宽（nccl-tests 的 alltoall_perf）。",
                ),
                t(
                    "Every MoE layer exchanges tokens between expert ranks.",
                    "每个 MoE 层都要在专家 rank 之间交换令牌。",
                ),
            );
        }
        Lever::LowPrecisionCompute => {
            out.add(
                "fp8.framework",
                C::FrameworkSupport,
                lv,
                class,
                t(
                    format!("Use Transformer Engine layers with an FP8 recipe on {}, and confirm the GPU has FP8 tensor cores.", gpu_name(plan)),
                    format!("在 {} 上使用 Transformer Engine 层和 FP8 配方，并确认该 GPU 具备 FP8 张量核心。", gpu_name(plan)),
                ),
                t(
                    format!("The plan computes GEMMs in {}.", l.precision.compute.label()),
                    format!("方案以 {} 计算 GEMM。", l.precision.compute.label()),
                ),
            );
            out.add(
                "fp8.convergence",
                C::Monitoring,
                lv,
                class,
                t(
                    "Track the loss against a BF16 reference run for the first thousands of steps and alert on divergence.",
                    "在最初数千步内把损失与 BF16 参考运行对比，并在出现发散时告警。",
                ),
                t(
                    "Narrow formats can change convergence.",
                    "更窄的数值格式可能影响收敛。",
                ),
            );
        }
        Lever::WeightQuantization => out.add(
            "quant.weights",
            C::FrameworkSupport,
            lv,
            class,
            t(
                format!("Produce a {} checkpoint the serving engine loads (GPTQ/AWQ/FP8 in vLLM or TensorRT-LLM) and run the accuracy evaluation before switching traffic.", l.precision.weights.label()),
                format!("生成推理引擎可加载的 {} 检查点（vLLM 或 TensorRT-LLM 中的 GPTQ/AWQ/FP8），并在切换流量前完成精度评测。", l.precision.weights.label()),
            ),
            t(
                format!("The plan stores weights in {}.", l.precision.weights.label()),
                format!("方案以 {} 存储权重。", l.precision.weights.label()),
            ),
        ),
        Lever::KvCacheQuantization => out.add(
            "quant.kv",
            C::FrameworkSupport,
            lv,
            class,
            t(
                format!("Set the KV-cache format to {} (vLLM --kv-cache-dtype) and check accuracy on long prompts.", l.precision.kv_cache.label()),
                format!("把 KV 缓存格式设为 {}（vLLM --kv-cache-dtype），并在长提示上检查精度。", l.precision.kv_cache.label()),
            ),
            t(
                "The plan narrows the KV cache.",
                "方案压缩了 KV 缓存的数值格式。",
            ),
        ),
        Lever::NumberFormats => out.add(
            "formats.convergence",
            C::Monitoring,
            lv,
            class,
            t(
                "Set the mixed-precision options (master weights, gradient and optimizer formats) and compare the loss curve with the current run's.",
                "设置混合精度选项（主权重、梯度和优化器状态的格式），并把损失曲线与当前运行对比。",
            ),
            t(
                "The plan changes number formats beyond the weights.",
                "方案更改了权重以外的数值格式。",
            ),
        ),
        Lever::Optimizer => out.add(
            "optimizer.swap",
            C::CodeChange,
            lv,
            class,
            t(
                "Swap the optimizer (bitsandbytes 8-bit Adam, Adafactor, SGD), retune its hyper-parameters and check convergence.",
                "更换优化器（bitsandbytes 8-bit Adam、Adafactor、SGD），重新调整超参数并检查收敛。",
            ),
            t(
                format!("The plan uses {}.", optimizer_name(l.optimizer)),
                format!("方案使用 {}。", optimizer_name(l.optimizer)),
            ),
        ),
        Lever::Offload => {
            let tiers = offload_tiers(plan);
            let en: Vec<&str> = tiers.iter().map(|&x| tier_names(x).0).collect();
            let zh: Vec<&str> = tiers.iter().map(|&x| tier_names(x).1).collect();
            out.add(
                "offload.framework",
                C::FrameworkSupport,
                lv,
                class,
                t(
                    format!("Configure offload to {} (DeepSpeed offload_optimizer/offload_param with pinned memory, NVMe paths for ZeRO-Infinity; for serving, the engine's KV swap or offload).", en.join(" and ")),
                    format!("配置卸载到{}（DeepSpeed offload_optimizer/offload_param 并使用锁页内存，ZeRO-Infinity 需要 NVMe 路径；推理则使用引擎的 KV 交换或卸载）。", zh.join("和")),
                ),
                t(
                    "The plan keeps states outside HBM.",
                    "方案把部分状态放在 HBM 之外。",
                ),
            );
            out.add(
                "offload.capacity",
                C::Infrastructure,
                lv,
                class,
                t(
                    "Check each node has the host memory, NVMe and PCIe bandwidth the offload needs, with the other processes of the node counted.",
                    "确认每个节点具备卸载所需的主机内存、NVMe 和 PCIe 带宽，并计入该节点上其他进程的占用。",
                ),
                t(
                    "Offloaded bytes live in the node's shared tiers and move over its host links every step.",
                    "被卸载的数据驻留在节点共享的存储层中，并且每一步都要经主机链路传输。",
                ),
            );
            if host_link(plan) == crate::catalog::LinkId::NvLinkC2c {
                out.add(
                    "offload.unified",
                    C::FrameworkSupport,
                    lv,
                    class,
                    t(
                        "Use the coherent unified address space over NVLink-C2C (CUDA managed or system-allocated memory on Grace) rather than staged copies, and verify the framework allocates there.",
                        "使用 NVLink-C2C 上的一致性统一地址空间（Grace 上的 CUDA 托管内存或系统分配内存）替代分段拷贝，并确认框架确实在那里分配内存。",
                    ),
                    t(
                        "The GPU reaches host memory over NVLink-C2C.",
                        "该 GPU 通过 NVLink-C2C 访问主机内存。",
                    ),
                );
            }
        }
        Lever::TieredPlacement => {
            out.add(
                "tiering.deploy",
                C::Infrastructure,
                lv,
                class,
                t(
                    "Deploy the memory-tiering engine under the framework (access tracking, migration policy) and pin what must stay in HBM.",
                    "在框架之下部署内存分层引擎（访问跟踪、迁移策略），并固定必须留在 HBM 中的数据。",
                ),
                t(
                    "The plan places bytes by heat.",
                    "方案按访问热度放置数据。",
                ),
            );
            out.add(
                "tiering.monitor",
                C::Monitoring,
                lv,
                class,
                t(
                    "Track migration traffic per step and alert when it exceeds what the plan's time model assumes.",
                    "跟踪每一步的迁移流量，在超出方案时间模型的假设时告警。",
                ),
                t(
                    "Cold bytes are moved to slower tiers while the job runs.",
                    "冷数据在作业运行时被迁移到更慢的存储层。",
                ),
            );
        }
        Lever::ChunkedPrefill => out.add(
            "prefill.chunk",
            C::FrameworkSupport,
            lv,
            class,
            t(
                format!("Enable chunked prefill with max_num_batched_tokens = {} (vLLM) and re-measure time to first token.", l.prefill_chunk.unwrap_or(0)),
                format!("启用分块预填充，max_num_batched_tokens = {}（vLLM），并重新测量首 token 延迟。", l.prefill_chunk.unwrap_or(0)),
            ),
            t(
                "The plan bounds the tokens of one prefill pass.",
                "方案限制了单次预填充处理的 token 数。",
            ),
        ),
        Lever::TpCommOverlap => out.add(
            "tp.overlap",
            C::FrameworkSupport,
            lv,
            class,
            t(
                "Enable Transformer Engine userbuffers overlap (Megatron --tp-comm-overlap) and tune its SM budget.",
                "启用 Transformer Engine 的 userbuffers 通信重叠（Megatron --tp-comm-overlap），并调整其占用的 SM 数量。",
            ),
            t(
                "The plan hides TP collectives behind compute.",
                "方案把 TP 集合通信隐藏在计算之后。",
            ),
        ),
        Lever::Pruning | Lever::Distillation => {
            out.add(
                "model.rebuild",
                C::CodeChange,
                lv,
                class,
                t(
                    "Build the smaller model (pruning and retraining, or the distillation pipeline) and keep its recipe reproducible.",
                    "构建更小的模型（剪枝并重新训练，或蒸馏流水线），并保证其配方可复现。",
                ),
                t(
                    "The plan runs a different, smaller model.",
                    "方案运行的是另一个更小的模型。",
                ),
            );
            out.add(
                "model.evaluate",
                C::Monitoring,
                lv,
                class,
                t(
                    "Run the full quality evaluation against the original model before switching, and keep watching quality in production.",
                    "在切换前对照原模型完成完整的质量评测，并在生产中持续监控质量。",
                ),
                t(
                    "A smaller model can lose quality.",
                    "更小的模型可能损失质量。",
                ),
            );
        }
        Lever::GpuKind => out.add(
            "hw.gpu",
            C::Infrastructure,
            lv,
            class,
            t(
                format!("Procure or reserve {} GPUs and requalify drivers, CUDA, NCCL and kernels on them.", gpu_name(plan)),
                format!("采购或预留 {} GPU，并在其上重新验证驱动、CUDA、NCCL 和算子。", gpu_name(plan)),
            ),
            t(
                format!("The plan runs on {}.", gpu_name(plan)),
                format!("方案运行在 {} 上。", gpu_name(plan)),
            ),
        ),
        Lever::GpuCount => out.add(
            "hw.count",
            C::Infrastructure,
            lv,
            class,
            t(
                "Provision the extra nodes and re-check the scale-out topology and bandwidth the job's collectives cross.",
                "准备额外的节点，并重新检查作业集合通信所经过的横向扩展网络拓扑和带宽。",
            ),
            t(
                format!("The plan uses {gpus} GPUs."),
                format!("方案使用 {gpus} 块 GPU。"),
            ),
        ),
        Lever::CxlExpansion => out.add(
            "hw.cxl",
            C::Infrastructure,
            lv,
            class,
            t(
                "Install CXL-capable servers and Type-3 expanders, check the kernel exposes them as a CPU-less NUMA node, and measure their bandwidth and latency.",
                "部署支持 CXL 的服务器和 Type-3 扩展卡，确认内核把它们呈现为无 CPU 的 NUMA 节点，并测量其带宽和延迟。",
            ),
            t(
                "The plan adds CXL expanders to each node.",
                "方案在每个节点上增加了 CXL 内存扩展。",
            ),
        ),
        Lever::MemoryPool => {
            out.add(
                "hw.pool",
                C::Infrastructure,
                lv,
                class,
                t(
                    "Install the CXL switch and pooled memory with its fabric manager, and measure per-host bandwidth with all sharing hosts active.",
                    "部署 CXL 交换机和池化内存及其 fabric manager，并在所有共享主机同时工作时测量每台主机的带宽。",
                ),
                t(
                    "The plan puts states in memory shared by several hosts.",
                    "方案把状态放在多台主机共享的内存中。",
                ),
            );
            out.add(
                "isolation.pool",
                C::Isolation,
                lv,
                class,
                t(
                    "Give each host and tenant its own pool region through the fabric manager, restrict who may map which region, and clear memory before a region is reassigned.",
                    "通过 fabric manager 为每台主机和每个租户分配独立的内存池区域，限制谁能映射哪个区域，并在区域重新分配前清零内存。",
                ),
                t(
                    "Pooled memory is reachable from more than one host.",
                    "池化内存可被多台主机访问。",
                ),
            );
        }
        Lever::ScaleUpDomain => out.add(
            "hw.scaleup",
            C::Infrastructure,
            lv,
            class,
            t(
                "Provision rack-scale NVLink systems (NVL72-class) with their power, cooling and NVLink switch management, and re-check the parallel layout against the larger domain.",
                "部署机柜级 NVLink 系统（NVL72 级），包括其供电、散热和 NVLink 交换机管理，并按更大的域重新检查并行布局。",
            ),
            t(
                format!("The plan uses a {}-GPU scale-up domain.", plan.hardware.scale_up_gpus()),
                format!("方案使用 {} 卡的纵向扩展域。", plan.hardware.scale_up_gpus()),
            ),
        ),
        Lever::HostMemory | Lever::Nvme => out.add(
            "hw.node_memory",
            C::Infrastructure,
            lv,
            class,
            t(
                "Add the DIMMs or drives to each node and check the memory channels or PCIe lanes they need are free.",
                "为每个节点增加内存条或硬盘，并确认所需的内存通道或 PCIe 通道空闲。",
            ),
            t(
                "The plan needs more host memory or NVMe per node.",
                "方案需要每个节点有更多主机内存或 NVMe。",
            ),
        ),
        Lever::ScaleOutFabric => out.add(
            "hw.fabric",
            C::Infrastructure,
            lv,
            class,
            t(
                "Change the node-to-node fabric or NIC count, then re-run nccl-tests across nodes and re-check the topology (rail-optimised or not).",
                "更换节点间网络或网卡数量，然后跨节点重新运行 nccl-tests 并重新检查拓扑（是否轨道优化）。",
            ),
            t(
                "The plan changes the scale-out network.",
                "方案更改了横向扩展网络。",
            ),
        ),
    }
}

/// Items every plan gets from its own figures.
fn plan_items(out: &mut Items, plan: &Plan, report: &Report, ckpt: &CheckpointSettings) {
    use Category as C;
    let none = MigrationClass::None;
    let device = report.binding_device();
    let (peak, capacity) = device
        .and_then(|d| d.hbm().map(|t| (t.used, t.capacity)))
        .unwrap_or_default();
    let largest = device
        .and_then(|d| {
            d.items
                .iter()
                .filter(|i| i.tier == Tier::Hbm)
                .max_by(|a, b| a.bytes.base().total_cmp(&b.bytes.base()))
        })
        .map(|i| (i.kind.label(), i.bytes));

    if report.verdict == Verdict::DoesNotFit {
        out.add(
            "plan.fit",
            C::CodeChange,
            None,
            none,
            t(
                "Resolve the over-capacity first: the plan as written does not fit.",
                "先解决容量超限问题：按当前写法，方案放不下。",
            ),
            t(
                format!("HBM margin {} on the most loaded GPU.", report.hbm_margin),
                format!("负载最重的 GPU 上 HBM 余量为 {}。", report.hbm_margin),
            ),
        );
    }

    if let Some(f) = plan.levers.memory_cap {
        let pct = f * 100.0;
        out.add(
            "isolation.cap",
            C::Isolation,
            None,
            none,
            t(
                format!("Set the per-process cap to {pct:.0} % (torch.cuda.set_per_process_memory_fraction({f:.2}) or vLLM --gpu-memory-utilization {f:.2}) and check the engine version treats it as a per-instance limit (vLLM once treated it as a limit on the whole GPU's use: vllm-project/vllm#9505)."),
                format!("把每个进程的显存上限设为 {pct:.0}%（torch.cuda.set_per_process_memory_fraction({f:.2}) 或 vLLM --gpu-memory-utilization {f:.2}），并确认所用引擎版本把它当作单实例上限（vLLM 曾把它当作整块 GPU 的使用上限：vllm-project/vllm#9505）。"),
            ),
            t(
                "The plan runs under a memory cap, beside other processes on the same GPU.",
                "方案在显存上限下运行，与其他进程共享同一块 GPU。",
            ),
        );
        out.add(
            "isolation.cap_faults",
            C::Isolation,
            None,
            none,
            t(
                "Decide whether tenants may share faults and compute: a cap limits one caching allocator, not other processes' memory, faults or SMs; use MIG slices where tenants must not affect each other.",
                "判断租户之间能否共享故障域和算力：显存上限只约束单个缓存分配器，不隔离其他进程的显存、故障或 SM；租户之间必须互不影响时应使用 MIG 切片。",
            ),
            t(
                "Capped processes share one GPU.",
                "受上限约束的多个进程共享同一块 GPU。",
            ),
        );
    }

    if let Workload::Inference(_) = plan.workload {
        if let KvCacheLayout::Paged { block_tokens } = plan.levers.kv_cache {
            out.add(
                "serving.paged_kv",
                C::FrameworkSupport,
                None,
                none,
                t(
                    format!("Serve with an engine that pages the KV cache (vLLM PagedAttention, block size {block_tokens}) and size its KV budget from the plan."),
                    format!("使用对 KV 缓存分页的推理引擎（vLLM PagedAttention，块大小 {block_tokens}），并按方案设置其 KV 预算。"),
                ),
                t(
                    "The plan's KV-cache figures assume paged blocks.",
                    "方案中的 KV 缓存数字基于分页块计算。",
                ),
            );
        }
        if let Some(limits) = report.inference {
            out.add(
                "monitor.kv",
                C::Monitoring,
                None,
                none,
                t(
                    format!("Alert on KV-cache usage and on preemptions or swaps (vLLM num_preemptions); the plan allows up to {} concurrent sequences.", limits.max_batch),
                    format!("对 KV 缓存使用率以及抢占或换出（vLLM num_preemptions）设置告警；方案最多允许 {} 条并发序列。", limits.max_batch),
                ),
                t(
                    "A full KV cache preempts requests instead of failing, which shows only in latency.",
                    "KV 缓存满时请求会被抢占而不是报错，问题只会体现在延迟上。",
                ),
            );
        }
    }

    let threshold = peak + (capacity - peak).max(crate::units::Bytes::ZERO) * 0.5;
    out.add(
        "monitor.memory",
        C::Monitoring,
        None,
        none,
        t(
            format!("Alert when device memory in use passes {threshold} (halfway between the plan's predicted peak {peak} and the capacity {capacity}) and record torch.cuda.max_memory_reserved per step."),
            format!("当显存占用超过 {threshold}（方案预测峰值 {peak} 与容量 {capacity} 的中点）时告警，并逐步记录 torch.cuda.max_memory_reserved。"),
        ),
        t(
            format!("The plan predicts a peak of {peak} of {capacity} on its most loaded GPU."),
            format!("方案预测负载最重的 GPU 峰值为 {peak}（容量 {capacity}）。"),
        ),
    );
    let (big_en, big_zh) = match largest {
        Some((kind, bytes)) => (
            format!(" The largest item should be {kind} at {bytes}."),
            format!("最大的一项应为 {kind}，约 {bytes}。"),
        ),
        None => (String::new(), String::new()),
    };
    out.add(
        "monitor.oom",
        C::Monitoring,
        None,
        none,
        t(
            format!("On every out-of-memory, keep a memory snapshot (torch.cuda.memory._record_memory_history, then _dump_snapshot) and compare it with the plan's breakdown.{big_en}"),
            format!("每次显存溢出时保存显存快照（torch.cuda.memory._record_memory_history，随后 _dump_snapshot），并与方案的分项明细对比。{big_zh}"),
        ),
        t(
            "An OOM that the breakdown does not explain points at fragmentation or an unmodelled buffer.",
            "明细无法解释的 OOM 往往指向碎片或未建模的缓冲区。",
        ),
    );

    if let Workload::Training(tr) = &plan.workload {
        let c = checkpoint::checkpoint(plan, ckpt);
        let minutes = c.interval.as_secs() / 60.0;
        let steps = c
            .steps_per_interval
            .map(|s| s.floor().max(1.0))
            .unwrap_or(1.0);
        let (what_en, what_zh) =
            if matches!(tr.kind, TrainingKind::Lora(_) | TrainingKind::Qlora(_)) {
                (
                    "the adapters and their optimizer states",
                    "适配器及其优化器状态",
                )
            } else {
                (
                    "weights, master weights and optimizer states",
                    "权重、主权重和优化器状态",
                )
            };
        out.add(
            "monitor.checkpoint",
            C::Monitoring,
            None,
            none,
            t(
                format!("Save {what_en} ({}) every {minutes:.0} min, that is every {steps:.0} steps, and alert when a save takes much longer than {:.0} s.", c.size.total, c.stall.as_secs()),
                format!("每 {minutes:.0} 分钟（即每 {steps:.0} 步）保存一次{what_zh}（{}），并在单次保存明显超过 {:.0} 秒时告警。", c.size.total, c.stall.as_secs()),
            ),
            t(
                format!("The optimum of Daly's model for a mean time between interruptions of {:.1} h on {} GPUs; expected goodput {:.1} %.", c.mtbi.as_hours(), c.gpus, c.goodput * 100.0),
                format!("这是 Daly 模型在 {} 块 GPU、平均中断间隔 {:.1} 小时下的最优间隔；预期有效时间占比 {:.1}%。", c.gpus, c.mtbi.as_hours(), c.goodput * 100.0),
            ),
        );
        out.add(
            "monitor.restore",
            C::Monitoring,
            None,
            none,
            t(
                format!("Rehearse a restore from the latest checkpoint and check it completes in about {:.0} min.", c.restore.as_secs() / 60.0),
                format!("演练从最新检查点恢复，并确认约 {:.0} 分钟内完成。", c.restore.as_secs() / 60.0),
            ),
            t(
                "Restarts are part of the expected goodput; an untested restore is where long outages come from.",
                "重启时间计入预期有效时间占比；未经演练的恢复流程往往是长时间中断的根源。",
            ),
        );
    }
}

/// The checklist of `plan` against `baseline`; `checkpoint` sets the
/// storage and failure assumptions behind the checkpoint items.
pub fn checklist(plan: &Plan, baseline: &Plan, checkpoint: &CheckpointSettings) -> Checklist {
    let efforts = effort::efforts(plan, baseline, &plan.economics.engineering);
    let mut out = Items(Vec::new());
    for e in &efforts {
        lever_items(&mut out, plan, e.lever, e.class);
    }
    let report = evaluate(plan);
    plan_items(&mut out, plan, &report, checkpoint);
    Checklist {
        plan: plan.name.clone(),
        baseline: baseline.name.clone(),
        plain_baseline: false,
        migration: effort::migration_class(&efforts),
        person_weeks: effort::person_weeks(&efforts),
        items: out.0,
    }
}

/// The checklist against the plain baseline on the same GPUs
/// ([`effort::plain_baseline`]).
pub fn checklist_from_plain(plan: &Plan, checkpoint: &CheckpointSettings) -> Checklist {
    let base = effort::plain_baseline(plan);
    let mut c = checklist(plan, &base, checkpoint);
    c.plain_baseline = true;
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::example_plan;
    use crate::hardware::MemoryPool;
    use crate::plan::OffloadTarget;
    use crate::units::{ByteRate, Bytes, Seconds};

    fn ids(c: &Checklist) -> Vec<String> {
        c.items.iter().map(|i| i.id.clone()).collect()
    }

    fn list(p: &Plan) -> Checklist {
        checklist_from_plain(p, &CheckpointSettings::default())
    }

    #[test]
    fn every_item_is_bilingual_and_explained() {
        let mut p = example_plan();
        p.levers.parallel.tp = 2;
        p.levers.parallel.dp = 4;
        p.levers.memory_cap = Some(0.9);
        let c = list(&p);
        assert!(!c.items.is_empty());
        for i in &c.items {
            for s in [&i.text.en, &i.reason.en, &i.text.zh, &i.reason.zh] {
                assert!(!s.trim().is_empty(), "{}", i.id);
            }
            let cjk = |s: &str| s.chars().any(|ch| ('\u{4e00}'..='\u{9fff}').contains(&ch));
            assert!(cjk(&i.text.zh) && cjk(&i.reason.zh), "{}", i.id);
            assert!(!cjk(&i.text.en), "{}", i.id);
        }
        for cat in Category::ALL {
            assert_ne!(cat.label(Lang::En), cat.label(Lang::Zh));
        }
    }

    #[test]
    fn checklists_change_when_levers_change() {
        let base = example_plan();
        let a = ids(&list(&base));
        assert!(a.contains(&"sharding.framework".to_string()));
        assert!(a.contains(&"recompute.wrap".to_string()));
        assert!(a.contains(&"monitor.checkpoint".to_string()));
        assert!(!a.iter().any(|x| x.starts_with("tp.")));

        let mut tp = base.clone();
        tp.levers.parallel.tp = 2;
        tp.levers.parallel.dp = 4;
        let b = ids(&list(&tp));
        assert!(b.contains(&"tp.model".to_string()) && b.contains(&"tp.network".to_string()));

        let mut off = base.clone();
        off.levers.offload.optimizer = Some(OffloadTarget {
            tier: Tier::HostDram,
            fraction: 1.0,
        });
        let c = ids(&list(&off));
        assert!(c.contains(&"offload.framework".to_string()));
        assert!(!a.contains(&"offload.framework".to_string()));

        let mut pooled = base.clone();
        pooled.hardware.pool = Some(MemoryPool {
            capacity: Bytes::from_tb(4.0),
            shared_by_gpus: 32,
            bandwidth: ByteRate::from_gb_per_s(25.0),
            latency: Seconds::from_nanos(500.0),
        });
        let d = list(&pooled);
        assert!(d.of(Category::Isolation).any(|i| i.id == "isolation.pool"));
        assert_eq!(d.migration, MigrationClass::InfrastructureChange);
    }

    #[test]
    fn the_checkpoint_item_follows_the_failure_rate() {
        let p = example_plan();
        let text = |rate: f64| {
            let s = CheckpointSettings {
                failure_rate: Some(crate::units::Frequency::per_year(rate)),
                ..CheckpointSettings::default()
            };
            list_with(&p, &s)
                .items
                .into_iter()
                .find(|i| i.id == "monitor.checkpoint")
                .map(|i| i.text.en)
        };
        assert_ne!(text(0.1), text(10.0));
    }

    fn list_with(p: &Plan, s: &CheckpointSettings) -> Checklist {
        checklist_from_plain(p, s)
    }

    #[test]
    fn serving_plans_get_serving_items() {
        let s = crate::tenants::example_sharing();
        let c = list(&s.jobs[0].plan);
        let i = ids(&c);
        assert!(i.contains(&"serving.paged_kv".to_string()));
        assert!(i.contains(&"monitor.kv".to_string()));
        assert!(!i.contains(&"monitor.checkpoint".to_string()));
    }
}
