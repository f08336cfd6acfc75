//! Strings of the editor column, in English and Simplified Chinese.
//!
//! One table: each line is a key, its English and its Chinese; the
//! `strings!` macro (in `i18n/mod.rs`) turns it into the key enum, the list
//! of every key (for the test that checks the translations) and the lookup.

use super::{tr, Lang};

strings! {
    // Scenario and presets.
    Scenario => "Scenario", "场景";
    // Serving engine and request stream.
    RequestStream => "Engine and request stream", "推理引擎与请求流";
    Engine => "Serving engine", "推理引擎";
    StreamOn => "Serve a request stream (simulated)", "服务一个请求流（模拟）";
    HostOverlap => "Engine host work", "引擎主机工作";
    FrontEnd => "Server front end per request (ms)", "每个请求的服务端前端耗时（毫秒）";
    EngineDefault => "engine default", "引擎默认";
    SchedulerSteps => "Decode steps per scheduling (vLLM 0.6)", "每次调度的解码步数（vLLM 0.6）";
    GraphMaxBatch => "Largest decode batch in a CUDA graph (SGLang)", "CUDA graph 覆盖的最大解码批（SGLang）";
    Batching => "Prompts and decoding", "提示与解码的组合方式";
    MoeBackend => "MoE backend (TensorRT-LLM)", "MoE 后端（TensorRT-LLM）";
    StreamLengths => "Prompt and output lengths", "提示与输出长度";
    LengthsFixed => "fixed", "固定";
    LengthsShareGpt => "ShareGPT (benchmarks)", "ShareGPT（基准测试）";
    LengthsCustom => "from the plan", "按方案给定";
    NoTarget => "no target", "无目标";
    EditedWorkspace => "Your plans (edited)", "你的方案（已修改）";
    PresetDefault => "Over the wall: fine-tune Llama 3.1 70B, software against hardware", "翻越显存墙：微调 Llama 3.1 70B，软件手段对比硬件方案";
    PresetExample => "Example: Llama 2 7B pre-training on 8×H100", "示例：8×H100 上预训练 Llama 2 7B";
    PresetBudget => "Budget-limited exploration (fine-tune 70B)", "预算受限的探索（微调 70B）";
    PresetServing => "Latency-sensitive serving (70B, 32K context)", "延迟敏感的大规模推理（70B，32K 上下文）";
    PresetMultiTenant => "Multi-tenant GPU sharing", "云原生多租户共享 GPU";
    PresetChina => "Serving 72B on the GPUs sold in China", "在国内可采购的 GPU 上部署 72B";
    AboutDefault => "Full fine-tuning of Llama 3.1 70B does not fit on 8×H100 even with ZeRO-3: offload and QLoRA against H200, B300, GB200 NVL72 and CXL.", "即使用 ZeRO-3，全量微调 Llama 3.1 70B 也放不进 8×H100：卸载与 QLoRA，对比 H200、B300、GB200 NVL72 与 CXL。";
    AboutExample => "One plan to start from; add plans to compare.", "一个起点方案；添加方案即可对比。";
    AboutBudget => "Fine-tuning Llama 3.1 70B on one A100 node: ZeRO, offload and QLoRA against bigger GPUs and CXL memory.", "在一台 A100 服务器上微调 Llama 3.1 70B：ZeRO、卸载与 QLoRA，对比更大显存的 GPU 与 CXL 内存。";
    AboutServing => "Serving Llama 3.1 70B under vLLM: 0.2 requests/s of 32K-token prompts over 64 long documents, targets on p99 TTFT (5 s) and TPOT (50 ms). FP8 and INT4 against H200, GB200 NVL72 and a KV store on CXL.", "用 vLLM 部署 Llama 3.1 70B：每秒 0.2 个请求，32K token 提示词围绕 64 篇长文档，目标为 p99 首 token 时间 5 秒、每输出 token 时间 50 毫秒。FP8 与 INT4 对比 H200、GB200 NVL72 与放在 CXL 上的 KV 存储。";
    AboutMultiTenant => "Small models sharing GPUs: memory caps, smaller batches, a CXL pool and a MIG slice.", "多个小模型共享 GPU：显存上限、更小的批、CXL 内存池与 MIG 切片。";
    AboutChina => "Qwen2.5-72B under vLLM at 2 requests/s (2,048 in, 512 out), targets on p99 TTFT (3 s) and TPOT (100 ms): H20 in BF16 and FP8 against H800, A800, Ascend 910B and RTX 4090, each at a dated rental price (AutoDL, China Telecom; yuan at ¥6.9056/$). Ascend figures use NVIDIA-calibrated efficiencies.", "用 vLLM 部署 Qwen2.5-72B：每秒 2 个请求（输入 2,048、输出 512 token），目标为 p99 首 token 时间 3 秒、每输出 token 时间 100 毫秒。H20 的 BF16 与 FP8 对比 H800、A800、昇腾 910B 与 RTX 4090，各按有日期的租用价格（AutoDL、中国电信；按 ¥6.9056/$ 折算）。昇腾的数字沿用按 NVIDIA 标定的效率。";
    AboutEdited => "Pick a scenario to replace these plans (Back restores them).", "选择场景将替换当前方案（浏览器后退可恢复）。";
    // Plans.
    Plans => "Plans", "方案";
    AddPlan => "New", "新建";
    Duplicate => "Duplicate", "复制";
    Remove => "Remove", "删除";
    CopySuffix => "copy", "副本";
    PlanName => "Plan name", "方案名称";
    SavePlan => "Save in this browser", "保存到本浏览器";
    Saved => "Plan saved in this browser", "方案已保存到本浏览器";
    SavedPlans => "Saved plans", "已保存的方案";
    Open => "Open", "打开";
    Forget => "Delete", "删除";
    NothingSaved => "Nothing saved yet.", "还没有保存的方案。";
    // Model.
    Model => "Model", "模型";
    CustomModel => "Custom model…", "自定义模型…";
    CustomEntry => "Custom:", "自定义：";
    ModelName => "Model name", "模型名称";
    Layers => "Layers", "层数";
    Hidden => "Hidden size", "隐藏层维度";
    Heads => "Attention heads", "注意力头数";
    KvHeads => "KV heads", "KV 头数";
    HeadDim => "Head dim", "头维度";
    Ffn => "FFN width", "FFN 宽度";
    Vocab => "Vocabulary", "词表大小";
    Experts => "Experts (0 = dense)", "专家数（0 = 稠密）";
    TopK => "Experts per token", "每个 token 的专家数";
    Parameters => "Parameters:", "参数量：";
    ImportHf => "Import a Hugging Face config.json", "导入 Hugging Face config.json";
    PasteConfig => "Paste config.json here, or choose the file", "在此粘贴 config.json，或选择文件";
    Import => "Import", "导入";
    ImportedAs => "Imported:", "已导入：";
    ImportFailed => "Could not import:", "无法导入：";
    ShippedFormats => "Stored as the checkpoint ships:", "按检查点发布的格式存储：";
    FileTooLarge => "That file is too large for a config.json (over 1 MiB).", "文件过大，不像 config.json（超过 1 MiB）。";
    // Workload.
    Workload => "Workload", "工作负载";
    WorkloadKind => "Kind", "类型";
    PreTraining => "Pre-training", "预训练";
    FullFineTune => "Full fine-tune", "全参数微调";
    Lora => "LoRA", "LoRA";
    Qlora => "QLoRA", "QLoRA";
    Inference => "Serving (inference)", "推理服务";
    SeqLen => "Sequence length (tokens)", "序列长度（token）";
    GlobalBatch => "Global batch (sequences)", "全局批大小（序列）";
    Tokens => "Tokens to train on", "训练 token 总数";
    LoraRank => "LoRA rank", "LoRA 秩";
    LoraTargets => "Adapted layers", "适配的层";
    TargetsQv => "Query and value", "Query 与 Value";
    TargetsAttention => "All attention projections", "全部注意力投影";
    TargetsAll => "All linear layers", "全部线性层";
    PromptTokens => "Prompt tokens", "提示词 token 数";
    OutputTokens => "Output tokens", "输出 token 数";
    Batch => "Concurrent sequences", "并发序列数";
    // Lever groups.
    Algorithmic => "Algorithmic levers", "算法手段";
    HardwareGroup => "Hardware levers", "硬件手段";
    // Precision.
    Precision => "Number formats", "数值格式";
    WeightsPrecision => "Weights", "权重";
    ComputePrecision => "GEMM compute", "矩阵乘计算";
    KvPrecision => "KV cache", "KV 缓存";
    ExpertsPrecision => "Routed experts", "路由专家";
    AsWeights => "as the weights", "同权重";
    Fp32 => "FP32", "FP32";
    Bf16 => "BF16", "BF16";
    Fp16 => "FP16", "FP16";
    Fp8 => "FP8", "FP8";
    Int8 => "INT8", "INT8";
    Int4 => "INT4 (groups of 128)", "INT4（每组 128）";
    Nf4 => "NF4", "NF4";
    Nf4Dq => "NF4 + double quantization", "NF4 + 双重量化";
    Mxfp4 => "MXFP4", "MXFP4";
    Nvfp4 => "NVFP4", "NVFP4";
    Optimizer => "Optimizer", "优化器";
    AdamW => "AdamW", "AdamW";
    Adam8bit => "8-bit Adam", "8 位 Adam";
    Adafactor => "Adafactor", "Adafactor";
    AdafactorMomentum => "Adafactor with momentum", "带动量的 Adafactor";
    Sgd => "SGD", "SGD";
    SgdMomentum => "SGD with momentum", "带动量的 SGD";
    // Memory levers.
    MemorySection => "Recompute and sharding", "重计算与分片";
    Checkpointing => "Activation checkpointing", "激活检查点";
    CkptNone => "None (keep every activation)", "无（保留全部激活）";
    CkptSelective => "Selective (attention core)", "选择性（注意力核心）";
    CkptFull => "Full (every layer)", "完全（每一层）";
    CkptUniform => "Uniform groups of layers", "按层组均匀";
    CkptBlock => "First layers of each stage", "每个阶段的前若干层";
    CkptGroup => "Layers per group", "每组层数";
    CkptLayers => "Recomputed layers per stage", "每阶段重计算层数";
    Attention => "Attention kernel", "注意力内核";
    Sharding => "ZeRO / FSDP sharding", "ZeRO / FSDP 分片";
    TrainingFramework => "Training framework", "训练框架";
    FrameworkDefault => "auto", "自动";
    ShardNone => "None (plain data parallel)", "无（普通数据并行）";
    Zero1 => "ZeRO-1", "ZeRO-1";
    Zero2 => "ZeRO-2", "ZeRO-2";
    Zero3 => "ZeRO-3", "ZeRO-3";
    FsdpFull => "FSDP full shard", "FSDP 完全分片";
    FsdpGradOp => "FSDP shard grad/optimizer", "FSDP 分片梯度与优化器";
    FsdpGradOpNoSync => "FSDP shard grad/optimizer, no_sync accumulation", "FSDP 分片梯度与优化器（no_sync 累积）";
    ShardGroup => "Sharding group (GPUs)", "分片组大小（GPU）";
    WholeDpGroup => "whole data-parallel group", "整个数据并行组";
    // Parallelism.
    Parallelism => "Parallelism", "并行方式";
    Tp => "TP", "TP";
    Pp => "PP", "PP";
    Dp => "DP", "DP";
    Cp => "CP", "CP";
    Ep => "EP", "EP";
    SequenceParallel => "Sequence parallelism (with TP)", "序列并行（配合 TP）";
    Schedule => "Pipeline schedule", "流水线调度";
    Sched1f1b => "1F1B", "1F1B";
    SchedInterleaved => "Interleaved 1F1B", "交错式 1F1B";
    SchedGpipe => "GPipe", "GPipe";
    SchedDualPipeV => "DualPipeV", "DualPipeV（V 形）";
    Chunks => "Model chunks per GPU", "每 GPU 模型块数";
    MicroBatch => "Micro-batch", "微批大小";
    // Offload.
    Offload => "Offload and placement", "卸载与放置";
    OffloadOptimizer => "Optimizer states", "优化器状态";
    OffloadParameters => "Weights", "权重";
    OffloadGradients => "Gradients", "梯度";
    OffloadActivations => "Activations", "激活值";
    OffloadKv => "KV cache", "KV 缓存";
    OffloadExperts => "Routed experts (MoE serving)", "路由专家（MoE 推理）";
    MovedShare => "Share moved", "迁移比例";
    StayInHbm => "Stay in HBM", "留在 HBM";
    TierCxl => "CXL memory", "CXL 内存";
    TierHost => "Host DRAM", "主机内存";
    TierNvme => "NVMe", "NVMe";
    Placement => "Placement", "放置策略";
    PlaceManual => "As the offload settings say", "按上面的卸载设置";
    PlaceByHeat => "By heat (coldest bytes move first)", "按热度（最冷的数据先迁移）";
    // Serving levers.
    Serving => "Serving memory", "推理显存";
    KvLayout => "KV cache layout", "KV 缓存布局";
    KvPaged => "Paged (PagedAttention)", "分页（PagedAttention）";
    KvContiguous => "Contiguous per sequence", "每序列连续分配";
    BlockTokens => "Tokens per block", "每块 token 数";
    ReserveTokens => "Reserved tokens (0 = prompt + output)", "预留 token 数（0 = 提示词 + 输出）";
    PrefillChunk => "Prefill chunk (tokens)", "分块预填充（token）";
    WholeBatch => "whole batch at once", "整批一次完成";
    MemoryCapOn => "Cap this process's share of GPU memory", "限制本进程可用的显存比例";
    MemoryCap => "Memory cap (share of HBM)", "显存上限（HBM 比例）";
    // Disaggregated prefill and decode.
    Disaggregation => "Prefill and decode pools", "预填充与解码分离";
    DisaggOn => "Split prefill and decode into pools", "把预填充和解码拆成两个 GPU 池";
    DisaggNeeds => "Needs at least two replicas' worth of GPUs: raise the GPU count or lower TP.", "至少需要两个副本的 GPU：增加 GPU 数量或降低 TP。";
    PrefillTp => "Prefill TP", "预填充 TP";
    PrefillReplicas => "Prefill replicas", "预填充副本数";
    DecodeTp => "Decode TP", "解码 TP";
    DecodeReplicas => "Decode replicas", "解码副本数";
    KvLink => "KV link between the pools", "池间 KV 传输链路";
    KvLinkAuto => "Auto (NVLink or fabric)", "自动（NVLink 或网络）";
    KvTransfer => "KV cache sent", "KV 缓存发送时机";
    // Smaller models.
    Reduction => "Smaller model", "更小的模型";
    Pruning => "Pruning", "剪枝";
    PruneNone => "None (dense)", "无（稠密）";
    Prune24 => "2:4 structured sparsity", "2:4 结构化稀疏";
    PruneShape => "Pruned shape", "剪枝后的形状";
    Keep => "keep", "保持不变";
    Student => "Distil into", "蒸馏为";
    NoDistillation => "No distillation", "不蒸馏";
    DistillTokens => "Distillation tokens", "蒸馏 token 数";
    // Hardware.
    Gpus => "GPUs and nodes", "GPU 与节点";
    Gpu => "GPU", "GPU 型号";
    GpuCount => "GPU count", "GPU 数量";
    GpusPerNode => "GPUs per node", "每节点 GPU 数";
    ScaleUpDomain => "Scale-up domain (GPUs)", "纵向扩展域（GPU）";
    OneNode => "one node", "单个节点";
    PowerLimit => "Power limit (W)", "功耗上限（W）";
    ScaleOut => "Scale-out network", "横向扩展网络";
    ScaleOutAuto => "The GPU's reference fabric", "该 GPU 参考系统的网络";
    Tiers => "Memory beyond HBM", "HBM 之外的内存";
    HostDram => "Host DRAM per node (GB)", "每节点主机内存（GB）";
    Nvme => "NVMe per node (GB)", "每节点 NVMe（GB）";
    CxlDevice => "CXL expanders", "CXL 扩展卡";
    NoCxl => "None", "无";
    CxlCount => "Expanders per node", "每节点扩展卡数";
    Pool => "Pooled memory behind a CXL switch", "CXL 交换机后的共享内存池";
    PoolCapacity => "Pool capacity (GB)", "内存池容量（GB）";
    PoolShared => "GPUs sharing it", "共享的 GPU 数";
    PoolBandwidth => "Bandwidth per GPU (GB/s)", "每 GPU 带宽（GB/s）";
    PoolLatency => "Latency (ns)", "延迟（ns）";
    // Economics.
    Economics => "Economics", "经济性";
    Pricing => "GPUs are", "GPU 的获取方式";
    Rental => "Rented by the hour", "按小时租用";
    Capex => "Bought and amortised", "购买并摊销";
    PriceHour => "$ per GPU-hour", "每 GPU 小时价格（美元）";
    PriceGpu => "$ per GPU", "每块 GPU 价格（美元）";
    CatalogPrice => "catalog price", "目录价格";
    Market => "Catalog prices from", "目录价格来自";
    MarketAuto => "the GPU's first price", "该 GPU 的首个价格";
    MarketGlobal => "clouds outside China", "海外云";
    MarketChina => "clouds in China", "国内云";
    Horizon => "Amortisation (years)", "摊销年限（年）";
    Utilisation => "Utilisation", "利用率";
    // Find best plans.
    FindBest => "Find best plans", "寻找最优方案";
    GpuBudget => "GPU budget", "GPU 预算";
    OtherGpus => "Try other GPU kinds", "尝试其他 GPU 型号";
    OtherFrameworks => "Try other training frameworks", "尝试其他训练框架";
    OtherFormats => "Try narrower number formats (FP8, INT4)", "尝试更窄的数值格式（FP8、INT4）";
    FindBestButton => "Search", "搜索";
    Searching => "Searching…", "正在搜索…";
    SizeButton => "Size for the stream", "按请求流定规模";
    SizeHint => "Replicas, TP and engine settings that carry this stream's rate within its targets on the fewest GPUs; as the boxes allow, on other GPU kinds and in narrower number formats too", "以最少的 GPU 在目标内承载该请求流速率的副本数、TP 与引擎设置；按勾选项，也尝试其他 GPU 型号与更窄的数值格式";
    NothingFound => "No plan within this budget fits.", "在此预算内没有放得下的方案。";
    FrontierRow => "Frontier", "帕累托前沿";
    BestAlgorithmic => "Cheapest algorithmic", "最便宜的算法方案";
    BestHardware => "Cheapest hardware", "最便宜的硬件方案";
    BestHybrid => "Cheapest hybrid", "最便宜的混合方案";
    FamilyBaseline => "Baseline", "基线";
    FamilyAlgorithmic => "Algorithmic", "算法";
    FamilyHardware => "Hardware", "硬件";
    FamilyHybrid => "Hybrid", "混合";
    AddToPlans => "Add to plans", "加入方案";
    SecondsPerStep => "s/step", "秒/步";
    MsPerToken => "ms/token", "毫秒/token";
    PerMillionTokens => "per million tokens", "每百万 token";
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys whose Chinese is the English on purpose: acronyms, product and
    /// format names.
    const SAME: &[K] = &[
        K::Lora,
        K::Qlora,
        K::Fp32,
        K::Bf16,
        K::Fp16,
        K::Fp8,
        K::Int8,
        K::Nf4,
        K::Mxfp4,
        K::Nvfp4,
        K::AdamW,
        K::Adafactor,
        K::Sgd,
        K::Zero1,
        K::Zero2,
        K::Zero3,
        K::Tp,
        K::Pp,
        K::Dp,
        K::Cp,
        K::Ep,
        K::Sched1f1b,
        K::SchedGpipe,
        K::TierNvme,
    ];

    fn has_cjk(s: &str) -> bool {
        s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    }

    #[test]
    fn every_key_is_translated() {
        for k in K::ALL {
            let (en, zh) = (t(Lang::En, *k), t(Lang::Zh, *k));
            assert!(!en.trim().is_empty() && !zh.trim().is_empty(), "{k:?}");
            if SAME.contains(k) {
                assert_eq!(en, zh, "{k:?} is listed as the same in both");
            } else {
                assert_ne!(en, zh, "{k:?} is not translated");
                assert!(has_cjk(zh), "{k:?}: {zh}");
            }
        }
    }

    #[test]
    fn keys_are_listed_once() {
        let set: std::collections::HashSet<K> = K::ALL.iter().copied().collect();
        assert_eq!(set.len(), K::ALL.len());
    }
}
