//! What changed between two plans: the list a recommendation shows, and
//! the name a found plan gets from it.
//!
//! Each change names its setting, the value before and after, and whether
//! it touches what the model computes (number formats, quantization,
//! pruning: [`Impact::Quality`]) or what a user of a service sees (the
//! concurrency a server runs at: [`Impact::Sla`]). Such changes are always
//! listed, whatever else changed, so a recommendation can never switch a
//! model to INT4 or halve a server's concurrency silently.

use crate::hardware::{CxlChoice, Hardware};
use crate::lang::{Lang, Named};
use crate::moe::{ExpertBalance, MoeLevers};
use crate::plan::{
    Levers, OffloadTarget, PipelineSchedule, Plan, Precisions, Tier, TrainingKind, Workload,
};
use crate::precision::Precision;
use serde::{Deserialize, Serialize};

/// A setting a plan can change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Setting {
    /// The kind of GPU.
    GpuKind,
    /// How many GPUs.
    GpuCount,
    /// CXL expanders per node.
    CxlExpansion,
    /// A CXL memory pool.
    MemoryPool,
    /// GPUs in one scale-up domain.
    ScaleUpDomain,
    /// The board power limit of each GPU.
    PowerLimit,
    /// Tensor-parallel degree.
    TensorParallel,
    /// Pipeline-parallel degree.
    PipelineParallel,
    /// Data-parallel degree.
    DataParallel,
    /// Context-parallel degree.
    ContextParallel,
    /// Expert-parallel degree.
    ExpertParallel,
    /// Megatron sequence parallelism.
    SequenceParallel,
    /// Pipeline schedule.
    Schedule,
    /// Micro-batch size.
    MicroBatch,
    /// ZeRO / FSDP sharding.
    Sharding,
    /// Activation checkpointing.
    Checkpointing,
    /// Weight format.
    Weights,
    /// Routed experts' weights (`levers.precision.experts`, or the
    /// weights' format when unset).
    ExpertWeights,
    /// GEMM compute format.
    Compute,
    /// KV-cache format.
    KvCache,
    /// Other number formats (master copy, gradients, optimizer states,
    /// activations).
    NumberFormats,
    /// Optimizer.
    Optimizer,
    /// Offload of states to slower tiers.
    Offload,
    /// Chunked prefill.
    PrefillChunk,
    /// Pruning.
    Pruning,
    /// Sequences served at once.
    Concurrency,
    /// The serving engine.
    Engine,
    /// The engine's running-request limit (`max_num_seqs`).
    MaxSeqs,
    /// Prefix caching.
    PrefixCaching,
    /// Decode steps per scheduling (vLLM V0 `num_scheduler_steps`).
    SchedulerSteps,
    /// The engine's memory fraction (vLLM `gpu_memory_utilization`,
    /// SGLang `mem_fraction_static`).
    MemoryFraction,
    /// Whether the engine's host work overlaps the GPU's (vLLM
    /// `--async-scheduling`, SGLang's overlap scheduler).
    HostOverlap,
    /// Whether attention-DP ranks' prompts wait for each other
    /// (TensorRT-LLM `attention_dp_config.enable_balance`).
    DpBalance,
    /// TensorRT-LLM's MoE backend (`moe_config.backend`).
    MoeBackend,
    /// How prompts meet decoding (SGLang `--enable-mixed-chunk`).
    Batching,
    /// The largest decode batch replayed from a CUDA graph (SGLang
    /// `--cuda-graph-max-bs`).
    GraphMaxBatch,
    /// Speculative decoding (drafter, draft tokens, acceptance).
    Speculative,
    /// Disaggregated prefill and decode pools (the P:D split, TP per
    /// pool, the KV link).
    Disaggregation,
    /// The KV store below HBM (`levers.kv_tier`): its tier and size.
    KvTier,
    /// What a training run trains: every weight, or adapters over a frozen
    /// (for QLoRA, 4-bit) base.
    TrainingMethod,
    /// The mixture-of-experts levers (`levers.moe`): expert balance,
    /// all-to-all overlap, expert TP, node-limited routing.
    Moe,
    /// The training framework (`levers.training_stack`).
    TrainingStack,
    /// The framework the memory model follows (`levers.memory.stack`).
    MemoryStack,
    /// The attention kernel (`levers.attention`).
    AttentionKernel,
}

crate::lang::named!(Setting {
    Setting::GpuKind => "gpu_kind", "GPU", "GPU";
    Setting::GpuCount => "gpu_count", "GPUs", "GPU 数量";
    Setting::CxlExpansion => "cxl_expansion", "CXL expanders", "CXL 扩展卡";
    Setting::MemoryPool => "memory_pool", "memory pool", "内存池";
    Setting::ScaleUpDomain => "scale_up_domain", "scale-up domain", "纵向扩展域";
    Setting::PowerLimit => "power_limit", "power limit", "功耗上限";
    Setting::TensorParallel => "tensor_parallel", "TP", "张量并行 TP";
    Setting::PipelineParallel => "pipeline_parallel", "PP", "流水线并行 PP";
    Setting::DataParallel => "data_parallel", "DP", "数据并行 DP";
    Setting::ContextParallel => "context_parallel", "CP", "上下文并行 CP";
    Setting::ExpertParallel => "expert_parallel", "EP", "专家并行 EP";
    Setting::SequenceParallel => "sequence_parallel", "sequence parallelism", "序列并行";
    Setting::Schedule => "schedule", "pipeline schedule", "流水线调度";
    Setting::MicroBatch => "micro_batch", "micro-batch", "微批大小";
    Setting::Sharding => "sharding", "sharding", "分片";
    Setting::Checkpointing => "checkpointing", "recomputation", "重计算";
    Setting::Weights => "weights", "weights", "权重格式";
    Setting::ExpertWeights => "expert_weights", "expert weights", "专家权重格式";
    Setting::Compute => "compute", "compute", "计算格式";
    Setting::KvCache => "kv_cache", "KV cache", "KV 缓存格式";
    Setting::NumberFormats => "number_formats", "number formats", "数值格式";
    Setting::Optimizer => "optimizer", "optimizer", "优化器";
    Setting::Offload => "offload", "offload", "卸载";
    Setting::PrefillChunk => "prefill_chunk", "prefill chunk", "预填充分块";
    Setting::Pruning => "pruning", "pruning", "剪枝";
    Setting::Concurrency => "concurrency", "concurrency", "并发数";
    Setting::Engine => "engine", "serving engine", "推理引擎";
    Setting::MaxSeqs => "max_seqs", "running-request limit", "最大运行请求数";
    Setting::PrefixCaching => "prefix_caching", "prefix caching", "前缀缓存";
    Setting::SchedulerSteps => "scheduler_steps", "decode steps per scheduling", "每次调度的解码步数";
    Setting::HostOverlap => "host_overlap", "host work overlap", "主机工作重叠";
    Setting::DpBalance => "attention_dp_balance", "attention-DP balance", "注意力 DP 负载均衡";
    Setting::MoeBackend => "moe_backend", "MoE backend (TensorRT-LLM)", "MoE 后端（TensorRT-LLM）";
    Setting::Batching => "batching", "prompts and decoding", "提示与解码的组合方式";
    Setting::MemoryFraction => "memory_fraction", "engine memory fraction", "引擎显存占比";
    Setting::GraphMaxBatch => "graph_max_batch", "largest CUDA-graph decode batch", "CUDA graph 最大解码批";
    Setting::Speculative => "speculative", "speculative decoding", "投机解码";
    Setting::Disaggregation => "disaggregation", "prefill/decode pools", "预填充/解码分离";
    Setting::KvTier => "kv_tier", "KV store below HBM", "HBM 之下的 KV 存储";
    Setting::TrainingMethod => "training_method", "training method", "训练方式";
    Setting::Moe => "moe", "MoE routing and dispatch", "MoE 路由与分发";
    Setting::TrainingStack => "training_stack", "training framework", "训练框架";
    Setting::MemoryStack => "memory_stack", "memory-model framework", "内存模型框架";
    Setting::AttentionKernel => "attention_kernel", "attention kernel", "注意力内核";
});

/// What a change may affect beyond memory, time and cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Impact {
    /// The same model and service, run differently.
    None,
    /// The model's numerics or weights change: evaluate its quality.
    Quality,
    /// What each user of a service sees changes (concurrency): check the
    /// service-level objectives.
    Sla,
}

crate::lang::named!(Impact {
    Impact::None => "none", "no side effect", "无副作用";
    Impact::Quality => "quality", "affects model quality", "影响模型质量";
    Impact::Sla => "sla", "affects the service level", "影响服务水平";
});

/// One changed setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Change {
    /// Which setting.
    pub setting: Setting,
    /// Its value in the base plan (technical notation: numbers, formats,
    /// GPU names, tier keys).
    pub from: String,
    /// Its value in this plan.
    pub to: String,
    /// What else it may affect.
    pub impact: Impact,
}

/// The words a change's value takes where a setting is left unset or
/// switched: the only values written in words rather than technical
/// notation, so the only ones a description translates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueWord {
    /// The engine's or framework's own default.
    Default,
    /// Switched off.
    Off,
    /// Switched on.
    On,
    /// Nothing (no store, no sharding).
    Nothing,
    /// The whole of a tier's share.
    All,
}

impl ValueWord {
    /// Every word.
    pub const ALL: [ValueWord; 5] = [
        ValueWord::Default,
        ValueWord::Off,
        ValueWord::On,
        ValueWord::Nothing,
        ValueWord::All,
    ];
}

crate::lang::named!(ValueWord {
    ValueWord::Default => "default", "default", "默认";
    ValueWord::Off => "off", "off", "关";
    ValueWord::On => "on", "on", "开";
    ValueWord::Nothing => "none", "none", "无";
    ValueWord::All => "all", "all", "全部";
});

/// A change's value as `lang` reads it: a word of [`ValueWord`] (alone or
/// as a value's first word, "all" in "host_dram all") in that language,
/// technical notation as it is.
fn read(value: &str, lang: Lang) -> String {
    value
        .split(' ')
        .map(|w| {
            ValueWord::ALL
                .iter()
                .find(|v| v.key() == w)
                .map_or(w, |v| v.name(lang))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl Change {
    /// One line: "TP 8 → 4", with the setting and the values' words named
    /// in `lang`.
    pub fn describe(&self, lang: Lang) -> String {
        format!(
            "{} {} → {}",
            self.setting.name(lang),
            read(&self.from, lang),
            read(&self.to, lang)
        )
    }
}

/// Every setting that differs between `base` and `plan`, hardware first.
pub fn changes(base: &Plan, plan: &Plan) -> Vec<Change> {
    let mut out = Vec::new();
    hardware_changes(&base.hardware, &plan.hardware, &mut out);
    parallel_changes(&base.levers, &plan.levers, &mut out);
    format_changes(
        &base.levers.precision,
        &plan.levers.precision,
        &plan.workload,
        &mut out,
    );
    lever_changes(&base.levers, &plan.levers, &mut out);
    workload_changes(&base.workload, &plan.workload, &mut out);
    out
}

/// A name that says what the plan is: its GPUs and what changed, e.g.
/// "16×H100 SXM: TP 8 → 2, sharding none → zero3".
pub fn name(base: &Plan, plan: &Plan, changes: &[Change]) -> String {
    let gpus = format!("{}×{}", plan.hardware.gpus, plan.hardware.gpu.name());
    let shown: Vec<String> = changes
        .iter()
        .filter(|c| !matches!(c.setting, Setting::GpuKind | Setting::GpuCount))
        .map(|c| c.describe(Lang::En))
        .collect();
    match (shown.is_empty(), plan == base) {
        (_, true) => base.name.clone(),
        (true, false) => gpus,
        (false, false) => format!("{gpus}: {}", shown.join(", ")),
    }
}

fn push(out: &mut Vec<Change>, setting: Setting, from: String, to: String, impact: Impact) {
    if from != to {
        out.push(Change {
            setting,
            from,
            to,
            impact,
        });
    }
}

fn hardware_changes(a: &Hardware, b: &Hardware, out: &mut Vec<Change>) {
    let n = Impact::None;
    push(
        out,
        Setting::GpuKind,
        a.gpu.name().into(),
        b.gpu.name().into(),
        n,
    );
    push(
        out,
        Setting::GpuCount,
        a.gpus.to_string(),
        b.gpus.to_string(),
        n,
    );
    let cxl = |h: &Hardware| {
        h.cxl.as_ref().map_or("none".to_string(), |c| {
            let device = match &c.device {
                CxlChoice::Preset(id) => crate::catalog::cxl_device(*id).name.to_string(),
                CxlChoice::Custom(d) => format!("{:.0} GB custom", d.capacity.as_gb()),
            };
            format!("{}×{device}", c.devices_per_node)
        })
    };
    push(out, Setting::CxlExpansion, cxl(a), cxl(b), n);
    let pool = |h: &Hardware| {
        h.pool.as_ref().map_or("none".to_string(), |p| {
            format!("{:.0} GB", p.capacity.as_gb())
        })
    };
    push(out, Setting::MemoryPool, pool(a), pool(b), n);
    push(
        out,
        Setting::ScaleUpDomain,
        a.scale_up_domain.to_string(),
        b.scale_up_domain.to_string(),
        n,
    );
    let watts = |h: &Hardware| {
        h.power_limit
            .map_or("default".to_string(), |w| format!("{:.0} W", w.as_watts()))
    };
    push(out, Setting::PowerLimit, watts(a), watts(b), n);
}

fn parallel_changes(a: &Levers, b: &Levers, out: &mut Vec<Change>) {
    let (p, q) = (&a.parallel, &b.parallel);
    let n = Impact::None;
    let degrees = [
        (Setting::TensorParallel, p.tp, q.tp),
        (Setting::PipelineParallel, p.pp, q.pp),
        (Setting::DataParallel, p.dp, q.dp),
        (Setting::ContextParallel, p.cp, q.cp),
        (Setting::ExpertParallel, p.ep, q.ep),
        (Setting::MicroBatch, p.micro_batch, q.micro_batch),
    ];
    for (s, x, y) in degrees {
        push(out, s, x.to_string(), y.to_string(), n);
    }
    let sp = |l: &Levers| format!("{:?}", l.parallel.sequence_parallel).to_lowercase();
    push(out, Setting::SequenceParallel, sp(a), sp(b), n);
    let schedule = |s: PipelineSchedule| match s {
        PipelineSchedule::OneFOneB => "1f1b".to_string(),
        PipelineSchedule::Interleaved { chunks } => format!("interleaved×{chunks}"),
        PipelineSchedule::Gpipe => "gpipe".to_string(),
        PipelineSchedule::DualPipeV => "dualpipev".to_string(),
    };
    push(
        out,
        Setting::Schedule,
        schedule(p.schedule),
        schedule(q.schedule),
        n,
    );
}

/// Number formats: weights, compute and KV cache each on their own line
/// (they change what the model computes), the rest together. A training
/// plan keeps no KV cache, so its format is not listed there.
fn format_changes(a: &Precisions, b: &Precisions, w: &Workload, out: &mut Vec<Change>) {
    let q = Impact::Quality;
    let l = |p: Precision| p.label();
    push(out, Setting::Weights, l(a.weights), l(b.weights), q);
    // The experts' own line only where a plan stores them apart: else
    // they follow the weights' line.
    if a.experts.is_some() || b.experts.is_some() {
        push(
            out,
            Setting::ExpertWeights,
            l(a.expert_weights()),
            l(b.expert_weights()),
            q,
        );
    }
    push(out, Setting::Compute, l(a.compute), l(b.compute), q);
    if matches!(w, Workload::Inference(_)) {
        push(out, Setting::KvCache, l(a.kv_cache), l(b.kv_cache), q);
    }
    let rest = |p: &Precisions| {
        format!(
            "master {}, gradients {}, optimizer {}, activations {}",
            p.master.map_or("none".to_string(), l),
            l(p.gradients),
            l(p.optimizer),
            l(p.activations)
        )
    };
    push(out, Setting::NumberFormats, rest(a), rest(b), q);
}

fn lever_changes(a: &Levers, b: &Levers, out: &mut Vec<Change>) {
    let n = Impact::None;
    let debug = |v: &dyn std::fmt::Debug| format!("{v:?}").to_lowercase();
    // The plan's own key (`fsdp_full_shard`), as a user writes it.
    let sharding = |v: &crate::plan::Sharding| {
        serde_json::to_value(v)
            .ok()
            .and_then(|j| j.as_str().map(str::to_string))
            .unwrap_or_else(|| debug(v))
    };
    push(
        out,
        Setting::Sharding,
        sharding(&a.sharding),
        sharding(&b.sharding),
        n,
    );
    push(
        out,
        Setting::Checkpointing,
        debug(&a.checkpointing),
        debug(&b.checkpointing),
        n,
    );
    push(
        out,
        Setting::Optimizer,
        debug(&a.optimizer),
        debug(&b.optimizer),
        Impact::Quality,
    );
    push(out, Setting::Offload, offload(a), offload(b), n);
    let chunk = |l: &Levers| l.prefill_chunk.map_or("off".to_string(), |c| c.to_string());
    push(out, Setting::PrefillChunk, chunk(a), chunk(b), n);
    push(
        out,
        Setting::Pruning,
        debug(&a.pruning),
        debug(&b.pruning),
        Impact::Quality,
    );
    software_changes(a, b, out);
    serving_changes(a, b, out);
}

/// The frameworks and the MoE levers. A capacity factor drops the tokens
/// past an expert's capacity (Fedus et al. 2022, Switch Transformer §2.1)
/// and node-limited routing restricts which experts a token may pick
/// (DeepSeek-V3 report §2.1.2): both change what the model computes, so
/// either moving is a quality change. The frameworks change speed and
/// memory only.
fn software_changes(a: &Levers, b: &Levers, out: &mut Vec<Change>) {
    let n = Impact::None;
    let stack = |l: &Levers| l.training_stack.map_or("default", |s| s.key()).to_string();
    push(out, Setting::TrainingStack, stack(a), stack(b), n);
    let mem = |l: &Levers| l.memory.stack.map_or("default", |s| s.key()).to_string();
    push(out, Setting::MemoryStack, mem(a), mem(b), n);
    // Fused kernels compute exact attention (Dao et al. 2022, §3.1): the
    // same function, in another order of operations.
    let kernel = |l: &Levers| l.attention.key().to_string();
    push(out, Setting::AttentionKernel, kernel(a), kernel(b), n);
    let dropping = |l: &Levers| matches!(l.moe.balance, ExpertBalance::Capacity { .. });
    let drops = a.moe.balance != b.moe.balance && (dropping(a) || dropping(b));
    let impact = if drops || a.moe.node_limit != b.moe.node_limit {
        Impact::Quality
    } else {
        n
    };
    push(out, Setting::Moe, moe(&a.moe), moe(&b.moe), impact);
}

/// The MoE levers in one string: "capacity 1.25, other_micro_batch, etp 1,
/// nodes 4"; only what is set beyond the default balance and overlap.
fn moe(m: &MoeLevers) -> String {
    let balance = match m.balance {
        ExpertBalance::Balanced => "balanced".to_string(),
        ExpertBalance::Capacity { factor } => format!("capacity {factor}"),
        ExpertBalance::Dropless { busiest_over_mean } => format!("dropless {busiest_over_mean}"),
    };
    let mut parts = vec![balance, m.dispatch_overlap.key().to_string()];
    if let Some(t) = m.expert_tp {
        parts.push(format!("etp {t}"));
    }
    if let Some(k) = m.node_limit {
        parts.push(format!("nodes {k}"));
    }
    parts.join(", ")
}

/// The serving engine's settings. A lower running-request limit queues
/// users who would have run (the service level they see changes); the
/// engine, prefix caching and speculative decoding change speed only
/// (speculative sampling keeps the target's distribution, Leviathan et
/// al. 2023 §2.3).
fn serving_changes(a: &Levers, b: &Levers, out: &mut Vec<Change>) {
    let n = Impact::None;
    push(
        out,
        Setting::Engine,
        a.engine.key().into(),
        b.engine.key().into(),
        n,
    );
    let seqs = |l: &Levers| {
        l.engine_knobs
            .max_seqs
            .map_or("default".to_string(), |m| m.to_string())
    };
    push(out, Setting::MaxSeqs, seqs(a), seqs(b), Impact::Sla);
    // The setting in effect: the knob, else the engine's default.
    let pc = |l: &Levers| {
        l.engine_knobs
            .prefix_caching
            .unwrap_or(l.engine.prefix_caching())
            .key()
            .to_string()
    };
    push(out, Setting::PrefixCaching, pc(a), pc(b), n);
    let steps = |l: &Levers| {
        l.engine_knobs
            .scheduler_steps
            .map_or("default".to_string(), |m| m.to_string())
    };
    // Multi-step windows delay new prompts' first tokens.
    push(
        out,
        Setting::SchedulerSteps,
        steps(a),
        steps(b),
        Impact::Sla,
    );
    let overlap = |l: &Levers| {
        l.engine_knobs
            .host_overlap
            .map_or("default".to_string(), |o| o.key().to_string())
    };
    push(out, Setting::HostOverlap, overlap(a), overlap(b), n);
    let balance = |l: &Levers| {
        l.engine_knobs
            .attention_dp_balance
            .unwrap_or_default()
            .key()
            .to_string()
    };
    // Held prompts wait for their first token.
    push(out, Setting::DpBalance, balance(a), balance(b), Impact::Sla);
    let backend = |l: &Levers| {
        l.engine_knobs
            .moe_backend
            .map_or("default".to_string(), |m| m.key().to_string())
    };
    push(out, Setting::MoeBackend, backend(a), backend(b), n);
    let batching = |l: &Levers| {
        l.engine_knobs
            .batching
            .map_or("default".to_string(), |b| b.key().to_string())
    };
    push(out, Setting::Batching, batching(a), batching(b), n);
    let fraction = |l: &Levers| {
        l.engine_knobs
            .memory_fraction
            .map_or("default".to_string(), |f| format!("{f:.2}"))
    };
    push(out, Setting::MemoryFraction, fraction(a), fraction(b), n);
    let graphs = |l: &Levers| {
        l.engine_knobs
            .graph_max_batch
            .map_or("default".to_string(), |g| g.to_string())
    };
    push(out, Setting::GraphMaxBatch, graphs(a), graphs(b), n);
    let spec = |l: &Levers| {
        l.speculative
            .filter(|s| s.active())
            .map_or("off".to_string(), |s| {
                format!("{} k={} α={:.2}", s.drafter.key(), s.tokens, s.acceptance)
            })
    };
    push(out, Setting::Speculative, spec(a), spec(b), n);
    let split = |l: &Levers| l.disaggregation.map_or("off".to_string(), disaggregation);
    push(out, Setting::Disaggregation, split(a), split(b), n);
    // A store changes where reused KV comes from, not what is computed.
    let store = |l: &Levers| {
        l.kv_tier.map_or("none".to_string(), |k| {
            let size = k
                .capacity
                .map_or("all".to_string(), |b| format!("{:.0} GB", b.as_gb()));
            format!("{} {size}", k.tier.key())
        })
    };
    push(out, Setting::KvTier, store(a), store(b), n);
}

/// The pools in one string: "prefill 2×TP4 : decode 1×TP8 over nvlink4".
fn disaggregation(d: crate::disagg::Disaggregation) -> String {
    let link = d.link.map_or(String::new(), |l| {
        format!(" over {}", crate::catalog::link(l).name)
    });
    let ep = |p: crate::disagg::Pool| p.ep.map_or(String::new(), |e| format!(" EP{e}"));
    let layered = if d.transfer.is_default() {
        ""
    } else {
        ", KV layer by layer"
    };
    format!(
        "prefill {}×TP{}{} : decode {}×TP{}{}{link}{layered}",
        d.prefill.replicas,
        d.prefill.tp,
        ep(d.prefill),
        d.decode.replicas,
        d.decode.tp,
        ep(d.decode)
    )
}

/// The offload levers in one string: "optimizer→host_dram 100%, …".
fn offload(l: &Levers) -> String {
    let o = &l.offload;
    let parts: Vec<String> = [
        ("optimizer", o.optimizer),
        ("parameters", o.parameters),
        ("gradients", o.gradients),
        ("activations", o.activations),
        ("kv_cache", o.kv_cache),
        ("experts", o.experts),
    ]
    .into_iter()
    .filter_map(|(state, t)| {
        t.filter(|t: &OffloadTarget| t.tier != Tier::Hbm && t.fraction > 0.0)
            .map(|t| format!("{state}→{} {:.0}%", t.tier.key(), t.fraction * 100.0))
    })
    .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

/// The technical name of a training kind: "full", "lora r=16", "qlora r=64".
fn training_method(k: &TrainingKind) -> String {
    match k {
        TrainingKind::PreTraining => "pre-training".into(),
        TrainingKind::FullFineTune => "full".into(),
        TrainingKind::Lora(s) => format!("lora r={}", s.rank),
        TrainingKind::Qlora(s) => format!("qlora r={}", s.rank),
    }
}

fn workload_changes(a: &Workload, b: &Workload, out: &mut Vec<Change>) {
    // Adapters over a frozen (or 4-bit) base train a different model than
    // full fine-tuning does: a quality question (Hu et al. 2021, LoRA;
    // Dettmers et al. 2023, QLoRA), never a silent change.
    if let (Workload::Training(x), Workload::Training(y)) = (a, b) {
        push(
            out,
            Setting::TrainingMethod,
            training_method(&x.kind),
            training_method(&y.kind),
            Impact::Quality,
        );
    }
    if let (Workload::Inference(x), Workload::Inference(y)) = (a, b) {
        push(
            out,
            Setting::Concurrency,
            x.batch.to_string(),
            y.batch.to_string(),
            Impact::Sla,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::example_plan;

    #[test]
    fn the_same_plan_has_no_changes_and_keeps_its_name() {
        let p = example_plan();
        assert!(changes(&p, &p).is_empty());
        assert_eq!(name(&p, &p, &[]), p.name);
    }

    /// A value left to the engine's default reads in the reader's
    /// language; technical notation stays as it is, and English is the
    /// values as stored.
    #[test]
    fn unset_values_read_in_the_readers_language() {
        let base = crate::examples::example_serving_plan();
        let mut p = base.clone();
        p.levers.engine_knobs.max_seqs = Some(64);
        let c = changes(&base, &p);
        let seqs = c.iter().find(|c| c.setting == Setting::MaxSeqs);
        let seqs = seqs.map(|c| (c.describe(Lang::En), c.describe(Lang::Zh)));
        assert_eq!(
            seqs,
            Some((
                "running-request limit default → 64".to_string(),
                "最大运行请求数 默认 → 64".to_string()
            ))
        );
        let store = Change {
            setting: Setting::KvTier,
            from: "none".into(),
            to: "host_dram all".into(),
            impact: Impact::None,
        };
        assert_eq!(
            store.describe(Lang::Zh),
            "HBM 之下的 KV 存储 无 → host_dram 全部"
        );
        assert_eq!(
            store.describe(Lang::En),
            "KV store below HBM none → host_dram all"
        );
    }

    /// A sharding change reads as the plan's own key, the one a user
    /// writes in a plan (`fsdp_full_shard`, not `fsdpfullshard`).
    #[test]
    fn sharding_reads_as_its_plan_key() {
        let base = example_plan();
        let mut p = base.clone();
        p.levers.sharding = crate::plan::Sharding::FsdpFullShard;
        let c = changes(&base, &p);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].to, "fsdp_full_shard");
    }

    /// The kernel reads as its plan key (the name table's, which
    /// `lang::tests` holds to serde's), and a change of kernel changes no
    /// output: every fused kernel computes exact attention.
    #[test]
    fn the_attention_kernel_is_listed_by_its_key() {
        use crate::plan::AttentionKernel;
        let mut base = example_plan();
        base.levers.attention = AttentionKernel::FlashTriton;
        let mut p = base.clone();
        p.levers.attention = AttentionKernel::Flash;
        let c = changes(&base, &p);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].setting, Setting::AttentionKernel);
        assert_eq!(
            (c[0].from.as_str(), c[0].to.as_str()),
            ("flash_triton", "flash")
        );
        assert_eq!(c[0].impact, Impact::None);
        assert_eq!(
            c[0].describe(Lang::En),
            "attention kernel flash_triton → flash"
        );
    }

    #[test]
    fn frameworks_and_moe_levers_are_listed() {
        use crate::moe::DispatchOverlap;
        use crate::software::MemoryStack;
        use crate::stack::TrainingStack;
        let base = example_plan();
        let mut p = base.clone();
        p.levers.training_stack = Some(TrainingStack::Torchtitan);
        p.levers.memory.stack = Some(MemoryStack::HfEager);
        p.levers.moe.dispatch_overlap = DispatchOverlap::OtherMicroBatch;
        let c = changes(&base, &p);
        let settings: Vec<Setting> = c.iter().map(|c| c.setting).collect();
        assert_eq!(
            settings,
            [Setting::TrainingStack, Setting::MemoryStack, Setting::Moe]
        );
        assert!(c.iter().all(|c| c.impact == Impact::None), "{c:?}");
        assert_eq!(
            c[1].describe(Lang::En),
            "memory-model framework default → hf_eager"
        );
        assert!(c[0].describe(Lang::Zh).starts_with("训练框架"));
        // Dropping tokens at a capacity factor changes the model's output.
        let mut q = base.clone();
        q.levers.moe.balance = ExpertBalance::Capacity { factor: 1.25 };
        let c = changes(&base, &q);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].impact, Impact::Quality);
        assert_eq!(c[0].to, "capacity 1.25, none");
    }

    #[test]
    fn switching_to_adapters_is_a_flagged_change() {
        let base = example_plan();
        let mut p = base.clone();
        if let Workload::Training(t) = &mut p.workload {
            t.kind = TrainingKind::Qlora(crate::plan::LoraSpec {
                rank: 64,
                targets: crate::plan::LoraTargets::AllLinear,
                adapter_precision: Precision::Fp32,
            });
        }
        let c = changes(&base, &p);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].setting, Setting::TrainingMethod);
        assert_eq!(c[0].impact, Impact::Quality);
        assert_eq!(
            c[0].describe(Lang::En),
            "training method pre-training → qlora r=64"
        );
    }

    #[test]
    fn quantization_and_concurrency_are_flagged() {
        let mut base = example_plan();
        base.workload = Workload::Inference(crate::plan::Inference {
            prompt_tokens: 1000,
            output_tokens: 100,
            batch: 64,
            logits: crate::plan::LogitsScope::LastToken,
            stream: None,
        });
        let mut p = base.clone();
        p.levers.precision.weights = Precision::Int4 { group_size: 128 };
        p.levers.parallel.tp = 2;
        if let Workload::Inference(i) = &mut p.workload {
            i.batch = 32;
        }
        let c = changes(&base, &p);
        let impact = |s: Setting| c.iter().find(|x| x.setting == s).map(|x| x.impact);
        assert_eq!(impact(Setting::Weights), Some(Impact::Quality));
        assert_eq!(impact(Setting::Concurrency), Some(Impact::Sla));
        assert_eq!(impact(Setting::TensorParallel), Some(Impact::None));
        let n = name(&base, &p, &c);
        assert!(n.contains("TP 1 → 2"), "{n}");
        assert!(n.contains("int4/g128"), "{n}");
        assert!(n.contains("concurrency 64 → 32"), "{n}");
        assert!(!n.contains(&base.name), "{n}");
        assert!(c[0].describe(Lang::Zh).contains('→'));
    }
}
