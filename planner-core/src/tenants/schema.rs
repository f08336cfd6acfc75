//! The input of [`share`](super::share): the pool, how it is shared, and
//! the jobs with their latency targets.

use crate::diagnostics::{Diagnostic, DiagnosticKind};
use crate::hardware::GpuChoice;
use crate::plan::{parse_json, Plan, PlanParseError, SCHEMA_VERSION};
use crate::units::Seconds;
use serde::{Deserialize, Serialize};

/// How jobs share a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum ShareMode {
    /// Multi-Instance GPU slices: memory and compute both partitioned.
    #[default]
    Mig,
    /// Per-process memory caps (PyTorch memory fraction, vLLM
    /// `gpu_memory_utilization`): memory partitioned, compute time-shared.
    MemoryCap,
    /// No sharing: every job gets whole GPUs (the reference to compare with).
    Exclusive,
}

/// The pool of GPUs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Pool {
    /// The GPU kind (every GPU of the pool is the same).
    pub gpu: GpuChoice,
    /// GPUs in the pool.
    pub gpus: u32,
    /// GPUs per node (default 8).
    #[serde(default = "default_per_node")]
    pub gpus_per_node: u32,
    /// How jobs share a GPU (default MIG).
    #[serde(default)]
    pub mode: ShareMode,
}

fn default_per_node() -> u32 {
    8
}

/// A serving job's latency targets; an absent target is not checked.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LatencySlo {
    /// Longest acceptable time to first token, seconds.
    #[serde(default)]
    pub max_ttft: Option<Seconds>,
    /// Longest acceptable time per output token, seconds.
    #[serde(default)]
    pub max_tpot: Option<Seconds>,
}

impl LatencySlo {
    /// Whether a time to first token and a time per output token meet the
    /// targets.
    pub(super) fn met(&self, ttft: Seconds, tpot: Seconds) -> bool {
        self.max_ttft.is_none_or(|m| ttft.base() <= m.base())
            && self.max_tpot.is_none_or(|m| tpot.base() <= m.base())
    }
}

/// One tenant: a plan and, for serving, its targets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Job {
    /// Name shown in the placement.
    pub name: String,
    /// What it runs; its GPU kind is replaced by the pool's, its GPU count
    /// and levers are kept.
    pub plan: Plan,
    /// Latency targets (serving only).
    #[serde(default)]
    pub slo: LatencySlo,
    /// Smallest batch the job accepts (serving only; default: the plan's
    /// batch). Lower it to let the job take a smaller slice and run at the
    /// batch the slice allows.
    #[serde(default)]
    pub min_batch: Option<u32>,
}

/// Jobs and the pool they share: the input of [`share`](super::share).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Sharing {
    /// Schema version.
    #[serde(default = "schema_version")]
    pub version: u32,
    /// The pool.
    pub pool: Pool,
    /// The jobs.
    pub jobs: Vec<Job>,
}

fn schema_version() -> u32 {
    SCHEMA_VERSION
}

impl Sharing {
    /// Parses the input from JSON; the error names the failing field.
    pub fn from_json(json: &str) -> Result<Sharing, PlanParseError> {
        let s: Sharing = parse_json(json)?;
        crate::plan::check_version(s.version)?;
        Ok(s)
    }

    /// The input as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// What is wrong with the input itself, each problem naming its field:
    /// an empty pool, zero GPUs per node, a smallest batch of 0, a latency
    /// target that is not a positive finite time. `share` reports these as
    /// errors (and works on with safe values); the CLI refuses them.
    pub fn problems(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let mut bad = |field: String, problem: &str| {
            out.push(Diagnostic::error(DiagnosticKind::InvalidValue {
                field,
                problem: problem.to_string(),
            }));
        };
        if self.jobs.is_empty() {
            bad("jobs".into(), "must list at least one job");
        }
        if self.pool.gpus == 0 {
            bad("pool.gpus".into(), "must be at least 1");
        }
        if self.pool.gpus_per_node == 0 {
            bad("pool.gpus_per_node".into(), "must be at least 1");
        }
        for (i, job) in self.jobs.iter().enumerate() {
            if job.min_batch == Some(0) {
                bad(format!("jobs[{i}].min_batch"), "must be at least 1");
            }
            let slo = [
                ("max_ttft", job.slo.max_ttft),
                ("max_tpot", job.slo.max_tpot),
            ];
            for (name, t) in slo {
                if t.is_some_and(|t| !(t.base().is_finite() && t.base() > 0.0)) {
                    bad(
                        format!("jobs[{i}].slo.{name}"),
                        "must be a positive, finite time",
                    );
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tenants::example_sharing;

    #[test]
    fn the_input_round_trips() {
        let s = example_sharing();
        let back = Sharing::from_json(&s.to_json());
        assert_eq!(back.ok(), Some(s));
    }
}
