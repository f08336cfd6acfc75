//! Built-in workspaces: the default plan and the three situations of the
//! product brief, each as several plans side by side (the first is the
//! baseline the others are compared with).
//!
//! Presets are data, not formulas: every figure below is an input a user
//! could have typed. Plan names are user data too, so they are written in
//! the workspace's language when the preset is loaded.

use crate::i18n::{tr, Lang};
use planner_core::catalog::{self, CxlId, GpuId, ModelId};
use planner_core::catalog::{Market, PriceKind, PricedItem};
use planner_core::economics::{Economics, Pricing};
use planner_core::engine::{Engine, KvLoad, KvTier, PreemptedKv, DEFAULT_KV_CHUNK_TOKENS};
use planner_core::example_plan;
use planner_core::hardware::{
    CustomGpu, CxlChoice, CxlExpansion, GpuChoice, GpuSpec, Hardware, MemoryPool,
};
use planner_core::plan::{
    Checkpointing, Inference, KvCacheLayout, Levers, LogitsScope, LoraSpec, LoraTargets,
    ModelChoice, OffloadTarget, Parallelism, Plan, Precisions, Sharding, Tier, Training,
    TrainingKind, Workload, SCHEMA_VERSION,
};
use planner_core::precision::Precision;
use planner_core::request::{Arrival, Lengths, RequestStream, Reuse, Slo};
use planner_core::tenants::{LatencySlo, ShareMode};
use planner_core::units::{ByteRate, Bytes, FlopRate, Frequency, Seconds, Usd, Watts};
use planner_core::workspace::{JobChoice, TenantSettings, View, Workspace};

/// A built-in workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// The first screen: Llama 3.1 70B fine-tuning that does not fit on
    /// 8×H100, against its software-only, hardware-only and combined ways
    /// over the wall, on the cost-vs-latency view.
    Default,
    /// The example plan alone: Llama 2 7B pre-training on 8×H100.
    Example,
    /// Budget-limited exploration: fine-tuning a 70B model on a few
    /// ordinary GPUs with software levers, against bigger GPUs.
    Budget,
    /// Latency-sensitive large-scale serving with long context, as the
    /// engines run it (vLLM, a request stream with targets): quantization
    /// against bigger-HBM GPUs and a KV store on CXL.
    Serving,
    /// Cloud-native multi-tenant sharing: small models on shared GPUs with
    /// memory caps, smaller batches and MIG-sized slices.
    MultiTenant,
    /// Serving a 72B model on the accelerators sold in China (H20, H800,
    /// A800, Ascend 910B, RTX 4090), each at its dated rental price.
    China,
}

impl Preset {
    /// Every preset, in menu order.
    pub const ALL: [Preset; 6] = [
        Preset::Default,
        Preset::Example,
        Preset::Budget,
        Preset::Serving,
        Preset::MultiTenant,
        Preset::China,
    ];

    /// A stable key for the preset menu.
    pub fn key(self) -> &'static str {
        match self {
            Preset::Default => "default",
            Preset::Example => "example",
            Preset::Budget => "budget",
            Preset::Serving => "serving",
            Preset::MultiTenant => "multi-tenant",
            Preset::China => "china",
        }
    }

    /// The preset of a menu key.
    pub fn from_key(key: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.key() == key)
    }

    /// The preset's workspace, with plan names in `lang`.
    pub fn workspace(self, lang: Lang) -> Workspace {
        let plans = match self {
            Preset::Default => wall(lang),
            Preset::Example => vec![example_plan()],
            Preset::Budget => budget(lang),
            Preset::Serving => serving(lang),
            Preset::MultiTenant => multi_tenant(lang),
            Preset::China => china(lang),
        };
        let mut ws = Workspace::new(example_plan());
        ws.plans = plans;
        ws.lang = lang;
        if self == Preset::MultiTenant {
            ws.tenants = tenants_of_multi_tenant();
        }
        if self == Preset::Default {
            // The first screen is the answer: software against hardware
            // on cost and latency (issue 15).
            ws.view = View::Frontier;
        }
        ws
    }
}

/// The workspace shown when the address holds none.
pub fn default_workspace(lang: Lang) -> Workspace {
    Preset::Default.workspace(lang)
}

/// A rack-level CXL pool behind a switch: 4 TB shared by 32 GPUs, each
/// with one x16 CXL 2.0 port's bandwidth (the catalog's generic expander)
/// and a latency in the middle of the 300–600 ns of switched pools. The
/// starting point of the pool editor and of the multi-tenant preset; the
/// capacity and the sharing are scenario choices, not measurements.
pub fn default_pool() -> MemoryPool {
    MemoryPool {
        capacity: Bytes::from_tb(4.0),
        shared_by_gpus: 32,
        bandwidth: catalog::cxl_device(CxlId::Cxl2X16Expander).spec.bandwidth,
        latency: Seconds::from_nanos(450.0),
    }
}

/// A fresh plan for "add plan": the example plan, numbered.
pub fn new_plan(lang: Lang, number: usize) -> Plan {
    Plan {
        name: format!("{} {number}", tr(lang, "Plan", "方案")),
        ..example_plan()
    }
}

fn plan(
    name: &str,
    model: ModelId,
    workload: Workload,
    levers: Levers,
    hardware: Hardware,
) -> Plan {
    Plan {
        version: SCHEMA_VERSION,
        name: name.to_string(),
        model: ModelChoice::Preset(model),
        workload,
        levers,
        hardware,
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Economics::default(),
        distillation: None,
    }
}

fn gpus(id: GpuId, count: u32) -> Hardware {
    Hardware::new(GpuChoice::Preset(id), count)
}

fn offload(tier: Tier, fraction: f64) -> Option<OffloadTarget> {
    Some(OffloadTarget { tier, fraction })
}

/// `per_node` CXL expanders of one kind in each node.
fn with_cxl(mut hw: Hardware, device: CxlId, per_node: u32) -> Hardware {
    hw.cxl = Some(CxlExpansion {
        devices_per_node: per_node,
        device: CxlChoice::Preset(device),
    });
    hw
}

/// The first screen's story: full fine-tuning of Llama 3.1 70B at 4 K
/// context on one node of 8×H100 with ZeRO-3 (FSDP) and full
/// recomputation still needs about twice the HBM (18 bytes of model state
/// per parameter ÷ 8 is over 80 GB). Software over the wall: optimizer
/// offload, QLoRA. Hardware: H200 (not enough alone), B300, a slice of a
/// GB200 NVL72 rack. Both: CXL expanders holding the optimizer states.
fn wall(lang: Lang) -> Vec<Plan> {
    let model = ModelId::Llama31_70b;
    let full = Workload::Training(Training {
        kind: TrainingKind::FullFineTune,
        seq_len: 4096,
        global_batch: 64,
        tokens: 1.0e9,
    });
    let base = Levers {
        sharding: Sharding::Zero3,
        checkpointing: Checkpointing::Full,
        parallel: Parallelism {
            dp: 8,
            ..Parallelism::default()
        },
        ..Levers::default()
    };
    let mut offloaded = base;
    offloaded.offload.optimizer = offload(Tier::HostDram, 1.0);
    let qlora = Workload::Training(Training {
        kind: TrainingKind::Qlora(LoraSpec {
            // QLoRA's own setting (Dettmers et al. 2023, §4).
            rank: 64,
            targets: LoraTargets::AllLinear,
            adapter_precision: Precision::Fp32,
        }),
        seq_len: 4096,
        global_batch: 64,
        tokens: 1.0e9,
    });
    let qlora_levers = Levers {
        sharding: Sharding::None,
        ..base
    };
    let mut cxl_levers = base;
    cxl_levers.offload.optimizer = offload(Tier::Cxl, 1.0);
    let mut rack_levers = base;
    rack_levers.parallel.dp = 16;
    let h100 = gpus(GpuId::H100Sxm, 8);
    let rack = Hardware {
        // A GB200 compute tray holds four GPUs; NVL72 joins 18 trays in
        // one NVLink domain.
        gpus_per_node: 4,
        scale_up_domain: 72,
        ..gpus(GpuId::Gb200, 16)
    };
    let named =
        |en: &'static str, zh: &'static str, work: &Workload, levers: Levers, hw: Hardware| {
            plan(tr(lang, en, zh), model, work.clone(), levers, hw)
        };
    vec![
        named(
            "8×H100, ZeRO-3 + full recompute",
            "8×H100，ZeRO-3 + 全量重计算",
            &full,
            base,
            h100.clone(),
        ),
        named(
            "+ optimizer offload to host DRAM",
            "+ 优化器状态卸载到主机内存",
            &full,
            offloaded,
            h100.clone(),
        ),
        named(
            "QLoRA r=64 (NF4 base) on the same H100s",
            "QLoRA r=64（NF4 底座），同样的 H100",
            &qlora,
            qlora_levers,
            h100.clone(),
        ),
        named(
            "8×H200 141GB, same software",
            "8×H200 141GB，软件不变",
            &full,
            base,
            gpus(GpuId::H200Sxm, 8),
        ),
        named(
            "8×B300 288GB, same software",
            "8×B300 288GB，软件不变",
            &full,
            base,
            gpus(GpuId::B300, 8),
        ),
        named(
            "16×GB200 in an NVL72 rack, ZeRO-3 over 16",
            "NVL72 机柜中的 16×GB200，ZeRO-3 跨 16 卡",
            &full,
            rack_levers,
            rack,
        ),
        named(
            "H100s + 4 CXL expanders, optimizer on CXL",
            "H100 + 4 块 CXL 扩展卡，优化器放在 CXL",
            &full,
            cxl_levers,
            with_cxl(h100, CxlId::MicronCz120_256, 4),
        ),
    ]
}

/// Full fine-tuning of Llama 3.1 70B at 4 K context on one node of
/// 8×A100 80GB: ZeRO-3 with full recomputation is the software starting
/// point (18 bytes/parameter ÷ 8 still does not fit), then offload, QLoRA,
/// bigger GPUs, and CXL memory for the offloaded states.
fn budget(lang: Lang) -> Vec<Plan> {
    let model = ModelId::Llama31_70b;
    let full = Workload::Training(Training {
        kind: TrainingKind::FullFineTune,
        seq_len: 4096,
        global_batch: 64,
        tokens: 1.0e9,
    });
    let base = Levers {
        sharding: Sharding::Zero3,
        checkpointing: Checkpointing::Full,
        parallel: Parallelism {
            dp: 8,
            ..Parallelism::default()
        },
        ..Levers::default()
    };
    let mut offloaded = base;
    offloaded.offload.optimizer = offload(Tier::HostDram, 1.0);
    let qlora = Workload::Training(Training {
        kind: TrainingKind::Qlora(LoraSpec {
            // QLoRA's own setting (Dettmers et al. 2023, §4): r = 64 on
            // every linear layer.
            rank: 64,
            targets: LoraTargets::AllLinear,
            adapter_precision: Precision::Fp32,
        }),
        seq_len: 4096,
        global_batch: 64,
        tokens: 1.0e9,
    });
    let mut qlora_levers = base;
    // The core stores a QLoRA base in NF4 with double quantization.
    qlora_levers.sharding = Sharding::None;
    let mut cxl_levers = base;
    cxl_levers.offload.optimizer = offload(Tier::Cxl, 1.0);
    let a100 = gpus(GpuId::A100Sxm80, 8);
    vec![
        plan(
            tr(
                lang,
                "8×A100 80GB, ZeRO-3 + full recompute",
                "8×A100 80GB，ZeRO-3 + 全量重计算",
            ),
            model,
            full.clone(),
            base,
            a100.clone(),
        ),
        plan(
            tr(
                lang,
                "+ optimizer offload to host DRAM",
                "+ 优化器状态卸载到主机内存",
            ),
            model,
            full.clone(),
            offloaded,
            a100.clone(),
        ),
        plan(
            tr(
                lang,
                "QLoRA r=64 (NF4 base) on the same A100s",
                "QLoRA r=64（NF4 底座），同样的 A100",
            ),
            model,
            qlora,
            qlora_levers,
            a100.clone(),
        ),
        plan(
            tr(
                lang,
                "Bigger GPUs: 8×B300 288GB, same software",
                "更大显存：8×B300 288GB，软件不变",
            ),
            model,
            full.clone(),
            base,
            gpus(GpuId::B300, 8),
        ),
        plan(
            tr(
                lang,
                "A100s + 4 CXL expanders, optimizer on CXL",
                "A100 + 4 块 CXL 扩展卡，优化器放在 CXL",
            ),
            model,
            full,
            cxl_levers,
            with_cxl(a100, CxlId::MicronCz120_256, 4),
        ),
    ]
}

/// Long-context serving as the engines run it: Llama 3.1 70B under vLLM's
/// defaults on four GPUs, a Poisson stream of 0.2 requests/s, each a
/// 32 K-token prompt that opens with one of 64 documents of 24 K tokens
/// the requests come back to, and a 1 K-token answer, with targets on the
/// 99th percentiles (5 s to the first token, 50 ms per token; illustrative,
/// not from any service). Every plan fits, since vLLM's pool takes what
/// memory leaves; the wall shows as the KV the pool holds, so as the
/// stream's latency. In BF16 on H100s the plan misses both targets;
/// software (FP8 weights and KV, or INT4 weights) and a GB200 meet them, an
/// H200 alone does not, and a KV store on CXL expanders under FP8 cuts the
/// tail further (CLI, 2026-12-06).
fn serving(lang: Lang) -> Vec<Plan> {
    let model = ModelId::Llama31_70b;
    let work = Workload::Inference(Inference {
        prompt_tokens: 32_768,
        output_tokens: 1024,
        batch: 32,
        logits: LogitsScope::LastToken,
        stream: Some(RequestStream {
            arrival: Arrival::Poisson {
                rate: Frequency::per_second(0.2),
            },
            prompt: Lengths::Fixed { tokens: 32_768 },
            output: Lengths::Fixed { tokens: 1024 },
            slo: Slo {
                ttft_p99: Some(Seconds::from_secs(5.0)),
                tpot_p99: Some(Seconds::from_millis(50.0)),
                ..Slo::default()
            },
            shared_prefix: 0,
            reuse: Some(Reuse {
                contexts: 64,
                tokens: 24_576,
            }),
            // Enough for the percentiles, few enough to simulate six plans
            // on opening the scenario.
            requests: 200,
            seed: 0,
        }),
    });
    let base = Levers {
        parallel: Parallelism {
            tp: 4,
            ..Parallelism::default()
        },
        kv_cache: KvCacheLayout::Paged { block_tokens: 16 },
        engine: Engine::Vllm,
        // vLLM's token budget on 80 GB parts, stated so that a static
        // engine picked on the page still prefills in chunks.
        prefill_chunk: Some(8192),
        ..Levers::default()
    };
    let mut fp8 = base;
    fp8.precision = Precisions {
        weights: Precision::Fp8,
        compute: Precision::Fp8,
        kv_cache: Precision::Fp8,
        ..Precisions::default()
    };
    let mut int4 = base;
    int4.precision.weights = Precision::Int4 { group_size: 128 };
    int4.precision.kv_cache = Precision::Fp8;
    let mut fp8_cxl = fp8;
    fp8_cxl.kv_tier = Some(KvTier {
        tier: Tier::Cxl,
        capacity: None,
        chunk_tokens: DEFAULT_KV_CHUNK_TOKENS,
        load: KvLoad::default(),
        preempted: PreemptedKv::default(),
    });
    let h100 = gpus(GpuId::H100Sxm, 4);
    let gb200 = Hardware {
        // A GB200 compute tray holds four GPUs; NVL72 joins 18 trays in
        // one NVLink domain.
        gpus_per_node: 4,
        scale_up_domain: 72,
        ..gpus(GpuId::Gb200, 4)
    };
    vec![
        plan(
            tr(lang, "4×H100, BF16, TP=4", "4×H100，BF16，TP=4"),
            model,
            work.clone(),
            base,
            h100.clone(),
        ),
        plan(
            tr(lang, "FP8 weights and KV cache", "FP8 权重与 KV 缓存"),
            model,
            work.clone(),
            fp8,
            h100.clone(),
        ),
        plan(
            tr(lang, "INT4 weights, FP8 KV cache", "INT4 权重，FP8 KV 缓存"),
            model,
            work.clone(),
            int4,
            h100.clone(),
        ),
        plan(
            tr(
                lang,
                "4×H200 141GB, same software",
                "4×H200 141GB，软件不变",
            ),
            model,
            work.clone(),
            base,
            gpus(GpuId::H200Sxm, 4),
        ),
        plan(
            tr(lang, "4×GB200 in an NVL72 domain", "NVL72 域中的 4×GB200"),
            model,
            work.clone(),
            base,
            gb200,
        ),
        plan(
            tr(lang, "FP8, a KV store on CXL", "FP8，KV 存储放 CXL"),
            model,
            work,
            fp8_cxl,
            with_cxl(h100, CxlId::MicronCz120_256, 4),
        ),
    ]
}

/// Serving Qwen2.5-72B under vLLM on the accelerators teams in China rent:
/// chat-length requests (2,048 in, 512 out) at 2 requests/s with targets
/// on p99 TTFT (3 s) and TPOT (100 ms). The baseline is eight H20s in
/// BF16; FP8 on the same cards, H800, A800 and Ascend 910B servers, four
/// H20s in FP8, and eight RTX 4090s with INT4 weights, each at its dated
/// rental price on China's clouds (AutoDL and China Telecom's yuan
/// prices, `economics.market` China).
fn china(lang: Lang) -> Vec<Plan> {
    let model = ModelId::Qwen25_72b;
    let work = Workload::Inference(Inference {
        prompt_tokens: 2048,
        output_tokens: 512,
        batch: 32,
        logits: LogitsScope::LastToken,
        stream: Some(RequestStream {
            arrival: Arrival::Poisson {
                rate: Frequency::per_second(2.0),
            },
            prompt: Lengths::Fixed { tokens: 2048 },
            output: Lengths::Fixed { tokens: 512 },
            slo: Slo {
                ttft_p99: Some(Seconds::from_secs(3.0)),
                tpot_p99: Some(Seconds::from_millis(100.0)),
                ..Slo::default()
            },
            shared_prefix: 0,
            reuse: None,
            requests: 200,
            seed: 0,
        }),
    });
    let tp = |tp: u32| Levers {
        parallel: Parallelism {
            tp,
            ..Parallelism::default()
        },
        kv_cache: KvCacheLayout::Paged { block_tokens: 16 },
        engine: Engine::Vllm,
        prefill_chunk: Some(8192),
        ..Levers::default()
    };
    let fp8 = |tp_degree: u32| {
        let mut l = tp(tp_degree);
        l.precision = Precisions {
            weights: Precision::Fp8,
            compute: Precision::Fp8,
            kv_cache: Precision::Fp8,
            ..Precisions::default()
        };
        l
    };
    let mut int4 = tp(8);
    int4.precision.weights = Precision::Int4 { group_size: 128 };
    // Every part priced on China's clouds (the RTX 4090 at AutoDL's rate,
    // not RunPod's).
    let one = |en: &'static str, zh: &'static str, levers: Levers, hw: Hardware| Plan {
        economics: Economics {
            market: Some(Market::China),
            ..Economics::default()
        },
        ..plan(tr(lang, en, zh), model, work.clone(), levers, hw)
    };
    vec![
        one(
            "8×H20 96GB, BF16, TP=8",
            "8×H20 96GB，BF16，TP=8",
            tp(8),
            gpus(GpuId::H20, 8),
        ),
        one(
            "FP8 weights and KV cache",
            "FP8 权重与 KV 缓存",
            fp8(8),
            gpus(GpuId::H20, 8),
        ),
        one(
            "8×H800, same software",
            "8×H800，软件不变",
            tp(8),
            gpus(GpuId::H800Sxm, 8),
        ),
        one(
            "8×A800, same software",
            "8×A800，软件不变",
            tp(8),
            gpus(GpuId::A800Sxm80, 8),
        ),
        one(
            "8×Ascend 910B, same software",
            "8×昇腾 910B，软件不变",
            tp(8),
            gpus(GpuId::Ascend910b, 8),
        ),
        one(
            "4×H20, FP8, TP=4",
            "4×H20，FP8，TP=4",
            fp8(4),
            gpus(GpuId::H20, 4),
        ),
        one(
            "8×RTX 4090, INT4 weights",
            "8×RTX 4090，INT4 权重",
            int4,
            gpus(GpuId::Rtx4090, 8),
        ),
    ]
}

/// One slice of a MIG-partitioned GPU as a custom part: `compute` of seven
/// compute slices and `memory` of eight memory slices (NVIDIA MIG User
/// Guide, supported profiles: H100 3g.40gb is 3/7 of the SMs and 4/8 of the
/// memory). Rates and power scale with the slice; an approximation, since
/// a slice also gets a share of the L2 and copy engines we do not model.
fn mig_slice(id: GpuId, profile: &str, compute: u32, memory: u32) -> CustomGpu {
    let entry = catalog::gpu(id);
    let c = f64::from(compute) / 7.0;
    let m = f64::from(memory) / 8.0;
    let s = entry.spec;
    let rate = |r: FlopRate| FlopRate::from_tflops(r.as_tflops() * c);
    CustomGpu {
        name: format!("{} MIG {profile}", entry.name),
        spec: GpuSpec {
            capacity: Bytes::new(s.capacity.as_bytes() * m),
            usable: s.usable.map(|u| Bytes::new(u.as_bytes() * m)),
            memory_bandwidth: ByteRate::from_gb_per_s(s.memory_bandwidth.as_gb_per_s() * m),
            bf16: rate(s.bf16),
            fp16: rate(s.fp16),
            fp8: s.fp8.map(rate),
            fp4: s.fp4.map(rate),
            tdp: Watts::new(s.tdp.as_watts() * c),
            scale_up: None,
            mig_slices: 0,
            matmul_ceiling: s.matmul_ceiling.or_else(|| catalog::matmul_ceiling(id)),
            ..s
        },
    }
}

/// An hour of a MIG slice with `compute` of the seven compute slices:
/// that share of the whole GPU's catalog rental price. No cloud rents a
/// slice by the hour, so this is an assumption (docs/sources.md), set in
/// the plan where the cost views mark it "price assumed".
fn mig_share_price(id: GpuId, compute: u32) -> Usd {
    let whole = catalog::default_price(PricedItem::Gpu(id), PriceKind::RentalPerHour)
        .map_or(0.0, |p| p.usd.as_usd());
    Usd::new(whole * f64::from(compute) / 7.0)
}

/// The multi-tenant preset's pool: its three distinct tenants (tenant A
/// capped at batch 16, B and C; the other plans are variants of A to
/// compare) on one H100 under memory caps, each with the same illustrative
/// targets (5 s to first token of a 4096-token prompt, 50 ms per token;
/// not from any service).
/// Switching the pool to MIG slices shows one of them left out.
fn tenants_of_multi_tenant() -> TenantSettings {
    let job = |include| JobChoice {
        include,
        slo: LatencySlo {
            max_ttft: Some(Seconds::from_secs(5.0)),
            max_tpot: Some(Seconds::from_millis(50.0)),
        },
        min_batch: None,
    };
    TenantSettings {
        gpu: GpuId::H100Sxm,
        gpus: 1,
        mode: ShareMode::MemoryCap,
        jobs: vec![
            job(false),
            job(false),
            job(true),
            job(false),
            job(true),
            job(true),
        ],
    }
}

/// Tenants of a shared inference cluster, one plan each: Llama 3.1 8B on a
/// whole H100, then capped to share the card, with a smaller batch, with
/// its KV spilling to a CXL pool, and two more tenants on a smaller cap and
/// on a MIG slice.
fn multi_tenant(lang: Lang) -> Vec<Plan> {
    let chat = |batch| {
        Workload::Inference(Inference {
            prompt_tokens: 4096,
            output_tokens: 512,
            batch,
            logits: LogitsScope::LastToken,
            stream: None,
        })
    };
    let whole = Levers {
        prefill_chunk: Some(8192),
        ..Levers::default()
    };
    let capped = Levers {
        memory_cap: Some(0.4),
        ..whole
    };
    let mut spilled = capped;
    spilled.offload.kv_cache = offload(Tier::Cxl, 0.7);
    let small = Levers {
        memory_cap: Some(0.25),
        precision: Precisions {
            weights: Precision::Int4 { group_size: 128 },
            ..Precisions::default()
        },
        ..whole
    };
    let h100 = gpus(GpuId::H100Sxm, 1);
    let pooled = Hardware {
        pool: Some(default_pool()),
        ..h100.clone()
    };
    let mig = Hardware::new(
        GpuChoice::Custom(mig_slice(GpuId::H100Sxm, "3g.40gb", 3, 4)),
        1,
    );
    let mut on_mig = plan(
        tr(
            lang,
            "Tenant C: Mistral 7B on a MIG 3g.40gb slice",
            "租户 C：Mistral 7B 运行在 MIG 3g.40gb 切片上",
        ),
        ModelId::Mistral7bV01,
        chat(16),
        whole,
        mig,
    );
    on_mig.economics.pricing = Pricing::Rental {
        usd_per_gpu_hour: Some(mig_share_price(GpuId::H100Sxm, 3)),
    };
    vec![
        plan(
            tr(
                lang,
                "Tenant A: Llama 3.1 8B on a whole H100",
                "租户 A：Llama 3.1 8B 独占一张 H100",
            ),
            ModelId::Llama31_8b,
            chat(64),
            whole,
            h100.clone(),
        ),
        plan(
            tr(
                lang,
                "Tenant A capped at 40 % of the H100",
                "租户 A 限制为 H100 的 40 %",
            ),
            ModelId::Llama31_8b,
            chat(64),
            capped,
            h100.clone(),
        ),
        plan(
            tr(
                lang,
                "Tenant A capped at 40 %, batch 16",
                "租户 A 限制为 40 %，批大小 16",
            ),
            ModelId::Llama31_8b,
            chat(16),
            capped,
            h100.clone(),
        ),
        plan(
            tr(
                lang,
                "Tenant A capped at 40 %, KV spills to a CXL pool",
                "租户 A 限制为 40 %，KV 溢出到 CXL 内存池",
            ),
            ModelId::Llama31_8b,
            chat(64),
            spilled,
            pooled,
        ),
        plan(
            tr(
                lang,
                "Tenant B: Qwen2.5 7B INT4 at a 25 % cap",
                "租户 B：Qwen2.5 7B INT4，上限 25 %",
            ),
            ModelId::Qwen25_7b,
            chat(16),
            small,
            h100,
        ),
        on_mig,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::effort::{family, PlanFamily};
    use planner_core::report::StreamVerdict;
    use planner_core::{evaluate, DiagnosticKind, Severity, Verdict};

    /// Errors other than "over capacity" (which only says a plan does not
    /// fit, and is part of every preset's story).
    fn plan_errors(p: &Plan) -> Vec<String> {
        evaluate(p)
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .filter(|d| !matches!(d.detail, DiagnosticKind::OverCapacity { .. }))
            .map(|d| d.message.clone())
            .collect()
    }

    #[test]
    fn presets_evaluate_without_errors_in_both_languages() {
        for lang in [Lang::En, Lang::Zh] {
            for preset in Preset::ALL {
                let ws = preset.workspace(lang);
                assert_eq!(ws.lang, lang);
                assert!(!ws.plans.is_empty() && ws.plans.len() <= planner_core::link::MAX_PLANS);
                for p in &ws.plans {
                    assert!(!p.name.is_empty());
                    let r = evaluate(p);
                    assert_ne!(
                        r.verdict,
                        Verdict::Invalid,
                        "{preset:?} / {}: {:?}",
                        p.name,
                        plan_errors(p)
                    );
                    assert!(
                        plan_errors(p).is_empty(),
                        "{preset:?} / {}: {:?}",
                        p.name,
                        plan_errors(p)
                    );
                }
                // A preset survives its own share link.
                assert_eq!(Workspace::from_link(&ws.to_link()), Ok(ws));
            }
        }
    }

    #[test]
    fn every_preset_plan_has_a_gpu_price() {
        // So every plan of every scenario appears on the cost views.
        for preset in Preset::ALL {
            for p in &preset.workspace(Lang::En).plans {
                let cost = evaluate(p).cost;
                assert!(
                    cost.as_ref().is_some_and(|c| c.gpu_price.is_some()),
                    "{preset:?} / {} has no GPU price",
                    p.name
                );
            }
        }
    }

    #[test]
    fn plan_names_follow_the_language() {
        for preset in [
            Preset::Default,
            Preset::Budget,
            Preset::Serving,
            Preset::MultiTenant,
            Preset::China,
        ] {
            let en = preset.workspace(Lang::En);
            let zh = preset.workspace(Lang::Zh);
            for (a, b) in en.plans.iter().zip(&zh.plans) {
                assert_ne!(a.name, b.name);
                // Only the names differ.
                assert_eq!(
                    Plan {
                        name: b.name.clone(),
                        ..a.clone()
                    },
                    *b
                );
            }
        }
    }

    /// The stories the presets tell: the baseline misses, software or
    /// hardware levers get over the wall.
    #[test]
    fn baselines_miss_and_levers_fit() {
        for preset in [Preset::Default, Preset::Budget, Preset::MultiTenant] {
            let ws = preset.workspace(Lang::En);
            let verdicts: Vec<Verdict> = ws.plans.iter().map(|p| evaluate(p).verdict).collect();
            let fits = verdicts.iter().filter(|v| **v == Verdict::Fits).count();
            assert!(fits >= 3, "{preset:?}: {verdicts:?}");
            assert!(
                verdicts.contains(&Verdict::DoesNotFit),
                "{preset:?}: {verdicts:?}"
            );
        }
        // Serving as the engines run it: every plan fits (the pool takes
        // what memory leaves); the baseline misses its targets and at
        // least three plans meet them.
        let ws = Preset::Serving.workspace(Lang::En);
        let served: Vec<_> = ws
            .plans
            .iter()
            .map(|p| evaluate(p).stream_verdict())
            .collect();
        assert!(
            matches!(
                served[0],
                Some(StreamVerdict::MissesSlo | StreamVerdict::Unsustainable)
            ),
            "{served:?}"
        );
        let meeting = served
            .iter()
            .filter(|v| **v == Some(StreamVerdict::MeetsSlo))
            .count();
        assert!(meeting >= 3, "{served:?}");
        for preset in [Preset::Default, Preset::Budget, Preset::Serving] {
            let ws = preset.workspace(Lang::En);
            if preset != Preset::Serving {
                assert_eq!(
                    evaluate(&ws.plans[0]).verdict,
                    Verdict::DoesNotFit,
                    "{preset:?}"
                );
            }
            let families: Vec<PlanFamily> =
                ws.plans.iter().map(|p| family(p, &ws.plans[0])).collect();
            for f in [
                PlanFamily::Algorithmic,
                PlanFamily::Hardware,
                PlanFamily::Hybrid,
            ] {
                assert!(families.contains(&f), "{preset:?}: {families:?}");
            }
        }
    }

    #[test]
    fn multi_tenant_caps_fit_one_gpu_and_mig_does_not() {
        use planner_core::tenants::share;
        let ws = Preset::MultiTenant.workspace(Lang::En);
        let (sharing, picked) = ws.tenants.sharing(&ws.plans);
        assert_eq!(picked, vec![2, 4, 5]);
        let caps = share(&sharing);
        assert_eq!(caps.placed, 3, "{:#?}", caps.diagnostics);
        assert_eq!(caps.gpus_used, 1);
        let mut mig = ws.tenants.clone();
        mig.mode = ShareMode::Mig;
        let r = share(&mig.sharing(&ws.plans).0);
        assert!(r.placed < 3, "{:#?}", r.jobs);
        mig.gpus = 2;
        let r2 = share(&mig.sharing(&ws.plans).0);
        assert_eq!(r2.placed, 3);
        for p in [
            Preset::Default,
            Preset::Example,
            Preset::Budget,
            Preset::Serving,
            Preset::China,
        ] {
            assert_eq!(p.workspace(Lang::Zh).tenants, TenantSettings::default());
        }
    }

    /// The first screen (issue 15): one model and workload, the baseline
    /// over the wall, and in each of the software and hardware families a
    /// plan that fits and one of each family on the cost view's frontier
    /// or beside it; the page opens on the cost-vs-latency view.
    #[test]
    fn the_default_opens_on_software_against_hardware() {
        let ws = default_workspace(Lang::En);
        assert_eq!(ws.view, View::Frontier);
        assert_eq!(ws.active, 0);
        let base = &ws.plans[0];
        let reports: Vec<_> = ws.plans.iter().map(evaluate).collect();
        assert_eq!(reports[0].verdict, Verdict::DoesNotFit);
        for f in [PlanFamily::Algorithmic, PlanFamily::Hardware] {
            assert!(
                ws.plans
                    .iter()
                    .zip(&reports)
                    .any(|(p, r)| family(p, base) == f && r.verdict == Verdict::Fits),
                "no {f:?} plan fits"
            );
        }
        // More HBM alone is not always enough: a hardware plan that misses.
        assert!(ws
            .plans
            .iter()
            .zip(&reports)
            .any(|(p, r)| family(p, base) == PlanFamily::Hardware
                && r.verdict == Verdict::DoesNotFit));
        for p in &ws.plans {
            assert_eq!(p.model, base.model, "{}", p.name);
        }
    }

    /// The China scenario compares what the same workload costs on each
    /// part: every plan fits and has a price, the GPU kind changes among
    /// the hardware plans, and the RTX 4090s (PCIe, INT4) cannot carry the
    /// stream that the data-centre parts serve within its targets.
    #[test]
    fn china_compares_the_parts_on_one_workload() {
        let ws = Preset::China.workspace(Lang::Zh);
        assert_eq!(ws.plans[0].name, "8×H20 96GB，BF16，TP=8");
        let served: Vec<_> = ws
            .plans
            .iter()
            .map(|p| {
                let r = evaluate(p);
                assert_eq!(r.verdict, Verdict::Fits, "{}", p.name);
                assert_eq!(p.model, ws.plans[0].model, "{}", p.name);
                r.stream_verdict()
            })
            .collect();
        assert_eq!(served[0], Some(StreamVerdict::MeetsSlo), "{served:?}");
        let meeting = served
            .iter()
            .filter(|v| **v == Some(StreamVerdict::MeetsSlo))
            .count();
        assert!(meeting >= 5, "{served:?}");
        assert_ne!(served[6], Some(StreamVerdict::MeetsSlo), "{served:?}");
        let families: Vec<PlanFamily> = ws.plans.iter().map(|p| family(p, &ws.plans[0])).collect();
        for f in [
            PlanFamily::Algorithmic,
            PlanFamily::Hardware,
            PlanFamily::Hybrid,
        ] {
            assert!(families.contains(&f), "{families:?}");
        }
    }

    #[test]
    fn keys_round_trip() {
        for p in Preset::ALL {
            assert_eq!(Preset::from_key(p.key()), Some(p));
        }
        assert_eq!(Preset::from_key("nope"), None);
    }

    #[test]
    fn new_plans_are_numbered() {
        assert_eq!(new_plan(Lang::En, 3).name, "Plan 3");
        assert_eq!(new_plan(Lang::Zh, 3).name, "方案 3");
    }
}
