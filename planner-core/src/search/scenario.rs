//! The search's input: a base plan, a GPU budget, constraints and the
//! bounds of the space. Serializable, with every optional field defaulted,
//! like [`Plan`].

use crate::catalog::{CxlId, GpuId, ModelId};
use crate::effort::PlanFamily;
use crate::hardware::{CxlChoice, CxlExpansion, GpuChoice, Hardware};
use crate::plan::{
    Checkpointing, Levers, ModelChoice, Overheads, Parallelism, Plan, SequenceParallel, Sharding,
    Training, TrainingKind, Workload, SCHEMA_VERSION,
};
use crate::units::{Seconds, Usd};
use serde::{Deserialize, Serialize};

/// What to search: every valid variant of a base plan within a GPU budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Schema version the scenario was written for.
    #[serde(default = "schema_version")]
    pub version: u32,
    /// Free-text name.
    #[serde(default)]
    pub name: String,
    /// The plan as it stands: model, workload, hardware, levers and
    /// economics. The search varies its levers and hardware; it is also the
    /// baseline each found plan's family is taken against.
    pub base: Plan,
    /// Most GPUs a plan may use.
    pub max_gpus: u32,
    /// Which GPU counts up to `max_gpus` are tried.
    #[serde(default)]
    pub gpu_counts: GpuCounts,
    /// Limits a plan must meet to be an answer.
    #[serde(default)]
    pub constraints: Constraints,
    /// Bounds of the lever and hardware space.
    #[serde(default)]
    pub space: Space,
    /// GPU prices for the kinds the search tries, in the base plan's
    /// pricing basis. A kind not listed takes the catalog's default, except
    /// the base plan's own kind, which keeps the price its economics set.
    #[serde(default)]
    pub prices: Vec<GpuPrice>,
}

fn schema_version() -> u32 {
    SCHEMA_VERSION
}

/// The GPU counts tried. The base plan's own count is always tried too
/// (when within the budget), so the baseline is in the space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum GpuCounts {
    /// 1, 2, 4, … up to the budget, and the budget itself when it is a
    /// whole number of nodes. Every degree of a power-of-two count is a
    /// power of two, which is what most frameworks are tuned for.
    #[default]
    PowersOfTwo,
    /// Powers of two below one node, then every whole number of nodes up
    /// to the budget (finer, and slower to search on large budgets).
    NodeMultiples,
    /// Exactly these counts (those above the budget are ignored).
    Listed(Vec<u32>),
}

/// Whether a kind of lever may be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Permission {
    /// The search may use it.
    #[default]
    Allowed,
    /// The search keeps the base plan's setting.
    Forbidden,
}

fn all_changes() -> Vec<PlanFamily> {
    vec![
        PlanFamily::Algorithmic,
        PlanFamily::Hardware,
        PlanFamily::Hybrid,
    ]
}

/// Limits a plan must meet. Unset limits do not apply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Constraints {
    /// Longest optimizer step (training).
    #[serde(default)]
    pub max_step_time: Option<Seconds>,
    /// Longest time to first token (serving).
    #[serde(default)]
    pub max_ttft: Option<Seconds>,
    /// Longest time per output token (serving).
    #[serde(default)]
    pub max_tpot: Option<Seconds>,
    /// Most dollars per hour for the whole plan.
    #[serde(default)]
    pub max_usd_per_hour: Option<Usd>,
    /// Most dollars per million tokens (trained, or generated).
    #[serde(default)]
    pub max_usd_per_million_tokens: Option<Usd>,
    /// Which kinds of change may be made, as `effort::family` classes a
    /// plan against the base plan (the baseline itself is always kept).
    #[serde(default = "all_changes")]
    pub families: Vec<PlanFamily>,
    /// GPU kinds that may be used; `None` means the base plan's GPU and
    /// every catalog GPU with a rental price.
    #[serde(default)]
    pub gpu_kinds: Option<Vec<GpuId>>,
    /// Whether state may be offloaded to host DRAM, CXL or NVMe.
    #[serde(default)]
    pub offload: Permission,
    /// Whether number formats narrower than the base plan's may be used:
    /// FP8 GEMMs for training; FP8/INT8/INT4 weights and an FP8 KV cache
    /// for serving.
    #[serde(default)]
    pub quantization: Permission,
}

impl Constraints {
    /// The limits that are set but not a positive, finite number, each
    /// named by its field: a negative or zero limit excludes every plan,
    /// and the search would answer "nothing fits" for a typo.
    pub fn problems(&self) -> Vec<(&'static str, f64)> {
        let limits = [
            (
                "constraints.max_step_time",
                self.max_step_time.map(Seconds::base),
            ),
            ("constraints.max_ttft", self.max_ttft.map(Seconds::base)),
            ("constraints.max_tpot", self.max_tpot.map(Seconds::base)),
            (
                "constraints.max_usd_per_hour",
                self.max_usd_per_hour.map(Usd::as_usd),
            ),
            (
                "constraints.max_usd_per_million_tokens",
                self.max_usd_per_million_tokens.map(Usd::as_usd),
            ),
        ];
        limits
            .into_iter()
            .filter_map(|(field, v)| v.map(|v| (field, v)))
            .filter(|(_, v)| !(v.is_finite() && *v > 0.0))
            .collect()
    }
}

impl Default for Constraints {
    fn default() -> Self {
        Self {
            max_step_time: None,
            max_ttft: None,
            max_tpot: None,
            max_usd_per_hour: None,
            max_usd_per_million_tokens: None,
            families: all_changes(),
            gpu_kinds: None,
            offload: Permission::Allowed,
            quantization: Permission::Allowed,
        }
    }
}

/// Interleaved pipeline schedules tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Interleaving {
    /// Plain 1F1B only (and the base plan's schedule).
    Off,
    /// Every chunk count that divides the layers of a stage.
    #[default]
    All,
    /// Chunk counts up to this many.
    UpTo {
        /// Most model chunks per device.
        chunks: u32,
    },
}

/// Bounds of the space. Each is a search-space choice, not a pruning rule:
/// what lies outside is never generated and never counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Space {
    /// Largest context-parallel degree (training; 1 turns CP off).
    #[serde(default = "d_max_cp")]
    pub max_context_parallel: u32,
    /// Largest micro-batch (training).
    #[serde(default = "d_max_mb")]
    pub max_micro_batch: u32,
    /// Largest batch per replica (serving; powers of two up to it, and
    /// the base plan's batch).
    #[serde(default = "d_max_batch")]
    pub max_batch: u32,
    /// Interleaved schedules.
    #[serde(default)]
    pub interleaving: Interleaving,
    /// CXL expansions tried on top of each GPU kind's node (besides none,
    /// and besides the base plan's own). A plan is only evaluated on an
    /// added expansion if it offloads to it.
    #[serde(default = "d_cxl")]
    pub cxl: Vec<CxlExpansion>,
    /// Whether GPUs whose scale-up link is NVLink 5 (GB200/B200-class) are
    /// also tried in a 72-GPU NVLink domain (NVL72), besides their own.
    #[serde(default)]
    pub nvl72: Permission,
    /// Training frameworks the search may move a training plan to, besides
    /// the one it runs on: each is walked as its own option (its
    /// efficiencies, its memory layout, the levers it runs), and a plan
    /// found on another is a framework change the effort model prices
    /// (`Lever::TrainingStack`). Empty (the default): the base plan's
    /// framework only. Ignored when serving.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub training_stacks: Vec<crate::stack::TrainingStack>,
    /// Whether a plan that runs eager attention or FlashAttention's Triton
    /// kernel is also tried on FlashAttention-2, where the GPU runs it
    /// (`GpuArch::runs_flash_attention_2`) and attention runs in 16 bits:
    /// a software change (`Lever::FusedAttention`).
    #[serde(default)]
    pub flash_attention: Permission,
}

fn d_max_cp() -> u32 {
    8
}
fn d_max_mb() -> u32 {
    64
}
fn d_max_batch() -> u32 {
    1024
}
/// Four 256 GB Micron CZ120 expanders per node (1 TB): a shipping
/// product in a count a 2U server's E3.S bays take.
fn d_cxl() -> Vec<CxlExpansion> {
    vec![CxlExpansion {
        devices_per_node: 4,
        device: CxlChoice::Preset(CxlId::MicronCz120_256),
    }]
}

impl Default for Space {
    fn default() -> Self {
        Self {
            max_context_parallel: d_max_cp(),
            max_micro_batch: d_max_mb(),
            max_batch: d_max_batch(),
            interleaving: Interleaving::All,
            cxl: d_cxl(),
            nvl72: Permission::Allowed,
            training_stacks: Vec::new(),
            flash_attention: Permission::Allowed,
        }
    }
}

/// A price for one GPU kind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GpuPrice {
    /// The GPU kind.
    pub gpu: GpuId,
    /// Dollars per GPU-hour when the base plan rents, per GPU when it
    /// buys (`economics.pricing`).
    pub usd: Usd,
}

impl Scenario {
    /// Parses a scenario from JSON; the error names the failing field, or
    /// says the scenario (or its base plan) was made by a newer memwall.
    pub fn from_json(json: &str) -> Result<Scenario, crate::PlanParseError> {
        let s: Scenario = crate::plan::parse_json(json)?;
        crate::plan::check_version(s.version)?;
        crate::plan::check_version(s.base.version).map_err(|e| crate::PlanParseError {
            path: format!("base.{}", e.path),
            message: e.message,
        })?;
        Ok(s)
    }

    /// The scenario as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// GPT-3 175B pre-training on 1024 A100-80GB, global batch 1536 of 2048
/// tokens, 300 B tokens: the setting of Narayanan et al. 2021 ("Efficient
/// Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
/// Table 1: TP 8 and PP 8 on 1024 GPUs, hence DP 16; §5.1 estimates 34
/// days for 300 B tokens). The micro-batch of 1, the plain 1F1B schedule
/// and full recomputation of the base are our choices, not the paper's
/// figures; the search varies them anyway.
pub fn example_scenario() -> Scenario {
    let base = Plan {
        version: SCHEMA_VERSION,
        name: "GPT-3 175B on 1024×A100-80GB (Megatron-LM, Narayanan et al. 2021)".into(),
        model: ModelChoice::Preset(ModelId::Gpt3_175b),
        workload: Workload::Training(Training {
            kind: TrainingKind::PreTraining,
            seq_len: 2048,
            global_batch: 1536,
            tokens: 300e9,
        }),
        levers: Levers {
            checkpointing: Checkpointing::Full,
            sharding: Sharding::None,
            parallel: Parallelism {
                tp: 8,
                pp: 8,
                dp: 16,
                micro_batch: 1,
                sequence_parallel: SequenceParallel::Off,
                schedule: crate::plan::PipelineSchedule::OneFOneB,
                ..Parallelism::default()
            },
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(GpuId::A100Sxm80), 1024),
        overheads: Overheads::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    };
    Scenario {
        version: SCHEMA_VERSION,
        name: "GPT-3 175B pre-training within 1024 A100-80GB".into(),
        base,
        max_gpus: 1024,
        gpu_counts: GpuCounts::PowersOfTwo,
        constraints: Constraints {
            gpu_kinds: Some(vec![GpuId::A100Sxm80]),
            ..Constraints::default()
        },
        space: Space::default(),
        prices: Vec::new(),
    }
}
