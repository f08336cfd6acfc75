//! Items for each lever a plan adds over its baseline: one function per
//! lever, in the order of [`Lever`].

use super::names::{
    gpu_name, host_link, offload_tiers, optimizer_name, recompute_names, schedule_names,
    sharding_names, tier_names,
};
use super::{draft, engine, t, Category as C, ChecklistItem, Draft};
use crate::effort::{Lever, MigrationClass};
use crate::plan::Plan;

/// Items for one lever the plan adds over its baseline.
pub(super) fn lever_items(plan: &Plan, lever: Lever, class: MigrationClass) -> Vec<ChecklistItem> {
    let drafts = match lever {
        Lever::Sharding => sharding_items(plan),
        Lever::ActivationCheckpointing => activation_checkpointing_items(plan),
        Lever::TensorParallel => tensor_parallel_items(plan),
        Lever::SequenceParallel => sequence_parallel_items(),
        Lever::PipelineParallel => pipeline_parallel_items(plan),
        Lever::ContextParallel => context_parallel_items(plan),
        Lever::ExpertParallel => expert_parallel_items(plan),
        Lever::LowPrecisionCompute => low_precision_compute_items(plan),
        Lever::WeightQuantization => weight_quantization_items(plan),
        Lever::KvCacheQuantization => kv_cache_quantization_items(plan),
        Lever::NumberFormats => number_formats_items(),
        Lever::Optimizer => optimizer_items(plan),
        Lever::Offload => offload_items(plan),
        Lever::TieredPlacement => tiered_placement_items(),
        Lever::ChunkedPrefill => chunked_prefill_items(plan),
        Lever::TpCommOverlap => tp_comm_overlap_items(),
        Lever::Pruning | Lever::Distillation => pruning_or_distillation_items(),
        Lever::TrainingMethod => training_method_items(),
        Lever::FusedAttention => fused_attention_items(plan),
        Lever::TrainingStack => training_stack_items(plan),
        Lever::GpuKind => gpu_kind_items(plan),
        Lever::GpuCount => gpu_count_items(plan),
        Lever::CxlExpansion => cxl_expansion_items(),
        Lever::MemoryPool => memory_pool_items(),
        Lever::ScaleUpDomain => scale_up_domain_items(plan),
        Lever::HostMemory | Lever::Nvme => host_memory_or_nvme_items(),
        Lever::ScaleOutFabric => scale_out_fabric_items(),
    };
    drafts
        .into_iter()
        .map(|d| d.tag(Some(lever), class))
        .collect()
}

/// Items for [`Lever::Sharding`].
fn sharding_items(plan: &Plan) -> Vec<Draft> {
    let l = &plan.levers;
    let par = &plan.levers.parallel;
    let (en, zh) = sharding_names(l.sharding, plan.training_stack());
    let group = l.shard_group.unwrap_or(par.dp.saturating_mul(par.cp));
    vec![
        draft(
            "sharding.framework",
            C::FrameworkSupport,
            t(
                format!("Turn on {en} and check that the framework version supports it with the plan's other levers."),
                format!("启用 {zh}，并确认所用框架版本在与方案其他杠杆组合时支持它。"),
            ),
            t(
                format!("The plan shards model states over {group} ranks."),
                format!("方案把模型状态切分到 {group} 个 rank 上。"),
            ),
        ),
        draft(
            "sharding.checkpoints",
            C::CodeChange,
            t(
                "Save and load sharded checkpoints (DeepSpeed, FSDP state-dict types or torch.distributed.checkpoint) and test a resume, also at a different GPU count.",
                "改用分片检查点（DeepSpeed、FSDP 的 state-dict 类型或 torch.distributed.checkpoint）的保存与加载，并测试恢复训练，包括在不同 GPU 数量下恢复。",
            ),
            t(
                "Sharded optimizer states exist only as per-rank shards; a single-file checkpoint no longer holds them.",
                "分片后的优化器状态只以各 rank 的分片形式存在，单文件检查点已无法容纳它们。",
            ),
        ),
    ]
}

/// Items for [`Lever::ActivationCheckpointing`].
fn activation_checkpointing_items(plan: &Plan) -> Vec<Draft> {
    let l = &plan.levers;
    vec![
        draft(
            "recompute.wrap",
            C::CodeChange,
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
    ]
}

/// Items for [`Lever::TensorParallel`].
fn tensor_parallel_items(plan: &Plan) -> Vec<Draft> {
    let par = &plan.levers.parallel;
    let first = match engine::serving_engine(plan) {
        Some(e) => engine::tp_item(e, par.tp),
        None => tp_model_item(par.tp),
    };
    vec![
        first,
        draft(
            "tp.network",
            C::Infrastructure,
            t(
                "Keep every TP group inside one NVLink/NVSwitch domain and measure its all-reduce bandwidth (nccl-tests) before the run.",
                "确保每个 TP 组都位于同一个 NVLink/NVSwitch 域内，并在运行前用 nccl-tests 测量其 all-reduce 带宽。",
            ),
            t(
                "TP all-reduces sit on the critical path of every layer.",
                "TP 的 all-reduce 位于每一层的关键路径上。",
            ),
        ),
    ]
}

/// Porting a training model to tensor-parallel layers.
fn tp_model_item(tp: u32) -> Draft {
    draft(
        "tp.model",
        C::CodeChange,
        t(
            "Port the model to tensor-parallel layers (Megatron-style column- and row-parallel linears, vocabulary-parallel embedding and loss), or move to a framework that provides them.",
            "把模型改写为张量并行层（Megatron 式的列并行与行并行线性层、词表并行的嵌入和损失），或迁移到提供这些层的框架。",
        ),
        t(
            format!("The plan splits every layer over TP = {tp} GPUs."),
            format!("方案把每一层切分到 TP = {tp} 块 GPU 上。"),
        ),
    )
}

/// Items for [`Lever::SequenceParallel`].
fn sequence_parallel_items() -> Vec<Draft> {
    vec![
        draft(
            "sp.model",
            C::CodeChange,
            t(
                "Split norms and dropout along the sequence around the TP layers (Megatron --sequence-parallel) and check the loss matches the unsplit run.",
                "在 TP 层两侧沿序列维度切分归一化和 dropout（Megatron --sequence-parallel），并确认损失与不切分时一致。",
            ),
            t(
                "The plan uses sequence parallelism with TP.",
                "方案在 TP 之上使用序列并行。",
            ),
        ),
    ]
}

/// Items for [`Lever::PipelineParallel`].
fn pipeline_parallel_items(plan: &Plan) -> Vec<Draft> {
    let par = &plan.levers.parallel;
    if let Some(e) = engine::serving_engine(plan) {
        return engine::pp_items(e, par.pp);
    }
    let mut items = vec![
        draft(
            "pp.model",
            C::CodeChange,
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
        ),
        draft(
            "pp.network",
            C::Infrastructure,
            t(
                "Check the point-to-point bandwidth between consecutive stages, across nodes where stages span them.",
                "检查相邻流水线阶段之间的点对点带宽，阶段跨节点时尤其要检查。",
            ),
            t(
                "Activations cross stage boundaries every micro-batch.",
                "每个微批次的激活都要跨越阶段边界传输。",
            ),
        ),
    ];
    if par.schedule == crate::plan::PipelineSchedule::DualPipeV {
        items.push(draft(
            "pp.dualpipev",
            C::FrameworkSupport,
            t(
                "Run torchtitan with pipeline_parallel_schedule = \"DualPipeV\" on a PyTorch that has ScheduleDualPipeV (after 2.8), with at least two micro-batches per stage; rank 0 holds the embedding and the output head together, so give it fewer layers if it paces the step.",
                "在带有 ScheduleDualPipeV 的 PyTorch（2.8 之后的版本）上以 pipeline_parallel_schedule = \"DualPipeV\" 运行 torchtitan，每个阶段至少两个微批次；第 0 级同时承担嵌入层和输出头，若它拖慢整步，可给它分配更少的层。",
            ),
            t(
                format!("DualPipeV needs {} or more micro-batches per step at PP = {}.", 2 * u64::from(par.pp), par.pp),
                format!("PP = {} 时 DualPipeV 每步至少需要 {} 个微批次。", par.pp, 2 * u64::from(par.pp)),
            ),
        ));
    }
    items
}

/// Items for [`Lever::ContextParallel`].
fn context_parallel_items(plan: &Plan) -> Vec<Draft> {
    let par = &plan.levers.parallel;
    vec![
        draft(
            "cp.framework",
            C::FrameworkSupport,
            t(
                "Adopt a context-parallel attention (Megatron-Core context parallelism or ring attention) and check the sequence length divides by CP.",
                "采用上下文并行注意力（Megatron-Core 上下文并行或 ring attention），并确认序列长度能被 CP 整除。",
            ),
            t(
                format!("The plan splits each sequence over CP = {} GPUs.", par.cp),
                format!("方案把每条序列切分到 CP = {} 块 GPU 上。", par.cp),
            ),
        ),
    ]
}

/// Items for [`Lever::ExpertParallel`].
fn expert_parallel_items(plan: &Plan) -> Vec<Draft> {
    let par = &plan.levers.parallel;
    let first = match engine::serving_engine(plan) {
        Some(e) => engine::ep_item(e, par.ep),
        None => ep_framework_item(par.ep),
    };
    vec![
        first,
        draft(
            "ep.network",
            C::Infrastructure,
            t(
                "Measure all-to-all bandwidth over the EP group's span (nccl-tests alltoall_perf).",
                "在 EP 组所跨的范围内测量 all-to-all 带宽（nccl-tests 的 alltoall_perf）。",
            ),
            t(
                "Every MoE layer exchanges tokens between expert ranks.",
                "每个 MoE 层都要在专家 rank 之间交换令牌。",
            ),
        ),
    ]
}

/// Adopting an expert-parallel MoE layer for training.
fn ep_framework_item(ep: u32) -> Draft {
    draft(
        "ep.framework",
        C::FrameworkSupport,
        t(
            "Adopt an expert-parallel MoE layer with all-to-all token dispatch (Megatron-Core MoE, DeepSpeed-MoE) and a load-balancing loss.",
            "采用带 all-to-all 令牌分发的专家并行 MoE 层（Megatron-Core MoE、DeepSpeed-MoE）以及负载均衡损失。",
        ),
        t(
            format!("The plan spreads experts over EP = {ep} ranks."),
            format!("方案把专家分布到 EP = {ep} 个 rank 上。"),
        ),
    )
}

/// Items for [`Lever::LowPrecisionCompute`].
fn low_precision_compute_items(plan: &Plan) -> Vec<Draft> {
    let l = &plan.levers;
    if let Some(e) = engine::serving_engine(plan) {
        return engine::fp8_items(e, &gpu_name(plan), &l.precision.compute.label());
    }
    vec![
        draft(
            "fp8.framework",
            C::FrameworkSupport,
            t(
                format!("Use Transformer Engine layers with an FP8 recipe on {}, and confirm the GPU has FP8 tensor cores.", gpu_name(plan)),
                format!("在 {} 上使用 Transformer Engine 层和 FP8 配方，并确认该 GPU 具备 FP8 张量核心。", gpu_name(plan)),
            ),
            t(
                format!("The plan computes GEMMs in {}.", l.precision.compute.label()),
                format!("方案以 {} 计算 GEMM。", l.precision.compute.label()),
            ),
        ),
        draft(
            "fp8.convergence",
            C::Monitoring,
            t(
                "Track the loss against a BF16 reference run for the first thousands of steps and alert on divergence.",
                "在最初数千步内把损失与 BF16 参考运行对比，并在出现发散时告警。",
            ),
            t(
                "Narrow formats can change convergence.",
                "更窄的数值格式可能影响收敛。",
            ),
        ),
    ]
}

/// Items for [`Lever::WeightQuantization`].
fn weight_quantization_items(plan: &Plan) -> Vec<Draft> {
    let p = &plan.levers.precision;
    // The formats as stored: the weights', and the routed experts' where
    // they have their own.
    let (en, zh) = match p.experts {
        Some(x) => (
            format!("{} (routed experts in {})", p.weights.label(), x.label()),
            format!("{}（路由专家为 {}）", p.weights.label(), x.label()),
        ),
        None => (p.weights.label(), p.weights.label()),
    };
    vec![
        draft(
            "quant.weights",
            C::FrameworkSupport,
            t(
                format!("Produce a {en} checkpoint the serving engine loads (GPTQ/AWQ/FP8 in vLLM or TensorRT-LLM) and run the accuracy evaluation before switching traffic."),
                format!("生成推理引擎可加载的 {zh} 检查点（vLLM 或 TensorRT-LLM 中的 GPTQ/AWQ/FP8），并在切换流量前完成精度评测。"),
            ),
            t(
                format!("The plan stores weights in {en}."),
                format!("方案以 {zh} 存储权重。"),
            ),
        ),
    ]
}

/// Items for [`Lever::KvCacheQuantization`].
fn kv_cache_quantization_items(plan: &Plan) -> Vec<Draft> {
    // Serving only (`acts_on`): in the words of the plan's engine.
    let l = &plan.levers;
    vec![engine::kv_format_item(
        l.engine,
        &l.precision.kv_cache.label(),
    )]
}

/// Items for [`Lever::NumberFormats`].
fn number_formats_items() -> Vec<Draft> {
    vec![
        draft(
            "formats.convergence",
            C::Monitoring,
            t(
                "Set the mixed-precision options (master weights, gradient and optimizer formats) and compare the loss curve with the current run's.",
                "设置混合精度选项（主权重、梯度和优化器状态的格式），并把损失曲线与当前运行对比。",
            ),
            t(
                "The plan changes number formats beyond the weights.",
                "方案更改了权重以外的数值格式。",
            ),
        ),
    ]
}

/// Items for [`Lever::Optimizer`].
fn optimizer_items(plan: &Plan) -> Vec<Draft> {
    let l = &plan.levers;
    vec![
        draft(
            "optimizer.swap",
            C::CodeChange,
            t(
                "Swap the optimizer (bitsandbytes 8-bit Adam, Adafactor, SGD), retune its hyper-parameters and check convergence.",
                "更换优化器（bitsandbytes 8-bit Adam、Adafactor、SGD），重新调整超参数并检查收敛。",
            ),
            t(
                format!("The plan uses {}.", optimizer_name(l.optimizer)),
                format!("方案使用 {}。", optimizer_name(l.optimizer)),
            ),
        ),
    ]
}

/// Items for [`Lever::Offload`].
fn offload_items(plan: &Plan) -> Vec<Draft> {
    let tiers = offload_tiers(plan);
    let en: Vec<&str> = tiers.iter().map(|&x| tier_names(x).0).collect();
    let zh: Vec<&str> = tiers.iter().map(|&x| tier_names(x).1).collect();
    let mut items = vec![
        draft(
            "offload.framework",
            C::FrameworkSupport,
            t(
                format!("Configure offload to {} (DeepSpeed offload_optimizer/offload_param with pinned memory, NVMe paths for ZeRO-Infinity; for serving, the engine's KV swap or offload).", en.join(" and ")),
                format!("配置卸载到{}（DeepSpeed offload_optimizer/offload_param 并使用锁页内存，ZeRO-Infinity 需要 NVMe 路径；推理则使用引擎的 KV 交换或卸载）。", zh.join("和")),
            ),
            t(
                "The plan keeps states outside HBM.",
                "方案把部分状态放在 HBM 之外。",
            ),
        ),
        draft(
            "offload.capacity",
            C::Infrastructure,
            t(
                "Check each node has the host memory, NVMe and PCIe bandwidth the offload needs, with the other processes of the node counted.",
                "确认每个节点具备卸载所需的主机内存、NVMe 和 PCIe 带宽，并计入该节点上其他进程的占用。",
            ),
            t(
                "Offloaded bytes live in the node's shared tiers and move over its host links every step.",
                "被卸载的数据驻留在节点共享的存储层中，并且每一步都要经主机链路传输。",
            ),
        ),
    ];
    if host_link(plan) == crate::catalog::LinkId::NvLinkC2c {
        items.push(draft(
            "offload.unified",
            C::FrameworkSupport,
            t(
                "Use the coherent unified address space over NVLink-C2C (CUDA managed or system-allocated memory on Grace) rather than staged copies, and verify the framework allocates there.",
                "使用 NVLink-C2C 上的一致性统一地址空间（Grace 上的 CUDA 托管内存或系统分配内存）替代分段拷贝，并确认框架确实在那里分配内存。",
            ),
            t(
                "The GPU reaches host memory over NVLink-C2C.",
                "该 GPU 通过 NVLink-C2C 访问主机内存。",
            ),
        ));
    }
    items
}

/// Items for [`Lever::TieredPlacement`].
fn tiered_placement_items() -> Vec<Draft> {
    vec![
        draft(
            "tiering.deploy",
            C::Infrastructure,
            t(
                "Deploy the memory-tiering engine under the framework (access tracking, migration policy) and pin what must stay in HBM.",
                "在框架之下部署内存分层引擎（访问跟踪、迁移策略），并固定必须留在 HBM 中的数据。",
            ),
            t(
                "The plan places bytes by heat.",
                "方案按访问热度放置数据。",
            ),
        ),
        draft(
            "tiering.monitor",
            C::Monitoring,
            t(
                "Track migration traffic per step and alert when it exceeds what the plan's time model assumes.",
                "跟踪每一步的迁移流量，在超出方案时间模型的假设时告警。",
            ),
            t(
                "Cold bytes are moved to slower tiers while the job runs.",
                "冷数据在作业运行时被迁移到更慢的存储层。",
            ),
        ),
    ]
}

/// Items for [`Lever::ChunkedPrefill`].
fn chunked_prefill_items(plan: &Plan) -> Vec<Draft> {
    let l = &plan.levers;
    vec![
        draft(
            "prefill.chunk",
            C::FrameworkSupport,
            t(
                format!("Enable chunked prefill with max_num_batched_tokens = {} (vLLM) and re-measure time to first token.", l.prefill_chunk.unwrap_or(0)),
                format!("启用分块预填充，max_num_batched_tokens = {}（vLLM），并重新测量首 token 延迟。", l.prefill_chunk.unwrap_or(0)),
            ),
            t(
                "The plan bounds the tokens of one prefill pass.",
                "方案限制了单次预填充处理的 token 数。",
            ),
        ),
    ]
}

/// Items for [`Lever::TpCommOverlap`].
fn tp_comm_overlap_items() -> Vec<Draft> {
    vec![
        draft(
            "tp.overlap",
            C::FrameworkSupport,
            t(
                "Enable Transformer Engine userbuffers overlap (Megatron --tp-comm-overlap) and tune its SM budget.",
                "启用 Transformer Engine 的 userbuffers 通信重叠（Megatron --tp-comm-overlap），并调整其占用的 SM 数量。",
            ),
            t(
                "The plan hides TP collectives behind compute.",
                "方案把 TP 集合通信隐藏在计算之后。",
            ),
        ),
    ]
}

/// Items for [`Lever::Pruning`] and [`Lever::Distillation`].
fn pruning_or_distillation_items() -> Vec<Draft> {
    vec![
        draft(
            "model.rebuild",
            C::CodeChange,
            t(
                "Build the smaller model (pruning and retraining, or the distillation pipeline) and keep its recipe reproducible.",
                "构建更小的模型（剪枝并重新训练，或蒸馏流水线），并保证其配方可复现。",
            ),
            t(
                "The plan runs a different, smaller model.",
                "方案运行的是另一个更小的模型。",
            ),
        ),
        draft(
            "model.evaluate",
            C::Monitoring,
            t(
                "Run the full quality evaluation against the original model before switching, and keep watching quality in production.",
                "在切换前对照原模型完成完整的质量评测，并在生产中持续监控质量。",
            ),
            t(
                "A smaller model can lose quality.",
                "更小的模型可能损失质量。",
            ),
        ),
    ]
}

/// Items for [`Lever::FusedAttention`]. The switch is named per
/// framework: Hugging Face transformers' `attn_implementation` (training
/// and its own serving), llm-foundry's `attn_config.attn_impl`; the
/// requirements are flash-attn's README (Ampere, Ada, Hopper; MI200/MI300
/// on ROCm; FP16 and BF16; head dimensions up to 256, backward up to 128
/// on ROCm).
fn fused_attention_items(plan: &Plan) -> Vec<Draft> {
    let head = plan.model.spec().head_dim;
    vec![
        draft(
            "attention.install",
            C::FrameworkSupport,
            t(
                format!("Install flash-attn 2 built for the cluster's CUDA (or ROCm) and PyTorch versions on every node, and check the head dimension ({head}) is within what it runs: up to 256, backward up to 128 on ROCm."),
                format!("在每个节点安装与集群 CUDA（或 ROCm）及 PyTorch 版本匹配的 flash-attn 2，并确认头维度（{head}）在其支持范围内：最多 256，ROCm 上反向最多 128。"),
            ),
            t(
                "flash-attn 2 ships kernels for Ampere, Ada and Hopper (MI200/MI300 on ROCm) in FP16 and BF16 only; on Blackwell use PyTorch SDPA's flash backend (attn_implementation=\"sdpa\") instead.",
                "flash-attn 2 只为 Ampere、Ada、Hopper（ROCm 上为 MI200/MI300）提供 FP16 与 BF16 内核；Blackwell 上请改用 PyTorch SDPA 的 flash 后端（attn_implementation=\"sdpa\"）。",
            ),
        ),
        draft(
            "attention.switch",
            C::CodeChange,
            t(
                "Switch the model's attention implementation to FlashAttention-2: attn_implementation=\"flash_attention_2\" in Hugging Face transformers, attn_config.attn_impl: flash in llm-foundry, or the framework's own flag.",
                "将模型的注意力实现切换为 FlashAttention-2：Hugging Face transformers 中设 attn_implementation=\"flash_attention_2\"，llm-foundry 中设 attn_config.attn_impl: flash，或使用所用框架自己的开关。",
            ),
            t(
                "The plan keeps no score matrix and runs attention at FlashAttention-2's rate.",
                "方案不保存注意力分数矩阵，并按 FlashAttention-2 的速度计算注意力。",
            ),
        ),
        draft(
            "attention.parity",
            C::Monitoring,
            t(
                "Run a few hundred steps (or an evaluation pass) on both kernels and compare losses or outputs: they should agree to rounding, not bit for bit.",
                "用两种内核各跑数百步（或一次评测），对比损失或输出：应在舍入误差内一致，而非逐位相同。",
            ),
            t(
                "FlashAttention computes exact attention in another order of operations.",
                "FlashAttention 计算的是精确注意力，只是运算顺序不同。",
            ),
        ),
    ]
}

/// Items for [`Lever::TrainingStack`].
fn training_stack_items(plan: &Plan) -> Vec<Draft> {
    let (en, zh) = match plan.training_stack() {
        Some(st) => (
            crate::lang::Named::name(st, crate::lang::Lang::En),
            crate::lang::Named::name(st, crate::lang::Lang::Zh),
        ),
        None => ("the new framework", "新框架"),
    };
    vec![
        draft(
            "stack.port",
            C::CodeChange,
            t(
                format!("Port the training to {en}: the model in its layers or a checkpoint conversion both ways, data loading, launch scripts and config."),
                format!("把训练迁移到 {zh}：用它的层重写模型或双向转换检查点，并迁移数据加载、启动脚本与配置。"),
            ),
            t(
                format!("The plan's memory and step time are predicted for {en}'s kernels and runtime."),
                format!("方案的显存与步时是按 {zh} 的内核与运行时预测的。"),
            ),
        ),
        draft(
            "stack.parity",
            C::Monitoring,
            t(
                "Run both frameworks on the same data for a few thousand steps and compare loss curves and step times before switching the run.",
                "切换前用同样的数据让两个框架各跑数千步，对比损失曲线和步时。",
            ),
            t(
                "Frameworks differ in initialisation, fused kernels and numerics.",
                "不同框架在初始化、融合内核和数值细节上有差异。",
            ),
        ),
    ]
}

/// Items for [`Lever::TrainingMethod`].
fn training_method_items() -> Vec<Draft> {
    vec![
        draft(
            "adapters.code",
            C::CodeChange,
            t(
                "Wrap the model with PEFT LoRA adapters (for QLoRA, load the base in 4-bit NF4 with bitsandbytes) and merge or load the adapters where the model is served.",
                "用 PEFT 为模型加上 LoRA 适配器（QLoRA 则用 bitsandbytes 以 4 位 NF4 加载基座），并在推理端合并或加载适配器。",
            ),
            t(
                "The plan trains adapters over a frozen base instead of every weight.",
                "方案在冻结的基座上训练适配器，而不是训练全部权重。",
            ),
        ),
        draft(
            "adapters.evaluate",
            C::Monitoring,
            t(
                "Re-validate quality against full fine-tuning: adapter rank, target modules and learning rate.",
                "对照全量微调重新验证质量：适配器秩、目标模块和学习率。",
            ),
            t(
                "Adapters learn less than full fine-tuning on some tasks.",
                "在某些任务上，适配器学到的少于全量微调。",
            ),
        ),
    ]
}

/// Items for [`Lever::GpuKind`].
fn gpu_kind_items(plan: &Plan) -> Vec<Draft> {
    vec![draft(
        "hw.gpu",
        C::Infrastructure,
        t(
            format!(
                "Procure or reserve {} GPUs and requalify drivers, CUDA, NCCL and kernels on them.",
                gpu_name(plan)
            ),
            format!(
                "采购或预留 {} GPU，并在其上重新验证驱动、CUDA、NCCL 和算子。",
                gpu_name(plan)
            ),
        ),
        t(
            format!("The plan runs on {}.", gpu_name(plan)),
            format!("方案运行在 {} 上。", gpu_name(plan)),
        ),
    )]
}

/// Items for [`Lever::GpuCount`].
fn gpu_count_items(plan: &Plan) -> Vec<Draft> {
    let gpus = plan.hardware.gpus;
    vec![
        draft(
            "hw.count",
            C::Infrastructure,
            t(
                "Provision the extra nodes and re-check the scale-out topology and bandwidth the job's collectives cross.",
                "准备额外的节点，并重新检查作业集合通信所经过的横向扩展网络拓扑和带宽。",
            ),
            t(
                format!("The plan uses {gpus} GPUs."),
                format!("方案使用 {gpus} 块 GPU。"),
            ),
        ),
    ]
}

/// Items for [`Lever::CxlExpansion`].
fn cxl_expansion_items() -> Vec<Draft> {
    vec![
        draft(
            "hw.cxl",
            C::Infrastructure,
            t(
                "Install CXL-capable servers and Type-3 expanders, check the kernel exposes them as a CPU-less NUMA node, and measure their bandwidth and latency.",
                "部署支持 CXL 的服务器和 Type-3 扩展卡，确认内核把它们呈现为无 CPU 的 NUMA 节点，并测量其带宽和延迟。",
            ),
            t(
                "The plan adds CXL expanders to each node.",
                "方案在每个节点上增加了 CXL 内存扩展。",
            ),
        ),
    ]
}

/// Items for [`Lever::MemoryPool`].
fn memory_pool_items() -> Vec<Draft> {
    vec![
        draft(
            "hw.pool",
            C::Infrastructure,
            t(
                "Install the CXL switch and pooled memory with its fabric manager, and measure per-host bandwidth with all sharing hosts active.",
                "部署 CXL 交换机和池化内存及其 fabric manager，并在所有共享主机同时工作时测量每台主机的带宽。",
            ),
            t(
                "The plan puts states in memory shared by several hosts.",
                "方案把状态放在多台主机共享的内存中。",
            ),
        ),
        draft(
            "isolation.pool",
            C::Isolation,
            t(
                "Give each host and tenant its own pool region through the fabric manager, restrict who may map which region, and clear memory before a region is reassigned.",
                "通过 fabric manager 为每台主机和每个租户分配独立的内存池区域，限制谁能映射哪个区域，并在区域重新分配前清零内存。",
            ),
            t(
                "Pooled memory is reachable from more than one host.",
                "池化内存可被多台主机访问。",
            ),
        ),
    ]
}

/// Items for [`Lever::ScaleUpDomain`].
fn scale_up_domain_items(plan: &Plan) -> Vec<Draft> {
    vec![
        draft(
            "hw.scaleup",
            C::Infrastructure,
            t(
                "Provision rack-scale NVLink systems (NVL72-class) with their power, cooling and NVLink switch management, and re-check the parallel layout against the larger domain.",
                "部署机柜级 NVLink 系统（NVL72 级），包括其供电、散热和 NVLink 交换机管理，并按更大的域重新检查并行布局。",
            ),
            t(
                format!("The plan uses a {}-GPU scale-up domain.", plan.hardware.scale_up_gpus()),
                format!("方案使用 {} 卡的纵向扩展域。", plan.hardware.scale_up_gpus()),
            ),
        ),
    ]
}

/// Items for [`Lever::HostMemory`] and [`Lever::Nvme`].
fn host_memory_or_nvme_items() -> Vec<Draft> {
    vec![
        draft(
            "hw.node_memory",
            C::Infrastructure,
            t(
                "Add the DIMMs or drives to each node and check the memory channels or PCIe lanes they need are free.",
                "为每个节点增加内存条或硬盘，并确认所需的内存通道或 PCIe 通道空闲。",
            ),
            t(
                "The plan needs more host memory or NVMe per node.",
                "方案需要每个节点有更多主机内存或 NVMe。",
            ),
        ),
    ]
}

/// Items for [`Lever::ScaleOutFabric`].
fn scale_out_fabric_items() -> Vec<Draft> {
    vec![
        draft(
            "hw.fabric",
            C::Infrastructure,
            t(
                "Change the node-to-node fabric or NIC count, then re-run nccl-tests across nodes and re-check the topology (rail-optimised or not).",
                "更换节点间网络或网卡数量，然后跨节点重新运行 nccl-tests 并重新检查拓扑（是否轨道优化）。",
            ),
            t(
                "The plan changes the scale-out network.",
                "方案更改了横向扩展网络。",
            ),
        ),
    ]
}
