//! The serving search's vocabulary: the scenario and its space, an
//! answer, the search's result, and what an answer's hardware costs per
//! hour. Both the co-located search (`serving.rs`) and the P:D lever
//! (`disagg.rs`) read it, so neither imports the other's types.

use crate::diff::Change;
use crate::plan::Plan;
use crate::report::AnalyticServing;
use serde::{Deserialize, Serialize};

/// A serving plan to improve: its stream (a Poisson rate and SLOs) is
/// the demand; the search varies the engine knobs and the replica shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ServingScenario {
    /// A serving plan with a request stream under a continuous-batching
    /// engine; `levers.speculative`, when set, names the drafter and its
    /// acceptance rate, and the search varies its draft tokens.
    pub base: Plan,
    /// Most GPUs over all replicas, 1..=4,096.
    pub max_gpus: u32,
    /// The values tried.
    #[serde(default)]
    pub space: ServingSpace,
}

impl ServingScenario {
    /// Parses a serving scenario from JSON; the error names the failing
    /// field (`base.levers.precision.weights: …`), or says its base plan
    /// was made by a newer memwall.
    pub fn from_json(json: &str) -> Result<ServingScenario, crate::PlanParseError> {
        let s: ServingScenario = crate::plan::parse_json(json)?;
        crate::plan::check_version(s.base.version).map_err(|e| crate::PlanParseError {
            path: format!("base.{}", e.path),
            message: e.message,
        })?;
        Ok(s)
    }
}

/// The values a serving search tries; each list at most
/// [`MAX_VALUES`] long.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ServingSpace {
    /// Tensor-parallel degrees of one replica.
    #[serde(default = "default_tp")]
    pub tp: Vec<u32>,
    /// Token budgets per iteration (vLLM `max_num_batched_tokens`, SGLang
    /// `chunked_prefill_size`).
    #[serde(default = "default_budgets")]
    pub token_budgets: Vec<u32>,
    /// Running-request limits (`max_num_seqs`).
    #[serde(default = "default_seqs")]
    pub max_seqs: Vec<u32>,
    /// Draft tokens per step, tried when the base plan names a drafter
    /// (0 is no speculation).
    #[serde(default = "default_draft")]
    pub draft_tokens: Vec<u32>,
    /// Whether the search also tries disaggregated prefill and decode
    /// pools (the P:D ratio, TP per pool, the prefill pool's token budget
    /// and the decode pool's running limit from the lists above). Off by
    /// default.
    #[serde(default)]
    pub disaggregation: crate::disagg::PoolSearch,
    /// Sizes per GPU, in GB, of the KV store below HBM (`levers.kv_tier`)
    /// tried on each tier the hardware has (host DRAM, CXL expanders or a
    /// pool, NVMe), when the stream reuses contexts; empty tries each
    /// tier's whole share. No store is always tried too.
    #[serde(default)]
    pub kv_tier_gb: Vec<f64>,
}

/// The longest list a space may hold.
pub const MAX_VALUES: usize = 16;

fn default_tp() -> Vec<u32> {
    vec![1, 2, 4, 8]
}
fn default_budgets() -> Vec<u32> {
    vec![2048, 4096, 8192, 16384]
}
fn default_seqs() -> Vec<u32> {
    vec![64, 128, 256, 512, 1024]
}
fn default_draft() -> Vec<u32> {
    vec![0, 1, 2, 3, 4, 5]
}

impl Default for ServingSpace {
    fn default() -> Self {
        ServingSpace {
            tp: default_tp(),
            token_budgets: default_budgets(),
            max_seqs: default_seqs(),
            draft_tokens: default_draft(),
            disaggregation: crate::disagg::PoolSearch::Off,
            kv_tier_gb: Vec::new(),
        }
    }
}

/// Replicas the simulator check may add to one answer before giving it up
/// (`serving::checked`, `disagg::checked`).
pub(super) const MAX_ADDED_REPLICAS: u32 = 16;

/// One answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ServingFound {
    /// The plan, ready to evaluate.
    pub plan: Plan,
    /// What changed against the base plan.
    pub changes: Vec<Change>,
    /// Whether a change affects what users of the service see (a lower
    /// running-request limit queues them): check it against the SLOs.
    pub affects_sla: bool,
    /// GPUs over all replicas.
    pub gpus: u32,
    /// Replicas.
    pub replicas: u32,
    /// The steady state at the stream's rate.
    pub analytic: AnalyticServing,
    /// The iteration-level simulation of one replica's share of the stream
    /// that confirmed the answer meets the stream's SLOs (the search adds
    /// replicas until it does; a disaggregated answer's stream through
    /// both pools); `None` where the stream sets no SLO.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated: Option<crate::report::SimulatedServing>,
    /// What the hardware costs per hour, added memory (CXL, a pool's
    /// share) included; `None` when a price is unknown.
    #[serde(default)]
    pub usd_per_hour: Option<crate::units::Usd>,
}

impl ServingFound {
    /// The answer told against `base`: what changed, whether users of the
    /// service see a change, and a name that says so (the base's name only
    /// when nothing changed), as the batch search names its plans.
    pub fn against(mut self, base: &Plan) -> ServingFound {
        self.changes = crate::diff::changes(base, &self.plan);
        self.affects_sla = self
            .changes
            .iter()
            .any(|c| c.impact == crate::diff::Impact::Sla);
        self.plan.name = crate::diff::name(base, &self.plan, &self.changes);
        self
    }

    /// Dollars per million output tokens: the hardware's hourly price over
    /// the tokens all replicas emit in an hour at the stream's rate (the
    /// steady state's, which carries the rate whole); `None` without a
    /// price or without output.
    pub fn usd_per_million_output(&self) -> Option<crate::units::Usd> {
        let per_hour = self.usd_per_hour?;
        let tokens_per_hour = self.analytic.output_tokens_per_second * 3600.0;
        (tokens_per_hour.is_finite() && tokens_per_hour > 0.0)
            .then(|| crate::units::Usd::new(per_hour.base() / tokens_per_hour * 1e6))
    }
}

/// What a serving search found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ServingSearch {
    /// Candidates evaluated (one replica's largest rate each).
    pub evaluated: u32,
    /// Those that carry the rate within the SLOs and the GPU budget.
    pub feasible: u32,
    /// The fewest GPUs; among equals the lowest TPOT, then TTFT p99.
    pub best: Option<ServingFound>,
    /// GPUs against TPOT: the feasible answers no other beats on both.
    pub frontier: Vec<ServingFound>,
    /// Why the search could not run, when it could not.
    pub problem: Option<String>,
}

/// What a plan's hardware costs per hour (the cost model's, added
/// memory included).
pub(super) fn usd_per_hour(plan: &Plan) -> Option<crate::units::Usd> {
    let (r, names, _) = crate::resolve::resolve(plan);
    let (econ, _) = crate::resolve::resolve_economics(plan);
    let mut diags = Vec::new();
    crate::cost::hourly(plan, &r, &econ, &names.gpu, &mut diags).usd_per_hour
}
