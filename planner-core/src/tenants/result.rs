//! The output of [`share`](super::share): where each job went, how it runs
//! there, and how each GPU is used.

use super::packing::GpuState;
use super::schema::ShareMode;
use crate::diagnostics::Diagnostic;
use crate::plan::{Plan, TrainingKind, Workload};
use crate::report::Verdict;
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};

/// What a job is, for display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// Pre-training.
    Training,
    /// Full fine-tuning, LoRA or QLoRA.
    FineTuning,
    /// Serving.
    Serving,
}

/// Training, fine-tuning or serving, from the plan's workload.
pub(super) fn job_kind(plan: &Plan) -> JobKind {
    match &plan.workload {
        Workload::Inference(_) => JobKind::Serving,
        Workload::Training(t) => match t.kind {
            TrainingKind::PreTraining => JobKind::Training,
            _ => JobKind::FineTuning,
        },
    }
}

/// What a job is given on each of its GPUs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Share {
    /// A MIG instance.
    Mig {
        /// NVIDIA's profile name (`3g.40gb`).
        profile: String,
        /// Compute slices out of 7.
        compute_slices: u32,
        /// Memory slices out of 8.
        memory_slices: u32,
    },
    /// A per-process memory cap.
    Cap {
        /// Fraction of the GPU's memory, 0..=1 (whole per cent).
        fraction: f64,
    },
    /// Whole GPUs.
    Whole,
}

impl Share {
    /// The share in words, for `gpus` GPUs (`2 × a whole GPU`).
    pub(super) fn label(&self, gpus: u32) -> String {
        let each = match self {
            Share::Mig { profile, .. } => format!("a MIG {profile} slice"),
            Share::Cap { fraction } => format!("{:.0} % of a GPU", fraction * 100.0),
            Share::Whole => "a whole GPU".to_string(),
        };
        if gpus > 1 {
            format!("{gpus} × {each}")
        } else {
            each
        }
    }
}

/// A serving job's batch and throughput where it runs, against the job
/// alone on a whole GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ServingOutcome {
    /// The batch the plan asks for.
    pub requested_batch: u32,
    /// The smallest batch the job accepts (its `min_batch`, else the plan's).
    pub target_batch: u32,
    /// The largest batch that fits its memory (≤ the requested batch).
    pub memory_batch: u32,
    /// The batch it runs: the largest that fits and meets its targets.
    pub batch: u32,
    /// Time to first token at that batch.
    pub ttft: Seconds,
    /// Time per output token at that batch.
    pub tpot: Seconds,
    /// Whether the targets are met at that batch.
    pub slo_met: bool,
    /// Output tokens per second at that batch (all replicas).
    pub tokens_per_second: f64,
    /// The batch it would run alone on whole GPUs.
    pub reference_batch: u32,
    /// Output tokens per second alone on whole GPUs.
    pub reference_tokens_per_second: f64,
    /// `tokens_per_second / reference_tokens_per_second`, 0..=1 (1 where
    /// there is no reference).
    pub throughput_kept: f64,
    /// Output tokens per second given up against the reference (≥ 0).
    pub tokens_per_second_lost: f64,
}

/// A training job's step time where it runs, against whole GPUs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrainingOutcome {
    /// Step time where it runs.
    pub step: Seconds,
    /// Step time alone on whole GPUs.
    pub reference_step: Seconds,
    /// `step / reference_step` (≥ 1 on a slice).
    pub slowdown: f64,
}

/// Where a job went and how it runs there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct JobPlacement {
    /// The job's name.
    pub job: String,
    /// Training, fine-tuning or serving.
    pub kind: JobKind,
    /// What it needs on each GPU (`None` when it fits nowhere).
    pub share: Option<Share>,
    /// GPUs it needs.
    pub gpus_needed: u32,
    /// Whether it was placed.
    pub placed: bool,
    /// GPU indices it runs on (empty when not placed).
    pub gpus: Vec<u32>,
    /// First memory slice of its MIG instance.
    pub mig_start: Option<u32>,
    /// Device memory it may use on each GPU.
    pub capacity: Bytes,
    /// Its peak device memory on the most loaded GPU.
    pub peak: Bytes,
    /// `capacity − peak` (negative when it does not fit).
    pub headroom: Bytes,
    /// The verdict of its plan where it runs.
    pub verdict: Verdict,
    /// Jobs sharing its busiest GPU, itself included (1 on whole GPUs
    /// and MIG slices; under memory caps its figures are slowed by this
    /// many, see `tenants::contention`).
    #[serde(default = "one")]
    pub sharers: u32,
    /// Serving figures.
    pub serving: Option<ServingOutcome>,
    /// Training figures.
    pub training: Option<TrainingOutcome>,
    /// Why it did not fit or was not placed, and other notes (the plan's
    /// own diagnostics where they explain a failure).
    pub diagnostics: Vec<Diagnostic>,
}

/// How one GPU is used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GpuUse {
    /// Index in the pool.
    pub index: u32,
    /// Node it is in.
    pub node: u32,
    /// What is on it.
    pub state: GpuState,
    /// Jobs on it, by name.
    pub jobs: Vec<String>,
    /// Device memory a process can address.
    pub capacity: Bytes,
    /// Memory given to jobs (slices, caps or the whole GPU).
    pub allotted: Bytes,
    /// The jobs' peaks added up.
    pub peak: Bytes,
}

/// The packer used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Packing {
    /// First-fit decreasing (see the module documentation).
    FirstFitDecreasing,
}

/// The result of [`share`](super::share).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SharingResult {
    /// How jobs share GPUs (MIG falls back to whole GPUs on parts without it).
    pub mode: ShareMode,
    /// The pool's GPU.
    pub gpu: String,
    /// GPUs in the pool.
    pub pool_gpus: u32,
    /// The packer.
    pub packing: Packing,
    /// One entry per job, in input order.
    pub jobs: Vec<JobPlacement>,
    /// One entry per GPU.
    pub gpus: Vec<GpuUse>,
    /// GPUs with at least one job.
    pub gpus_used: u32,
    /// GPUs the placed jobs would take without sharing (each on whole GPUs).
    pub gpus_without_sharing: u32,
    /// Jobs placed.
    pub placed: u32,
    /// Problems and notes, pool-wide and per job.
    pub diagnostics: Vec<Diagnostic>,
}

impl SharingResult {
    /// The result as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

fn one() -> u32 {
    1
}
