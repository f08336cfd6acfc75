//! The wall over time: published model sizes and GPU memory capacities by
//! date, each with its source, and the memory each model needs under a
//! chosen plan, so that a chart can draw the wall and how far the models
//! are above it.
//!
//! [`wall`] evaluates one template plan (training or serving, with the
//! levers the reader picks) for every model: the model is swapped in, its
//! context clamped to what it was trained for, and it is evaluated
//! - on one GPU with no parallelism or sharding: the HBM the whole job
//!   needs on a single device, the height of the climb;
//! - on the fewest GPUs of the chosen kind that hold it: training shards
//!   its states with FSDP full sharding over N data-parallel ranks (the
//!   global batch is N micro-batches; a mixture of experts also spreads its
//!   experts over gcd(experts, N) ranks), serving splits the layers over N
//!   pipeline stages (N ≤ layers). Memory per GPU does not grow with N in
//!   either layout, so the fewest GPUs are found by doubling, then bisection
//!   (powers of two only for a mixture of experts, whose expert-parallel
//!   degree changes with N).

use crate::catalog::{self, GpuId, ModelId, Provenance};
use crate::evaluate::evaluate;
use crate::hardware::GpuChoice;
use crate::model::{Embeddings, ModelSpec};
use crate::plan::{
    Checkpointing, CustomModel, Inference, Levers, ModelChoice, Offload, Parallelism, Plan,
    Sharding, Training, TrainingKind, Workload, SCHEMA_VERSION,
};
use crate::report::{Report, Verdict};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// A month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct YearMonth {
    /// Year.
    pub year: u16,
    /// Month, 1..=12.
    pub month: u8,
}

impl YearMonth {
    /// The middle of the month as a fractional year (2020.37 for May 2020),
    /// for a chart's time axis.
    pub fn as_year(self) -> f64 {
        f64::from(self.year) + (f64::from(self.month) - 0.5) / 12.0
    }
}

const fn ym(year: u16, month: u8) -> YearMonth {
    YearMonth { year, month }
}

/// The architecture a published model is evaluated with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum WallModel {
    /// A model of the catalog.
    Catalog(ModelId),
    /// A shape given here (models not in the catalog).
    Spec(ModelSpec),
}

/// A published model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelPoint {
    /// Name.
    pub name: &'static str,
    /// When it was published.
    pub date: YearMonth,
    /// Parameters as published.
    pub params: f64,
    /// Its architecture.
    pub model: WallModel,
    /// Where the size and date come from.
    pub source: &'static str,
    /// How they were checked.
    pub provenance: Provenance,
}

/// A GPU's memory when it was announced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuPoint {
    /// Name.
    pub name: &'static str,
    /// When it was announced.
    pub date: YearMonth,
    /// Memory as marketed (decimal GB).
    pub capacity: Bytes,
    /// The catalog entry, if there is one.
    pub gpu: Option<GpuId>,
    /// Where the size and date come from.
    pub source: &'static str,
    /// How they were checked.
    pub provenance: Provenance,
}

/// PaLM 540B (Chowdhery et al., "PaLM: Scaling Language Modeling with
/// Pathways", arXiv:2204.02311, Table 1 and §2): 118 layers, d_model 18432,
/// 48 heads of 256, multi-query attention, SwiGLU with d_ff = 4·d_model,
/// shared input-output embeddings over a 256k vocabulary, RoPE, no biases,
/// 2048 tokens. Parallel attention/FFN blocks are modelled as serial (same
/// parameters); layer norms without bias as RMSNorm (h parameters each).
pub const PALM_540B: ModelSpec = ModelSpec {
    head_dim: 256,
    embeddings: Embeddings::Tied,
    ..ModelSpec::llama(118, 18432, 48, 1, 73728, 256_000, 2048)
};

/// Published model sizes, oldest first.
pub static MODELS: &[ModelPoint] = &[
    ModelPoint {
        name: "BERT-large",
        date: ym(2018, 10),
        params: 340e6,
        model: WallModel::Catalog(ModelId::BertLarge),
        source: "Devlin et al., \"BERT\", arXiv:1810.04805 (October 2018), §3: BERT-large, 340M parameters",
        provenance: Provenance::Recalled,
    },
    ModelPoint {
        name: "GPT-2 1.5B",
        date: ym(2019, 2),
        params: 1542e6,
        model: WallModel::Catalog(ModelId::Gpt2Xl),
        source: "Radford et al., \"Language Models are Unsupervised Multitask Learners\" (OpenAI, February 2019), Table 2: 1542M parameters",
        provenance: Provenance::Recalled,
    },
    ModelPoint {
        name: "GPT-3 175B",
        date: ym(2020, 5),
        params: 175e9,
        model: WallModel::Catalog(ModelId::Gpt3_175b),
        source: "Brown et al., \"Language Models are Few-Shot Learners\", arXiv:2005.14165 (May 2020), Table 2.1",
        provenance: Provenance::Verified,
    },
    ModelPoint {
        name: "Megatron-Turing NLG 530B",
        date: ym(2021, 10),
        params: 530e9,
        model: WallModel::Catalog(ModelId::Megatron530b),
        source: "Microsoft and NVIDIA announcement (October 2021); Smith et al., arXiv:2201.11990",
        provenance: Provenance::Recalled,
    },
    ModelPoint {
        name: "PaLM 540B",
        date: ym(2022, 4),
        params: 540.35e9,
        model: WallModel::Spec(PALM_540B),
        source: "Chowdhery et al., \"PaLM\", arXiv:2204.02311 (April 2022), Table 1 and App. B (540.35B parameters)",
        provenance: Provenance::VerifiedCopy,
    },
    ModelPoint {
        name: "Llama 2 70B",
        date: ym(2023, 7),
        params: 70e9,
        model: WallModel::Catalog(ModelId::Llama2_70b),
        source: "Touvron et al., \"Llama 2\", arXiv:2307.09288 (July 2023)",
        provenance: Provenance::Recalled,
    },
    ModelPoint {
        name: "Llama 3.1 405B",
        date: ym(2024, 7),
        params: 405e9,
        model: WallModel::Catalog(ModelId::Llama31_405b),
        source: "Llama Team, \"The Llama 3 Herd of Models\", arXiv:2407.21783 (July 2024)",
        provenance: Provenance::VerifiedCopy,
    },
    ModelPoint {
        name: "DeepSeek-V3",
        date: ym(2024, 12),
        params: 671e9,
        model: WallModel::Catalog(ModelId::DeepseekV3),
        source: "DeepSeek-AI, \"DeepSeek-V3 Technical Report\", arXiv:2412.19437 (December 2024): 671B total, 37B activated per token",
        provenance: Provenance::Recalled,
    },
];

/// GPU memory capacities, oldest first.
pub static GPUS: &[GpuPoint] = &[
    GpuPoint {
        name: "Tesla P100",
        date: ym(2016, 4),
        capacity: Bytes::from_gb(16.0),
        gpu: None,
        source: "NVIDIA GTC 2016 keynote (5 April 2016): 16 GB HBM2, as reported by Tom's Hardware",
        provenance: Provenance::Secondary,
    },
    GpuPoint {
        name: "Tesla V100 16GB",
        date: ym(2017, 5),
        capacity: Bytes::from_gb(16.0),
        gpu: Some(GpuId::V100Sxm2_16),
        source: "NVIDIA GTC 2017 keynote (May 2017)",
        provenance: Provenance::Recalled,
    },
    GpuPoint {
        name: "Tesla V100 32GB",
        date: ym(2018, 3),
        capacity: Bytes::from_gb(32.0),
        gpu: Some(GpuId::V100Sxm2_32),
        source: "NVIDIA GTC 2018 keynote (March 2018)",
        provenance: Provenance::Recalled,
    },
    GpuPoint {
        name: "A100 40GB",
        date: ym(2020, 5),
        capacity: Bytes::from_gb(40.0),
        gpu: Some(GpuId::A100Sxm40),
        source: "NVIDIA GTC 2020 keynote (May 2020), as reported by press",
        provenance: Provenance::Secondary,
    },
    GpuPoint {
        name: "A100 80GB",
        date: ym(2020, 11),
        capacity: Bytes::from_gb(80.0),
        gpu: Some(GpuId::A100Sxm80),
        source: "NVIDIA at SC20 (November 2020), as reported by AnandTech",
        provenance: Provenance::Secondary,
    },
    GpuPoint {
        name: "H100 80GB",
        date: ym(2022, 3),
        capacity: Bytes::from_gb(80.0),
        gpu: Some(GpuId::H100Sxm),
        source: "NVIDIA GTC 2022 keynote (22 March 2022), as reported by press",
        provenance: Provenance::Secondary,
    },
    GpuPoint {
        name: "H200 141GB",
        date: ym(2023, 11),
        capacity: Bytes::from_gb(141.0),
        gpu: Some(GpuId::H200Sxm),
        source: "NVIDIA at SC23 (13 November 2023), as reported by AnandTech",
        provenance: Provenance::Secondary,
    },
    GpuPoint {
        name: "MI300X 192GB",
        date: ym(2023, 12),
        capacity: Bytes::from_gb(192.0),
        gpu: Some(GpuId::Mi300x),
        source: "AMD Advancing AI (6 December 2023), as reported by press",
        provenance: Provenance::Secondary,
    },
    GpuPoint {
        name: "B200 192GB",
        date: ym(2024, 3),
        capacity: Bytes::from_gb(192.0),
        gpu: Some(GpuId::B200),
        source: "NVIDIA GTC 2024 keynote (18 March 2024), as reported by press; DGX B200 exposes 180 GB per GPU (the catalog's figure)",
        provenance: Provenance::Secondary,
    },
    GpuPoint {
        name: "MI325X 256GB",
        date: ym(2024, 10),
        capacity: Bytes::from_gb(256.0),
        gpu: Some(GpuId::Mi325x),
        source: "AMD Advancing AI (October 2024); announced at Computex in June 2024 with 288 GB",
        provenance: Provenance::Recalled,
    },
    GpuPoint {
        name: "B300 288GB",
        date: ym(2025, 3),
        capacity: Bytes::from_gb(288.0),
        gpu: Some(GpuId::B300),
        source: "NVIDIA GTC 2025 keynote (March 2025), Blackwell Ultra; 288 GB as reported by press",
        provenance: Provenance::Recalled,
    },
    GpuPoint {
        name: "MI355X 288GB",
        date: ym(2025, 6),
        capacity: Bytes::from_gb(288.0),
        gpu: Some(GpuId::Mi355x),
        source: "AMD Advancing AI (12 June 2025), as reported by The Register",
        provenance: Provenance::Secondary,
    },
];

/// What one model needs under the template plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ModelNeed {
    /// The model.
    pub name: String,
    /// When it was published.
    pub date: YearMonth,
    /// Parameters as published.
    pub published_params: f64,
    /// Parameters as the planner counts them.
    pub params: f64,
    /// HBM the job needs on a single GPU.
    pub one_gpu: Bytes,
    /// Fewest GPUs of the chosen kind that hold it (`None` beyond 65,536,
    /// or for serving beyond one stage per layer).
    pub min_gpus: Option<u32>,
    /// HBM per GPU at that count.
    pub per_gpu: Option<Bytes>,
    /// Where the size and date come from.
    pub source: String,
    /// How they were checked.
    pub provenance: Provenance,
}

/// A GPU capacity, for the chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GpuWall {
    /// The GPU.
    pub name: String,
    /// When it was announced.
    pub date: YearMonth,
    /// Memory as marketed.
    pub capacity: Bytes,
    /// Where the size and date come from.
    pub source: String,
    /// How they were checked.
    pub provenance: Provenance,
}

/// The chart's data: models above, GPUs below.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WallSeries {
    /// The template's name.
    pub plan: String,
    /// The GPU the fewest-GPU counts are for.
    pub gpu: String,
    /// Models, oldest first.
    pub models: Vec<ModelNeed>,
    /// GPUs, oldest first.
    pub gpus: Vec<GpuWall>,
}

impl WallSeries {
    /// The series as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

fn spec_of(m: WallModel) -> ModelSpec {
    match m {
        WallModel::Catalog(id) => catalog::model(id).spec,
        WallModel::Spec(s) => s,
    }
}

/// The template with the model swapped in and its context clamped to the
/// model's.
fn with_model(template: &Plan, point: &ModelPoint) -> Plan {
    let mut p = template.clone();
    p.distillation = None;
    p.model = match point.model {
        WallModel::Catalog(id) => ModelChoice::Preset(id),
        WallModel::Spec(spec) => ModelChoice::Custom(CustomModel {
            shipped: None,
            name: point.name.to_string(),
            spec,
        }),
    };
    let ctx = spec_of(point.model).max_context.max(2);
    match &mut p.workload {
        Workload::Training(t) => t.seq_len = t.seq_len.min(ctx),
        Workload::Inference(i) => {
            if i.prompt_tokens.saturating_add(i.output_tokens) > ctx {
                i.output_tokens = i.output_tokens.min(ctx / 2);
                i.prompt_tokens = ctx - i.output_tokens;
            }
        }
    }
    p
}

/// The plan on `n` GPUs of `gpu`: FSDP over n ranks (training) or n
/// pipeline stages (serving); `n = 1` is the plain single-GPU plan.
fn on_gpus(plan: &Plan, gpu: &GpuChoice, n: u32) -> Plan {
    let mut p = plan.clone();
    p.hardware.gpu = gpu.clone();
    p.hardware.gpus = n;
    p.levers.shard_group = None;
    let micro = p.levers.parallel.micro_batch.max(1);
    // Mixture-of-experts layers are too wide to gather whole: their experts
    // go over as many ranks as divide both the experts and the GPUs.
    let experts = p.model.spec().moe.map_or(1, |m| m.experts);
    let ep = gcd(experts.max(1), n.max(1));
    match &mut p.workload {
        Workload::Training(t) => {
            p.levers.parallel = Parallelism {
                dp: n,
                ep,
                micro_batch: micro,
                ..Parallelism::default()
            };
            p.levers.sharding = if n > 1 {
                Sharding::FsdpFullShard
            } else {
                Sharding::None
            };
            t.global_batch = n.saturating_mul(micro);
        }
        Workload::Inference(_) => {
            p.levers.parallel = Parallelism {
                pp: n,
                ..Parallelism::default()
            };
            p.levers.sharding = Sharding::None;
        }
    }
    p
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn hbm(r: &Report) -> Bytes {
    r.binding_device().map_or(Bytes::ZERO, |d| d.hbm_used())
}

/// The fewest GPUs that hold the plan in the layout of [`on_gpus`]; with
/// `powers_only` (mixtures of experts, whose expert-parallel degree must
/// divide the GPU count) only powers of two are tried.
fn fewest(plan: &Plan, gpu: &GpuChoice, limit: u32, powers_only: bool) -> Option<(u32, Bytes)> {
    let fits = |n: u32| {
        let r = evaluate(&on_gpus(plan, gpu, n));
        (r.verdict == Verdict::Fits, hbm(&r))
    };
    let (ok, used) = fits(1);
    if ok {
        return Some((1, used));
    }
    let mut lo = 1u32;
    let mut hi = 2u32;
    loop {
        let n = hi.min(limit);
        let (ok, used) = fits(n);
        if ok && powers_only {
            return Some((n, used));
        }
        if ok {
            let mut best = (n, used);
            let mut hi = n;
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                let (ok, used) = fits(mid);
                if ok {
                    hi = mid;
                    best = (mid, used);
                } else {
                    lo = mid;
                }
            }
            return Some(best);
        }
        if n >= limit {
            return None;
        }
        lo = n;
        hi = n.saturating_mul(2);
    }
}

/// The most GPUs tried.
const MAX_GPUS: u32 = 1 << 16;

/// The wall's data for one template plan and GPU kind (see the module
/// documentation).
pub fn wall(template: &Plan, gpu: &GpuChoice) -> WallSeries {
    let gpu_name = gpu.name().to_string();
    let models = MODELS
        .iter()
        .map(|point| {
            let plan = with_model(template, point);
            let one = evaluate(&on_gpus(&plan, gpu, 1));
            let limit = match plan.workload {
                Workload::Training(_) => MAX_GPUS,
                Workload::Inference(_) => spec_of(point.model).layers.max(1),
            };
            let moe = spec_of(point.model).moe.is_some();
            let found = fewest(&plan, gpu, limit, moe);
            ModelNeed {
                name: point.name.to_string(),
                date: point.date,
                published_params: point.params,
                params: one.params.total,
                one_gpu: hbm(&one),
                min_gpus: found.map(|f| f.0),
                per_gpu: found.map(|f| f.1),
                source: point.source.to_string(),
                provenance: point.provenance,
            }
        })
        .collect();
    let gpus = GPUS
        .iter()
        .map(|g| GpuWall {
            name: g.name.to_string(),
            date: g.date,
            capacity: g.capacity,
            source: g.source.to_string(),
            provenance: g.provenance,
        })
        .collect();
    WallSeries {
        plan: template.name.clone(),
        gpu: gpu_name,
        models,
        gpus,
    }
}

fn template(name: &str, workload: Workload, levers: Levers) -> Plan {
    Plan {
        version: SCHEMA_VERSION,
        name: name.into(),
        model: ModelChoice::Preset(ModelId::Gpt3_175b),
        workload,
        levers,
        hardware: crate::hardware::Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// Pre-training with Megatron-LM mixed precision and AdamW, full
/// recomputation, micro-batch 1 of 2048 tokens (or the model's context):
/// model states dominate, as in ZeRO's accounting.
pub fn training_template() -> Plan {
    template(
        "pre-training, BF16 mixed precision, AdamW, full recomputation, micro-batch 1 × 2048",
        Workload::Training(Training {
            kind: TrainingKind::PreTraining,
            seq_len: 2048,
            global_batch: 1,
            tokens: 0.0,
        }),
        Levers {
            checkpointing: Checkpointing::Full,
            offload: Offload::default(),
            ..Levers::default()
        },
    )
}

/// Serving one sequence of 2048 prompt and 256 output tokens with BF16
/// weights and KV cache: the weights dominate.
pub fn serving_template() -> Plan {
    template(
        "serving, BF16 weights and KV cache, batch 1, 2048 + 256 tokens",
        Workload::Inference(Inference {
            prompt_tokens: 2048,
            output_tokens: 256,
            batch: 1,
            logits: Default::default(),
            stream: None,
        }),
        Levers::default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_sorted_and_sourced() {
        for w in MODELS.windows(2) {
            assert!(w[0].date <= w[1].date, "{}", w[1].name);
        }
        for w in GPUS.windows(2) {
            assert!(w[0].date <= w[1].date, "{}", w[1].name);
        }
        for m in MODELS {
            assert!(m.source.len() > 10 && m.params > 0.0, "{}", m.name);
            assert!((1..=12).contains(&m.date.month));
        }
        for g in GPUS {
            assert!(g.source.len() > 10 && g.capacity.base() > 0.0, "{}", g.name);
            assert!((1..=12).contains(&g.date.month));
            if let Some(id) = g.gpu {
                let cat = catalog::gpu(id).spec.capacity.base();
                // Marketed at announcement; the catalog may list less
                // (B200: 192 GB announced, 180 GB per GPU in DGX B200).
                assert!(
                    g.capacity.base() >= cat && g.capacity.base() <= 1.1 * cat,
                    "{}",
                    g.name
                );
            }
        }
    }

    #[test]
    fn counted_parameters_agree_with_published_ones() {
        for m in MODELS {
            let counted = spec_of(m.model).params().total();
            assert!(
                (counted / m.params - 1.0).abs() < 0.05,
                "{}: counted {counted:.3e} vs published {:.3e}",
                m.name,
                m.params
            );
        }
    }

    #[test]
    fn the_wall_rises_and_models_climb_over_it() {
        let s = wall(&training_template(), &GpuChoice::Preset(GpuId::H100Sxm));
        assert_eq!(s.models.len(), MODELS.len());
        let first = &s.models[0];
        let last = &s.models[s.models.len() - 1];
        assert!(last.one_gpu.base() > 100.0 * first.one_gpu.base());
        assert_eq!(first.min_gpus, Some(1));
        // GPT-3 training states alone are 175e9 × 18 B ≈ 3.15 TB.
        let gpt3 = s.models.iter().find(|m| m.name.starts_with("GPT-3"));
        let need = gpt3.map_or(0.0, |m| m.one_gpu.as_gb());
        assert!(need > 3000.0, "{need}");
        let n = gpt3.and_then(|m| m.min_gpus).unwrap_or(0);
        assert!(n > 35 && n < 80, "{n}");
        for m in &s.models {
            if let (Some(n), Some(per)) = (m.min_gpus, m.per_gpu) {
                assert!(n >= 1 && per.as_gb() <= 85.6, "{}", m.name);
            }
        }
    }

    #[test]
    fn serving_needs_fewer_gpus_than_training() {
        let gpu = GpuChoice::Preset(GpuId::H100Sxm);
        let t = wall(&training_template(), &gpu);
        let s = wall(&serving_template(), &gpu);
        for (a, b) in t.models.iter().zip(&s.models) {
            assert!(b.one_gpu.base() < a.one_gpu.base(), "{}", a.name);
            if let (Some(x), Some(y)) = (a.min_gpus, b.min_gpus) {
                assert!(y <= x, "{}", a.name);
            }
        }
    }
}
