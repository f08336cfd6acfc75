//! The search's output, and the headline figures of any plan (what the
//! search ranks by, and what `memwall compare` shows).

use crate::diagnostics::Diagnostic;
use crate::diff::Change;
use crate::effort::{self, MigrationClass, PlanFamily};
use crate::evaluate::evaluate;
use crate::plan::Plan;
use crate::report::{Report, TimeReport, Verdict};
use crate::resolve::resolve_economics;
use crate::units::{Bytes, Seconds, Usd};
use serde::{Deserialize, Serialize};

/// How fast a plan runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Speed {
    /// A training plan.
    Training {
        /// Wall time of one optimizer step.
        step: Seconds,
        /// Model FLOPs utilisation.
        mfu: f64,
        /// Tokens trained per second, whole job.
        tokens_per_second: f64,
    },
    /// A serving plan.
    Inference {
        /// Time to first token.
        ttft: Seconds,
        /// Time per output token.
        tpot: Seconds,
        /// Output tokens per second, all replicas.
        tokens_per_second: f64,
    },
}

impl Speed {
    /// What the search calls latency: the step time when training, the
    /// time per output token when serving.
    pub fn latency(&self) -> Seconds {
        match self {
            Speed::Training { step, .. } => *step,
            Speed::Inference { tpot, .. } => *tpot,
        }
    }

    /// Tokens trained or generated per second.
    pub fn tokens_per_second(&self) -> f64 {
        match self {
            Speed::Training {
                tokens_per_second, ..
            }
            | Speed::Inference {
                tokens_per_second, ..
            } => *tokens_per_second,
        }
    }
}

/// The figures a plan is judged by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Figures {
    /// GPU name.
    pub gpu: String,
    /// GPUs used.
    pub gpus: u32,
    /// Fits, does not fit, or invalid.
    pub verdict: Verdict,
    /// HBM left on the most loaded device; negative when over.
    pub hbm_margin: Bytes,
    /// Step time or token latencies, and throughput.
    pub speed: Speed,
    /// Dollars per hour of the whole plan (the cost report's), if priced.
    pub usd_per_hour: Option<Usd>,
    /// Dollars per million tokens trained or generated, if priced.
    pub usd_per_million_tokens: Option<Usd>,
    /// Largest micro-batch (training) or batch per replica (serving) that
    /// fits with everything else as planned.
    pub max_batch: u32,
    /// Longest sequence (training) or context (serving) that fits.
    pub max_context: u32,
    /// The kind of change adopting the plan is, coming from the reference
    /// plan (the scenario's base plan, or the first plan compared).
    pub migration: MigrationClass,
}

/// The headline figures of a plan, with its migration class from
/// `reference`.
pub fn figures(plan: &Plan, reference: &Plan) -> Figures {
    figures_of(plan, &evaluate(plan), reference)
}

fn figures_of(plan: &Plan, r: &Report, reference: &Plan) -> Figures {
    let speed = match &r.time {
        TimeReport::Training(t) => Speed::Training {
            step: t.step,
            mfu: t.mfu,
            tokens_per_second: t.tokens_per_second,
        },
        TimeReport::Inference(t) => Speed::Inference {
            ttft: t.ttft,
            tpot: t.tpot,
            tokens_per_second: t.total_output_tokens_per_second,
        },
    };
    let (max_batch, max_context) = match (&r.training, &r.inference) {
        (Some(t), _) => (t.max_micro_batch, t.max_seq_len),
        (None, Some(i)) => (i.max_batch, i.max_context),
        (None, None) => (0, 0),
    };
    let (econ, _) = resolve_economics(plan);
    let migration = effort::migration_class(&effort::efforts(plan, reference, &econ.engineering));
    Figures {
        gpu: r.gpu.clone(),
        gpus: plan.hardware.gpus,
        verdict: r.verdict,
        hbm_margin: r.hbm_margin,
        speed,
        usd_per_hour: r.cost.as_ref().and_then(|c| c.usd_per_hour),
        usd_per_million_tokens: r.cost.as_ref().and_then(|c| c.usd_per_million_tokens),
        max_batch,
        max_context,
        migration,
    }
}

/// One plan the search returns: whole, so it can be evaluated or shared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Found {
    /// How it differs from the base plan (`effort::family`).
    pub family: PlanFamily,
    /// Its headline figures.
    pub figures: Figures,
    /// What changed from the base plan; changes of number format,
    /// quantization or concurrency are flagged by their impact.
    #[serde(default)]
    pub changes: Vec<Change>,
    /// The plan, named by what changed.
    pub plan: Plan,
}

impl Found {
    /// A found plan: its figures against `base`, what changed, and a name
    /// that says so (the base's name only when nothing changed).
    pub fn new(family: PlanFamily, mut plan: Plan, base: &Plan) -> Found {
        let changes = crate::diff::changes(base, &plan);
        plan.name = crate::diff::name(base, &plan, &changes);
        Found {
            family,
            figures: figures(&plan, base),
            changes,
            plan,
        }
    }
}

/// The cheapest plan of each kind of change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FamilyBests {
    /// Same hardware, other levers.
    pub algorithmic: Option<Found>,
    /// Other hardware, the base levers.
    pub hardware: Option<Found>,
    /// Both changed.
    pub hybrid: Option<Found>,
}

fn one() -> u32 {
    1
}

/// How many plans the search saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Counts {
    /// Options walked: GPU kind × CXL expansion × scale-up domain ×
    /// training framework × attention kernel (the second kernel only on
    /// GPUs that run it).
    pub hardware_options: u32,
    /// Training frameworks walked: the base plan's and those
    /// `space.training_stacks` moves it to (1 when serving).
    #[serde(default = "one")]
    pub frameworks: u32,
    /// Attention kernels walked: the base plan's, and FlashAttention-2
    /// where `space.flash_attention` tries it.
    #[serde(default = "one")]
    pub attention_kernels: u32,
    /// GPU counts tried.
    pub gpu_counts: Vec<u32>,
    /// Valid plans in the space: every combination `resolve` accepts.
    /// Hardware over `max_usd_per_hour` is left out whole (every plan on
    /// it fails that constraint whatever its levers).
    pub combinations: u64,
    /// Plans skipped because a larger batch or micro-batch of the same
    /// plan did not fit (memory only grows with it).
    pub pruned_after_non_fit: u64,
    /// Plans skipped because they sit on an added CXL expansion without
    /// using it (the same plan without it is as fast and cheaper).
    pub pruned_idle_cxl: u64,
    /// Plans whose memory was evaluated.
    pub evaluated: u64,
    /// Evaluated plans that fit.
    pub fitting: u64,
    /// Fitting plans that meet every constraint.
    pub feasible: u64,
    /// Plans left out because the training stack they run on cannot run
    /// their levers (`capability`): not counted in `combinations`.
    #[serde(default)]
    pub unsupported: u64,
}

/// Everything the search found. Plans are ordered by cost, then latency,
/// then a stable key of their levers, so the same scenario always gives
/// the same result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SearchResult {
    /// Scenario name.
    pub scenario: String,
    /// What was searched.
    pub counts: Counts,
    /// The base plan's own figures (absent when its levers are invalid).
    pub baseline: Option<Found>,
    /// Plans no other feasible plan beats on both cost ($ per million
    /// tokens) and latency (step time, or time per output token), cheapest
    /// first.
    pub frontier: Vec<Found>,
    /// The cheapest plan of each kind of change.
    pub best: FamilyBests,
    /// The feasible plan with the fewest GPUs (then the cheapest).
    pub fewest_gpus: Option<Found>,
    /// The cheapest feasible plan of each GPU kind, cheapest first; the
    /// first is the cheapest GPU kind that meets the constraints.
    pub by_gpu_kind: Vec<Found>,
    /// The feasible plan with the largest micro-batch (training) or batch
    /// per replica (serving).
    pub largest_batch: Option<Found>,
    /// Of the plans above, the one that fits the longest sequence or
    /// context.
    pub longest_context: Option<Found>,
    /// GPU kinds tried that have no price (they cannot be costed).
    pub unpriced: Vec<String>,
    /// Problems with the base plan that stop or limit the search.
    pub diagnostics: Vec<Diagnostic>,
}

impl SearchResult {
    /// The result as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
